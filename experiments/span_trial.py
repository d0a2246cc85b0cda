"""The span trial over the witnesses' spans, out of fold (#32): does the trial point at the false words better than
the clerk's charged sentences, and than the witnesses' own spans it tries?

    # 1. the rulings the fit scores its folds with, and each fold's hallucinated RAGTruth rows
    PYTHONPATH=. python experiments/span_trial.py prepare RUN [RUN ...] --data ../shared/data/ragtruth-spans-dev.jsonl \
        --out DIR
    # 2. the commands it prints: each fold's rows tried by the pointing court (`witnesses.trial_charges: spans`)
    #    with the ruling that never saw them
    # 3. the scores, against the same fit's out-of-fold sentences and words
    PYTHONPATH=. python experiments/span_trial.py score RUN [RUN ...] --trials DIR --out OUT.md

    # or, for rows a shipped ruling never saw (the hallucinated rows of DATA that RUN, its fit's run, left out):
    # the span trial's run of them, and the same run decided again without the trial (no model call: the
    # witnesses' spans), scored side by side
    PYTHONPATH=. python experiments/span_trial.py unseen RUN --data DATA --out ROWS.jsonl
    courtroom run ROWS.jsonl --model MODEL --court default --set witnesses.trial=true \
        --set witnesses.trial_charges=spans --out TRIAL
    courtroom rejudge TRIAL --set witnesses.trial=false --out WITNESSES
    PYTHONPATH=. python experiments/span_trial.py score-runs --witnesses WITNESSES --trial TRIAL --out OUT.md

    # a setting measured on a finished trial run without running it all again (`witnesses.quote_check=strict`): the
    # rows it changes (those needing a call the run never made), run again; the rest decided again from the run
    PYTHONPATH=. python experiments/span_trial.py changed RUN --set witnesses.quote_check=strict --data ROWS.jsonl \
        --out CHANGED.jsonl
    courtroom run CHANGED.jsonl ...the run's own options... --set witnesses.quote_check=strict --out AGAIN
    courtroom rejudge RUN --set witnesses.trial=true --set witnesses.quote_check=strict --calls-from AGAIN --out NEW

    # where the witnesses' spans lose F1 (the answers found faithful; a perfect filter of false spans)
    PYTHONPATH=. python experiments/span_trial.py bounds RUN [RUN ...] --trials DIR

RUN: the default court's runs on both dev files with the words' states recorded (`witnesses.word_states=true`), as
for the shipped ruling. Every span is predicted by a ruling, word probe and span model that never saw its case.
"""

from __future__ import annotations

import argparse
import json
import pickle
import shlex
import sys
from pathlib import Path

import yaml

from courtroom.court.spec import parse_override
from courtroom.evaluate.datasets import row_to_case
from courtroom.evaluate.fit_ruling import Example, RulingFit, fold_rulings
from courtroom.evaluate.spans import SpanCase, counts, paired_f1_difference, pooled, prf, span_cells, span_scores
from courtroom.log.audit import Audit
from courtroom.log.rejudge import refused_cases, rejudged_judge
from courtroom.log.ruling_calibrate import calibrate_ruling, labelled_runs
from courtroom.log.store import RunStore
from courtroom.witness.registry import WITNESSES


def prepare(args: argparse.Namespace) -> None:
    runs = labelled_runs(args.runs)
    witnesses = runs.court.spec.witnesses
    assert witnesses is not None
    heard = {k.split(".")[0] for e in runs.examples for k in e.values}
    versions = {name: WITNESSES[name].version for name in witnesses.heard if name in heard or name in
                {"lookback", "hidden"} & {k for e in runs.examples for k in e.vectors}}
    command = "PYTHONPATH=. python experiments/span_trial.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    folds = fold_rulings(runs.examples, model=runs.model, court=runs.court.spec.name, witnesses=versions,
                         hidden_depth=witnesses.hidden_depth, command=command)
    ids, rows = zip(*_rows(args.data))
    out = Path(args.out)
    for k, (fold_ids, ruling) in enumerate(folds):
        where = out / f"fold-{k}"
        where.mkdir(parents=True, exist_ok=True)
        (where / "ruling.yaml").write_text(yaml.safe_dump(ruling.model_dump(mode="json"), sort_keys=False, width=120))
        chosen = [row for row, i in zip(rows, ids) if i in set(fold_ids) and row["label"] == "FAIL"]
        (where / "cases.jsonl").write_text("".join(json.dumps(r) + "\n" for r in chosen))
        print(f"courtroom run {where}/cases.jsonl --model {runs.model} --court default --set witnesses.trial=true "
              f"--set witnesses.trial_charges=spans "
              f"--set 'witnesses.rulings={{{runs.model}: {(where / 'ruling.yaml').resolve()}}}' --out {where}/run")


