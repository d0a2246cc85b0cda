"""The grounding witness: how much likelier the context makes each token of the answer (its gain, capped at
`clip` nats), aggregated per sentence (`VARIANTS`) and per case (the worst sentence's, the length-weighted
mean, `share`)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from courtroom.case import Testimony
from courtroom.witness.reading import Reading

VARIANTS = ("mean", "q10", "min", "rare", "surprise", "unsupported")
"""The per-sentence values, in the order they are reported."""


def sentence_values(full: Sequence[float], bare: Sequence[float], clip: float | None) -> dict[str, float]:
    """The grounding values of one sentence from its tokens' log-probabilities with and without the
    context."""
    if len(full) == 0:
        return dict.fromkeys(VARIANTS, 0.0)
    f, b = np.asarray(full, dtype=np.float64), np.asarray(bare, dtype=np.float64)
    gains = f - b
    capped = np.minimum(gains, clip) if clip is not None else gains
    surprisal = np.clip(-b, 0.0, 10.0)
    weight = surprisal.sum()
    return {
        "mean": float(capped.mean()),
        "q10": float(np.quantile(capped, 0.1)),
        "min": float(capped.min()),
        "rare": float((capped * surprisal).sum() / weight) if weight > 0 else float(capped.mean()),
        "surprise": float(f.mean()),
        "unsupported": float((gains < -0.5).mean()),
    }


def p_suspect(value: float, center: float, scale: float, lexical: float = 0.0) -> float:
    """P(hallucinated) of a sentence of mean gain `value`, as the court's measure maps it (plus a lexical
    term)."""
    z = (center - value) / scale + lexical
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


def case_values(sentences: Sequence[dict[str, float]], lengths: Sequence[int], center: float,
                scale: float) -> dict[str, float]:
    """The case's grounding values from its sentences' (each weighted by its length in characters for
    means)."""
    if not sentences:
        return {}
    weights = np.asarray(lengths, dtype=np.float64)
    weights = weights / weights.sum() if weights.sum() > 0 else np.full(len(sentences), 1.0 / len(sentences))
    out: dict[str, float] = {}
    for name in VARIANTS:
        values = np.array([s[name] for s in sentences])
        out[name] = float((values * weights).sum())
        worst = values.max() if name == "unsupported" else values.min()
        out[f"worst_{name}"] = float(worst)
    out["share"] = float(sum(w * p_suspect(s["mean"], center, scale) for w, s in zip(weights, sentences)))
    return out


VERSION = 1


def testify(reading: Reading, clip: float | None, center: float, scale: float) -> Testimony:
    """The values of the whole answer and of each sentence; it points at each sentence's three least supported
    words."""
    assert reading.full is not None and reading.bare is not None
    per_sentence, sentences, points = [], [], []
    for start, end in reading.sentences:
        idx = reading.tokens(start, end) or [0]
        values = sentence_values([reading.full[i] for i in idx], [reading.bare[i] for i in idx], clip)
        per_sentence.append(values)
        sentences.append(case_values([values], [end - start], center, scale))
        gains = sorted((reading.full[i] - reading.bare[i], i) for i in idx)
        for gain, i in gains[:3]:
            if gain < 0:
                a, b = (reading.token_spans or ())[i]
                points.append(reading.pointer(a, b, f"the context makes it {-gain:.1f} nats less "
                                                    "likely", -gain))
    values = case_values(per_sentence, [b - a for a, b in reading.sentences], center, scale)
    return Testimony(witness="grounding", version=VERSION, values=_rounded(values),
                     sentences=[_rounded(s) for s in sentences], points=points)


def _rounded(values: dict[str, float]) -> dict[str, float]:
    return {k: round(v, 6) for k, v in values.items()}
