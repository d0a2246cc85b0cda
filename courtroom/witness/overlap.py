"""The overlap witness: the answer's content words (stemmed) that neither the context nor the question
uses."""

from __future__ import annotations

from courtroom.case import Testimony
from courtroom.text.words import Vocabulary, content_words
from courtroom.witness.reading import Reading

VERSION = 1


def testify(reading: Reading) -> Testimony:
    """The share of the answer's (and each sentence's) content words the sources never use; it points at
    each."""
    case = reading.case
    vocabulary = Vocabulary([*case.context, case.question])
    sentences, points = [], []
    for start, end in reading.sentences:
        evidence = vocabulary.evidence(reading.answer[start:end])
        sentences.append({"unsupported": round(evidence.unsupported, 6)})
    for word in vocabulary.unsupported(content_words(reading.answer)):
        points.append(reading.pointer(word.start, word.end, "the context never uses this word", 0.5))
    whole = vocabulary.evidence(reading.answer).unsupported
    return Testimony(witness="overlap", version=VERSION, values={"unsupported": round(whole, 6)},
                     sentences=sentences, points=points)