def _spans(audit: Audit, e: Example) -> tuple[list[tuple[int, int, float]], list[tuple[int, int, float]]]:
    """The trial's spans and the sentences its run charged, in the example's answer's characters."""
    row = next((r for r in audit.rows() if r.case_id == e.case_id), None)
    if row is None or row.label != "FAIL":
        return [], []
    assert e.spans is not None
    return ([(a - e.spans.offset, b - e.spans.offset, s) for a, b, s in (row.spans or [])],
            _charged(audit, e.case_id, e.spans.answer))


def _fit(runs: list[str], trials: str) -> RulingFit:
    """The fit of the runs, kept beside the trials and reused when they are scored again."""
    cache = Path(trials) / "fit.pickle"
    if cache.exists():
        return pickle.loads(cache.read_bytes())
    fit, _ = calibrate_ruling(runs)
    cache.write_bytes(pickle.dumps(fit))
    return fit


def score(args: argparse.Namespace) -> None:
    fit = _fit(args.runs, args.trials)
    trials = {}
    for run in sorted(Path(args.trials).glob("fold-*/run*")):
        audit = Audit(run)
        trials.update({r.case_id: audit for r in audit.rows()})
    order = [e for e in fit.examples if e.spans is not None]
    gold_of = {e.case_id: [g.model_copy(update={"start": g.start - e.spans.offset, "end": g.end - e.spans.offset})
                           for g in e.spans.gold] for e in order if e.spans is not None}
    missing = [e.case_id for e in order if e.hallucinated and e.case_id not in trials]
    tried = [i for i, e in enumerate(order) if e.hallucinated and e.case_id in trials]  # every way on the same answers
    ways: dict[str, list[SpanCase]] = {"sentences": [], "words": [], "trial": [], "sentences, trial run": []}
    for i in tried:
        e = order[i]
        ways["sentences"].append(fit.span_cases["sentences"][i])
        ways["words"].append(fit.span_cases["words"][i])
        trial, charged = _spans(trials[e.case_id], e)
        assert e.spans is not None
        ways["trial"].append(SpanCase(e.spans.answer, gold_of[e.case_id], trial))
        ways["sentences, trial run"].append(SpanCase(e.spans.answer, gold_of[e.case_id], charged))
    lines = _report("out of fold", f"Runs {', '.join(args.runs)}; trials {args.trials} ({len(tried)} hallucinated answers"
                    + (f"; {len(missing)} not tried yet, left out of every row" if missing else "") + ")", ways,
                    [("trial", "sentences"), ("trial", "sentences, trial run"), ("trial", "words"),
                     ("words", "sentences")])
    lines += ["", *_turns(trials, [order[i].case_id for i in tried])]
    Path(args.out).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def bounds(args: argparse.Namespace) -> None:
    """Where the witnesses' spans lose F1: the hallucinated answers the ruling finds faithful (no span), the spans'
    scores on the others, and the F1 a perfect filter of false spans would leave (the most an acquitting trial does)."""
    fit = _fit(args.runs, args.trials)
    order = [e for e in fit.examples if e.spans is not None]
    words = [fit.span_cases["words"][i] for i, e in enumerate(order)
             if e.hallucinated and any(not g.implicit_true for g in e.spans.gold)]

    def f1(cases: list[SpanCase]) -> str:
        return "P {:.3f} R {:.3f} F1 {:.3f}".format(*prf(pooled([counts(c, "token") for c in cases])))

    pointed = [c for c in words if c.predicted]
    filtered = [SpanCase(c.answer, c.gold, [p for p in c.predicted if any(p[0] < g.end and p[1] > g.start
                                                                           for g in c.gold)]) for c in words]
    print(f"{len(words)} hallucinated answers with gold spans; {len(words) - len(pointed)} found faithful (no span)")
    print(f"witnesses' spans, all: {f1(words)}")
    print(f"witnesses' spans, the answers found hallucinated: {f1(pointed)}")
    print(f"every span touching no gold span dropped: {f1(filtered)}")


