"""The scripted fake backend: outputs validated against the requested type, calls recorded."""

from __future__ import annotations

from typing import Literal

import pytest
from pydantic import BaseModel

from courtroom.door import Scored, ScriptedBackend, Truncated, Unparseable
from courtroom.door.requests import ChatMessage, GenerationRequest, Sampling
from courtroom.errors import BackendError, OutputTypeError, ScriptExhaustedError, TruncatedGenerationError

MSG = (ChatMessage(role="user", content="judge this please"),)


class Finding(BaseModel):
    reason: str
    hallucinated: bool


def req(output_type, **kw) -> GenerationRequest:
    return GenerationRequest(messages=MSG, output_type=output_type, **kw)


def test_queued_outputs_in_order_with_calls_recorded() -> None:
    backend = ScriptedBackend([Finding(reason="a", hallucinated=True), {"reason": "b", "hallucinated": False},
                               '{"reason": "c", "hallucinated": true}', "yes"])
    out = backend.generate([req(Finding), req(Finding), req(Finding), req(Literal["yes", "no"])])
    assert [o.value.reason for o in out[:3]] == ["a", "b", "c"]
    assert out[3].value == "yes" and out[3].option_probs == {"yes": 1.0, "no": 0.0}
    assert len(backend.calls) == 4 and backend.batches == [4]
    assert all(o.batch_size == 4 for o in out)


def test_choice_probabilities_pick_the_most_probable() -> None:
    backend = ScriptedBackend([{"yes": 0.3, "no": 0.7}])
    out = backend.generate_one(req(Literal["yes", "no"]))
    assert out.value == "no"
    assert out.option_probs == pytest.approx({"yes": 0.3, "no": 0.7})


def test_scored_text_gives_token_log_probabilities_that_sum_to_its_own() -> None:
    text = "It rained."
    backend = ScriptedBackend([Scored({text: -3.0}, tokens=[("It", -1.0), (" rained.", -2.0)]), Scored({text: -3.0}),
                               Scored({text: -3.0}, tokens=[("It", -1.0), (" rained.", -1.0)]),
                               Scored({text: -3.0}, tokens=[("It", -3.0)])])
    split = backend.generate_one(req(Literal[(text,)]))
    assert split.token_logprobs == [-1.0, -2.0] and split.token_spans == [(0, 2), (2, 10)]
    whole = backend.generate_one(req(Literal[(text,)]))
    assert whole.token_logprobs == [-3.0] and whole.token_spans == [(0, 10)]
    with pytest.raises(BackendError, match="do not sum"):
        backend.generate_one(req(Literal[(text,)]))
    with pytest.raises(BackendError, match="do not make up"):
        backend.generate_one(req(Literal[(text,)]))


def test_callable_script_sees_the_request() -> None:
    backend = ScriptedBackend(lambda r: "no" if "please" in r.messages[0].content else "yes")
    assert backend.generate_one(req(Literal["yes", "no"])).value == "no"


@pytest.mark.parametrize("bad", [{"reason": "x"}, "maybe", '{"reason": 1, "hallucinated": "x"}'])
def test_outputs_that_do_not_fit_the_type_are_rejected(bad) -> None:
    output_type = Literal["yes", "no"] if bad == "maybe" else Finding
    with pytest.raises(BackendError, match="does not fit"):
        ScriptedBackend([bad]).generate_one(req(output_type))


def test_exhausted_script_says_so() -> None:
    with pytest.raises(ScriptExhaustedError, match="ran out of outputs"):
        ScriptedBackend([]).generate_one(req(Finding))


def test_truncated_and_unparseable_outputs_come_back_as_errors() -> None:
    backend = ScriptedBackend([Truncated(), Unparseable()])
    cut = backend.generate_one(req(Finding, sampling=Sampling(max_new_tokens=7)))
    assert cut.finish_reason == "length" and "max_new_tokens=7" in cut.error
    with pytest.raises(TruncatedGenerationError):
        cut.unwrap()
    loose = backend.generate_one(req(Finding, constrained=False))
    assert loose.finish_reason == "parse_error" and loose.value is None


def test_bad_output_type_fails_before_any_output_is_consumed() -> None:
    class PlainClass:
        pass

    backend = ScriptedBackend(["yes"])
    with pytest.raises(OutputTypeError, match="PlainClass"):
        backend.generate([req(Literal["yes", "no"]), req(PlainClass)])
    assert backend.calls == []
