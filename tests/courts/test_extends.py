"""Court files that extend another court change only what they name; `court show` prints every setting a court
resolves to and the file it came from; court files of the flat format (before the trial section) still load."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from courtroom.cli import app
from courtroom.court import Court
from courtroom.courts import load_court, read_court
from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.errors import CourtError
from courtroom.evaluate.datasets import example_cases

SHIPPED = Path(__file__).resolve().parents[2] / "personas"
NEWCOMER_CASES = example_cases()[:5]


def _events(court: Court) -> list[list[dict]]:
    """Each case's debate and model calls, without times, numbers and the configuration's hash."""
    out = []
    for outcome in sorted(court.run_many(NEWCOMER_CASES), key=lambda o: o.case.id):  # in the order they end
        out.append([e.model_dump(mode="json", exclude={"seq", "time", "config_hash", "seconds", "batch_size", "step"})
                    for e in outcome.events if e.event != "case_start"])
    return out


def test_a_court_that_extends_full_and_seats_a_copy_of_its_judge_judges_as_full_does(tmp_path: Path) -> None:
    (tmp_path / "my_judge.yaml").write_text((SHIPPED / "judge.yaml").read_text().replace("name: judge", "name: mine"))
    (tmp_path / "mine.yaml").write_text("name: mine\nextends: full\ntrial:\n  personas: {judge: my_judge.yaml}\n")
    mine = load_court(tmp_path / "mine.yaml", ScriptedBackend(PseudoModel(), model="default"))
    full = load_court("full", ScriptedBackend(PseudoModel(), model="default"))
    assert mine.spec.model_dump(exclude={"name", "trial"}) == full.spec.model_dump(exclude={"name", "trial"})
    assert mine.personas["judge"][0].name == "mine" and mine.personas["prosecutor"] == full.personas["prosecutor"]
    theirs, ours = _events(full), _events(mine)
    for a, b in zip(theirs, ours):  # the same prompts and decisions; only the judge's name in its calls differs
        assert [{k: v for k, v in e.items() if k != "persona"} for e in a] == \
            [{k: v for k, v in e.items() if k != "persona"} for e in b]
    assert any(e.get("persona") == "mine" for case in ours for e in case)


def test_a_court_that_extends_full_with_another_judge_differs_only_where_the_judge_speaks(tmp_path: Path) -> None:
    (tmp_path / "mine.yaml").write_text("name: mine\nextends: full\ntrial:\n  personas: {judge: strict_judge}\n")
    mine = load_court(tmp_path / "mine.yaml", ScriptedBackend(PseudoModel(), model="default"))
    full = load_court("full", ScriptedBackend(PseudoModel(), model="default"))
    spoke = 0
    for a, b in zip(_events(full), _events(mine)):
        turns = [(x, y) for x, y in zip(a, b) if x["event"] in ("charges", "model_call", "move", "ruling")]
        for x, y in turns:  # up to the judge's first turn every call and move is the same
            if x.get("role") == "judge" or y.get("role") == "judge":
                spoke += 1
                break
            assert x == y
    assert spoke, "the judge never spoke on the five cases: the test would show nothing"


def test_a_child_may_write_a_trial_setting_as_the_flat_format_did(tmp_path: Path) -> None:
    (tmp_path / "banded.yaml").write_text("name: banded\nextends: full\nescalation: {low: 0.6, high: 0.8}\n")
    court = load_court(tmp_path / "banded.yaml")
    assert court.spec.trial.escalation.low == 0.6 and court.spec.trial.judge_weight == 0.1


def test_null_removes_a_section_and_every_other_setting_comes_from_the_parent(tmp_path: Path) -> None:
    (tmp_path / "no_witnesses.yaml").write_text("name: lean\nextends: default\nwitnesses: null\nmax_charges: 2\n")
    court = read_court(tmp_path / "no_witnesses.yaml")
    assert "witnesses" not in court.data and court.data["max_charges"] == 2 and court.lineage == ("default",)
    assert court.origin[("max_charges",)].endswith("no_witnesses.yaml")
    assert court.origin[("grounding", "clip")].endswith("default.yaml")
    assert load_court(tmp_path / "no_witnesses.yaml").spec.witnesses is None


@pytest.mark.parametrize(("text", "says"), [
    ("name: a\nextends: b.yaml\n", "extend one another in a circle"),
    ("extends: full\n", "field name: a court that extends another names itself"),
    ("name: a\nextends: nowhere\n", "field extends: unknown court 'nowhere'"),
    ("name: a\nextends: [full]\n", "field extends: expected a court's name or file"),
    ("name: a\nextends: full\ntrial: {rules: r}\nescalation: {low: 0.6, high: 0.8}\n",
     "field escalation: a setting of the trial belongs in the trial section \\(trial.escalation\\)"),
])
def test_a_broken_extension_names_the_file_and_field(tmp_path: Path, text: str, says: str) -> None:
    (tmp_path / "a.yaml").write_text(text)
    (tmp_path / "b.yaml").write_text("name: b\nextends: a.yaml\n")
    with pytest.raises(CourtError, match=says) as raised:
        load_court(tmp_path / "a.yaml")
    assert str(tmp_path) in str(raised.value)


def test_a_court_file_of_the_flat_format_loads_as_its_clerk_and_trial(tmp_path: Path) -> None:
    flat = load_court("jury").spec.model_dump(mode="json", by_alias=True, exclude={"schema_path"})
    trial = flat.pop("trial")
    later = ("judge_weight", "evidence_roles", "charges", "exchange_rounds", "poll_moves", "testify", "blind_judge",
             "texts", "reading")
    flat.update({**{k: v for k, v in trial.items() if k not in later},
                 "ruling": {"judge_weight": trial["judge_weight"]}, "ruling_evidence_roles": trial["evidence_roles"],
                 "indictment": {"mode": "grounding", "threshold": 0.5}})
    (tmp_path / "old.yaml").write_text(yaml.safe_dump(flat))
    old, jury = load_court(tmp_path / "old.yaml"), load_court("jury")
    assert old.spec.trial.exchange_rounds == 0  # a flat file was written before the rounds of exchange
    assert old.spec.trial.model_copy(update={"exchange_rounds": 1}) == jury.spec.trial and old.spec.grounding == jury.spec.grounding
    retired = dict(flat, move_priors={"nodes": {}})
    (tmp_path / "retired.yaml").write_text(yaml.safe_dump(retired))
    with pytest.raises(CourtError, match="`move_priors` is retired .* is the last version that can replay"):
        load_court(tmp_path / "retired.yaml")


def test_court_show_prints_every_resolved_setting_and_where_it_came_from() -> None:
    shown = CliRunner().invoke(app, ["court", "show", "escalated"], env={"COLUMNS": "300"})
    assert shown.exit_code == 0, shown.output
    lines = {line.split()[0]: line for line in shown.output.splitlines() if line and not line.startswith(" ")}
    assert lines["trial.escalation.low"].endswith("# escalated.yaml")
    assert lines["trial.judge_weight"].endswith("# full.yaml") and lines["grounding.clip"].endswith("# default.yaml")
    assert lines["trial.jury_rule"].endswith("# default") and lines["witnesses"].split()[1] == "null"
    settings = load_court("escalated").spec.model_dump(mode="json", by_alias=True, exclude={"schema_path"})

    def leaves(data: object, prefix: str = "") -> list[str]:
        if isinstance(data, dict) and data:
            return [leaf for key, value in data.items() for leaf in leaves(value, f"{prefix}{key}.")]
        return [prefix.rstrip(".")]
    edges = [f"trial.graph.edges[{i}]" for i in range(len(settings["trial"]["graph"]["edges"]))]
    assert set(leaves(settings)) - {"trial.graph.edges"} | set(edges) <= set(lines)  # every setting is printed
    default = CliRunner().invoke(app, ["court", "show", "default"], env={"COLUMNS": "300"})
    assert default.exit_code == 0 and "flowchart" not in default.output and "witnesses.heard" in default.output
    assert json.loads(default.output.split("witnesses.heard", 1)[1].split("#")[0]) == \
        load_court("default").spec.witnesses.heard


def test_files_a_court_names_are_found_beside_that_court_when_another_folder_extends_it(tmp_path: Path) -> None:
    base, user = tmp_path / "base", tmp_path / "user"
    base.mkdir(), user.mkdir()
    (base / "skeptic.yaml").write_text((SHIPPED / "judge.yaml").read_text().replace("name: judge", "name: skeptic"))
    (base / "quick.yaml").write_text("name: quick\nextends: full\ntrial:\n  personas: {judge: skeptic.yaml}\n")
    (user / "mine.yaml").write_text("name: mine\nextends: ../base/quick.yaml\nmax_charges: 2\n")
    court = load_court(user / "mine.yaml")
    assert court.personas["judge"][0].name == "skeptic" and court.spec.max_charges == 2


def test_a_retired_setting_in_a_court_of_the_new_format_is_named(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("name: a\nextends: default\nwitnesses: {trial: true}\n")
    with pytest.raises(CourtError, match="`witnesses.trial` is retired"):
        load_court(tmp_path / "a.yaml")
    (tmp_path / "b.yaml").write_text("name: b\nextends: full\ntrial: {move_priors: {nodes: {}}}\n")
    with pytest.raises(CourtError, match="`move_priors` is retired"):
        load_court(tmp_path / "b.yaml")
