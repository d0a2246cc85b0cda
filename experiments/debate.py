"""The trials measured (#44): debate courts on 50 HaluBench dev cases, beside the clerk, the single judge of each model
and a majority vote, each court's agents alone and its gain over the clerk, from the same runs.

    python experiments/debate.py run [NAME ...]     # every configuration (or those named), resumable
    python experiments/debate.py report             # the table, into experiments/results/debate/README.md

The 50 cases are the first 25 hallucinated and 25 faithful of the 200-case evaluation sample of halubench-dev (seed
0, balanced), whose clerk thresholds were tuned on other cases (`experiments/run_matrix.py --tag tune`): nothing a
court decides by was fitted on them, and the baselines' committed runs of that sample cover them. The cases are
written to the cache (never committed); the runs' rows and manifests are committed under experiments/results/debate/
(transcripts, which hold the data's text, are not).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from courtroom.door.models import cache_dir
from courtroom.evaluate.comparison import Contender, compare, debate_gain
from courtroom.evaluate.metrics import compute_metrics, metrics_by_source
from courtroom.evaluate.results import ResultRow, trials
from courtroom.evaluate.selection import CaseSelection
from courtroom.evaluate.thresholds import calibrated_rows
from courtroom.log.manifest import RunSpec
from courtroom.log.store import RunStore
from courtroom.runs.start import start_run

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "debate"
DEV = HERE.parents[1] / "shared" / "data" / "halubench-dev.jsonl"
PER_LABEL = 25
SMALL, MID, LARGE = "default", "qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"


@dataclass(frozen=True)
class Config:
    """One measured configuration: a judge (a court, or a baseline) on a model, with settings changed."""

    what: str
    model: str = SMALL
    court: str = "full"
    judge: str = "courtroom"
    overrides: dict[str, Any] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)
    dtype: str = "auto"
    """auto: bfloat16 on this CPU (0.68 of float32's time, benchmarks/bench_dtype.py)."""


ONE = {"max_charges": 1}
"""Every court tries one charge a case, the least grounded statement: the budget of this machine (2 CPU cores)."""
ROUNDS = {**ONE, "trial.max_rounds": 3}
"""`full` before these measurements: up to 3 rounds."""
TODAY = {**ROUNDS, "trial.exchange_rounds": 0}
RULES = {**ONE, "trial.max_rounds": 1}
"""One round that must end in the bench's ruling (the exchange covers it): the agents' verdict is the judge's own, and
`full` as shipped since (these numbers decided it)."""
CONFIGS: dict[str, Config] = {
    "full-today-135m": Config("(a) full as shipped before (no exchange), SmolLM2-135M", overrides=TODAY,
                              dtype="float32"),  # begun while auto meant float32 on a CPU
    "full-135m": Config("(b) full with one round of exchange, then up to 3, SmolLM2-135M", overrides=ROUNDS),
    "ruling-135m": Config("(b) one round, the judge must rule (full as shipped now), SmolLM2-135M", overrides=RULES),
    "strong-debaters-blind": Config("(c) 0.5B clerk and debaters, SmolLM2 judge, blind, must rule", model=MID,
                                    overrides={**RULES, "trial.models.judge": SMALL, "trial.blind_judge": True}),
    "ruling-0.5b": Config("(b) one round, the judge must rule, Qwen2.5-Coder-0.5B", model=MID, overrides=RULES),
    "strong-debaters": Config("(c) 0.5B clerk and debaters, SmolLM2 judge, must rule", model=MID,
                              overrides={**RULES, "trial.models.judge": SMALL}),
    "ruling-statements-135m": Config("(b') one round, statements before moves, the judge must rule, SmolLM2-135M",
                                     overrides={**RULES, "trial.turns": "statement-first"}),
    "jury-of-three": Config("(d) jury of SmolLM2, 0.5B and 1.5B; 0.5B clerk and debaters, must rule", model=MID,
                            court="jury", overrides={**RULES, "trial.models.jury": [SMALL, MID, LARGE]}),
}
"""The courts measured here (run by this script)."""
REFERENCES = {
    "single-135m": "default/halubench-single", "vote-135m": "default/halubench-vote",
    "single-0.5b": "qwen2.5-coder-0.5b/halubench-single", "vote-0.5b": "qwen2.5-coder-0.5b/halubench-vote",
    "single-1.5b": "qwen2.5-coder-1.5b/halubench-single",
    "clerk-135m": "default/halubench-courtroom", "clerk-0.5b": "qwen2.5-coder-0.5b/halubench-courtroom",
}
"""The baselines, from the committed runs of the 200-case sample (experiments/run_matrix.py) on these 50 cases: the
single judge of each model, the majority of 5 sampled single judges, and the clerk (the default court of those
runs; each court below also records its own measurement's verdict on the same calls, `measurement`)."""


def cases_file() -> Path:
    """The 50 cases, written once to the cache: the first of each label in the 200-case evaluation sample."""
    path = cache_dir() / "experiments" / f"halubench-debate-{2 * PER_LABEL}.jsonl"
    if not path.is_file():
        sample = CaseSelection(dataset=str(DEV), limit=200, balanced=True, seed=0).cases()
        fail, passed = ([c for c in sample if c.label == label][:PER_LABEL] for label in ("FAIL", "PASS"))
        chosen = [c for pair in zip(fail, passed) for c in pair]  # alternating: a run stopped early stays balanced
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(c.model_dump_json(exclude_none=True) + "\n" for c in chosen))
    return path


