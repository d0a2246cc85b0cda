"""Fitting a ruling (`courtroom.witness.ruling`) on labelled cases, and estimating it out of fold: a **probe**
per vector of the model's pass (scored out of an inner fold), the **ruling** over the values and probe scores
per task family where that beats `any`. Each step is a parameter of the `Procedure`, so a study changes one
without touching this module. A trial's testimony (`trial.*`) is recorded, never weighed: trial weights were
retired (#51)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone

import numpy as np

from courtroom.calibrate.fit_spans import SpanExample, fit_spans, fit_word_probe, point, word_probe_answers
from courtroom.calibrate.logistic import apply_linear, fit_linear
from courtroom.errors import ConfigError
from courtroom.evaluate.spans import SpanCase
from courtroom.evaluate.thresholds import stratified_folds
from courtroom.witness.ruling import WORD_VALUES, FamilyRuling, FittedRuling, Probe, SpanModel, word_values

PROBE_C = {"lookback": 0.05, "hidden": 0.01}
"""Inverse L2 strength of each probe (hundreds of weights on hundreds of cases)."""
RULING_C = 1.0
"""Inverse L2 strength of the ruling (a few dozen weights)."""
FAMILY_MIN_CASES = 60
FAMILY_MIN_PER_CLASS = 15
"""A task family gets weights of its own only with this many labelled cases, and of each kind."""
CASES_PER_WEIGHT = 10
"""Fewer labelled cases than this per weight of the ruling draws a warning: the fit will be noisy."""
TRIAL = "trial."
"""The values of the trial's testimony (`courtroom.court.testimony`), left out of the fit."""


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
    item: str = ""
    """Cases of the same question and context (an answer and its hallucinated twin) share a fold too."""
    spans: SpanExample | None = None
    """Its words, for a span model (cases of datasets with gold spans)."""
    word_hidden: np.ndarray | None = field(default=None, compare=False, repr=False)
    """Each word's hidden state (words x dimensions), when its run recorded them (`witnesses.word_states`)."""


@dataclass
class RulingFit:
    """A ruling fitted on every case, and the out-of-fold P(hallucinated) of each case by rulings that never
    saw it."""

    ruling: FittedRuling
    examples: list[Example]
    out_of_fold: np.ndarray
    fold: np.ndarray
    notes: list[str]
    span_cases: dict[str, list[SpanCase]] = field(default_factory=dict)
    """Out of fold, for the cases with gold spans: the spans each way of pointing predicts (`sentences`,
    `words`)."""


def _check(examples: Sequence[Example], folds: int) -> None:
    """Enough labelled cases of each kind for the folds, counted by fold groups."""
    groups = _linked([[e.group or e.case_id for e in examples], [e.item or e.case_id for e in examples]])
    for label, name in ((True, "hallucinated (FAIL)"), (False, "faithful (PASS)")):
        count = sum(e.hallucinated == label for e in examples)
        answers = len({g for e, g in zip(examples, groups) if e.hallucinated == label})
        if answers >= folds:
            continue
        what = f"{count} {name} case{'s' if count != 1 else ''}" + \
            (f" ({answers} distinct answer{'s' if answers != 1 else ''} or "
             f"question{'s' if answers != 1 else ''})"
             if answers != count else "")
        if answers >= 2:
            raise ConfigError(f"{what} among {len(examples)}: fitting a ruling with {folds}-fold "
                              f"cross-validation needs at least {folds} of each kind (identical answers, and "
                              "the answers to one question and context, share a fold); label more cases or "
                              f"use fewer folds (--folds {answers})")
        raise ConfigError(f"{what} among {len(examples)}: a ruling needs labelled cases of both kinds, at "
                          "least two different answers of each")


LARGEST_VALUE = 1e150
"""The largest magnitude a value may have for a fit: squaring a larger one in the standardisation
overflows."""


