"""What a move rests on, as every view shows it: each quote in the text it is quoted from (the answer, the
cited sentence), where the court found it, and the check's result."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from courtroom.engine.events import Grounds, Quote


@dataclass(frozen=True)
class Piece:
    """A quote in its text: the text before it, the words, the text after (the words alone, not placed, when
    the check failed), and the check."""

    source: str
    """Where it is quoted from: `answer`, or `sentence N`."""
    before: str
    quote: str
    after: str
    verified: bool


def _piece(source: str, quote: Quote, text: str) -> Piece:
    if quote.verified and text[quote.start:quote.end] == quote.text:
        return Piece(source, text[:quote.start], quote.text, text[quote.end:], True)
    return Piece(source, "", quote.text, "", False)


def pieces(grounds: Grounds, answer: str, sentences: Sequence[str]) -> list[Piece]:
    """The quotes of a move's grounds, each in its text (the answer as the court read it: stripped)."""
    found = []
    if grounds.answer is not None:
        found.append(_piece("answer", grounds.answer, answer.strip()))
    number = grounds.sentence
    if grounds.passage is not None and number is not None and 1 <= number <= len(sentences):
        found.append(_piece(f"sentence {number}", grounds.passage, sentences[number - 1]))
    return found


def reading_note(grounds: Grounds) -> str:
    """How the pieces were chosen, and what the check found, in one line."""
    read = {"likelihood": "read by the model's likelihoods", "words": "read by shared words",
            "generated": "cited by a number the model wrote (not checked)"}[grounds.reading]
    if grounds.sentence is None:
        cited = "no sentence speaks to it"
    elif grounds.found is False:
        cited = f"cites sentence {grounds.sentence}, which the context does not have"
    else:
        cited = f"cites sentence {grounds.sentence}"
    scores = ", ".join(f"[{n}] {v:+.2f}" for n, v in sorted(grounds.scores.items()))
    checked = [q for q in (grounds.answer, grounds.passage) if q is not None]
    check = "" if not checked else "; quotes found where they are said to be" \
        if all(q.verified for q in checked) else "; a quote was NOT found where it is said to be"
    return f"{cited} ({read}{': ' + scores if scores else ''}){check}"


def grounds_data(grounds: Grounds | None, answer: str, sentences: Sequence[str]) -> dict[str, Any] | None:
    """A move's grounds as the HTML report and `courtroom view` draw them."""
    if grounds is None:
        return None
    return {"pieces": [asdict(p) for p in pieces(grounds, answer, sentences)], "sentence": grounds.sentence,
            "verified": grounds.verified, "note": reading_note(grounds)}
