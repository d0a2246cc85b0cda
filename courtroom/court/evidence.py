"""The court's evidence: each statement's grounding measured with the model's own likelihoods (see
`grounding.py`), the lexical exhibits (`lexical.py`), and what a ruling weighs: the charge's grounding in the
whole context or in the sentences the defence cited, whichever accounts for it better, shifted by the court's
check of the items the prosecution named (`exhibits.py`).

What the agents' evidence moves show in a trial (`TrialEvidence`: each cited sentence measured when it is cited,
each named item checked) also decides, at a node the court decides by the evidence, whether another round is
held (`reopen`): exactly when the evidence is still open and the round brought something new.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from courtroom.case import Case, Charge
from courtroom.casefile import context_sentences
from courtroom.court import grounding as measure
from courtroom.court.bench import Bench
from courtroom.court.prompts import Entry
from courtroom.door.requests import GenerationResponse
from courtroom.engine.lockstep import Call, Step
from courtroom.text.words import Vocabulary


@dataclass(frozen=True)
class Measure:
    """A statement's measured grounding in the whole context, and what re-measuring it against other
    evidence needs: its likelihood without context (total and tokens; per token when measured by token),
    and, when it was read off the whole answer, where it lies in the answer."""

    grounding: float
    bare: tuple[float, int]
    bare_tokens: tuple[float, ...] | None = None
    span: tuple[int, int] | None = None
    weakest: tuple[str, ...] = ()
    """The words the context accounts for least, when measured token by token in the answer."""
    unsupported: float = 0.0
    """The share of the statement's content words that the sources never use (with lexical evidence)."""
    exhibits: tuple[str, ...] = ()
    """Those words, in the statement's order (with lexical evidence)."""


def suspicion(bench: Bench, grounding: float, measured: Measure, shift: float = 0.0) -> float:
    """P(suspect) of a statement measured at `grounding`, with the court's lexical evidence when it takes it (and
    `shift` added to the log-odds: the check of the prosecution's exhibits)."""
    g = bench.spec.grounding
    lexical = 0.0 if g.lexical is None or g.lexical.scale is None else \
        (measured.unsupported - g.lexical.center) / g.lexical.scale
    return measure.p_suspect(grounding, g.center, g.scale, lexical + shift)


@dataclass
class TrialEvidence:
    """What the agents' evidence moves showed in one trial: the charge's grounding in each sentence cited by a
    `citation` move (measured when cited), and each item named by an `exhibit` move with the court's check (True:
    the sources hold it), with the round that first brought each."""

    cited: dict[int, float] = field(default_factory=dict)
    named: dict[str, bool] = field(default_factory=dict)
    brought: dict[str, int] = field(default_factory=dict)
    """`[3]` or `'1926'` -> the round that first brought it."""

    def bring(self, key: str, round: int) -> bool:
        """Note that `round` brought `key`; whether it is new."""
        if key in self.brought:
            return False
        self.brought[key] = round
        return True

    def new_in(self, round: int) -> list[str]:
        """What `round` brought that no earlier round had."""
        return [key for key, first in self.brought.items() if first == round]

    def shift(self, bench: Bench) -> float:
        """The log-odds shift of the exhibit check (`CourtSpec.exhibit_check`; 0 without it or without items)."""
        check = bench.spec.exhibit_check
        if check is None or not self.named:
            return 0.0
        return check.absent if not all(self.named.values()) else check.present

    def note(self, bench: Bench) -> str:
        """The exhibits as a ruling's reason names them ("" when none was named)."""
        if not self.named:
            return ""
        absent = [item for item, held in self.named.items() if not held]
        present = [item for item, held in self.named.items() if held]
        parts = []
        if absent:
            parts.append(f"the prosecution named {_listed(absent)}, which the context does not contain")
        if present:
            parts.append(f"{'it also' if absent else 'the prosecution'} named {_listed(present)}, which the "
                         f"context does contain")
        text = ", and ".join(parts)
        if bench.spec.exhibit_check is not None:
            text += f" ({self.shift(bench):+.2f} to the log-odds)"
        return text


def _listed(items: Sequence[str]) -> str:
    return ", ".join(f"'{item}'" for item in items)