def _rows(data: str) -> list[tuple[str, dict]]:
    """The rows of a JSONL data file, each with its case's id."""
    rows = [json.loads(line) for line in Path(data).read_text().splitlines() if line.strip()]
    return [(row_to_case(row, f"{data}:{n + 1}").id, row) for n, row in enumerate(rows)]


def unseen(args: argparse.Namespace) -> None:
    """The hallucinated rows of the data that a run (the one a shipped ruling was fitted on) did not judge."""
    seen = {r.case_id for r in Audit(args.run).rows()}
    chosen = [row for case_id, row in _rows(args.data) if row["label"] == "FAIL" and case_id not in seen]
    Path(args.out).write_text("".join(json.dumps(r) + "\n" for r in chosen))
    print(f"{len(chosen)} hallucinated rows of {args.data} that {args.run} did not judge -> {args.out}")


def changed(args: argparse.Namespace) -> None:
    """The rows of the data (the run's cases) that the run, with the settings changed, cannot decide from its
    transcripts: the rows the settings change, to run again with the model."""
    judge = rejudged_judge(RunStore(args.run).manifest(), overrides=dict(parse_override(s) for s in args.set))
    refused = set(refused_cases(args.run, judge=judge))
    chosen = [row for case_id, row in _rows(args.data) if case_id in refused]
    if len(chosen) != len(refused):
        sys.exit(f"{args.data} lacks {len(refused) - len(chosen)} of the {len(refused)} cases the settings change")
    Path(args.out).write_text("".join(json.dumps(r) + "\n" for r in chosen))
    print(f"{len(chosen)} of the cases of {args.run} change under {' '.join(args.set)} -> {args.out}")


def _charged(audit: Audit, case_id: str, answer: str) -> list[tuple[int, int, float]]:
    """The sentences a run's verdict charged, in the answer's characters, with the clerk's P(suspect)."""
    verdict = next(x.verdict for x in audit.events(case_id) if x.event == "verdict")
    found = [(answer.find(c.quote), c.quote, c.p_suspect or 0.0) for c in verdict.charges]
    return [(a, a + len(q), p) for a, q, p in found if a >= 0]


