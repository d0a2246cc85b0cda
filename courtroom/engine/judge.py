"""The Judge base class shared by the court and the baselines: one procedure per case, run in lockstep."""

from __future__ import annotations

import itertools
import json
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from courtroom.case import Case, CaseVerdict
from courtroom.door.backend import Backend, prepare_backend
from courtroom.engine.events import content_hash
from courtroom.engine.lockstep import CaseOutcome, Program, Transcript, run_lockstep
from courtroom.errors import ConfigError, CourtroomError


class CaseFailedError(CourtroomError):
    """A case could not be judged; the message names the case and the cause."""


class MetricResult(BaseModel):
    """Metric-style result, shaped like the Opik and DeepEval hallucination metrics."""

    model_config = ConfigDict(extra="forbid")

    value: float
    """Hallucination score in [0, 1]: 1 is hallucinated."""
    reason: str
    """Why."""
    verdict: CaseVerdict
    """The full verdict behind the score."""

    @property
    def score(self) -> float:
        """Alias of `value` (DeepEval names it score)."""
        return self.value


class Judge(ABC):
    """Decides whether a case's answer is hallucinated, by a procedure of model calls."""

    name: str = "judge"

    def __init__(self, backend: Backend | None = None, *, model: str = "default", window: int = 8) -> None:
        self._backend = backend
        self.model = model
        if window < 1:
            raise ConfigError(f"window {window}: at least one case must advance at a time (window >= 1)")
        self.window = window

    @property
    def backend(self) -> Backend:
        """The model door, built on first use (the default model unless one was given)."""
        if self._backend is None:
            from courtroom.door import make_backend

            self._backend = make_backend("transformers", model=self.model)
        return self._backend

    @abstractmethod
    def program(self, case: Case, transcript: Transcript) -> Program:
        """The procedure for one case (a generator of model calls returning the verdict)."""

    def options(self) -> dict[str, Any]:
        """The constructor options that rebuild this judge (see `from_config`)."""
        return {}

    def prompts(self) -> dict[str, str]:
        """The fixed prompt texts of this judge, recorded in the manifest."""
        return {}

    def config(self) -> dict[str, Any]:
        """Everything that determines this judge's behaviour, for the run manifest."""
        return {"judge": self.name, "options": self.options(), "prompts": self.prompts()}

    @classmethod
    def from_config(cls, config: dict[str, Any], backend: Backend | None = None) -> Judge:
        """Rebuild a judge from the configuration a run manifest recorded."""
        return cls(backend, **config.get("options", {}))

    def config_hash(self) -> str:
        """Stable hash of `config()`; transcripts carry it."""
        return content_hash(json.dumps(self.config(), sort_keys=True, default=str))

    def run_many(self, cases: Iterable[Case], backend: Backend | None = None) -> Iterator[CaseOutcome]:
        """Judge cases in lockstep, yielding each outcome (verdict or error, with transcript) as it ends.
        The model loads before the first case; a model that cannot load raises `BackendError`."""
        queue = iter(cases)
        first = next(queue, None)
        if first is None:
            return
        backend = backend or self.backend
        prepare_backend(backend)
        yield from run_lockstep(itertools.chain([first], queue), self.program, backend, judge_name=self.name,
                                config_hash=self.config_hash(), window=self.window)

    def judge_many(self, cases: Sequence[Case]) -> list[CaseVerdict]:
        """Judge cases in lockstep and return their verdicts in order; raise if any case failed."""
        ids = [case.id for case in cases]
        if len(set(ids)) != len(ids):
            duplicates = sorted({i for i in ids if ids.count(i) > 1})
            raise ConfigError(f"cases must have distinct ids to be judged together; repeated: {duplicates}")
        outcomes = {o.case.id: o for o in self.run_many(cases)}
        verdicts = []
        for case in cases:
            outcome = outcomes[case.id]
            if outcome.verdict is None:
                raise CaseFailedError(f"case {case.id!r} failed: {outcome.error_type}: {outcome.error}")
            verdicts.append(outcome.verdict)
        return verdicts

    def judge(self, case: Case) -> CaseVerdict:
        """Judge one case."""
        return self.judge_many([case])[0]

    def score(self, input: str, output: str, context: Sequence[str] | str, **ignored: Any) -> MetricResult:
        """Metric-style call: `score(input=question, output=answer, context=[...])`."""
        case = Case(id="metric", question=input, answer=output,
                    context=[context] if isinstance(context, str) else list(context))
        verdict = self.judge(case)
        return MetricResult(value=verdict.score, reason=verdict.reason, verdict=verdict)
