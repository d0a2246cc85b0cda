"""`courtroom label RUN`: a random draw of a run's cases, labelled in the terminal into the run's record of human
judgement, or exported to a file and imported back against the run, and `calibrate --ruling --prior` refitting a
fitted ruling on them (the record's labels, `audit edit`'s corrections among them, or a label file's)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import yaml

from courtroom.digest import content_hash
from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.log.audit import Audit
from courtroom.log.manifest import RunSpec
from courtroom.runs.runners import LocalRunner
from courtroom.runs.start import start_run
from courtroom.witness.ruling import FittedRuling
from tests.helpers.cases import NO_RULING_MODEL
from tests.helpers.labels import drawn, fill, invoke, rows, written


def test_label_draws_cases_at_random_in_one_order_per_seed(world) -> None:  # noqa: ANN001
    run, prior_file, _ = world
    found = drawn(run, prior_file)
    assert found.weighed_by.startswith("the ruling default/") and len(found.found) == 40
    chosen = found.order()[:5]
    assert chosen == drawn(run, prior_file).order()[:5] and len(set(chosen)) == 5  # deterministic
    assert len(found.order()) == 15  # n, then 2 n spares for the skipped
    assert drawn(run, prior_file, seed=1).order()[:5] != chosen  # another seed, another draw
    draws = [set(drawn(run, seed=s).order()[:5]) for s in range(40)]
    assert len(set().union(*draws)) > 30  # every case can be drawn: not only those near the threshold
    # without a ruling given or filed, the court's measure weighs them, against the court's threshold
    measured = drawn(run)
    assert measured.weighed_by == "the court's measure" and len({c.threshold for c in measured.found.values()}) == 1
    assert [c.p for c in measured.found.values()] == [c.verdict.score for c in measured.found.values()]


def test_write_fill_read_and_refit_with_the_prior(world, tmp_path: Path) -> None:  # noqa: ANN001
    run, prior_file, _ = world
    labels = tmp_path / "labels.csv"
    result = invoke("label", str(run), "--n", "24", "--ruling", str(prior_file), "--write", str(labels))
    assert result.exit_code == 0, result.output
    table = rows(labels)
    manifest = Audit(run).store.manifest()
    assert len(table) == 24 and all(r["label"] == "" for r in table)
    assert {r["config_hash"] for r in table} == {manifest.config_hash} and {r["run"] for r in table} == {manifest.name}
    assert all(r["case_digest"] == Audit(run).store.case(r["case_id"]).digest() for r in table)
    assert table[0]["question"].startswith("What was the population") and table[0]["p_hallucinated"]
    assert "courtroom calibrate" in result.output and "courtroom label RUN --read" in " ".join(result.output.split())

    fill(labels, run)
    mine = tmp_path / "mine"  # the record is written into the run: a copy of the module's
    shutil.copytree(run, mine)
    result = invoke("label", str(mine), "--read", str(labels))
    assert result.exit_code == 0, result.output
    assert "24 labels recorded" in " ".join(result.output.split())
    assert len(Audit(mine).human_labels()) == 24 and {j.source for j in Audit(mine).judgements()} == {"csv"}
    assert "0 labels recorded" in " ".join(invoke("label", str(mine), "--read", str(labels)).output.split())  # once

    out, court = tmp_path / "refit.yaml", tmp_path / "court.yaml"
    result = invoke("calibrate", str(run), "--ruling", str(out), "--prior", str(prior_file), "--labels", str(labels),
                    "-o", str(court))
    assert result.exit_code == 0, result.output
    refit = FittedRuling.model_validate(yaml.safe_load(out.read_text()))
    prior = FittedRuling.model_validate(yaml.safe_load(prior_file.read_text()))
    assert refit.fitted["prior"]["path"] == str(prior_file.resolve()) or \
        Path(refit.fitted["prior"]["path"]).resolve() == prior_file.resolve()
    assert refit.fitted["prior"]["digest"] == content_hash(prior_file.read_text())
    assert refit.fitted["labels"] == 24 and refit.probes == prior.probes
    before, after = prior.families["any"].linear, refit.families["any"].linear
    assert after.features == before.features and after.mean == before.mean  # the prior's space, moved a little
    assert np.abs(np.array(after.weights) - np.array(before.weights)).max() < 0.5
    assert "on_the_labels" in refit.evaluation and "prior" in refit.evaluation["on_the_labels"]
    assert "moved most (standardised weights): any: intercept" in " ".join(result.output.split())
    result = invoke("rejudge", str(run), "--court", str(court), "--out", str(tmp_path / "R"))
    assert result.exit_code == 0, result.output  # the court with the refitted ruling loads and decides
    result = invoke("calibrate", str(mine), "--ruling", str(tmp_path / "record.yaml"), "--prior", str(prior_file))
    assert result.exit_code == 0 and "24 labels of" in result.output and "judgements.jsonl" in result.output
    from_record = FittedRuling.model_validate(yaml.safe_load((tmp_path / "record.yaml").read_text()))
    assert from_record.families == refit.families  # the file imported and the file read refit alike


def test_from_gold_labels_the_picked_cases_by_the_data(world, tmp_path: Path) -> None:  # noqa: ANN001
    run, prior_file, _ = world
    labels = tmp_path / "gold.csv"
    result = invoke("label", str(run), "--n", "6", "--ruling", str(prior_file), "--from-gold", "--write", str(labels))
    assert result.exit_code == 0, result.output
    gold = {r.case_id: r.gold for r in Audit(run).rows()}
    assert [r["label"] for r in rows(labels)] == [
        "hallucinated" if gold[r["case_id"]] == "FAIL" else "faithful" for r in rows(labels)]


def test_the_terminal_asks_records_each_label_takes_one_back_and_resumes(world, tmp_path: Path) -> None:  # noqa: ANN001
    run, prior_file, tmp = world
    mine = tmp_path / "mine"
    shutil.copytree(run, mine)
    args = ("label", str(mine), "--n", "4", "--ruling", str(prior_file), "--author", "ann")
    result = invoke(*args, input="h\nx\nf\nu\nh\ns\nq\n")  # x is no key: asked again; u takes the f back
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    first = drawn(mine, prior_file, n=4).order()
    assert first[0] in text and "What was the population" in text and "P(hallucinated)" in text
    audit = Audit(mine)
    assert [(j.case_id, j.label, j.author, j.source) for j in audit.judgements()] == [
        (first[0], "hallucinated", "ann", "terminal"), (first[1], "faithful", "ann", "terminal"),
        (first[1], "undone", "ann", "terminal"), (first[1], "hallucinated", "ann", "terminal"),
        (first[2], "skip", "ann", "terminal")]
    assert audit.human_labels() == {first[0]: "FAIL", first[1]: "FAIL"} and "2 drawn cases labelled" in text

    result = invoke(*args, input="f\nf\nh\n")  # resumed: two more labels make four; the third answer is not asked
    assert result.exit_code == 0, result.output
    assert "resuming" in result.output and "4 drawn cases labelled" in " ".join(result.output.split())
    assert [Audit(mine).human_labels().get(c) for c in first[3:5]] == ["PASS", "PASS"]


def refit(run: Path, prior_file: Path, labels: Path, tmp_path: Path):  # noqa: ANN201
    return invoke("calibrate", str(run), "--ruling", str(tmp_path / "r.yaml"), "--prior", str(prior_file),
                  "--labels", str(labels))


def test_a_label_file_of_another_run_or_of_other_cases_is_refused_naming_what_to_do(world, tmp_path: Path) -> None:  # noqa: ANN001
    run, prior_file, tmp = world
    labels = fill(written(run, prior_file, tmp_path / "l.csv"), run)
    other = tmp_path / "other"
    spec = RunSpec.build(str(tmp / "mine.jsonl"), judge="courtroom", court="default", model=NO_RULING_MODEL,
                         judge_options={"overrides": {"aggregation.threshold": 0.3}})
    started = start_run(spec, other)
    started.execute(runner=LocalRunner(ScriptedBackend(PseudoModel(), model="default")))
    started.close()
    for args in (("label", str(other), "--read", str(labels)), ("calibrate", str(other), "--ruling",
                                                                 str(tmp_path / "r.yaml"), "--prior", str(prior_file),
                                                                 "--labels", str(labels))):
        result = invoke(*args)
        text = " ".join(result.output.split())
        assert result.exit_code == 2 and f"{labels}:2: the label file was written for the run mine" in text, text
        assert "give the run it was written for" in text and "courtroom label" in text
    assert not (tmp_path / "r.yaml").exists()

    first = rows(labels)[0]["case_id"]
    stranger = fill(written(run, prior_file, tmp_path / "s.csv"), run, **{first: {"case_id": "Atlantis-pass"}})
    result = refit(run, prior_file, stranger, tmp_path)
    text = " ".join(result.output.split())
    assert result.exit_code == 2 and "1 case id not in the run" in text and "'Atlantis-pass', line 2" in text
    assert "label only the run's cases" in text

    changed = fill(written(run, prior_file, tmp_path / "d.csv"), run, **{first: {"case_digest": "0" * 16}})
    result = refit(run, prior_file, changed, tmp_path)
    text = " ".join(result.output.split())
    assert result.exit_code == 2 and f"d.csv:2: case {first} was labelled as another case" in text


def test_an_unknown_label_or_a_case_listed_twice_names_the_file_and_line(world, tmp_path: Path) -> None:  # noqa: ANN001
    run, prior_file, _ = world
    labels = written(run, prior_file, tmp_path / "l.csv")
    third = rows(labels)[2]["case_id"]
    fill(labels, run, **{third: {"label": "maybe"}})
    result = refit(run, prior_file, labels, tmp_path)
    text = " ".join(result.output.split())
    assert result.exit_code == 2 and f"l.csv:4: case {third}: the label 'maybe' is not one of hallucinated, faithful" \
        in text
    result = invoke("label", str(run), "--read", str(labels))
    assert result.exit_code == 2 and "l.csv:4" in result.output and not Audit(run).judgements()
    twice = tmp_path / "twice.csv"
    lines = labels.read_text().splitlines()
    twice.write_text("\n".join([lines[0], lines[1], lines[1]]) + "\n")
    result = invoke("label", str(run), "--read", str(twice))
    assert result.exit_code == 2 and "twice.csv:3: case" in result.output and "listed twice (first on line 2)" in \
        " ".join(result.output.split())
    bare = tmp_path / "bare.csv"
    bare.write_text("case_id,label\nx,faithful\n")
    result = invoke("label", str(run), "--read", str(bare))
    assert result.exit_code == 2 and "lacks the columns case_digest, config_hash" in " ".join(result.output.split())


def test_too_few_labels_of_a_kind_refit_the_intercept_or_are_refused(world, tmp_path: Path) -> None:  # noqa: ANN001
    run, prior_file, _ = world
    gold = {r.case_id: r.gold for r in Audit(run).rows()}
    labels = written(run, prior_file, tmp_path / "l.csv", n=40)
    order = [r["case_id"] for r in rows(labels)]
    fails = [c for c in order if gold[c] == "FAIL"]
    passes = [c for c in order if gold[c] == "PASS"]

    def keep(cases: list[str]) -> Path:
        return fill(labels, run, **{c: {"label": ""} for c in order if c not in cases})

    result = refit(run, prior_file, keep(fails[:1] + passes[:5]), tmp_path)
    text = " ".join(result.output.split())
    assert result.exit_code == 2 and "6 labels (1 hallucinated and 5 faithful) cannot refit the ruling" in text
    assert "at least 2 labels of each kind" in text and "10 of each" in text
    result = refit(run, prior_file, keep(fails[:3] + passes[:6]), tmp_path)
    text = " ".join(result.output.split())
    assert result.exit_code == 0, text
    assert "its intercept is refitted, its weights kept" in text and "label 7 more of the fewer kind" in text
    prior = FittedRuling.model_validate(yaml.safe_load(prior_file.read_text()))
    refit_ruling = FittedRuling.model_validate(yaml.safe_load((tmp_path / "r.yaml").read_text()))
    assert refit_ruling.families["any"].linear.weights == prior.families["any"].linear.weights
    assert refit_ruling.fitted["refitted"] == {"any": "intercept"}


def test_a_prior_of_another_model_and_labels_without_a_prior_are_refused(world, tmp_path: Path) -> None:  # noqa: ANN001
    run, prior_file, _ = world
    labels = fill(written(run, prior_file, tmp_path / "l.csv"), run)
    shipped = "rulings/default.smollm2-135m.yaml"
    result = refit(run, Path(shipped), labels, tmp_path)
    text = " ".join(result.output.split())
    assert result.exit_code == 2 and "fitted for model 'smollm2-135m'" in text and NO_RULING_MODEL in text
    result = invoke("calibrate", str(run), "--ruling", str(tmp_path / "r.yaml"), "--labels", str(labels))
    assert result.exit_code == 2 and "give it as --prior" in " ".join(result.output.split())
    result = invoke("label", str(run), "--ruling", shipped, "--write", str(tmp_path / "x.csv"))
    assert result.exit_code == 2 and "fitted for model 'smollm2-135m'" in " ".join(result.output.split())
