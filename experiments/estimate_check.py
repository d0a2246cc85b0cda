"""Why a ruling's out-of-fold estimate on the dev files fell below what unseen rows give, and whether the corrected
estimate agrees with rows held out here (#45).

    PYTHONPATH=. python experiments/estimate_check.py RUN [RUN ...] --out experiments/results/MODEL/estimate-check.md \
        [--cache /work/data-extra/MODEL-examples.pickle] [--seeds 3] [--splits 10]

The runs are the default court with every witness and the words' states (`--set witnesses.word_states=true`) on
`halubench-dev.jsonl` and `ragtruth-spans-dev.jsonl` with one model (`experiments/queue-estimate.sh`). Every number is
balanced accuracy (at the ruling's threshold) / AUROC of the out-of-fold P(hallucinated), per dev file:
1. **Candidates**: the estimate by the protocol of 5150ee0 (5 folds over groups of identical answers, stratified by
   label), then with one thing changed at a time (folds over items, folds stratified by source, no family weights,
   probes scored in sample, no probes, more folds, the word probe's strength fixed), each over `--seeds` fold seeds
   (mean, and the spread across seeds).
2. **Learning curve**: each fold's ruling fitted on a share of its training rows (whole groups, seeded), scored on the
   fold: how much a fit on four fifths of the rows loses against one on all of them.
3. **Held-out halves**: `--splits` seeded halves of the rows (whole items, each source's two kinds split evenly); a
   ruling fitted on one half by `fit_ruling` scores the other, with a 95% bootstrap interval; the out-of-fold
   estimate on the fitting half alone, by the protocol of 5150ee0 and by the current one, should lie inside it.
"""

from __future__ import annotations

import argparse
import pickle
import shlex
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from courtroom.calibrate import fit_ruling as fitting
from courtroom.calibrate.fit_ruling import Example
from courtroom.calibrate.ruling_runs import labelled_runs
from courtroom.evaluate.metrics import auroc, confusion, percentile_interval, rates_from_counts, resample_weights, weighted_rates

Folds = fitting.FoldRule


def dataset(e: Example) -> str:
    return e.source.split("/")[0]


def balanced(gold: np.ndarray, p: np.ndarray, threshold: float = 0.5) -> float:
    return float(rates_from_counts(*confusion(gold, p >= threshold))["balanced_accuracy"])


def bootstrap(gold: np.ndarray, p: np.ndarray, resamples: int = 2000, seed: int = 0) -> tuple[float, float]:
    """95% percentile bootstrap interval of the balanced accuracy at 0.5."""
    rng = np.random.default_rng(seed)
    weights = resample_weights(rng.integers(0, len(gold), (resamples, len(gold))), len(gold))
    low, high = percentile_interval(weighted_rates(weights, gold, p >= 0.5)["balanced_accuracy"])
    return float(low), float(high)  # type: ignore[arg-type]


# fold assignments: (design, rows, folds, seed) -> each row's fold, for the outer and the inner folds alike ----------

def shipped_folds(design: fitting.Design, idx: np.ndarray, k: int, seed: int) -> np.ndarray:
    """The folds of 5150ee0: each label's answer groups dealt round-robin (a group once per case), no item links,
    no source strata."""
    keys = [design.examples[i].group or design.examples[i].case_id for i in idx]
    rng = np.random.default_rng(seed)
    fold_of: dict[str, int] = {}
    for label in (1, 0):
        for i, key in enumerate(rng.permutation(sorted(k_ for k_, g in zip(keys, design.y[idx]) if g == label))):
            fold_of[str(key)] = i % k
    return np.array([fold_of[key] for key in keys], dtype=int)


def item_folds(design: fitting.Design, idx: np.ndarray, k: int, seed: int) -> np.ndarray:
    """Folds over items (question and context) linked with identical answers, stratified by label only."""
    return fitting.stratified_folds(design.y[idx].astype(bool), [design.groups[i] for i in idx], folds=k, seed=seed)


