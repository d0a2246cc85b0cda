"""`courtroom run`: results stream to disk, an interrupted run resumes to the same results."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from courtroom.door import ScriptedBackend
from courtroom.errors import CourtroomError
from courtroom.log.manifest import RunSpec
from courtroom.log.recorded_court import recorded_court
from courtroom.log.store import RunStore
from courtroom.runs.runners import LocalRunner
from courtroom.runs.start import start_run
from tests.helpers.runs import rows_of, scripted_runner


def test_interrupted_run_resumes_to_the_same_results(tmp_path: Path) -> None:
    spec = RunSpec.build("examples", judge="courtroom", window=3)
    full = start_run(spec, tmp_path / "full")
    full.execute(runner=scripted_runner())

    part = start_run(spec, tmp_path / "part")
    seen = []

    class Stop(Exception):
        pass

    def stop_after_seven(row) -> None:  # noqa: ANN001
        seen.append(row.case_id)
        if len(seen) == 7:
            raise Stop

    with pytest.raises(Stop):
        part.execute(stop_after_seven, runner=scripted_runner())
    with (tmp_path / "part" / "results.jsonl").open("a") as handle:
        handle.write('{"case_id": "torn')  # a write cut off by the interruption
    part.close()  # the interrupted process is gone
    resumed = start_run(spec, tmp_path / "part")
    assert len(resumed.finished) == 7 and len(resumed.remaining) == 13
    resumed.execute(runner=scripted_runner())
    assert rows_of(tmp_path / "part") == rows_of(tmp_path / "full")
    assert len(list((tmp_path / "part" / "transcripts").iterdir())) == 20
    assert not RunStore(tmp_path / "part").finished_ids() ^ {c.id for c in resumed.cases}


def test_resume_refuses_another_configuration_naming_what_differs(tmp_path: Path) -> None:
    from courtroom.door import PseudoModel

    first = start_run(RunSpec.build("examples", judge="rails", limit=4), tmp_path / "r")
    first.execute(runner=LocalRunner(ScriptedBackend(PseudoModel(), model="default")))
    first.close()
    with pytest.raises(CourtroomError, match="another judge configuration") as refused:
        start_run(RunSpec.build("examples", judge="single", limit=4), tmp_path / "r")
    assert "judge: 'rails' -> 'single'" in str(refused.value)
    with pytest.raises(CourtroomError, match="other cases") as refused:
        start_run(RunSpec.build("examples", judge="rails", limit=3), tmp_path / "r")
    assert "limit: 4 -> 3" in str(refused.value)
    with pytest.raises(CourtroomError, match="another model") as refused:
        start_run(RunSpec.build("examples", judge="rails", limit=4, model="qwen2.5-coder-0.5b"), tmp_path / "r")
    assert "model: 'default' -> 'qwen2.5-coder-0.5b'" in str(refused.value)
    court = start_run(RunSpec.build("examples", judge="courtroom", court="full", limit=2), tmp_path / "c")
    court.execute(runner=scripted_runner())
    court.close()
    with pytest.raises(CourtroomError, match="another judge configuration") as refused:
        start_run(RunSpec.build("examples", judge="courtroom", court="full", limit=2,
                                judge_options={"overrides": {"trial.judge_weight": 0.3}}), tmp_path / "c")
    assert "court.trial.judge_weight: 0.1 -> 0.3" in str(refused.value)


def test_a_run_that_recorded_no_case_takes_the_corrected_command(tmp_path: Path) -> None:
    from courtroom.errors import BackendError

    class Unloadable(ScriptedBackend):
        def prepare(self) -> None:
            raise OSError("org/missing-model is not a local folder and the Hub is unreachable")

    failed = start_run(RunSpec.build("examples", judge="single"), tmp_path / "r")
    with pytest.raises(BackendError):
        failed.execute(runner=LocalRunner(Unloadable(lambda request: "factual", model="org/missing-model")))
    failed.close()
    fixed = start_run(RunSpec.build("examples", judge="rails", limit=2), tmp_path / "r")  # another judge, cases
    assert fixed.store.manifest().spec.judge.name == "rails" and len(fixed.remaining) == 2


def test_a_run_directory_takes_one_writer_at_a_time(tmp_path: Path) -> None:
    first = start_run(RunSpec.build("examples", judge="rails"), tmp_path / "r")
    with pytest.raises(CourtroomError, match="being written by another run"):
        start_run(RunSpec.build("examples", judge="rails"), tmp_path / "r")
    first.close()  # the first run ends: its directory is free again
    assert start_run(RunSpec.build("examples", judge="rails"), tmp_path / "r").store.exists()


def test_unknown_model_fails_before_anything_runs(tmp_path: Path) -> None:
    with pytest.raises(CourtroomError, match="unknown model"):
        start_run(RunSpec.build("examples", judge="rails", model="no-such-model"), tmp_path / "x")
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("options, expected", [({"runner": "Ray"}, "RunnerSpec.kind: Input should be 'local' or 'ray' (got 'Ray')"),
                                               ({"runner": "ray", "device": "cuda:1"}, "Ray places each worker")])
def test_runner_options_are_checked_before_anything_runs(tmp_path: Path, options, expected) -> None:
    with pytest.raises(CourtroomError, match=re.escape(expected)):
        start_run(RunSpec.build("examples", judge="rails", **options), tmp_path / "x")
    assert not (tmp_path / "x").exists()


def test_exclude_leaves_out_the_cases_of_another_run(tmp_path: Path) -> None:
    evaluation = start_run(RunSpec.build("examples", judge="rails", limit=8, balanced=True), tmp_path / "eval")
    seen = []

    class Stop(Exception):
        pass

    def stop_after_two(row) -> None:  # noqa: ANN001
        seen.append(row)
        if len(seen) == 2:
            raise Stop

    with pytest.raises(Stop):  # an evaluation still running: all its cases are held out, not just the finished
        evaluation.execute(stop_after_two, runner=scripted_runner())
    evaluation.close()
    held_out = {c.id for c in evaluation.cases}
    assert len(held_out) == 8 and len(RunStore(tmp_path / "eval").rows()) == 2
    tuning = start_run(RunSpec.build("examples", judge="rails", exclude=[str(tmp_path / "eval")]), tmp_path / "tune")
    assert tuning.cases and not held_out & {c.id for c in tuning.cases}
    assert len(tuning.cases) == 20 - len(held_out)
    ids = tmp_path / "ids.txt"
    ids.write_text("\n".join(sorted(held_out)[:2]) + "\n")
    by_file = start_run(RunSpec.build("examples", judge="rails", exclude=[str(ids)]), tmp_path / "by-file")
    assert len(by_file.cases) == 18
    with pytest.raises(CourtroomError, match="--exclude .*no such run directory"):
        start_run(RunSpec.build("examples", judge="rails", exclude=[str(tmp_path / "nope")]), tmp_path / "x")


def test_length_only_rule_labels_answers_longer_than_the_median() -> None:
    from courtroom.case import Case
    from courtroom.evaluate.confounds import length_only_rows

    cases = [Case(id=f"c{n}", question="q", context=["c"], answer=" ".join(["w"] * n), label="PASS")
             for n in (3, 1, 5, 2, 4)]
    rows = {r.case_id: r for r in length_only_rows(cases)}
    assert [rows[f"c{n}"].label for n in (1, 2, 3, 4, 5)] == ["PASS", "PASS", "PASS", "FAIL", "FAIL"]
    assert [rows[f"c{n}"].score for n in (1, 2, 3, 4, 5)] == [0.0, 0.25, 0.5, 0.75, 1.0]
    tied = length_only_rows([*cases, Case(id="c3b", question="q", context=["c"], answer="a b c", label="FAIL")])
    assert {r.case_id: r.score for r in tied}["c3"] == {r.case_id: r.score for r in tied}["c3b"] == 0.5


def test_overlap_only_rule_labels_answers_with_more_unused_words_than_the_median() -> None:
    from courtroom.case import Case
    from courtroom.evaluate.confounds import overlap_only_rows

    context = ["The lighthouse was automated in 1962 and its keeper left."]
    answers = {"a": "It was automated in 1962.", "b": "The keeper left in 1926.", "c": "Bees and ghosts live there."}
    cases = [Case(id=k, question="When?", context=context, answer=v, label="PASS") for k, v in answers.items()]
    rows = {r.case_id: r for r in overlap_only_rows(cases)}
    # unused shares: a 0, b 1/3 (1926), c 1 (no word used): only c is above the median
    assert [rows[k].label for k in "abc"] == ["PASS", "PASS", "FAIL"]
    assert [rows[k].score for k in "abc"] == [0.0, 0.5, 1.0]
    assert rows["b"].reason.startswith("0.3333 of the words")


def test_compare_pairs_runs_and_adds_the_length_baseline(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from courtroom.cli import app
    from courtroom.evaluate.confounds import length_only_rows, overlap_only_rows
    from courtroom.evaluate.metrics import compute_metrics
    from courtroom.log.cases import run_cases

    court = tmp_path / "court"
    run = start_run(RunSpec.build("examples", judge="courtroom", limit=12, balanced=True), court)
    run.execute(runner=scripted_runner())
    run.close()
    result = CliRunner().invoke(app, ["compare", str(court), str(court), "--length-baseline", "--overlap-baseline"],
                                env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    rows = [[cell.strip() for cell in line.split("│")[1:-1]] for line in result.output.splitlines()
            if line.startswith("│") and line.count("│") > 3]
    summary, paired = rows[:4], rows[4:]
    assert [r[0] for r in summary] == ["court", "court", "length-only", "overlap-only"]
    cases = run_cases(RunStore(court))
    for row, rule in zip(summary[2:], (length_only_rows, overlap_only_rows)):
        assert row[5] == "0" and row[6].startswith(f"{compute_metrics(rule(cases)).balanced_accuracy.value:.3f}")
    assert paired[0][:3] == ["court", "12", "0"] and paired[0][3].startswith("+0.000")  # a run against itself
    assert paired[1][:2] == ["length-only", "12"] and paired[2][:2] == ["overlap-only", "12"]
    missing = CliRunner().invoke(app, ["compare", str(tmp_path / "nope")], env={"COLUMNS": "200"})
    assert missing.exit_code == 2 and "nope is not a run directory" in missing.output


def test_cases_that_failed_are_judged_again_on_resume(tmp_path: Path) -> None:
    from courtroom.errors import BackendError

    spec = RunSpec.build("examples", judge="courtroom", window=3)
    full = start_run(spec, tmp_path / "full")
    full.execute(runner=scripted_runner())
    healthy = scripted_runner().backend

    def flaky(request):  # about a third of the cases fail on the first pass
        if sum(map(ord, request.cache_group or "")) % 3 == 0:
            return BackendError("out of memory")
        return healthy._function(request)

    first = start_run(spec, tmp_path / "part")
    rows = first.execute(runner=LocalRunner(ScriptedBackend(flaky)))
    failed = {r.case_id for r in rows if r.error}
    assert failed and len(rows) == 20
    first.close()
    resumed = start_run(spec, tmp_path / "part")
    assert {c.id for c in resumed.remaining} == failed
    final = resumed.execute(runner=scripted_runner())
    assert len(final) == 20 and not any(r.error for r in final)

    def comparable(store_rows):
        return sorted((r.model_dump(exclude={"seconds"}) for r in store_rows), key=lambda r: r["case_id"])

    assert comparable(final) == comparable(RunStore(tmp_path / "full").rows())


def test_a_model_that_cannot_load_stops_the_run_before_any_case(tmp_path: Path) -> None:
    from courtroom.errors import BackendError

    class Unloadable(ScriptedBackend):
        def prepare(self) -> None:
            raise OSError("org/missing-model is not a local folder and the Hub is unreachable")

    run = start_run(RunSpec.build("examples", judge="rails"), tmp_path / "r")
    backend = Unloadable(lambda request: "factual", model="org/missing-model")
    with pytest.raises(BackendError, match="model 'org/missing-model' could not be loaded: OSError"):
        run.execute(runner=LocalRunner(backend))
    assert RunStore(tmp_path / "r").rows() == [] and backend.calls == []


def test_a_run_directory_held_by_another_process_is_refused(tmp_path: Path) -> None:
    """The run lock is filelock's (flock on POSIX, msvcrt on Windows, never silently absent): a directory another
    process holds is refused until that process lets go."""
    import subprocess
    import sys

    (tmp_path / "r").mkdir()
    holder = subprocess.Popen([sys.executable, "-c", "import sys, filelock; lock = filelock.FileLock(sys.argv[1]); "
                               "lock.acquire(); print('held', flush=True); sys.stdin.read()", str(tmp_path / "r" / ".lock")],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(CourtroomError, match="being written by another run"):
            start_run(RunSpec.build("examples", judge="rails"), tmp_path / "r")
    finally:
        holder.communicate("", timeout=30)
    start_run(RunSpec.build("examples", judge="rails"), tmp_path / "r").close()


def test_a_run_whose_court_changed_on_disk_resumes_with_the_court_it_recorded(tmp_path: Path) -> None:
    """Upgrading courtroom (or editing a court file) must not strand a half-finished run: `--court RUN_DIR` finishes
    it with the court its manifest records, to the results a straight run gives."""
    from courtroom.courts import courts_dir
    from courtroom.engine.registry import JudgeSpec
    from courtroom.errors import CourtError

    court_file = tmp_path / "mine.yaml"
    court_file.write_text((courts_dir() / "full.yaml").read_text())
    spec = RunSpec.build("examples", judge="courtroom", court=str(court_file), window=3, limit=8)
    straight = start_run(spec, tmp_path / "straight")
    straight.execute(runner=scripted_runner())
    straight.close()

    part = start_run(spec, tmp_path / "part")

    class Stop(Exception):
        pass

    def stop_after_three(row) -> None:  # noqa: ANN001
        if len(RunStore(tmp_path / "part").finished_ids()) >= 3:
            raise Stop

    with pytest.raises(Stop):
        part.execute(stop_after_three, runner=scripted_runner())
    part.close()
    court_file.write_text(court_file.read_text().replace("max_rounds: 1", "max_rounds: 2"))  # the court changed
    with pytest.raises(CourtroomError, match="another judge configuration") as refused:
        start_run(spec, tmp_path / "part")
    assert f"--court {tmp_path / 'part'} to finish it with the court it was started with" in str(refused.value)
    recorded = spec.model_copy(update={"judge": JudgeSpec(court=str(tmp_path / "part"))})
    resumed = start_run(recorded, tmp_path / "part")
    assert 3 <= len(resumed.finished) < 8
    resumed.execute(runner=scripted_runner())
    assert rows_of(tmp_path / "part") == rows_of(tmp_path / "straight")
    rails = start_run(RunSpec.build("examples", judge="rails", limit=1), tmp_path / "rails")
    rails.execute(runner=scripted_runner())
    with pytest.raises(CourtError, match="the run was judged by 'rails', not by a court"):
        recorded_court(tmp_path / "rails")
