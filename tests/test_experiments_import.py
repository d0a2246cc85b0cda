"""Every name the scripts of experiments/ and benchmarks/ import from the package exists: each `import courtroom...`
and `from courtroom... import name` (at any depth of a script) is resolved by importing the module, without running
the script. ruff cannot see a name the package no longer has; this test names the file, line and name."""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted(path for folder in ("experiments", "benchmarks") for path in (ROOT / folder).rglob("*.py"))


def package_imports(path: Path) -> Iterator[tuple[int, str, str | None]]:
    """(line, module, name) of each import from courtroom in a script; name None for `import module`."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name, None) for alias in node.names if alias.name.startswith("courtroom"))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("courtroom"):
            yield from ((node.lineno, node.module, alias.name) for alias in node.names)


def missing(module: str, name: str | None) -> str | None:
    """Why `module` (or its `name`) cannot be imported, or None when it can."""
    try:
        imported = importlib.import_module(module)
    except ModuleNotFoundError as error:
        if error.name is not None and not error.name.startswith("courtroom"):
            pytest.skip(f"{module} needs {error.name}, not installed here")
        return f"no module {module}"
    if name is None or name == "*" or hasattr(imported, name):
        return None
    try:
        importlib.import_module(f"{module}.{name}")  # a submodule not imported by its package
    except ModuleNotFoundError:
        return f"{module} has no {name}"
    return None


def test_the_scripts_are_found() -> None:
    assert len(SCRIPTS) > 20 and any(path.name == "run_all.py" for path in SCRIPTS)


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_package_name_a_script_imports_exists(path: Path) -> None:
    broken = [f"{path.relative_to(ROOT)}:{line}: {why}" for line, module, name in package_imports(path)
              if (why := missing(module, name))]
    assert not broken, "\n".join(broken)