def _refuse_non_finite(examples: Sequence[Example]) -> None:
    """An error naming the case and value for a NaN, an infinity or a value beyond `LARGEST_VALUE` (never NaN
    weights)."""
    for e in examples:
        arrays = [(f"testimony value {name}", np.array([value], dtype=np.float64))
                  for name, value in e.values.items()]
        arrays += [(f"{name} vector", np.asarray(vector, dtype=np.float64))
                   for name, vector in e.vectors.items()]
        arrays += [("words' hidden states", np.asarray(states, dtype=np.float64))
                   for states in (e.word_hidden, e.spans.word_hidden if e.spans is not None else None)
                   if states is not None]
        for what, values in arrays:
            bad = values[~(np.abs(values) <= LARGEST_VALUE)]  # NaN compares false
            if len(bad):
                raise ConfigError(f"case {e.case_id}: {what} holds {bad.flat[0]:g}, not a finite number of "
                                  f"magnitude at most {LARGEST_VALUE:g}: a ruling cannot be fitted on it; "
                                  "check the run that recorded it, or leave the case out")


class Design:
    """The examples as arrays: values (missing ones at the column mean; a trial's left out), vectors,
    labels."""

    def __init__(self, examples: Sequence[Example]) -> None:
        _refuse_non_finite(examples)
        self.examples = list(examples)
        self.names = sorted({k for e in examples for k in e.values if not k.startswith(TRIAL)})
        X = np.array([[e.values.get(n, np.nan) for n in self.names] for e in examples], dtype=np.float64)
        means = np.nanmean(np.where(np.isnan(X), np.nan, X), axis=0) if len(X) else np.zeros(len(self.names))
        self.X = np.where(np.isnan(X), np.nan_to_num(means)[None, :], X)
        self.y = np.array([e.hallucinated for e in examples], dtype=int)
        self.sources = sorted({k for e in examples for k in e.vectors
                               if all(k in x.vectors and len(x.vectors[k]) == len(e.vectors[k])
                                      for x in examples)})
        self.vectors = {k: np.array([e.vectors[k] for e in examples], dtype=np.float64) for k in self.sources}
        self.families = np.array([e.family for e in examples])
        self.groups = _linked([[e.group or e.case_id for e in examples],
                               [e.item or e.case_id for e in examples]])
        self.strata = [e.source for e in examples]


def _linked(keyings: Sequence[Sequence[str]]) -> list[str]:
    """Each case's fold group: cases sharing a key under any keying are linked (at any remove) into one
    group."""
    parent = list(range(len(keyings[0])))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for keys in keyings:
        first: dict[str, int] = {}
        for i, key in enumerate(keys):
            parent[root(i)] = root(first.setdefault(key, i))
    return [keyings[0][root(i)] for i in range(len(parent))]


def source_folds(design: Design, idx: np.ndarray, k: int, seed: int) -> np.ndarray:
    """Folds over `idx` that never split a group, each holding its share of every source's two kinds of
    case."""
    return stratified_folds(design.y[idx].astype(bool), [design.groups[i] for i in idx], folds=k, seed=seed,
                            strata=[design.strata[i] for i in idx])


FoldRule = Callable[[Design, np.ndarray, int, int], np.ndarray]
"""Each of the rows `idx` of a design dealt to one of `k` folds (seeded): for the outer and the inner folds
alike."""
ProbeRule = Callable[[Design, np.ndarray, int, FoldRule], tuple[dict[str, Probe], np.ndarray]]
"""The probes fitted on the training rows, and their scores of those rows as the ruling's columns."""


