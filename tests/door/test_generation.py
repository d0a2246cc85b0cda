"""Output types at the door: schemas, choices, parsing, and clear errors for types that cannot work."""

from __future__ import annotations

import enum
import json
from collections.abc import Callable
from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field

from courtroom.door.outputs import output_spec
from courtroom.door.requests import GenerationResponse
from courtroom.errors import OutputParseError, OutputTypeError, TruncatedGenerationError


class Inner(BaseModel):
    text: str = Field(max_length=20)


class Outer(BaseModel):
    reason: str
    items: list[Inner]


class Color(str, enum.Enum):
    RED = "red"
    BLUE = "blue"


def test_model_becomes_closed_json_schema() -> None:
    spec = output_spec(Outer)
    assert spec.kind == "json"
    schema = json.loads(spec.schema)
    assert list(schema["properties"]) == ["reason", "items"]  # field order is generation order
    assert schema["additionalProperties"] is False
    assert schema["$defs"]["Inner"]["additionalProperties"] is False
    value = spec.parse('{"reason": "r", "items": [{"text": "a"}]}')
    assert isinstance(value, Outer) and value.items[0].text == "a"


@pytest.mark.parametrize("output_type, expected", [(Color, Color.BLUE), (Literal["red", "blue"], "blue")])
def test_choices(output_type: Any, expected: Any) -> None:
    spec = output_spec(output_type)
    assert spec.kind == "choice" and spec.options == ("red", "blue")
    assert spec.parse(" Blue ") == expected


def test_schema_keys_differ_by_type_and_are_stable() -> None:
    assert output_spec(Outer).key == output_spec(Outer).key
    assert output_spec(Outer).key != output_spec(Inner).key
    assert output_spec(Literal["a", "b"]).key != output_spec(Literal["a", "c"]).key


def test_raw_control_characters_in_strings_are_read() -> None:
    # xgrammar's JSON grammar admits a raw tab inside a string (seen with Qwen on RAGTruth)
    spec = output_spec(Outer)
    parsed = spec.parse('{"reason": "crispy and\t", "items": []}')
    assert parsed.reason == "crispy and\t"


def test_parse_errors_are_clear() -> None:
    spec = output_spec(Outer)
    with pytest.raises(OutputParseError, match="not valid JSON for Outer"):
        spec.parse('{"reason": "unterminated')
    with pytest.raises(OutputParseError, match="items"):
        spec.parse('{"reason": "x"}')
    with pytest.raises(OutputParseError, match="not one of the options"):
        output_spec(Color).parse("green")


class NotSchemable(BaseModel):
    model_config = {"arbitrary_types_allowed": True}
    callback: Callable[[int], int]


class PlainClass:
    pass


@pytest.mark.parametrize("bad", [NotSchemable, PlainClass, list[PlainClass]])
def test_types_that_cannot_become_schemas_name_the_type(bad: Any) -> None:
    with pytest.raises(OutputTypeError) as info:
        output_spec(bad)
    name = getattr(bad, "__name__", None) or repr(bad)
    assert name in str(info.value)


def test_unwrap_raises_typed_errors() -> None:
    cut = GenerationResponse(raw='{"a', prompt_tokens=1, completion_tokens=5, seconds=0.0, finish_reason="length",
                             error="stopped at max_new_tokens=5")
    with pytest.raises(TruncatedGenerationError, match="max_new_tokens=5"):
        cut.unwrap()
    bad = GenerationResponse(raw="hi", prompt_tokens=1, completion_tokens=1, seconds=0.0,
                             finish_reason="parse_error", error="not JSON")
    with pytest.raises(OutputParseError):
        bad.unwrap()


def test_the_same_options_in_another_order_keep_their_order() -> None:
    from courtroom.door.outputs import output_spec

    first, second = output_spec(Literal["rule", "next_round"]), output_spec(Literal["next_round", "rule"])
    assert first.options == ("rule", "next_round") and second.options == ("next_round", "rule")
    assert first.key != second.key
