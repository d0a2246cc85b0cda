"""Command-line runs on the pseudo-model: `courtroom run` judges through `ScriptedBackend(PseudoModel())`
instead of loading a model (the runner is swapped; everything else is the real command)."""

from __future__ import annotations

import pytest

from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.runs.runners import LocalRunner


class PseudoRunner:
    """A stand-in for `courtroom.runs.start.make_runner`: every run judges on a fresh pseudo-model backend,
    appended to `backends` (to count its calls)."""

    def __init__(self, backends: list[ScriptedBackend]) -> None:
        self.backends = backends

    def __call__(self, runner, backend) -> LocalRunner:  # noqa: ANN001, ARG002
        self.backends.append(ScriptedBackend(PseudoModel(), model="default"))
        return LocalRunner(self.backends[-1])


@pytest.fixture
def pseudo_runs(monkeypatch: pytest.MonkeyPatch) -> list[ScriptedBackend]:
    """Every run started in the test judges on a fresh pseudo-model backend (listed, to count its calls)."""
    backends: list[ScriptedBackend] = []
    monkeypatch.setattr("courtroom.runs.start.make_runner", PseudoRunner(backends))
    return backends
