"""Served models over HTTP against a real vLLM server: every kind of request, a court and every baseline end
to end, agreement with the in-process backend on the same weights, the errors a user meets, a server killed
mid-run, and a server without prompt log-probabilities (as hosted APIs are)."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Literal

import numpy as np
import pytest
from typer.testing import CliRunner

from courtroom.baselines import BASELINES
from courtroom.case import Case
from courtroom.clerk import grounding
from courtroom.cli import app
from courtroom.courts import load_court
from courtroom.door import BackendSpec
from courtroom.door.requests import ChatMessage, GenerationRequest
from courtroom.door.served import ServedBackend
from courtroom.errors import BackendError, ConfigError
from courtroom.evaluate.datasets import example_cases
from courtroom.log.audit import Audit
from courtroom.log.manifest import RunSpec
from courtroom.log.store import RunStore
from courtroom.log.verify import verify
from courtroom.report.calls import call_views
from courtroom.report.measurement import answer_gains
from courtroom.runs.start import start_run
from tests.helpers import vllm_server
from tests.helpers.served import KEY, KEY_ENV, NAME, serve

pytestmark = pytest.mark.served

CASE = Case(id="c", question="When was it automated?",
            context=["The Harrow Point lighthouse was first lit in 1874 and automated in 1962."],
            answer="It was automated in 1926, after its last keeper retired.")


def spec(url: str, judge: str = "courtroom", **options) -> RunSpec:
    return RunSpec.build("examples", judge=judge, model=NAME, model_url=url, api_key_env=KEY_ENV, **options)


def backend(url: str, **options) -> ServedBackend:
    return ServedBackend(url, NAME, api_key_env=KEY_ENV, **options)


def test_scores_agree_with_the_in_process_backend(server: str, real_backend) -> None:
    """The same weights (bf16 served, float32 in process): per-token log-probabilities within 0.5 nats, option
    probabilities within 0.1, and the same token spans."""
    requests = [grounding.scoring_request(CASE, CASE.answer.strip(), "full"),
                grounding.scoring_request(CASE, CASE.answer.strip(), "none"),
                GenerationRequest(messages=(ChatMessage(role="user", content="Is 1926 the year in the context? "
                                                                             "Answer supported or hallucinated."),),
                                  output_type=Literal["supported", "hallucinated"])]
    served, local = backend(server).generate(requests), real_backend.generate(requests)
    for s, r in zip(served, local):
        assert s.token_spans == r.token_spans
        assert np.max(np.abs(np.array(s.token_logprobs) - np.array(r.token_logprobs))) < 0.5
        assert all(abs(s.option_probs[o] - r.option_probs[o]) < 0.1 for o in s.option_probs)


def test_characters_split_between_tokens_keep_the_token_spans_of_the_in_process_backend(server: str,
                                                                                        real_backend) -> None:
    """vLLM writes each token as it decodes alone: a byte-level token holding part of an emoji or a CJK character is
    U+FFFD. The served door reads the tokens against the text, so its spans are the in-process tokenizer's offsets
    (read by the strings' lengths, every token after `😀` pointed one character further, after `日` two)."""
    case = CASE.model_copy(update={"answer": "Le café — très bon \U0001F600 ok, naïve 日本, automated in 1926."})
    requests = [grounding.scoring_request(case, case.answer, "full"), grounding.scoring_request(case, case.answer, "none")]
    served, local = backend(server).generate(requests), real_backend.generate(requests)
    assert [s.token_spans for s in served] == [r.token_spans for r in local]


def test_a_judge_served_beside_debaters_in_process_hears_every_judge_call(server: str, tmp_path: Path) -> None:
    """The clerk and the debaters on the embedded model in this process, the judge on the vLLM server
    (`trial.models.judge: {model, url}`): the judge's calls, and only they, go to the server; the run verifies."""
    seat = {"model": NAME, "url": server, "api_key_env": KEY_ENV}
    run = start_run(RunSpec.build("examples", court="full", model="default", device="cpu", api_key_env=KEY_ENV,
                                  limit=6, allow_hosts=[f"{server.removesuffix('/v1')}={KEY_ENV}"],  # consent (#50)
                                  judge_options={"overrides": {"trial.models.judge": seat, "max_charges": 1}}),
                    tmp_path / "seated")
    rows = run.execute()
    run.close()
    assert len(rows) == 6 and all(r.error is None for r in rows), [r.error for r in rows]
    audit = Audit(tmp_path / "seated")
    calls = [e for r in rows for e in audit.events(r.case_id) if e.event == "model_call"]
    judged = [e for e in calls if e.role == "judge"]
    assert judged and {e.seat for e in judged} == {f"{NAME}@{server}"}
    assert {e.seat for e in calls if e.role != "judge"} == {None}
    manifest = RunStore(tmp_path / "seated").manifest()
    assert manifest.judge["court"]["trial"]["models"]["judge"][0]["url"] == server
    assert verify(audit) == []


def test_a_court_run_over_http_verifies_and_never_records_the_key(server: str, tmp_path: Path) -> None:
    """Its trials' texts `generated` (#59): each move's pieces read by the served model's likelihoods, then one sentence
    the speaker writes after them."""
    generated = {"judge_options": {"overrides": {"trial.texts": "generated", "indictment.threshold": 0.0}}}
    run = start_run(spec(server, limit=6, court="full", **generated), tmp_path / "court")
    rows = run.execute()
    run.close()
    assert len(rows) == 6 and all(r.error is None for r in rows) and sum(r.parse_failures for r in rows) == 0
    manifest = RunStore(tmp_path / "court").manifest()
    assert manifest.server is not None and manifest.server.scores_texts
    assert manifest.spec.backend.kind == "served" and manifest.spec.backend.api_key_env == KEY_ENV
    audit = Audit(tmp_path / "court")
    assert verify(audit) == []
    # the audit shows a served run's calls and measurement as it shows an in-process run's
    tried = max(rows, key=lambda r: r.model_calls)
    events = audit.events(tried.case_id)
    case = next(e.case for e in events if e.event == "case_start")
    views = call_views(events)
    assert len(views) == tried.model_calls and all(v.messages and v.constraint for v in views)
    trial = [v for v in views if v.purpose in ("move", "payload", "read")]
    assert {"payload", "read"} <= {v.purpose for v in trial} and all(v.raw for v in trial), [(v.purpose, v.raw)
                                                                                          for v in views]
    moves = [e for e in events if e.event == "move" and e.role in ("prosecutor", "defender")]
    assert moves and all(m.grounds.reading == "likelihood" and m.grounds.verified and m.payload["generated"]
                         for m in moves)
    gains = answer_gains(case, events, audit.grounding_clip())
    assert gains and "".join(case.answer.strip()[g.start:g.end] for g in gains).strip() == case.answer.strip()
    for path in (tmp_path / "court").rglob("*"):
        if path.is_file():
            assert KEY not in path.read_text(errors="replace"), path


@pytest.mark.parametrize("judge", BASELINES)
def test_every_baseline_runs_over_http(server: str, tmp_path: Path, judge: str) -> None:
    options = {"judge_options": {"votes": 2}} if judge == "vote" else {}
    run = start_run(spec(server, judge, limit=4, **options), tmp_path / judge)
    rows = run.execute()
    run.close()
    assert len(rows) == 4 and all(r.error is None for r in rows)
    if judge != "unstructured":  # only the unconstrained judge can fail to parse
        assert sum(r.parse_failures for r in rows) == 0


def test_court_verdicts_over_http_agree_with_the_in_process_court(server: str, real_backend) -> None:
    """The 20 example cases, the default court: served (bf16) and in process (float32)."""
    cases = example_cases()
    served = load_court("full", backend(server)).judge_many(cases)
    local = load_court("full", real_backend).judge_many(cases)
    agreement = np.mean([s.label == r.label for s, r in zip(served, local)])
    correlation = np.corrcoef([s.score for s in served], [r.score for r in local])[0, 1]
    assert agreement >= 0.85 and correlation >= 0.9, (agreement, correlation)


def test_a_wrong_url_a_wrong_model_and_a_missing_key_each_say_so(server: str, monkeypatch) -> None:
    from tests.helpers.served import free_port

    with pytest.raises(BackendError, match="cannot reach the model server at http://127.0.0.1:.*is it running"):
        ServedBackend(f"http://127.0.0.1:{free_port()}/v1", NAME, api_key_env=KEY_ENV).prepare()
    with pytest.raises(BackendError, match=r"does not serve 'qwen-none'; it serves \['smollm2-135m'\]"):
        ServedBackend(server, "qwen-none", api_key_env=KEY_ENV).prepare()
    monkeypatch.delenv("NO_SUCH_KEY", raising=False)
    with pytest.raises(BackendError, match=r"refused the request \(401\) with no key \(\$NO_SUCH_KEY is unset\)"):
        ServedBackend(server, NAME, api_key_env="NO_SUCH_KEY").prepare()
    result = CliRunner().invoke(app, ["run", "examples", "--model", "qwen-none", "--model-url", server,
                                      "--api-key-env", KEY_ENV, "--out", "/tmp/courtroom-never-written"])
    assert result.exit_code == 2 and "does not serve 'qwen-none'" in " ".join(result.output.split())
    assert not Path("/tmp/courtroom-never-written/results.jsonl").exists()


def test_a_server_without_prompt_logprobs_refuses_the_measuring_court_before_the_first_case(server: str, tmp_path: Path,
                                                                                              monkeypatch) -> None:
    original = BackendSpec.build

    def without_prompt_logprobs(self, device=None):  # noqa: ANN001, ANN202 - as a hosted API answers
        built = original(self, device)
        built._forced_prompt_logprobs = False
        return built

    monkeypatch.setattr(BackendSpec, "build", without_prompt_logprobs)
    with pytest.raises(ConfigError, match=r"needs prompt log-probabilities.*--court generative"):
        start_run(spec(server), tmp_path / "refused")
    assert not (tmp_path / "refused" / "results.jsonl").exists()
    run = start_run(spec(server, court="generative", limit=6), tmp_path / "generative")
    rows = run.execute()
    run.close()
    assert all(r.error is None for r in rows) and sum(r.parse_failures for r in rows) == 0
    assert RunStore(tmp_path / "generative").manifest().server.prompt_logprobs is False


def test_a_server_killed_mid_run_loses_nothing_and_the_rerun_judges_every_case_once(model_dir: Path, tmp_path: Path) -> None:
    url, process = serve(model_dir, tmp_path / "first.log")
    run = start_run(spec(url, "rails", window=2, concurrency=2), tmp_path / "run")
    killer = threading.Thread(target=lambda: (time.sleep(1.0), vllm_server.stop(process)))
    killer.start()
    rows = run.execute()
    run.close()
    killer.join()
    failed = [r for r in rows if r.error is not None]
    assert failed and all("model server" in r.error for r in failed)  # the cases in flight, named
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    process = vllm_server.start(vllm_server.vllm_python(), model_dir, NAME, port, tmp_path / "second.log",
                                "--api-key", KEY)
    try:
        again = start_run(spec(url, "rails", window=2, concurrency=2), tmp_path / "run")
        assert len(again.remaining) == len(failed) + 20 - len(rows)
        again.execute()
        again.close()
    finally:
        vllm_server.stop(process)
    lines = [json.loads(line) for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    finished = [row["case_id"] for row in lines if row["error"] is None]
    assert len(finished) == 20 and len(set(finished)) == 20


@pytest.mark.ray
def test_ray_workers_are_light_clients_of_the_served_model(server: str) -> None:
    ray = pytest.importorskip("ray")
    from courtroom.baselines import RailsJudge
    from courtroom.log.manifest import RunnerSpec
    from courtroom.runs.runners import make_runner

    served = spec(server, "rails").backend
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        runner = make_runner(RunnerSpec(kind="ray", workers=2), served)
        outcomes = list(runner.run(RailsJudge(served, window=2), example_cases()[:6]))
        info = runner.actors  # released after the run
    finally:
        ray.shutdown()
    assert len(outcomes) == 6 and all(o.ok for o in outcomes) and info == []
    local = {o.case.id: o.verdict.label for o in RailsJudge(backend(server)).run_many(example_cases()[:6])}
    assert {o.case.id: o.verdict.label for o in outcomes} == local
