"""The Judge base class shared by the court and the baselines: one procedure per case, run in lockstep."""

from __future__ import annotations

import itertools
import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, ClassVar

from courtroom.case import Case, CaseVerdict, VariantVerdict
from courtroom.casefile import PROMPT_FORMAT, PROMPT_FORMATS
from courtroom.digest import content_hash
from courtroom.door.backend import Backend, prepare_backend
from courtroom.door.panel import Panel
from courtroom.door.spec import BackendSpec
from courtroom.engine.events import Event
from courtroom.engine.lockstep import CaseOutcome, LockstepObserver, Program, Transcript, run_lockstep
from courtroom.engine.metric import NAME, Score, ascore_case, case_from_arguments, score_case
from courtroom.engine.migrations import PROMPTS_2, Migration
from courtroom.errors import CaseFailedError, ConfigError


class Judge(ABC):
    """Decides whether a case's answer is hallucinated, by a procedure of model calls."""

    name: ClassVar[str] = "judge"
    migrations: ClassVar[tuple[Migration, ...]] = (PROMPTS_2,)
    """What brings this judge's recorded configurations up to date, in order
    (`courtroom.engine.migrations`)."""
    threshold: float = 0.5
    """P(hallucinated) at or above which this judge finds an answer hallucinated (a metric's default
    threshold)."""

    def __init__(self, backend: Backend | BackendSpec | None = None, *, model: str | None = None,
                 window: int = 8, prompt_format: int = PROMPT_FORMAT) -> None:
        """`backend` is the model door (or its spec, built on first use; the default model when omitted),
        `model` short for `BackendSpec(model=...)`; `prompt_format` is how the case is written into prompts
        (`courtroom.casefile`)."""
        if prompt_format not in PROMPT_FORMATS:
            raise ConfigError(f"prompt format {prompt_format}: this version of courtroom writes formats "
                              f"{PROMPT_FORMATS}")
        self.prompt_format = prompt_format
        if model is not None:
            if backend is not None:
                raise ConfigError(f"model {model!r} given beside a backend: name the model in the backend "
                                  "(or its spec)")
            backend = BackendSpec(model=model)
        self._backend = backend if isinstance(backend, Backend) else None
        self._seated: Backend | None = None
        self.backend_spec = backend if isinstance(backend, BackendSpec) else BackendSpec()
        if window < 1:
            raise ConfigError(f"window {window}: at least one case must advance at a time (window >= 1)")
        self.window = window

    @property
    def title(self) -> str:
        """The judge as a reader names it: a court's own name, else the judge's."""
        spec = getattr(self, "spec", None)
        return getattr(spec, "name", None) or self.name

    @property
    def model(self) -> str:
        """The model this judge speaks to, as its backend names it."""
        return self._backend.model if self._backend is not None else self.backend_spec.model

    def attach(self, backend: Backend) -> None:
        """Speak through `backend` (a door already built and probed for the model the judge's spec names)."""
        self._backend, self._seated = backend, None

    @property
    def backend(self) -> Backend:
        """The model door, built from its spec on first use, with the judge's further models beside it
        (`seated`)."""
        if self._seated is None:
            if self._backend is None:
                self._backend = self.backend_spec.build()
            self._seated = self.seated(self._backend)
        return self._seated

    def seats(self) -> dict[str, BackendSpec]:
        """Further models some of this judge's requests go to, by the seat they name
        (`GenerationRequest.seat`)."""
        return {}

    def seat_gpus(self) -> dict[str, float]:
        """The GPUs each further model needs in a Ray worker, by seat (none by default)."""
        return {}

    def seated(self, backend: Backend, devices: Mapping[str, str] | None = None,
               build: Callable[[BackendSpec, str], Backend] | None = None) -> Backend:
        """`backend` with this judge's further models beside it behind one door (`courtroom.door.panel.Panel`,
        each built now from its spec, or with `build`, on its device in `devices`); `backend` itself when it
        has none."""
        seats = self.seats()
        if not seats or isinstance(backend, Panel):
            return backend
        devices = devices or {}
        build = build or (lambda spec, device: spec.build(device or None))
        return Panel(backend, {key: build(spec, devices.get(key, "")) for key, spec in seats.items()})

    @abstractmethod
    def program(self, case: Case, transcript: Transcript) -> Program:
        """The procedure for one case (a generator of model calls returning the verdict)."""

    def variants(self, case: Case, events: Sequence[Event]) -> dict[str, VariantVerdict]:
        """The case decided again by variants of this judge from its recorded calls (none by default)."""
        return {}

    def needs_text_scoring(self) -> str | None:
        """What of this judge scores given texts with the model's likelihoods (needing prompt
        log-probabilities), or None."""
        return None

    def options(self) -> dict[str, Any]:
        """The constructor options that rebuild this judge (see `from_config`)."""
        return {}

    def prompts(self) -> dict[str, str]:
        """The fixed prompt texts of this judge, recorded in the manifest."""
        return {}

    def config(self) -> dict[str, Any]:
        """Everything that determines this judge's behaviour, for the run manifest."""
        return {"judge": self.name, "options": self.options(), "prompts": self.prompts(),
                "prompt_format": self.prompt_format}

    @classmethod
    def from_config(cls, config: dict[str, Any], backend: Backend | BackendSpec | None = None, *,
                    source: str = "<manifest>", **options: Any) -> Judge:
        """Rebuild a judge from the configuration a run manifest (`source`, named in errors) recorded, brought
        up to date (`Manifest.judge_config`), with constructor `options` (`window`) beside its own."""
        try:
            return cls(backend, prompt_format=config["prompt_format"],
                       **{**config.get("options", {}), **options})
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigError(f"{source}: the recorded {cls.name} judge does not load ({type(exc).__name__}: "
                              f"{exc})") from exc

    @classmethod
    def create(cls, backend: Backend | BackendSpec | None = None, *, window: int = 8, court: str = "default",
               options: Mapping[str, Any] | None = None) -> Judge:
        """The judge a `JudgeSpec` names: its options passed to the constructor (`court` is the court's)."""
        return cls(backend, window=window, **(options or {}))

    def config_hash(self) -> str:
        """Stable hash of `config()`; transcripts carry it."""
        return content_hash(json.dumps(self.config(), sort_keys=True, default=str))

    def run_many(self, cases: Iterable[Case], backend: Backend | None = None,
                 observer: LockstepObserver | None = None) -> Iterator[CaseOutcome]:
        """Judge cases in lockstep, yielding each outcome (verdict or error, with transcript) as it ends; the
        model loads first (`BackendError` if it cannot), and `observer` watches the batches (progress)."""
        queue = iter(cases)
        first = next(queue, None)
        if first is None:
            return
        backend = self.seated(backend) if backend is not None else self.backend
        prepare_backend(backend)
        yield from run_lockstep(itertools.chain([first], queue), self.program, backend, judge_name=self.name,
                                config_hash=self.config_hash(), window=self.window, observer=observer)

    def judge_many(self, cases: Sequence[Case]) -> list[CaseVerdict]:
        """Judge cases in lockstep and return their verdicts in order; raise if any case failed."""
        ids = [case.id for case in cases]
        if len(set(ids)) != len(ids):
            duplicates = sorted({i for i in ids if ids.count(i) > 1})
            raise ConfigError(f"cases must have distinct ids to be judged together; repeated: {duplicates}")
        outcomes = {o.case.id: o for o in self.run_many(cases)}
        if failed := next((outcomes[case.id] for case in cases if outcomes[case.id].verdict is None), None):
            raise CaseFailedError(f"case {failed.case.id!r} failed: {failed.error_type}: {failed.error}")
        return [outcomes[case.id].verdict for case in cases]

    def judge(self, case: Case) -> CaseVerdict:
        """Judge one case."""
        return self.judge_many([case])[0]

    def score(self, *, threshold: float | None = None, name: str = NAME, **arguments: Any) -> Score:
        """Judge one answer as a metric (`judge.score(answer=..., context=[...], question=...)`, or under
        Opik's, DeepEval's or Ragas' names): `value` is P(hallucinated), `success` the verdict (or `value <
        threshold` when one is given). Concurrent calls are judged together in lockstep
        (`courtroom.engine.metric`)."""
        return score_case(self, case_from_arguments(arguments), threshold, name)

    async def ascore(self, *, threshold: float | None = None, name: str = NAME, **arguments: Any) -> Score:
        """`score` without blocking the event loop (the judge judges on its own thread)."""
        return await ascore_case(self, case_from_arguments(arguments), threshold, name)