def inner_probes(design: Design, train: np.ndarray, seed: int, folds: FoldRule = source_folds) -> \
        tuple[dict[str, Probe], np.ndarray]:
    """Probes fitted on `train`, and their out-of-fold scores on `train` (inner 5-fold) as columns."""
    probes, columns = {}, []
    inner = folds(design, train, 5, seed + 1) if len(design.sources) else None
    for source in design.sources:
        V, y = design.vectors[source], design.y
        scores = np.zeros(len(train))
        for k in range(5):
            fit_on, score_on = train[inner != k], train[inner == k]
            if len(score_on) and len(set(y[fit_on])) == 2:
                lin = fit_linear(V[fit_on], y[fit_on], [], PROBE_C.get(source, 0.01))
                scores[inner == k] = apply_linear(lin, V[score_on])
        probes[source] = Probe(source=source,  # type: ignore[arg-type]
                               linear=fit_linear(V[train], y[train], [], PROBE_C.get(source, 0.01)))
        columns.append(scores)
    return probes, np.array(columns).T if columns else np.zeros((len(train), 0))


@dataclass(frozen=True)
class WordProbe:
    """A word probe fitted on training answers with gold spans, its cross-fitted scores of their words, and
    the examples."""

    probe: Probe
    crossed: list[list[float]]
    examples: list[int]


def _word_probe(design: Design, train: np.ndarray, cs: tuple[float, ...] | None = None) -> WordProbe | None:
    """The word probe of the training examples, when every one with words carries their states
    (`word_states`)."""
    with_words = [int(i) for i in train if (sp := design.examples[i].spans) is not None and sp.words]
    answers = word_probe_answers([design.examples[i].spans for i in with_words])
    if answers is None:
        return None
    probe, crossed = fit_word_probe(answers, cs=cs)
    return WordProbe(probe, crossed, with_words) if probe is not None else None


def _word_columns(design: Design, rows: np.ndarray, words: WordProbe | None,
                  cross_fitted: bool) -> np.ndarray:
    """`WORD_VALUES` of each example of `rows` as columns, NaN where an example has no words' states."""
    out = np.full((len(rows), len(WORD_VALUES)), np.nan)
    if words is None:
        return out
    crossed = dict(zip(words.examples, words.crossed)) if cross_fitted else {}
    for row, i in enumerate(rows):
        scores = crossed.get(int(i))
        if scores is None and (states := design.examples[i].word_hidden) is not None and len(states):
            scores = list(apply_linear(words.probe.linear, states))
        if scores:
            values = word_values(scores)
            out[row] = [values[name] for name in WORD_VALUES]
    return out


@dataclass(frozen=True)
class Procedure:
    """How a ruling is fitted, each step a parameter (`PROCEDURE` is what `fit_ruling` does)."""

    folds: FoldRule = source_folds
    """The folds, outer and inner (of the probes' scores and of the choice of family weights)."""
    probes: ProbeRule = inner_probes
    families: bool = True
    """Weights of a family's own where they beat those of every family by inner cross-validation."""
    word_probe_cs: tuple[float, ...] | None = None
    """The strengths the word probe may take (None: `fit_spans.WORD_PROBE_CS`)."""


PROCEDURE = Procedure()


@dataclass(frozen=True)
class Fitted:
    """What a procedure fits on some rows: the probes, each family's weights, the word probe."""

    probes: dict[str, Probe]
    families: dict[str, FamilyRuling]
    words: WordProbe | None = None


def fit(design: Design, train: np.ndarray, seed: int, procedure: Procedure = PROCEDURE) -> Fitted:
    """Probes, family weights and the word probe fitted on `train`."""
    probes, scores = procedure.probes(design, train, seed, procedure.folds)
    names = design.names + [f"{s}.probe" for s in design.sources]
    X = np.hstack([design.X[train], scores])
    words = _word_probe(design, train, procedure.word_probe_cs)
    if words is not None:
        columns = _word_columns(design, train, words, cross_fitted=True)
        columns = np.where(np.isnan(columns), np.nanmean(columns, axis=0)[None, :], columns)
        names += list(WORD_VALUES)
        X = np.hstack([X, columns])
    y = design.y[train]
    families = {"any": FamilyRuling(linear=fit_linear(X, y, names, RULING_C), cases=len(y))}
    for family in sorted(set(design.families[train])) if procedure.families else ():
        mine = design.families[train] == family
        if (mine.sum() < FAMILY_MIN_CASES
            or min((y[mine] == 1).sum(), (y[mine] == 0).sum()) < FAMILY_MIN_PER_CLASS):
            continue
        if _family_pays(X, y, mine, names, design, train, seed, procedure.folds):
            families[family] = FamilyRuling(linear=fit_linear(X[mine], y[mine], names, RULING_C),
                                            cases=int(mine.sum()))
    return Fitted(probes, families, words)


