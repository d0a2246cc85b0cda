"""Attack: `--seed -1` reached numpy's generator, which refuses a negative seed with a traceback; `label` and every
mode of `calibrate` refuse it as a bad option instead, naming it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.labels import invoke, world  # noqa: F401 (world: a fixture)


@pytest.mark.parametrize("mode", [("label", "--write", "l.csv"), ("calibrate",), ("calibrate", "--ruling", "r.yaml"),
                                  ("calibrate", "--ruling", "r.yaml", "--prior", "PRIOR")])
def test_a_negative_seed_is_refused_without_a_traceback(world, mode: tuple[str, ...], tmp_path: Path) -> None:  # noqa: F811
    run, prior_file, _ = world
    args = [str(tmp_path / a) if a.endswith((".csv", ".yaml")) else str(prior_file) if a == "PRIOR" else a
            for a in mode[1:]]
    result = invoke(mode[0], str(run), *args, "--seed", "-1")
    text = " ".join(result.output.split())
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), (result.exception, text)
    assert "Invalid value for '--seed'" in text and "greater than or equal to 0" in text, text
    assert not list(tmp_path.iterdir())
