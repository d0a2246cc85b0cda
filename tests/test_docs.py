"""The README and the documentation pages (docs/): their links lead somewhere, their examples run.

The site itself is built with `mkdocs build --strict` by `make docs` and by `make test` (its own phase), which
fails on a broken link or anchor between pages; these tests need no MkDocs, so `make test-fast` checks the links
too, and they run the README's own commands."""

from __future__ import annotations

import importlib.util
import json
import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from courtroom.cli import app
from courtroom.evaluate.datasets import load_file
from tests.helpers.pseudo_cli import pseudo_runs  # noqa: F401 (fixture)

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README, *sorted(DOCS.glob("*.md"))]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^( *)(```|~~~).*?^\1\2", re.S | re.M)
runner = CliRunner()


def _prose(text: str) -> str:
    """The text without its code blocks and inline code (a link written there is an example, not a link)."""
    return re.sub(r"`[^`\n]*`", "", FENCE.sub("", text))


def _anchors(page: Path) -> set[str]:
    """The anchors a page's headings make (lower case, punctuation dropped, spaces as hyphens: GitHub's and
    MkDocs' rule agree on these headings)."""
    out = set()
    for heading in re.findall(r"^#{1,6} +(.+?) *$", FENCE.sub("", page.read_text()), re.M):
        out.add(re.sub(r"[^\w\- ]", "", heading.lower()).strip().replace(" ", "-"))
    return out


def _blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", text, re.S | re.M)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_points_at_a_file_of_the_repository(page: Path) -> None:
    broken = []
    for target in LINK.findall(_prose(page.read_text())):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue  # an external link (not fetched: the build needs no network), or an anchor of the page itself
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve()
        if not file.exists() or not file.is_relative_to(ROOT):
            broken.append(f"{target}: no such file")
        elif anchor and file.suffix == ".md" and anchor not in _anchors(file):
            broken.append(f"{target}: no heading makes #{anchor}")
    assert not broken, f"{page.relative_to(ROOT)}: {broken}"


ITEM = re.compile(r"^( *)([-*+]|\d+[.)]) +\S")
"""A line that opens a list item."""


def glued_lists(text: str) -> list[tuple[int, str]]:
    """The list items (line number, line) that follow a paragraph's line with no blank line between: MkDocs'
    Markdown (Python-Markdown) reads them as the paragraph's text, so the list renders as one run-on paragraph
    ("One case goes through: 1. Indictment ..."), and `mkdocs build --strict` says nothing (GitHub renders it)."""
    found, previous, in_list, fence = [], "blank", False, ""
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if fence or stripped.startswith(("```", "~~~")):
            fence = "" if fence and stripped.startswith(fence) else fence or stripped[:3]
            previous, in_list = "other", False
        elif not stripped:
            previous = "blank"
        elif ITEM.match(line):
            if previous == "paragraph" and not in_list:
                found.append((number, line))
            previous, in_list = "list", True
        elif stripped.startswith(("#", "|", "<", ">", "---")):
            previous, in_list = "other", False
        elif in_list and (previous == "list" or line.startswith(" ")):
            previous = "list"  # an item's next line, or its next paragraph (indented)
        else:
            previous, in_list = "paragraph", False
    return found


def test_glued_lists_are_found() -> None:
    assert glued_lists("It takes:\n- one\n- two\n") == [(2, "- one")]
    assert glued_lists("It takes:\n\n1. one\n   more of one\n2. two\nstill two\n\n```\nx:\n- y\n```\n") == []


@pytest.mark.parametrize("page", sorted(DOCS.glob("*.md")), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_list_has_a_blank_line_before_it(page: Path) -> None:
    assert not glued_lists(page.read_text()), f"{page.relative_to(ROOT)}: a list needs a blank line before it"


def test_the_readme_shows_the_two_commands_first_and_stays_short() -> None:
    text = README.read_text()
    first = _blocks(text, "bash")[0]
    assert [line.split("#")[0].strip() for line in first.strip().splitlines()] == ["make demo", "make test"]
    assert text.index("make demo") < text.index("```json")
    assert len(text.splitlines()) <= 150


def test_the_readmes_dataset_row_run_and_audit_work(tmp_path: Path, monkeypatch, pseudo_runs) -> None:  # noqa: F811
    """The README's row, written to the file its commands name, is judged and audited by those commands (on the
    pseudo-model)."""
    text = README.read_text()
    [row] = _blocks(text, "json")
    commands = [shlex.split(line, comments=True) for block in _blocks(text, "bash") for line in block.splitlines()
                if line.startswith("courtroom ")]
    run, audit, view = commands
    assert run[:2] == ["courtroom", "run"] and audit[:2] == ["courtroom", "audit"] and view[:2] == ["courtroom", "view"]
    assert Path(run[-1]).parent == Path(view[2])  # the page reads the folder the run was written into
    monkeypatch.chdir(tmp_path)
    Path(run[2]).write_text(json.dumps(json.loads(row)) + "\n")
    [case] = load_file(run[2])
    assert case.label == "FAIL" and case.context and case.question and case.answer
    for command in (run, audit):
        result = runner.invoke(app, command[1:], env={"COLUMNS": "200"})
        assert result.exit_code == 0, (command, result.output)
    assert "bal. accuracy" in result.output and "gold FAIL" in result.output


def test_the_getting_started_example_file_and_commands_work(tmp_path: Path, monkeypatch,
                                                             pseudo_runs) -> None:  # noqa: F811
    """The three-case file of docs/getting-started.md, saved under the name the page gives it, runs and audits with
    the page's commands; its spread-out row is one of those cases."""
    text = (DOCS / "getting-started.md").read_text()
    spread, lines = _blocks(text, "json")
    name = re.search(r"A file of three\s+cases, `([^`]+)`", text).group(1)
    monkeypatch.chdir(tmp_path)
    Path(name).write_text(lines)
    cases = load_file(name)
    assert [c.label for c in cases] == ["PASS", "FAIL", "PASS"]
    assert json.loads(spread) in [json.loads(line) for line in lines.splitlines()]
    block = next(b for b in _blocks(text, "bash") if b.startswith("courtroom run"))
    for line in block.splitlines():
        result = runner.invoke(app, shlex.split(line, comments=True)[1:], env={"COLUMNS": "200"})
        assert result.exit_code == 0, (line, result.output)


def test_the_runs_pages_commands_run_in_a_clone(tmp_path: Path, monkeypatch, pseudo_runs) -> None:  # noqa: F811
    """The commands of docs/runs-and-datasets.md read files a clone has (they read `../shared/data`, which it has
    not), and run as written, on the pseudo-model (a user's `data.csv`, the Hub and a court file of one's own
    left out)."""
    text = (DOCS / "runs-and-datasets.md").read_text()
    block = _blocks(text, "bash")[0].replace("\\\n", " ")
    commands = [shlex.split(line, comments=True) for line in block.splitlines() if line.startswith("courtroom ")]
    assert not any("shared/data" in part for command in commands for part in command)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "courtroom" / "data").mkdir(parents=True)
    (tmp_path / "courtroom" / "data" / "examples.jsonl").write_text((ROOT / "courtroom/data/examples.jsonl").read_text())
    monkeypatch.setattr("courtroom.door.spec.BackendSpec.check_model", lambda self: None)  # the alias not fetched
    ran = 0
    for command in commands:
        if any(part in ("data.csv", "my_court.yaml") or part.startswith("hf:") for part in command):
            continue
        result = runner.invoke(app, command[1:], env={"COLUMNS": "200"})
        assert result.exit_code == 0, (command, result.output[-2000:])
        ran += 1
    assert ran == 9


def test_the_docs_extra_and_the_makefile_pin_the_same_versions() -> None:
    tomllib = pytest.importorskip("tomllib")
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["docs"]
    made = re.search(r"^DOCS_REQS := (.*)$", (ROOT / "Makefile").read_text(), re.M).group(1)
    assert sorted(extra) == sorted(shlex.split(made))
    assert all("==" in pin for pin in extra)


def test_the_benchmarks_rewrite_the_performance_page_between_its_markers() -> None:
    spec = importlib.util.spec_from_file_location("run_all", ROOT / "benchmarks" / "run_all.py")
    run_all = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run_all)
    assert run_all.PAGE == DOCS / "performance.md"
    text = run_all.PAGE.read_text()
    assert text.count(run_all.START) == text.count(run_all.END) == 1
    assert text.index(run_all.START) < text.index("| measure | xgrammar |") < text.index(run_all.END)
    assert run_all.START not in README.read_text()
