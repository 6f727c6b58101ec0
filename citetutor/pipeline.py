"""The Pipeline facade: the one object the UI and the CLI call."""

from __future__ import annotations

import json
import os
import statistics
from dataclasses import replace
from datetime import datetime
from pathlib import Path

from citetutor import backups, catalog, chat, gate, index, library, marking, quiz, review, scan, tracing, tutor
from citetutor.catalog import DocumentListing, ScanPage, SubjectRow  # noqa: F401 - row types, for the UI
from citetutor.chat import Turn
from citetutor.config import Settings
from citetutor.errors import CiteTutorError, LibraryDamaged, NotFound, PasswordRequired  # noqa: F401 - for the UI
from citetutor.ingest import IngestResult, Progress, ingest_pdf, readable_filename
from citetutor.inputs import MAX_QUESTION_CHARS, question_text, valid_text  # noqa: F401 - the limit, for the UI
from citetutor.models.factory import ModelSet, build_models
from citetutor.pdf import garbled_formula, open_pdf, render_crop, render_png, with_highlights
from citetutor.quiz import QuizItem, QuizResult
from citetutor.retrieval import Scope
from citetutor.states import DocStatus, ReviewState  # noqa: F401 - states the UI compares with
from citetutor.store import Store
from citetutor.tutor import Citation, Mode, TutorAnswer  # noqa: F401 - the facade's answer types, for the UI


def _quiet(_: float, __: str) -> None:
    """Default progress sink."""


def open_library(settings: Settings) -> Store:
    """The learner's library; a damaged one is an error naming the newest snapshot to restore."""
    try:
        return Store(settings.db_path)
    except LibraryDamaged as exc:
        snapshot = backups.newest_readable(settings.data_dir)
        if snapshot is None:
            raise
        raise LibraryDamaged(
            f"Your library {settings.db_path} is damaged and cannot be read. A snapshot from "
            f"{backups.taken_at(snapshot)} can replace it (the damaged file is kept beside it): "
            "restore it here, or run `python -m citetutor restore`.", settings.db_path, snapshot) from exc


def restore_library(settings: Settings) -> str:
    """Replace a damaged library with its newest readable snapshot; says what was done."""
    snapshot, aside = backups.restore(settings.db_path, settings.data_dir)
    kept = f"; the damaged file is kept as {aside.name}" if aside else ""
    return f"Restored your library from the snapshot of {backups.taken_at(snapshot)}{kept}."


