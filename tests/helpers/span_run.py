"""A run whose data annotates hallucinated spans: the default court on the pseudo-model over the first eight example
cases, three hallucinated answers with gold spans (`GOLD`) and one hallucinated answer left unannotated."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.helpers.runs import pseudo_run

EXAMPLES = Path(__file__).resolve().parents[2] / "courtroom" / "data" / "examples.jsonl"

GOLD = {"example-lighthouse-automated": "1926", "example-enzyme-ph": "pH of 8",
        "example-revenue-margin": "thanks to lower component costs"}
"""The gold span of each annotated case (its words in the answer)."""
UNANNOTATED = "example-bakery-sunday"
"""Hallucinated, with no gold span: the span metrics leave it out."""


def span_rows() -> list[dict[str, Any]]:
    """The eight example rows, the answers of `GOLD` annotated."""
    rows = [json.loads(line) for line in Path(EXAMPLES).read_text().splitlines()[:8]]
    for row in rows:
        if (words := GOLD.get(row["id"])) is not None:
            start = row["answer"].index(words)
            row["spans"] = [{"start": start, "end": start + len(words), "text": words, "type": "Evident Conflict"}]
    return rows


def write_span_dataset(path: Path) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in span_rows()))
    return path


def span_run(root: Path) -> Path:
    """The run, in `root / "spans"`."""
    return pseudo_run(span_rows(), root / "spans.jsonl", root / "spans")
