"""`--dtype`: the type a model runs in is a setting of the run's backend, passed to the in-process door."""

from __future__ import annotations

import pytest

from courtroom.errors import ConfigError
from courtroom.log.manifest import RunSpec


def test_the_dtype_reaches_the_in_process_backend_and_is_recorded_only_when_set() -> None:
    spec = RunSpec.build("examples", dtype="bfloat16")
    assert spec.backend.build().dtype_request == "bfloat16"
    assert spec.model_dump(mode="json")["backend"]["dtype"] == "bfloat16"
    default = RunSpec.build("examples")
    assert default.backend.build().dtype_request == "auto"
    assert "dtype" not in default.model_dump(mode="json")["backend"]  # manifests of earlier runs read the same


def test_an_unknown_dtype_is_refused_naming_the_setting() -> None:
    with pytest.raises(ConfigError, match=r"BackendSpec.dtype: Input should be 'auto', 'float32', 'bfloat16' or"):
        RunSpec.build("examples", dtype="int4")
