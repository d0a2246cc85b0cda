"""Choose a court's escalation band on a full-trial dev run (#21: escalation).

    PYTHONPATH=. python experiments/dev/escalation_band.py RUN_DIR [--grid 0.1 0.2 ... 0.9] [--max-cost 1.5]

Every band [low, high] of the grid decides the run again through `rejudge` (exact: the recorded calls, only the
trials the band asks for), with no model call. For each band: the balanced accuracy, the share of charges tried,
and the model time per case against the measurement alone (every charge decided by its measurement: the band
that tries nothing). Prints the bands by balanced accuracy and the best within `--max-cost` of the measurement's
time. Run it on dev cases outside the evaluation sample, then set the band in the court file.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from courtroom.evaluate.metrics import compute_metrics
from courtroom.evaluate.results import escalation
from courtroom.log.rejudge import rejudge_run, rejudged_judge
from courtroom.log.store import RunStore


def decide(run: str, low: float | None, high: float | None, scratch: Path) -> tuple[float, float, float]:
    """Balanced accuracy, share of charges tried and model seconds per case of the run decided with this band
    (no band: the measurement decides every charge)."""
    band = {"tries": "nothing"} if low is None or high is None else {"low": low, "high": high}
    out = scratch / ("nothing" if low is None else f"band-{low:g}-{high:g}")
    if out.exists():  # a band asked twice (the grid's ends) is decided once
        rows = RunStore(out).rows()
    else:
        judge = rejudged_judge(RunStore(run).manifest(), overrides={"escalation": band})
        rows = rejudge_run(run, out, judge=judge)
    held = escalation(rows)
    assert held is not None
    return compute_metrics(rows, resamples=0).balanced_accuracy.value, held.share, held.seconds_per_case

def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", help="a finished courtroom run recorded with full trials (no escalation)")
    parser.add_argument("--grid", type=float, nargs="+", default=[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9])
    parser.add_argument("--max-cost", type=float, default=1.5, help="model time allowed, times the measurement's")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        base_accuracy, _, base_seconds = decide(args.run, None, None, scratch)  # the measurement alone
        full_accuracy, _, full_seconds = decide(args.run, 0.0, 1.0, scratch)  # tries every charge
        bands = [(low, high, *decide(args.run, low, high, scratch))
                 for low in [0.0, *args.grid] for high in [*args.grid, 1.0] if low < high]
    print(f"measurement alone: bal. acc {base_accuracy:.3f}, {base_seconds:.2f} s/case; "
          f"every charge tried: {full_accuracy:.3f}, {full_seconds:.2f} s/case")
    print("low   high  bal.acc  tried  cost (x measurement)")
    ranked = sorted(bands, key=lambda b: (-b[2], b[4]))
    for low, high, accuracy, share, seconds in ranked[:15]:
        print(f"{low:<5g} {high:<5g} {accuracy:.3f}    {share:5.1%}  {seconds / base_seconds:.2f}")
    affordable = [b for b in ranked if b[4] <= args.max_cost * base_seconds]
    if affordable:
        low, high, accuracy, share, seconds = affordable[0]
        print(f"best within {args.max_cost:g}x the measurement's time: escalation: {{low: {low:g}, high: {high:g}}} "
              f"(bal. acc {accuracy:.3f}, {share:.1%} of charges tried, {seconds / base_seconds:.2f}x)")


if __name__ == "__main__":
    main()
