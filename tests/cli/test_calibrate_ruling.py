"""`courtroom calibrate RUN --ruling FILE`: the ruling refitted on a user's labelled run, written beside a court that
files it under the run's model; rejudging the run with that court decides by it (and without it, does not)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml
from typer.testing import CliRunner

from courtroom.calibrate.fit_ruling import Design, _word_columns, _word_probe
from courtroom.calibrate.ruling_runs import calibrate_ruling
from courtroom.cli import app
from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.engine.events import ModelCallEvent, VerdictEvent
from courtroom.log.audit import Audit
from courtroom.log.manifest import RunSpec
from courtroom.runs.runners import LocalRunner
from courtroom.runs.start import start_run
from courtroom.witness.ruling import WORD_VALUES, FittedRuling, Probe
from tests.helpers.cases import NO_RULING_MODEL
from tests.helpers.court_script import CourtScript
from tests.helpers.runs import TOWNS, judged, labelled

runner = CliRunner()
WIDE = {"COLUMNS": "200"}
def labels(run: Path) -> dict[str, str]:
    return {r.case_id: r.label for r in Audit(run).rows()}


def test_a_refit_ruling_moves_its_sources_hallucinated_cases_to_fail_and_only_through_the_fitted_file(
        tmp_path: Path) -> None:
    run = judged(labelled(tmp_path / "towns.jsonl"), tmp_path / "run")
    before = labels(run)
    fails = [c for c in before if c.endswith("-fail")]
    missed = [c for c in fails if before[c] == "PASS"]
    assert missed, "the measure alone must miss some hallucinated cases, or the refit shows nothing"

    ruling, court = tmp_path / "rulings" / "towns.yaml", tmp_path / "courts" / "court.yaml"
    ruling.parent.mkdir()
    result = runner.invoke(app, ["calibrate", str(run), "--ruling", str(ruling), "-o", str(court)], env=WIDE)
    assert result.exit_code == 0, result.output
    fitted = FittedRuling.model_validate(yaml.safe_load(ruling.read_text()))
    assert fitted.model == NO_RULING_MODEL and fitted.court == "default" and fitted.fitted["cases"] == len(before)
    weights = dict(zip(fitted.families["any"].linear.features, fitted.families["any"].linear.weights))
    assert weights["figures.absent"] > 0  # an absent figure raises P(hallucinated)
    assert fitted.evaluation  # the out-of-fold numbers travel with it
    assert "../rulings/towns.yaml" in court.read_text()  # filed by a path relative to the court

    result = runner.invoke(app, ["rejudge", str(run), "--court", str(court), "--out", str(tmp_path / "R2")], env=WIDE)
    assert result.exit_code == 0, result.output
    after = labels(tmp_path / "R2")
    assert all(after[c] == "FAIL" for c in fails)  # the missed ones moved to FAIL
    assert all(after[c] == "PASS" for c in before if c.endswith("-pass"))
    audit = Audit(tmp_path / "R2")
    [verdict] = [e.verdict for e in audit.events(missed[0]) if isinstance(e, VerdictEvent)]
    assert verdict.weighing is not None and verdict.weighing.ruling.endswith(fitted.fingerprint)
    assert verdict.weighing.contributions["figures.absent"] > 0

    # the same court without its ruling decides as the run did: the move above is the fitted file's
    stripped = tmp_path / "courts" / "stripped.yaml"
    data = yaml.safe_load(court.read_text())
    del data["witnesses"]["rulings"]
    stripped.write_text(yaml.safe_dump(data, sort_keys=False))
    result = runner.invoke(app, ["rejudge", str(run), "--court", str(stripped), "--out", str(tmp_path / "R3")],
                           env=WIDE)
    assert result.exit_code == 0, result.output
    assert labels(tmp_path / "R3") == before
    assert all(labels(tmp_path / "R3")[c] == "PASS" for c in missed)


def test_too_few_labels_of_a_kind_fail_with_a_suggestion_of_fewer_folds(tmp_path: Path) -> None:
    run = judged(labelled(tmp_path / "few.jsonl", fails=3), tmp_path / "run")
    result = runner.invoke(app, ["calibrate", str(run), "--ruling", str(tmp_path / "r.yaml")], env=WIDE)
    assert result.exit_code == 2
    text = " ".join(result.output.split())
    assert "3 hallucinated (FAIL) cases among 15" in text and "--folds 3" in text
    assert not (tmp_path / "r.yaml").exists()
    result = runner.invoke(app, ["calibrate", str(run), "--ruling", str(tmp_path / "r.yaml"), "--folds", "3"], env=WIDE)
    assert result.exit_code == 0, result.output
    assert FittedRuling.model_validate(yaml.safe_load((tmp_path / "r.yaml").read_text())).fitted["folds"] == 3


def test_runs_of_another_court_or_model_are_not_fitted_together(tmp_path: Path) -> None:
    data = labelled(tmp_path / "towns.jsonl")
    first = judged(data, tmp_path / "first")
    other = tmp_path / "other"
    run = start_run(RunSpec.build(str(data), judge="courtroom", court="default", model="org/other-judge"), other)
    run.execute(runner=LocalRunner(ScriptedBackend(PseudoModel(), model="org/other-judge")))
    run.close()
    result = runner.invoke(app, ["calibrate", str(first), str(other), "--ruling", str(tmp_path / "r.yaml")], env=WIDE)
    assert result.exit_code == 2
    text = " ".join(result.output.split())
    assert "'org/other-judge'" in text and f"'{NO_RULING_MODEL}'" in text and "one court and one model" in text


def test_a_court_that_hears_no_witnesses_has_no_ruling_to_fit(tmp_path: Path) -> None:
    run = start_run(RunSpec.build(str(labelled(tmp_path / "t.jsonl", TOWNS[:2])), judge="courtroom", court="full"),
                    tmp_path / "run")
    run.execute(runner=LocalRunner(ScriptedBackend(CourtScript(moves={"prosecutor": ["withdraw"]}))))
    run.close()
    result = runner.invoke(app, ["calibrate", str(tmp_path / "run"), "--ruling", str(tmp_path / "r.yaml")], env=WIDE)
    assert result.exit_code == 2 and "hears no witnesses" in " ".join(result.output.split())


def span_rows(tmp_path: Path) -> list[dict]:
    """The towns, each hallucinated answer's invented figure annotated as its gold span."""
    rows = []
    for line in labelled(tmp_path / "plain.jsonl").read_text().splitlines():
        row = json.loads(line)
        row["answer"] = "  " + row["answer"] + " Its market is on Tuesdays."  # leading blanks: an offset to keep
        if row["label"] == "FAIL":
            figure = row["answer"].split(" was ")[1].split(".")[0]
            start = row["answer"].index(figure)
            row["spans"] = [{"start": start, "end": start + len(figure), "type": "Evident Baseless Info"}]
        rows.append(row)
    return rows


