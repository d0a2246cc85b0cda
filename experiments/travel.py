"""Which witnesses travel to a source a ruling never saw (#45): leave one source out, the measure against the ruling,
and the ruling refitted without each witness.

    PYTHONPATH=. python experiments/travel.py RUN [RUN ...] --out experiments/results/MODEL/travel.md \
        [--cache /work/data-extra/MODEL-travel.pickle]

The runs are of the default court with one model: the dev files (`experiments/queue-estimate.sh`) and HaluEval's
dialogue and summarization parts (`experiments/halueval_parts.py`). The held-out units are HaluBench's sources,
RAGTruth's three tasks and the two HaluEval parts: each is decided by a ruling fitted on all the other units
(`fit_ruling.leave_one_source_out`), at the ruling's threshold (0.5). Against it: the court's own verdict (its grounding
measure: today's default court), the word-overlap rule and the length-only rule (no model). Then the ruling refitted
without the model's inside (the lookback and hidden probes and the words' values: the measured witnesses only), with
the grounding witness alone, and without each witness in turn. Cells: balanced accuracy / AUROC; the paired column
is the ruling minus the measure (balanced accuracy [95% paired bootstrap], McNemar p).
"""

from __future__ import annotations

import argparse
import pickle
import shlex
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from courtroom.calibrate.fit_ruling import Example, leave_one_source_out
from courtroom.calibrate.ruling_runs import labelled_runs
from courtroom.case import Case
from courtroom.evaluate.confounds import length_only_rows, overlap_only_rows
from courtroom.evaluate.metrics import compute_metrics
from courtroom.evaluate.paired import mcnemar, paired_bootstrap_difference
from courtroom.evaluate.results import ResultRow
from courtroom.log.audit import Audit

INSIDE = ("lookback", "hidden")
"""The witnesses that read the model's inside (their probes, and the words' values of the word probe)."""


def unit(e: Example) -> str:
    """HaluBench's sources, RAGTruth's tasks, HaluEval's parts."""
    parts = e.source.split("/")
    return "/".join(parts[:2])


def without(examples: Sequence[Example], dropped: Callable[[str], bool]) -> list[Example]:
    """The examples without the values and vectors of the witnesses `dropped` names (the words' values go with
    `hidden`)."""
    words = dropped("hidden")
    return [replace(e, values={k: v for k, v in e.values.items() if not dropped(k.split(".")[0])},
                    vectors={k: v for k, v in e.vectors.items() if not dropped(k)},
                    word_hidden=None if words else e.word_hidden,
                    spans=replace(e.spans, word_hidden=None) if words and e.spans is not None else e.spans)
            for e in examples]


def rows_of(examples: Sequence[Example], scores: np.ndarray) -> list[ResultRow]:
    return [ResultRow(case_id=e.case_id, source=unit(e), gold="FAIL" if e.hallucinated else "PASS",
                      label="FAIL" if s >= 0.5 else "PASS", score=float(s)) for e, s in zip(examples, scores)]


def cell(rows: Sequence[ResultRow]) -> str:
    m = compute_metrics(rows, resamples=0)
    if m.balanced_accuracy.value is None:
        return "-"
    return f"{m.balanced_accuracy.value:.3f} / " + (f"{m.auroc.value:.3f}" if m.auroc.value is not None else "-")


def paired(a: Sequence[ResultRow], b: Sequence[ResultRow]) -> str:
    d, t = paired_bootstrap_difference(a, b), mcnemar(a, b)
    if d.difference is None:
        return "-"
    return f"{d.difference:+.3f} [{d.low:+.3f}, {d.high:+.3f}], p = {t.p_value:.2g}"


