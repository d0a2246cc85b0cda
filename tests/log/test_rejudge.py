"""`courtroom rejudge`: a finished run decided again under another court, from its transcripts alone."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from courtroom.cli import app
from courtroom.courts import courts_dir, load_court
from courtroom.door import ScriptedBackend, Unparseable
from courtroom.door.requests import GenerationRequest
from courtroom.engine.registry import JudgeSpec
from courtroom.errors import CourtroomError
from courtroom.log.manifest import RunSpec
from courtroom.log.rejudge import refused_cases, rejudge_run
from courtroom.log.store import RunStore
from courtroom.runs.runners import LocalRunner
from courtroom.runs.start import start_run
from tests.helpers.court_script import CourtScript
from tests.helpers.runs import rows_of


def scripted_runner() -> LocalRunner:
    """Every statement with an `e` is weakly grounded (charged, argued and ruled on); `1926` is not grounded."""
    return LocalRunner(ScriptedBackend(CourtScript(
        grounding={"1926": -0.8, "e": 0.1}, p_hallucinated=0.7,
        moves={"prosecutor": ["argue"], "defender": ["rebut"], "judge": ["rule"]})))


def court_file(tmp_path: Path, name: str, old: str, new: str) -> Path:
    """The shipped default court with one line changed."""
    text = (courts_dir() / "full.yaml").read_text()
    assert old in text
    path = tmp_path / f"{name}.yaml"
    path.write_text(text.replace(old, new).replace("name: default", f"name: {name}"))
    return path


def comparable(path: Path) -> list[dict]:
    return [{k: v for k, v in row.items() if k != "transcript"} for row in rows_of(path)]


def test_rejudging_gives_what_a_live_run_of_the_other_court_gives(tmp_path: Path) -> None:
    strict = tmp_path / "strict.yaml"
    strict.write_text("name: strict\nextends: full\naggregation: {method: any, threshold: 0.75, by_model: null}\n")
    spec = RunSpec.build("examples", judge="courtroom", court="full", window=4)
    live_default = start_run(spec, tmp_path / "default")
    live_default.execute(runner=scripted_runner())
    live_default.close()
    live_strict = start_run(spec.model_copy(update={"judge": JudgeSpec(court=str(strict))}), tmp_path / "strict")
    live_strict.execute(runner=scripted_runner())
    live_strict.close()

    rows = rejudge_run(tmp_path / "default", tmp_path / "rejudged", judge=JudgeSpec(court=str(strict)))
    assert len(rows) == 20 and sum(r.charges > 0 for r in rows) >= 10  # trials to re-decide
    assert comparable(tmp_path / "rejudged") == comparable(tmp_path / "strict")
    # the other court really decides otherwise on some cases, so the equality above means something
    before = {r["case_id"]: (r["label"], r["score"]) for r in rows_of(tmp_path / "default")}
    assert any(before[r.case_id] != (r.label, r.score) for r in rows)
    manifest = RunStore(tmp_path / "rejudged").manifest()
    assert manifest.origin.rejudged_from == str(tmp_path / "default")
    assert manifest.origin.changed == {"court": str(strict)}
    assert manifest.config_hash == load_court(strict).config_hash() != RunStore(tmp_path / "default").manifest().config_hash


def test_a_court_that_asks_the_model_something_new_is_refused(tmp_path: Path) -> None:
    reworded = court_file(tmp_path, "reworded", "General knowledge is not evidence.",
                          "General knowledge is never evidence.")
    run = start_run(RunSpec.build("examples", judge="courtroom", court="full"), tmp_path / "run")
    run.execute(runner=scripted_runner())
    run.close()
    with pytest.raises(CourtroomError, match="cannot be rejudged from its transcript: .*never asked the model") as refusal:
        rejudge_run(tmp_path / "run", tmp_path / "out", judge=JudgeSpec(court=str(reworded)))
    assert not RunStore(tmp_path / "out").exists()  # nothing half-written
    # every case the court cannot decide is named (before, only the first), and how to decide them
    refused = refused_cases(tmp_path / "run", judge=JudgeSpec(court=str(reworded)))
    tried = [r.case_id for r in RunStore(tmp_path / "run").rows() if r.rounds]
    assert refused and set(refused) <= {r.case_id for r in RunStore(tmp_path / "run").rows()}
    assert set(tried) <= set(refused)  # every case that held a trial asked the reworded persona
    text = str(refusal.value)
    assert text.startswith(f"case {refused[0]}:") and all(case_id in text for case_id in refused)
    assert len(refused) > 1 and f"and {len(refused) - 1} more" in text and "--calls-from" in text
    assert refused_cases(tmp_path / "run", judge=JudgeSpec(court="full")) == []  # the run's own court
    with pytest.raises(CourtroomError, match="new run directory"):
        rejudge_run(tmp_path / "run", tmp_path / "run", judge=JudgeSpec())


def test_a_broken_transcript_stops_the_rejudge_naming_it_not_counted_as_a_case_to_run_again(tmp_path: Path) -> None:
    run = start_run(RunSpec.build("examples", judge="courtroom", court="full"), tmp_path / "run")
    run.execute(runner=scripted_runner())
    run.close()
    store = RunStore(tmp_path / "run")
    broken = store.transcript_path(store.rows()[3].case_id)
    lines = broken.read_text().splitlines()
    broken.write_text("\n".join([*lines[:3], "{not json", *lines[4:]]) + "\n")
    for attempt in (lambda: refused_cases(tmp_path / "run", judge=JudgeSpec(court="full")),
                    lambda: rejudge_run(tmp_path / "run", tmp_path / "out", judge=JudgeSpec(court="full"))):
        with pytest.raises(CourtroomError) as stopped:
            attempt()
        assert broken.name in str(stopped.value) and "cannot be rejudged" not in str(stopped.value)
    assert not RunStore(tmp_path / "out").exists()


def test_a_court_that_needs_calls_the_run_never_made_takes_them_from_another_run(tmp_path: Path) -> None:
    spec = RunSpec.build("examples", judge="courtroom", court="default", window=4)
    for name, run_spec in (("clerk", spec), ("live", spec.model_copy(update={"judge": JudgeSpec(court="full")}))):
        run = start_run(run_spec, tmp_path / name)
        run.execute(runner=scripted_runner())
        run.close()
    with pytest.raises(CourtroomError, match="never asked the model"):  # the clerk's run holds no trial's calls
        rejudge_run(tmp_path / "clerk", tmp_path / "alone", judge=JudgeSpec(court="full"))
    rejudge_run(tmp_path / "clerk", tmp_path / "both", judge=JudgeSpec(court="full"), calls_from=[tmp_path / "live"])
    assert comparable(tmp_path / "both") == comparable(tmp_path / "live")
    assert comparable(tmp_path / "both") != comparable(tmp_path / "clerk")
    # a case the other run lacks is named with the run that lacks it; another model's calls are refused
    tried = next(r.case_id for r in RunStore(tmp_path / "live").rows() if r.rounds)
    RunStore(tmp_path / "live").transcript_path(tried).unlink()
    with pytest.raises(CourtroomError, match=r"no transcript of it in .*live"):
        rejudge_run(tmp_path / "clerk", tmp_path / "lacking", judge=JudgeSpec(court="full"),
                    calls_from=[tmp_path / "live"])
    manifest = tmp_path / "live" / "manifest.json"
    manifest.write_text(manifest.read_text().replace('"model": "default"', '"model": "other-model"', 1))
    with pytest.raises(CourtroomError, match="its model \\(other-model\\) is not the model"):
        rejudge_run(tmp_path / "clerk", tmp_path / "other", judge=JudgeSpec(court="full"),
                    calls_from=[tmp_path / "live"])


def fenced_or_plain(request: GenerationRequest) -> object:
    """Half the cases get their JSON inside a ```json fence (a strict reader's parse failure)."""
    score = 0.8 if "1926" in request.messages[-1].content or sum(map(ord, request.cache_group or "")) % 3 else 0.1
    reply = f'{{"reasons": ["checked"], "score": {score}}}'
    return Unparseable(f"```json\n{reply}\n```") if sum(map(ord, request.cache_group or "")) % 2 else reply


def test_an_unstructured_run_read_again_leniently_equals_a_live_lenient_run(tmp_path: Path) -> None:
    spec = RunSpec.build("examples", judge="unstructured")
    for name, options in (("strict", {}), ("lenient", {"reading": "lenient"})):
        run = start_run(spec.model_copy(update={"judge": JudgeSpec(name="unstructured", options=options)}), tmp_path / name)
        run.execute(runner=LocalRunner(ScriptedBackend(fenced_or_plain)))
        run.close()
    result = CliRunner().invoke(app, ["rejudge", str(tmp_path / "strict"), "--reading", "lenient",
                                      "--out", str(tmp_path / "reread")])
    assert result.exit_code == 0, result.output
    assert comparable(tmp_path / "reread") == comparable(tmp_path / "lenient")
    strict, lenient = rows_of(tmp_path / "strict"), rows_of(tmp_path / "lenient")
    assert sum(r["parse_failures"] for r in strict) >= 5 and sum(r["parse_failures"] for r in lenient) == 0
    assert RunStore(tmp_path / "reread").manifest().origin.changed == {"reading": "lenient"}
    # a case whose transcript is gone is left out and counted, not a crash
    gone = RunStore(tmp_path / "strict").transcript_path(strict[0]["case_id"])
    gone.unlink()
    partial = CliRunner().invoke(app, ["rejudge", str(tmp_path / "strict"), "--reading", "lenient",
                                       "--out", str(tmp_path / "partial")])
    assert partial.exit_code == 0 and "left out 1 case of" in partial.output
    assert len(rows_of(tmp_path / "partial")) == len(strict) - 1
    # each kind of run takes its own change
    refused = CliRunner().invoke(app, ["rejudge", str(tmp_path / "strict"), "--court", "default", "--out",
                                       str(tmp_path / "x")])
    assert refused.exit_code == 2 and "--reading" in refused.output
