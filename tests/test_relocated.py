"""Import paths from before the package was split into layers keep working, with a warning naming the new path."""

from __future__ import annotations

import importlib
import sys

import pytest

from courtroom import _relocated


@pytest.mark.parametrize("old", sorted(_relocated.MODULES))
def test_an_old_module_path_warns_and_serves_its_successor(old: str) -> None:
    if old.endswith("ray_runner"):
        pytest.importorskip("ray")
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=f"{old} moved to {_relocated.MODULES[old]}"):
        module = importlib.import_module(old)
    new = importlib.import_module(_relocated.MODULES[old])
    public = [n for n in dir(new) if not n.startswith("_") and not isinstance(getattr(new, n), type(sys))]
    assert all(getattr(module, n) is getattr(new, n) for n in public)


@pytest.mark.parametrize("path, name, new", [
    ("courtroom.backends", "ScriptedBackend", "courtroom.door.scripted"),
    ("courtroom.transcripts.store", "ResultRow", "courtroom.evaluate.results"),
    ("courtroom.transcripts.replay", "ReplayBackend", "courtroom.door.recorded"),
    ("courtroom.trial", "aggregate", "courtroom.court.verdict"),
    ("courtroom.metrics", "mcnemar", "courtroom.evaluate.paired"),
    ("courtroom.datasets", "load_dataset", "courtroom.evaluate.selection"),
])
def test_names_that_left_with_their_module_are_found_where_they_went(path: str, name: str, new: str) -> None:
    sys.modules.pop(path, None)
    with pytest.warns(DeprecationWarning):
        module = importlib.import_module(path)
    assert getattr(module, name) is getattr(importlib.import_module(new), name)


def test_the_old_runs_module_names_come_from_the_runs_package() -> None:
    from courtroom.log.manifest import RunSpec
    from courtroom.runs.start import start_run

    with pytest.warns(DeprecationWarning, match="courtroom.log.manifest.RunSpec"):
        from courtroom.runs import RunSpec as old_spec
    with pytest.warns(DeprecationWarning):
        from courtroom.runs import start_run as old_start
    assert old_spec is RunSpec and old_start is start_run


def test_a_name_that_is_gone_says_where_its_module_went() -> None:
    sys.modules.pop("courtroom.transcripts.replay", None)
    with pytest.warns(DeprecationWarning):
        module = importlib.import_module("courtroom.transcripts.replay")
    with pytest.raises(AttributeError, match="courtroom.transcripts.replay moved to courtroom.log.replay"):
        module.message_hashes  # noqa: B018


def test_the_front_door_names_are_unchanged() -> None:
    from courtroom import Case, Court, ScriptedBackend
    from courtroom.court import Court as court_class
    from courtroom.door import ScriptedBackend as scripted

    assert Court is court_class and ScriptedBackend is scripted and Case.__name__ == "Case"
