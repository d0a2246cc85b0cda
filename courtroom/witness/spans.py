"""Pointing at the lie: which words of the answer are hallucinated, from what the witnesses measured word by word.

Every word of the answer (a run of non-blank characters, its surrounding punctuation left out) gets values from the
reading and the testimony: how suspect its sentence is (the ruling's P, or the measure's), how much the context
lowered or raised its tokens' likelihood (least and mean), how surprising it is without the context (rare words
carry claims), how much attention its tokens paid to the context, and whether a witness pointed at it (a figure or a
name the context lacks, a word it never uses). A fitted span model (`SpanModel`, kept in the ruling file) weighs them
into P(hallucinated) per word; without one, a rule does (`rule_scores`). Words at or above the threshold, with gaps
of at most `max_gap` words between them inside one sentence, become spans; each span's score is its best word's.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from courtroom.case import Testimony
from courtroom.door.observe import TokenIndex
from courtroom.witness.lexical import STOP_WORDS
from courtroom.witness.ruling import SpanModel

FEATURES = ("sentence_p", "gain_min", "gain_mean", "surprisal", "lookback", "figure_absent", "figure_computed",
            "name_absent", "unsupported", "number", "stop_word", "lowest_in_sentence")
"""The values of a word, in the order a span model weighs them."""
_WORD = re.compile(r"\S+")
_EDGE = "\"'“”‘’()[]{}.,;:!?*-"


@dataclass(frozen=True)
class Word:
    """A word of the answer: its characters (in the stripped answer) and its sentence."""

    start: int
    end: int
    sentence: int


@dataclass(frozen=True)
class PredictedSpan:
    start: int
    end: int
    score: float
    sentence: int
    named_by: tuple[str, ...]


def words(answer: str, sentences: Sequence[tuple[int, int]]) -> list[Word]:
    """The answer's words, each in the sentence that holds its start."""
    out = []
    for match in _WORD.finditer(answer):
        a, b = match.start(), match.end()
        while a < b and answer[a] in _EDGE:
            a += 1
        while b > a and answer[b - 1] in _EDGE:
            b -= 1
        if a == b:
            continue
        sentence = max([i for i, (s, _) in enumerate(sentences) if s <= a] or [0])
        out.append(Word(a, b, sentence))
    return out


def word_values(answer: str, sentences: Sequence[tuple[int, int]], sentence_ps: Sequence[float],
                token_spans: Sequence[tuple[int, int]], full: Sequence[float], bare: Sequence[float],
                token_lookback: Sequence[float] | None, testimony: Sequence[Testimony],
                offset: int = 0) -> tuple[list[Word], list[list[float]], list[list[str]]]:
    """Every word's values (`FEATURES`), and which witnesses pointed at it. `offset` is where `answer` starts in the
    case's answer (the testimony's pointers are in the case's answer)."""
    found = words(answer, sentences)
    pointed: dict[str, list[tuple[int, int, str]]] = {}
    for t in testimony:
        if t.heard:
            for p in t.points:
                pointed.setdefault(t.witness, []).append((p.start - offset, p.end - offset, p.note))
    rows, names = [], []
    tokens = TokenIndex(token_spans)
    for word in found:
        idx = tokens.within(word.start, word.end) or [0]
        gains = [full[i] - bare[i] for i in idx if i < len(full)] or [0.0]
        surprisal = max(-bare[i] for i in idx if i < len(bare)) if bare else 0.0
        look = sum(token_lookback[i] for i in idx if i < len(token_lookback)) / len(idx) if token_lookback else 0.5
        by = [w for w, marks in pointed.items() if any(a < word.end and b > word.start for a, b, _ in marks)]

        def marked(witness: str, needle: str = "", by: list[str] = by, word: Word = word) -> float:
            return float(witness in by and any(a < word.end and b > word.start and needle in note
                                               for a, b, note in pointed.get(witness, [])))
        text = answer[word.start:word.end]
        rows.append([sentence_ps[word.sentence] if word.sentence < len(sentence_ps) else 0.0, min(gains),
                     sum(gains) / len(gains), min(max(surprisal, 0.0), 15.0), look,
                     marked("figures", "no such figure"), marked("figures", "computed"), marked("names"),
                     marked("overlap"), float(bool(re.search(r"\d", text))), float(text.lower() in STOP_WORDS), 0.0])
        names.append(by)
    for sentence in {w.sentence for w in found}:  # the word the context accounts for least in its sentence
        members = [i for i, w in enumerate(found) if w.sentence == sentence]
        rows[min(members, key=lambda i: rows[i][1])][-1] = 1.0
    return found, rows, names


