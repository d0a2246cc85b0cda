"""How the default court's cost grows with the answer (#43: it was quadratic again, 70 s of CPU for 8,000 sentences).

The default court (every witness heard) judges answers of 500 to 8,000 short sentences on the deterministic
pseudo-model, each in the same process one after the other; the CPU time per sentence should stay flat (within 2x
from the shortest to the longest). The pseudo-model's own scoring is part of the time: it is linear too.

Usage: python benchmarks/bench_long_answers.py [--sizes 500 1000 2000 4000 8000]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from courtroom.courts import load_court  # noqa: E402
from courtroom.door import PseudoModel, ScriptedBackend  # noqa: E402
from tests.helpers.cases import long_case  # noqa: E402

RESULTS = HERE / "results" / "long_answers.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 1000, 2000, 4000, 8000])
    args = parser.parse_args()
    court = load_court("default", ScriptedBackend(PseudoModel()))
    court.judge(long_case(50))  # warm up: imports, compiled patterns
    rows = []
    for n in args.sizes:
        case = long_case(n)
        start = time.process_time()
        court.judge(case)
        seconds = time.process_time() - start
        rows.append({"sentences": n, "cpu_s": seconds, "ms_per_sentence": 1000 * seconds / n})
        print(f"{n:6d} sentences: {seconds:7.2f} s CPU, {1000 * seconds / n:.2f} ms a sentence", flush=True)
    per = [r["ms_per_sentence"] for r in rows]
    report = {"court": "default", "backend": "pseudo-model", "rows": rows, "spread": max(per) / min(per)}
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")
    print(f"time per sentence, longest over shortest: {rows[-1]['ms_per_sentence'] / rows[0]['ms_per_sentence']:.2f}; "
          f"max over min: {report['spread']:.2f} (target <= 2)")


if __name__ == "__main__":
    main()
