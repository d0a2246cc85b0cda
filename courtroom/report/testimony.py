"""What a verdict's witnesses said and which spans it names, as views for the court record and the HTML
report."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from courtroom.case import AnnotatedSpan, CaseVerdict, Pointer, Testimony, Weighing
from courtroom.witness.registry import WITNESSES

PROBE = "probe"
"""The value name of a witness's fitted probe in a ruling's contributions (`lookback.probe`,
`hidden.probe`)."""


@dataclass(frozen=True)
class ValueView:
    """One value a witness gave (or a ruling weighed), and its part of the ruling's log-odds."""

    name: str
    value: float | None
    """None for a probe's score (it is not a value of the testimony) and for a value the witness did not
    give."""
    contribution: float | None
    """Its part of the log-odds, when a ruling weighed it; None otherwise."""
    missing: bool = False
    """The ruling weighs it but no witness gave it (not heard): left out at its mean."""


@dataclass(frozen=True)
class PointerView:
    """A pointer with the words it points at and the context sentence it names."""

    start: int
    end: int
    words: str
    note: str
    weight: float
    context_sentence: int | None
    context_text: str | None


@dataclass(frozen=True)
class WitnessView:
    """One witness's testimony as the audit shows it."""

    name: str
    version: int
    about: str
    heard: bool
    why_not: str
    values: list[ValueView]
    points: list[PointerView]


@dataclass(frozen=True)
class SpanView:
    """A hallucinated span with its evidence: the pointers of any witness that overlap it."""

    number: int
    """From 1, strongest first (the verdict's order)."""
    start: int
    end: int
    text: str
    score: float
    named_by: list[str]
    context_sentence: int | None
    context_text: str | None
    verified: bool | None
    evidence: list[tuple[str, PointerView]]
    """(witness, pointer) for every pointer that shares a character with the span."""


def sentence_text(sentences: Sequence[str], number: int | None) -> str | None:
    """Context sentence `number` (from 1), or None when there is no such sentence."""
    return sentences[number - 1] if number is not None and 1 <= number <= len(sentences) else None


def pointer_view(pointer: Pointer, answer: str, sentences: Sequence[str]) -> PointerView:
    """The pointer with the answer's words it points at (trimmed, unless they are only blanks) and its
    sentence."""
    words = answer[pointer.start:pointer.end]
    return PointerView(pointer.start, pointer.end, words.strip() or words, pointer.note, pointer.weight,
                       pointer.context_sentence, sentence_text(sentences, pointer.context_sentence))


def _values(testimony: Testimony, weighing: Weighing | None) -> list[ValueView]:
    """The witness's values with their contributions, then those the ruling weighs that it did not give."""
    parts = weighing.contributions if weighing else {}
    missing = set(weighing.missing) if weighing else set()
    prefix = f"{testimony.witness}."
    views = [ValueView(name, value, parts.get(prefix + name)) for name, value in testimony.values.items()]
    given = set(testimony.values)
    for key in [*parts, *(weighing.missing if weighing else [])]:
        name = key.removeprefix(prefix)
        if key.startswith(prefix) and name not in given:
            given.add(name)
            views.append(ValueView(name, None, parts.get(key), missing=key in missing))
    return views


def witness_views(verdict: CaseVerdict, answer: str, sentences: Sequence[str]) -> list[WitnessView]:
    """Every witness of the verdict, in the court's order; pointers strongest first."""
    return [WitnessView(t.witness, t.version, witness.about if (witness := WITNESSES.get(t.witness)) else "",
                        t.heard, t.why_not, _values(t, verdict.weighing),
                        [pointer_view(p, answer, sentences)
                         for p in sorted(t.points, key=lambda p: (-p.weight, p.start))])
            for t in verdict.testimony]


