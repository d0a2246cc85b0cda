"""How a run's trials went, read from the transcripts' moves and rulings. A case's `TrialStats` is part of its
result row (`ResultRow.trial`); `TrialSummary` adds up a run's, for `courtroom audit`, `compare` and the HTML
report."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, NonNegativeInt, StringConstraints, model_validator

from courtroom.engine.events import ChargesEvent, Event, MoveEvent, RulingEvent

SIDES = ("prosecutor", "defender")
"""The roles that argue a side (a trial in which both spoke before it ended held an exchange)."""
BENCH = ("judge", "jury")
"""Ruling sources of the court's bench (the others are a side giving up, or the measurement)."""
NOT_TEXT = ("quote", "exhibit")
"""Payload fields that are not the speaker's own words (a quote of the context, an item of the statement)."""
SENTENCE_END = (".", "!", "?", '"', "'", ")")
"""How a text that ends a sentence ends."""
AT = 0.5
"""The judge and the clerk agree when both are on the same side of this probability."""
RETIRED_STATS = ("quotes", "verified", "stances", "disagreements")
"""Counts of statement-first turns (retired with them, #53): a row that holds them reads without them."""
ENDING = r"^[a-z_]+@[0-9]{1,6}$"
"""How an ending is keyed: its source and round (`judge@2`); a results row that says otherwise is refused on
reading."""


class TrialStats(BaseModel):
    """How one case's trials went."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    tried: NonNegativeInt = 0
    """Trials held (charges with at least one move)."""
    endings: dict[Annotated[str, StringConstraints(pattern=ENDING)],
                  NonNegativeInt] = Field(default_factory=dict)
    """How the trials ended, `source@round` -> count: `withdrawn@1`, `conceded@2`, `judge@1`, `jury@3`."""
    exchanged: NonNegativeInt = 0
    """Trials in which both sides spoke before the trial ended."""
    texts: NonNegativeInt = 0
    """Texts the speakers wrote (arguments, reasons, questions, answers, notes)."""
    text_chars: NonNegativeInt = 0
    """Their length in characters, together."""
    empty: NonNegativeInt = 0
    """Texts with nothing in them."""
    unfinished: NonNegativeInt = 0
    """Texts that do not end a sentence (cut by a limit)."""
    arguing: NonNegativeInt = Field(0, exclude_if=lambda v: not v)
    """The sides' moves; of them `grounded`: resting on checked pieces read off the case (a quote and a
    citation found where they are said to be, or a reading of none); `shared`: trials in which two roles wrote
    one same text."""
    grounded: NonNegativeInt = Field(0, exclude_if=lambda v: not v)
    shared: NonNegativeInt = Field(0, exclude_if=lambda v: not v)
    rulings: NonNegativeInt = 0
    """Trials the judge or the jury decided."""
    with_clerk: NonNegativeInt = 0
    """Of them, rulings on the side of the clerk's measurement (P(suspect) of the charge; drafted charges have
    none)."""
    measured: NonNegativeInt = 0
    """Rulings of the judge or jury on a measured charge (those `with_clerk` counts among)."""

    @model_validator(mode="before")
    @classmethod
    def _older(cls, data: Any) -> Any:
        return {k: v for k, v in data.items() if k not in RETIRED_STATS} if isinstance(data, dict) else data


def trial_stats(events: Sequence[Event]) -> TrialStats | None:
    """A case's trials, from its transcript; None when it held none."""
    moves = [e for e in events if isinstance(e, MoveEvent)]
    if not moves:
        return None
    suspect = {c.index: c.p_suspect for e in events if isinstance(e, ChargesEvent) for c in e.charges}
    stats = TrialStats()
    endings: Counter[str] = Counter()
    for event in events:
        if not isinstance(event, RulingEvent):
            continue
        ruling = event.ruling
        spoke = {m.role for m in moves if m.charge == ruling.charge}
        if not spoke:
            continue
        stats.tried += 1
        endings[f"{ruling.source}@{ruling.rounds}"] += 1
        stats.exchanged += all(side in spoke for side in SIDES)
        if ruling.source in BENCH:
            stats.rulings += 1
            p_suspect = suspect.get(ruling.charge)
            if p_suspect is not None:
                opinion = ruling.opinion if ruling.opinion is not None else ruling.p_hallucinated
                stats.measured += 1
                stats.with_clerk += (opinion >= AT) == (p_suspect >= AT)
    stats.endings = dict(sorted(endings.items()))
    said: dict[int, dict[str, set[str]]] = {}
    for move in moves:
        said.setdefault(move.charge, {}).setdefault(move.role, set()).add(
            " ".join(str(v) for k, v in move.payload.items() if k not in NOT_TEXT).strip())
        if move.role in SIDES:
            stats.arguing += 1
            stats.grounded += grounded(move)
        for name, value in move.payload.items():
            if isinstance(value, str) and name not in NOT_TEXT:
                text = value.strip()
                stats.texts += 1
                stats.text_chars += len(text)
                stats.empty += not text
                stats.unfinished += bool(text) and not text.endswith(SENTENCE_END)
    stats.shared = sum(any(texts[a] & texts[b] for i, a in enumerate(texts) for b in list(texts)[i + 1:])
                       for texts in said.values())
    return stats


