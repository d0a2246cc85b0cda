"""What the trial is worth (#51): runs of a court that tried every case's charges (experiments/courts/
trial-testimony.yaml, `experiments/queue-trials.sh`), decided again with no model call, and four rulings fitted out of
fold on the same cases: the measure (the default court's verdict), the clerk's ruling (the witnesses' testimony), the
bench alone (the trial's testimony, calibrated), and the clerk and trial ruling (one ruling over both: the trial's
values renamed so the fit weighs them, as the retired trial weights did on these runs, where every case is tried); the
escalation curve: the share of charges tried, nearest the clerk's threshold first, against balanced accuracy and
model calls per case.

    PYTHONPATH=. python experiments/trial_testimony.py RUN [RUN ...] --out experiments/results/MODEL/trial-testimony.md

Every RUN is decided again twice (into RUN-testified and RUN-measure beside it, resumable; never committed, and to be
deleted before experiments/report.py runs, which would list them: they hold
the data's text): with `trial.testify` (the trial's testimony in every verdict, from the recorded calls), and by the
default court (the measure's verdict, from the same calls). Folds are the package's (`fit_ruling`: 5 over groups of
identical answers and of one question's answers, stratified by source); leave-one-source-out beside them. Every
number is balanced accuracy [95% bootstrap] / AUROC, with McNemar's paired test against the clerk's ruling.

`--held-out RUN=N` leaves the cases of RUN after the first N of its manifest (the order they were selected in) out of
everything above and tests on them once, by rulings fitted on all the other cases: the check fixed in
docs/experiments.md ("A check fixed before its data") before those cases' results were read. Held-out cases linked to a
fitted one (an identical answer, or the same question) are left out of the test and counted.

`--against OTHER` restricts everything to the cases both runs judged and adds a table pairing the two courts case by
case (e.g. one round against three, or a jury against one judge): each run's bench alone and clerk and trial ruling,
fitted out of fold on the same cases with the same folds, McNemar between them, the rounds the trials ran, and the
calls and seconds per case."""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from courtroom.calibrate.fit_ruling import Design, Example, decide, fit, fit_ruling, leave_one_source_out
from courtroom.calibrate.ruling_runs import labelled_runs
from courtroom.court.testimony import log_odds
from courtroom.engine.events import ModelCallEvent
from courtroom.engine.registry import JudgeSpec
from courtroom.evaluate.metrics import compute_metrics
from courtroom.evaluate.paired import mcnemar
from courtroom.evaluate.results import ResultRow
from courtroom.log.audit import Audit
from courtroom.log.rejudge import rejudge_run, rejudged_judge
from courtroom.log.store import RunStore

TRIAL = "trial."
SHARES = (0.0, 0.10, 0.25, 0.50, 1.0)
"""Shares of the charges tried, the cases nearest the clerk's threshold first (the escalation curve)."""


def decided_again(run: Path, name: str, judge: JudgeSpec) -> Path:
    """`run` decided again by `judge` into `run-name` (served from its recorded calls; resumed when half done)."""
    out = run.parent / f"{run.name}-{name}"
    done = RunStore(out).exists() and len(RunStore(out).rows()) == len([r for r in RunStore(run).rows() if not r.error])
    if not done:
        rejudge_run(run, out, judge=judge)
    return out


def testified(run: Path) -> Path:
    return decided_again(run, "testified", rejudged_judge(RunStore(run).manifest(), overrides={"trial.testify": True}))


def measured(run: Path) -> Path:
    """The default court on the same calls (the measure decides: no ruling is filed for the model in it); the run's
    trial settings (`--set trial.max_rounds=3`) are not carried to it, which tries nothing (`carried_overrides`)."""
    return decided_again(run, "measure", rejudged_judge(RunStore(run).manifest(), court="default",
                                                        overrides={"witnesses.word_states": True}))


def clerk_only(examples: Sequence[Example]) -> list[Example]:
    return [replace(e, values={k: v for k, v in e.values.items() if not k.startswith(TRIAL)}) for e in examples]


def as_bench(values: dict[str, float]) -> dict[str, float]:
    """The trial's values renamed off `trial.` (which the fit leaves out), so a ruling weighs them as its own."""
    return {("bench." + k.removeprefix(TRIAL) if k.startswith(TRIAL) else k): v for k, v in values.items()}


def bench_only(examples: Sequence[Example]) -> list[Example]:
    """The trial's testimony alone, as values a ruling weighs, without the model's vectors."""
    return [replace(e, values=as_bench({k: v for k, v in e.values.items() if k.startswith(TRIAL)}),
                    vectors={}, word_hidden=None, spans=None) for e in examples]


def clerk_and_trial(examples: Sequence[Example]) -> list[Example]:
    """The clerk's testimony and the trial's, one ruling over both."""
    return [replace(e, values=as_bench(e.values)) for e in examples]


