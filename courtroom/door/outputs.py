"""Output types at the door: what an output type becomes (`OutputSpec`: a JSON schema, closed to keys it does
not name, or a tuple of string options), how a model's raw text is parsed into it and a value written back,
and a parsed value as the plain JSON a transcript records. Nothing here imports torch."""

from __future__ import annotations

import enum
import hashlib
import json
import typing
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal

from pydantic import TypeAdapter, ValidationError
from pydantic_core import to_jsonable_python

from courtroom.errors import OutputParseError, OutputTypeError

OutputKind = Literal["json", "choice"]


@dataclass(frozen=True)
class OutputSpec:
    """What an output type becomes at the door: a JSON schema or a tuple of string options."""

    output_type: Any
    kind: OutputKind
    name: str
    schema: str | None = None
    options: tuple[str, ...] = ()
    key: str = ""
    _adapter: TypeAdapter[Any] | None = field(default=None, repr=False, compare=False)

    def parse(self, raw: str) -> Any:
        """Parse raw model text into a value of the output type; raises `OutputParseError`."""
        if self.kind == "choice":
            # the text as written first: an option may itself start or end with a quote or a space
            for text in dict.fromkeys((raw, raw.strip(), raw.strip().strip('"').strip())):
                matches = [o for o in self.options if o == text] or [
                    o for o in self.options if o.lower() == text.lower()]
                if matches:
                    return self.coerce_option(matches[0])
            raise OutputParseError(f"{raw!r} is not one of the options {list(self.options)} of {self.name}")
        assert self._adapter is not None
        try:
            # strict=False: xgrammar's JSON grammar lets a raw tab or newline into a string (strict JSON
            # would have it escaped); the text is still unambiguous, so it is read, not counted a failure.
            data = json.loads(raw, strict=False)
        except json.JSONDecodeError as exc:
            raise OutputParseError(f"output is not valid JSON for {self.name}: {exc}") from exc
        try:
            return self._adapter.validate_python(data)
        except ValidationError as exc:
            raise OutputParseError(f"output does not validate as {self.name}: {_short(exc)}") from exc

    def validate(self, data: Any) -> Any:
        """Turn JSON data (as a transcript stores it) back into a value of the output type."""
        if self.kind == "choice":
            return self.coerce_option(data)
        assert self._adapter is not None
        return self._adapter.validate_python(data)

    def coerce_option(self, option: str) -> Any:
        """Turn an option string into the output type's value (an enum member or the string)."""
        if isinstance(self.output_type, type) and issubclass(self.output_type, enum.Enum):
            return self.output_type(option)
        return option


def _short(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(map(str, e['loc'])) or '<root>'}: {e['msg']}" for e in exc.errors()[:5])


def _string_options(output_type: Any) -> tuple[str, ...] | None:
    if isinstance(output_type, type) and issubclass(output_type, enum.Enum):
        values = [m.value for m in output_type]
        return tuple(values) if values and all(isinstance(v, str) for v in values) else None
    if typing.get_origin(output_type) is Literal:
        args = typing.get_args(output_type)
        return tuple(args) if args and all(isinstance(a, str) for a in args) else None
    return None


def _closed(schema: Any) -> Any:
    """Forbid properties the schema does not name: a model must not invent keys."""
    if isinstance(schema, dict):
        closed = {k: _closed(v) for k, v in schema.items()}
        if closed.get("type") == "object" and "properties" in closed:
            closed.setdefault("additionalProperties", False)
        return closed
    return [_closed(v) for v in schema] if isinstance(schema, list) else schema


@lru_cache(maxsize=1024)
def _cached_spec(output_type: Any, type_repr: str = "") -> OutputSpec:
    """`type_repr` keeps apart types that compare equal but differ in option order
    (`Literal["a", "b"] == Literal["b", "a"]`), so each keeps its own order and key."""
    name = getattr(output_type, "__name__", None) or repr(output_type)
    options = _string_options(output_type)
    if options is not None:
        if len(set(options)) != len(options):
            raise OutputTypeError(f"output type {name} has duplicate options {list(options)}")
        key = hashlib.sha256(("choice:" + json.dumps(options)).encode()).hexdigest()[:16]
        return OutputSpec(output_type, "choice", name, options=options, key=key)
    try:
        adapter: TypeAdapter[Any] = TypeAdapter(output_type)
        schema = json.dumps(_closed(adapter.json_schema()))
    except Exception as exc:  # pydantic raises several error types for unsupported types
        raise OutputTypeError(f"output type {name} cannot become a JSON schema ({type(exc).__name__}: "
                              f"{exc}). Use a pydantic model, an Enum or Literal of strings, or a "
                              "JSON-serialisable type.") from exc
    key = hashlib.sha256(schema.encode()).hexdigest()[:16]
    return OutputSpec(output_type, "json", name, schema=schema, key=key, _adapter=adapter)


def output_spec(output_type: Any) -> OutputSpec:
    """Describe an output type for constrained generation, or raise `OutputTypeError` naming it."""
    try:
        return _cached_spec(output_type, repr(output_type))
    except TypeError as exc:
        if isinstance(exc, OutputTypeError):
            raise
        # unhashable output types (rare) are described without the cache
        return _cached_spec.__wrapped__(output_type)


def truncation_message(spec: OutputSpec, max_new_tokens: int) -> str:
    """The error text of a generation cut off by its token limit."""
    return (f"generation of {spec.name} stopped at the token limit max_new_tokens={max_new_tokens} before "
            "the output was complete; raise max_new_tokens or bound the output's string fields with "
            "max_length")


def jsonable(value: Any) -> Any:
    """A parsed model output as plain JSON data (as transcripts record it)."""
    return to_jsonable_python(value)
