"""Persona templates: Liquid (python-liquid) with its limits on. A template reads what it is given and cannot
change it, and its work is bounded by counts, never time (`LOOP_TURNS`, `OUTPUT_CHARS`, `NAMESPACE_BYTES`,
`DEPTH`), so it renders the same way on every machine and replays ask for the same prompts. An undefined name
is an error."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from liquid import BoundTemplate, Environment, StrictUndefined
from liquid.exceptions import LiquidError

from courtroom.errors import PersonaError

LOOP_TURNS = 100_000
OUTPUT_CHARS = 2_000_000
NAMESPACE_BYTES = 4_000_000
DEPTH = 30


class _Bounded(Environment):
    loop_iteration_limit = LOOP_TURNS
    output_stream_limit = OUTPUT_CHARS
    local_namespace_limit = NAMESPACE_BYTES
    context_depth_limit = DEPTH


_ENVIRONMENT = _Bounded(undefined=StrictUndefined)


@lru_cache(maxsize=256)
def _compiled(source: str) -> BoundTemplate:
    return _ENVIRONMENT.from_string(source)


def render_template(source: str, context: dict[str, Any]) -> str:
    """`source` rendered over `context`; a template that fails or goes past a limit is a `PersonaError` saying
    why."""
    try:
        return _compiled(source).render(**context)
    except LiquidError as exc:
        raise PersonaError(f"{type(exc).__name__}: {str(exc).splitlines()[0]}") from None