class Pipeline:
    """Wires settings, store, models and tracer; every method is one user action."""

    def __init__(self, settings: Settings, models: ModelSet | None = None, store: Store | None = None):
        # Everything CiteTutor writes (library, originals, page images) is the learner's own:
        # files 0600, folders 0700, whatever the shell's umask.
        os.umask(0o077)
        self.settings = settings
        self.store = store or open_library(settings)
        library.sweep_orphan_files(self.store, settings.files_dir)
        index.backfill_terms(self.store)  # libraries from before chunks kept their BM25 terms
        self.models = models or build_models(settings)
        self.tracer = tracing.Tracer(self.store, settings.sentry)
        self.gate = gate.Gate(self.store, self.models.embedder, self.models.drafter,
                               self.models.verifier, self.tracer, settings.limits,
                               settings.parallel_blind_solve, settings.question_deadline_s,
                               judge=self.models.judge or self.models.verifier)

    # Library
    def create_subject(self, name: str) -> int:
        """Create (or find) a subject by name."""
        return library.create_subject(self.store, valid_text(name, "subject name"))

    def subjects(self) -> list[catalog.SubjectRow]:
        """All subjects."""
        return catalog.subjects(self.store)

    def documents(self, subject_id: int | None = None) -> list[catalog.DocumentListing]:
        """Documents, optionally of one subject."""
        return catalog.documents(self.store, subject_id)

    def document(self, doc_id: str) -> catalog.DocumentRow:
        """One document."""
        return library.get_document(self.store, doc_id)

    def upload(self, data: bytes, filename: str, subject_id: int, password: str | None = None,
               progress: Progress = _quiet, draft_ocr: bool = False) -> IngestResult:
        """Ingest a PDF; with `draft_ocr`, a new scan gets OCR drafts right away so review can start.

        A missing OCR model does not lose the upload: the scan is kept, `ocr_problem` says
        why, and Scan Review offers the drafts again.
        """
        if password is not None:
            valid_text(password, "password")
        with self.tracer.request("ingest", subject_id, readable_filename(filename)) as trace:
            with trace.span("ingest", model=self.models.embedder.name):
                result = ingest_pdf(self.store, self.models.embedder, self.settings.files_dir, data,
                                    filename, subject_id, self.settings.limits, password, progress)
            trace.finish("ok", None, 1)
        if not result.duplicate:
            self._snapshot()
        if draft_ocr and result.status == DocStatus.NEEDS_REVIEW and not result.duplicate:
            try:
                self.run_ocr(result.doc_id, progress)
            except CiteTutorError as exc:
                return replace(result, ocr_problem=str(exc))
        return result

    def delete_document(self, doc_id: str) -> None:
        """Delete a document and its files."""
        library.delete_document(self.store, self.settings.files_dir, doc_id)

    def delete_subject(self, subject_id: int) -> None:
        """Delete a subject and its documents."""
        library.delete_subject(self.store, self.settings.files_dir, subject_id)

    def pdf_bytes(self, doc_id: str, page_no: int | None = None,
                  boxes: list[list[float]] | None = None) -> bytes:
        """The original PDF for the viewer; with `boxes`, those lines of `page_no` highlighted."""
        data = self._original(self.document(doc_id)).read_bytes()
        return with_highlights(data, page_no, boxes) if page_no and boxes else data

    def quote_image(self, cite: Citation) -> bytes | None:
        """A crop of the cited lines when their text layer garbles a formula, else None."""
        boxes = json.loads(cite.bboxes or "[]")
        if not boxes or not garbled_formula(cite.text):
            return None
        doc = self.document(cite.doc_id)
        pdf = open_pdf(self._original(doc), doc["filename"])
        try:
            return render_crop(pdf, cite.page_no, boxes)
        finally:
            pdf.close()

    def page_image(self, doc_id: str, page_no: int, dpi: int = 100) -> bytes:
        """One page as PNG: a glance at a source while the gate is still checking."""
        doc = self.document(doc_id)
        pdf = open_pdf(self._original(doc), doc["filename"])
        try:
            return render_png(pdf, page_no, dpi)
        finally:
            pdf.close()

    def _original(self, doc: catalog.DocumentRow) -> Path:
        """Where a document's original PDF is kept, or NotFound saying how to restore it."""
        path = library.original_path(self.settings.files_dir, doc["sha256"])
        if not path.is_file():
            raise NotFound(f"The PDF of '{doc['title']}' is missing from "
                           f"{self.settings.files_dir}; delete the document and upload it again.")
        return path

    def reembed(self, doc_id: str, progress: Progress = _quiet) -> int:
        """Replace a document's vectors with the current embedder's; returns chunks embedded."""
        return index.reembed(self.store, self.models.embedder, doc_id, progress)

    # Tutor and quiz
    def ask(self, question: str, subject_id: int, doc_ids: tuple[str, ...] = (), mode: tutor.Mode = "explain",
            learner_notes: str = "", on_stage: gate.StageCallback = gate.ignore_stage,
            on_sources: tutor.SourcesCallback = lambda pages: None) -> tutor.TutorAnswer:
        """Answer through the gate (a question over 2,000 characters, or not valid text, is
        refused); `on_sources` gets the pages being checked as soon as retrieval finds them."""
        return tutor.answer(self.gate, question_text(question), Scope(subject_id, doc_ids), mode,
                            valid_text(learner_notes, "note about you"), on_stage, on_sources)

    def searched_question(self, question: str, subject_id: int) -> str:
        """What retrieval will be given for the next turn (a follow-up carries its context)."""
        past = chat.history(self.store, subject_id, limit=1)
        return chat.searched_question(question_text(question).strip(), past[-1].question if past else None)


    def chat(self, question: str, subject_id: int, doc_ids: tuple[str, ...] = (),
             mode: tutor.Mode = "explain", learner_notes: str = "",
             on_stage: gate.StageCallback = gate.ignore_stage,
             on_sources: tutor.SourcesCallback = lambda pages: None) -> Turn:
        """Ask as the next turn of the subject's conversation, and keep the turn (one retrieval:
        `on_sources` gets the pages being checked as soon as it has found them)."""
        searched = self.searched_question(question, subject_id)
        result = self.ask(searched, subject_id, doc_ids, mode, learner_notes, on_stage, on_sources)
        return chat.record(self.store, subject_id, question.strip(), searched, mode, result)

    @property
    def runtime(self) -> str:
        """Which runtime answers: "embedded", "ollama", "openai" (or a test's)."""
        return self.models.runtime

    @property
    def models_label(self) -> str:
        """Which models run and where, in one line."""
        return self.models.label

    def in_plain_words(self) -> str:
        """Which models run and where, said for a student."""
        drafter, verifier = (m.name.split(":", 1)[-1] for m in (self.models.drafter, self.models.verifier))
        if self.models.runtime == "embedded":
            return ("Runs offline on this computer: a small language model writes each answer, and a "
                    "second one checks it against your notes before you see it.")
        if self.models.runtime == "ollama":
            return (f"Runs on this computer through Ollama: {drafter} writes each answer, and {verifier} "
                    "checks it against your notes before you see it.")
        if self.models.runtime == "openai":
            return (f"Runs on the model server at {self.settings.openai_base_url}: {drafter} writes each "
                    f"answer, and {verifier} checks it against your notes before you see it.")
        return self.models.label

    def typical_seconds(self, kind: str = "tutor") -> float | None:
        """This computer's median time for a request of this kind, from its last 20 (None: too few)."""
        recent = tracing.recent_seconds(self.store, kind)
        return statistics.median(recent) if len(recent) >= 3 else None

    def model_roles(self) -> dict[str, str]:
        """Each model's name -> its role here (drafter, verifier, judge), for timing panels."""
        roles = {self.models.drafter.name: "drafter", self.models.verifier.name: "verifier"}
        judge = self.models.judge
        if judge is not None and judge.name not in roles:
            roles[judge.name] = "judge"
        return roles

    @property
    def embedder_name(self) -> str:
        """The embedding model new vectors come from."""
        return self.models.embedder.name

    @property
    def blind_solve_in_parallel(self) -> bool:
        """Whether the verifier solves blind while the drafter writes."""
        return self.settings.parallel_blind_solve

    def chat_history(self, subject_id: int) -> list[Turn]:
        """The subject's conversation, oldest first."""
        return chat.history(self.store, subject_id)

    def clear_chat(self, subject_id: int) -> None:
        """Forget the subject's conversation."""
        chat.clear(self.store, subject_id)

    def draft_only(self, question: str, subject_id: int, mode: tutor.Mode = "explain"):
        """One unchecked draft (for the eval's side-by-side timing only, never shown)."""
        return tutor.draft_only(self.gate, question, Scope(subject_id), mode)

    def quiz(self, doc_id: str, first_page: int, last_page: int, count: int = 5, kinds: str = "mixed",
             on_stage: gate.StageCallback = gate.ignore_stage,
             on_item: quiz.ItemCallback = lambda item: None, budget_s: float | None = None) -> QuizResult:
        """Practice questions from a page range, through the quiz gate; each kept one joins the
        subject's review deck and is handed to `on_item` as soon as it passes."""
        doc = self.document(doc_id)
        scope = Scope(doc["subject_id"], (doc_id,), (first_page, last_page))

        def kept(item: QuizItem) -> None:
            review.add(self.store, item, doc["subject_id"], doc_id)
            on_item(item)
        return quiz.make_quiz(self.gate, doc_id, scope, count, kinds, on_stage, kept, budget_s)

    def due_cards(self, subject_id: int) -> list[review.DueCard]:
        """The subject's review questions that are due now."""
        return review.due(self.store, subject_id)

    def deck_counts(self, subject_id: int) -> tuple[int, int]:
        """(due now, in the deck) for a subject's review deck."""
        return review.counts(self.store, subject_id)

    def record_review(self, item_id: str, right: bool) -> datetime:
        """Schedule a reviewed card; returns when it is due next."""
        return review.record(self.store, item_id, right)

    def health(self) -> list[tuple[str, str, bool, str]]:
        """(role, model, ok, message) for each model role of the runtime in use."""
        from citetutor.models.factory import health
        return health(self.models)

    def refusal_reason(self, answer: tutor.TutorAnswer) -> str:
        """Why the tutor showed nothing, in a learner's words."""
        return tutor.refusal_reason(answer)

    def quiz_sources(self, doc_id: str, item: QuizItem) -> list[tutor.Citation]:
        """The pages a kept quiz item rests on, as citations the viewer can open."""
        title = self.document(doc_id)["title"]
        boxes = item.boxes or ["[]"] * len(item.pages)
        return [tutor.Citation("", doc_id, title, page, " … ".join(item.quotes), page_boxes)
                for page, page_boxes in zip(item.pages, boxes)]

    def check_answer(self, item: QuizItem, answer: str) -> marking.Mark:
        """Whether a learner's typed answer says what the key says: a blank by its term (case,
        plural and spelling slips allowed), a short answer by the meaning judge."""
        if item.candidate.kind == "cloze":
            right = marking.same_term(answer, item.key)
            return marking.Mark(right, "That is the word in the notes." if right else "The notes say otherwise.")
        return marking.mark_short(self.gate.meaning_judge, item.candidate.stem, item.key, item.quotes, answer)

    def export_quiz(self, items: list[QuizItem], source: str, kind: str) -> bytes:
        """Kept items as 'csv' or 'apkg' (an Anki deck) bytes."""
        from citetutor import quiz_export
        return quiz_export.to_apkg(items, source) if kind == "apkg" else quiz_export.to_csv(items, source)


    # Scans
    def run_ocr(self, doc_id: str, progress: Progress = _quiet) -> int:
        """OCR drafts for a scan's pending pages."""
        return scan.run_ocr(self.store, self.models.ocr, self.tracer, doc_id, progress)

    def scan_pages(self, doc_id: str) -> list[catalog.ScanPage]:
        """A scan's pages for review."""
        return catalog.scan_pages(self.store, doc_id)

    def review_page(self, doc_id: str, page_no: int, text: str, state: str) -> bool:
        """Approve or blank one page; True once the document is in retrieval."""
        released = scan.review_page(self.store, self.models.embedder, self.settings.limits, doc_id,
                                    page_no, text, state)
        if released:  # a finished review is an hour's work: keep a copy
            self._snapshot()
        return released

    def _snapshot(self) -> None:
        """Copy the library after a change that would be costly to redo (kept: the last few)."""
        if self.settings.db_path.exists():  # not for an in-memory test store
            backups.take(self.store, self.settings.data_dir)

    def reopen_page(self, doc_id: str, page_no: int) -> None:
        """Send a page back to review; the document leaves retrieval until it is done."""
        catalog.reopen_page(self.store, doc_id, page_no)

    # Traces
    def recent_requests(self, limit: int = 50) -> list[dict]:
        """Latest requests for the Traces page."""
        return tracing.recent_requests(self.store, limit)

    def request_spans(self, request_id: str) -> list[dict]:
        """Spans of one request."""
        return tracing.request_spans(self.store, request_id)

    def stage_latency(self, kind: str | None = None) -> list[dict]:
        """Per-stage latency percentiles."""
        return tracing.stage_latency(self.store, kind)

    def outcome_counts(self) -> list[dict]:
        """Requests by outcome."""
        return tracing.outcome_counts(self.store)

