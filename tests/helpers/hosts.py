"""The host tools of `courtroom.integrations` imported (or their tests skipped), and the court their tests judge with."""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest

from courtroom.court import Court
from courtroom.courts import load_court
from courtroom.door import ScriptedBackend
from tests.helpers.court_script import CourtScript


def host(name: str) -> ModuleType:
    """Import a host tool, or skip its tests (fail instead when `COURTROOM_HOST` names it: `make test`)."""
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        if os.environ.get("COURTROOM_HOST") == name:
            pytest.fail(f"COURTROOM_HOST={name} but {name} does not import ({exc}): build .venv-{name} with "
                        "`make integrations`", pytrace=False)
        pytest.skip(f"{name} is not installed here (`make integrations` builds .venv-{name})", allow_module_level=True)


def scripted_court() -> Court:
    """The default court, judging on the scripted backend: the statement naming 1926 is ungrounded and conceded."""
    script = CourtScript(grounding={"1926": -1.0}, moves={"prosecutor": ["argue"], "defender": ["concede"]})
    return load_court("full", ScriptedBackend(script, model="scripted"))
