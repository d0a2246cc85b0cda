"""More paper cuts a newcomer hit (the second list), each through the real command on the pseudo-model."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from courtroom.cli import app
from courtroom.log.audit import Audit
from tests.helpers.pseudo_cli import pseudo_runs  # noqa: F401 (fixture)

runner = CliRunner()
WIDE = {"COLUMNS": "200"}


def test_audit_edit_takes_the_verdict_words_of_the_data_pass_and_fail(tmp_path: Path, pseudo_runs) -> None:  # noqa: F811
    out = tmp_path / "court"
    assert runner.invoke(app, ["run", "examples", "--limit", "4", "--out", str(out)]).exit_code == 0
    first, second = [r.case_id for r in Audit(out).rows()][:2]
    for case_id, word, label in ((first, "FAIL", "FAIL"), (second, "pass", "PASS"), (first, "supported", "PASS"),
                                 (second, "hallucinated", "FAIL")):
        result = runner.invoke(app, ["audit", "edit", str(out), case_id, "--verdict", word, "--reason", "r",
                                     "--author", "me"], env=WIDE)
        assert result.exit_code == 0, result.output
        assert f"case -> {label}" in result.output
        assert {r.case_id: r.label for r in Audit(out).corrected_rows()}[case_id] == label
    refused = runner.invoke(app, ["audit", "edit", str(out), first, "--verdict", "yes", "--reason", "r",
                                  "--author", "me"], env=WIDE)
    assert refused.exit_code == 2
    assert "--verdict must be PASS or FAIL (or supported or hallucinated), not 'yes'" in refused.output


def test_the_help_says_what_the_default_court_does(tmp_path: Path) -> None:
    """It said "by holding a trial", which the default court never holds."""
    text = " ".join(runner.invoke(app, ["--help"], env=WIDE).output.split())
    assert "holding a trial" not in text
    assert "The default court measures how well the context grounds each sentence of the answer, hears its " \
           "witnesses" in text and "no trial" in text and "--court full" in text


def test_every_folder_of_the_package_is_a_listed_package_with_its_data() -> None:
    """A folder Python can import that setuptools is not told about (`courtroom.data`, the report's templates, the
    shipped courts) made ~120 lines of warnings on every install; its files must still ship as package data."""
    from fnmatch import fnmatch

    tomllib = pytest.importorskip("tomllib")
    root = Path(__file__).resolve().parents[2]
    setup = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]
    roots = {"courtroom": root / "courtroom", **{name: root / folder for name, folder in setup["package-dir"].items()}}
    folders = {}
    for name, top in roots.items():
        folders[name] = top
        for folder in top.rglob("*"):
            parts = folder.relative_to(top).parts
            if folder.is_dir() and "__pycache__" not in parts and all(p.isidentifier() for p in parts):
                folders.setdefault(".".join((name, *parts)), folder)
    assert sorted(folders) == sorted(setup["packages"])
    for name, folder in folders.items():
        data = [f.name for f in folder.iterdir() if f.is_file() and f.suffix not in (".py", ".pyc")]
        patterns = setup["package-data"].get(name, [])
        assert all(any(fnmatch(file, p) for p in patterns) for file in data), (name, data, patterns)


def test_personas_validate_refuses_a_role_no_court_seats(tmp_path: Path) -> None:
    persona = "name: expert_witness\nrole: expert\ndescription: d\ninstructions: hi\n"
    (tmp_path / "expert.yaml").write_text(persona)
    (tmp_path / "typo.yaml").write_text(persona.replace("role: expert", "role: judg").replace("expert_witness", "x"))
    refused = runner.invoke(app, ["personas", "validate", str(tmp_path)], env=WIDE)
    assert refused.exit_code == 1
    lines = refused.output.splitlines()
    assert f"invalid {tmp_path / 'typo.yaml'}:2: field role: no court seats 'judg' (the shipped courts seat clerk, " \
           "defender, judge, jury, prosecutor; give --court to check it against your own)" in lines
    assert any(line.startswith(f"invalid {tmp_path / 'expert.yaml'}:2: field role: no court seats 'expert'")
               for line in lines)
    court = (Path(__file__).resolve().parents[2] / "personas" / "courts" / "full.yaml").read_text()
    (tmp_path / "courts").mkdir()
    (tmp_path / "courts" / "mine.yaml").write_text(court.replace("judge: judge}", "judge: judge, expert: ../expert.yaml}"))
    mine = runner.invoke(app, ["personas", "validate", str(tmp_path / "expert.yaml"), "--court",
                               str(tmp_path / "courts" / "mine.yaml")], env=WIDE)
    assert mine.exit_code == 0 and "ok " in mine.output and "role expert" in mine.output, mine.output
    other = runner.invoke(app, ["personas", "validate", str(tmp_path / "expert.yaml"), "--court", "full"], env=WIDE)
    assert other.exit_code == 1 and "court full seats defender, judge, prosecutor)" in other.output
    unknown = runner.invoke(app, ["personas", "validate", str(tmp_path / "expert.yaml"), "--court", "nope"], env=WIDE)
    assert unknown.exit_code == 2 and "unknown court 'nope'" in unknown.output


SHIPPED = Path(__file__).resolve().parents[2] / "personas"


def _prosecutor(folder: Path, name: str, role: str = "prosecutor") -> Path:
    path = folder / f"{name}.yaml"
    text = (SHIPPED / "prosecutor.yaml").read_text().replace("name: prosecutor", f"name: {name}")
    path.write_text(text.replace("role: prosecutor", f"role: {role}").replace("You are the prosecutor.",
                                                                              f"You are {name}."))
    return path


def test_set_personas_role_seats_that_persona_and_the_manifest_records_it(tmp_path: Path, pseudo_runs,  # noqa: F811
                                                                          monkeypatch) -> None:
    from courtroom.log.recorded_court import recorded_court
    from courtroom.log.store import RunStore

    _prosecutor(tmp_path, "sharp")
    monkeypatch.chdir(tmp_path)  # a relative file is looked for from the working directory first
    out = tmp_path / "run"
    result = runner.invoke(app, ["run", "examples", "--court", "full", "--limit", "2", "--set",
                                 "personas.prosecutor=sharp.yaml", "--out", str(out)], env=WIDE)
    assert result.exit_code == 0, result.output
    judge = RunStore(out).manifest().judge
    assert judge["court"]["trial"]["personas"]["prosecutor"] == "sharp.yaml"
    assert [p["name"] for p in judge["personas"]["prosecutor"]] == ["sharp"]
    assert "You are sharp." in judge["personas"]["prosecutor"][0]["instructions"]
    assert [p["name"] for p in judge["personas"]["defender"]] == ["defender"]  # the others as the court names them
    # the court a run recorded, with another persona set over it; and a name among the shipped personas
    other = _prosecutor(tmp_path, "other")
    court = recorded_court(out, overrides={"personas.prosecutor": str(other), "personas.judge": "strict_judge"})
    assert court.personas["prosecutor"][0].name == "other" and court.personas["judge"][0].name == "strict_judge"
    assert recorded_court(out).personas["prosecutor"][0].name == "sharp"


def test_set_personas_role_refuses_a_file_that_is_missing_or_does_not_validate(tmp_path: Path, pseudo_runs) -> None:  # noqa: F811
    out = tmp_path / "run"
    args = ["run", "examples", "--court", "full", "--limit", "2", "--out", str(out), "--set"]
    missing = runner.invoke(app, [*args, f"personas.prosecutor={tmp_path / 'nope.yaml'}"], env=WIDE)
    assert missing.exit_code == 2
    assert f"error: --set trial.personas.prosecutor: persona file {tmp_path / 'nope.yaml'} not found" in missing.output
    judge = _prosecutor(tmp_path, "a_judge", role="judge")
    seated = runner.invoke(app, [*args, f"personas.prosecutor={judge}"], env=WIDE)
    assert seated.exit_code == 2
    assert "--set trial.personas.prosecutor: persona 'a_judge' has role 'judge', but sits as 'prosecutor'" in seated.output
    broken = tmp_path / "broken.yaml"
    broken.write_text((SHIPPED / "prosecutor.yaml").read_text() + "colour: red\n")
    invalid = runner.invoke(app, [*args, f"personas.prosecutor={broken}"], env=WIDE)
    line = len(broken.read_text().splitlines())  # the line of `colour`, the last
    assert invalid.exit_code == 2 and f"--set trial.personas.prosecutor: {broken}:{line}: field colour" in invalid.output
    unknown = runner.invoke(app, [*args, f"personas.expert={judge}"], env=WIDE)
    assert unknown.exit_code == 2 and "--set trial.personas.expert: the court seats no 'expert'" in unknown.output
    assert not out.exists() and not pseudo_runs


def test_runs_of_two_courts_on_one_file_get_their_own_default_directories(tmp_path: Path, pseudo_runs,  # noqa: F811
                                                                          monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    default = runner.invoke(app, ["run", "examples", "--limit", "2"], env=WIDE)
    assert default.exit_code == 0, default.output
    full = runner.invoke(app, ["run", "examples", "--limit", "2", "--court", "full"], env=WIDE)
    assert full.exit_code == 0, full.output  # it was refused: both went to runs/examples-courtroom-default
    placed = r"\(cpu, (bfloat16|float32)\)"  # where and in what type the model computes, as auto found this machine
    assert re.search(rf"court full \(courtroom judge\) on 2 cases of examples with model default {placed} -> "
                     r"runs/examples-full-default", " ".join(full.output.split()))
    rails = runner.invoke(app, ["run", "examples", "--limit", "2", "--judge", "rails"], env=WIDE)
    assert rails.exit_code == 0 and re.search(rf"rails judge on 2 cases of examples with model default {placed} -> "
                                              r"runs/examples-rails-default", " ".join(rails.output.split()))
    assert sorted(p.name for p in (tmp_path / "runs").iterdir()) == ["examples-default-default", "examples-full-default",
                                                                     "examples-rails-default"]
    summary = runner.invoke(app, ["audit", "runs/examples-full-default"], env=WIDE)
    assert summary.exit_code == 0 and "judge courtroom, court full, model default, 2 cases" in summary.output
    assert json.loads(runner.invoke(app, ["audit", "runs/examples-full-default", "--json"]).stdout)["court"] == "full"
    # a run directory of another court: another --out first, and what --fresh would delete
    refused = runner.invoke(app, ["run", "examples", "--limit", "2", "--court", "escalated", "--out",
                                  "runs/examples-full-default"], env=WIDE)
    assert refused.exit_code == 2
    text = " ".join(refused.output.split())
    assert "use another --out (this run stays as it is), --court runs/examples-full-default to finish it with the " \
           "court it was started with, or --fresh to delete its 2 judged cases and start over" in text


def test_run_and_demo_end_with_the_next_step(tmp_path: Path, pseudo_runs, monkeypatch) -> None:  # noqa: F811
    from courtroom.door import PseudoModel, ScriptedBackend
    from courtroom.engine.registry import JudgeSpec

    out = tmp_path / "my run"
    result = runner.invoke(app, ["run", "examples", "--limit", "2", "--out", str(out)], env=WIDE)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1] == f"next: courtroom audit '{out}' (the summary), courtroom audit report " \
                                             f"'{out}' -o report.html (every case)"
    build = JudgeSpec.build
    monkeypatch.setattr(JudgeSpec, "build", lambda self, backend=None, **options: build(
        self, ScriptedBackend(PseudoModel(), model="default"), **options))
    demo = runner.invoke(app, ["demo", "--court", "full", "--limit", "2"], env=WIDE)
    assert demo.exit_code == 0, demo.output
    assert demo.output.splitlines()[-1] == "next: courtroom run examples --court full (writes runs/examples-full-default), " \
                                           "then courtroom audit runs/examples-full-default"
    rails = runner.invoke(app, ["demo", "--judge", "rails", "--limit", "1", "--model", "org/m"], env=WIDE)
    assert rails.output.splitlines()[-1] == "next: courtroom run examples --judge rails --model org/m (writes " \
                                            "runs/examples-rails-org_m), then courtroom audit runs/examples-rails-org_m"


def test_piped_tables_are_never_cut_and_errors_are_one_line(tmp_path: Path, pseudo_runs) -> None:  # noqa: F811
    """Piped or in CI (no terminal, no COLUMNS), tables were 80 columns with cut cells and errors wrapped."""
    sources = [f"a-rather-long-source-name-of-some-benchmark-collection/part-{i}" for i in range(2)]
    data = tmp_path / "cases.jsonl"
    data.write_text("".join(json.dumps({"id": f"case-{i}", "question": "q", "context": "The sky is blue.",
                                        "answer": "The sky is blue.", "label": "PASS" if i % 2 else "FAIL",
                                        "source": sources[i % 2]}) + "\n" for i in range(4)))
    out = tmp_path / "run"
    assert runner.invoke(app, ["run", str(data), "--judge", "rails", "--out", str(out)]).exit_code == 0
    piped = {"COLUMNS": None}
    summary = runner.invoke(app, ["audit", str(out)], env=piped)
    assert summary.exit_code == 0, summary.output
    assert "…" not in summary.output and all(source in summary.output for source in sources)
    assert max(map(len, summary.output.splitlines())) > 80
    missing = tmp_path.joinpath(*["a-directory-with-a-long-name"] * 12)  # longer than the widest table
    error = runner.invoke(app, ["audit", str(missing)], env=piped)
    assert error.exit_code == 2 and len(error.output.splitlines()) == 1 and len(error.output) > 320, error.output
