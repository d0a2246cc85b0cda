"""Pooled runs: one judge's runs on several datasets compared as one (`courtroom compare A+B C+D`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from courtroom.cli import app
from courtroom.errors import CourtroomError
from courtroom.evaluate.comparison import Contender
from courtroom.evaluate.metrics import compute_metrics
from courtroom.evaluate.results import ResultRow
from courtroom.evaluate.thresholds import calibrated_rows
from courtroom.log.manifest import RunSpec
from courtroom.log.pooled import open_pooled_run, split_argument
from courtroom.log.store import RunStore
from courtroom.runs.start import start_run
from tests.helpers.runs import scripted_runner


def finished_run(out: Path, judge: str, **options: object) -> Path:
    run = start_run(RunSpec.build(**{"dataset": "examples", **options}, judge=judge), out)
    run.execute(runner=scripted_runner())
    run.close()
    return out


def table_rows(output: str) -> list[list[str]]:
    return [[cell.strip() for cell in line.split("│")[1:-1]] for line in output.splitlines()
            if line.startswith("│") and line.count("│") > 3]


def test_compare_pools_one_judges_runs_on_disjoint_cases(tmp_path: Path) -> None:
    first = finished_run(tmp_path / "first", "courtroom", limit=8, balanced=True)
    rest = finished_run(tmp_path / "rest", "courtroom", exclude=[str(first)])
    rails_first = finished_run(tmp_path / "rails-first", "rails", limit=8, balanced=True)
    rails_rest = finished_run(tmp_path / "rails-rest", "rails", exclude=[str(rails_first)])
    court, rails = f"{first}+{rest}", f"{rails_first}+{rails_rest}"
    result = CliRunner().invoke(app, ["compare", court, rails, "--length-baseline"], env={"COLUMNS": "220"})
    assert result.exit_code == 0, result.output
    rows = table_rows(result.output)
    summary, paired = rows[:3], rows[3:]
    assert [r[0] for r in summary] == ["first+rest", "rails-first+rails-rest", "length-only"]
    assert [r[4] for r in summary] == ["20", "20", "20"]  # every example case, once (after the court and model)
    concatenated = RunStore(first).rows() + RunStore(rest).rows()
    assert summary[0][6].startswith(f"{compute_metrics(concatenated).balanced_accuracy.value:.3f}")
    assert [r[:2] for r in paired] == [["rails-first+rails-rest", "20"], ["length-only", "20"]]


def test_pooling_refuses_overlapping_cases_other_judges_other_models_and_missing_runs(tmp_path: Path) -> None:
    court = finished_run(tmp_path / "court", "courtroom", limit=6, balanced=True)
    rails = finished_run(tmp_path / "rails", "rails", exclude=[str(court)])
    other_model = finished_run(tmp_path / "other-model", "courtroom", exclude=[str(court)])
    store = RunStore(other_model)
    manifest = store.manifest()
    spec = manifest.spec.model_copy(update={"backend": manifest.spec.backend.model_copy(update={"model": "qwen2.5-coder-0.5b"})})
    store.write_manifest(manifest.model_copy(update={"spec": spec}))
    with pytest.raises(CourtroomError, match=r"case '.+' is in both .*court and .*court; pooled runs must judge"):
        open_pooled_run(f"{court}+{court}")
    with pytest.raises(CourtroomError, match=r"judges differ: .*court \(courtroom\), .*rails \(rails\)"):
        open_pooled_run(f"{court}+{rails}")
    with pytest.raises(CourtroomError, match=r"models differ: .*court \(default\), .*other-model \(qwen2.5"):
        open_pooled_run(f"{court}+{other_model}")
    for argument, message in ((f"{court}+{tmp_path / 'nope'}", "nope is not a run directory"),
                              ("+", "'+' names no run directory")):
        result = CliRunner().invoke(app, ["compare", argument], env={"COLUMNS": "300"})
        assert result.exit_code == 2 and message in result.output


def test_pooled_runs_whose_judge_settings_differ_are_named(tmp_path: Path) -> None:
    first = finished_run(tmp_path / "first", "rails", limit=6, balanced=True)
    rest = finished_run(tmp_path / "rest", "rails", exclude=[str(first)])
    assert open_pooled_run(f"{first}+{rest}").differences == ()
    store = RunStore(rest)
    manifest = store.manifest()
    judge = {**manifest.judge, "options": {**manifest.judge["options"], "votes": 7}}
    store.write_manifest(manifest.model_copy(update={"judge": judge}))
    assert open_pooled_run(f"{first}+{rest}").differences == ("options.votes",)
    result = CliRunner().invoke(app, ["compare", f"{first}+{rest}"], env={"COLUMNS": "200"})
    assert result.exit_code == 0 and "judge settings differ (options.votes)" in " ".join(result.output.split())


def test_run_arguments_split_at_plus_into_existing_runs(tmp_path: Path) -> None:
    plus = tmp_path / "a+b"
    plus.mkdir()
    assert split_argument(str(plus)) == [str(plus)]
    assert split_argument(f"{tmp_path / 'a'}+{tmp_path / 'b'}") == [str(tmp_path / "a"), str(tmp_path / "b")]
    cpp = tmp_path / "c++" / "runs"
    (cpp / "x").mkdir(parents=True)
    (cpp / "y").mkdir()
    assert split_argument(f"{cpp / 'x'}+{cpp / 'y'}") == [str(cpp / "x"), str(cpp / "y")]
    for bad in ("+", "++", f"{tmp_path / 'a'}++{tmp_path / 'b'}", f"{tmp_path / 'a'}+"):
        with pytest.raises(CourtroomError, match="run directory"):
            split_argument(bad)


def rows_scored(prefix: str, fail_score: float, pass_score: float, n: int = 20) -> tuple[ResultRow, ...]:
    return tuple(ResultRow(case_id=f"{prefix}-{gold}-{i}", source=prefix, gold=gold, label="PASS", score=score)
                 for i in range(n) for gold, score in (("FAIL", fail_score + i / 1000), ("PASS", pass_score + i / 1000)))


def test_calibration_is_fitted_on_each_pooled_run_alone() -> None:
    # a judge whose scores sit at other heights on two datasets: each alone is separated perfectly,
    # but one threshold over both is not
    high, low = rows_scored("hb", 0.8, 0.6), rows_scored("rt", 0.3, 0.1)
    pooled = Contender(name="hb+rt", judge="courtroom", model="m", members=(high, low))
    assert compute_metrics(pooled.rows(calibrated_rows)).balanced_accuracy.value == 1.0
    assert compute_metrics(calibrated_rows([*high, *low])).balanced_accuracy.value < 0.9
    assert {r.case_id for r in pooled.rows()} == {r.case_id for r in (*high, *low)}


def test_a_single_run_opens_as_itself(tmp_path: Path) -> None:
    court = finished_run(tmp_path / "court", "rails", limit=4, balanced=True)
    run = open_pooled_run(str(court))
    assert run.contender.name == "court" and run.contender.judge == "rails" and run.contender.rows() == RunStore(court).rows()


def write_dataset(path: Path, prefix: str, fail_words: int, pass_words: int, n: int = 10) -> Path:
    """A dataset whose hallucinated answers are longer than its faithful ones, at lengths of its own."""
    with path.open("w") as handle:
        for i in range(n):
            for label, words in (("FAIL", fail_words), ("PASS", pass_words)):
                handle.write(json.dumps({"id": f"{prefix}-{label}-{i}", "source": prefix, "question": "q?",
                                         "context": ["The sky is blue."], "answer": " ".join(["word"] * (words + i % 2)),
                                         "label": label}) + "\n")
    return path


def test_compare_fits_thresholds_and_rules_on_each_pooled_run_alone(tmp_path: Path) -> None:
    # two datasets where the judge's scores and the answers' lengths sit at other heights: each alone is
    # separated perfectly, one threshold or median over both is not
    runs = []
    for prefix, words, scores in (("short", (4, 2), (0.8, 0.6)), ("long", (40, 20), (0.3, 0.1))):
        data = write_dataset(tmp_path / f"{prefix}.jsonl", prefix, *words)
        run = finished_run(tmp_path / prefix, "rails", dataset=str(data))
        store = RunStore(run)
        rows = [r.model_copy(update={"score": scores[r.gold == "PASS"], "label": "PASS"}) for r in store.rows()]
        rows[0] = rows[0].model_copy(update={"score": None, "label": None, "error": "boom", "error_type": "X"})
        store.results_path.write_text("".join(r.model_dump_json() + "\n" for r in rows))
        runs.append(str(run))
    result = CliRunner().invoke(app, ["compare", "+".join(runs), "--calibrated", "--length-baseline"],
                                env={"COLUMNS": "220"})
    assert result.exit_code == 0, result.output
    court, length = table_rows(result.output)[:2]
    assert court[:6] == ["short+long", "rails", "-", "default", "38", "2"]  # the failed cases are still counted
    assert court[6].startswith("1.000") and length[6].startswith("1.000")
    plain = table_rows(CliRunner().invoke(app, ["compare", "+".join(runs), "--length-baseline"],
                                          env={"COLUMNS": "220"}).output)
    assert plain[0][6].startswith("0.500") and plain[1][6].startswith("1.000")  # own threshold; per-run median
