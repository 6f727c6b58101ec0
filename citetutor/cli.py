"""`python -m citetutor <command>`: the pipeline without the UI; `--help` lists the commands."""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

from citetutor.config import Settings
from citetutor.errors import CiteTutorError, InputError
from citetutor.models.factory import build_models
from citetutor.pipeline import Pipeline, restore_library


def cmd_ingest(pipe: Pipeline, args) -> None:
    """Ingest PDFs into a subject."""
    subject = pipe.create_subject(args.subject)
    for path in args.pdfs:
        if not Path(path).is_file():
            raise InputError(f"No file at {path}: check the path and try again.")
        limit = pipe.settings.limits.max_upload_mb
        if Path(path).stat().st_size > limit * 1024 * 1024:  # before reading it into memory
            raise InputError(f"'{Path(path).name}' is larger than {limit} MB; split it into chapters.")
        result = pipe.upload(Path(path).read_bytes(), Path(path).name, subject, args.password,
                             draft_ocr=True)
        note = " (already there)" if result.duplicate else ""
        if result.ocr_problem:
            note += f" (no OCR drafts yet: {result.ocr_problem})"
        print(f"{path}: {result.kind}, {result.status}, {result.pages} pages, {result.chunks} chunks{note}")


def cmd_ask(pipe: Pipeline, args) -> None:
    """Ask the tutor; print the verified answer with page citations."""
    result = pipe.ask(args.question, pipe.create_subject(args.subject), mode=args.mode)
    print(result.text)
    for cite in result.citations:
        print(f"  [{cite.title}, p. {cite.page_no}] {cite.chunk_id}")
    print(f"({result.status}, {result.attempts} attempts, " +
          ", ".join(f"{s['name']} {s['duration_ms']:.0f} ms" for s in result.spans) + ")")


def cmd_quiz(pipe: Pipeline, args) -> None:
    """Make practice questions from a document's page range."""
    def show(item) -> None:
        print(f"- {item.candidate.kind}: {item.candidate.stem} -> {item.key} (p. {item.pages})", flush=True)
    result = pipe.quiz(args.doc_id, args.first, args.last, args.count, on_item=show)
    print(f"{len(result.items)} kept, {result.rejected_count} dropped: {result.rejected}")
    if result.shortfall:
        print(result.shortfall)


def cmd_quiz_eval(pipe: Pipeline, args) -> None:
    """Quizzes over page ranges of real PDFs; every kept item printed with the reader's verdict."""
    from citetutor.devtools import quizeval
    verdicts = quizeval.load_verdicts(Path(args.verdicts))
    reports = quizeval.run_ranges(pipe, quizeval.load_plan(Path(args.ranges)),
                                  lambda r: print(quizeval.range_lines(r, verdicts), flush=True))
    print(quizeval.table(reports, verdicts))


def cmd_ocr_eval(args) -> int:
    """OCR engines on hand-transcribed scan pages: character error rate and seconds per page."""
    from citetutor.devtools import ocreval
    from citetutor.devtools.rapid_ocr import RapidOcr
    from citetutor.models.base import OcrModel
    from citetutor.models.embedded import TesseractOcr
    engines: dict[str, OcrModel] = {"Tesseract 5 (apt)": TesseractOcr(), "RapidOCR (PyPI, ONNX)": RapidOcr()}
    scores = ocreval.score(engines, Path(args.transcriptions), Path(args.scans), Settings().limits.ocr_dpi,
                           lambda engine, why: print(f"skipped {engine}: {why}", flush=True))
    for s in scores:
        print(f"{s.engine:24} {s.page:55} CER {s.cer:5.0%}  {s.seconds:5.1f} s", flush=True)
    print(ocreval.table(scores))
    return 0


def cmd_eval(pipe: Pipeline, args) -> None:
    """Run question sets through the gate on a fresh library; print per-question lines and a table."""
    from citetutor.devtools import evaluation
    reports = []
    for qset in _sets_to_run(args, " Pass --untouched only for a first or a final run, never while tuning."):
        print(f"## {qset.name} ({qset.pdf.name}, {len(qset.cases)} questions, {pipe.models.label})",
              flush=True)
        report = evaluation.run_set(pipe, qset, args.draft_only,
                                    lambda o: print(evaluation.case_line(o), flush=True))
        reports.append(report)
    print(evaluation.table(reports))


