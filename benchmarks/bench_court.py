"""Speed of the court (issue 5), measured side by side in one run per model on HaluBench dev cases.

1. prompt tokens actually computed per case / unique prompt tokens of the case (the size of the token
   trie of all the case's prompts); a naive court recomputes every prompt (reported too);
2. courtroom wall time per case / rails-judge wall time per case, same model, same cases;
3. a lockstep batch of 8 cases vs one case at a time: cases per minute;
4. early stopping: mean rounds per charge, and the tokens saved against always holding every round.

Usage: python benchmarks/bench_court.py --model default --cases 30 [--court full]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from courtroom.baselines import RailsJudge
from courtroom.courts import load_court
from courtroom.door.requests import ChatMessage, GenerationRequest
from courtroom.door.transformers import TransformersBackend
from courtroom.evaluate.datasets import load_file
from courtroom.evaluate.selection import select

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "halubench-dev.jsonl"


def trie_size(sequences: list[list[int]]) -> int:
    """Distinct prefixes (nodes) of a set of token sequences: the tokens a perfect cache computes once."""
    root: dict[int, Any] = {}
    nodes = 0
    for seq in sequences:
        node = root
        for token in seq:
            if token not in node:
                node[token] = {}
                nodes += 1
            node = node[token]
    return nodes


def case_prompts(events: list[Any]) -> list[tuple[Any, ...]]:
    prompts = {e.hash: ChatMessage(role=e.role, content=e.content) for e in events if e.event == "prompt"}
    return [tuple(prompts[h] for h in e.messages) for e in events if e.event == "model_call"]


def token_accounting(outcomes: list[Any], backend: TransformersBackend) -> dict[str, float]:
    computed = unique = total = 0
    for outcome in outcomes:
        calls = [e for e in outcome.events if e.event == "model_call"]
        computed += sum(c.prompt_tokens - c.cached_prompt_tokens for c in calls)
        total += sum(c.prompt_tokens for c in calls)
        sequences = [backend.tokenize(GenerationRequest(messages=m, output_type=str)) for m in case_prompts(outcome.events)]
        unique += trie_size(sequences)
    return {"computed_per_case": computed / len(outcomes), "unique_per_case": unique / len(outcomes),
            "naive_per_case": total / len(outcomes), "computed_over_unique": computed / unique,
            "naive_over_unique": total / unique}


def early_stopping(outcomes: list[Any], max_rounds: int) -> dict[str, float]:
    rounds, per_round_tokens, saved = [], [], 0.0
    for outcome in outcomes:
        calls = [e for e in outcome.events if e.event == "model_call" and e.charge is not None]
        for ruling in (outcome.verdict.rulings if outcome.verdict else []):
            charge_calls = [c for c in calls if c.charge == ruling.charge]
            tokens = sum(c.prompt_tokens - c.cached_prompt_tokens + c.completion_tokens for c in charge_calls)
            rounds.append(ruling.rounds)
            per_round = tokens / max(ruling.rounds, 1)
            per_round_tokens.append(per_round)
            saved += per_round * (max_rounds - ruling.rounds)
    spent = sum(p * r for p, r in zip(per_round_tokens, rounds))
    return {"charges": len(rounds), "mean_rounds_per_charge": sum(rounds) / len(rounds) if rounds else 0.0,
            "max_rounds": max_rounds, "trial_tokens": spent, "tokens_saved_vs_all_rounds": saved,
            "saved_share": saved / (spent + saved) if spent + saved else 0.0}


def timed(judge: Any, cases: list[Any], backend: TransformersBackend) -> tuple[float, list[Any]]:
    start = time.perf_counter()
    outcomes = list(judge.run_many(cases, backend))
    return time.perf_counter() - start, outcomes


def bench(model: str, n: int, court_name: str) -> dict[str, Any]:
    cases = select(load_file(DATA), limit=n, balanced=True, seed=0)
    base = TransformersBackend(model, device="cpu")
    court = load_court(court_name, window=8)
    list(court.run_many(cases[:1], base))  # warm up: compile constraints, touch the weights
    report: dict[str, Any] = {"model": model, "court": court_name, "cases": len(cases)}
    court_s, outcomes = timed(court, cases, TransformersBackend(loaded=base.loaded))
    rails_s, _ = timed(RailsJudge(window=8), cases, TransformersBackend(loaded=base.loaded))
    report["tokens"] = token_accounting(outcomes, base)
    report["wall"] = {"court_s_per_case": court_s / len(cases), "rails_s_per_case": rails_s / len(cases),
                      "court_over_rails": court_s / rails_s}
    eight = cases[:8]
    lockstep_s, _ = timed(load_court(court_name, window=8), eight, TransformersBackend(loaded=base.loaded))
    single_s, _ = timed(load_court(court_name, window=1), eight, TransformersBackend(loaded=base.loaded))
    report["lockstep"] = {"cases": len(eight), "window8_cases_per_min": 60 * len(eight) / lockstep_s,
                          "window1_cases_per_min": 60 * len(eight) / single_s, "ratio": single_s / lockstep_s}
    report["early_stopping"] = early_stopping(outcomes, court.spec.trial.max_rounds)
    report["errors"] = sum(1 for o in outcomes if not o.ok)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", action="append", default=None)
    parser.add_argument("--cases", type=int, default=30)
    parser.add_argument("--court", default="full")
    parser.add_argument("--out", default="benchmarks/results/court.json")
    args = parser.parse_args()
    reports = [bench(model, args.cases, args.court) for model in (args.model or ["default"])]
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(reports, indent=2))
    print(json.dumps(reports, indent=2))


if __name__ == "__main__":
    main()
