"""Attack 7: a 396-byte "billion laughs" persona or court file (nine levels of nested aliases) hung
`personas validate`, `court validate` and `run`; templates had no limits (`{{ 'x' * 300000000 }}`, loops of
billions of turns). Anchors and aliases are refused with file and line before anything walks the document,
and templates render within bounds of work and size, refused at load with a clear error."""

from __future__ import annotations

import string
from pathlib import Path

import pytest
from typer.testing import CliRunner

from courtroom.cli import app
from courtroom.court import Court, courts_dir
from courtroom.court.personas import Persona
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
        Court.load(court_bomb)
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


TEMPLATE_BOMBS = {
    "repeat": "{{ 'x' * 300000000 }}",
    "repeat-list": "{{ ['x'] * 300000000 }}",
    "nested-loops": "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
    "output-size": "{% for i in range(100000) %}{{ case.context }}{% endfor %}",
    "doubling": "{% set ns = namespace(s='xxxxxxxx') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}"
                "{% endfor %}{{ ns.s|length }}",
    "doubling-plus": "{% set a = 'xxxxxxxx' %}" + "{% set a = a + a %}" * 40 + "{{ a|length }}",
    "doubling-block": "{% set ns = namespace(s='xxxxxxxx') %}{% for i in range(40) %}{% set t %}{{ ns.s }}"
                      "{{ ns.s }}{% endset %}{% set ns.s = t %}{% endfor %}",
    "percent-width": "{{ '%0999999999d' % 1 }}",
    "format-width": "{{ '{:999999999}'.format(1) }}",
    "center": "{{ 'x'|center(1000000000) }}",
    "power": "{{ 10 ** 100000000 }}",
    "join": "{% set s = 'x' * 20000 %}{{ ([s] * 20000)|join }}",
    "replace": "{% set s = 'x' * 20000 %}{{ s|replace('x', s) }}",
    "loop-over-text": "{% set s = 'x' * 20000 %}{% for a in s %}{% for b in s %}{% endfor %}{% endfor %}",
    "literal-in-loop": "{% for i in range(10000) %}" + "y" * 5000 + "{% endfor %}",
    "macro-tree": "{% macro f(n) %}{% if n %}{{ f(n - 1) }}{{ f(n - 1) }}{% endif %}{% endmacro %}{{ f(40) }}",
    "lipsum": "{{ lipsum(100000000) }}",
}


@pytest.mark.timeout(10)
@pytest.mark.parametrize("template", TEMPLATE_BOMBS.values(), ids=TEMPLATE_BOMBS.keys())
def test_a_template_that_would_not_end_is_refused_at_load(tmp_path: Path, template: str) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(PERSONA.format(template=template))
    with pytest.raises(PersonaError) as info:
        Persona.from_file(path)
    message = str(info.value)
    assert f"{path}:4" in message and "field instructions" in message
    assert any(word in message for word in ("limit", "undefined")), message  # lipsum is no longer there


@pytest.mark.timeout(10)
def test_a_template_bomb_is_refused_by_the_cli(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(PERSONA.format(template=TEMPLATE_BOMBS["nested-loops"]))
    result = runner.invoke(app, ["personas", "validate", str(path)], env={"COLUMNS": "1000"})
    assert result.exit_code == 1 and f"{path}:4" in output(result) and "over the limit" in output(result)
    assert "Traceback" not in result.output


def test_a_template_may_still_read_a_long_case() -> None:
    from courtroom.court.sandbox import render_template

    context = ["word " * 20_000]  # 100,000 characters: the limits count beyond the case's own size
    text = render_template("{{ case.context|join }}{% for c in case.context %}{{ c|length }}{% endfor %}",
                           {"case": {"question": "Q?", "answer": "A.", "context": context}})
    assert text.endswith("100000") and len(text) == 100_006
