"""The Ray runner: GPU placement with logical GPUs, killed workers, poisonous cases, same answers."""

from __future__ import annotations

import os
import threading
import time

import pytest

ray = pytest.importorskip("ray")
pytestmark = pytest.mark.ray

from courtroom.baselines import RailsJudge  # noqa: E402
from courtroom.courts import load_court  # noqa: E402
from courtroom.door import ScriptedBackend  # noqa: E402
from courtroom.door.spec import BackendSpec  # noqa: E402
from courtroom.evaluate.datasets import example_cases  # noqa: E402
from courtroom.runs.ray_runner import RayRunner, seat_devices  # noqa: E402
from courtroom.runs.runners import LocalRunner  # noqa: E402
from tests.helpers.court_script import CourtScript  # noqa: E402


@pytest.fixture(scope="module")
def ray_two_gpus():
    ray.init(num_cpus=2, num_gpus=2, include_dashboard=False, log_to_driver=False,
             _system_config={"worker_niceness": 0})
    yield
    ray.shutdown()


class SlowScript:
    """The court script, slowed down so a worker can be killed mid-run; optionally fatal for one case."""

    def __init__(self, delay: float = 0.0, poison: str | None = None) -> None:
        self.delay = delay
        self.poison = poison
        self.script = CourtScript(suspect={"1": 0.7, "9": 0.7}, grounding={"1": -0.5, "9": -0.5},
                                  moves={"prosecutor": ["argue"], "defender": ["rebut"], "judge": ["rule"]},
                                  p_hallucinated=0.6)

    def __call__(self, request):
        if self.poison and request.cache_group == self.poison:
            os._exit(1)  # the worker process dies, as on an out-of-memory kill
        time.sleep(self.delay)
        return self.script(request)


def scripted_factory(delay: float = 0.0, poison: str | None = None):
    def build(device: str):
        return ScriptedBackend(SlowScript(delay, poison))
    return build


def scripted_seat(spec: BackendSpec, device: str) -> ScriptedBackend:
    """A further model's door in a worker: the slow script under the seat's model name."""
    return ScriptedBackend(SlowScript(), model=spec.model)


def verdicts(outcomes) -> dict[str, tuple]:
    return {o.case.id: (o.verdict.label, round(o.verdict.score, 6)) if o.verdict else ("error", o.error_type)
            for o in outcomes}


def test_two_workers_get_distinct_gpus_and_both_work(ray_two_gpus) -> None:
    runner = RayRunner(workers=2, gpus_per_worker=1, chunk_size=2, backend_factory=scripted_factory(0.05))
    judge = load_court("full")
    seen_info = []
    outcomes = []
    for outcome in runner.run(judge, example_cases()[:8]):
        outcomes.append(outcome)
        if not seen_info:
            seen_info = runner.worker_info()
    assert len(outcomes) == 8 and len({o.case.id for o in outcomes}) == 8
    devices = sorted(info["cuda_visible_devices"] for info in seen_info)
    assert devices == ["0", "1"]
    assert all(info["device"] == "cpu" for info in seen_info)  # logical GPUs, no CUDA here: CPU fallback


def test_a_worker_asks_for_every_seated_models_gpus_and_places_each_on_its_own(ray_two_gpus) -> None:
    judge = load_court("full", overrides={"trial.models.judge": {"model": "judge-model", "gpus": 1}})
    runner = RayRunner(workers=1, gpus_per_worker=1, chunk_size=2, backend_factory=scripted_factory(),
                       seat_factory=scripted_seat)
    assert runner.worker_gpus(judge) == 2
    outcomes, info = [], []
    for outcome in runner.run(judge, example_cases()[:4]):
        outcomes.append(outcome)
        info = info or runner.worker_info()
    [worker] = info
    assert len(worker["gpu_ids"]) == 2 and worker["seats"] == {"judge-model": "cpu"}  # logical GPUs, no CUDA
    calls = [e for o in outcomes for e in o.events if e.event == "model_call"]
    assert {e.seat for e in calls if e.role == "judge"} == {"judge-model"} and {e.seat for e in calls
                                                                                 if e.role != "judge"} == {None}
    assert seat_devices("cuda", 3, 1.0, {"j": 1.0, "k": 0.0, "m": 1.0}) == {"j": "cuda:1", "k": "cuda:0", "m": "cuda:2"}
    assert seat_devices("cpu", 0, 0.0, {"j": 1.0}) == {"j": "cpu"}


def test_a_killed_worker_is_replaced_and_no_case_is_lost_or_duplicated(ray_two_gpus) -> None:
    runner = RayRunner(workers=2, chunk_size=2, backend_factory=scripted_factory(0.2), max_retries=2)
    cases = example_cases()[:10]
    outcomes = []
    killed = threading.Event()
    for outcome in runner.run(load_court("full"), cases):
        outcomes.append(outcome)
        if not killed.is_set():
            ray.kill(runner.actors[0])  # dies mid-chunk
            killed.set()
    ids = [o.case.id for o in outcomes]
    assert sorted(ids) == sorted(c.id for c in cases)  # every case exactly once
    assert all(o.ok for o in outcomes)
    assert runner.restarts >= 1


def test_a_case_that_keeps_killing_its_worker_ends_as_an_error(ray_two_gpus) -> None:
    cases = example_cases()[:4]
    runner = RayRunner(workers=1, chunk_size=4, max_retries=1, backend_factory=scripted_factory(0.0, cases[1].id))
    outcomes = {o.case.id: o for o in runner.run(load_court("full"), cases)}
    assert sorted(outcomes) == sorted(c.id for c in cases)
    bad = outcomes[cases[1].id]
    assert not bad.ok and bad.error_type == "WorkerDied" and "died 2 times" in bad.error
    assert bad.events[-1].event == "error" and bad.events[-1].traceback
    assert all(outcomes[c.id].ok for c in cases if c.id != cases[1].id)


def test_local_and_ray_runners_agree_on_the_scripted_court(ray_two_gpus) -> None:
    cases = example_cases()
    local = verdicts(LocalRunner(ScriptedBackend(SlowScript())).run(load_court("full"), cases))
    remote = verdicts(RayRunner(workers=2, chunk_size=3, backend_factory=scripted_factory()).run(
        load_court("full"), cases))
    assert local == remote


@pytest.mark.model
def test_local_and_ray_runners_agree_on_the_real_model(ray_two_gpus) -> None:
    backend = BackendSpec(device="cpu", dtype="float32")  # scores that do not move with the batching
    cases = example_cases()[:6]
    local = verdicts(LocalRunner().run(RailsJudge(backend, window=4), cases))
    remote = verdicts(RayRunner(backend, workers=1, chunk_size=4).run(RailsJudge(backend, window=4), cases))
    assert local == remote


class UnloadableBackend(ScriptedBackend):
    """A model door whose model cannot load (a typo in a Hub id, no such device)."""

    def prepare(self) -> None:
        raise OSError("org/missing-model is not a local folder and the Hub is unreachable")


def test_workers_that_cannot_load_the_model_stop_the_run_with_its_error(ray_two_gpus) -> None:
    from courtroom.errors import BackendError

    runner = RayRunner(workers=2, backend_factory=lambda device: UnloadableBackend(lambda request: "factual",
                                                                                          model="org/missing-model"))
    with pytest.raises(BackendError, match="could not start model 'default': .*BackendError: model 'org/missing-model' "
                                           "could not be loaded: OSError: org/missing-model is not a local folder"):
        list(runner.run(RailsJudge(), example_cases()[:4]))
    assert runner.actors == []