def rows_of(examples: Sequence[Example], p: np.ndarray, threshold: float = 0.5) -> list[ResultRow]:
    return [ResultRow(case_id=e.case_id, source=e.source, gold="FAIL" if e.hallucinated else "PASS",
                      label="FAIL" if s >= threshold else "PASS", score=float(s)) for e, s in zip(examples, p)]


def cell(rows: Sequence[ResultRow]) -> str:
    m = compute_metrics(rows, resamples=1000)
    ba, au = m.balanced_accuracy, m.auroc
    if ba.value is None:
        return "-"
    return (f"{ba.value:.3f} [{ba.low:.3f}, {ba.high:.3f}] / " +
            (f"{au.value:.3f} [{au.low:.3f}, {au.high:.3f}]" if au.value is not None else "-"))


def against(rows: Sequence[ResultRow], clerk: Sequence[ResultRow]) -> str:
    test = mcnemar(rows, clerk)
    b, c = test.a_only_correct, test.b_only_correct
    return f"+{b}/-{c}, p = {test.p_value:.2g}" if test.p_value is not None else "-"


def calls(run: Path) -> dict[str, tuple[int, int, float]]:
    """Each case's model calls outside its trials, its trials' calls, and its seconds (from its row)."""
    audit = Audit(run)
    out = {}
    for row in audit.rows():
        if row.error is not None:
            continue
        model_calls = [e for e in audit.events(row.case_id) if e.event == "model_call"]
        trial = sum(e.charge is not None for e in model_calls)
        out[row.case_id] = (len(model_calls) - trial, trial, row.seconds or 0.0)
    return out


def dataset(e: Example) -> str:
    return e.source.split("/")[0]


def held_out_ids(spec: str) -> set[str]:
    """The case ids of `RUN=N` after the first N the run selected."""
    run, _, first = spec.rpartition("=")
    manifest = RunStore(Path(run)).manifest()
    if not run or not first.isdigit() or manifest.cases is None:
        raise SystemExit(f"--held-out {spec!r}: expected RUN=N, N the cases fitted on, RUN a run that lists its cases")
    return set(list(manifest.cases.cases)[int(first):])


def escalated(examples: Sequence[Example], clerk_p: np.ndarray, trial_p: np.ndarray, trial: np.ndarray,
              share: float) -> tuple[np.ndarray, np.ndarray]:
    """P(hallucinated) when the cases nearest the clerk's threshold are tried first until their trial calls reach
    `share` of all the cases' (a case with no trial call counts one), and which cases were tried."""
    order = np.argsort(np.abs(clerk_p - 0.5), kind="stable")
    charges = np.maximum(trial, 1.0)
    budget, spent, tried = share * charges.sum(), 0.0, np.zeros(len(examples), dtype=bool)
    for i in order:
        if spent >= budget - 1e-9:
            break
        tried[i], spent = True, spent + charges[i]
    return np.where(tried, trial_p, clerk_p), tried


def held_out_lines(examples: Sequence[Example], test_ids: set[str], measure_rows: dict[str, ResultRow],
                   trial_calls: dict[str, float], seed: int) -> list[str]:
    """Rulings fitted on every case outside `test_ids`, tested once on the held-out cases not linked to a fitted one."""
    fits = {"the clerk's ruling": clerk_only(examples), "the bench alone (calibrated)": bench_only(examples),
            "the clerk and trial ruling": clerk_and_trial(examples)}
    held = np.array([e.case_id in test_ids for e in examples])
    groups = np.array(Design(examples).groups)
    linked = held & np.isin(groups, groups[~held])
    train, test = np.flatnonzero(~held), np.flatnonzero(held & ~linked)
    tested = [examples[i] for i in test]
    p = {}
    for name, chosen in fits.items():
        design = Design(chosen)
        p[name] = decide(design, fit(design, train, seed), test)
    trial = np.array([trial_calls[e.case_id] for e in tested], dtype=float)
    table = {"the measure": [measure_rows[e.case_id] for e in tested]} | \
        {name: rows_of(tested, scores) for name, scores in p.items()}
    clerk = table["the clerk's ruling"]
    for share in SHARES[1:-1]:
        decided, tried = escalated(tested, p["the clerk's ruling"], p["the clerk and trial ruling"], trial, share)
        table[f"{share:.0%} tried, nearest the clerk's threshold ({tried.sum()} cases)"] = rows_of(tested, decided)
    kind = {e.case_id: "/".join(e.source.split("/")[:2]) for e in tested}
    sources = sorted(set(kind.values()))
    lines = [f"## Held out: {len(tested)} cases never fitted on", "",
             f"Rulings fitted on the {len(train)} other cases, tested once; {int(linked.sum())} held-out cases linked "
             f"to a fitted one (an identical answer or the same question) left out. Sources: "
             + ", ".join(f"{s} {sum(k == s for k in kind.values())}" for s in sources) + ". The primary test, fixed "
             "before these cases' results were read: 10% tried against the clerk's ruling.", "",
             "| | balanced accuracy / AUROC | against the clerk's ruling |", "|---|---|---|"]
    for name, judged in table.items():
        lines.append(f"| {name} | {cell(judged)} | {'' if judged is clerk else against(judged, clerk)} |")
    return lines + [""]