def reopen(bench: Bench, measured: Measure, found: TrialEvidence, round: int) -> tuple[bool, str]:
    """The court's rule at a node decided by the evidence: another round exactly when the evidence is open and
    `round` brought something new; the reason, for the record.

    The evidence is open when the sentence the defence cited and the whole context disagree (their P(suspect) on
    opposite sides of the court's threshold), or when the exhibit check contradicts the measurement (an item named
    is absent but the best grounding finds the statement supported, or every item named is present but it finds
    it hallucinated)."""
    t = bench.threshold
    full = suspicion(bench, measured.grounding, measured)
    best = max([measured.grounding, *found.cited.values()])
    weighed = suspicion(bench, best, measured)
    open_because = []
    if found.cited:
        number, grounding = max(found.cited.items(), key=lambda kv: kv[1])
        cited = suspicion(bench, grounding, measured)
        if (cited >= t) != (full >= t):
            open_because.append(f"the cited sentence [{number}] (P(suspect) {cited:.2f}) and the whole context "
                                f"({full:.2f}) disagree")
    if found.named:
        absent = [item for item, held in found.named.items() if not held]
        if absent and weighed < t:
            open_because.append(f"'{absent[0]}' is not in the context, but the measurement finds the statement "
                                f"supported (P(suspect) {weighed:.2f})")
        elif not absent and weighed >= t:
            open_because.append(f"every item named is in the context, but the measurement finds the statement "
                                f"hallucinated (P(suspect) {weighed:.2f})")
    new = found.new_in(round)
    if not open_because:
        return False, "the evidence is settled: nothing cited or named disagrees with the measurement"
    if not new:
        return False, f"the evidence is open ({'; '.join(open_because)}), but round {round} brought nothing new"
    return True, f"the evidence is open ({'; '.join(open_because)}) and round {round} brought {', '.join(new)}"


def with_lexical_evidence(bench: Bench, case: Case, statements: Sequence[str], measured: list[Measure]) -> list[Measure]:
    """The measures with the share of each statement's words that the context and question never use."""
    if bench.spec.grounding.lexical is None:
        return measured
    vocabulary = Vocabulary([*case.context, case.question])
    out = []
    for statement, m in zip(statements, measured):
        evidence = vocabulary.evidence(statement)
        out.append(replace(m, unsupported=evidence.unsupported, exhibits=evidence.words))
    return out


def measure_statements(bench: Bench, case: Case, statements: Sequence[str]) -> Step:
    """Measure each statement's grounding in the whole context, by the court's scoring mode (see
    `courtroom.bench.grounding`); returns one `Measure` per statement."""
    g = bench.spec.grounding
    answer = case.answer.strip()
    spans: list[tuple[int, int] | None] = [None] * len(statements)
    if g.scoring == "answer":
        for i, statement in enumerate(statements):
            start = answer.find(statement)
            spans[i] = (start, start + len(statement)) if start >= 0 else None
    measured: list[Measure | None] = [None] * len(statements)
    alone = [i for i, span in enumerate(spans) if span is None]
    calls = [Call(measure.scoring_request(case, answer, c, splitter=bench.spec.sentences), purpose="ground",
                  role=bench.spec.clerk)
             for c in ("full", "none")] if len(alone) < len(statements) else []
    calls += _measure_calls(bench, case, [statements[i] for i in alone])
    responses = yield calls
    if len(alone) < len(statements):
        full, bare = measure.TokenScores.of(responses[0]), measure.TokenScores.of(responses[1])
        for i, m in enumerate(answer_measures(bench, answer, spans, full, bare)):
            if m is not None:
                measured[i] = m
        responses = responses[2:]
    for i, m in zip(alone, _measures([statements[i] for i in alone], responses, g.clip)):
        measured[i] = m
    return with_lexical_evidence(bench, case, statements, measured)


def answer_measures(bench: Bench, answer: str, spans: Sequence[tuple[int, int] | None], full: measure.TokenScores,
                    bare: measure.TokenScores) -> list[Measure | None]:
    """The measure of each statement at `spans` of the answer (None where it has none), read off the whole answer
    scored with the context (`full`) and without (`bare`)."""
    clip = bench.spec.grounding.clip
    out: list[Measure | None] = []
    for span in spans:
        if span is None:
            out.append(None)
            continue
        b, f = bare.within(*span), full.within(*span)
        weakest = measure.weakest_words(answer, full.spans_within(*span), [x - y for x, y in zip(f, b)])
        out.append(Measure(measure.token_grounding(f, b, clip), (math.fsum(b), len(b)), b, span, weakest))
    return out


