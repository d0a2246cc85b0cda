"""A trial's evidence: what a ruling weighs besides the court's opinion, the charge's grounding in the whole context or
in the sentences the defence cited, whichever accounts for it better, shifted by the check of the prosecution's exhibits
(`exhibits.py`); and, at a node decided by the evidence, whether another round is held (`reopen`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from courtroom.case import Case, Charge
from courtroom.casefile import context_sentences
from courtroom.clerk import grounding as measure
from courtroom.clerk.measure import Measure, measure_statements, suspicion
from courtroom.court.bench import Bench
from courtroom.court.prompts import Entry
from courtroom.engine.lockstep import Call, Step


@dataclass
class TrialEvidence:
    """What the agents' evidence moves showed in one trial: the charge's grounding in each sentence a `citation` cited
    and each item an `exhibit` named with the court's check (True: the sources hold it), with the round of each."""

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
        """The log-odds shift of the exhibit check (`TrialSpec.exhibit_check`; 0 without it or without items)."""
        check = bench.trial.exhibit_check
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
        if bench.trial.exhibit_check is not None:
            text += f" ({self.shift(bench):+.2f} to the log-odds)"
        return text


def _listed(items: Sequence[str]) -> str:
    return ", ".join(f"'{item}'" for item in items)


def reopen(bench: Bench, measured: Measure, found: TrialEvidence, round: int) -> tuple[bool, str]:
    """The court's rule at a node decided by the evidence: another round exactly when the evidence is open and `round`
    brought something new; the reason, for the record. The evidence is open when the cited sentence and the whole
    context put P(suspect) on opposite sides of the threshold, or when the exhibit check contradicts the measurement."""
    t = bench.threshold
    full = suspicion(bench.spec, measured.grounding, measured)
    best = max([measured.grounding, *found.cited.values()])
    weighed = suspicion(bench.spec, best, measured)
    open_because = []
    if found.cited:
        number, grounding = max(found.cited.items(), key=lambda kv: kv[1])
        cited = suspicion(bench.spec, grounding, measured)
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
    """P(hallucinated) from the evidence: the charge's grounding in the whole context or the cited sentences,
    whichever accounts for it better (the defence carries the burden of proof), with the lexical evidence when taken
    and the exhibit check. Sentences cited by `citation` moves were measured when cited (`found`); the others are
    measured here."""
    found = found or TrialEvidence()
    sentences = context_sentences(case, bench.spec.sentences)
    cited = sorted({e.payload["evidence"] for e in entries if e.role in bench.trial.evidence_roles
                    and isinstance(e.payload.get("evidence"), int) and 1 <= e.payload["evidence"] <= len(sentences)}
                   - set(found.cited))
    if measured is None:
        [measured] = yield from measure_statements(bench.spec, case, [charge.quote])
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
    return suspicion(bench.spec, best, measured, found.shift(bench)), note, best


def evidence_note(full: float, cited: float | None, sentences: list[int], each: dict[int, float] | None = None) -> str:
    text = f"the context accounts for it at {full:+.2f} nats/token"
    if cited is not None:
        which = ", ".join(f"[{i}]" for i in sentences)
        text += f", the cited {'sentence' if len(sentences) == 1 else 'sentences'} {which} at {cited:+.2f}"
    if each:
        which = ", ".join(f"[{i}] at {g:+.2f}" for i, g in sorted(each.items()))
        text += f", the cited {'sentence' if len(each) == 1 else 'sentences'} {which}"
    return text