def against_lines(examples: Sequence[Example], other: Sequence[Example], cost: dict[str, tuple[int, int, float]],
                  cost_other: dict[str, tuple[int, int, float]], runs: Sequence[Path], other_run: Path,
                  seed: int) -> list[str]:
    """This court's trial rulings against another court's on the same cases, same folds, paired case by case."""
    names = (" + ".join(r.name for r in runs), other_run.name)
    lines = [f"## Against {other_run}: the same {len(examples)} cases", "",
             "Each run's rulings fitted out of fold on these cases alone (the same folds); McNemar pairs the first "
             "run's ruling with the other's (cases only the first gets right / only the other does).", "",
             f"| | {names[0]} | {names[1]} | paired |", "|---|---|---|---|"]
    for name, chosen in (("the clerk's ruling", clerk_only), ("the bench alone (calibrated)", bench_only),
                         ("the clerk and trial ruling", clerk_and_trial)):
        judged = [rows_of(cases, fit_ruling(chosen(cases), model="paired", court="trial-testimony",
                                            witnesses={"trial": 1}, seed=seed).out_of_fold)
                  for cases in (examples, other)]
        lines.append(f"| {name} | {cell(judged[0])} | {cell(judged[1])} | {against(judged[0], judged[1])} |")
    for label, pick in (("rounds a trial ran (mean over cases)", lambda e: e.values.get("trial.rounds_mean")),):
        means = [np.nanmean([v for e in cases if (v := pick(e)) is not None] or [np.nan]) for cases in (examples, other)]
        lines.append(f"| {label} | {means[0]:.2f} | {means[1]:.2f} | |")
    for i, label in ((1, "trial calls per case"), (2, "seconds per case")):
        means = [np.mean([c[e.case_id][i] for e in examples]) for c in (cost, cost_other)]
        lines.append(f"| {label} | {means[0]:.1f} | {means[1]:.1f} | |")
    return lines + [""]


