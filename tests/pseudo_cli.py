"""Command-line runs on the pseudo-model: `courtroom run` judges through `ScriptedBackend(PseudoModel())`
instead of loading a model (the runner is swapped; everything else is the real command)."""

from __future__ import annotations

import pytest

from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.runs.runners import LocalRunner


@pytest.fixture
def pseudo_runs(monkeypatch: pytest.MonkeyPatch) -> list[ScriptedBackend]:
    """Every run started in the test judges on a fresh pseudo-model backend (listed, to count its calls)."""
    backends: list[ScriptedBackend] = []

    def make_runner(runner, backend):  # noqa: ANN001, ARG001
        backends.append(ScriptedBackend(PseudoModel(), model="default"))
        return LocalRunner(backends[-1])

    monkeypatch.setattr("courtroom.runs.start.make_runner", make_runner)
    return backends
