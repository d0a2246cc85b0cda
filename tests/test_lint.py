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


def test_tests_share_names_only_through_tests_helpers() -> None:
    """No test module imports another's names (nor a conftest's): what tests share is in `tests/helpers/`."""
    import ast

    shared = {}
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else []
            for name in names:
                if name.startswith("tests.") and name != "tests.helpers" and not name.startswith("tests.helpers."):
                    shared.setdefault(str(path.relative_to(ROOT)), []).append(name)
    assert not shared, f"move what these import into tests/helpers/: {shared}"
