"""A run on the Ray runner with a slow scripted model, as its own process (`python -m tests.attacks.ray_driver OUT`),
so a test can kill the driver mid-run and resume it."""

from __future__ import annotations

import sys
import time

import ray

from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.log.manifest import RunSpec
from courtroom.runs.ray_runner import RayRunner
from courtroom.runs.start import start_run


def slow_backend(device: str) -> ScriptedBackend:
    model = PseudoModel()

    def answer(request):  # noqa: ANN001, ANN202
        time.sleep(0.05)
        return model(request)

    return ScriptedBackend(answer)


def main(out: str) -> None:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, _system_config={"worker_niceness": 0})
    run = start_run(RunSpec.build("examples", judge="rails", window=2), out)
    run.execute(runner=RayRunner(workers=2, chunk_size=2, backend_factory=slow_backend))
    run.close()
    ray.shutdown()


if __name__ == "__main__":
    main(sys.argv[1])
