"""The Outlines adapter (`courtroom.door.constraints`), the one module that uses Outlines' private API: the
calls it relies on exist with the signatures it uses, and each engine's processor masks the logits so that
only JSON of the schema can start."""

from __future__ import annotations

import inspect

import pytest

SCHEMA = '{"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"], "additionalProperties": false}'


def test_the_private_outlines_calls_exist_with_the_signatures_the_adapter_uses() -> None:
    from outlines.backends import _get_backend
    from outlines.backends.llguidance import LLGuidanceLogitsProcessor
    from outlines.backends.xgrammar import XGrammarLogitsProcessor

    assert list(inspect.signature(_get_backend).parameters) == ["backend_name", "model"]
    assert list(inspect.signature(XGrammarLogitsProcessor.__init__).parameters) == [
        "self", "compiled_grammar", "tensor_library_name"]
    assert list(inspect.signature(LLGuidanceLogitsProcessor.__init__).parameters) == [
        "self", "grammar", "llg_tokenizer", "tensor_library_name"]


def test_an_unknown_engine_is_refused_by_name() -> None:
    from courtroom.door.constraints import ConstraintCompiler
    from courtroom.errors import ConfigError

    with pytest.raises(ConfigError, match="unknown constraint engine 'regex'"):
        ConstraintCompiler(None, None, "regex")


@pytest.mark.model
@pytest.mark.parametrize("engine", ["xgrammar", "llguidance", "outlines_core"])
def test_each_engine_lets_only_the_schema_begin(real_backend, engine: str) -> None:
    import torch

    from courtroom.door.constraints import ConstraintCompiler

    lm = real_backend.loaded
    compiler = ConstraintCompiler(lm.model, lm.tokenizer, engine, fingerprint=f"test:{engine}")
    processor = compiler.processor(f"test-{engine}", SCHEMA)
    start = lm.tokenizer("x", add_special_tokens=False)["input_ids"]
    logits = torch.zeros((1, len(lm.tokenizer)))
    masked = processor(torch.tensor([start]), logits.clone())
    allowed = [lm.tokenizer.decode([i]) for i in torch.nonzero(torch.isfinite(masked[0]) & (masked[0] > -1e9)).flatten()]
    assert allowed and all(text.lstrip().startswith("{") for text in allowed)
    assert compiler.is_cached(f"test-{engine}") and compiler.compilations == 1
