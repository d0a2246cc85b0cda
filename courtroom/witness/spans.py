"""Pointing at the lie: every word's values (`FEATURES`) weighed by a fitted `SpanModel` (else `rule_scores`)
into P(hallucinated); words at or above the threshold, bridging gaps of `max_gap` in a sentence, become
spans."""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from courtroom.case import Testimony
from courtroom.door.observe import TokenIndex
from courtroom.errors import ConfigError
from courtroom.text.words import STOP_WORDS
from courtroom.witness.ruling import SpanModel

FEATURES = ("sentence_p", "gain_min", "gain_mean", "surprisal", "lookback", "figure_absent",
            "figure_computed", "name_absent", "unsupported", "number", "stop_word", "lowest_in_sentence")
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


def sentence_locator(sentences: Sequence[tuple[int, int]]) -> Callable[[int], int]:
    """A function of a character position: the index of the last sentence that starts at or before it (else
    0)."""
    starts = [start for start, _ in sentences]
    if all(a <= b for a, b in zip(starts, starts[1:])):
        return lambda at: max(bisect_right(starts, at) - 1, 0)
    return lambda at: max([i for i, start in enumerate(starts) if start <= at] or [0])


def words(answer: str, sentences: Sequence[tuple[int, int]]) -> list[Word]:
    """The answer's words, each in the sentence that holds its start (the last one starting at or before
    it)."""
    locate = sentence_locator(sentences)
    out = []
    for match in _WORD.finditer(answer):
        a, b = match.start(), match.end()
        while a < b and answer[a] in _EDGE:
            a += 1
        while b > a and answer[b - 1] in _EDGE:
            b -= 1
        if a == b:
            continue
        out.append(Word(a, b, locate(a)))
    return out


def word_values(answer: str, sentences: Sequence[tuple[int, int]], sentence_ps: Sequence[float],
                token_spans: Sequence[tuple[int, int]], full: Sequence[float], bare: Sequence[float],
                token_lookback: Sequence[float] | None, testimony: Sequence[Testimony],
                offset: int = 0) -> tuple[list[Word], list[list[float]], list[list[str]]]:
    """Every word's values (`FEATURES`) and which witnesses pointed at it (`offset`: where `answer`
    starts)."""
    found = words(answer, sentences)
    marks = _Marks(testimony, offset)
    rows, names = [], []
    tokens = TokenIndex(token_spans)
    for word in found:
        idx = tokens.within(word.start, word.end) or [0]
        gains = [full[i] - bare[i] for i in idx if i < len(full)] or [0.0]
        surprisal = max(-bare[i] for i in idx if i < len(bare)) if bare else 0.0
        look = (sum(token_lookback[i] for i in idx if i < len(token_lookback)) / len(idx)
                if token_lookback else 0.5)
        on = marks.over(word.start, word.end)  # (witness, note) of every point over the word
        by = list(dict.fromkeys(witness for witness, _ in on))

        def marked(witness: str, needle: str = "", on: list[tuple[str, str]] = on) -> float:
            return float(any(w == witness and needle in note for w, note in on))
        text = answer[word.start:word.end]
        rows.append([sentence_ps[word.sentence] if word.sentence < len(sentence_ps) else 0.0, min(gains),
                     sum(gains) / len(gains), min(max(surprisal, 0.0), 15.0), look,
                     marked("figures", "no such figure"), marked("figures", "computed"), marked("names"),
                     marked("overlap"), float(bool(re.search(r"\d", text))),
                     float(text.lower() in STOP_WORDS), 0.0])
        names.append(by)
    lowest: dict[int, int] = {}  # the word the context accounts for least in each sentence
    for i, word in enumerate(found):
        if word.sentence not in lowest or rows[i][1] < rows[lowest[word.sentence]][1]:
            lowest[word.sentence] = i
    for i in lowest.values():
        rows[i][-1] = 1.0
    return found, rows, names


class _Marks:
    """The witnesses' points over the answer's words, swept in order so each point is walked once."""

    def __init__(self, testimony: Sequence[Testimony], offset: int) -> None:
        self._points = sorted((p.start - offset, p.end - offset, t.witness, p.note)
                              for t in testimony if t.heard for p in t.points)
        self._next = 0
        self._open: list[tuple[int, int, str, str]] = []

    def over(self, start: int, end: int) -> list[tuple[str, str]]:
        """(witness, note) of every point over characters [start, end); queries come in the order of the
        words."""
        while self._next < len(self._points) and self._points[self._next][0] < end:
            self._open.append(self._points[self._next])
            self._next += 1
        self._open = [p for p in self._open if p[1] > start]
        return [(witness, note) for a, b, witness, note in self._open if a < end and b > start]


def rule_scores(rows: Sequence[Sequence[float]]) -> list[float]:
    """P(hallucinated) per word without a fitted model: its sentence's P, raised where a witness pointed at it
    (an absent figure or name most) and where the context made it less likely."""
    return [1.0 / (1.0 + math.exp(-(4.0 * (r[0] - 0.5) + 2.5 * r[5] + 2.0 * r[7] + 0.8 * r[8] + 0.6
                                    * max(0.0, -r[1])
                                    - 1.5 * r[10] - 1.0))) for r in rows]


WORD_PROBE = "word_probe"
"""The value a span model with a word probe weighs last: the probe's log-odds over the word's hidden state."""


def with_word_probe(model: SpanModel, rows: Sequence[Sequence[float]],
                    probe_scores: Sequence[float] | None) -> list[list[float]]:
    """`rows` with each word's `probe_scores` appended when the model has a probe (else the mean, adding
    nothing)."""
    if model.probe is None:
        return [list(r) for r in rows]
    if probe_scores is None or len(probe_scores) != len(rows):
        neutral = model.linear.mean[-1]
        return [[*r, neutral] for r in rows]
    return [[*r, score] for r, score in zip(rows, probe_scores)]


def model_scores(model: SpanModel, rows: Sequence[Sequence[float]],
                 probe_scores: Sequence[float] | None = None) -> list[float]:
    """P(hallucinated) per word by a fitted span model (its word probe's log-odds of each word:
    `probe_scores`)."""
    lin = model.linear
    out = []
    for r in with_word_probe(model, rows, probe_scores):
        if not math.isfinite(z := lin.log_odds(r)):
            raise ConfigError(f"the ruling's span model cannot weigh a word's values {list(r)}: the log-odds "
                              f"is {z}")
        out.append(1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z)))))
    return out


def smoothed(found: Sequence[Word], scores: Sequence[float], window: int) -> list[float]:
    """Each word's score averaged with those of up to `window` words on each side in its sentence: a false
    claim is a phrase, so a word among suspect neighbours is the likelier false, and a lone peak the likelier
    noise."""
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
    """Words at or above `threshold` (after `smoothed`), joined across gaps of `max_gap` in a sentence:
    spans."""
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