CURRENT_FOLDS = fitting.source_folds
"""The folds `fit_ruling` deals now (items, strata by source)."""


# procedure variants: each a `fitting.Procedure` with one step changed ----------------------------------------

def in_sample_probes(design: fitting.Design, train: np.ndarray, seed: int, folds: Folds) -> tuple[dict, np.ndarray]:
    """The naive stack: each probe scored on the very rows it was fitted on."""
    probes, _ = fitting.inner_probes(design, train, seed, folds)
    columns = [fitting.apply_linear(probes[s].linear, design.vectors[s][train]) for s in design.sources]
    return probes, np.array(columns).T if columns else np.zeros((len(train), 0))


def out_of_fold(design: fitting.Design, fold: np.ndarray, seed: int = 0, share: float = 1.0, share_seed: int = 0,
                procedure: fitting.Procedure = fitting.PROCEDURE) -> np.ndarray:
    """Every row's P(hallucinated) by a ruling fitted on the other folds (on `share` of their groups)."""
    train = (lambda rows, k: subsample(design, rows, share, share_seed + k)) if share < 1.0 else None
    return fitting.out_of_fold(design, fold, seed, procedure, train=train)


def subsample(design: fitting.Design, rows: np.ndarray, share: float, seed: int) -> np.ndarray:
    """`share` of the rows' groups within each source and kind (seeded), whole groups."""
    keep = np.zeros(len(design.y), dtype=bool)
    by_stratum: dict[tuple[str, int], list[str]] = {}
    first: dict[str, tuple[str, int]] = {}
    for i in rows:
        first.setdefault(design.groups[i], (design.strata[i], int(design.y[i])))
    for group, stratum in first.items():
        by_stratum.setdefault(stratum, []).append(group)
    rng = np.random.default_rng(seed)
    chosen = {g for groups in by_stratum.values()
              for g in rng.permutation(sorted(groups))[:max(1, round(share * len(groups)))]}
    keep[[i for i in rows if design.groups[i] in chosen]] = True
    return np.flatnonzero(keep)


def columns(examples: Sequence[Example]) -> list[str]:
    """All rows, each dev file, and HaluBench's sources of more than 50 rows."""
    sources = {e.source: sum(x.source == e.source for x in examples) for e in examples if dataset(e) == "halubench"}
    return ["all", *sorted({dataset(e) for e in examples}), *sorted(s for s, n in sources.items() if n > 50)]


def cells(examples: Sequence[Example], gold: np.ndarray, p: np.ndarray) -> dict[str, tuple[float, float]]:
    """Balanced accuracy and AUROC of each of `columns`."""
    out = {}
    for name in columns(examples):
        mine = np.array([name in ("all", dataset(e), e.source) for e in examples])
        out[name] = (balanced(gold[mine], p[mine]), float(auroc(gold[mine], p[mine]) or float("nan")))
    return out


def fmt(values: list[dict[str, tuple[float, float]]], name: str) -> str:
    b = np.array([v[name][0] for v in values])
    a = np.array([v[name][1] for v in values])
    spread = f" (±{b.std():.3f})" if len(values) > 1 else ""
    return f"{b.mean():.3f}{spread} / {a.mean():.3f}"


# the experiment -------------------------------------------------------------------------------------------------

