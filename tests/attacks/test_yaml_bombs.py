"""Attack 7: a 396-byte "billion laughs" persona or court file (nine levels of nested aliases) hung
`personas validate`, `court validate` and `run`; templates had no limits (`{{ 'x' * 300000000 }}`, loops of
billions of turns). Anchors and aliases are refused with file and line before anything walks the document (the
templates' limits: test_templates.py)."""

from __future__ import annotations

import string
from pathlib import Path

import pytest
from typer.testing import CliRunner

from courtroom.cli import app
from courtroom.court.personas import Persona
from courtroom.courts import courts_dir, load_court
from courtroom.errors import CourtError, PersonaError

runner = CliRunner()

PERSONA = """\
name: laughing_judge
role: judge
description: A judge.
instructions: "{template}"
"""


def laughs() -> str:
    """Nine levels of nine aliases: 9**9 (387 million) leaves in a few hundred bytes."""
    names = string.ascii_lowercase[:9]
    lines = [f"{names[0]}: &{names[0]} [x,x,x,x,x,x,x,x,x]"]
    lines += [f"{name}: &{name} [{','.join(['*' + previous] * 9)}]" for previous, name in zip(names, names[1:])]
    return "\n".join(lines) + "\n"


def output(result) -> str:  # noqa: ANN001
    return " ".join(result.output.split())


@pytest.fixture
def persona_bomb(tmp_path: Path) -> Path:
    path = tmp_path / "bomb.yaml"
    path.write_text(PERSONA.format(template="Rule.") + laughs())
    assert path.stat().st_size < 600
    return path


@pytest.fixture
def court_bomb(tmp_path: Path) -> Path:
    path = tmp_path / "court.yaml"
    path.write_text((courts_dir() / "default.yaml").read_text() + laughs())
    return path


@pytest.mark.timeout(10)
def test_a_persona_of_nested_aliases_is_refused_at_once(persona_bomb: Path) -> None:
    with pytest.raises(PersonaError, match=rf"{persona_bomb}:5: invalid YAML: anchor &a is not allowed"):
        Persona.from_file(persona_bomb)
    result = runner.invoke(app, ["personas", "validate", str(persona_bomb)], env={"COLUMNS": "1000"})
    assert result.exit_code == 1 and f"{persona_bomb}:5" in output(result) and "anchor &a" in output(result)


@pytest.mark.timeout(10)
def test_a_court_of_nested_aliases_is_refused_at_once(court_bomb: Path, tmp_path: Path) -> None:
    line = court_bomb.read_text().splitlines().index(laughs().splitlines()[0]) + 1
    with pytest.raises(CourtError, match=rf"{court_bomb}:{line}: invalid YAML: anchor &a is not allowed"):
        load_court(court_bomb)
    for command in (["court", "validate", str(court_bomb)],
                    ["run", "examples", "--court", str(court_bomb), "--out", str(tmp_path / "run")]):
        result = runner.invoke(app, command, env={"COLUMNS": "1000"})
        assert result.exit_code == 2 and f"{court_bomb}:{line}" in output(result), output(result)
        assert "Traceback" not in result.output


@pytest.mark.timeout(10)
def test_a_lone_alias_is_refused_too(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(PERSONA.format(template="Rule.").replace("description: A judge.", "description: *d"))
    with pytest.raises(PersonaError, match=rf"{path}:3: invalid YAML: alias \*d is not allowed"):
        Persona.from_file(path)


@pytest.mark.timeout(10)
def test_the_line_locator_does_not_follow_aliases() -> None:
    from courtroom.yamlio import Locator

    assert Locator(laughs()).line(["i", 0, 0]) is None  # refused, not walked through 9**9 nodes
    assert Locator("a: 1\nb: [2, 3]\n").line(["b", 1]) == 2
