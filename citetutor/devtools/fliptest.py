"""The flip test: code-made wrong drafts from correct ones, through the real checks and models.

For each supported question the real drafter writes a draft; a draft the answer key grades
correct is kept. From its first claim code makes wrong twins: a swapped sign or antonym, an
inserted or removed negation, a changed number, a swapped subject, a neighbouring
sentence's statement under the same citations, a word swapped for its opposite-prefixed
twin in the evidence, and two terms or values exchanged. Each goes through the gate's checks (code
checks, blind agreement, meaning judge) with the real verifier's blind solve, as a scripted
draft would. Reported: the share of wrong drafts caught, per kind, and the share of the
correct drafts rejected. A benchmark, never a test: it needs the real models.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

from pydantic import ValidationError

from citetutor import tutor
from citetutor.checks import Rejected, guard, recited
from citetutor.devtools.evaluation import CORRECT, SUPPORTED, QuestionSet, ingest_set
from citetutor.evidence import Sentence, stems
from citetutor.foils import antonym_flips, exchanged, negation_count, number_flips, prefix_flips
from citetutor.retrieval import Scope
from citetutor.schemas import BlindSolve, Claim, Draft

KINDS = ("sign", "negation", "number", "subject", "neighbour", "prefix", "exchange")


@dataclass
class Trial:
    """One draft through the checks: its kind ("correct" or a flip), and what stopped it."""

    question: str
    kind: str
    claim: str
    reason: str = ""  # the rejection code, "" when it passed
    seconds: float = 0.0
    judged: list = field(default_factory=list)  # the judge's Judgements, for calibration
    blind: str = ""


@dataclass
class FlipReport:
    """All trials of one question set."""

    name: str
    trials: list[Trial] = field(default_factory=list)
    no_correct_draft: list[str] = field(default_factory=list)

    def rate(self, kind: str) -> tuple[int, int]:
        """(stopped, made) for a flip kind; for "correct", (rejected, made)."""
        made = [t for t in self.trials if t.kind == kind]
        return sum(bool(t.reason) for t in made), len(made)


def flips(claim: str, sentences: list[Sentence], cited: list[int], question: str = "") -> dict[str, str]:
    """The wrong twins of `claim` that code can make, at most one per kind."""
    made: dict[str, str] = {}
    for foil in antonym_flips(claim):
        kind = "negation" if negation_count(foil) != negation_count(claim) else "sign"
        made.setdefault(kind, foil)
    if number := number_flips(claim):
        made["number"] = number[0]
    if swapped := _swapped_subject(claim, sentences, cited):
        made["subject"] = swapped
    # A neighbouring sentence's statement about something else: of the uncited sentences, the
    # one furthest from the question (the next one often says the same thing again).
    others = [s for s in sentences if s.number not in cited]
    if others:
        made["neighbour"] = min(others, key=lambda s: s.cosine).text[:240]
    # A word swapped for its opposite-prefixed twin in the evidence ("exothermic" where the
    # notes also say "endothermic"): a field's own opposites, which no hand list holds.
    twins = [f for f in prefix_flips(claim, " ".join(s.text for s in sentences)) if f not in made.values()]
    if twins:
        made["prefix"] = twins[0]
    # Two terms or values of the claim exchanged ("more X, less Y" as "less X, more Y"; the
    # cited sentence's other percentage): each fact paired with the other's term.
    cited_text = " ".join(s.text for s in sentences if s.number in cited)
    swaps = [f for f in exchanged(claim, cited_text, question) if f not in made.values()]
    if swaps:
        made["exchange"] = swaps[0]
    return made


def _swapped_subject(claim: str, sentences: list[Sentence], cited: list[int]) -> str:
    """The claim with its first content word replaced by a content word of an uncited sentence."""
    words = re.findall(r"[A-Za-z]{5,}", claim)
    held = set(stems(claim))
    if not words:
        return ""
    for sentence in sentences:
        if sentence.number in cited:
            continue
        other = next((w for w in re.findall(r"[A-Za-z]{5,}", sentence.text)
                      if stems(w) and stems(w)[0] not in held), None)
        if other:
            return re.sub(rf"\b{re.escape(words[0])}\b", other.lower(), claim, count=1)
    return ""


def run_flips(pipe, qset: QuestionSet, on_trial=lambda t: None) -> FlipReport:
    """Ingest the set's PDF, draft each supported question, and send its flips through the checks."""
    subject = ingest_set(pipe, qset)
    gate, report = pipe.gate, FlipReport(qset.name)
    for case in qset.cases:
        if case.kind != SUPPORTED:
            continue
        with gate.tracer.request("fliptest", subject) as trace:
            found = tutor.retrieve(gate, trace, case.question, Scope(subject))
            sentences, _ = tutor.number_sentences(gate, trace, case.question, found)
            try:
                draft = tutor.write_draft(gate, trace, case.question, sentences,
                                          "hint" if case.mode == "hint" else "explain", "", "", 1,
                                          lambda s, a: None)
            except Rejected:
                draft = None
            pages = sorted({s.hit.page_no for s in sentences if draft and any(
                s.number in c.sentences for c in draft.claims)})
            if draft is None or case.grade(draft.answer, pages) != CORRECT:
                report.no_correct_draft.append(case.question)
                trace.finish("refused", None, 1)
                continue
            solved = tutor.solve_blind(gate, trace, case.question, sentences)
            flipped = flips(draft.claims[0].text, sentences, draft.claims[0].sentences, case.question).items()
            trials = [("correct", draft)] + [(kind, wrong) for kind, text in flipped
                                             if (wrong := _with_first_claim(draft, text)) is not None]
            for kind, candidate in trials:
                trial = _try(gate, trace, case.question, case.mode, sentences, candidate, solved, kind)
                report.trials.append(trial)
                on_trial(trial)
            trace.finish("answered", None, 1)
    return report


