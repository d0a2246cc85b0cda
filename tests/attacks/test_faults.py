"""Attack 13: faults during a run. A full disk, a driver killed mid-run, a worker that hangs, two runs on one
Ray cluster: nothing finished is lost, and the re-run completes every case exactly once."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.errors import RunError
from courtroom.evaluate.datasets import example_cases
from courtroom.log import store as store_module
from courtroom.log.audit import Audit
from courtroom.log.manifest import RunSpec
from courtroom.log.store import RunStore
from courtroom.log.verify import verify
from courtroom.runs.runners import LocalRunner
from courtroom.runs.start import start_run

ROOT = Path(__file__).resolve().parents[2]


def judged_once(out: Path, cases: int = 20) -> None:
    """Every case has exactly one row with a verdict (lines of failed attempts aside), and the run verifies."""
    lines = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    finished = Counter(row["case_id"] for row in lines if row["error"] is None)
    assert len(finished) == cases and set(finished.values()) == {1}, finished
    assert verify(Audit(out)) == []


def full_disk_after(writes: int, monkeypatch: pytest.MonkeyPatch, torn: bool = False) -> None:
    """The disk fills after `writes` transcripts: the next write fails (leaving half a result line if `torn`)."""
    real_write = store_module.RunStore.write
    count = {"n": 0}

    def write(self, outcome, variants=None):  # noqa: ANN001, ANN202
        count["n"] += 1
        if count["n"] > writes:
            if torn:
                with self.results_path.open("a") as handle:
                    handle.write('{"case_id": "half a li')
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(self, outcome, variants)

    monkeypatch.setattr(store_module.RunStore, "write", write)


@pytest.mark.parametrize("torn", [False, True])
def test_a_full_disk_stops_the_run_keeping_what_is_saved_and_the_rerun_completes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, torn: bool) -> None:
    out = tmp_path / "run"
    spec = RunSpec.build("examples", judge="rails", window=4)
    runner = LocalRunner(ScriptedBackend(PseudoModel()))
    with monkeypatch.context() as patch:
        full_disk_after(7, patch, torn)
        run = start_run(spec, out)
        with pytest.raises(RunError, match=r"No space left on device.*7 of 20 cases are saved.*resume"):
            run.execute(runner=runner)
        run.close()
    assert len(RunStore(out).rows()) == 7
    resumed = start_run(spec, out)
    assert len(resumed.remaining) == 13
    resumed.execute(runner=runner)
    resumed.close()
    judged_once(out)


ray = pytest.importorskip("ray")


@pytest.mark.ray
def test_a_killed_driver_resumes_and_judges_every_case_once(tmp_path: Path) -> None:
    out = tmp_path / "run"
    command = [sys.executable, "-m", "tests.attacks.ray_driver", str(out)]
    driver = subprocess.Popen(command, cwd=ROOT, start_new_session=True, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    results = out / "results.jsonl"
    deadline = time.time() + 120
    while time.time() < deadline and (not results.is_file() or len(results.read_text().splitlines()) < 4):
        time.sleep(0.2)
    os.killpg(driver.pid, signal.SIGKILL)  # the driver and everything it started
    driver.wait()
    saved = len(RunStore(out).rows())
    assert 4 <= saved < 20
    subprocess.run(command, cwd=ROOT, check=True, timeout=300, capture_output=True)
    judged_once(out)


@pytest.fixture(scope="module")
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, _system_config={"worker_niceness": 0})
    yield
    ray.shutdown()


def hangs_on(case_id: str, start_seconds: float = 0.0):  # noqa: ANN201
    """Workers that hang on one case, and take `start_seconds` to start (a model loading on a busy machine)."""
    def build(device: str) -> ScriptedBackend:
        time.sleep(start_seconds)
        model = PseudoModel()

        def answer(request):  # noqa: ANN001, ANN202
            if request.cache_group == case_id:
                time.sleep(3600)
            return model(request)

        return ScriptedBackend(answer)
    return build


@pytest.mark.ray
@pytest.mark.parametrize("start_seconds", [0.0, 6.0])
def test_a_hung_worker_is_replaced_and_its_case_ends_as_an_error(cluster, start_seconds: float) -> None:
    """A chunk's time runs from when its worker is up: a replacement that takes longer to start than the chunk
    timeout (6 s against 4) is not taken for a hang, so only the hung case fails, however busy the machine."""
    from courtroom.baselines import RailsJudge
    from courtroom.runs.ray_runner import RayRunner

    cases = example_cases()[:6]
    runner = RayRunner(workers=1, chunk_size=2, chunk_timeout=4, max_retries=1,
                       backend_factory=hangs_on(cases[3].id, start_seconds))
    outcomes = list(runner.run(RailsJudge(), cases))
    assert Counter(o.case.id for o in outcomes) == Counter(c.id for c in cases)
    hung = next(o for o in outcomes if o.case.id == cases[3].id)
    assert hung.error_type == "WorkerTimeout" and "--chunk-timeout 4" in hung.error
    assert all(o.ok for o in outcomes if o.case.id != cases[3].id)


@pytest.mark.ray
def test_two_runs_share_one_cluster_without_mixing(cluster) -> None:
    from courtroom.baselines import RailsJudge
    from courtroom.runs.ray_runner import RayRunner

    cases = example_cases()
    halves = (cases[:10], cases[10:])
    results: dict[int, list] = {}

    def judge(i: int) -> None:
        runner = RayRunner(workers=1, chunk_size=3, cpus_per_worker=1,
                           backend_factory=lambda device: ScriptedBackend(PseudoModel()))
        results[i] = list(runner.run(RailsJudge(), list(halves[i])))

    threads = [threading.Thread(target=judge, args=(i,)) for i in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    local = {o.case.id: o.verdict for o in RailsJudge(ScriptedBackend(PseudoModel())).run_many(cases)}
    for i, half in enumerate(halves):
        assert [o.case.id for o in sorted(results[i], key=lambda o: o.case.id)] == sorted(c.id for c in half)
        assert all(o.verdict == local[o.case.id] for o in results[i])
