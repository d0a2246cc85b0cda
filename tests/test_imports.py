"""`import courtroom` and `courtroom --help` must not import torch or ray (nor the evaluation tools the adapters of
`courtroom.integrations` plug into)."""

from __future__ import annotations

import subprocess
import sys

import pytest

PROBE = """
import sys
{code}
heavy = sorted(m for m in ("torch", "ray", "transformers", "outlines", "opik", "deepeval", "ragas") if m in sys.modules)
print("HEAVY=" + ",".join(heavy))
"""

HELP = """
import runpy
sys.argv = ['courtroom', '--help']
try:
    runpy.run_module('courtroom.cli', run_name='__main__')
except SystemExit:
    pass
"""


def _heavy_modules(code: str) -> tuple[str, str]:
    out = subprocess.run([sys.executable, "-c", PROBE.format(code=code)], capture_output=True, text=True, check=True)
    marker = [line for line in out.stdout.splitlines() if line.startswith("HEAVY=")]
    assert marker, out.stdout + out.stderr
    return marker[-1].removeprefix("HEAVY="), out.stdout


@pytest.mark.parametrize("code", [
    "import courtroom",
    "import courtroom.cli, courtroom.baselines, courtroom.engine.lockstep, courtroom.evaluate.datasets, courtroom.door",
    "import courtroom.integrations, courtroom.integrations.common, courtroom.testing",
])
def test_importing_courtroom_is_light(code: str) -> None:
    heavy, _ = _heavy_modules(code)
    assert heavy == ""


def test_help_is_light() -> None:
    heavy, stdout = _heavy_modules(HELP)
    assert "Usage" in stdout and "demo" in stdout
    assert heavy == ""


def test_public_api_resolves_lazily() -> None:
    code = "import courtroom\nfor name in courtroom.__all__:\n    getattr(courtroom, name)"
    heavy, _ = _heavy_modules(code)
    assert "torch" not in heavy and "ray" not in heavy
