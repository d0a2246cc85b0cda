"""`import courtroom` and `courtroom --help` must not import torch or ray (nor the evaluation tools the adapters of
`courtroom.integrations` plug into, nor the web server of `courtroom view`)."""

from __future__ import annotations

import subprocess
import sys

import pytest

PROBE = """
import sys
{code}
heavy = sorted(m for m in ("torch", "ray", "transformers", "outlines", "opik", "deepeval", "ragas", "fastapi", "starlette",
                           "uvicorn") if m in sys.modules)
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


HOST_PROBE = """
import sys
at_start = {name.split('.')[0] for name in sys.modules}  # what site start-up loads (setuptools' .pth hook)
import courtroom.court, courtroom.door, courtroom.integrations.common, courtroom.testing
import tests.helpers.court_script
print("LOADED=" + ",".join(sorted({name.split('.')[0] for name in sys.modules} - at_start)))
"""


def _requirement_names(requirement: str) -> str:
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    return canonicalize_name(Requirement(requirement).name)


def _with_dependencies(names: set[str]) -> set[str]:
    """The distributions `names` install: themselves and their requirements, transitively (extras left out)."""
    from importlib import metadata

    seen: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        todo += [_requirement_names(r) for r in requires if "extra ==" not in r]  # markers other than extras: kept
    return seen


def test_host_environments_install_what_the_adapters_import() -> None:
    """The Makefile's Opik/DeepEval/Ragas environments take the package without its dependencies, plus HOST_CORE:
    every third-party module `courtroom.court` and the adapters load must come with one of those (numpy, once)."""
    from importlib import metadata
    from pathlib import Path

    makefile = (Path(__file__).parents[1] / "Makefile").read_text()
    core_line = next(line for line in makefile.splitlines() if line.startswith("HOST_CORE :="))
    host_core = {_requirement_names(r.strip().strip('"')) for r in core_line.split(":=", 1)[1].split('" "')}
    installed = _with_dependencies(host_core)
    out = subprocess.run([sys.executable, "-c", HOST_PROBE], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).parents[1])
    loaded = next(line for line in out.stdout.splitlines() if line.startswith("LOADED=")).removeprefix("LOADED=")
    owners = metadata.packages_distributions()
    missing = {
        module: owners[module] for module in loaded.split(",")
        if module in owners and module not in sys.stdlib_module_names and module not in ("courtroom", "tests")
        and not any(_requirement_names(dist) in installed for dist in owners[module])
    }
    assert not missing, f"add to HOST_CORE in the Makefile: {missing}"