def load(run_dirs: Sequence[str]) -> tuple[list[Example], str, dict[str, ResultRow], dict[str, Case]]:
    """The runs' examples, model, the court's own rows and the cases."""
    runs = labelled_runs(run_dirs)
    measure: dict[str, ResultRow] = {}
    cases: dict[str, Case] = {}
    for run in run_dirs:
        audit = Audit(run)
        for row in audit.rows():
            measure[row.case_id] = row
            cases[row.case_id] = next(e.case for e in audit.events(row.case_id) if e.event == "case_start")
    return runs.examples, runs.model, measure, cases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+")
    parser.add_argument("--out", required=True)
    parser.add_argument("--cache", help="Keep the runs' examples, rows and cases here (a pickle outside the repo).")
    args = parser.parse_args()
    command = "PYTHONPATH=. python experiments/travel.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    if args.cache and Path(args.cache).exists():
        examples, model, measure, cases = pickle.loads(Path(args.cache).read_bytes())
    else:
        examples, model, measure, cases = load(args.runs)
        if args.cache:
            Path(args.cache).write_bytes(pickle.dumps((examples, model, measure, cases)))
    units = sorted({unit(e) for e in examples})
    witnesses = sorted({k.split(".")[0] for e in examples for k in e.values} | {k for e in examples for k in e.vectors})
    fits: dict[str, list[ResultRow]] = {}
    for name, dropped in [("ruling, every witness", lambda w: False),
                          ("ruling, measured witnesses only (no probes, no words' values)", lambda w: w in INSIDE),
                          ("ruling, grounding alone", lambda w: w != "grounding"),
                          *[(f"ruling without {w}", lambda x, w=w: x == w) for w in witnesses]]:
        chosen = without(examples, dropped)
        fits[name] = rows_of(chosen, leave_one_source_out(chosen, key=unit))
        print(f"fitted: {name}", flush=True)
    overlap: dict[str, ResultRow] = {}
    length: dict[str, ResultRow] = {}
    for u in units:  # each rule's median taken on the unit itself (flattered: it sees the unit)
        mine = [cases[e.case_id] for e in examples if unit(e) == u]
        overlap.update({r.case_id: r for r in overlap_only_rows(mine)})
        length.update({r.case_id: r for r in length_only_rows(mine)})
    today = [measure[e.case_id].model_copy(update={"source": unit(e)}) for e in examples]

    def pick(rows: Sequence[ResultRow], u: str) -> list[ResultRow]:
        return [r for r, e in zip(rows, examples) if unit(e) == u]

    lines = [f"# Which witnesses travel: {model}", "", f"`{command}`", "",
             f"{len(examples)} labelled cases; each unit decided by a ruling fitted on all the others (leave one source "
             "out). Cells: balanced accuracy / AUROC. *: the no-model rules' median is the unit's own.", "",
             "| held out | n | measure (today's court) | word overlap* | length only* | ruling | ruling - measure | "
             "measured witnesses only | - measure |", "|---|---|---|---|---|---|---|---|---|"]
    inside = fits["ruling, measured witnesses only (no probes, no words' values)"]
    for u in units:
        t = pick(today, u)
        o = [overlap[e.case_id].model_copy(update={"source": u}) for e in examples if unit(e) == u]
        n = [length[e.case_id].model_copy(update={"source": u}) for e in examples if unit(e) == u]
        r, m = pick(fits["ruling, every witness"], u), pick(inside, u)
        lines.append(f"| {u} | {len(t)} | {cell(t)} | {cell(o)} | {cell(n)} | {cell(r)} | {paired(r, t)} | "
                     f"{cell(m)} | {paired(m, t)} |")
    lines += ["", "## The ruling refitted without each witness, left-out unit by unit", "",
              "Balanced accuracy / AUROC on each held-out unit; a witness whose removal raises a unit's number carries "
              "something of the other sources that does not hold there.", "",
              "| ruling | " + " | ".join(units) + " |", "|---" * (len(units) + 1) + "|"]
    for name, rows in fits.items():
        lines.append(f"| {name} | " + " | ".join(cell(pick(rows, u)) for u in units) + " |")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
