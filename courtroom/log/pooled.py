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
from typing import Any

from courtroom.errors import CourtroomError
from courtroom.log.store import ResultRow, RunStore

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
    differences: tuple[str, ...] = ()
    """Judge settings that differ between the member runs (empty for one run)."""

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
    """The run directories an argument names: `A+B` names A and B. A path that exists is never split (a
    directory may be named `a+b`), and a split is sought where every part exists (`~/c++/runs/a+~/c++/runs/b`);
    failing that, the argument is split at every `+`, and the missing parts are reported by the caller."""
    if not argument.strip(SEPARATOR):
        raise CourtroomError(f"{argument!r} names no run directory")
    if SEPARATOR not in argument:
        return [argument]
    if found := _split_existing(argument):  # the whole argument first, when it exists
        return found
    parts = argument.split(SEPARATOR)
    if not all(parts):
        raise CourtroomError(f"{argument!r}: an empty run directory between two '+' (join runs as A+B)")
    return parts


def _split_existing(argument: str) -> list[str] | None:
    """A split of `argument` at `+` into paths that all exist, if there is one."""
    if Path(argument).exists():
        return [argument]
    for i, char in enumerate(argument):
        if char == SEPARATOR and i and Path(argument[:i]).exists() and (rest := _split_existing(argument[i + 1:])):
            return [argument[:i], *rest]
    return None


def judge_differences(configs: Sequence[dict[str, Any]]) -> list[str]:
    """The judge settings (top-level keys, or `key.subkey` one level down) that differ between configurations."""
    differing = []
    for key in sorted({k for config in configs for k in config}):
        values = [config.get(key) for config in configs]
        if all(value == values[0] for value in values):
            continue
        if all(isinstance(value, dict) for value in values):
            differing += [f"{key}.{sub}" for sub in sorted({s for value in values for s in value})
                          if any(value.get(sub) != values[0].get(sub) for value in values)]
        else:
            differing.append(key)
    return differing


def open_pooled_run(argument: str) -> PooledRun:
    """Open a run directory or `+`-joined run directories, checking that they can be pooled: each is a
    run, all judged with the same judge and model, and no case is judged in two of them. Settings of the
    judge that differ between them (a vote's size, a court's threshold) are listed in `differences`."""
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
    return PooledRun(name=name, stores=stores, members=members, judge=judges[0], model=models[0],
                     differences=tuple(judge_differences([m.judge for m in manifests])))
