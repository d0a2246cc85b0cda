"""Fitting a ruling (`courtroom.witness.ruling`) on labelled cases, and estimating what it is worth out of fold.

Logistic regressions (scikit-learn), classes weighed equally, on standardised values:
- a **probe** per vector the model's pass gave (the attention pattern, a hidden state), L2-regularised hard, since
  it has hundreds of weights: its score becomes one value of the ruling;
- the **ruling** over the testimony's values and the probes' scores, one per task family that has enough labelled
  cases of both kinds and does better on its own cases than the weights fitted on every family (`any`, always
  fitted), inner cross-validation deciding.

Honesty: the probes' scores the ruling is fitted on are out of fold (an inner split), and `fit_ruling` estimates
the whole procedure by k-fold cross-validation (each fold decided by a ruling fitted, probes and all, on the others),
folds dealt by the package's one fold assignment (`stratified_folds`) over groups of identical answers, so a
duplicated case never sits on both sides. `leave_one_source_out` decides each source by a ruling fitted on the
others: what a user with a new domain gets.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone

import numpy as np

from courtroom.case import AnnotatedSpan
from courtroom.errors import ConfigError
from courtroom.evaluate.calibration import stratified_folds
from courtroom.evaluate.spans import SpanCase, counts, prf
from courtroom.witness.ruling import FamilyRuling, FittedRuling, Linear, Probe, SpanModel
from courtroom.witness.spans import Word, spans_of

PROBE_C = {"lookback": 0.05, "hidden": 0.01}
"""Inverse L2 strength of each probe (hundreds of weights on hundreds of cases)."""
RULING_C = 1.0
"""Inverse L2 strength of the ruling (a few dozen weights)."""
FAMILY_MIN_CASES = 60
FAMILY_MIN_PER_CLASS = 15
"""A task family gets weights of its own only with this many labelled cases, and of each kind."""
CASES_PER_WEIGHT = 10
"""Fewer labelled cases than this per weight of the ruling draws a warning: the fit will be noisy."""


@dataclass(frozen=True)
class SpanExample:
    """What fitting a span model needs of one answer: its words and their values (`witness.spans.FEATURES`, the
    sentence's P left to the ruling), each sentence's testimony and vectors, and the gold spans."""

    answer: str
    """The answer without its outer blanks (words are in it); `offset` places it in the case's answer."""
    offset: int
    words: list[Word]
    rows: list[list[float]]
    sentence_values: list[dict[str, float]]
    sentence_vectors: list[dict[str, list[float]]]
    gold: list[AnnotatedSpan]
    """In the case's answer, as the dataset gives them."""


@dataclass(frozen=True)
class Example:
    """One labelled case as a ruling sees it."""

    case_id: str
    source: str
    family: str
    hallucinated: bool
    values: dict[str, float]
    """The testimony's values of the whole answer, named `witness.value`."""
    vectors: dict[str, list[float]] = field(default_factory=dict)
    """The whole answer's vectors for the probes (`lookback`, `hidden`)."""
    group: str = ""
    """Cases with the same group (the same answer) share a fold."""
    spans: SpanExample | None = None
    """Its words, for a span model (cases of datasets with gold spans)."""


@dataclass
class RulingFit:
    """A ruling fitted on every case, and the out-of-fold P(hallucinated) of each case by rulings that never saw it."""

    ruling: FittedRuling
    examples: list[Example]
    out_of_fold: np.ndarray
    fold: np.ndarray
    notes: list[str]
    span_cases: dict[str, list[SpanCase]] = field(default_factory=dict)
    """Out of fold, for the cases with gold spans: the spans each way of pointing predicts (`sentences`: the charged
    sentences; `words`: the span model's words), by rulings and span models that never saw the case."""


def _check(examples: Sequence[Example], folds: int) -> None:
    """Enough labelled cases of each kind for the folds: counted by distinct answers, since identical answers share
    a fold (a kind whose cases all sit in one fold leaves the other folds' rulings without it)."""
    for label, name in ((True, "hallucinated (FAIL)"), (False, "faithful (PASS)")):
        chosen = [e for e in examples if e.hallucinated == label]
        count, answers = len(chosen), len({e.group or e.case_id for e in chosen})
        if answers >= folds:
            continue
        what = f"{count} {name} case{'s' if count != 1 else ''}" + \
            (f" ({answers} distinct answer{'s' if answers != 1 else ''})" if answers != count else "")
        if answers >= 2:
            raise ConfigError(f"{what} among {len(examples)}: fitting a ruling with {folds}-fold cross-validation needs "
                              f"at least {folds} of each kind (identical answers share a fold); label more cases or use "
                              f"fewer folds (--folds {answers})")
        raise ConfigError(f"{what} among {len(examples)}: a ruling needs labelled cases of both kinds, at least two "
                          "different answers of each")


def _linear(X: np.ndarray, y: np.ndarray, names: list[str], C: float) -> Linear:
    from sklearn.linear_model import LogisticRegression

    mean = X.mean(axis=0)
    scale = X.std(axis=0)
    scale[scale < 1e-9] = 1.0
    model = LogisticRegression(C=C, max_iter=5000, class_weight="balanced").fit((X - mean) / scale, y)
    return Linear(features=names, mean=_six(mean), scale=_six(scale), weights=_six(model.coef_[0]),
                  intercept=float(f"{model.intercept_[0]:.6g}"))


def _six(values: np.ndarray) -> list[float]:
    """Six significant digits: what a ruling file keeps (the fit is not more precise than that)."""
    return [float(f"{v:.6g}") for v in values]


def _apply(linear: Linear, X: np.ndarray) -> np.ndarray:
    return linear.intercept + ((X - np.array(linear.mean)) / np.array(linear.scale)) @ np.array(linear.weights)


class _Design:
    """The examples as arrays: values (missing ones at the column mean), vectors per probe source, labels."""

    def __init__(self, examples: Sequence[Example]) -> None:
        self.examples = list(examples)
        self.names = sorted({k for e in examples for k in e.values})
        X = np.array([[e.values.get(n, np.nan) for n in self.names] for e in examples], dtype=np.float64)
        means = np.nanmean(np.where(np.isnan(X), np.nan, X), axis=0) if len(X) else np.zeros(len(self.names))
        self.X = np.where(np.isnan(X), np.nan_to_num(means)[None, :], X)
        self.y = np.array([e.hallucinated for e in examples], dtype=int)
        self.sources = sorted({k for e in examples for k in e.vectors
                               if all(k in x.vectors and len(x.vectors[k]) == len(e.vectors[k]) for x in examples)})
        self.vectors = {k: np.array([e.vectors[k] for e in examples], dtype=np.float64) for k in self.sources}
        self.families = np.array([e.family for e in examples])
        self.groups = [e.group or e.case_id for e in examples]


def _folds(design: _Design, idx: np.ndarray, k: int, seed: int) -> np.ndarray:
    return stratified_folds(design.y[idx].astype(bool), [design.groups[i] for i in idx], folds=k, seed=seed)


def _probes(design: _Design, train: np.ndarray, seed: int) -> tuple[dict[str, Probe], np.ndarray]:
    """Probes fitted on `train`, and their out-of-fold scores on `train` (inner 5-fold) as columns."""
    probes, columns = {}, []
    inner = _folds(design, train, 5, seed + 1) if len(design.sources) else None
    for source in design.sources:
        V, y = design.vectors[source], design.y
        scores = np.zeros(len(train))
        for k in range(5):
            fit_on, score_on = train[inner != k], train[inner == k]
            if len(score_on) and len(set(y[fit_on])) == 2:
                lin = _linear(V[fit_on], y[fit_on], [], PROBE_C.get(source, 0.01))
                scores[inner == k] = _apply(lin, V[score_on])
        probes[source] = Probe(source=source,  # type: ignore[arg-type]
                               linear=_linear(V[train], y[train], [],
                                              PROBE_C.get(source, 0.01)))
        columns.append(scores)
    return probes, np.array(columns).T if columns else np.zeros((len(train), 0))


def _fit(design: _Design, train: np.ndarray, seed: int) -> FittedRuling | tuple[dict[str, Probe], dict[str, FamilyRuling]]:
    """Probes and family weights fitted on `train` (no file metadata)."""
    probes, scores = _probes(design, train, seed)
    names = design.names + [f"{s}.probe" for s in design.sources]
    X = np.hstack([design.X[train], scores])
    y = design.y[train]
    families = {"any": FamilyRuling(linear=_linear(X, y, names, RULING_C), cases=len(train))}
    for family in sorted(set(design.families[train])):
        mine = design.families[train] == family
        if mine.sum() < FAMILY_MIN_CASES or min((y[mine] == 1).sum(), (y[mine] == 0).sum()) < FAMILY_MIN_PER_CLASS:
            continue
        if _family_pays(X, y, mine, names, design, train, seed):
            families[family] = FamilyRuling(linear=_linear(X[mine], y[mine], names, RULING_C), cases=int(mine.sum()))
    return probes, families


def _family_pays(X: np.ndarray, y: np.ndarray, mine: np.ndarray, names: list[str], design: _Design,
                 train: np.ndarray, seed: int) -> bool:
    """Whether weights of the family's own beat those of every family on its cases, by inner cross-validation."""
    from sklearn.metrics import balanced_accuracy_score

    inner = _folds(design, train, 5, seed + 2)
    own, pooled = np.zeros(len(y)), np.zeros(len(y))
    for k in range(5):
        test = inner == k
        if not (test & mine).any() or len(set(y[~test & mine])) < 2:
            continue
        pooled[test] = _apply(_linear(X[~test], y[~test], names, RULING_C), X[test])
        own[test] = _apply(_linear(X[~test & mine], y[~test & mine], names, RULING_C), X[test])
    return balanced_accuracy_score(y[mine], own[mine] >= 0) > balanced_accuracy_score(y[mine], pooled[mine] >= 0)


def _decide(design: _Design, probes: dict[str, Probe], families: dict[str, FamilyRuling], test: np.ndarray) -> np.ndarray:
    columns = [_apply(probes[s].linear, design.vectors[s][test]) for s in design.sources]
    X = np.hstack([design.X[test], np.array(columns).T if columns else np.zeros((len(test), 0))])
    out = np.zeros(len(test))
    for row, i in enumerate(test):
        family = families.get(design.families[i], families["any"])
        out[row] = 1 / (1 + np.exp(-_apply(family.linear, X[row:row + 1])[0]))
    return out


def fit_ruling(examples: Sequence[Example], *, model: str, court: str, witnesses: dict[str, int],
               hidden_depth: float | None = None, folds: int = 5, seed: int = 0, command: str = "") -> RulingFit:
    """The ruling fitted on every example, with every example's out-of-fold P(hallucinated)."""
    _check(examples, folds)
    design = _Design(examples)
    everything = np.arange(len(examples))
    fold = _folds(design, everything, folds, seed)
    out_of_fold = np.zeros(len(examples))
    pointing = any(e.spans is not None and e.spans.gold for e in examples)
    span_cases: dict[str, list[SpanCase]] = {"sentences": [], "words": []}
    order: list[int] = []
    for k in range(folds):
        train, test = everything[fold != k], everything[fold == k]
        probes, families = _fit(design, train, seed)
        out_of_fold[test] = _decide(design, probes, families, test)
        if pointing:
            fold_spans = _fit_spans(examples, train, probes, families)
            for i in test:
                if examples[i].spans is not None:
                    order.append(int(i))
                    for name, predicted in _point(examples[i], probes, families, fold_spans, out_of_fold[i]).items():
                        span_cases[name].append(predicted)
    probes, families = _fit(design, everything, seed)
    span_model = _fit_spans(examples, everything, probes, families) if pointing else None
    weights = len(design.names) + len(design.sources) + 1
    notes = []
    if len(examples) < CASES_PER_WEIGHT * weights:
        notes.append(f"{len(examples)} labelled cases for {weights} weights of the ruling (fewer than "
                     f"{CASES_PER_WEIGHT} a weight): expect a noisy fit; label more cases, or hear fewer witnesses")
    sources: dict[str, int] = {}
    for e in examples:
        sources[e.source] = sources.get(e.source, 0) + 1
    ruling = FittedRuling(model=model, court=court, witnesses=witnesses, hidden_depth=hidden_depth, probes=probes,
                          families=families, spans=span_model,  # type: ignore[arg-type]
                          fitted={"cases": len(examples), "hallucinated": int(design.y.sum()), "sources": sources,
                                  "folds": folds, "seed": seed, "command": command,
                                  "date": datetime.now(timezone.utc).strftime("%Y-%m-%d")})
    if pointing:  # back in the examples' order
        rank = {i: n for n, i in enumerate(order)}
        span_cases = {name: [cases[rank[i]] for i in sorted(order)] for name, cases in span_cases.items()}
    return RulingFit(ruling, list(examples), out_of_fold, fold, notes, span_cases if pointing else {})


def _sentence_ps(example: Example, probes: dict[str, Probe], families: dict[str, FamilyRuling]) -> list[float]:
    """Each sentence's P(hallucinated) by a ruling's probes and family weights."""
    assert example.spans is not None
    family = families.get(example.family, families["any"])
    out = []
    for values, vectors in zip(example.spans.sentence_values, example.spans.sentence_vectors):
        scored = dict(values)
        for name, probe in probes.items():
            if name in vectors:
                scored[f"{name}.probe"] = probe.score(vectors[name])
        parts, _ = family.linear.contributions(scored)
        out.append(float(1 / (1 + np.exp(-np.clip(sum(parts.values()), -50, 50)))))
    return out


def _rows(example: Example, ps: list[float]) -> list[list[float]]:
    assert example.spans is not None
    return [[ps[w.sentence] if w.sentence < len(ps) else 0.0, *row[1:]]
            for w, row in zip(example.spans.words, example.spans.rows)]


def _gold_words(example: Example) -> list[bool]:
    assert example.spans is not None
    spans = example.spans
    gold = [(g.start - spans.offset, g.end - spans.offset) for g in spans.gold if not g.implicit_true]
    return [any(a < w.end and b > w.start for a, b in gold) for w in spans.words]


def _fit_spans(examples: Sequence[Example], train: np.ndarray, probes: dict[str, Probe],
               families: dict[str, FamilyRuling]) -> SpanModel | None:
    """A span model fitted on the training answers' words (their sentences' P by the fold's ruling), with the word
    threshold and gap that give the best token F1 on them."""
    from courtroom.witness.spans import FEATURES

    chosen = [examples[i] for i in train if examples[i].spans is not None and examples[i].spans.words]
    rows, gold, per = [], [], []
    for e in chosen:
        r = _rows(e, _sentence_ps(e, probes, families))
        rows += r
        gold += _gold_words(e)
        per.append(r)
    if len(set(gold)) < 2:
        return None
    linear = _linear(np.array(rows), np.array(gold, dtype=int), list(FEATURES), RULING_C)
    scores = [list(1 / (1 + np.exp(-_apply(linear, np.array(r))))) for r in per]
    best: tuple[float, float, int] = (-1.0, 0.5, 1)
    for threshold in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9):
        for gap in (0, 1, 2, 3):
            total = [0, 0, 0]
            for e, sc in zip(chosen, scores):
                assert e.spans is not None
                found = spans_of(e.spans.words, sc, [[] for _ in sc], threshold, gap)
                c = counts(_span_case(e, [(s.start, s.end, s.score) for s in found]), "token")
                total = [total[0] + c.tp, total[1] + c.fp, total[2] + c.fn]
            f1 = prf(type(c)(*total))[2]
            if f1 > best[0]:
                best = (f1, threshold, gap)
    return SpanModel(linear=linear, threshold=best[1], max_gap=best[2])