def _family_pays(X: np.ndarray, y: np.ndarray, mine: np.ndarray, names: list[str], design: Design,
                 train: np.ndarray, seed: int, folds: FoldRule = source_folds) -> bool:
    """Whether weights of the family's own beat those of every family on its cases, by inner
    cross-validation."""
    from sklearn.metrics import balanced_accuracy_score

    inner = folds(design, train, 5, seed + 2)
    own, pooled = np.zeros(len(y)), np.zeros(len(y))
    for k in range(5):
        test = inner == k
        if not (test & mine).any() or len(set(y[~test & mine])) < 2:
            continue
        pooled[test] = apply_linear(fit_linear(X[~test], y[~test], names, RULING_C), X[test])
        own[test] = apply_linear(fit_linear(X[~test & mine], y[~test & mine], names, RULING_C), X[test])
    return (balanced_accuracy_score(y[mine],
                                    own[mine] >= 0) > balanced_accuracy_score(y[mine], pooled[mine] >= 0))


def decide(design: Design, fitted: Fitted, test: np.ndarray) -> np.ndarray:
    """P(hallucinated) of each row of `test`."""
    columns = [apply_linear(fitted.probes[s].linear, design.vectors[s][test]) for s in design.sources]
    X = np.hstack([design.X[test], np.array(columns).T if columns else np.zeros((len(test), 0))])
    names = design.names + [f"{s}.probe" for s in design.sources]
    if fitted.words is not None:
        X = np.hstack([X, _word_columns(design, test, fitted.words, cross_fitted=False)])
        names += list(WORD_VALUES)
    column = {name: j for j, name in enumerate(names)}
    out = np.zeros(len(test))
    for row, i in enumerate(test):
        lin = fitted.families.get(design.families[i], fitted.families["any"]).linear
        x = X[row, [column[f] for f in lin.features]][None, :].copy()
        # no words' states: the values a witness did not give weigh nothing (at their mean)
        missing = np.isnan(x[0])
        x[0, missing] = np.array(lin.mean)[missing]
        out[row] = 1 / (1 + np.exp(-apply_linear(lin, x)[0]))
    return out


def out_of_fold(design: Design, fold: np.ndarray, seed: int = 0, procedure: Procedure = PROCEDURE,
                train: Callable[[np.ndarray, int], np.ndarray] | None = None) -> np.ndarray:
    """Every row's P(hallucinated) by a ruling fitted on the other folds (or on `train(rows, fold)` of
    them)."""
    out, rows = np.zeros(len(design.y)), np.arange(len(design.y))
    for k in sorted(set(fold.tolist())):
        fit_on = rows[fold != k] if train is None else train(rows[fold != k], k)
        out[fold == k] = decide(design, fit(design, fit_on, seed, procedure), rows[fold == k])
    return out