def candidates(examples: list[Example], seeds: int, log: Callable[[str], None]) -> list[str]:
    gold = np.array([e.hallucinated for e in examples])
    design = fitting.Design(examples)
    bare = fitting.Design([replace(e, vectors={}) for e in examples])
    names = columns(examples)
    now = fitting.PROCEDURE
    variants: list[tuple[str, fitting.Design, Folds, int, fitting.Procedure]] = [
        ("as of 5150ee0: 5 folds over identical answers, by label", design, shipped_folds, 5, now),
        ("folds over items (question and context)", design, item_folds, 5, now),
        ("folds over items, stratified by source (now)", design, CURRENT_FOLDS, 5, now),
        ("now, no family weights (`any` only)", design, CURRENT_FOLDS, 5, replace(now, families=False)),
        ("now, probes scored in sample (the naive stack)", design, CURRENT_FOLDS, 5,
         replace(now, probes=in_sample_probes)),
        ("now, no lookback or hidden probe", bare, CURRENT_FOLDS, 5, now),
        ("now, the word probe's strength fixed at 0.001", design, CURRENT_FOLDS, 5, replace(now, word_probe_cs=(0.001,))),
        ("now, 10 folds", design, CURRENT_FOLDS, 10, now),
        ("now, 20 folds", design, CURRENT_FOLDS, 20, now),
    ]
    lines = ["## 1. Candidates: the out-of-fold estimate, one change at a time", "",
             f"Mean over {seeds} fold seeds (± the standard deviation across seeds of the balanced accuracy) / mean "
             "AUROC. The protocol of 5150ee0 first (its folds outside and inside: the probes' and the family weights' "
             "inner folds); each row below changes one thing.", "",
             "| protocol | " + " | ".join(n.split("/")[-1] for n in names) + " |", "|---" * (len(names) + 1) + "|"]
    for label, d, folds, k, procedure in variants:
        started = time.time()
        results = []
        procedure = replace(procedure, folds=folds)  # the outer folds and the inner ones alike
        for seed in range(seeds):
            fold = folds(d, np.arange(len(d.y)), k, seed)
            results.append(cells(examples, gold, out_of_fold(d, fold, seed, procedure=procedure)))
        lines.append(f"| {label} | " + " | ".join(fmt(results, n) for n in names) + " |")
        log(f"{lines[-1]}  ({time.time() - started:.0f} s)")
    return lines + [""]


def learning_curve(examples: list[Example], seeds: int, log: Callable[[str], None]) -> list[str]:
    gold = np.array([e.hallucinated for e in examples])
    design = fitting.Design(examples)
    names = columns(examples)
    lines = ["## 2. Learning curve", "",
             "Each of the 5 current folds decided by a ruling fitted on a share of the other four folds' groups (each "
             f"source's two kinds alike); mean over {seeds} fold seeds. Rows fitted on: share x 4/5 of "
             f"{len(examples)}.", "",
             "| share of the training folds | rows fitted on | " + " | ".join(n.split("/")[-1] for n in names) + " |",
             "|---" * (len(names) + 2) + "|"]
    for share in (0.4, 0.6, 0.8, 1.0):
        results = [cells(examples, gold, out_of_fold(design, CURRENT_FOLDS(design, np.arange(len(design.y)), 5, seed),
                                                     seed, share, seed))
                   for seed in range(seeds)]
        lines.append(f"| {share:.1f} | ~{round(share * 0.8 * len(examples))} | "
                     + " | ".join(fmt(results, n) for n in names) + " |")
        log(lines[-1])
    return lines + [""]


