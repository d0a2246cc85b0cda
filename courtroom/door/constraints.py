"""Compiled constraints from Outlines' engines (`outlines_core`, `xgrammar`, `llguidance`), cached per
(tokenizer, engine, schema) for the life of the process: every row gets a shallow copy with its own matcher
state. JSON is constrained to compact whitespace, so a small model cannot wander into endless newlines."""

from __future__ import annotations

import copy
import typing
from typing import Any, Literal

from courtroom.errors import ConfigError

ConstraintEngine = Literal["outlines_core", "xgrammar", "llguidance"]
ENGINES: tuple[str, ...] = typing.get_args(ConstraintEngine)
DEFAULT_ENGINE: ConstraintEngine = "xgrammar"

_COMPILED: dict[tuple[str, str, str], Any] = {}
"""Process-wide cache: (tokenizer fingerprint, engine, schema key) -> processor prototype."""


class ConstraintCompiler:
    """Compiles JSON schemas into Outlines logits processors for one tokenizer and engine."""

    def __init__(self, model: Any, tokenizer: Any, engine: str = DEFAULT_ENGINE,
                 fingerprint: str = "") -> None:
        if engine not in ENGINES:
            raise ConfigError(f"unknown constraint engine {engine!r}; choose one of {list(ENGINES)}")
        import outlines

        self.engine, self.compilations = engine, 0
        self._backend: Any = None
        self.fingerprint = (fingerprint
                            or f"{type(tokenizer).__name__}:{len(tokenizer)}:{tokenizer.name_or_path}")
        self._outlines_model = outlines.from_transformers(model, tokenizer)

    def _engine_backend(self) -> Any:
        if self._backend is None:
            from outlines.backends import _get_backend

            self._backend = _get_backend(self.engine, self._outlines_model)
        return self._backend

    def _compile(self, schema: str) -> Any:
        backend = self._engine_backend()
        if self.engine == "xgrammar":
            from outlines.backends.xgrammar import XGrammarLogitsProcessor

            compiled = backend.grammar_compiler.compile_json_schema(schema, any_whitespace=False)
            return XGrammarLogitsProcessor(compiled, backend.tensor_library_name)
        if self.engine == "outlines_core":
            return backend.get_json_schema_logits_processor(schema, whitespace_pattern=r"[ ]?")
        from llguidance import LLMatcher
        from outlines.backends.llguidance import LLGuidanceLogitsProcessor

        grammar = LLMatcher.grammar_from_json_schema(schema, defaults={"whitespace_flexible": False})
        return LLGuidanceLogitsProcessor(grammar, backend.llg_tokenizer, backend.tensor_library_name)

    def is_cached(self, schema_key: str) -> bool:
        """True when this schema is already compiled for this tokenizer and engine."""
        return (self.fingerprint, self.engine, schema_key) in _COMPILED

    def processor(self, schema_key: str, schema: str) -> Any:
        """A fresh logits processor for one generated row (compiling the schema on first use)."""
        key = (self.fingerprint, self.engine, schema_key)
        prototype = _COMPILED.get(key)
        if prototype is None:
            prototype = self._compile(schema)
            self.compilations += 1
            _COMPILED[key] = prototype
        row = copy.copy(prototype)
        row.reset()
        return row


def clear_compiled() -> None:
    """Forget every compiled constraint (for benchmarks of cold compilation)."""
    _COMPILED.clear()
