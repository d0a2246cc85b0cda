"""The lockstep engine (`courtroom.engine.lockstep`) on the scripted backend: the calls due at one step go as one batch
across a window of cases, each program gets its own answers in its own order, a failing program or request ends
its case alone, the window takes the next case as one ends, `gather` advances sub-programs together, an observer
sees every batch, and each case's transcript records what happened."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

import pytest

from courtroom.case import Case, CaseVerdict
from courtroom.door import ScriptedBackend
from courtroom.door.backend import Tick
from courtroom.door.requests import ChatMessage, GenerationRequest
from courtroom.engine.events import CaseStartEvent, ErrorEvent, ModelCallEvent, PromptEvent, VerdictEvent
from courtroom.engine.lockstep import Call, CaseOutcome, Program, Step, Transcript, gather, run_lockstep

SYSTEM = ChatMessage(role="system", content="Answer with the only option.")


def ask(text: str, **site: Any) -> Call:
    """A call whose only possible answer is `text`, so an answer shows which request it belongs to."""
    request = GenerationRequest(messages=(SYSTEM, ChatMessage(role="user", content=text)), output_type=Literal[(text,)])
    return Call(request, **{"purpose": "ask", **site})


def echo(**failing: Exception) -> ScriptedBackend:
    """Answers every request with its only option, except the texts in `failing`, which raise."""
    return ScriptedBackend(lambda request: failing.get(request.spec.options[0], request.spec.options[0]))


def cases(*ids: str) -> list[Case]:
    return [Case(id=i, question="q", context=["c"], answer="a") for i in ids]


def verdict(case: Case, heard: list[str]) -> CaseVerdict:
    return CaseVerdict(case_id=case.id, label="PASS", score=0.0, reason=" ".join(heard))


def steps(plan: dict[str, int], width: int = 1) -> Any:
    """A program factory: case `i` asks `width` calls at each of its `plan[i]` steps, and its verdict's reason lists
    the answers it received, in order."""
    def program(case: Case, transcript: Transcript) -> Program:
        heard = []
        for step in range(plan[case.id]):
            answers = yield [ask(f"{case.id}.{step}.{k}") for k in range(width)]
            heard += [answer.value for answer in answers]
        return verdict(case, heard)
    return program


def run(ids: list[str] | Iterator[Case], program: Any, backend: ScriptedBackend, **options: Any) -> list[CaseOutcome]:
    return list(run_lockstep(cases(*ids) if isinstance(ids, list) else ids, program, backend, judge_name="test",
                             config_hash="h", **options))


def test_the_calls_due_at_one_step_go_as_one_batch_and_each_case_gets_its_own_answers_in_order() -> None:
    backend = echo()
    outcomes = run(["a", "b", "c"], steps({"a": 2, "b": 1, "c": 3}, width=2), backend)
    assert backend.batches == [6, 4, 2]  # every running case's calls of a step together, one batch per step
    assert [o.case.id for o in outcomes] == ["b", "a", "c"]  # in the order they end
    reasons = {o.case.id: o.verdict.reason for o in outcomes}
    assert reasons == {"a": "a.0.0 a.0.1 a.1.0 a.1.1", "b": "b.0.0 b.0.1", "c": "c.0.0 c.0.1 c.1.0 c.1.1 c.2.0 c.2.1"}
    assert backend.released == ["b", "a", "c"]  # each case's cache is released as it ends


def test_the_window_takes_the_next_case_as_one_ends_and_reads_the_cases_lazily() -> None:
    pulled: list[str] = []

    def lazily() -> Iterator[Case]:
        for case in cases("a", "b", "c", "d", "e"):
            pulled.append(case.id)
            yield case
    backend = echo()
    outcomes = run_lockstep(lazily(), steps({"a": 1, "b": 3, "c": 1, "d": 1, "e": 1}), backend, judge_name="test",
                            config_hash="h", window=2)
    assert next(outcomes).case.id == "a" and pulled == ["a", "b"]  # no case read before the window has room
    assert [o.case.id for o in outcomes] == ["c", "b", "d", "e"]
    assert backend.batches == [2, 2, 2, 1]  # a+b, b+c, b+d, e: never more than the window's cases


def test_a_failing_program_ends_its_case_alone_with_an_error_event() -> None:
    def program(case: Case, transcript: Transcript) -> Program:
        answers = yield [ask(f"{case.id}.0")]
        if case.id == "bad":
            raise ValueError("the bad case's program broke")
        if case.id == "empty":
            yield []
        return verdict(case, [answers[0].value])
    backend = echo()
    outcomes = {o.case.id: o for o in run(["ok", "bad", "empty"], program, backend)}
    assert outcomes["ok"].ok and outcomes["ok"].verdict.reason == "ok.0"
    bad, empty = outcomes["bad"], outcomes["empty"]
    assert not bad.ok and (bad.error, bad.error_type) == ("the bad case's program broke", "ValueError")
    assert isinstance(bad.events[-1], ErrorEvent) and "ValueError" in bad.events[-1].traceback
    assert empty.error == "a judge program yielded no calls"
    assert sorted(backend.released) == ["bad", "empty", "ok"]


def test_a_failing_request_fails_its_case_alone_and_the_others_get_their_answers() -> None:
    backend = echo(**{"bad.0.0": RuntimeError("the model choked")})
    outcomes = {o.case.id: o for o in run(["a", "bad", "c"], steps({"a": 2, "bad": 2, "c": 1}), backend)}
    assert (outcomes["bad"].error, outcomes["bad"].error_type) == ("the model choked", "RuntimeError")
    assert outcomes["a"].verdict.reason == "a.0.0 a.1.0" and outcomes["c"].verdict.reason == "c.0.0"
    assert backend.batches == [3, 1, 1, 1, 1]  # the batch failed, so each case is asked alone; then `a` goes on


def test_a_program_that_asks_nothing_ends_without_a_batch() -> None:
    backend = echo()
    [outcome] = run(["a"], steps({"a": 0}), backend)
    assert outcome.ok and backend.batches == [] and [type(e) for e in outcome.events] == [CaseStartEvent, VerdictEvent]


def test_gather_advances_sub_programs_together_and_returns_their_results_in_order() -> None:
    def sub(name: str, n: int, width: int) -> Step:
        heard = []
        for step in range(n):
            answers = yield [ask(f"{name}.{step}.{k}", charge=int(name[1])) for k in range(width)]
            heard += [answer.value for answer in answers]
        return heard

    def program(case: Case, transcript: Transcript) -> Program:
        results = yield from gather([sub("c0", 2, 1), sub("c1", 0, 1), sub("c2", 3, 2), sub("c3", 1, 2)])
        return verdict(case, [" ".join(result) or "-" for result in results])
    backend = echo()
    [outcome] = run(["a"], program, backend)
    assert backend.batches == [5, 3, 2]  # the sub-programs still running, side by side
    assert outcome.verdict.reason.split(" ") == ["c0.0.0", "c0.1.0", "-", "c2.0.0", "c2.0.1", "c2.1.0", "c2.1.1",
                                                 "c2.2.0", "c2.2.1", "c3.0.0", "c3.0.1"]
    calls = [e for e in outcome.events if isinstance(e, ModelCallEvent)]
    assert [(e.step, e.charge) for e in calls] == [(0, 0), (0, 2), (0, 2), (0, 3), (0, 3), (1, 0), (1, 2), (1, 2),
                                                   (2, 2), (2, 2)]


class Watcher:
    """An observer that writes down what it is told."""

    def __init__(self) -> None:
        self.seen: list[tuple] = []

    def batch_started(self, step: int, cases: int, calls: int) -> None:
        self.seen.append(("started", step, cases, calls))

    def tick(self, tick: Tick) -> None:
        self.seen.append(("tick", tick.requests))

    def batch_finished(self, step: int) -> None:
        self.seen.append(("finished", step))


def test_an_observer_sees_each_batch_and_the_work_inside_it_and_the_backend_is_given_back() -> None:
    watcher, backend = Watcher(), echo()
    mine = backend.on_tick = lambda tick: None
    run(["a", "b"], steps({"a": 1, "b": 2}, width=2), backend, observer=watcher)
    assert watcher.seen == [("started", 0, 2, 4), *[("tick", 1)] * 4, ("finished", 0),
                            ("started", 1, 1, 2), *[("tick", 1)] * 2, ("finished", 1)]
    assert backend.on_tick is mine  # the backend's own listener is back after the run


def test_an_observer_is_told_the_batch_finished_and_the_listener_restored_when_the_backend_fails() -> None:
    watcher, backend = Watcher(), echo(**{"a.0.0": RuntimeError("down")})
    [outcome] = run(["a"], steps({"a": 1}), backend, observer=watcher)
    assert outcome.error == "down" and watcher.seen == [("started", 0, 1, 1), ("finished", 0)]
    assert backend.on_tick is None


def test_the_transcript_records_the_case_each_prompt_once_each_call_with_its_step_and_the_verdict() -> None:
    [outcome] = run(["a"], steps({"a": 2}, width=2), echo())
    events = outcome.events
    assert [e.seq for e in events] == list(range(len(events)))
    start, *_, end = events
    assert isinstance(start, CaseStartEvent) and (start.case.id, start.judge, start.config_hash) == ("a", "test", "h")
    assert isinstance(end, VerdictEvent) and end.verdict == outcome.verdict
    prompts = [e for e in events if isinstance(e, PromptEvent)]
    assert [p.content for p in prompts] == [SYSTEM.content, "a.0.0", "a.0.1", "a.1.0", "a.1.1"]  # the system once
    calls = [e for e in events if isinstance(e, ModelCallEvent)]
    assert [(c.step, c.value, c.purpose) for c in calls] == [(0, "a.0.0", "ask"), (0, "a.0.1", "ask"),
                                                              (1, "a.1.0", "ask"), (1, "a.1.1", "ask")]
    assert all(c.messages == [prompts[0].hash, p.hash] for c, p in zip(calls, prompts[1:]))
    assert events.index(prompts[1]) < events.index(calls[0])  # a prompt is stored before the call that uses it


def test_a_case_that_fails_keeps_the_calls_it_made_before() -> None:
    def program(case: Case, transcript: Transcript) -> Program:
        yield [ask("first")]
        raise KeyError("late")
    [outcome] = run(["a"], program, echo())
    kinds = [type(e) for e in outcome.events]
    assert kinds == [CaseStartEvent, PromptEvent, PromptEvent, ModelCallEvent, ErrorEvent]


@pytest.mark.parametrize("window", [1, 3])
def test_every_case_ends_once_whatever_the_window(window: int) -> None:
    ids = [f"c{i}" for i in range(7)]
    outcomes = run(ids, steps({i: int(i[1]) % 3 for i in ids}), echo(), window=window)
    assert sorted(o.case.id for o in outcomes) == ids and all(o.ok for o in outcomes)
