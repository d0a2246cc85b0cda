"""Shared fixtures. The real default model is loaded once per session, only by tests that ask for it."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def real_backend():
    """The transformers backend on the embedded default model (SmolLM2-135M), CPU."""
    from courtroom.door.transformers import TransformersBackend

    backend = TransformersBackend("default", device="cpu")
    _ = backend.loaded  # load once
    return backend