def judged_inside(rows: list[dict], out: Path, court: str = "default", model: PseudoModel | None = None,
                  **options: object) -> Path:
    """The court's run of `rows` on the pseudo-model (or `model`), looking inside it (attention, hidden states)."""
    data = out.with_suffix(".jsonl")
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    run = start_run(RunSpec.build(str(data), judge="courtroom", court=court, model=NO_RULING_MODEL,
                                  judge_options=dict(options) or None), out)
    run.execute(runner=LocalRunner(ScriptedBackend(model or PseudoModel(), model="default",
                                                   looks_inside={"attention", "hidden_states"})))
    run.close()
    return out


class WordDroppingModel(PseudoModel):
    """A defective door: the hidden state of the answer's last word goes missing."""

    def _observed(self, prompt, scored, observe):  # noqa: ANN001, ANN202
        observed = super()._observed(prompt, scored, observe)
        if observe.hidden_only:
            observed["hidden"] = observed["hidden"][:-1]
        return observed


def test_a_door_that_gives_fewer_word_states_than_asked_fails_the_case_naming_both_counts(tmp_path: Path) -> None:
    rows = span_rows(tmp_path)
    run = judged_inside(rows, tmp_path / "run", model=WordDroppingModel(), overrides={"witnesses.word_states": True})
    results = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]
    assert len(results) == len(rows)  # every case recorded, none lost
    for row in results:
        assert row["error"] is not None and "a defect of the backend" in row["error"], row
        asked = int(row["error"].split("for the ")[1].split(" words")[0])
        given = int(row["error"].split("hidden states of ")[1].split(" words")[0])
        assert given == asked - 1


def test_with_gold_spans_the_ruling_carries_a_span_model_whose_spans_point_at_the_invented_figure(
        tmp_path: Path) -> None:
    rows = span_rows(tmp_path)
    judged_inside(rows, tmp_path / "run")
    ruling, court = tmp_path / "r.yaml", tmp_path / "court.yaml"
    result = runner.invoke(app, ["calibrate", str(tmp_path / "run"), "--ruling", str(ruling), "-o", str(court)],
                           env=WIDE)
    assert result.exit_code == 0, result.output
    assert "pointing at the hallucinated words" in result.output
    fitted = FittedRuling.model_validate(yaml.safe_load(ruling.read_text()))
    assert fitted.spans is not None and set(fitted.probes) == {"lookback", "hidden"} and fitted.hidden_depth == 0.5
    assert fitted.spans.probe is None  # the run recorded no word states
    assert "spans_out_of_fold" in fitted.evaluation

    result = runner.invoke(app, ["rejudge", str(tmp_path / "run"), "--court", str(court), "--out",
                                 str(tmp_path / "R2")], env=WIDE)
    assert result.exit_code == 0, result.output
    gold = {r["id"]: r for r in rows}
    for line in (tmp_path / "R2" / "results.jsonl").read_text().splitlines():
        row = json.loads(line)
        case = gold[row["case_id"]]
        if case["label"] == "FAIL":
            [span] = case["spans"]
            assert row["label"] == "FAIL"
            assert [span["start"], span["end"]] in [[a, b] for a, b, _ in row["spans"]], row  # in the case's answer
        else:
            assert row["label"] == "PASS" and not row.get("spans")


