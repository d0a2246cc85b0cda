"""Pooled runs: one judge's runs on several datasets, compared as one (`courtroom compare HB+RT ...`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from courtroom.case import Case
from courtroom.errors import RunError
from courtroom.evaluate.comparison import Contender
from courtroom.log.cases import run_cases
from courtroom.log.manifest import judge_differences
from courtroom.log.store import RunStore

SEPARATOR = "+"

@dataclass(frozen=True)
class PooledRun:
    """One run, or several runs of the same judge and model on disjoint cases, compared as one."""

    contender: Contender
    """The runs' rows, one member per run, in the order of `stores`."""
    stores: tuple[RunStore, ...]
    differences: tuple[str, ...] = ()
    """Judge settings that differ between the member runs (empty for one run)."""

    def member_cases(self) -> list[list[Case]]:
        """The cases each member run judged (rebuilt from its manifest), for the no-model rules."""
        return [[c for c in run_cases(store) if c.id in judged]
                for store, rows in zip(self.stores, self.contender.members)
                for judged in [{r.case_id for r in rows}]]


def split_argument(argument: str) -> list[str]:
    """The run directories an argument names: `A+B` names A and B. A path that exists is never split, and a
    split is sought where every part exists; failing that, it is split at every `+` (the caller reports
    missing parts)."""
    if not argument.strip(SEPARATOR):
        raise RunError(f"{argument!r} names no run directory")
    if SEPARATOR not in argument:
        return [argument]
    if found := _split_existing(argument):  # the whole argument first, when it exists
        return found
    parts = argument.split(SEPARATOR)
    if not all(parts):
        raise RunError(f"{argument!r}: an empty run directory between two '+' (join runs as A+B)")
    return parts


def _split_existing(argument: str) -> list[str] | None:
    """A split of `argument` at `+` into paths that all exist, if there is one."""
    if Path(argument).exists():
        return [argument]
    for i, char in enumerate(argument):
        if (char == SEPARATOR and i and Path(argument[:i]).exists()
            and (rest := _split_existing(argument[i + 1:]))):
            return [argument[:i], *rest]
    return None


def open_pooled_run(argument: str) -> PooledRun:
    """Open a run directory or `+`-joined ones of the same judge and model, no case judged twice."""
    stores = tuple(RunStore(path).existing() for path in split_argument(argument))
    manifests = [store.manifest() for store in stores]
    judges = [m.spec.judge.name for m in manifests]
    models = [m.model for m in manifests]
    for what, values in (("judges", judges), ("models", models)):
        if len(set(values)) > 1:
            listed = ", ".join(f"{s.root} ({v})" for s, v in zip(stores, values))
            raise RunError(f"{argument}: pooled runs must share one judge and one model, but their {what} "
                                 f"differ: {listed}")
    members = tuple(tuple(store.rows()) for store in stores)
    owner: dict[str, Path] = {}
    for store, rows in zip(stores, members):
        for row in rows:
            if row.case_id in owner:
                raise RunError(f"{argument}: case {row.case_id!r} is in both {owner[row.case_id]} and "
                                     f"{store.root}; pooled runs must judge different cases")
            owner[row.case_id] = store.root
    name = SEPARATOR.join(store.root.name for store in stores)
    court = (manifests[0].judge.get("court") or {}).get("name") if judges[0] == "courtroom" else None
    return PooledRun(Contender(name, judges[0], models[0], members, court), stores,
                     tuple(judge_differences([m.judge for m in manifests])))
