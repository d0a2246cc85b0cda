"""What a few labels of a new source buy (#45 item 5): leave one source out, then give the ruling k labels of it.

    PYTHONPATH=. python experiments/few_labels.py --cache /work/data-extra/MODEL-travel.pickle \
        --out experiments/results/MODEL/witnesses-few-labels.md [--seeds 5]

The cache is `experiments/travel.py`'s (the runs' examples, the court's own rows and the cases). Each source of more
than 60 rows is held out in turn; on it, k labelled rows (k = 0, 10, 30, 100; drawn at random, both labels, seeded) are
given and the rest of the source is scored, against the measure (the court's own verdict) on the same rows:
- *ruling, other sources*: fitted on the other sources only (k = 0: what a new user gets);
- *+ threshold*: the same ruling, its threshold moved to the one that maximises balanced accuracy on the k labels
  (the least a few labels can change);
- *+ refit*: refitted on the other sources and the k labels together;
- *+ prior refit*: the other sources' ruling refitted on the k labels alone with itself as the prior
  (`calibrate.prior_refit`, what `courtroom calibrate --prior` does), the labels drawn at random, and
  (Until 2026-11-27 also *chosen* and *diverse*: the labels picked by uncertainty and diversity as `courtroom label`
  then picked them, and by diversity alone; both did worse than random draws and were retired with the picking: the
  tables with those columns were made by this script at commit 9d8d6d6.)
(Until #53 also, at k = 0, *applicability*: the other sources' ruling inside its region and the measure outside it;
rulings' regions were retired with #53, and the tables with that column were made by this script at commit b319afa.)
*All of its labels*: the source scored out of fold (5 folds) by rulings fitted on the other sources and four fifths of
it: the ceiling a few labels aim at. Cells: balanced accuracy / AUROC, mean over seeds; *- measure*: the paired
balanced-accuracy difference, mean over seeds, and how many seeds' McNemar p < 0.05.
"""

from __future__ import annotations

import argparse
import pickle
import shlex
import sys
from pathlib import Path

import numpy as np

from courtroom.calibrate import fit_ruling as fitting
from courtroom.calibrate.fit_ruling import Example
from courtroom.calibrate.prior_refit import p_hallucinated, refit_families
from courtroom.errors import ConfigError
from courtroom.evaluate.metrics import auroc, confusion, rates_from_counts
from courtroom.evaluate.paired import mcnemar
from courtroom.evaluate.results import ResultRow
from experiments.travel import INSIDE, without

KS = (0, 10, 30, 100)
MIN_ROWS = 60
"""A source smaller than this is not held out alone (too few rows left to score after its labels)."""


def unit(e: Example) -> str:
    return "/".join(e.source.split("/")[:2])


def balanced(gold: np.ndarray, pred: np.ndarray) -> float:
    return float(rates_from_counts(*confusion(gold, pred))["balanced_accuracy"])


def best_threshold(gold: np.ndarray, p: np.ndarray) -> float:
    """The threshold on `p` that maximises balanced accuracy on these labels (the midpoint between scores)."""
    if len(set(gold.tolist())) < 2:
        return 0.5
    cuts = np.unique(p)
    candidates = np.concatenate([[cuts[0] - 1e-9], (cuts[:-1] + cuts[1:]) / 2, [cuts[-1] + 1e-9]])
    scores = [balanced(gold, p >= c) for c in candidates]
    return float(candidates[int(np.argmax(scores))])


