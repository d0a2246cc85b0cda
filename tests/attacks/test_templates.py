"""Persona templates from untrusted files (attacks 4, 5 and 10 of earlier reviews, kept against the Liquid templates
that replaced the metered Jinja sandbox): a template cannot change what it is given, and one that loops, grows or
nests without end is refused by a counted limit, before it takes the machine's memory or time; the refusal names
the persona file, the line of its instructions and the limit. A template that only reads a long case renders."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from courtroom.court.personas import Persona
from courtroom.court.templates import OUTPUT_CHARS, render_template
from courtroom.courts import load_court
from courtroom.door.requests import Sampling
from courtroom.errors import CourtError, PersonaError
from tests.helpers.courts import settings

PERSONA = """\
name: meddler
role: judge
description: A judge who edits the record.
instructions: "{template} Rule on charge {{{{ charge.index }}}}."
"""
CASE = {"case": {"question": "Q?", "answer": "A.", "context": ["C."]}}
MEMORY = 1 << 30
"""The address space a bomb is rendered in: one that got past the limits would fail its process, not the machine."""

MUTATIONS = ["{{ case.context.append('x') }}", "{{ case.context.pop() }}", "{{ charge.update({'quote': 'f'}) }}",
             "{% assign passages = case.context %}{{ passages.insert(0, 'planted') }}"]
BOMBS = {
    "doubling": "{% assign a = 'x' %}{% for i in (1..60) %}{% assign a = a | append: a %}{% endfor %}{{ a | size }}",
    "captured-doubling": "{% capture a %}x{% endcapture %}{% for i in (1..60) %}{% capture a %}{{ a }}{{ a }}"
                         "{% endcapture %}{% endfor %}{{ a | size }}",
    "nested-loops": "{% for i in (1..100000) %}{% for j in (1..100000) %}x{% endfor %}{% endfor %}",
    "long-range": "{% for i in (1..1000000000) %}{% endfor %}",
    "output": "{% for i in (1..90000) %}{{ case.question | append: 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' }}{% endfor %}",
    "deep-nesting": "{% if true %}" * 200 + "x" + "{% endif %}" * 200,
}


def write_persona(tmp_path: Path, template: str, name: str = "p.yaml") -> Path:
    path = tmp_path / name
    path.write_text(PERSONA.format(template=template.replace('"', '\\"')))
    return path


@pytest.mark.parametrize("template", MUTATIONS)
def test_a_template_that_would_change_what_it_reads_is_refused_at_load(tmp_path: Path, template: str) -> None:
    path = write_persona(tmp_path, template)
    with pytest.raises(PersonaError) as info:
        Persona.from_file(path)
    message = str(info.value)
    assert f"{path}:4" in message and "field instructions" in message and "LiquidSyntaxError" in message


def test_render_cannot_change_the_objects_it_is_given() -> None:
    persona = Persona.model_construct(name="meddler", role="judge", description="d", sampling=Sampling(),
                                      instructions="{% assign case = 'forged' %}{% assign x = charge.quote | "
                                                   "append: '!' %}{{ x }} {{ case }}")
    context, charge = ["The sky is blue."], {"index": 0, "quote": "It is blue.", "reason": "r"}
    text = persona.render(case={"question": "Q?", "answer": "It is blue.", "context": context}, charge=charge,
                          round=1, max_rounds=3)
    assert text == "It is blue.! forged" and context == ["The sky is blue."] and charge["quote"] == "It is blue."


def _rendered_within_memory(templates: dict[str, str]) -> dict[str, list]:
    """How each template ended and the memory it took, rendered in a process of at most `MEMORY` bytes."""
    script = (f"import json, resource, sys, tracemalloc; resource.setrlimit(resource.RLIMIT_AS, ({MEMORY}, {MEMORY}))\n"
              "from courtroom.court.templates import render_template\n"
              "tracemalloc.start(); found = {}\n"
              "for name, template in json.loads(sys.argv[1]).items():\n"
              "    tracemalloc.reset_peak(); base = tracemalloc.get_traced_memory()[0]\n"
              "    try:\n"
              f"        render_template(template, {CASE!r}); outcome = ['rendered', '']\n"
              "    except BaseException as exc:\n"
              "        outcome = [type(exc).__name__, str(exc)[:300]]\n"
              "    found[name] = outcome + [tracemalloc.get_traced_memory()[1] - base]\n"
              "print(json.dumps(found))\n")
    done = subprocess.run([sys.executable, "-c", script, json.dumps(templates)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_every_bomb_is_refused_by_a_counted_limit_with_little_memory() -> None:
    for name, (error, message, peak) in _rendered_within_memory(BOMBS).items():
        assert error == "PersonaError" and "limit" in message.lower(), (name, error, message)
        assert peak < 64 * 2**20, f"{name} took {peak:,} bytes before it was refused"


def test_a_bomb_is_refused_by_personas_validate_naming_the_file_and_line(tmp_path: Path) -> None:
    path = write_persona(tmp_path, BOMBS["nested-loops"])
    done = subprocess.run([sys.executable, "-m", "courtroom.cli", "personas", "validate", str(path)], capture_output=True,
                          text=True, timeout=120, env={"COLUMNS": "1000", "PATH": ""})
    output = " ".join((done.stdout + done.stderr).split())
    assert done.returncode == 1 and f"{path}:4" in output and "LoopIterationLimitError" in output, output
    assert "Traceback" not in output


def test_a_court_with_such_a_persona_does_not_load(tmp_path: Path) -> None:
    import yaml


    write_persona(tmp_path, MUTATIONS[0], "meddler.yaml")
    data = settings("full")
    data["trial"]["personas"]["judge"] = "meddler"
    court = tmp_path / "court.yaml"
    court.write_text(yaml.safe_dump(data, sort_keys=False))
    with pytest.raises(CourtError) as info:
        load_court(court)
    assert "meddler.yaml:4" in str(info.value) and "field instructions" in str(info.value)


def test_a_template_that_reads_a_long_case_renders() -> None:
    context = ["word " * 20_000]  # 100,000 characters
    text = render_template("{{ case.context | join }}{% for c in case.context %}{{ c | size }}{% endfor %}",
                           {"case": {"question": "Q?", "answer": "A.", "context": context}})
    assert text.endswith("100000") and len(text) == 100_006 < OUTPUT_CHARS
    reads = ("{% for passage in case.context %}[{{ forloop.index }}] {{ passage | upcase }} {% endfor %}"
             "{{ case.context | join: ', ' }} {{ charge.quote | append: '!' }} {{ charge.grounding | round: 1 }}")
    assert render_template(reads, {"case": {"context": ["a", "b"]}, "charge": {"quote": "A.", "grounding": -0.54}}) == \
        "[1] A [2] B a, b A.! -0.5"
