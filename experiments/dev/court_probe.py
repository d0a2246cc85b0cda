"""Quick probe of a court against rails on a small balanced dev sample (for tuning the court design).

    python experiments/dev/court_probe.py --model qwen2.5-coder-0.5b --n 24 --court default
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

from probe_sample import probe_cases, probe_parser

from courtroom.baselines import RailsJudge
from courtroom.courts import load_court
from courtroom.door.transformers import TransformersBackend
from courtroom.evaluate.metrics import compute_metrics
from courtroom.log.store import summarize


def main() -> None:
    parser = probe_parser(__doc__, n=24)
    parser.add_argument("--court", default="full")
    parser.add_argument("--rails", action="store_true")
    parser.add_argument("--show", type=int, default=3)
    parser.add_argument("--save", default=None, help="write the outcomes to this run directory")
    args = parser.parse_args()
    cases = probe_cases(args)
    backend = TransformersBackend(args.model)
    judges = [load_court(args.court, backend)] + ([RailsJudge(backend)] if args.rails else [])
    for judge in judges:
        backend.stats.__init__()
        start = time.time()
        outcomes = list(judge.run_many(cases))
        wall = time.time() - start
        rows = [summarize(o, "") for o in outcomes]
        if args.save:
            from courtroom.log.store import Manifest, RunStore

            store = RunStore(Path(args.save) / judge.name)
            store.write_manifest(Manifest(name=judge.name, judge=judge.config(), config_hash=judge.config_hash(),
                                          backend=backend.describe()))
            for outcome in outcomes:
                store.write(outcome)
        m = compute_metrics(rows)
        print(f"{judge.name}: wall {wall / len(cases):.1f} s/case, bal.acc {m.balanced_accuracy}, AUROC {m.auroc}, "
              f"confusion {m.confusion}, charges/case {m.charges_per_case:.2f}, rounds/charge {m.rounds_per_charge:.2f}, "
              f"computed prompt/case {m.computed_prompt_tokens_per_case:.0f}, completion/case "
              f"{m.completion_tokens_per_case:.0f}", flush=True)
        print("   backend", dataclasses.asdict(backend.stats), flush=True)
        for outcome in outcomes[: args.show]:
            print("  ---", outcome.case.id, outcome.case.label, "->", outcome.verdict and outcome.verdict.label,
                  outcome.verdict and round(outcome.verdict.score, 3))
            for e in outcome.events:
                if e.event == "charges":
                    print("    charges:", [c.quote[:60] for c in e.charges], "dropped:",
                          [(d.quote[:40], d.reason) for d in e.dropped][:4])
                if e.event == "move":
                    print(f"    {e.role} {e.move} {e.move_probs and {k: round(v, 2) for k, v in e.move_probs.items()}}"
                          f" {str(e.payload)[:150]}")
                if e.event == "ruling":
                    print(f"    ruling {e.ruling.verdict.value} p={e.ruling.p_hallucinated:.2f} ({e.ruling.source})")


if __name__ == "__main__":
    main()
