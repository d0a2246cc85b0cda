"""Shared fixtures. The real default model is loaded once per session, only by tests that ask for it."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def real_backend():
    """The transformers backend on the embedded default model (SmolLM2-135M), CPU, in the dtype users get (`auto`:
    bfloat16 on a CPU that computes in it)."""
    from courtroom.door.transformers import TransformersBackend

    backend = TransformersBackend("default", device="cpu")
    _ = backend.loaded  # load once
    return backend


@pytest.fixture(scope="session")
def float32_backend():
    """The same model pinned to float32, for the tests that need scores not to move with how a prompt was batched,
    cached or observed (in bfloat16 they move in the third decimal)."""
    from courtroom.door.transformers import TransformersBackend

    backend = TransformersBackend("default", device="cpu", dtype="float32")
    _ = backend.loaded
    return backend
