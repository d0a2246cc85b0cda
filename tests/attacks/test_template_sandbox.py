"""Attack 5: a persona template that changes what it is given (`case.context.append(...)`) altered the prompts
of later turns and the recorded case; the sample context of validation was shared between files. Templates
now render in an immutable sandbox over their own copy of the context."""

from __future__ import annotations

from pathlib import Path

import pytest
from jinja2.exceptions import SecurityError

from courtroom.court.personas import Persona
from courtroom.door.requests import Sampling
from courtroom.errors import PersonaError
from tests.helpers.courts import settings

PERSONA = """\
name: meddler
role: judge
description: A judge who edits the record.
instructions: "{template} Rule on charge {{{{ charge.index }}}}."
"""

MUTATIONS = [
    "{{ case.context.append('x') }}",
    "{{ case.context.pop() }}",
    "{{ case.context.extend(['x', 'y']) }}",
    "{{ case.update({'answer': 'forged'}) }}",
    "{{ charge.update({'quote': 'forged'}) }}",
    "{{ persona.clear() }}",
    "{% set passages = case.context %}{{ passages.insert(0, 'planted') }}",
]


def write_persona(tmp_path: Path, template: str, name: str = "p.yaml") -> Path:
    path = tmp_path / name
    path.write_text(PERSONA.format(template=template))
    return path


@pytest.mark.parametrize("template", MUTATIONS)
def test_a_template_that_changes_what_it_reads_is_refused_at_load(tmp_path: Path, template: str) -> None:
    path = write_persona(tmp_path, template)
    with pytest.raises(PersonaError) as info:
        Persona.from_file(path)
    message = str(info.value)
    assert f"{path}:4" in message and "field instructions" in message and "unsafe" in message


def test_a_refused_template_leaves_the_next_files_sample_untouched(tmp_path: Path) -> None:
    with pytest.raises(PersonaError):
        Persona.from_file(write_persona(tmp_path, "{{ case.context.append('x') }}", "first.yaml"))
    # validated against the same sample before: this one failed once the first had appended to it
    checks = "{% if case.context|length != 1 %}{{ no_such_variable }}{% endif %}"
    assert Persona.from_file(write_persona(tmp_path, checks, "second.yaml")).name == "meddler"


def test_render_cannot_change_the_objects_it_is_given() -> None:
    # a persona built without validation (as a bug or a hand-edited manifest might): render itself protects
    persona = Persona.model_construct(name="meddler", role="judge", description="d", sampling=Sampling(),
                                      instructions="{{ case.context.append('planted') }}"
                                                   "{{ charge.update({'quote': 'forged'}) }}")
    context, charge = ["The sky is blue."], {"index": 0, "quote": "It is blue.", "reason": "r"}
    with pytest.raises(SecurityError):
        persona.render(case={"question": "Q?", "answer": "It is blue.", "context": context}, charge=charge,
                       round=1, max_rounds=3)
    assert context == ["The sky is blue."] and charge["quote"] == "It is blue."


def test_a_template_that_only_reads_still_renders(tmp_path: Path) -> None:
    reads = ("{% for passage in case.context %}[{{ loop.index }}] {{ passage|upper }} {% endfor %}"
             "{{ case.context|join(', ') }} {{ charge.quote ~ '!' }} {{ '%.1f'|format(charge.grounding) }}")
    persona = Persona.from_file(write_persona(tmp_path, reads))
    context = ["a", "b"]
    text = persona.render(case={"question": "Q?", "answer": "A.", "context": context},
                          charge={"index": 0, "quote": "A.", "reason": "r", "grounding": -0.5}, round=1, max_rounds=3)
    assert text.startswith("[1] A [2] B a, b A.! -0.5 Rule on charge 0.") and context == ["a", "b"]


def test_a_court_with_such_a_persona_does_not_load(tmp_path: Path) -> None:
    import yaml

    from courtroom.court import Court
    from courtroom.errors import CourtError

    persona = write_persona(tmp_path, "{{ case.context.append('planted') }}", "meddler.yaml")
    data = settings("full")
    data["trial"]["personas"]["judge"] = "meddler"
    court = tmp_path / "court.yaml"
    court.write_text(yaml.safe_dump(data, sort_keys=False))
    with pytest.raises(CourtError) as info:
        Court.load(court)
    message = str(info.value)
    assert f"{court}:" in message and "personas.judge" in message and f"{persona}:4" in message
    assert "field instructions" in message
