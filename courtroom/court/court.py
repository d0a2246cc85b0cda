"""A court: which personas sit in which roles, the procedure graph, limits and how rulings combine.

Courts are YAML files (`personas/courts/*.yaml` ships `default`, `full`, `escalated`, `evidence`, `jury`,
`cross_examination` and `generative`).
Loading validates everything before any model is touched (`court.validation`): the file's fields, the graph,
that every role has a persona, and that every persona loads and renders.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from courtroom.case import Case, VariantVerdict
from courtroom.court.bench import Bench
from courtroom.court.case_program import run_case
from courtroom.court.metric import NAME, Score, ascore_case, case_from_arguments, score_case
from courtroom.court.moves import Citation, payload_model
from courtroom.court.personas import Persona
from courtroom.court.procedure import Procedure
from courtroom.court.spec import CourtSpec, with_overrides
from courtroom.court.validation import load_personas, read_spec, set_personas, set_roles, validate
from courtroom.court.verdict import plural
from courtroom.court.witnesses import load_rulings
from courtroom.court.yamlio import Locator, validate_as
from courtroom.door.backend import Backend
from courtroom.door.models import model_key
from courtroom.door.recorded import RecordedCalls
from courtroom.door.spec import BackendSpec
from courtroom.engine.events import Event, ModelCallEvent
from courtroom.engine.judge import Judge
from courtroom.engine.lockstep import Program, Transcript, run_lockstep
from courtroom.engine.migrations import canonical_config, upgrade
from courtroom.engine.plain import JUDGE_SYSTEM, RAILS_TASK
from courtroom.errors import CourtError
from courtroom.witness.ruling import FittedRuling

VARIANTS: dict[str, dict[str, Any]] = {
    "measurement only": {"ruling.judge_weight": 0.0, "ruling.first_reading_weight": 0.0},
    "agents only": {"ruling.judge_weight": 1.0, "aggregation.method": "any"},
}
"""The court's debate gain is measured against these: its measurement alone (the agents' say at 0: every ruling is
the charge's measured evidence), and its agents alone (the measurement's say at 0: every ruling is the court's own
verdict, and the case is hallucinated when any ruling is). Which statements are charged is the indictment's in all
three, so the difference is what the trial adds."""


class Court(Judge):
    """The courtroom judge: indictment, a trial per charge over rounds, then the verdict."""

    name = "courtroom"

    def __init__(self, spec: CourtSpec, personas: dict[str, list[Persona]], backend: Backend | BackendSpec | None = None, *,
                 source: str | None = None, **options: Any) -> None:
        super().__init__(backend, **options)
        self.spec = spec
        self.personas = personas
        self.source = source
        self.procedure = Procedure(spec.graph)
        self._variants: dict[str, Court] = {}

    # -- loading ---------------------------------------------------------------------------------
    @classmethod
    def load(cls, name_or_path: str | Path = "default", backend: Backend | BackendSpec | None = None,
             **options: Any) -> Court:
        """Load and validate a court by name (shipped) or path; errors name the file, line and field."""
        path, spec, locator = read_spec(name_or_path)
        overrides = options.pop("overrides", None) or {}
        if overrides:  # before the personas load: `--set personas.ROLE=...` seats another
            spec = with_overrides(spec, overrides)
        given = set_roles(spec, overrides)
        personas = load_personas(spec, path, locator, skip=given)
        personas = set_personas(spec, personas, given, [path.parent, path.parent.parent])
        spec = load_rulings(spec, path, locator)
        validate(spec, personas, path, locator)
        return cls(spec, personas, backend, source=str(path), **options)

    @classmethod
    def from_config(cls, config: dict[str, Any], backend: Backend | BackendSpec | None = None, *,
                    source: str = "<manifest>", **options: Any) -> Court:
        """Rebuild a court from a run manifest's copy of its file and personas (not from disk); the model
        comes with `backend` (the run's recorded backend spec). A copy that does not validate is a `CourtError`
        naming `source` (the manifest) and the field (`judge.personas.judge.0.instructions`)."""
        config, _ = upgrade(config)
        for key in ("court", "personas", "prompt_format"):
            if key not in config:
                raise CourtError(f"{source}: field judge.{key}: missing from the recorded court")
        spec = recorded = validate_as(CourtSpec, config["court"], source, CourtError, field=("judge", "court"))
        overrides = options.pop("overrides", None) or {}
        if overrides:
            spec = with_overrides(spec, overrides)
        spec = load_rulings(spec, Path(source), Locator(""))
        if not isinstance(config["personas"], dict) or not all(isinstance(p, list) for p in config["personas"].values()):
            raise CourtError(f"{source}: field judge.personas: expected each role's list of personas")
        personas = {role: [validate_as(Persona, p, source, CourtError, field=("judge", "personas", role, i))
                           for i, p in enumerate(people)] for role, people in config["personas"].items()}
        changed = {role for role in set_roles(spec, overrides) if spec.personas[role] != recorded.personas.get(role)}
        personas = set_personas(spec, personas, changed, [])  # a persona set to the one recorded stays as recorded
        validate(spec, personas, Path(source), Locator(""))
        return cls(spec, personas, backend, source=source, prompt_format=config["prompt_format"], **options)

    @classmethod
    def create(cls, backend: Backend | BackendSpec | None = None, *, window: int = 8, court: str = "default",
               options: Mapping[str, Any] | None = None) -> Court:
        """The court a `JudgeSpec` names (`court`: a shipped name or a file; a run directory's court is
        `courtroom.log.recorded_court`'s)."""
        return cls.load(court, backend, window=window, **(options or {}))

    @classmethod
    def default(cls, backend: Backend | BackendSpec | None = None, **options: Any) -> Court:
        """The default court: the clerk charges the least grounded statements (at most 3) and the measurement
        decides each, with no trial (`Court.load("full")` tries them)."""
        return cls.load("default", backend, **options)

    # -- what the engine needs --------------------------------------------------------------------
    @property
    def threshold(self) -> float:
        """The verdict threshold for this court's model (`aggregation.by_model`, else `aggregation.threshold`)."""
        aggregation = self.spec.aggregation
        tuned = {model_key(name): value for name, value in aggregation.by_model.items()}
        return tuned.get(model_key(self.model), aggregation.threshold)

    @property
    def move_priors(self) -> dict[str, dict[str, float]]:
        """The move priors for this court's model (`move_priors.by_model` node by node over `move_priors.nodes`)."""
        priors = self.spec.move_priors
        if priors is None:
            return {}
        tuned = {model_key(name): nodes for name, nodes in priors.by_model.items()}
        return {**priors.nodes, **tuned.get(model_key(self.model), {})}

    @property
    def ruling(self) -> FittedRuling | None:
        """The ruling fitted for this court's model (`witnesses.rulings`), None without one."""
        witnesses = self.spec.witnesses
        return witnesses.ruling_for(model_key(self.model)) if witnesses is not None else None

    @property
    def bench(self) -> Bench:
        """The court as its trials read it, with the threshold, move priors and ruling for its model."""
        return Bench(self.spec, self.personas, self.procedure, self.threshold, self.prompt_format, self.move_priors,
                     self.ruling)

    def config(self) -> dict[str, Any]:
        spec = self.spec
        if spec.witnesses is not None and spec.witnesses.rulings:  # only this model's ruling decides this court's cases
            mine = model_key(self.model)
            rulings = {m: r for m, r in spec.witnesses.rulings.items() if model_key(m) == mine}
            spec = spec.model_copy(update={"witnesses": spec.witnesses.model_copy(update={"rulings": rulings})})
        config = {"judge": self.name, "court": canonical_config(spec),
                  "personas": {role: [p.model_dump(mode="json", by_alias=True) for p in people]
                               for role, people in self.personas.items()},
                  "prompt_format": self.prompt_format}
        if self.spec.ruling.first_reading_weight:  # its prompt is then part of the court's behaviour
            config["first_reading"] = {"system": JUDGE_SYSTEM, "task": RAILS_TASK}
        if self.spec.aggregation.by_model or (self.spec.move_priors and self.spec.move_priors.by_model) or \
                (self.spec.witnesses and self.spec.witnesses.rulings):
            config["model"] = model_key(self.model)  # the model then decides the threshold, priors or ruling: behaviour
        return config

    def needs_text_scoring(self) -> str | None:
        reasons = []
        if self.spec.indictment.mode == "grounding":
            reasons.append("indictment.mode: grounding")
        if self.spec.ruling.judge_weight < 1.0:
            reasons.append(f"ruling.judge_weight: {self.spec.ruling.judge_weight:g} weighs measured evidence")
        if any(payload_model(e.payload) is Citation for e in self.spec.graph.edges):
            reasons.append("a citation move: the court measures the charge's grounding in the sentence cited")
        if any(n.choice == "evidence" for n in self.spec.graph.nodes.values()):
            reasons.append("a node decided by the evidence: the court measures the charge")
        return "; ".join(reasons) or None

    def variant(self, name: str) -> Court:
        """This court with one of the `VARIANTS` applied (same personas, model and prompt format)."""
        if name not in self._variants:
            spec = with_overrides(self.spec, VARIANTS[name])
            self._variants[name] = Court(spec, self.personas, self._backend or self.backend_spec, source=self.source,
                                         window=1, prompt_format=self.prompt_format)
        return self._variants[name]

    def variants(self, case: Case, events: Sequence[Event]) -> dict[str, VariantVerdict]:
        """The case decided by the court's measurement alone and by its agents alone, from the calls it recorded
        (a variant that would ask for a call the court did not make is left out); none for a court that tries no
        charge, whose verdict is its measurement's and which has no agents."""
        if self.spec.escalation is not None and self.spec.escalation.bounds is None:
            return {}
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
        return run_case(self.bench, case, transcript)

    # -- as a metric (courtroom.court.metric) ------------------------------------------------------
    def score(self, *, threshold: float | None = None, name: str = NAME, **arguments: Any) -> Score:
        """Judge one answer as a metric: `court.score(answer=..., context=[...], question=...)`, or under Opik's,
        DeepEval's or Ragas' names (`output`/`actual_output`/`response`, `retrieval_context`, `input`, ...).
        `value` is P(hallucinated), lower is better; `success` is the court's verdict (faithful) at its own
        threshold for its model, or `value < threshold` when one is given. Calls made at the same time (from a
        tool's worker threads, or `ascore`s gathered) are judged together in lockstep."""
        return score_case(self, case_from_arguments(arguments), threshold, name)

    async def ascore(self, *, threshold: float | None = None, name: str = NAME, **arguments: Any) -> Score:
        """`score` without blocking the event loop (the court judges on its own thread)."""
        return await ascore_case(self, case_from_arguments(arguments), threshold, name)

    def to_mermaid(self) -> str:
        """The procedure as a mermaid diagram."""
        return self.procedure.to_mermaid(title=f"court: {self.spec.name}")

    def describe(self) -> str:
        """A short text summary of the court."""
        people = ", ".join(f"{role}: {'/'.join(p.name for p in ps)}" for role, ps in self.personas.items())
        band, charges = self.spec.escalation, plural(self.spec.max_charges, "charge")
        if band is None:
            trials = f"at most {charges}, each tried for at most {plural(self.spec.max_rounds, 'round')}"
        elif band.bounds is None:
            trials = f"at most {charges}, each decided by the measurement (no trial)"
        else:
            trials = (f"at most {charges}, those measured at P(suspect) in [{band.bounds[0]:g}, {band.bounds[1]:g}] "
                      f"tried for at most {plural(self.spec.max_rounds, 'round')}")
        return f"{self.spec.name}: {people}; {trials}; aggregation {self.spec.aggregation.method}"
