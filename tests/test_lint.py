"""The code passes the project's lint rules (ruff, configured in pyproject.toml)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_finds_nothing() -> None:
    ruff = str(Path(sys.executable).parent / "ruff")  # the test extra installs it beside python
    ruff = ruff if Path(ruff).exists() else shutil.which("ruff") or ruff
    result = subprocess.run([ruff, "check", "courtroom", "tests", "experiments", "benchmarks"], cwd=ROOT,
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
