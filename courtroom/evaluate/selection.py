"""Which cases a run judges: a dataset, filters, exclusions and a seeded sample, as data (`CaseSelection`)."""

from __future__ import annotations

import random
from collections.abc import Set

from pydantic import BaseModel, ConfigDict, Field

from courtroom.case import Case
from courtroom.errors import DatasetError
from courtroom.evaluate.datasets import LoadReport, example_cases, load_file
from courtroom.evaluate.hub import load_hf


def load_dataset(spec: str, field_map: dict[str, str] | None = None, skip_invalid: bool = False,
                 report: LoadReport | None = None) -> list[Case]:
    """`examples`, a file path, or `hf:org/name[:split]`."""
    if spec == "examples":
        return example_cases()
    if spec.startswith("hf:"):
        name, _, split = spec[3:].partition(":")
        return load_hf(name, split or None, field_map, skip_invalid, report)
    return load_file(spec, field_map, skip_invalid, report)


class CaseSelection(BaseModel):
    """The cases of a run: recorded in its manifest, so a run can be resumed, compared and excluded by
    others."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    dataset: str
    """A .jsonl/.json/.csv/.tsv/.parquet file, `examples`, or `hf:org/name[:split]`."""
    field_map: dict[str, str] = Field(default_factory=dict)
    """Case field -> column of the file (`--field question=query`)."""
    limit: int | None = None
    """At most this many cases (with `balanced`: half per label)."""
    balanced: bool = False
    """A seeded sample with as many FAIL as PASS cases."""
    seed: int = 0
    """Seed of the balanced sample."""
    sources: list[str] = Field(default_factory=list)
    """Keep only cases whose source contains one of these."""
    exclude: list[str] = Field(default_factory=list)
    """Run directories (or files of case ids, one per line) whose cases are left out before sampling:
    calibrate or tune on cases disjoint from an evaluation run."""

    def cases(self, excluded_ids: Set[str] = frozenset(), *, skip_invalid: bool = False,
              report: LoadReport | None = None) -> list[Case]:
        """Load the dataset and select (`excluded_ids`: the ids `exclude` names, resolved by the caller)."""
        loaded = load_dataset(self.dataset, self.field_map or None, skip_invalid, report)
        return select(loaded, limit=self.limit, balanced=self.balanced, seed=self.seed,
                      sources=self.sources or None, exclude=excluded_ids)


def select(cases: list[Case], *, limit: int | None = None, balanced: bool = False, seed: int = 0,
           sources: list[str] | None = None, exclude: Set[str] = frozenset()) -> list[Case]:
    """Filter by source (substring) and drop excluded ids, then take a seeded balanced sample or the first
    `limit`."""
    if exclude:
        cases = [c for c in cases if c.id not in exclude]
    if sources:
        cases = [c for c in cases if any(s.lower() in c.source.lower() for s in sources)]
    if limit is not None and limit < (2 if balanced else 1):
        raise DatasetError(f"--limit {limit}: must be at least " + ("2 with --balanced (half of it per label)"
                                                                   if balanced else "1"))
    if not balanced:
        return cases[:limit] if limit is not None else cases
    by_label = {label: [c for c in cases if c.label == label] for label in ("PASS", "FAIL")}
    per_label = min(len(v) for v in by_label.values())
    if limit is not None:
        per_label = min(per_label, limit // 2)
    rng = random.Random(seed)
    chosen = [c for label in ("PASS", "FAIL") for c in rng.sample(by_label[label], per_label)]
    rng.shuffle(chosen)
    return chosen
