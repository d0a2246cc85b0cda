"""The paper cuts a new user hit (#23.6), each through the real command on the pseudo-model."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from courtroom.cli import app
from courtroom.log.audit import Audit
from tests.helpers.pseudo_cli import PseudoRunner, pseudo_runs  # noqa: F401 (fixture)

runner = CliRunner()
WIDE = {"COLUMNS": "200"}
COURTS_PAGE = Path(__file__).resolve().parents[2] / "docs" / "courts-and-personas.md"


def test_balanced_limit_says_when_it_judges_fewer_cases(tmp_path: Path, pseudo_runs) -> None:  # noqa: F811
    odd = runner.invoke(app, ["run", "examples", "--judge", "rails", "--balanced", "--limit", "5",
                              "--out", str(tmp_path / "odd")], env=WIDE)
    assert odd.exit_code == 0, odd.output
    assert "--balanced --limit 5 judges 2 cases per label, 4 in all (a balanced sample has as many FAIL as PASS" \
        in " ".join(odd.output.split())
    assert len(Audit(tmp_path / "odd").rows()) == 4
    even = runner.invoke(app, ["run", "examples", "--judge", "rails", "--balanced", "--limit", "4",
                               "--out", str(tmp_path / "even")], env=WIDE)
    assert even.exit_code == 0 and "note" not in even.output


def test_a_run_that_failed_before_its_first_case_takes_the_corrected_command(tmp_path: Path, pseudo_runs,  # noqa: F811
                                                                               monkeypatch) -> None:
    from courtroom.door import ScriptedBackend
    from courtroom.runs.runners import LocalRunner

    class Unloadable(ScriptedBackend):
        def prepare(self) -> None:
            raise OSError("org/missing-model is not a local folder and the Hub is unreachable")

    out = str(tmp_path / "r")
    monkeypatch.setattr("courtroom.runs.start.make_runner",
                        lambda runner, backend: LocalRunner(Unloadable(lambda request: "factual", model="org/x")))
    failed = runner.invoke(app, ["run", "examples", "--judge", "single", "--out", out], env=WIDE)
    assert failed.exit_code == 2 and "could not be loaded" in failed.output
    assert (tmp_path / "r" / "manifest.json").exists() and not Audit(out).rows()
    monkeypatch.undo()
    pseudo_runs.clear()
    # the corrected command (another judge) runs where the first failed
    monkeypatch.setattr("courtroom.runs.start.make_runner", PseudoRunner(pseudo_runs))
    fixed = runner.invoke(app, ["run", "examples", "--judge", "rails", "--limit", "3", "--out", out], env=WIDE)
    assert fixed.exit_code == 0, fixed.output
    assert len(Audit(out).rows()) == 3 and Audit(out).store.manifest().spec.judge.name == "rails"
    refused = runner.invoke(app, ["run", "examples", "--judge", "single", "--limit", "3", "--out", out], env=WIDE)
    assert refused.exit_code == 2
    assert "judge: 'rails' -> 'single'" in " ".join(refused.output.split())


def test_compare_labels_delta_prints_small_p_values_in_scientific_notation_and_keeps_names_whole(
        tmp_path: Path, pseudo_runs) -> None:  # noqa: F811
    from courtroom.evaluate.results import ResultRow
    from courtroom.log.store import RunStore

    names = []
    for name, wrong in (("a-reference-run-with-a-long-name", 0), ("another-run-whose-name-is-long-too", 40)):
        out = tmp_path / name
        assert runner.invoke(app, ["run", "examples", "--judge", "rails", "--limit", "2", "--out", str(out)]).exit_code == 0
        # 60 cases with gold: the reference right on all, the other wrong on 40 (McNemar p ~ 1.8e-12)
        rows = [ResultRow(case_id=f"c{i}", source="s", gold="FAIL" if i % 2 else "PASS",
                          label=("PASS" if i % 2 else "FAIL") if i < wrong else ("FAIL" if i % 2 else "PASS"),
                          score=0.5) for i in range(60)]
        RunStore(out).results_path.write_text("".join(r.model_dump_json() + "\n" for r in rows))
        names.append(str(out))
    result = runner.invoke(app, ["compare", *names], env={"COLUMNS": "120"})
    assert result.exit_code == 0, result.output
    text = result.output
    assert "a-reference-run-with-a-long-name" in text and "another-run-whose-name-is-long-too" in text
    assert "Δ = a-reference-run-with-a-long-name − run" in " ".join(text.split())
    assert "Δ > 0: the reference is ahead" in " ".join(text.split())
    assert re.search(r"\d\.\de-1\d", text) and "0.0000" not in text
    assert "+0.667" in text  # reference − run: 1.000 − 0.333


def test_audit_edit_numbers_edits_in_the_run(tmp_path: Path, pseudo_runs) -> None:  # noqa: F811
    out = tmp_path / "court"
    assert runner.invoke(app, ["run", "examples", "--limit", "4", "--out", str(out)]).exit_code == 0
    cases = [r.case_id for r in Audit(out).rows()][:2]
    said = []
    for case_id in cases:
        result = runner.invoke(app, ["audit", "edit", str(out), case_id, "--verdict", "supported", "--reason", "r",
                                     "--author", "me"], env=WIDE)
        assert result.exit_code == 0, result.output
        said.append(re.search(r"recorded judgement (\d+) of", result.output).group(1))
    assert said == ["1", "2"]


def test_persona_search_paths_are_named_once(tmp_path: Path, monkeypatch) -> None:
    court = (Path(__file__).resolve().parents[2] / "personas" / "courts" / "full.yaml").read_text()
    (tmp_path / "mine.yaml").write_text(court.replace("judge: judge}", "judge: nobody}"))
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["court", "validate", "mine.yaml"], env=WIDE)
    assert result.exit_code != 0
    listed = re.search(r"looked for nobody.yaml in (.*)\)", " ".join(result.output.split())).group(1).split(", ")
    assert len(listed) == len(set(listed)) == 2, listed  # the court's folder (here the working directory), shipped


def test_the_docs_persona_and_court_examples_load(tmp_path: Path) -> None:
    """The inline persona and court of docs/courts-and-personas.md, written to files as the page says, validate."""
    text = COURTS_PAGE.read_text()
    blocks = re.findall(r"```yaml\n# (\S+\.yaml)\n(.*?)```", text, re.S)
    files = dict(blocks)
    assert {"skeptic.yaml", "quick_court.yaml"} <= set(files), list(files)
    for name, body in files.items():
        (tmp_path / name).write_text(body)
    persona = runner.invoke(app, ["personas", "validate", str(tmp_path / "skeptic.yaml")], env=WIDE)
    assert persona.exit_code == 0, persona.output
    court = runner.invoke(app, ["court", "validate", str(tmp_path / "quick_court.yaml")], env=WIDE)
    assert court.exit_code == 0 and "ok quick" in court.output, court.output
    assert "every edge needs a `description`" in " ".join(text.split())


@pytest.mark.parametrize("name", ["Ruling", "Charge"])
def test_charge_numbers_are_documented_from_0_in_records_and_from_1_for_people(name: str) -> None:
    import courtroom.case as case

    model = getattr(case, name)
    doc = model.model_fields["charge" if name == "Ruling" else "index"].description
    assert "from 0" in doc and "+ 1" in doc
    assert json.dumps(doc)