def score_runs(args: argparse.Namespace) -> None:
    """The span trial scored against the clerk's sentences and the witnesses' spans on the same hallucinated answers:
    the court's run (`--witnesses`) and the span trial's (`--trial`) of the same rows, e.g. rows its ruling never
    saw."""
    court, trial = Audit(args.witnesses), Audit(args.trial)
    tried = {r.case_id: r for r in trial.rows() if r.error is None and r.spans is not None and r.gold == "FAIL"}
    ways: dict[str, list[SpanCase]] = {"sentences": [], "witnesses' spans": [], "trial": [],
                                       "sentences, trial run": []}
    left = []
    for row in court.rows():
        if row.case_id not in tried or row.error is not None or row.spans is None or not row.gold_spans:
            left.append(row.case_id)
            continue
        answer = court.store.case(row.case_id).answer
        gold = row.gold_spans
        ways["sentences"].append(SpanCase(answer, gold, _charged(court, row.case_id, answer)))
        ways["witnesses' spans"].append(SpanCase(answer, gold, row.spans))
        ways["trial"].append(SpanCase(answer, gold, tried[row.case_id].spans or []))
        ways["sentences, trial run"].append(SpanCase(answer, gold, _charged(trial, row.case_id, answer)))
    lines = _report("on rows its ruling never saw",
                    f"The court's run {args.witnesses}, the span trial's {args.trial}: {len(ways['trial'])} "
                    "hallucinated answers"
                    + (f" ({len(left)} left out: not in both runs, failed, or without gold spans)" if left else ""),
                    ways, [("trial", "sentences"), ("trial", "witnesses' spans"), ("witnesses' spans", "sentences")])
    lines += ["", *_turns({i: trial for i in tried}, list(tried))]
    Path(args.out).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def _report(title: str, what: str, ways: dict[str, list[SpanCase]], pairs: list[tuple[str, str]]) -> list[str]:
    """The scores' page: its command, what was scored, each way's span scores and the paired differences."""
    command = "PYTHONPATH=. python experiments/span_trial.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    lines = [f"# The span trial over the witnesses' spans, {title}", "", f"`{command}`", "",
             f"{what}. Token level, on hallucinated answers.", "",
             "| spans from | P | R | F1 [95%] | char F1 | hit@1 [95%] |", "|---|---|---|---|---|---|"]
    lines += [f"| {name} | {span_cells(span_scores(found))} |" for name, found in ways.items()]
    lines.append("")
    for a, b in pairs:
        d = paired_f1_difference(ways[a], ways[b])
        lines.append(f"Token F1, {a} - {b}: {d[0]:+.3f} [{d[1]:+.3f}, {d[2]:+.3f}] (paired bootstrap).")
    return lines


def _turns(trials: dict[str, Audit], case_ids: list[str]) -> list[str]:
    """What the parties did: counts tried, quotes verified, the judge's calibrated rulings."""
    counts = verified = convicted = named = 0
    judge: list[float] = []
    for case_id in case_ids:
        if case_id not in trials:
            continue
        for x in trials[case_id].events(case_id):
            if x.event != "move":
                continue
            if x.node == "prosecution":
                named += x.payload.get("words") != "(none)"
            elif x.node == "bench":
                counts += 1
                verified += "verified" in (x.finding or "")
                convicted += (x.finding or "").endswith("convicted")
                judge.append(float((x.choice_probs or {}).get("hallucinated", 0.5)))
    mean = sum(judge) / len(judge) if judge else float("nan")
    return [f"The trial: {counts} counts tried (the witnesses' strongest spans, and the words the prosecutor named in "
            f"{named} charged sentences where they found none); "
            f"{verified} acquitted by a verified quote; {convicted} convicted; the judge's calibrated P(hallucinated) "
            f"averaged {mean:.2f}."]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="step", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("runs", nargs="+")
    p.add_argument("--data", required=True)
    p.add_argument("--out", required=True)
    s = sub.add_parser("score")
    s.add_argument("runs", nargs="+")
    s.add_argument("--trials", required=True)
    s.add_argument("--out", required=True)
    u = sub.add_parser("unseen")
    u.add_argument("run")
    u.add_argument("--data", required=True)
    u.add_argument("--out", required=True)
    r = sub.add_parser("score-runs")
    r.add_argument("--witnesses", required=True, help="the court's run of the rows (the witnesses' spans)")
    r.add_argument("--trial", required=True, help="the span trial's run of the same rows")
    r.add_argument("--out", required=True)
    c = sub.add_parser("changed")
    c.add_argument("run")
    c.add_argument("--set", action="append", required=True, help="a court setting, as courtroom rejudge --set")
    c.add_argument("--data", required=True, help="the rows the run judged")
    c.add_argument("--out", required=True)
    b = sub.add_parser("bounds", help="where the witnesses' spans lose F1 (the fit kept beside the trials)")
    b.add_argument("runs", nargs="+")
    b.add_argument("--trials", required=True)
    args = parser.parse_args()
    {"prepare": prepare, "score": score, "unseen": unseen, "score-runs": score_runs, "changed": changed,
     "bounds": bounds}[args.step](args)


if __name__ == "__main__":
    main()