def _measure_calls(bench: Bench, case: Case, statements: Sequence[str]) -> list[Call]:
    role = bench.spec.clerk
    with_context = [measure.scoring_request(case, s, "full", splitter=bench.spec.sentences) for s in statements]
    without = [measure.scoring_request(case, s, "none", splitter=bench.spec.sentences) for s in statements]
    return [Call(r, purpose="ground", role=role) for r in with_context + without]


def _measures(statements: Sequence[str], responses: list[GenerationResponse], clip: float | None) -> list[Measure]:
    """Measures of statements scored alone: with `clip`, token by token; without, from total likelihoods
    (the original measure, which transcripts without per-token scores can replay)."""
    n = len(statements)
    out = []
    for s, full, bare in zip(statements, responses[:n], responses[n:]):
        lp_bare = measure.logprob(bare, s)
        if clip is None:
            out.append(Measure(measure.grounding(measure.logprob(full, s), lp_bare), lp_bare))
        else:
            b = measure.TokenScores.of(bare).logprobs
            out.append(Measure(measure.token_grounding(measure.TokenScores.of(full).logprobs, b, clip), lp_bare, b))
    return out


def grounding_in_cited(bench: Bench, case: Case, charge: Charge, measured: Measure,
                        cited: Sequence[tuple[int, str]]) -> Step:
    """The charge's grounding when only the cited context sentences are shown (measured the way the
    charge itself was: read off the whole answer, or the statement alone)."""
    clip = bench.spec.grounding.clip
    text = case.answer.strip() if measured.span is not None else charge.quote
    request = measure.scoring_request(case, text, "cited", cited)
    [response] = yield [Call(request, purpose="weigh", role="court", charge=charge.index)]
    if measured.span is not None:
        tokens = measure.TokenScores.of(response).within(*measured.span)
    elif measured.bare_tokens is not None:
        tokens = measure.TokenScores.of(response).logprobs
    else:
        return measure.grounding(measure.logprob(response, text), measured.bare)
    return measure.token_grounding(tokens, measured.bare_tokens or (), clip)


def weigh_evidence(bench: Bench, case: Case, charge: Charge, entries: list[Entry], measured: Measure | None,
                   found: TrialEvidence | None = None) -> Step:
    """P(hallucinated) from the evidence: the charge's grounding in the whole context, or in the sentences
    the defence cited, whichever accounts for it better (the defence carries the burden of proof), with
    the court's lexical evidence when it takes it and the check of the prosecution's exhibits. Sentences cited
    by `citation` moves were measured each when cited (`found`); the others cited are measured together here."""
    found = found or TrialEvidence()
    sentences = context_sentences(case, bench.spec.sentences)
    cited = sorted({e.payload["evidence"] for e in entries if e.role in bench.spec.ruling_evidence_roles
                    and isinstance(e.payload.get("evidence"), int) and 1 <= e.payload["evidence"] <= len(sentences)}
                   - set(found.cited))
    if measured is None:
        [measured] = yield from measure_statements(bench, case, [charge.quote])
    best = measured.grounding
    cited_grounding = None
    if cited:
        cited_grounding = yield from grounding_in_cited(bench, case, charge, measured,
                                                         [(i, sentences[i - 1]) for i in cited])
        best = max(best, cited_grounding)
    best = max([best, *found.cited.values()])
    note = evidence_note(measured.grounding, cited_grounding, cited, found.cited)
    if exhibits := found.note(bench):
        note += f"; {exhibits}"
    return suspicion(bench, best, measured, found.shift(bench)), note, best


def evidence_note(full: float, cited: float | None, sentences: list[int], each: dict[int, float] | None = None) -> str:
    text = f"the context accounts for it at {full:+.2f} nats/token"
    if cited is not None:
        which = ", ".join(f"[{i}]" for i in sentences)
        text += f", the cited {'sentence' if len(sentences) == 1 else 'sentences'} {which} at {cited:+.2f}"
    if each:
        which = ", ".join(f"[{i}] at {g:+.2f}" for i, g in sorted(each.items()))
        text += f", the cited {'sentence' if len(each) == 1 else 'sentences'} {which}"
    return text
