"""The polarity witness: the answer's yes or no (+1, -1) to a yes/no question, and each answer sentence whose
negation disagrees with the context sentence that shares most of its content words."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from courtroom.case import Testimony
from courtroom.text.negation import plain, word_scope
from courtroom.witness.reading import Reading

AUXILIARIES = frozenset("do does did is are was were can could will would should shall has have had may "
                        "might must am".split())


@dataclass(frozen=True)
class PolarityCheck:
    """One answer sentence against its closest context sentence."""

    start: int
    end: int
    context_sentence: int
    """The index of the closest context sentence (by shared content words), -1 when none shares a word."""
    overlap: float
    """The share of the answer sentence's content words that sentence uses."""
    flipped: bool
    """The two disagree in negation."""


_CONTRACTED = {"can't": "can", "won't": "will", "shan't": "shall"}


def is_yes_no_question(question: str) -> bool:
    """The question asks for yes or no (it opens with an auxiliary verb, also a negative one: "Isn't",
    "Can't")."""
    first = re.match(r"\s*([A-Za-z]+(?:'t)?)", plain(question))  # "Isn’t" as "Isn't"
    if not first:
        return False
    word = first.group(1).lower()
    word = _CONTRACTED.get(word, word.removesuffix("n't"))
    return word in AUXILIARIES


def answer_polarity(question: str, answer: str) -> int:
    """+1 for an answer that opens with yes, -1 with no, 0 otherwise or when the question is not a yes/no
    one."""
    if not is_yes_no_question(question):
        return 0
    first = re.match(r"\s*\W*([A-Za-z]+)", answer)
    word = first.group(1).lower() if first else ""
    return {"yes": 1, "no": -1}.get(word, 0)


_SAYS = re.compile(r"\W*(?:yes|no)\b\s*[,.;:!—–-]", re.IGNORECASE)
"""An answer's opening yes or no, set off by punctuation (not the "No" of "No patients died")."""


def check_polarity(sentences: Sequence[tuple[int, int]], answer: str,
                   context_sentences: Sequence[str]) -> list[PolarityCheck]:
    """Each answer sentence (by its span in `answer`) against the context sentence that shares most of its
    words."""
    scopes = [word_scope(s) for s in context_sentences]  # each read once, however long the answer
    keyed = [set(scope) for scope in scopes]
    checks = []
    for start, end in sentences:
        text = answer[start:end]
        said = _SAYS.match(text)  # "No, it did not work." agrees with "It did not work.": its "no" answers
        text = text[said.end():] if said else text
        scope = word_scope(text)
        words = set(scope) - {"yes"}
        best, overlap = -1, 0.0
        for i, keys in enumerate(keyed):
            share = len(words & keys) / len(words) if words else 0.0
            if share > overlap:
                best, overlap = i, share
        shared = words & keyed[best] if best >= 0 else set()
        flipped = overlap >= 0.3 and any(map(scope.get, shared)) != any(map(scopes[best].get, shared))
        checks.append(PolarityCheck(start, end, best, overlap, flipped))
    return checks


VERSION = 3
"""3: a cue in any Unicode spelling (a typographic or fullwidth apostrophe: "wasn’t"); 2: negation by scope
over the shared words (1 counted the cues' parity: "no fever and no cough" read as asserted)."""


def testify(reading: Reading) -> Testimony:
    """The answer's yes or no (+1, -1, 0) and the share of its sentences whose negation disagrees; it points
    at each."""
    case = reading.case
    polarity = float(answer_polarity(case.question, reading.answer))
    checks = check_polarity(reading.sentences, reading.answer, reading.context_sentences)
    points = [reading.pointer(c.start, c.end, "its negation disagrees with context sentence "
                                              f"[{c.context_sentence + 1}]",
                              c.overlap, context_sentence=c.context_sentence + 1) for c in checks
              if c.flipped]
    flipped = [float(c.flipped) for c in checks]
    return Testimony(witness="polarity", version=VERSION,
                     values={"answer": polarity, "flipped": sum(flipped) / len(flipped) if flipped else 0.0},
                     sentences=[{"answer": polarity, "flipped": f} for f in flipped], points=points)
