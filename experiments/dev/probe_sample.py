"""What every dev probe shares: its command-line options and the seeded balanced sample of a dev file."""

from __future__ import annotations

import argparse
from pathlib import Path

from courtroom.case import Case
from courtroom.evaluate.datasets import load_file
from courtroom.evaluate.selection import select

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"


def probe_parser(description: str | None, n: int = 40) -> argparse.ArgumentParser:
    """Options of a probe: `--model`, `--dataset` (a `*-dev.jsonl` of the shared data), `--n`, `--seed`."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--model", default="qwen2.5-coder-0.5b")
    parser.add_argument("--dataset", default="halubench")
    parser.add_argument("--n", type=int, default=n)
    parser.add_argument("--seed", type=int, default=1)
    return parser


def probe_cases(args: argparse.Namespace) -> list[Case]:
    """The balanced sample of `args.n` cases of the dev file `args.dataset`, drawn with `args.seed`."""
    return select(load_file(DATA / f"{args.dataset}-dev.jsonl"), limit=args.n, balanced=True, seed=args.seed)
