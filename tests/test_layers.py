"""The package's folders are its layers: each may import only the layers below it, and no module imports
itself back through others (no cycles). Every import counts, also those inside functions.

    text       sentences, words, numbers, negation, quotes: how text is read (nothing of courtroom below it)
    domain     case, errors, casefile, digest, yamlio (YAML files validated by pydantic, errors with lines)
    door       model requests and responses, backends, models, constraints, prefix cache, recorded calls
    engine     lockstep programs, transcript events, the Judge protocol, the judge registry, migrations, the
               plain question about a whole answer
    witness    what a case's text and the model's own pass testify (figures, names, polarity, grounding,
               attention, hidden states) and the fitted ruling that weighs the testimony
    clerk      the measurement, the default judge: grounding, the witnesses heard, indictment, verdict (nothing of
               trials, court files or the loader)
    baselines  single-model judges                  } siblings: neither imports the other
    court      the trial over the clerk's charges  }
    courts     court files: read through `extends`, migrated (retired settings), loaded as a clerk or a court by the
               one loader, written from a recorded court
    evaluate   datasets, result rows, metrics, paired tests, calibration, no-model rules, comparisons
    log        run directories: store, manifest, replay, rejudge, audit, pooled runs
    calibrate  rulings fitted on labelled runs, thresholds, a few labels and the prior refit, the label file
    runs       run spec, starting and resuming a run, runners (local, Ray)
    report     terminal tables, court records, the HTML report
    integrations  the court as a metric in Opik, DeepEval and Ragas; `courtroom.testing` (pytest helpers)  } siblings
    view       `courtroom view`: the local web app over runs, labelling and the refit in the page         }
    cli        the command line: parse, call, print

A module that names another by a string (`"courtroom.courts.load:Courtroom"`, for `importlib`) imports it as surely
as an import statement: such names count too, everywhere (the judge registry names none: each judge registers itself
from the layer that defines it).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import networkx as nx
import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "courtroom"
STACK: list[tuple[str, ...]] = [("text",), ("domain",), ("door",), ("engine",), ("witness",), ("clerk",),
                                ("baselines", "court"), ("courts",), ("evaluate",), ("log",), ("calibrate",), ("runs",), ("report",),
                                ("integrations", "view"), ("cli",)]
"""The layers from the bottom up; layers that share a rank are siblings (neither imports the other)."""
LAYERS = [layer for rank in STACK for layer in rank]
RANK = {layer: rank for rank, layers in enumerate(STACK) for layer in layers}
DOMAIN = {"case", "errors", "casefile", "digest", "yamlio"}
LOOSE = {"testing": "integrations"}
LINE_LENGTH = 110
"""The longest line a reviewer reads at once (ruff's E501 holds the package's Python to it: pyproject.toml)."""
BUDGET = 13_288
"""What a reader reads: the package's statements (by its syntax tree, docstrings free) and the lines of the page's
script (a line longer than LINE_LENGTH counts once for every LINE_LENGTH characters), as #61 left them: 12,119 and
666 (docs/development.md, "The budget": a new feature pays for its statements)."""
SCRIPT = ("view/static/*.js", "report/templates/*.js")
"""The page's script: the report's and `courtroom view`'s."""
MODULE_STATEMENTS, TRIAL_STATEMENTS = 250, 1_100
"""The most statements one module holds, and the trial (`court/`)."""
NAMED = re.compile(r"courtroom(?:\.[a-z_]+)+(?::\w+)?")
"""A module named by a string: `courtroom.courts.load` or `courtroom.courts.load:Courtroom`."""
"""Top-level modules that belong to a layer of folders."""
TOP = {"__init__"}
"""The package's front door (lazy re-exports): it may name any layer."""
HEAVY = {"torch": {"door.transformers", "door.observed_pass", "door.decoding", "door.models", "door.devices",
                   "door.constraints"},
         "transformers": {"door.transformers", "door.observed_pass", "door.models"},
         "outlines": {"door.constraints"},
         "ray": {"runs.ray_runner"},
         "sklearn": {"calibrate.logistic", "calibrate.fit_ruling"},
         "scipy": {"evaluate.paired", "calibrate.prior_refit"},
         "opik": {"integrations.opik"},
         "deepeval": {"integrations.deepeval"},
         "ragas": {"integrations.ragas"},
         "starlette": {"view.app"},
         "uvicorn": {"view.app"}}
"""Heavy packages, and the only modules allowed to import them."""


def _may_import(importer: str, imported: str) -> bool:
    """A layer imports itself and the layers below it (not a sibling)."""
    return imported == importer or RANK[imported] < RANK[importer]


def _module(path: Path) -> str:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" and len(parts) > 1 else parts)


def _layer(module: str) -> str:
    head = module.split(".")[0]
    return "domain" if head in DOMAIN else LOOSE.get(head, head)


MODULE_NAMES = {_module(path) for path in PACKAGE.rglob("*.py")}


def _imports() -> dict[str, set[str]]:
    """Every module's imports (of courtroom modules, without the prefix, and of heavy packages)."""
    found: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module = _module(path)
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:  # `from pkg import submodule` imports the submodule, else pkg itself
                    sub = f"{node.module}.{alias.name}"
                    names.add(sub if sub.removeprefix("courtroom.") in MODULE_NAMES else node.module)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and NAMED.fullmatch(node.value):
                names.add(node.value.partition(":")[0])  # `import_module("courtroom.court")`
        found[module] = names
    return found


