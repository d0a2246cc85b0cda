"""Pooled runs: one judge's runs on several datasets, compared as one (`courtroom compare HB+RT ...`).

A protocol is rarely judged on one dataset. Pooling the runs of each judge over a suite of datasets
gives one paired test over every case the judges share, with more power than each dataset alone.
Anything fitted to a run (a calibrated threshold, a no-model rule's median) is fitted per member run,
on data of one kind, and only then pooled.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from courtroom.errors import CourtroomError
from courtroom.transcripts.store import ResultRow, RunStore

SEPARATOR = "+"

RowsTransform = Callable[[Sequence[ResultRow]], list[ResultRow]]


@dataclass(frozen=True)
class PooledRun:
    """One run, or several runs of the same judge and model on disjoint cases, compared as one."""

    name: str
    stores: tuple[RunStore, ...]
    members: tuple[tuple[ResultRow, ...], ...]
    """The rows of each member run, in the order of `stores`."""
    judge: str
    model: str

    def rows(self, *transforms: RowsTransform) -> list[ResultRow]:
        """Every member's rows, each member transformed on its own (in the given order), then pooled."""
        pooled: list[ResultRow] = []
        for member in self.members:
            rows = list(member)
            for transform in transforms:
                rows = transform(rows)
            pooled.extend(rows)
        return pooled


def split_argument(argument: str) -> list[str]:
    """The run directories an argument names: `A+B` names A and B, unless a directory is named `A+B`."""
    if SEPARATOR not in argument or Path(argument).exists():
        return [argument]
    return [part for part in argument.split(SEPARATOR) if part]


def open_pooled_run(argument: str) -> PooledRun:
    """Open a run directory or `+`-joined run directories, checking that they can be pooled: each is a
    run, all judged with the same judge and model, and no case is judged in two of them."""
    stores = tuple(RunStore(path) for path in split_argument(argument))
    for store in stores:
        if not store.exists():
            raise CourtroomError(f"{store.root} is not a run directory (no manifest.json)")
    manifests = [store.manifest() for store in stores]
    judges = [m.judge["judge"] for m in manifests]
    models = [str(m.options.get("model")) for m in manifests]
    for what, values in (("judges", judges), ("models", models)):
        if len(set(values)) > 1:
            listed = ", ".join(f"{s.root} ({v})" for s, v in zip(stores, values))
            raise CourtroomError(f"{argument}: pooled runs must share one judge and one model, but their {what} "
                                 f"differ: {listed}")
    members = tuple(tuple(store.rows()) for store in stores)
    owner: dict[str, Path] = {}
    for store, rows in zip(stores, members):
        for row in rows:
            if row.case_id in owner:
                raise CourtroomError(f"{argument}: case {row.case_id!r} is in both {owner[row.case_id]} and "
                                     f"{store.root}; pooled runs must judge different cases")
            owner[row.case_id] = store.root
    name = SEPARATOR.join(store.root.name for store in stores)
    return PooledRun(name=name, stores=stores, members=members, judge=judges[0], model=models[0])
