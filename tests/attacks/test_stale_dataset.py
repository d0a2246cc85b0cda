"""Attack 6 (second review): a dataset that changed under a run. A row inserted at the top of a file without ids
shifts every case's content under the same ids (`cases-0`, `cases-1`, ...): a resumed run judged nothing, reported
"5 of 5 cases" with stale gold labels, and `audit verify` passed. The manifest now records every case's digest:
resuming refuses, naming how many cases changed, are new and are gone, and `verify` reports a run whose cases
disagree with that record."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from courtroom.cli import app
from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.evaluate.metrics import compute_metrics
from courtroom.log.audit import Audit
from courtroom.log.manifest import RunSpec
from courtroom.log.store import RunStore
from courtroom.log.verify import verify
from courtroom.runs.runners import LocalRunner
from courtroom.runs.start import start_run
from tests.helpers.pseudo_cli import pseudo_runs  # noqa: F401 (fixture)

runner = CliRunner()


def rows(answers: list[tuple[str, str]], ids: list[str] | None = None) -> list[dict]:
    return [{**({"id": ids[n]} if ids else {}), "question": "What colour is the sky?", "context": ["The sky is blue."],
             "answer": answer, "label": label} for n, (answer, label) in enumerate(answers)]


def write(path: Path, data: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in data))
    return path


def run_cli(dataset: Path, out: Path, *extra: str) -> tuple[int, str]:
    result = runner.invoke(app, ["run", str(dataset), "--judge", "rails", "--out", str(out), *extra],
                           env={"COLUMNS": "1000"})
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result.exit_code, " ".join(result.output.split())


ANSWERS = [("It is blue.", "PASS"), ("It is green.", "FAIL"), ("It is blue, like the sea.", "PASS"),
           ("It is red.", "FAIL"), ("Blue.", "PASS")]


def test_a_row_inserted_at_the_top_is_refused_on_resume(tmp_path: Path, pseudo_runs) -> None:  # noqa: F811
    dataset = write(tmp_path / "cases.jsonl", rows(ANSWERS))
    out = tmp_path / "run"
    assert run_cli(dataset, out, "--limit", "5")[0] == 0
    write(dataset, rows([("It is purple.", "FAIL"), *ANSWERS]))  # the same ids now name other rows
    before = (out / "results.jsonl").read_bytes()
    code, output = run_cli(dataset, out, "--limit", "5")
    assert code == 2 and "5 cases changed, 0 new, 0 gone" in output and "--fresh" in output, output
    assert (out / "results.jsonl").read_bytes() == before
    code, output = run_cli(dataset, out, "--limit", "5", "--fresh")
    assert code == 0 and [r.gold for r in RunStore(out).rows()] == ["FAIL", "PASS", "FAIL", "PASS", "FAIL"]


def test_changed_new_and_gone_cases_are_counted_even_when_the_run_was_interrupted(tmp_path: Path, pseudo_runs) -> None:  # noqa: F811
    ids = ["a", "b", "c", "d", "e"]
    dataset = write(tmp_path / "cases.jsonl", rows(ANSWERS, ids))
    spec = RunSpec.build(str(dataset), judge="rails", window=1)
    run = start_run(spec, tmp_path / "run")
    run.execute(runner=LocalRunner(ScriptedBackend(PseudoModel())))
    run.close()
    lines = (tmp_path / "run" / "results.jsonl").read_text().splitlines()
    (tmp_path / "run" / "results.jsonl").write_text("\n".join(lines[:2]) + "\n")  # interrupted after two cases
    changed = rows([("It is blue.", "FAIL"), *ANSWERS[1:4], ("It is blue.", "PASS")], ["a", "b", "c", "d", "f"])
    write(dataset, changed)  # a relabelled, e gone, f new
    code, output = run_cli(dataset, tmp_path / "run")
    assert code == 2 and "1 case changed, 1 new, 1 gone" in output and "'a'" in output, output


def test_a_run_made_before_digests_still_resumes_and_its_stale_labels_are_refused(tmp_path: Path, pseudo_runs) -> None:  # noqa: F811
    dataset = write(tmp_path / "cases.jsonl", rows(ANSWERS))
    out = tmp_path / "run"
    assert run_cli(dataset, out, "--limit", "5")[0] == 0
    manifest = json.loads((out / "manifest.json").read_text())
    del manifest["cases"]  # as recorded before this version
    (out / "manifest.json").write_text(json.dumps(manifest))
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    (out / "results.jsonl").write_text("".join(json.dumps({k: v for k, v in r.items() if k != "case_digest"}) + "\n"
                                               for r in results))
    assert run_cli(dataset, out, "--limit", "5")[0] == 0  # unchanged: it resumes
    write(dataset, rows([("It is purple.", "FAIL"), *ANSWERS]))
    code, output = run_cli(dataset, out, "--limit", "5")
    assert code == 2 and "cases changed" in output, output


def test_verify_reports_cases_judged_on_other_content_than_the_run_recorded(tmp_path: Path) -> None:
    dataset = write(tmp_path / "cases.jsonl", rows(ANSWERS))
    backend = ScriptedBackend(PseudoModel())
    for name in ("before", "after"):
        run = start_run(RunSpec.build(str(dataset), judge="rails"), tmp_path / name)
        run.execute(runner=LocalRunner(backend))
        run.close()
        write(dataset, rows([("It is purple.", "FAIL"), *ANSWERS])[:5])  # "after" judges shifted content
    mixed = tmp_path / "mixed"
    shutil.copytree(tmp_path / "before", mixed)
    store, other = RunStore(mixed), RunStore(tmp_path / "after")
    case = store.rows()[0].case_id
    shutil.copy(other.transcript_path(case), store.transcript_path(case))  # what a stale resume left behind
    lines = store.results_path.read_text().splitlines()
    lines[0] = next(line for line in other.results_path.read_text().splitlines() if json.loads(line)["case_id"] == case)
    store.results_path.write_text("\n".join(lines) + "\n")
    (mixed / "metrics.json").write_text(compute_metrics(RunStore(mixed).rows()).model_dump_json(indent=2))
    problems = [str(p) for p in verify(Audit(mixed))]
    assert any(case in p and "other content than the run recorded" in p for p in problems), problems
    assert verify(Audit(tmp_path / "before")) == []