def _with_first_claim(draft: Draft, text: str) -> Draft | None:
    """The draft with its first claim replaced; None when the claim is longer than a drafter may
    write (a long claim with "not" added once ended a run)."""
    first = draft.claims[0]
    try:
        return Draft(claims=[Claim(text=text, sentences=first.sentences), *draft.claims[1:]])
    except ValidationError:
        return None


def _try(gate, trace, question: str, mode: str, sentences: list[Sentence], draft: Draft,
         solved: BlindSolve, kind: str) -> Trial:
    """One draft through every check after drafting, as the tutor runs them."""
    started = time.perf_counter()
    reason, seen = "", []  # type: tuple[str, list]
    try:
        # As write_draft hands every draft on.
        draft = recited(question, draft, sentences, gate.limits.min_topic_relevance)
        uncovered = guard(question, draft, sentences, gate.limits.min_paraphrase_overlap,
                          gate.limits.min_topic_relevance, mode, gate.embedder)
        if not solved.sentences:
            raise Rejected("blind_unanswerable")
        tutor.verify_draft(gate, trace, question, sentences, draft, solved, uncovered, 1, seen=seen)
    except Rejected as rejection:
        reason = str(rejection.code)
    return Trial(question, kind, draft.claims[0].text, reason, time.perf_counter() - started, seen,
                 f"{solved.answer[:80]} {solved.sentences}")


def trial_line(trial: Trial) -> str:
    """One line per trial, for reading a run."""
    verdict = f"stopped ({trial.reason})" if trial.reason else "PASSED"
    if trial.kind == "correct":
        verdict = f"REJECTED ({trial.reason})" if trial.reason else "passed"
    margins = " ".join(f"[{'stated %+.2f ' % j.stated if j.stated is not None else ''}"
                       f"{'flip %+.2f' % j.flipped if j.flipped is not None else ''}]" for j in trial.judged)
    line = f"{trial.seconds:5.1f} s  {trial.kind:9} {verdict:30} {margins:24} {trial.claim[:100]}"
    return line + (f"\n           blind: {trial.blind}" if trial.reason == "blind_disagrees" else "")


def table(reports: list[FlipReport]) -> str:
    """Catch rate per flip kind and the false-rejection rate of correct drafts, per set."""
    head = "| set | correct drafts rejected | " + " | ".join(f"{k} caught" for k in KINDS) + " | all flips caught |"
    rows = [head, "|" + "---|" * (len(KINDS) + 3)]
    for r in reports:
        cells = [_cell(*r.rate(k)) for k in KINDS]
        caught = sum(r.rate(k)[0] for k in KINDS)
        made = sum(r.rate(k)[1] for k in KINDS)
        rows.append(f"| {r.name} | {_cell(*r.rate('correct'))} | " + " | ".join(cells)
                    + f" | {_cell(caught, made)} |")
    return "\n".join(rows)


def _cell(hit: int, made: int) -> str:
    return f"{hit}/{made} ({100 * hit / made:.0f}%)" if made else "—"