def juror_lines(runs: Sequence[Path], examples: Sequence[Example]) -> list[str]:
    """Where the bench is a panel of models: each seat's own opinion (its log-odds of `hallucinated`, the case's
    highest over its charges) ranked against the labels, uncalibrated, beside the panel's mean (the testimony)."""
    gold = {e.case_id: e.hallucinated for e in examples}
    seats: dict[str, dict[str, float]] = {}
    for run in runs:
        audit = Audit(run)
        for row in audit.rows():
            if row.case_id not in gold:
                continue
            for e in audit.events(row.case_id):
                if isinstance(e, ModelCallEvent) and e.purpose == "verdict" and e.option_probs:
                    seat = seats.setdefault(e.seat or RunStore(run).manifest().model, {})
                    value = log_odds(e.option_probs.get("hallucinated", 0.0))
                    seat[row.case_id] = max(seat.get(row.case_id, -np.inf), value)
    if len(seats) < 2:
        return []
    seats["the panel's mean (the testimony)"] = {e.case_id: e.values["trial.bench_max"] for e in examples
                                                 if "trial.bench_max" in e.values}
    lines = ["## Each juror alone", "",
             "Each seat's log-odds of `hallucinated`, a case's highest over its charges, uncalibrated: balanced accuracy "
             "at its own P = 0.5, and AUROC [95%] (the ranking, which calibration does not change).", "",
             "| seat | cases | balanced accuracy at P = 0.5 / AUROC | P >= 0.5 in |", "|---|---|---|---|"]
    for seat, scores in seats.items():
        judged = [ResultRow(case_id=c, source="", gold="FAIL" if gold[c] else "PASS",
                            label="FAIL" if v >= 0 else "PASS", score=float(1 / (1 + np.exp(-v))))
                  for c, v in scores.items()]
        lines.append(f"| {seat} | {len(judged)} | {cell(judged)} | "
                     f"{sum(r.label == 'FAIL' for r in judged)} of {len(judged)} |")
    return lines + [""]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--held-out", metavar="RUN=N", help="test once on the cases of RUN after its first N")
    parser.add_argument("--against", metavar="OTHER", type=Path, help="pair with another court's run of the cases")
    args = parser.parse_args()
    command = "PYTHONPATH=. python " + " ".join(shlex.quote(a) for a in sys.argv)
    testified_runs = [testified(run) for run in args.runs]
    measure_rows = {r.case_id: r for run in args.runs for r in Audit(measured(run)).rows() if r.error is None}
    cost = {k: v for run in testified_runs for k, v in calls(run).items()}
    runs = labelled_runs(testified_runs)
    every = [e for e in runs.examples if e.case_id in measure_rows]
    other: list[Example] = []
    if args.against:
        by_id = {e.case_id: e for e in labelled_runs([testified(args.against)]).examples}
        every = [e for e in every if e.case_id in by_id]
        other = [by_id[e.case_id] for e in every]
        cost_other = calls(testified(args.against))
    test_ids = held_out_ids(args.held_out) if args.held_out else set()
    examples = [e for e in every if e.case_id not in test_ids]
    model, witnesses = runs.model, {"trial": 1}
    print(f"{len(examples)} cases of {model}", file=sys.stderr)

    fits = {"the clerk's ruling": clerk_only(examples), "the bench alone (calibrated)": bench_only(examples),
            "the clerk and trial ruling": clerk_and_trial(examples)}
    p, loso = {}, {}
    for name, chosen in fits.items():
        fit = fit_ruling(chosen, model=model, court="trial-testimony", witnesses=witnesses, seed=args.seed)
        p[name] = fit.out_of_fold
        loso[name] = leave_one_source_out(chosen, args.seed)
        print(f"{name}: fitted", file=sys.stderr)
    rows = {"the measure": [measure_rows[e.case_id] for e in examples]}
    rows |= {name: rows_of(examples, scores) for name, scores in p.items()}
    loso_rows = {name: rows_of(examples, scores) for name, scores in loso.items()}
    clerk = rows["the clerk's ruling"]

    groups = {"all": [True] * len(examples)} | {name: [dataset(e) == name for e in examples]
                                                 for name in sorted({dataset(e) for e in examples})}
    most = {RunStore(run).manifest().judge_config["court"]["trial"]["max_rounds"] for run in args.runs}
    rounds = "one round" if most == {1} else f"at most {' or '.join(map(str, sorted(most)))} rounds"
    title = f"# What the trial is worth: {model}" + (", and a check on held-out cases" if test_ids else "")
    lines = [title, "", f"Made by `{command}`.", "",
             f"{len(examples)} cases, every case's three least grounded sentences tried ({rounds}: both sides argue, "
             "the judge rules; both sides polled). Out of fold (5 folds over groups of identical answers and of one "
             "question's answers, stratified by source), balanced accuracy [95% bootstrap] / AUROC [95%]; paired "
             "against the clerk's ruling by McNemar (cases only it gets right / only the clerk's ruling does).", ""]
    for title, table in (("Out of fold", rows), ("Leave one source out", {"the measure": rows["the measure"],
                                                                          **loso_rows})):
        lines += [f"## {title}", "", "| | " + " | ".join(groups) + " | against the clerk's ruling (all) |",
                  "|---" * (len(groups) + 2) + "|"]
        base = table["the clerk's ruling"]
        for name, judged in table.items():
            cells = [cell([r for r, keep in zip(judged, mask) if keep]) for mask in groups.values()]
            lines.append(f"| {name} | " + " | ".join(cells) + f" | {'' if judged is base else against(judged, base)} |")
        lines.append("")
    own, trial, seconds = (np.array([cost[e.case_id][i] for e in examples], dtype=float) for i in range(3))
    lines += [f"Model calls per case: {own.mean():.1f} outside the trials, {trial.mean():.1f} in them "
              f"({(own + trial).mean():.1f} in all); {seconds.mean():.1f} s per case with every charge tried.", "",
              "## Escalation: the cases nearest the clerk's threshold tried first", "",
              "| share of charges tried | cases tried | balanced accuracy / AUROC | against the clerk's ruling | "
              "model calls per case |", "|---|---|---|---|---|"]
    clerk_p, trial_p = p["the clerk's ruling"], p["the clerk and trial ruling"]
    for share in SHARES:
        decided, tried = escalated(examples, clerk_p, trial_p, trial, share)
        judged = rows_of(examples, decided)
        lines.append(f"| {share:.0%} | {tried.sum()} of {len(examples)} | {cell(judged)} | "
                     f"{against(judged, clerk) if share else ''} | {(own + np.where(tried, trial, 0)).mean():.1f} |")
    lines.append("")
    lines += juror_lines(args.runs, examples)
    if other:
        lines += against_lines(examples, other, cost, cost_other, args.runs, args.against, args.seed)
    if test_ids:
        lines += held_out_lines(every, test_ids, measure_rows, {k: float(v[1]) for k, v in cost.items()}, args.seed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