def rule_scores(rows: Sequence[Sequence[float]]) -> list[float]:
    """P(hallucinated) per word without a fitted model: the sentence's P, raised where a witness pointed at the word
    (an absent figure or name most) and where the context made it less likely."""
    out = []
    for r in rows:
        z = 4.0 * (r[0] - 0.5) + 2.5 * r[5] + 2.0 * r[7] + 0.8 * r[8] + 0.6 * max(0.0, -r[1]) - 1.5 * r[10] - 1.0
        out.append(1.0 / (1.0 + math.exp(-z)))
    return out


WORD_PROBE = "word_probe"
"""The value a span model with a word probe weighs last: the probe's log-odds over the word's hidden state."""


def with_word_probe(model: SpanModel, rows: Sequence[Sequence[float]],
                    probe_scores: Sequence[float] | None) -> list[list[float]]:
    """`rows` with the word probe's score of each word appended (`probe_scores`: `model.probe.scores` of the words'
    hidden states), when the model has a probe. Without them (a run that did not record the words' states) the score
    is the probe's mean over the words it was fitted on, so it adds nothing."""
    if model.probe is None:
        return [list(r) for r in rows]
    if probe_scores is None or len(probe_scores) != len(rows):
        neutral = model.linear.mean[-1]
        return [[*r, neutral] for r in rows]
    return [[*r, score] for r, score in zip(rows, probe_scores)]


def model_scores(model: SpanModel, rows: Sequence[Sequence[float]],
                 probe_scores: Sequence[float] | None = None) -> list[float]:
    """P(hallucinated) per word by a fitted span model (its word probe's log-odds of each word: `probe_scores`)."""
    lin = model.linear
    out = []
    for r in with_word_probe(model, rows, probe_scores):
        z = lin.intercept + math.fsum(w * (v - m) / s for v, m, s, w in zip(r, lin.mean, lin.scale, lin.weights))
        out.append(1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z)))))
    return out


def smoothed(found: Sequence[Word], scores: Sequence[float], window: int) -> list[float]:
    """Each word's score averaged with those of up to `window` words on each side in its sentence: a false claim is
    a phrase, so a word among suspect neighbours is the likelier false, and a lone peak the likelier noise."""
    if window <= 0:
        return list(scores)
    out = []
    for i, word in enumerate(found):
        near = [scores[j] for j in range(max(0, i - window), min(len(found), i + window + 1))
                if found[j].sentence == word.sentence]
        out.append(sum(near) / len(near))
    return out


def spans_of(found: Sequence[Word], scores: Sequence[float], names: Sequence[Sequence[str]], threshold: float,
             max_gap: int = 1, window: int = 0) -> list[PredictedSpan]:
    """Words at or above `threshold` (their scores first `smoothed` over `window` words each side), joined across
    gaps of at most `max_gap` words within a sentence, as spans (strongest first)."""
    scores = smoothed(found, scores, window)
    spans: list[PredictedSpan] = []
    run: list[int] = []

    def close() -> None:
        if run:
            by = tuple(sorted({n for i in run for n in names[i]}))
            spans.append(PredictedSpan(found[run[0]].start, found[run[-1]].end, max(scores[i] for i in run),
                                       found[run[0]].sentence, by))
        run.clear()

    for i, word in enumerate(found):
        if scores[i] < threshold:
            continue
        if run and (word.sentence != found[run[-1]].sentence or i - run[-1] - 1 > max_gap):
            close()
        run.append(i)
    close()
    return sorted(spans, key=lambda s: -s.score)
