"""Personas and courts are validated on load; a broken file names its path, line and field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from courtroom.clerk import Clerk
from courtroom.court import Court
from courtroom.court.personas import Persona, persona_json_schema, shipped_personas
from courtroom.courts import court_json_schema, courts_dir, load_court
from courtroom.errors import CourtError, PersonaError
from tests.helpers.courts import court_file, write

GOOD_PERSONA = """\
name: my_judge
role: judge
description: A judge.
instructions: |
  You are {{ persona.name }}. Charge {{ charge.index }} in round {{ round }} of {{ max_rounds }}.
sampling: {temperature: 0.0, max_new_tokens: 100}
"""


@pytest.mark.parametrize("path", shipped_personas(), ids=lambda p: p.stem)
def test_every_shipped_persona_loads_and_renders(path: Path) -> None:
    persona = Persona.from_file(path)
    text = persona.render(case={"question": "q", "answer": "a", "context": ["c"]},
                          charge={"index": 0, "quote": "a", "reason": "r"}, round=1, max_rounds=3)
    assert text and "{{" not in text


@pytest.mark.parametrize("name", sorted(p.stem for p in courts_dir().glob("*.yaml")))
def test_every_shipped_court_loads(name: str) -> None:
    court = load_court(name)
    if not isinstance(court, Court):  # the clerk alone: no procedure to draw
        assert name == "default" and isinstance(court, Clerk)
        return
    assert court.procedure.problems() == []
    mermaid = court.to_mermaid()
    assert mermaid.count("-->") == len(court.spec.trial.graph.edges)


@pytest.mark.parametrize("mutation, line, field, expected", [
    ({"temperature_typo": ("sampling:", "sampling: {temprature: 0.0}\n#")}, 6, "sampling.temprature",
     "Extra inputs are not permitted"),
    ({"unknown": ("description:", "colour: red\ndescription:")}, 3, "colour", "Extra inputs are not permitted"),
    ({"template": ("{{ round }}", "{{ rounds }}")}, 4, "instructions", "'rounds' is undefined"),
    ({"type": ("max_new_tokens: 100", "max_new_tokens: lots")}, 6, "sampling.max_new_tokens",
     "valid integer"),
    ({"runtime": ("{{ round }}", "{{ round | divided_by: 0 }}")}, 4, "instructions", "can't divide by 0"),
    ({"model": ("description:", "model: qwen2.5-coder-0.5b\ndescription:")}, 3, "model",
     "a persona file names no model: seat its role on one in the court"),
])
def test_broken_persona_names_file_line_and_field(tmp_path: Path, mutation, line, field, expected) -> None:
    [(old, new)] = mutation.values()
    path = write(tmp_path, "p.yaml", GOOD_PERSONA.replace(old, new, 1))
    with pytest.raises(PersonaError) as info:
        Persona.from_file(path)
    message = str(info.value)
    assert f"{path}:{line}" in message and f"field {field}" in message and expected in message


def test_invalid_yaml_names_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, "p.yaml", "name: x\nrole: [judge\ndescription: y\n")
    with pytest.raises(PersonaError, match=rf"{path}:\d+: invalid YAML"):
        Persona.from_file(path)


def test_a_key_written_twice_names_both_lines(tmp_path: Path) -> None:
    path = write(tmp_path, "p.yaml", GOOD_PERSONA + "description: Another judge.\n")
    with pytest.raises(PersonaError, match=rf"{path}:7: invalid YAML: key 'description' appears twice .*line 3"):
        Persona.from_file(path)


def test_templates_may_read_every_field_of_a_charge(tmp_path: Path) -> None:
    text = GOOD_PERSONA.replace("{{ round }}", "{{ round }} (grounding {{ charge.grounding }})")
    assert "grounding" in Persona.from_file(write(tmp_path, "p.yaml", text)).instructions


def _set(path, value):
    def edit(data):
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return edit


@pytest.mark.parametrize("edit, expected", [
    (_set(["trial", "graph", "edges", 4, "to"], "nowhere"), "leads to unknown target 'nowhere'"),
    (_set(["trial", "graph", "edges", 5, "new_round"], False), "has no new_round move"),
    (_set(["trial", "graph", "edges", 0, "payload"], "sonnet"), "unknown payload 'sonnet'"),
    (_set(["trial", "graph", "start"], "lobby"), "start 'lobby' is not a node"),
    (_set(["trial", "personas"], {"prosecutor": "prosecutor", "defender": "defender"}), "role 'judge' has no persona"),
    (_set(["trial", "graph", "edges", 1, "move"], "argue"), "declared twice"),
    (_set(["trial", "max_rounds"], 0), "greater than or equal to 1"),
    (_set(["trial", "evidence_roles"], ["defence"]), "role 'defence' never speaks in the graph"),
])
def test_illegal_courts_are_rejected_with_file_and_field(tmp_path: Path, edit, expected) -> None:
    path = court_file(tmp_path, edit)
    with pytest.raises(CourtError) as info:
        load_court(path)
    message = str(info.value)
    assert expected in message and str(path) in message and "field" in message


def test_a_court_with_no_reachable_verdict_is_illegal(tmp_path: Path) -> None:
    def edit(data):
        graph = data["trial"]["graph"]
        graph["edges"] = [e for e in graph["edges"] if e["to"] in graph["nodes"]]
    with pytest.raises(CourtError, match="no verdict"):
        load_court(court_file(tmp_path, edit))


def test_personas_are_found_next_to_the_court(tmp_path: Path) -> None:
    path = court_file(tmp_path, _set(["trial", "personas", "judge"], "my_judge"), persona_text=GOOD_PERSONA)
    assert load_court(path).bench.persona("judge").name == "my_judge"


def test_a_persona_in_the_wrong_role_is_rejected(tmp_path: Path) -> None:
    path = court_file(tmp_path, _set(["trial", "personas", "judge"], "defender"))
    with pytest.raises(CourtError, match="has role 'defender', but sits as 'judge'"):
        load_court(path)


def test_json_schemas_for_editors() -> None:
    persona = persona_json_schema()
    assert persona["additionalProperties"] is False and "instructions" in persona["properties"]
    court = court_json_schema()
    assert "trial" in court["properties"] and "$schema" in court["properties"] and "extends" in court["properties"]
    assert "graph" in court["$defs"]["TrialSpec"]["properties"]


def test_the_shipped_json_schemas_are_those_the_code_writes() -> None:
    """Editors validate court and persona files against `personas/*.schema.json`: a setting added to the code must
    reach them (`courtroom court schema > personas/court.schema.json`, `courtroom personas schema -o ...`)."""
    from courtroom.court import shipped_dir

    assert json.loads((shipped_dir() / "court.schema.json").read_text()) == court_json_schema()
    assert json.loads((shipped_dir() / "persona.schema.json").read_text()) == persona_json_schema()