def _load_sets(args) -> list:
    """Every question set named, read and checked before the first question is asked: a missing
    last set once ended an hour's eval before its table was printed."""
    from citetutor.devtools import evaluation
    return [evaluation.load_set(Path(path), args.pdf) for path in args.sets]


def _sets_to_run(args, advice: str = "") -> list:
    """The sets named, less the held-out ones unless --untouched was given (each skip is said)."""
    sets = []
    for qset in _load_sets(args):
        if qset.untouched and not args.untouched:
            print(f"## {qset.name}: held out (untouched); skipped.{advice}", flush=True)
        else:
            sets.append(qset)
    return sets


def cmd_flip(pipe: Pipeline, args) -> None:
    """The flip test: code-made wrong drafts through the real checks; catch rates per kind."""
    from citetutor.devtools import fliptest
    reports = []
    for qset in _sets_to_run(args):
        print(f"## {qset.name} ({pipe.models.label})", flush=True)
        report = fliptest.run_flips(pipe, qset, lambda t: print(fliptest.trial_line(t), flush=True))
        if report.no_correct_draft:
            print(f"   no correct first draft to flip: {len(report.no_correct_draft)} questions", flush=True)
        reports.append(report)
    print(fliptest.table(reports))


def cmd_relevance(pipe: Pipeline, args) -> None:
    """The pre-gate's relevance floor against question sets; only the embedder runs."""
    from citetutor.devtools import relevance
    rows = []
    for qset in _sets_to_run(args, " Choosing a floor on it would tune on it."):
        print(f"## {qset.name}", flush=True)
        rows += relevance.measure_set(pipe, qset, lambda r: print(relevance.case_line(r), flush=True))
    print(relevance.floor_table(rows, pipe.gate.limits.min_sentence_relevance))


def cmd_health(pipe: Pipeline, args) -> None:
    """Which models the runtime has."""
    print(pipe.models.label)
    for role, model, ok, message in pipe.health():
        print(f"{'ok ' if ok else 'MISSING'} {role:9} {model}  {message}")


def cmd_bench(pipe: Pipeline, args) -> None:
    """Retrieval at 1k/10k/100k chunks from the given PDFs' text; this and the previous path."""
    from citetutor.devtools import benchmark
    subject = pipe.create_subject("seed")
    for pdf in args.pdfs:
        started = time.perf_counter()
        result = pipe.upload(Path(pdf).read_bytes(), Path(pdf).name, subject)
        print(f"ingest {Path(pdf).name}: {time.perf_counter() - started:.2f} s for {result.pages} pages "
              f"({result.chunks} chunks)")
    # A developer's tool: it reads the scratch library directly, never through the facade.
    seed = benchmark.seed_from(pipe.store, pipe.models.embedder.name)
    questions = args.query or benchmark.DEFAULT_QUERIES
    vectors = list(zip(questions, pipe.models.embedder.embed(questions)))
    rows = benchmark.run(seed, vectors, args.sizes, pipe.settings.data_dir, args.previous_up_to,
                         on_row=lambda r: print(benchmark.table([r]).splitlines()[-1], flush=True))
    print(benchmark.table(rows))


