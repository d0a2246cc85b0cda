"""How well predicted spans find the gold ones: character- and token-level (micro) precision, recall and F1,
recall by annotation type and hit@1, with bootstrap intervals over answers, and a paired bootstrap of two
predictors' F1. A word counts when any of its characters does; gold spans are merged; `implicit_true` ones are
reported apart."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from courtroom.case import AnnotatedSpan

_WORD = re.compile(r"\S+")


@dataclass(frozen=True)
class SpanCase:
    """One answer with its gold spans and a predictor's spans (start, end, score), strongest first."""

    answer: str
    gold: Sequence[AnnotatedSpan]
    predicted: Sequence[tuple[int, int, float]]


@dataclass(frozen=True)
class Counts:
    tp: int
    fp: int
    fn: int


def _chars(spans: Sequence[tuple[int, int]], length: int) -> np.ndarray:
    mask = np.zeros(length, dtype=bool)
    for start, end in spans:
        mask[max(0, start):min(length, end)] = True
    return mask


@lru_cache(maxsize=16384)
def _word_bounds(answer: str) -> np.ndarray:
    """(start, end) of every word of the answer (each answer is counted several times: cached)."""
    return np.array([m.span() for m in _WORD.finditer(answer)], dtype=np.int64).reshape(-1, 2)


def _words(answer: str, mask: np.ndarray) -> np.ndarray:
    """Whether each word of the answer has a marked character (a running count of the marks, read at its
    ends)."""
    bounds = _word_bounds(answer)
    marked = np.concatenate(([0], np.cumsum(mask, dtype=np.int64)))
    return marked[bounds[:, 1]] - marked[bounds[:, 0]] > 0


def counts(case: SpanCase, level: str, kind: str | None = None, implicit: bool = False) -> Counts:
    """True positives, false positives and false negatives of one answer, by characters or words; `kind` keeps
    only gold spans of that type (recall by type), `implicit` only those marked implicit_true."""
    gold = [(g.start, g.end) for g in case.gold if g.implicit_true == implicit
            and (kind is None or g.type == kind)]
    g = _chars(gold, len(case.answer))
    p = _chars([(a, b) for a, b, _ in case.predicted], len(case.answer))
    if level == "token":
        g, p = _words(case.answer, g), _words(case.answer, p)
    return Counts(int((g & p).sum()), int((~g & p).sum()), int((g & ~p).sum()))


def prf(total: Counts) -> tuple[float, float, float]:
    """Precision, recall and F1 (0 where undefined)."""
    precision = total.tp / (total.tp + total.fp) if total.tp + total.fp else 0.0
    recall = total.tp / (total.tp + total.fn) if total.tp + total.fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def pooled(items: Sequence[Counts]) -> Counts:
    """The counts of several answers together."""
    return Counts(sum(c.tp for c in items), sum(c.fp for c in items), sum(c.fn for c in items))


def hit_at_1(case: SpanCase) -> bool:
    """Whether the strongest predicted span overlaps a gold span (False when nothing is predicted)."""
    if not case.predicted:
        return False
    start, end, _ = max(case.predicted, key=lambda s: s[2])
    return any(g.start < end and g.end > start for g in case.gold if not g.implicit_true)


def span_scores(cases: Sequence[SpanCase], resamples: int = 1000, seed: int = 0) -> dict[str, object]:
    """The span metrics of a predictor over answers with gold spans (and, for precision, those without: spans
    predicted on a faithful answer are false positives), with 95% bootstrap intervals over answers."""
    hallucinated = [c for c in cases if any(not g.implicit_true for g in c.gold)]
    out: dict[str, object] = {"answers": len(cases), "hallucinated answers": len(hallucinated)}
    rng = np.random.default_rng(seed)
    for level in ("char", "token"):
        for name, chosen in (("all answers", cases), ("hallucinated answers", hallucinated)):
            per = [counts(c, level) for c in chosen]
            p, r, f = prf(pooled(per))
            table = np.array([(c.tp, c.fp, c.fn) for c in per], dtype=np.int64).reshape(-1, 3)
            boot = [prf(Counts(*map(int, table[rng.integers(0, len(per), len(per))].sum(axis=0))))[2]
                    for _ in range(resamples if per else 0)]
            low, high = (np.percentile(boot, [2.5, 97.5]) if boot else (0.0, 0.0))
            out[f"{level} {name}"] = {"precision": round(p, 4), "recall": round(r, 4), "f1": round(f, 4),
                                      "f1_95": [round(float(low), 4), round(float(high), 4)]}
    kinds = sorted({g.type for c in hallucinated for g in c.gold if g.type and not g.implicit_true})
    out["token recall by type"] = {k: round(prf(pooled([counts(c, "token", k) for c in hallucinated]))[1], 4)
                                   for k in kinds}
    implicit = [c for c in cases if any(g.implicit_true for g in c.gold)]
    out["token recall, implicit_true spans"] = round(prf(pooled([counts(c, "token", None, True)
                                                                 for c in implicit]))[1], 4) \
        if implicit else None
    hits = np.array([hit_at_1(c) for c in hallucinated], dtype=bool)
    out["hit@1"] = round(float(np.mean(hits)), 4) if len(hits) else 0.0
    if len(hits) and resamples:
        boot = [float(np.mean(hits[rng.integers(0, len(hits), len(hits))])) for _ in range(resamples)]
        out["hit@1_95"] = [round(float(v), 4) for v in np.percentile(boot, [2.5, 97.5])]
    return out


def paired_f1_difference(a: Sequence[SpanCase], b: Sequence[SpanCase], level: str = "token",
                         resamples: int = 2000, seed: int = 0) -> tuple[float, float, float]:
    """F1(a) - F1(b) on the same answers (in the same order), with a 95% paired bootstrap interval."""
    ca, cb = [counts(c, level) for c in a], [counts(c, level) for c in b]
    diff = prf(pooled(ca))[2] - prf(pooled(cb))[2]
    rng = np.random.default_rng(seed)
    boot = [prf(pooled([ca[i] for i in idx]))[2] - prf(pooled([cb[i] for i in idx]))[2]
            for idx in (rng.integers(0, len(ca), len(ca)) for _ in range(resamples))]
    low, high = np.percentile(boot, [2.5, 97.5])
    return round(diff, 4), round(float(low), 4), round(float(high), 4)