def fit_ruling(examples: Sequence[Example], *, model: str, court: str, witnesses: dict[str, int],
               hidden_depth: float | None = None, folds: int = 5, seed: int = 0, command: str = "",
               procedure: Procedure = PROCEDURE) -> RulingFit:
    """The ruling fitted on every example, with every example's out-of-fold P(hallucinated)."""
    _check(examples, folds)
    design, everything = Design(examples), np.arange(len(examples))
    fold = procedure.folds(design, everything, folds, seed)
    pointing = any(e.spans is not None and e.spans.gold for e in examples)
    out_of_fold = np.zeros(len(examples))
    span_cases: dict[str, list[SpanCase]] = {"sentences": [], "words": []}
    order: list[int] = []
    for k in range(folds):
        train, test = everything[fold != k], everything[fold == k]
        fitted = fit(design, train, seed, procedure)
        out_of_fold[test] = decide(design, fitted, test)
        if pointing:
            fold_spans = _fit_spans(examples, train, fitted)
            for i in test:
                if (spans := examples[i].spans) is not None:
                    order.append(int(i))
                    pointed = point(spans, _family(examples[i], fitted.families), fitted.probes, fold_spans,
                                    out_of_fold[i])
                    for name, predicted in pointed.items():
                        span_cases[name].append(predicted)
    fitted = fit(design, everything, seed, procedure)
    span_model = _fit_spans(examples, everything, fitted) if pointing else None
    weights = len(design.names) + len(design.sources) + (len(WORD_VALUES) if fitted.words else 0) + 1
    notes = []
    if len(examples) < CASES_PER_WEIGHT * weights:
        notes.append(f"{len(examples)} labelled cases for {weights} weights of the ruling (fewer than "
                     f"{CASES_PER_WEIGHT} a weight): expect a noisy fit; label more cases, or hear fewer "
                     "witnesses")
    ruling = as_ruling(examples, everything, fitted.probes, fitted.families, span_model, model=model,
                       court=court,
                     witnesses=witnesses, hidden_depth=hidden_depth,
                     fitted={"folds": folds, "seed": seed, "command": command})
    if pointing:  # back in the examples' order
        rank = {i: n for n, i in enumerate(order)}
        span_cases = {name: [cases[rank[i]] for i in sorted(order)] for name, cases in span_cases.items()}
    return RulingFit(ruling, list(examples), out_of_fold, fold, notes,
                     span_cases=span_cases if pointing else {})


def as_ruling(examples: Sequence[Example], train: np.ndarray, probes: dict[str, Probe],
              families: dict[str, FamilyRuling],
            span_model: SpanModel | None, *, model: str, court: str, witnesses: dict[str, int],
            hidden_depth: float | None, fitted: dict[str, object]) -> FittedRuling:
    """The ruling file's content for weights fitted on the examples `train`."""
    sources = dict(Counter(examples[i].source for i in train))
    return FittedRuling(model=model, court=court, witnesses=witnesses, hidden_depth=hidden_depth,
                        probes=probes, families=families, spans=span_model,  # type: ignore[arg-type]
                        fitted={"cases": len(train),
                                "hallucinated": int(sum(examples[i].hallucinated for i in train)),
                                "sources": sources, **fitted,
                                "date": datetime.now(timezone.utc).strftime("%Y-%m-%d")})


def _family(example: Example, families: dict[str, FamilyRuling]) -> FamilyRuling:
    """The weights a ruling gives the example's task family (those of every family when it has none of its
    own)."""
    return families.get(example.family, families["any"])


def _fit_spans(examples: Sequence[Example], train: np.ndarray, fitted: Fitted) -> SpanModel | None:
    """The span model of the training examples with gold spans (`fit_spans`), with the ruling's word probe."""
    words = fitted.words
    return fit_spans([(spans, _family(examples[i], fitted.families)) for i in train
                      if (spans := examples[i].spans) is not None], fitted.probes,
                     (words.probe, words.crossed) if words is not None else None)


def leave_one_source_out(examples: Sequence[Example], seed: int = 0, key=lambda e: e.source,  # noqa: ANN001
                         procedure: Procedure = PROCEDURE) -> np.ndarray:
    """Every example's P(hallucinated) by a ruling fitted on the examples of the other sources only."""
    design = Design(examples)
    out = np.zeros(len(examples))
    groups = np.array([key(e) for e in examples])
    for source in sorted(set(groups)):
        train, test = np.flatnonzero(groups != source), np.flatnonzero(groups == source)
        if len(set(design.y[train])) < 2:
            out[test] = 0.5
            continue
        out[test] = decide(design, fit(design, train, seed, procedure), test)
    return out