def draw(y: np.ndarray, rows: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """k of `rows` at random, at least one of each label."""
    if k == 0:
        return rows[:0]
    for _ in range(100):
        chosen = rng.choice(rows, size=k, replace=False)
        if len(set(y[chosen].tolist())) == 2:
            return chosen
    raise ValueError("cannot draw both labels")


def rows_for(design: fitting.Design, idx: np.ndarray, p: np.ndarray, threshold: float = 0.5) -> list[ResultRow]:
    return [ResultRow(case_id=design.examples[i].case_id, source=unit(design.examples[i]),
                      gold="FAIL" if design.y[i] else "PASS", label="FAIL" if s >= threshold else "PASS", score=float(s))
            for i, s in zip(idx, p)]


class Tally:
    """Per (source, k, method): balanced accuracy, AUROC, the paired difference with the measure, significant seeds."""

    def __init__(self) -> None:
        self.cells: dict[tuple[str, int, str], list[tuple[float, float, float, bool]]] = {}

    def add(self, source: str, k: int, method: str, ours: list[ResultRow], measure: list[ResultRow]) -> None:
        gold = np.array([r.gold == "FAIL" for r in ours])
        pred = np.array([r.label == "FAIL" for r in ours])
        base = np.array([r.label == "FAIL" for r in measure])
        area = auroc(gold, np.array([r.score for r in ours]))
        significant = mcnemar(ours, measure).p_value < 0.05
        self.cells.setdefault((source, k, method), []).append(
            (balanced(gold, pred), float("nan") if area is None else float(area),
             balanced(gold, pred) - balanced(gold, base), significant))

    def text(self, source: str, k: int, method: str) -> str:
        values = self.cells.get((source, k, method))
        if not values:
            return "-"
        ba, area, diff, sig = (np.array(v) for v in zip(*values))
        return f"{ba.mean():.3f} / {np.nanmean(area):.3f} ({diff.mean():+.3f}, {int(sig.sum())} of {len(sig)})"


def experiment(examples: list[Example], measure: dict[str, ResultRow], seeds: int, log) -> list[str]:  # noqa: ANN001
    design = fitting.Design(examples)
    units = np.array([unit(e) for e in examples])
    held = [u for u in sorted(set(units)) if (units == u).sum() > MIN_ROWS]
    methods = ["measure", "ruling, other sources", "+ threshold", "+ refit", "+ prior refit"]
    tally = Tally()
    for source in held:
        others, mine = np.flatnonzero(units != source), np.flatnonzero(units == source)
        fitted = fitting.fit(design, others, 0)
        p_all = fitting.decide(design, fitted, mine)
        at = dict(zip(mine.tolist(), p_all))
        prior = fitting.as_ruling(design.examples, others, fitted.probes, fitted.families, None, model="", court="default",
                                witnesses={}, hidden_depth=None, fitted={})
        for seed in range(seeds):
            rng = np.random.default_rng(seed)
            for k in KS:
                if k >= len(mine) - 40:
                    continue
                labelled = draw(design.y, mine, k, rng)
                rest = np.setdiff1d(mine, labelled)
                base = [measure[design.examples[i].case_id] for i in rest]
                p = np.array([at[i] for i in rest])
                tally.add(source, k, "measure", base, base)
                tally.add(source, k, "ruling, other sources", rows_for(design, rest, p), base)
                if k == 0:
                    continue
                threshold = best_threshold(design.y[labelled].astype(bool), np.array([at[i] for i in labelled]))
                tally.add(source, k, "+ threshold", rows_for(design, rest, p, threshold), base)
                refit = fitting.fit(design, np.concatenate([others, labelled]), seed)
                tally.add(source, k, "+ refit", rows_for(design, rest, fitting.decide(design, refit, rest)), base)
                try:
                    refit_weights = refit_families(prior, [design.examples[i] for i in labelled])[0]
                except ConfigError as refused:  # as `calibrate --prior` refuses such labels: the cell stays "-"
                    log(f"{source}: k = {k}, + prior refit: {refused}")
                    continue
                moved = prior.model_copy(update={"families": refit_weights})
                tally.add(source, k, "+ prior refit",
                          rows_for(design, rest, np.array([p_hallucinated(moved, design.examples[i], prior)
                                                           for i in rest])), base)
            log(f"{source}: seed {seed} done")
        folds = fitting.source_folds(design, mine, 5, 0)  # all of its labels: 5 folds within the source
        ceiling = np.zeros(len(mine))
        for f in range(5):
            test, train = mine[folds == f], mine[folds != f]
            ceiling[folds == f] = fitting.decide(design, fitting.fit(design, np.concatenate([others, train]), 0), test)
        tally.add(source, -1, "all of its labels", rows_for(design, mine, ceiling),
                  [measure[design.examples[i].case_id] for i in mine])
        tally.add(source, -1, "measure", [measure[design.examples[i].case_id] for i in mine],
                  [measure[design.examples[i].case_id] for i in mine])
    lines = ["| held out | k labels | " + " | ".join(methods) + " | all of its labels (5-fold) |",
             "|---|---|" + "---|" * (len(methods) + 1)]
    for source in held:
        for k in KS:
            if (source, k, "measure") in tally.cells:
                lines.append(f"| {source} | {k} | " + " | ".join(tally.text(source, k, m) for m in methods) + " | |")
        lines.append(f"| {source} | all | {tally.text(source, -1, 'measure')} |" + " |" * (len(methods) - 1)
                     + f" {tally.text(source, -1, 'all of its labels')} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache", required=True, help="experiments/travel.py's cache of the runs")
    parser.add_argument("--out", required=True)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--measured-only", action="store_true",
                        help="the rulings weigh the measured witnesses only (no probes, no words' values)")
    args = parser.parse_args()
    command = "PYTHONPATH=. python experiments/few_labels.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    examples, model, measure, _cases = pickle.loads(Path(args.cache).read_bytes())
    if args.measured_only:
        examples = without(examples, lambda w: w in INSIDE)
        model += ", measured witnesses only"
    lines = [f"# A few labels of a new source: {model}", "", f"`{command}`", "",
             f"{len(examples)} labelled cases. Each cell: balanced accuracy / AUROC on the held-out source's rows "
             f"without the k labelled ones, mean over {args.seeds} seeds of the draw (the paired difference with the "
             "measure on the same rows, mean; the seeds where McNemar p < 0.05).", ""]
    lines += experiment(examples, measure, args.seeds, lambda line: print(line, flush=True))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