def test_word_states_recorded_by_a_run_give_the_span_model_a_word_probe_and_its_court_asks_for_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rows = span_rows(tmp_path)
    run = judged_inside(rows, tmp_path / "run", overrides={"witnesses.word_states": True})
    audit = Audit(run)
    observed = [e for row in audit.rows() for e in audit.events(row.case_id)
                if isinstance(e, ModelCallEvent) and e.observe is not None]
    assert observed and all(e.observe.hidden_only for e in observed)
    first = observed[0]
    assert len(first.hidden) == len(first.observe.spans) + len(first.observe.hidden_only)  # a state per word

    ruling, court = tmp_path / "r.yaml", tmp_path / "court.yaml"
    result = runner.invoke(app, ["calibrate", str(run), "--ruling", str(ruling), "-o", str(court)], env=WIDE)
    assert result.exit_code == 0, result.output
    assert "word probe over each word's hidden state" in " ".join(result.output.split())
    fitted = FittedRuling.model_validate(yaml.safe_load(ruling.read_text()))
    assert fitted.spans is not None and fitted.spans.probe is not None
    assert fitted.spans.linear.features[-1] == "word_probe"
    assert len(fitted.spans.probe.linear.weights) == len(first.hidden[-1][0])  # over a word's state
    # the ruling weighs what the word probe says of the answer's words (its most suspect ones) among its values
    assert set(WORD_VALUES) <= set(fitted.families["any"].linear.features)

    # with a run of data without gold spans beside it, the probe fitted on the annotated answers speaks of its
    # answers too: their words' states are kept (no span example), and the ruling weighs their word values
    plain = judged_inside([{k: v for k, v in r.items() if k != "spans"} | {"id": r["id"] + "-plain"} for r in rows],
                          tmp_path / "plain", overrides={"witnesses.word_states": True})
    fit, runs = calibrate_ruling([run, plain])
    unannotated = [i for i, e in enumerate(fit.examples) if e.case_id.endswith("-plain")]
    assert unannotated and all(fit.examples[i].spans is None and fit.examples[i].word_hidden is not None
                               and fit.examples[i].word_hidden.shape[1] == len(first.hidden[-1][0]) for i in unannotated)
    design = Design(fit.examples)
    word_probe = _word_probe(design, np.arange(len(fit.examples)))
    columns = _word_columns(design, np.array(unannotated), word_probe, cross_fitted=True)
    assert word_probe is not None and np.isfinite(columns).all()

    # its court, as written, records the words' states (to refit): each word's state is scored by the word probe
    # once per case, however many weighings (the answer, each sentence, the spans) read it
    scored: list[int] = []
    scores = Probe.scores
    monkeypatch.setattr(Probe, "scores", lambda self, vectors: scored.append(len(vectors)) or scores(self, vectors))
    kept = judged_inside(rows, tmp_path / "kept", court=str(court))
    asked = [e for row in Audit(kept).rows() for e in Audit(kept).events(row.case_id)
             if isinstance(e, ModelCallEvent) and e.observe is not None]
    assert asked and all(e.observe.hidden_only and not e.observe.project_words for e in asked)
    assert sorted(scored) == sorted(len(e.observe.hidden_only) for e in asked)

    def weighings(run: Path) -> dict[str, object]:
        audit = Audit(run)
        return {row.case_id: e.verdict.weighing for row in audit.rows() for e in audit.events(row.case_id)
                if e.event == "verdict"}

    # a court whose ruling has a word probe asks for the words by itself (its file does not say so): each word's
    # state projected onto the probe (one number a word in the record, not the state), weighed as the states are
    spec = yaml.safe_load(court.read_text())
    assert spec["witnesses"].pop("word_states") is True
    court.write_text(yaml.safe_dump(spec, sort_keys=False))
    again = judged_inside(rows, tmp_path / "again", court=str(court))
    audit = Audit(again)
    asked = [e for row in audit.rows() for e in audit.events(row.case_id)
             if isinstance(e, ModelCallEvent) and e.observe is not None]
    assert asked and all(e.observe.hidden_only and e.observe.project_words == fitted.spans.probe.direction
                         and e.projected_words is not None for e in asked)
    for e in asked:
        words = e.hidden[len(e.observe.spans):]
        assert len(words) == len(e.observe.hidden_only) and all(len(w[0]) == 1 for w in words)  # one number a word
    weighed, states = weighings(again), weighings(kept)
    assert weighed and all(w is not None and not set(WORD_VALUES) & set(w.missing) and
                           set(WORD_VALUES) <= set(w.contributions) for w in weighed.values())
    for case, w in weighed.items():  # the projection gives the word values the states give (up to rounding)
        for name in WORD_VALUES:
            assert w.contributions[name] == pytest.approx(states[case].contributions[name], abs=0.05), (case, name)

    # rejudged with a ruling whose word probe points elsewhere, the recorded projections are not read as its own:
    # the word values are missing, never misread
    other = fitted.model_copy(update={"spans": fitted.spans.model_copy(update={"probe": fitted.spans.probe.model_copy(
        update={"linear": fitted.spans.probe.linear.model_copy(
            update={"weights": [-w for w in fitted.spans.probe.linear.weights]})})})})
    other_file = tmp_path / "other.yaml"
    other_file.write_text(yaml.safe_dump(other.model_dump(mode="json"), sort_keys=False))
    spec["witnesses"]["rulings"] = {k: str(other_file) for k in spec["witnesses"]["rulings"]}
    other_court = tmp_path / "other-court.yaml"
    other_court.write_text(yaml.safe_dump(spec, sort_keys=False))
    result = runner.invoke(app, ["rejudge", str(again), "--court", str(other_court), "--out", str(tmp_path / "R")],
                           env=WIDE)
    assert result.exit_code == 0, result.output
    rejudged = weighings(tmp_path / "R")
    assert rejudged and all(set(WORD_VALUES) <= set(w.missing) for w in rejudged.values())

    # a court that asks for no words decides runs that recorded them (states or projections) as if they had not
    del spec["witnesses"]["rulings"]
    bare = tmp_path / "bare-court.yaml"
    bare.write_text(yaml.safe_dump(spec, sort_keys=False))
    for recorded in (kept, again):
        out = tmp_path / f"bare-{recorded.name}"
        result = runner.invoke(app, ["rejudge", str(recorded), "--court", str(bare), "--out", str(out)], env=WIDE)
        assert result.exit_code == 0, result.output
        assert all(json.loads(line)["error"] is None for line in (out / "results.jsonl").read_text().splitlines())

    # a run that recorded projections fits no new word probe, and says why
    result = runner.invoke(app, ["calibrate", str(again), "--ruling", str(tmp_path / "r2.yaml")], env=WIDE)
    assert result.exit_code == 0, result.output
    assert "projected onto the ruling's word probe" in " ".join(result.output.split())
    assert FittedRuling.model_validate(yaml.safe_load((tmp_path / "r2.yaml").read_text())).spans.probe is None
    gold = {r["id"]: r for r in rows}
    for line in (again / "results.jsonl").read_text().splitlines():
        row = json.loads(line)
        if gold[row["case_id"]]["label"] == "FAIL":
            [span] = gold[row["case_id"]]["spans"]
            assert [span["start"], span["end"]] in [[a, b] for a, b, _ in row["spans"]], row