def _internal(names: set[str], modules: set[str]) -> set[str]:
    out = set()
    for name in names:
        if name.startswith("courtroom."):
            target = name.removeprefix("courtroom.")
            while target and target not in modules:  # `from courtroom.door import X` names the package
                target = target.rpartition(".")[0]
            if target:
                out.add(target)
    return out


IMPORTS = _imports()
MODULES = set(IMPORTS)


def test_every_module_is_in_a_layer() -> None:
    strays = sorted(m for m in MODULES if m not in TOP and _layer(m) not in LAYERS)
    assert not strays, f"modules outside the layers {LAYERS}: {strays}"


@pytest.mark.parametrize("module", sorted(MODULES - TOP))
def test_a_module_imports_only_its_own_layer_and_those_below(module: str) -> None:
    layer = _layer(module)
    upward = sorted(t for t in _internal(IMPORTS[module], MODULES) if t in TOP or not _may_import(layer, _layer(t)))
    assert not upward, f"courtroom.{module} ({layer}) imports from above or from a sibling layer: {upward}"


def test_no_import_cycles() -> None:
    graph = nx.DiGraph()
    for module, names in IMPORTS.items():
        for target in _internal(names, MODULES):
            if target != module and module not in TOP:
                graph.add_edge(module, target)
    cycles = sorted(nx.simple_cycles(graph), key=len)
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c + c[:1]) for c in cycles[:5])


@pytest.mark.parametrize("package", sorted(HEAVY))
def test_heavy_packages_are_imported_in_one_place(package: str) -> None:
    users = {m for m, names in IMPORTS.items() if any(n == package or n.startswith(package + ".") for n in names)}
    assert users <= HEAVY[package], f"{package} is imported by {sorted(users - HEAVY[package])}"


def statements(path: Path) -> int:
    """A module's statements, by its syntax tree: its docstrings (of the module, classes, functions, attributes) are
    not counted, nor are lines, so neither wrapping nor writing one down costs anything."""
    return sum(isinstance(node, ast.stmt) and not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
                                                   and isinstance(node.value.value, str))
               for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))))


def script_lines(path: Path) -> int:
    """A script's lines that hold something, a long one counted once for every `LINE_LENGTH` characters."""
    return sum(-(-len(line) // LINE_LENGTH) for line in path.read_text(encoding="utf-8").splitlines() if line.strip())


def test_no_module_is_over_its_statements_the_trial_stays_small_and_the_package_within_its_budget() -> None:
    sizes = {path.relative_to(PACKAGE).as_posix(): statements(path) for path in PACKAGE.rglob("*.py")}
    assert not {name: n for name, n in sizes.items() if n > MODULE_STATEMENTS}
    assert sum(n for name, n in sizes.items() if name.startswith("court/")) <= TRIAL_STATEMENTS
    script = sum(script_lines(path) for pattern in SCRIPT for path in PACKAGE.glob(pattern))
    assert script and sum(sizes.values()) + script <= BUDGET, \
        f"the package holds {sum(sizes.values())} statements and {script} lines of script, over its {BUDGET}"


def test_a_statement_is_counted_once_however_it_is_written(tmp_path: Path) -> None:
    one = tmp_path / "one.py"
    one.write_text('def f(a, b):\n    """Add."""\n    return a + b\n')
    wrapped = tmp_path / "wrapped.py"
    wrapped.write_text('def f(\n    a,\n    b,\n):\n    """Add them:\n\n    a and b."""\n    return (\n        a\n        + b\n    )\n')
    assert statements(one) == statements(wrapped) == 2


def test_the_clerk_knows_nothing_of_trials_by_any_import() -> None:
    """Also a string naming a module for `importlib` counts (`_imports`), as the clerk's old hand-over to the court
    by name did; and this test fails if such a name comes back."""
    clerk = {m: _internal(IMPORTS[m], MODULES) for m in MODULES if _layer(m) == "clerk"}
    assert clerk and not {m: sorted(t for t in targets if _layer(t) == "court") for m, targets in clerk.items()
                          if any(_layer(t) == "court" for t in targets)}


def test_every_reader_of_a_run_builds_its_judge_in_one_place() -> None:
    """A run's recorded judge is rebuilt by `Manifest.rebuild_judge` alone (a Ray worker rebuilds the live judge's
    configuration, not a run's); the loaders' `from_config` is called only by the registry and the loader."""
    callers: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                if name in ("judge_from_config", "court_from_config", "from_config"):
                    callers.setdefault(name, set()).add(_module(path))
    assert callers.pop("judge_from_config") == {"log.manifest", "runs.ray_runner"}
    assert callers.pop("from_config", set()) <= {"engine.registry", "courts.load", "door.models"}  # (transformers')
    assert not callers.get("court_from_config")


def test_the_view_reaches_no_private_name_of_another_module() -> None:
    """`view/` is a face on the workflows below it (`calibrate.label_session`, `calibrate.refit`, `report.summary`,
    `log.audit`): it imports no private name (`_x`) and reads no private attribute of another's object."""
    reached = []
    for path in sorted((PACKAGE / "view").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("courtroom."):
                reached += [f"{path.name}: {node.module}.{a.name}" for a in node.names if a.name.startswith("_")]
            elif isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__") and \
                    not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                reached.append(f"{path.name}:{node.lineno}: .{node.attr}")
    assert not reached, reached
