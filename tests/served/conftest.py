"""A real vLLM server on 127.0.0.1 for the served-model tests (its CPU build, in its own environment).

The server serves the embedded default model (SmolLM2-135M, from courtroom's dequantized copy) under the name
`smollm2-135m`, and requires an API key, which the tests read from `COURTROOM_TEST_KEY`. Without a vLLM
environment the tests are skipped, except in CI, where `.ci/run` installs one and a skip would hide a failure.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.helpers import vllm_server
from tests.helpers.served import KEY, KEY_ENV, serve


@pytest.fixture(scope="session")
def model_dir(tmp_path_factory) -> Path:
    return vllm_server.servable_copy("default", tmp_path_factory.mktemp("vllm-models"))


@pytest.fixture(scope="session")
def server(model_dir: Path, tmp_path_factory):
    """The URL of a running vLLM server (and its key in the environment)."""
    os.environ[KEY_ENV] = KEY
    url, process = serve(model_dir, tmp_path_factory.mktemp("vllm") / "server.log")
    yield url
    vllm_server.stop(process)