def test_a_court_that_tries_its_charges_and_hears_witnesses_is_written_with_its_ruling_and_its_trial(
        tmp_path: Path) -> None:
    """`calibrate --ruling -o` on a court with a trial section (it raised a TypeError before 2026-11-27)."""
    tried = tmp_path / "tried.yaml"
    tried.write_text("name: tried\nextends: full\nwitnesses: {heard: [grounding, figures]}\n")
    run = start_run(RunSpec.build(str(labelled(tmp_path / "t.jsonl")), judge="courtroom", court=str(tried),
                                  model=NO_RULING_MODEL), tmp_path / "run")
    run.execute(runner=LocalRunner(ScriptedBackend(PseudoModel(), model="default")))
    run.close()
    court = tmp_path / "courts" / "court.yaml"
    result = runner.invoke(app, ["calibrate", str(tmp_path / "run"), "--ruling", str(tmp_path / "r.yaml"),
                                 "-o", str(court)], env=WIDE)
    assert result.exit_code == 0, result.output
    written = yaml.safe_load(court.read_text())
    assert written["witnesses"]["rulings"] == {NO_RULING_MODEL: "../r.yaml"}
    assert written["trial"]["personas"] == {"prosecutor": "prosecutor", "defender": "defender", "judge": "judge"}
    assert written["trial"]["max_rounds"] == 1