def parser() -> argparse.ArgumentParser:
    """The command-line interface."""
    top = argparse.ArgumentParser(prog="citetutor", description=__doc__)
    sub = top.add_subparsers(dest="command", required=True)
    ingest = sub.add_parser("ingest", help="add PDFs to a subject")
    ingest.add_argument("--subject", required=True)
    ingest.add_argument("--password")
    ingest.add_argument("pdfs", nargs="+")
    ask = sub.add_parser("ask", help="ask the tutor")
    ask.add_argument("--subject", required=True)
    ask.add_argument("--mode", choices=["explain", "hint"], default="explain")
    ask.add_argument("question")
    quiz = sub.add_parser("quiz", help="practice questions from a page range")
    quiz.add_argument("doc_id")
    quiz.add_argument("first", type=int)
    quiz.add_argument("last", type=int)
    quiz.add_argument("--count", type=int, default=5)
    evaluate = sub.add_parser("eval", help="score the gate on question sets (see evals/)")
    evaluate.add_argument("sets", nargs="+", help="question-set JSON files, e.g. evals/*.json")
    evaluate.add_argument("--pdf", help="the PDF to use instead of the one the set names")
    evaluate.add_argument("--draft-only", action="store_true",
                          help="also time one unchecked draft per supported question, side by side")
    evaluate.add_argument("--untouched", action="store_true",
                          help="also run the held-out sets (once first, once last; never to tune)")
    ocr_eval = sub.add_parser("ocr-eval", help="OCR engines against hand transcriptions (see evals/ocr/)")
    ocr_eval.add_argument("--transcriptions", default="evals/ocr")
    ocr_eval.add_argument("--scans", default="../shared/corpus/scanned")
    sub.add_parser("restore", help="replace a damaged library with its newest readable snapshot")
    quiz_eval = sub.add_parser("quiz-eval", help="quizzes over page ranges of real PDFs (see evals/)")
    quiz_eval.add_argument("ranges", nargs="?", default="evals/quiz/ranges.json",
                           help="a quiz-range file naming question sets' PDFs and page ranges")
    quiz_eval.add_argument("--verdicts", default="evals/quiz/verdicts.json",
                           help="the reader's verdicts on kept items")
    flip = sub.add_parser("flip", help="flip test: wrong drafts made by code, through the real checks")
    flip.add_argument("sets", nargs="+", help="question-set JSON files, e.g. evals/*.json")
    flip.add_argument("--pdf", help="the PDF to use instead of the one the set names")
    flip.add_argument("--untouched", action="store_true", help="also run the held-out sets")
    relevance = sub.add_parser("relevance", help="the pre-gate's relevance floor against question "
                               "sets: cosines only, no chat model runs")
    relevance.add_argument("sets", nargs="+", help="question-set JSON files, e.g. evals/*.json")
    relevance.add_argument("--pdf", help="the PDF to use instead of the one the set names")
    relevance.add_argument("--untouched", action="store_true", help="also measure the held-out sets")
    sub.add_parser("health", help="check the models")
    bench = sub.add_parser("bench", help="time retrieval on 1k/10k/100k-chunk libraries built from PDFs")
    bench.add_argument("pdfs", nargs="+", help="course PDFs whose chunks seed the libraries")
    bench.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    bench.add_argument("--previous-up-to", type=int, default=10_000,
                       help="also time the replaced implementation up to this size (it needs "
                            "about 77 s and 3.5 GB cold at 100k)")
    bench.add_argument("--query", action="append", help="a query to time (repeatable)")
    return top


COMMANDS = {"ingest": cmd_ingest, "ask": cmd_ask, "quiz": cmd_quiz, "eval": cmd_eval, "health": cmd_health,
            "bench": cmd_bench, "flip": cmd_flip, "quiz-eval": cmd_quiz_eval, "relevance": cmd_relevance}


def main(argv: list[str] | None = None) -> int:
    """Run one command; CiteTutorErrors print their fix and exit 1."""
    args = parser().parse_args(argv)
    settings = Settings()
    if args.command == "ocr-eval":  # no library needed
        return cmd_ocr_eval(args)
    if args.command == "restore":  # the library may not open: no Pipeline
        try:
            print(restore_library(settings))
        except CiteTutorError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        return 0
    models = None
    scratch = None
    if args.command in ("bench", "eval", "flip", "quiz-eval", "relevance"):
        # A fresh library for every run (no cached answers), inside the data dir beside the
        # learner's own; the models keep the learner's model cache so nothing is built twice.
        models = build_models(settings)
        scratch = settings.data_dir / args.command
        shutil.rmtree(scratch, ignore_errors=True)
        settings = settings.model_copy(update={"data_dir": scratch})
    if args.command in ("eval", "flip", "quiz-eval"):
        scratch = None  # kept: the eval's library is there to look at afterwards
    try:
        COMMANDS[args.command](Pipeline(settings, models=models), args)
    except CiteTutorError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        if scratch is not None:  # the bench's libraries reach 170 MB at 100k chunks
            shutil.rmtree(scratch, ignore_errors=True)
    return 0
