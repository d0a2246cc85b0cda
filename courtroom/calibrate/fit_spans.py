"""Fitting a span model (`courtroom.witness.spans`) on the words of answers with gold spans; and the spans
each way of pointing predicts (`sentences`, `words`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from courtroom.calibrate.logistic import apply_linear, average_precision, fit_linear
from courtroom.case import AnnotatedSpan
from courtroom.evaluate.spans import SpanCase, counts, pooled, prf
from courtroom.witness.ruling import FamilyRuling, Probe, SpanModel, word_values
from courtroom.witness.spans import FEATURES, WORD_PROBE, Word, smoothed, spans_of, with_word_probe

SPAN_C = 1.0
"""Inverse L2 strength of the span model (a few weights), as the ruling's (`fit_ruling.RULING_C`)."""
WORD_PROBE_CS = (0.0003, 0.001, 0.01)
"""Inverse L2 strengths the word probe may take: the one whose cross-fitted scores rank the gold words best
wins."""
THRESHOLDS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
GAPS = (0, 1, 2, 3)
WINDOWS = (0, 1, 2, 3)
"""The word thresholds, gaps and smoothing windows (`SpanModel`) the fit picks the best token F1 among."""


@dataclass(frozen=True)
class SpanExample:
    """What fitting a span model needs of one answer: its words' values, each sentence's testimony and
    vectors, gold."""

    answer: str
    """The answer without its outer blanks (words are in it); `offset` places it in the case's answer."""
    offset: int
    words: list[Word]
    rows: list[list[float]]
    sentence_values: list[dict[str, float]]
    sentence_vectors: list[dict[str, list[float]]]
    gold: list[AnnotatedSpan]
    """In the case's answer, as the dataset gives them."""
    word_hidden: list[list[float]] | None = None
    """Each word's hidden state, when the run recorded them (`witnesses.word_states`)."""


def sentence_ps(spans: SpanExample, family: FamilyRuling, probes: dict[str, Probe],
                word_scores: Sequence[float] | None = None) -> list[float]:
    """Each sentence's P(hallucinated) by a ruling's probes, its word probe's `word_scores` and its family's
    weights."""
    out = []
    for index, (values, vectors) in enumerate(zip(spans.sentence_values, spans.sentence_vectors)):
        scored = dict(values)
        for name, probe in probes.items():
            if name in vectors:
                scored[f"{name}.probe"] = probe.score(vectors[name])
        if word_scores is not None:
            scored.update(word_values([s for w, s in zip(spans.words, word_scores) if w.sentence == index]))
        parts, _ = family.linear.contributions(scored)
        out.append(float(1 / (1 + np.exp(-np.clip(sum(parts.values()), -50, 50)))))
    return out


def word_scores_of(spans: SpanExample, probe: Probe | None) -> list[float] | None:
    """A word probe's log-odds of the answer's words (None without a probe or the words' states)."""
    return probe.scores(spans.word_hidden) if probe is not None and spans.word_hidden is not None else None


def _rows(spans: SpanExample, ps: list[float]) -> list[list[float]]:
    """Each word's values, its sentence's P first."""
    return [[ps[w.sentence] if w.sentence < len(ps) else 0.0, *row[1:]]
            for w, row in zip(spans.words, spans.rows)]


def _gold_words(spans: SpanExample) -> list[bool]:
    """Whether each word lies in a gold span."""
    gold = [(g.start - spans.offset, g.end - spans.offset) for g in spans.gold if not g.implicit_true]
    return [any(a < w.end and b > w.start for a, b in gold) for w in spans.words]


def word_probe_answers(answers: Sequence[SpanExample | None]) -> list[SpanExample] | None:
    """The answers a word probe is fitted on (those with words), when every one of them carries its words'
    states."""
    chosen = [spans for spans in answers if spans is not None and spans.words]
    if chosen and all(s.word_hidden is not None and len(s.word_hidden) == len(s.words) for s in chosen):
        return chosen
    return None