def span_views(verdict: CaseVerdict, answer: str, sentences: Sequence[str]) -> list[SpanView]:
    """The verdict's spans, strongest first, each with the pointers that fall on it."""
    return [SpanView(number, span.start, span.end, span.text, span.score, list(span.named_by),
                     span.context_sentence, sentence_text(sentences, span.context_sentence), span.verified,
                     [(t.witness, pointer_view(p, answer, sentences)) for t in verdict.testimony
                      for p in t.points
                      if p.start < span.end and p.end > span.start])
            for number, span in enumerate(verdict.spans, start=1)]


def weighing_line(weighing: Weighing | None) -> str:
    """How the fitted ruling weighed the testimony, in one line (or that none did)."""
    if weighing is None:
        return ("no fitted ruling weighed this testimony: it is recorded, and the court decided by its own "
                "rule")
    intercept = weighing.contributions.get("intercept")
    line = (f"ruling {weighing.ruling} ({weighing.family}): log-odds {weighing.log_odds:+.2f}"
            + (f" (intercept {intercept:+.2f})" if intercept is not None else "")
            + f", P(hallucinated) {weighing.p_hallucinated:.2f} against threshold {weighing.threshold:.2f}")
    if weighing.missing:
        line += f"; not heard, so not weighed: {', '.join(weighing.missing)}"
    return line


def value_text(view: ValueView) -> str:
    """`name value (contribution)`, as the tables show a value."""
    shown = ("not given" if view.value is None and view.name != PROBE else ""
             if view.value is None else f"{view.value:.3g}")
    text = f"{view.name} {shown}".rstrip()
    if view.missing:
        return f"{text} (not heard: not weighed)"
    if view.contribution is not None:
        text += f" ({view.contribution:+.2f} to the log-odds)"
    return text


def utf16_offsets(text: str) -> Callable[[int], int]:
    """Offsets into `text` (Python's, in characters) as the page's JavaScript counts them, in UTF-16 code
    units: a character outside the BMP (an emoji) is two. An offset past the text (a forged record) stays past
    it."""
    units = [0]
    for character in text:
        units.append(units[-1] + (2 if ord(character) > 0xFFFF else 1))
    return lambda offset: units[min(max(offset, 0), len(text))] + max(offset - len(text), 0)


def _pointer_data(view: PointerView, at: Callable[[int], int]) -> dict[str, Any]:
    return {"start": at(view.start), "end": at(view.end), "words": view.words, "note": view.note,
            "weight": view.weight, "sentence": view.context_sentence, "sentence_text": view.context_text}


def testimony_data(verdict: CaseVerdict | None, answer: str, sentences: Sequence[str],
                   gold: Sequence[AnnotatedSpan]) -> dict[str, Any]:
    """What the HTML report shows of the testimony and the spans, as JSON-able data (offsets:
    `utf16_offsets`)."""
    at = utf16_offsets(answer)
    gold_spans = [[at(g.start), at(g.end), g.type] for g in gold]
    if verdict is None:
        return {"weighing": None, "witnesses": [], "spans": [], "gold_spans": gold_spans}
    witnesses = [{"name": w.name, "version": w.version, "about": w.about, "heard": w.heard,
                  "why_not": w.why_not,
                  "values": [{"name": v.name, "value": v.value, "contribution": v.contribution,
                              "missing": v.missing, "text": value_text(v)} for v in w.values],
                  "points": [_pointer_data(p, at) for p in w.points]}
                 for w in witness_views(verdict, answer, sentences)]
    spans = [{"n": s.number, "start": at(s.start), "end": at(s.end), "text": s.text, "score": s.score,
              "named_by": s.named_by, "sentence": s.context_sentence, "sentence_text": s.context_text,
              "verified": s.verified,
              "evidence": [{"witness": w, **_pointer_data(p, at)} for w, p in s.evidence]}
             for s in span_views(verdict, answer, sentences)]
    return {"weighing": weighing_line(verdict.weighing) if verdict.testimony else None,
            "witnesses": witnesses, "spans": spans, "gold_spans": gold_spans}
