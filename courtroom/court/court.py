"""A court: the clerk (`courtroom.clerk.Clerk`) and a trial of each of its charges, by personas in roles over
the rounds of a procedure graph; its loader (`courtroom.courts`) validates everything before any model is
touched."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from courtroom.case import Case, VariantVerdict
from courtroom.clerk import Clerk
from courtroom.clerk.verdict import plural
from courtroom.court.bench import Bench
from courtroom.court.personas import Persona
from courtroom.court.procedure import Procedure
from courtroom.court.program import court_case
from courtroom.court.spec import CourtSpec, with_overrides
from courtroom.door.backend import Backend
from courtroom.door.http_client import origin
from courtroom.door.recorded import RecordedCalls
from courtroom.door.spec import BackendSpec
from courtroom.engine.events import Event, ModelCallEvent
from courtroom.engine.judge import Judge
from courtroom.engine.lockstep import Program, Transcript, run_lockstep
from courtroom.witness.ruling import FittedRuling

VARIANTS: dict[str, dict[str, Any]] = {
    "measurement only": {"trial.judge_weight": 0.0},
    "agents only": {"trial.judge_weight": 1.0, "aggregation.method": "any"},
}
"""The court's debate gain is measured against its measurement alone (every ruling the charge's measured
evidence) and its agents alone (every ruling the court's own; any ruling convicts): the same charges, the gap
the trial's."""


class Court(Judge):
    """The clerk and a trial of its charges: the clerk's indictment, a trial per charge over rounds, then the
    verdict."""

    name = Clerk.name

    def __init__(self, spec: CourtSpec, personas: dict[str, list[Persona]],
                 backend: Backend | BackendSpec | None = None, *, source: str | None = None,
                 **options: Any) -> None:
        super().__init__(backend, **options)
        self.clerk: Clerk[CourtSpec] = Clerk(spec, self._backend or self.backend_spec, source=source,
                                             window=self.window,
                           prompt_format=self.prompt_format)
        self.personas = personas
        self.source = source
        self._procedure: tuple[object, Procedure] | None = None
        self._variants: dict[str, Court] = {}

    # -- the clerk's part --------------------------------------------------------------------------
    @property
    def spec(self) -> CourtSpec:
        """The court's settings: the clerk's and the trial's."""
        return self.clerk.spec

    @spec.setter
    def spec(self, spec: CourtSpec) -> None:
        self.clerk.spec = spec

    def attach(self, backend: Backend) -> None:
        super().attach(backend)
        self.clerk.attach(backend)

    @property
    def threshold(self) -> float:
        return self.clerk.threshold

    @property
    def ruling(self) -> FittedRuling | None:
        return self.clerk.ruling

    # -- the trial's part --------------------------------------------------------------------------
    @property
    def procedure(self) -> Procedure:
        """The trial's procedure graph (built once per graph)."""
        graph = self.spec.trial.graph
        if self._procedure is None or self._procedure[0] is not graph:
            self._procedure = (graph, Procedure(graph))
        return self._procedure[1]

    @property
    def bench(self) -> Bench:
        """The court as its trials read it, with the threshold for its model."""
        return Bench(self.spec, self.spec.trial, self.personas, self.procedure, self.threshold,
                     self.prompt_format, self.seat_keys())

    def seat_keys(self) -> dict[str, list[str | None]]:
        """Role -> the seat each of its personas speaks through (`trial.models`; None: the run's model)."""
        keys: dict[str, list[str | None]] = {}
        for role, seats in self.spec.trial.models.items():
            count = len(self.personas.get(role, ())) or 1
            keys[role] = [None if (seat := seats[i if len(seats) > 1 else 0]).url is None
                          and seat.model == self.model
                          else seat.key for i in range(count)]
        return keys

    def seats(self) -> dict[str, BackendSpec]:
        """The further models the court's roles speak through, by seat key: one named alone runs in this
        process, one with a `url` is served with its seat's key, else the run's key at the run's host
        (`courtroom.runs.hosts`)."""
        run = self.backend_spec
        specs: dict[str, BackendSpec] = {}
        for role, keys in self.seat_keys().items():
            for seat in self.spec.trial.models[role]:
                if seat.key in keys and seat.key not in specs:
                    local = run.kind == "transformers"
                    specs[seat.key] = BackendSpec.of(
                        model=seat.model, url=seat.url, engine=run.engine,
                        **({"device": run.device, "dtype": run.dtype} if local and seat.url is None else {}),
                        **({"api_key_env": seat.api_key_env
                            or (run.api_key_env if run.url and origin(run.url) ==
                                                                origin(seat.url) else None),
                            "concurrency": run.concurrency, "timeout": run.timeout} if seat.url else {}))
        return specs

    def seat_gpus(self) -> dict[str, float]:
        """The GPUs each further model needs in a Ray worker, by seat key."""
        wanted = {seat.key: seat.gpus for seats in self.spec.trial.models.values() for seat in seats}
        return {key: wanted[key] for key in self.seats()}

    def config(self) -> dict[str, Any]:
        return {**self.clerk.config(),
                "personas": {role: [p.model_dump(mode="json", by_alias=True) for p in people]
                                                    for role, people in self.personas.items()}}

    def needs_text_scoring(self) -> str | None:
        trial = self.spec.trial
        if trial.charges == "measured":
            return self.clerk.needs_text_scoring()
        if trial.reading == "likelihood":
            return "trial.reading: likelihood reads each move's citation off the model's likelihoods"
        if trial.judge_weight < 1.0:
            return f"trial.judge_weight: {trial.judge_weight:g} weighs measured evidence"
        return None

    def variant(self, name: str) -> Court:
        """This court with one of the `VARIANTS` applied (same personas, model and prompt format)."""
        if name not in self._variants:
            spec = with_overrides(self.spec, VARIANTS[name])
            self._variants[name] = Court(spec, self.personas, self._backend or self.backend_spec,
                                         source=self.source, window=1, prompt_format=self.prompt_format)
        return self._variants[name]

    def variants(self, case: Case, events: Sequence[Event]) -> dict[str, VariantVerdict]:
        """The case decided by the court's measurement alone and by its agents alone, from its recorded
        calls."""
        calls = [e for e in events if isinstance(e, ModelCallEvent)]
        decided = {}
        for name in VARIANTS:
            variant = self.variant(name)
            [outcome] = run_lockstep([case], variant.program, RecordedCalls(calls), judge_name=variant.name,
                                     config_hash=variant.config_hash(), window=1)
            if outcome.verdict is not None:
                decided[name] = VariantVerdict(label=outcome.verdict.label, score=outcome.verdict.score)
        return decided

    def program(self, case: Case, transcript: Transcript) -> Program:
        return court_case(self.bench, self.ruling, case, transcript)

    def to_mermaid(self) -> str:
        """The procedure as a mermaid diagram."""
        return self.procedure.to_mermaid(title=f"court: {self.spec.name}")

    def describe(self) -> str:
        """A short text summary of the court."""
        trial, seats = self.spec.trial, self.seat_keys()

        def seated(role: str, number: int, name: str) -> str:
            seat = seats[role][number] if role in seats else None
            return f"{name} (on {seat})" if seat else name
        people = ", ".join(f"{role}: {'/'.join(seated(role, i, p.name) for i, p in enumerate(ps))}"
                           for role, ps in self.personas.items())
        charges = plural(self.spec.max_charges, "charge")
        rounds = plural(trial.max_rounds, "round")
        band = trial.escalation
        tried = (f"at most {charges}, each tried for at most {rounds}" if band is None else
                 f"at most {charges}, those measured at P(suspect) in [{band.low:g}, {band.high:g}] tried "
                 f"for at most {rounds}")
        return f"{self.spec.name}: {people}; {tried}; aggregation {self.spec.aggregation.method}"