def run(names: list[str]) -> None:
    dataset = str(cases_file())
    for name in names or list(CONFIGS):
        config = CONFIGS[name]
        options = {**config.options, **({"overrides": config.overrides} if config.overrides else {})}
        spec = RunSpec.build(dataset, judge=config.judge, court=config.court, model=config.model,
                             judge_options=options, window=4, dtype=config.dtype)
        started = time.time()
        current = start_run(spec, RESULTS / name)
        print(f"[{time.strftime('%H:%M:%S')}] {name}: {len(current.remaining)} of {len(current.cases)} to judge",
              flush=True)
        rows = current.execute()
        current.close()
        print(f"[{time.strftime('%H:%M:%S')}] {name}: done in {time.time() - started:.0f} s; "
              f"{compute_metrics(rows).balanced_accuracy}", flush=True)


def _ba(rows: list[ResultRow]) -> str:
    ba = compute_metrics(rows).balanced_accuracy
    if ba.value is None:  # a run begun, with one label judged so far
        return "-"
    return f"{ba.value:.3f} [{ba.low:.2f}, {ba.high:.2f}]" + ("" if len(rows) >= 2 * PER_LABEL else f" ({len(rows)} cases)")


def _two(metrics: Any) -> str:
    """A balanced accuracy to two places, `-` where one label is missing."""
    value = metrics.balanced_accuracy.value
    return "-" if value is None else f"{value:.2f}"


def _auroc(rows: list[ResultRow]) -> str:
    value = compute_metrics(rows).auroc.value
    return "-" if value is None else f"{value:.3f}"