def grounded(move: MoveEvent) -> bool:
    """A side's move that rests on checked pieces read off the case: the prosecutor's words found in the
    answer, and the sentence cited found with its words, or a reading that none speaks to them."""
    g = move.grounds
    if g is None or g.reading == "generated" or not g.verified:
        return False
    if move.role == "prosecutor" and g.answer is None:
        return False
    return g.sentence is None or g.passage is not None


class TrialSummary(BaseModel):
    """A run's trials added up (its finished cases')."""

    model_config = ConfigDict(extra="forbid")

    cases: int
    """Cases that held a trial."""
    total: TrialStats

    @classmethod
    def of(cls, held: Sequence[TrialStats]) -> TrialSummary | None:
        """Cases' trials together (`courtroom.evaluate.results.trials` gives a run's); None for none."""
        if not held:
            return None
        total = TrialStats()
        endings: Counter[str] = Counter()
        for stats in held:
            for name in TrialStats.model_fields:
                if name != "endings":
                    setattr(total, name, getattr(total, name) + getattr(stats, name))
            endings.update(stats.endings)
        total.endings = dict(sorted(endings.items(), key=lambda kv: (kv[0].split("@")[0],
                                                                     int(kv[0].split("@")[1]))))
        return cls(cases=len(held), total=total)

    def ended_by(self) -> dict[str, int]:
        """Trials by how they ended (`judge`, `withdrawn`, ...), whatever the round."""
        by: Counter[str] = Counter()
        for key, count in self.total.endings.items():
            by[key.split("@")[0]] += count
        return dict(by)

    def rounds(self) -> list[int]:
        """The rounds trials ended in, in order."""
        return sorted({int(key.split("@")[1]) for key in self.total.endings})

    def lines(self) -> list[str]:
        """The summary in a few lines, for the terminal and the report."""
        t = self.total
        by = self.ended_by()
        bench = sum(by.get(source, 0) for source in BENCH)
        lines = [f"{t.tried} trials in {self.cases} cases: {_share(bench, t.tried)} ended in a ruling of the "
                 "bench, "
                 + ", ".join(f"{count} {source}"
                             for source, count in sorted(by.items(), key=lambda kv: -kv[1]))
                 + f"; both sides spoke first in {_share(t.exchanged, t.tried)}",
                 f"{t.texts} texts written, {t.text_chars / t.texts if t.texts else 0:.0f} characters on "
                 f"average; {t.empty} empty, {t.unfinished} not ending a sentence"]
        if t.arguing:
            lines.append(f"{t.grounded} of {t.arguing} moves of the sides rest on checked quotes and "
                         f"citations (or a reading of none); two roles wrote one text in {t.shared} of "
                         f"{t.tried} trials")
        if t.measured:
            lines.append(f"the bench sided with the clerk's measurement in {t.with_clerk} of {t.measured} "
                         f"rulings ({t.with_clerk / t.measured:.0%})")
        return lines


def _share(part: int, whole: int) -> str:
    return f"{part / whole:.0%}" if whole else "none"
