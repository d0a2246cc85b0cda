"""Attack tests; `pseudo_run` builds a small run of hostile rows on the pseudo-model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.log.manifest import RunSpec
from courtroom.runs.runners import LocalRunner
from courtroom.runs.start import start_run
from tests.helpers.cases import NO_RULING_MODEL


def pseudo_run(rows: list[dict[str, Any]], dataset: Path, out: Path) -> Path:
    """Write `rows` to `dataset` (JSON Lines) and judge them with the default court on the pseudo-model into `out` (under
    a model name no ruling is fitted for: the measurement decides)."""
    dataset.write_text("".join(json.dumps(r) + "\n" for r in rows))
    run = start_run(RunSpec.build(str(dataset), judge="courtroom", window=5, model=NO_RULING_MODEL), out)
    run.execute(runner=LocalRunner(ScriptedBackend(PseudoModel())))
    run.close()
    return out