def _span_case(example: Example, predicted: list[tuple[int, int, float]]) -> SpanCase:
    """The answer's gold and `predicted` (in the stripped answer's characters) as a `SpanCase` in its own characters."""
    assert example.spans is not None
    o = example.spans.offset
    gold = [g.model_copy(update={"start": g.start - o, "end": g.end - o}) for g in example.spans.gold]
    return SpanCase(example.spans.answer, gold, predicted)


def _point(example: Example, probes: dict[str, Probe], families: dict[str, FamilyRuling], model: SpanModel | None,
           p_case: float, max_charges: int = 3) -> dict[str, SpanCase]:
    """The spans each way of pointing predicts for one answer, none when the case is found faithful."""
    assert example.spans is not None
    family = families.get(example.family, families["any"])
    ps = _sentence_ps(example, probes, families)
    sentences: list[tuple[int, int, float]] = []
    words: list[tuple[int, int, float]] = []
    if p_case >= family.threshold and ps:
        charged = [i for i in range(len(ps)) if ps[i] >= family.threshold] or [int(np.argmax(ps))]
        charged = sorted(charged, key=lambda i: -ps[i])[:max_charges]
        bounds = _sentence_bounds(example)
        sentences = [(bounds[i][0], bounds[i][1], ps[i]) for i in charged if i < len(bounds)]
        if model is not None:
            lin = model.linear
            scores = list(1 / (1 + np.exp(-_apply(lin, np.array(_rows(example, ps))))))
            found = spans_of(example.spans.words, scores, [[] for _ in scores], model.threshold, model.max_gap)
            words = [(s.start, s.end, s.score) for s in found]
    return {"sentences": _span_case(example, sentences), "words": _span_case(example, words)}


def _sentence_bounds(example: Example) -> list[tuple[int, int]]:
    """Each sentence's first and last word's characters."""
    assert example.spans is not None
    bounds: dict[int, tuple[int, int]] = {}
    for w in example.spans.words:
        a, b = bounds.get(w.sentence, (w.start, w.end))
        bounds[w.sentence] = (min(a, w.start), max(b, w.end))
    return [bounds.get(i, (0, 0)) for i in range(max(bounds, default=-1) + 1)]


def leave_one_source_out(examples: Sequence[Example], seed: int = 0, key=lambda e: e.source) -> np.ndarray:  # noqa: ANN001
    """Every example's P(hallucinated) by a ruling fitted on the examples of the other sources only."""
    design = _Design(examples)
    out = np.zeros(len(examples))
    groups = np.array([key(e) for e in examples])
    for source in sorted(set(groups)):
        train, test = np.flatnonzero(groups != source), np.flatnonzero(groups == source)
        if len(set(design.y[train])) < 2:
            out[test] = 0.5
            continue
        probes, families = _fit(design, train, seed)
        out[test] = _decide(design, probes, families, test)
    return out
