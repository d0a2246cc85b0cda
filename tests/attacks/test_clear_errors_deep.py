"""Attack 11: tracebacks where a one-line error belongs. A dataset row nested 1,100 deep or a 5,000-digit integer id
(also with --skip-invalid), a YAML file nested 3,000 deep, a run whose recorded persona does not validate (`audit
verify`, `audit`, `run --court RUN_DIR`, `export`, `calibrate`), an empty or damaged `metrics.json` (`audit
verify`), and `Court.score` with a blank answer or context (pydantic's ValidationError) now end with one line that
names the file, row or field and what was expected."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from courtroom.court.personas import Persona
from courtroom.courts import load_court
from courtroom.door import ScriptedBackend
from courtroom.errors import CourtError, DatasetError, MetricArgumentError, PersonaError
from courtroom.evaluate.datasets import LoadReport, load_file
from courtroom.evaluate.metrics import compute_metrics
from courtroom.log.audit import Audit
from courtroom.log.manifest import RunSpec
from courtroom.log.recorded_court import recorded_court
from courtroom.runs.runners import LocalRunner
from courtroom.runs.start import start_run
from tests.helpers.cli import invoke
from tests.helpers.court_script import CourtScript

ROW = {"id": "a", "question": "Q?", "context": ["The sky is blue."], "answer": "It is blue.", "label": "PASS"}


def dataset(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(line + "\n" for line in lines))
    return path


DEEP_ROW = '{"id": "deep", "question": "Q?", "answer": "A.", "context": ' + "[" * 1100 + "]" * 1100 + "}"
HUGE_ID = '{"id": ' + "7" * 5000 + ', "question": "Q?", "answer": "A.", "context": "C."}'


@pytest.mark.parametrize(("line", "says"), [
    (DEEP_ROW, "nested deeper than"), (HUGE_ID, "a number of more than 4300 digits")])
def test_a_row_python_cannot_read_is_a_row_error(tmp_path: Path, line: str, says: str) -> None:
    path = dataset(tmp_path, json.dumps(ROW), line, json.dumps({**ROW, "id": "b"}))
    with pytest.raises(DatasetError, match=rf"^{path}:2: not valid JSON \(.*{says}"):
        load_file(path)
    report = LoadReport(str(path))
    assert [c.id for c in load_file(path, skip_invalid=True, report=report)] == ["a", "b"]
    assert len(report.skipped) == 1 and f"{path}:2" in report.skipped[0]
    code, output = invoke("run", str(path), "--model", "no-such-model", "--out", str(tmp_path / "run"))
    assert code == 2 and f"{path}:2: not valid JSON" in output
    code, output = invoke("run", str(path), "--skip-invalid", "--model", "no-such-model", "--out", str(tmp_path / "run"))
    assert code == 2 and "unknown model 'no-such-model'" in output  # past the dataset, the bad row skipped


def test_a_json_array_nested_too_deep_is_named(tmp_path: Path) -> None:
    path = tmp_path / "cases.json"
    path.write_text("[" + DEEP_ROW + "]")
    with pytest.raises(DatasetError, match=rf"^{path}: not a valid JSON array \(nested deeper than"):
        load_file(path)


def test_a_yaml_file_nested_too_deep_is_named(tmp_path: Path) -> None:
    path = tmp_path / "deep.yaml"
    path.write_text("name: deep\nrole: judge\ndescription: d\ninstructions: Rule.\nsampling: " + "[" * 3000
                    + "]" * 3000 + "\n")
    deep = "invalid YAML: (nested deeper than|exceeded maximum nesting depth)"  # Python's reader, or libyaml's (a line)
    with pytest.raises(PersonaError, match=rf"^{path}(:5)?: {deep}"):
        Persona.from_file(path)
    code, output = invoke("personas", "validate", str(path))
    assert code == 1 and re.search(rf"{path}(:5)?: {deep}", output), output
    court = tmp_path / "court.yaml"
    court.write_text("graph: " + "{a: " * 3000 + "1" + "}" * 3000 + "\n")
    code, output = invoke("court", "validate", str(court))
    assert code == 2 and re.search(rf"{court}(:1)?: {deep}", output), output


@pytest.fixture(scope="module")
def court_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("runs") / "court"
    script = CourtScript(suspect={"7": 0.8}, grounding={"7": -0.5}, p_hallucinated=0.7,
                         moves={"prosecutor": ["argue"], "defender": ["rebut"], "judge": ["rule"]})
    run = start_run(RunSpec.build("examples", judge="courtroom", court="full", limit=12, window=4), out)
    rows = run.execute(runner=LocalRunner(ScriptedBackend(script)))
    run.close()
    (out / "metrics.json").write_text(compute_metrics(rows).model_dump_json(indent=2))
    charged = next(r for r in rows if r.charges)  # a charge found faithful: the corrected views weigh it by the judge
    Audit(out).edit(charged.case_id, "supported", "checked by hand", "me", charge=0)
    return out


@pytest.mark.parametrize(("instructions", "says"), [("{{ nope", "does not render: LiquidSyntaxError"),
                                                    ("", "at least 1 character")])
def test_a_run_whose_recorded_persona_does_not_validate_is_named(court_run: Path, tmp_path: Path, instructions: str,
                                                                 says: str) -> None:
    run = tmp_path / "handed-over"
    shutil.copytree(court_run, run)
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["judge"]["personas"]["judge"][0]["instructions"] = instructions
    (run / "manifest.json").write_text(json.dumps(manifest))
    where = f"{run / 'manifest.json'}: field judge.personas.judge.0.instructions:"
    with pytest.raises(CourtError, match="field judge.personas.judge.0.instructions"):
        recorded_court(run)
    for command in (["audit", "verify", str(run)], ["audit", str(run)], ["audit", "list", str(run)],
                    ["audit", "report", str(run), "-o", str(tmp_path / "r.html")],
                    ["export", str(run), "--format", "inspect", "-o", str(tmp_path / "log.json")],
                    ["export", str(run), "-o", str(tmp_path / "run.csv")], ["calibrate", str(run)],
                    ["run", "examples", "--court", str(run), "--limit", "1", "--out", str(tmp_path / "again")]):
        code, output = invoke(*command)
        assert code == 2 and where in output and says in output, (command, output[-1500:])


def test_a_run_whose_recorded_court_is_not_one_is_named(court_run: Path, tmp_path: Path) -> None:
    run = tmp_path / "handed-over"
    shutil.copytree(court_run, run)
    manifest = json.loads((run / "manifest.json").read_text())
    del manifest["judge"]["court"]
    (run / "manifest.json").write_text(json.dumps(manifest))
    code, output = invoke("audit", "verify", str(run))
    assert code == 2 and f"{run / 'manifest.json'}: field judge.court: missing" in output


@pytest.mark.parametrize(("metrics", "says"), [(b"", "not valid JSON"), (b"{not json", "not valid JSON"),
                                               (b"[1, 2]", "not a JSON object of metrics"),
                                               (b"\xff\xfe", "not valid UTF-8")])
def test_an_empty_or_damaged_metrics_file_is_a_problem_verify_names(court_run: Path, tmp_path: Path,
                                                                    metrics: bytes, says: str) -> None:
    run = tmp_path / "handed-over"
    shutil.copytree(court_run, run)
    (run / "metrics.json").write_bytes(metrics)
    code, output = invoke("audit", "verify", str(run))
    assert code == 1 and f"problem {run / 'metrics.json'}: {says}" in output, output[-1500:]


@pytest.mark.parametrize("arguments", [{"answer": "", "context": "The sky is blue."},
                                       {"answer": "   ", "context": ["The sky is blue."]},
                                       {"answer": "It is blue.", "context": [""]},
                                       {"answer": "It is blue.", "context": [" \n", "\t"]}])
def test_score_with_a_blank_answer_or_context_is_the_packages_error(arguments: dict) -> None:
    court = load_court("default", ScriptedBackend([]))
    with pytest.raises(MetricArgumentError, match=r"^(answer: the answer is blank|answer: String should have at least "
                                                  r"1 character|context: the context is empty)"):
        court.score(question="Q?", **arguments)