def report() -> str:
    """The measurement table, the trials' diagnostics and per-source results, as markdown."""
    lines = ["# The trials measured (#44)", "",
             f"{2 * PER_LABEL} HaluBench dev cases (`experiments/debate.py`; the first {PER_LABEL} of each label of the "
             "200-case evaluation sample, seed 0). Balanced accuracy with its 95% bootstrap interval; *agents alone* is "
             "the court's verdict from its agents' rulings with no measured evidence weighed, *gain over the clerk* "
             "the court's balanced accuracy minus its own measurement's on the same calls (paired bootstrap interval); "
             "*agents, calibrated*: the agents' verdicts at the threshold that maximises balanced accuracy on the other "
             "four fifths of the cases (5-fold, as `courtroom compare --calibrated`). "
             "Cost: model calls and model seconds per case on this machine's 2 CPU cores.", "",
             "| configuration | court BA | AUROC | agents alone BA | agents AUROC | agents, calibrated | gain over the "
             "clerk | bench rules | withdrawn / conceded | calls/case | s/case |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    done: dict[str, list[ResultRow]] = {}
    ids = {json.loads(line)["id"] for line in cases_file().read_text().splitlines()}
    for name, where in REFERENCES.items():
        rows = [r for r in RunStore(HERE / "results" / where).rows() if r.case_id in ids]
        done[name] = rows
        m = compute_metrics(rows)
        lines.append(f"| {name}: `{where}` | {_ba(rows)} | {_auroc(rows)} | | | | | | | "
                     f"{sum(r.model_calls for r in rows) / len(rows):.1f} | {m.seconds_per_case:.1f} |")
    for name, config in CONFIGS.items():
        if not (RESULTS / name / "results.jsonl").is_file():
            continue
        rows = RunStore(RESULTS / name).rows()
        done[name] = rows
        m = compute_metrics(rows)
        agents = [r.model_copy(update={"label": r.variants["agents only"].label, "score": r.variants["agents only"].score})
                  for r in rows if "agents only" in r.variants]
        gain = debate_gain(Contender.of(name, rows))
        measured = next((p for p in gain.pairings if p.name == "measurement only"), None) if gain else None
        held = trials(rows)
        by = held.ended_by() if held else {}
        tried = held.total.tried if held else 0
        bench = f"{(by.get('judge', 0) + by.get('jury', 0)) / tried:.0%} of {tried}" if tried else "-"
        gave_up = f"{by.get('withdrawn', 0)} / {by.get('conceded', 0)}" if tried else "-"
        gain_text = ("-" if measured is None or measured.difference is None else
                     f"{measured.difference:+.3f} [{measured.low:+.2f}, {measured.high:+.2f}]")  # court - measurement
        lines.append(f"| {name}: {config.what} | {_ba(rows)} | {_auroc(rows)} | {_ba(agents) if agents else '-'} | "
                     f"{_auroc(agents) if agents else '-'} | {_ba(calibrated_rows(agents)) if agents else '-'} | "
                     f"{gain_text} | {bench} | {gave_up} | "
                     f"{sum(r.model_calls for r in rows) / len(rows):.1f} | {m.seconds_per_case:.1f} |")
    lines += ["", "## How the trials went", ""]
    for name, rows in done.items():
        if (held := trials(rows)) is not None:
            lines += [f"**{name}**: " + "; ".join(held.lines()), ""]
    lines += ["## The agents alone on the cases tried", "",
              "*Agents alone* above counts the cases with no charge too, whose verdict is then the measurement's; here "
              "only the cases whose charge was tried: the bench's own opinion against the measurement's on the same "
              "charges (AUROC), and the bench at a calibrated threshold (5-fold).", "",
              "| configuration | cases tried (hallucinated) | agents AUROC | agents, calibrated BA | measurement AUROC |",
              "|---|---|---|---|---|"]
    for name, rows in done.items():
        tried = [r for r in rows if r.trial is not None and r.trial.tried and "agents only" in r.variants]
        if not tried:
            continue
        agents = [r.model_copy(update={"label": r.variants["agents only"].label, "score": r.variants["agents only"].score})
                  for r in tried]
        measured = [r.model_copy(update={"label": r.variants["measurement only"].label,
                                         "score": r.variants["measurement only"].score}) for r in tried]
        lines.append(f"| {name} | {len(tried)} ({sum(r.gold == 'FAIL' for r in tried)}) | {_auroc(agents)} | "
                     f"{_ba(calibrated_rows(agents))} | {_auroc(measured)} |")
    lines += ["", "## Per source (court / agents alone, balanced accuracy)", ""]
    sources = sorted({r.source for rows in done.values() for r in rows})
    lines += ["| configuration | " + " | ".join(sources) + " |", "|---|" + "---|" * len(sources)]
    for name, rows in done.items():
        court = metrics_by_source(rows)
        agents = metrics_by_source([r.model_copy(update={"label": r.variants["agents only"].label})
                                    for r in rows if "agents only" in r.variants])
        cells = [_two(court[s]) + (f" / {_two(agents[s])}" if s in agents else "") if s in court else "-"
                 for s in sources]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    paired = [Contender.of(n, r) for n, r in done.items()]
    if len(paired) > 1:
        comparison = compare(paired)
        lines += ["", f"## Paired with {paired[0].name} (balanced accuracy difference, McNemar)", "",
                  "| run | cases | difference [95% CI] | p |", "|---|---|---|---|"]
        lines += [f"| {p.name} | {p.shared} | " + ("-" if p.difference is None else
                                                     f"{p.difference:+.3f} [{p.low:+.2f}, {p.high:+.2f}]")
                  + f" | {p.p_value:.3g} |" for p in comparison.pairings]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=["run", "report"])
    parser.add_argument("names", nargs="*", default=[], help=f"configurations: {', '.join(CONFIGS)}")
    args = parser.parse_args()
    if unknown := [n for n in args.names if n not in CONFIGS]:
        parser.error(f"unknown configurations {unknown}; known: {', '.join(CONFIGS)}")
    if args.action == "run":
        run(args.names)
    else:
        text = report()
        (RESULTS / "README.md").write_text(text)
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