def halves(design: fitting.Design, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Two halves of the rows: whole groups, each source's two kinds split evenly (seeded)."""
    fold = fitting.stratified_folds(design.y.astype(bool), design.groups, folds=2, seed=1000 + seed,
                                    strata=design.strata)
    return np.flatnonzero(fold == 0), np.flatnonzero(fold == 1)


def held_out(examples: list[Example], splits: int, log: Callable[[str], None]) -> list[str]:
    design = fitting.Design(examples)
    names = sorted({dataset(e) for e in examples})
    lines = ["## 3. Held-out halves", "",
             "Each split: the rows cut in two halves (whole items; each source's two kinds evenly); a ruling fitted on "
             "half A by `fit_ruling` decides half B (balanced accuracy [95% bootstrap] / AUROC); the out-of-fold "
             "estimate is computed on half A alone, by the protocol of 5150ee0 and by the current one. Inside: whether "
             "the estimate lies within B's interval.", "",
             "| split | file | held-out half B | estimate on A, 5150ee0 | inside | estimate on A, now | inside |",
             "|---|---|---|---|---|---|---|"]
    gaps: dict[tuple[str, str], list[float]] = {}
    for split in range(splits):
        a, b = halves(design, split)
        p_b = fitting.decide(design, fitting.fit(design, a, split), b)  # what `fit_ruling` fits on half A
        half = fitting.Design([examples[i] for i in a])
        old = out_of_fold(half, shipped_folds(half, np.arange(len(a)), 5, split), split,
                          procedure=replace(fitting.PROCEDURE, folds=shipped_folds))
        now = out_of_fold(half, CURRENT_FOLDS(half, np.arange(len(a)), 5, split), split)
        for name in names:
            in_a = np.array([dataset(examples[i]) == name for i in a])
            in_b = np.array([dataset(examples[i]) == name for i in b])
            g_a, g_b = design.y[a][in_a].astype(bool), design.y[b][in_b].astype(bool)
            truth = balanced(g_b, p_b[in_b])
            low, high = bootstrap(g_b, p_b[in_b], seed=split)
            o, n = balanced(g_a, old[in_a]), balanced(g_a, now[in_a])
            gaps.setdefault((name, "old"), []).append(o - truth)
            gaps.setdefault((name, "now"), []).append(n - truth)
            lines.append(f"| {split} | {name} | {truth:.3f} [{low:.3f}, {high:.3f}] / {auroc(g_b, p_b[in_b]):.3f} | "
                         f"{o:.3f} / {auroc(g_a, old[in_a]):.3f} | {'yes' if low <= o <= high else '**no**'} | "
                         f"{n:.3f} / {auroc(g_a, now[in_a]):.3f} | {'yes' if low <= n <= high else '**no**'} |")
            log(lines[-1])
    lines += ["", "Estimate on A minus what half B gives (balanced accuracy), mean over the splits [95% interval of the "
                  "mean, t]:", ""]
    for (name, protocol), values in gaps.items():
        v = np.array(values)
        half_width = 2.0 * v.std(ddof=1) / np.sqrt(len(v)) if len(v) > 1 else float("nan")
        lines.append(f"- {name}, {'5150ee0' if protocol == 'old' else 'now'}: {v.mean():+.3f} "
                     f"[{v.mean() - half_width:+.3f}, {v.mean() + half_width:+.3f}]")
    return lines + [""]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+")
    parser.add_argument("--out", required=True)
    parser.add_argument("--cache", help="Keep the runs' examples here (a pickle outside the repository).")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--splits", type=int, default=10)
    parser.add_argument("--parts", default="candidates,curve,halves")
    args = parser.parse_args()
    command = "PYTHONPATH=. python experiments/estimate_check.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    if args.cache and Path(args.cache).exists():
        examples, model = pickle.loads(Path(args.cache).read_bytes())
    else:
        runs = labelled_runs(args.runs)
        examples, model = runs.examples, runs.model
        if args.cache:
            Path(args.cache).write_bytes(pickle.dumps((examples, model)))
    lines = [f"# The ruling's out-of-fold estimate, checked: {model}", "", f"`{command}`", "",
             f"{len(examples)} labelled cases ({', '.join(f'{n} {d}' for d, n in sorted(_count(examples).items()))}). "
             "Cells: balanced accuracy / AUROC.", ""]

    def log(line: str) -> None:
        print(line, flush=True)

    parts = args.parts.split(",")
    if "candidates" in parts:
        lines += candidates(examples, args.seeds, log)
    if "curve" in parts:
        lines += learning_curve(examples, args.seeds, log)
    if "halves" in parts:
        lines += held_out(examples, args.splits, log)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text("\n".join(lines) + "\n")
    print(f"wrote {args.out}")


def _count(examples: Sequence[Example]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for e in examples:
        counts[dataset(e)] = counts.get(dataset(e), 0) + 1
    return counts


if __name__ == "__main__":
    main()