def fit_spans(answers: Sequence[tuple[SpanExample, FamilyRuling]], probes: dict[str, Probe],
              word_probe: tuple[Probe | None, list[list[float]]] | None = None) -> SpanModel | None:
    """A span model fitted on the answers' words, with the threshold, gap and window of best token F1 (None
    without both kinds of word); a word probe's cross-fitted score weighed last where the answers carry hidden
    states."""
    chosen = [(spans, family) for spans, family in answers if spans.words]
    if word_probe is None and word_probe_answers([spans for spans, _ in chosen]) is not None:
        word_probe = fit_word_probe([spans for spans, _ in chosen])
    rows, gold, per = [], [], []
    for spans, family in chosen:
        r = _rows(spans, sentence_ps(spans, family, probes,
                                     word_scores_of(spans, word_probe[0] if word_probe else None)))
        rows += r
        gold += _gold_words(spans)
        per.append(r)
    if len(set(gold)) < 2:
        return None
    probe = None
    names = list(FEATURES)
    if word_probe is not None:
        probe, crossed = word_probe
        if probe is not None:
            names.append(WORD_PROBE)
            per = [[[*row, score] for row, score in zip(r, c)] for r, c in zip(per, crossed)]
            rows = [row for r in per for row in r]
    linear = fit_linear(np.array(rows), np.array(gold, dtype=int), names, SPAN_C)
    scores = [list(1 / (1 + np.exp(-apply_linear(linear, np.array(r))))) for r in per]
    best: tuple[float, float, int, int] = (-1.0, 0.5, 1, 0)
    for window in WINDOWS:
        smooth = [smoothed(spans.words, sc, window) for (spans, _), sc in zip(chosen, scores)]
        for threshold in THRESHOLDS:
            for gap in GAPS:
                found = [spans_of(spans.words, sc, [[] for _ in sc], threshold, gap)
                         for (spans, _), sc in zip(chosen, smooth)]
                f1 = prf(pooled([counts(_span_case(spans, [(s.start, s.end, s.score) for s in f]), "token")
                                 for (spans, _), f in zip(chosen, found)]))[2]
                if f1 > best[0]:
                    best = (f1, threshold, gap, window)
    return SpanModel(linear=linear, threshold=best[1], max_gap=best[2], window=best[3], probe=probe)


def fit_word_probe(answers: Sequence[SpanExample], folds: int = 3,
                   cs: Sequence[float] | None = None) -> tuple[Probe | None, list[list[float]]]:
    """A probe over the words' hidden states (at the strength in `cs` ranking gold words best), and its
    cross-fitted score of each word; no probe when a fold lacks either kind of word."""
    X = [np.array(spans.word_hidden, dtype=np.float64) for spans in answers]
    y = [np.array(_gold_words(spans), dtype=int) for spans in answers]
    groups = np.arange(len(answers)) % folds
    trains = [[i for i in range(len(answers)) if groups[i] != k] for k in range(folds)]
    if any(len({int(label) for i in train for label in y[i]}) < 2 for train in trains):
        return None, []
    cs = tuple(cs or WORD_PROBE_CS)
    best: tuple[float, float, list[list[float]]] = (-1.0, cs[0], [])
    for C in cs:
        scores: dict[int, list[float]] = {}
        for k, train in enumerate(trains):
            lin = fit_linear(np.concatenate([X[i] for i in train]), np.concatenate([y[i] for i in train]), [],
                             C)
            for i in range(len(answers)):
                if groups[i] == k:
                    scores[i] = list(apply_linear(lin, X[i]))
        crossed = [scores[i] for i in range(len(answers))]
        ranked = average_precision(np.concatenate(y), np.array(np.concatenate(crossed)))
        if ranked > best[0]:
            best = (ranked, C, crossed)
    whole = fit_linear(np.concatenate(X), np.concatenate(y), [], best[1])
    return Probe(source="hidden", linear=whole), best[2]


def _span_case(spans: SpanExample, predicted: list[tuple[int, int, float]]) -> SpanCase:
    """The answer's gold and `predicted` (in the stripped answer's characters) as a `SpanCase` in its own
    characters."""
    o = spans.offset
    gold = [g.model_copy(update={"start": g.start - o, "end": g.end - o}) for g in spans.gold]
    return SpanCase(spans.answer, gold, predicted)


def point(spans: SpanExample, family: FamilyRuling, probes: dict[str, Probe], model: SpanModel | None,
          p_case: float, max_charges: int = 3) -> dict[str, SpanCase]:
    """The spans each way of pointing predicts for one answer, none when the case is found faithful."""
    scored = word_scores_of(spans, model.probe if model is not None else None)
    ps = sentence_ps(spans, family, probes, scored)
    sentences: list[tuple[int, int, float]] = []
    words: list[tuple[int, int, float]] = []
    if p_case >= family.threshold and ps:
        charged = [i for i in range(len(ps)) if ps[i] >= family.threshold] or [int(np.argmax(ps))]
        charged = sorted(charged, key=lambda i: -ps[i])[:max_charges]
        bounds = _sentence_bounds(spans)
        sentences = [(bounds[i][0], bounds[i][1], ps[i]) for i in charged if i < len(bounds)]
        if model is not None:
            rows = with_word_probe(model, _rows(spans, ps), scored)
            scores = list(1 / (1 + np.exp(-apply_linear(model.linear, np.array(rows)))))
            found = spans_of(spans.words, scores, [[] for _ in scores], model.threshold, model.max_gap,
                             model.window)
            words = [(s.start, s.end, s.score) for s in found]
    return {"sentences": _span_case(spans, sentences), "words": _span_case(spans, words)}


def _sentence_bounds(spans: SpanExample) -> list[tuple[int, int]]:
    """Each sentence's first and last word's characters."""
    bounds: dict[int, tuple[int, int]] = {}
    for w in spans.words:
        a, b = bounds.get(w.sentence, (w.start, w.end))
        bounds[w.sentence] = (min(a, w.start), max(b, w.end))
    return [bounds.get(i, (0, 0)) for i in range(max(bounds, default=-1) + 1)]
