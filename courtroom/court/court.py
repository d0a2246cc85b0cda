"""A court: which personas sit in which roles, the procedure graph, limits and how rulings combine.

Courts are YAML files (`personas/courts/*.yaml` ships `default`, `full`, `escalated`, `evidence`, `jury`,
`cross_examination` and `generative`).
Loading validates everything before any model is touched: the file's fields, the graph (a verdict
is reachable, every cycle is bounded by the round limit, every move has a payload and a target),
that every role has a persona, and that every persona loads and renders.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

from courtroom.case import Case, VariantVerdict
from courtroom.court.bench import Bench
from courtroom.court.metric import NAME, Score, ascore_case, case_from_arguments, score_case
from courtroom.court.moves import Citation, payload_model
from courtroom.court.personas import Persona, load_persona
from courtroom.court.procedure import Procedure
from courtroom.court.spec import (
    CourtSpec,
    courts_dir,
    find_court_file,
    with_overrides,
)
from courtroom.court.trial import run_case
from courtroom.court.verdict import plural
from courtroom.court.witnesses import load_rulings
from courtroom.court.yamlio import Locator, read_yaml, validate_as
from courtroom.door.backend import Backend
from courtroom.door.models import model_key
from courtroom.door.recorded import RecordedCalls
from courtroom.door.spec import BackendSpec
from courtroom.engine.events import Event, ModelCallEvent
from courtroom.engine.judge import Judge
from courtroom.engine.lockstep import Program, Transcript, run_lockstep
from courtroom.engine.migrations import canonical_config, upgrade
from courtroom.engine.plain import JUDGE_SYSTEM, RAILS_TASK
from courtroom.errors import CourtError, PersonaError
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
        path, spec, locator = _read_spec(name_or_path)
        overrides = options.pop("overrides", None) or {}
        if overrides:  # before the personas load: `--set personas.ROLE=...` seats another
            spec = with_overrides(spec, overrides)
        given = _set_roles(spec, overrides)
        personas = _load_personas(spec, path, locator, skip=given)
        personas = _set_personas(spec, personas, given, [path.parent, path.parent.parent])
        spec = load_rulings(spec, path, locator)
        _validate(spec, personas, path, locator)
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
        changed = {role for role in _set_roles(spec, overrides) if spec.personas[role] != recorded.personas.get(role)}
        personas = _set_personas(spec, personas, changed, [])  # a persona set to the one recorded stays as recorded
        _validate(spec, personas, Path(source), Locator(""))
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


def _read_spec(name_or_path: str | Path) -> tuple[Path, CourtSpec, Locator]:
    """A court's file (by name or path), validated as a `CourtSpec` (its personas not loaded)."""
    path = find_court_file(str(name_or_path))
    data, locator = read_yaml(path, CourtError)
    return path, validate_as(CourtSpec, data, path, CourtError, locator=locator), locator


def seated_roles(court: str | Path | None = None) -> set[str]:
    """The roles a court seats (its personas' roles and its clerk's), read from its file; without a court, those of
    every shipped court."""
    courts = [court] if court is not None else sorted(courts_dir().glob("*.yaml"))
    return {role for c in courts for spec in [_read_spec(c)[1]] for role in (*spec.personas, spec.clerk)}


def check_seated(persona: Persona, path: str | Path, court: str | Path | None = None,
                 roles: set[str] | None = None) -> None:
    """Refuse a persona whose role no court seats (by default: no shipped court; else not `court`, whose
    `seated_roles` may be given), naming the persona file, the line of its role and the roles seated."""
    roles = seated_roles(court) if roles is None else roles
    if persona.role in roles:
        return
    line = read_yaml(path, PersonaError)[1].line(["role"])
    seated = f"court {court} seats" if court is not None else "the shipped courts seat"
    hint = "" if court is not None else "; give --court to check it against your own"
    raise PersonaError(f"{path}:{line}: field role: no court seats {persona.role!r} ({seated} "
                       f"{', '.join(sorted(roles))}{hint})")


def _load_personas(spec: CourtSpec, path: Path, locator: Locator, skip: Collection[str] = ()) -> dict[str, list[Persona]]:
    """The personas the court file seats (but in the roles `skip`), each looked for beside the court file first."""
    personas: dict[str, list[Persona]] = {}
    for role, names in spec.personas.items():
        if role in skip:
            continue
        if not (names if isinstance(names, list) else [names]):
            raise CourtError(f"{path}:{locator.line(['personas', role])}: field personas.{role}: no persona given")
        loaded = []
        for index, name in enumerate([names] if isinstance(names, str) else names):
            where = ["personas", role] + ([] if isinstance(names, str) else [index])
            field = f"{path}:{locator.line(where)}: field {'.'.join(map(str, where))}"
            loaded.append(_seat(name, role, [path.parent, path.parent.parent], field))
        personas[role] = loaded
    return personas


def _set_roles(spec: CourtSpec, overrides: Mapping[str, Any]) -> set[str]:
    """The roles whose personas `--set` names (`personas.ROLE=...`, or every role by `personas={...}`)."""
    if "personas" in overrides:
        return set(spec.personas)
    return {path.split(".")[1] for path in overrides if path.startswith("personas.") and path.count(".") == 1}


def _set_personas(spec: CourtSpec, personas: dict[str, list[Persona]], roles: Collection[str],
                  near: list[Path]) -> dict[str, list[Persona]]:
    """`personas` with those of `roles` loaded as `--set` names them (each looked for from the working directory
    first, then `near`), in the court's order of roles; an error names the `--set` and the file."""
    if not roles:
        return personas
    for role in roles:
        names = spec.personas[role]
        listed = [names] if isinstance(names, str) else names
        if not listed:
            raise CourtError(f"--set personas.{role}: no persona given")
        personas = {**personas, role: [_seat(name, role, [Path.cwd(), *near], f"--set personas.{role}"
                                             + ("" if isinstance(names, str) else f" (persona {index + 1})"))
                                       for index, name in enumerate(listed)]}
    return {role: personas[role] for role in spec.personas}


def _seat(name: str, role: str, search: list[Path], where: str) -> Persona:
    """The persona `name` (a name or a file) loaded to sit as `role`; a `CourtError` prefixed by `where` when it is
    not found, does not validate or has another role."""
    try:
        persona = load_persona(name, search)
    except PersonaError as exc:
        raise CourtError(f"{where}: {exc}") from exc
    if persona.role != role:
        raise CourtError(f"{where}: persona {persona.name!r} has role {persona.role!r}, but sits as {role!r}")
    return persona


def _validate(spec: CourtSpec, personas: dict[str, list[Persona]], path: Path, locator: Locator) -> None:
    procedure = Procedure(spec.graph)
    problems = [(p.field, p.message) for p in procedure.problems()]
    for i, edge in enumerate(spec.graph.edges):
        try:
            payload_model(edge.payload)
        except CourtError as exc:
            problems.append((("graph", "edges", i, "payload"), str(exc)))
    for role in sorted(procedure.roles() | {spec.clerk}):
        if role not in personas:
            problems.append((("personas",), f"role {role!r} has no persona"))
    speakers = procedure.roles()
    for i, role in enumerate(spec.ruling_evidence_roles):
        if role not in speakers:
            problems.append((("ruling_evidence_roles", i), f"role {role!r} never speaks in the graph (roles that "
                                                           f"speak: {', '.join(sorted(speakers))})"))
    if "jury" in procedure.terminals_used() and "jury" not in personas:
        problems.append((("personas",), "the graph ends at `jury`, but no personas sit in the `jury` role"))
    problems += _priors_problems(spec, procedure)
    if spec.escalation is not None and spec.indictment.mode == "generate":
        problems.append((("escalation",), "the clerk's drafted charges (indictment.mode: generate) have no measured "
                                          "P(suspect) to escalate by: use indictment.mode grounding or score"))
    if spec.escalation is not None and spec.escalation.bounds is None and spec.on_no_charges == "try_whole_answer":
        problems.append((("escalation", "tries"), "a court that tries nothing cannot try the whole answer when nothing "
                                                  "was charged (on_no_charges: try_whole_answer): it has no measured "
                                                  "P(suspect) to decide by; use on_no_charges: acquit"))
    if spec.witnesses is not None:
        if spec.indictment.mode != "grounding" or spec.grounding.scoring != "answer":
            problems.append((("witnesses",), "witnesses are heard on the whole answer's measured tokens: they need "
                                             "indictment.mode: grounding and grounding.scoring: answer"))
    if problems:
        lines = [f"{path}:{locator.line(field) or ''}: field {'.'.join(map(str, field))}: {message}"
                 for field, message in problems]
        raise CourtError("illegal court:\n" + "\n".join(lines))


def _priors_problems(spec: CourtSpec, procedure: Procedure) -> list[tuple[tuple[str | int, ...], str]]:
    """Move priors name nodes the model chooses at, and give a prior for every move out of each."""
    if spec.move_priors is None:
        return []
    problems: list[tuple[tuple[str | int, ...], str]] = []
    tables: list[tuple[tuple[str | int, ...], dict[str, dict[str, float]]]] = [(("move_priors", "nodes"),
                                                                             spec.move_priors.nodes)]
    tables += [(("move_priors", "by_model", model), nodes) for model, nodes in spec.move_priors.by_model.items()]
    for where, nodes in tables:
        for node, priors in nodes.items():
            if node not in spec.graph.nodes:
                problems.append((where + (node,), f"{node!r} is not a node of the graph (nodes: "
                                                  f"{', '.join(spec.graph.nodes)})"))
                continue
            if spec.graph.nodes[node].choice != "model":
                problems.append((where + (node,), f"node {node!r} is decided by the court's rule, not by the model: "
                                                  "it has no move probabilities to calibrate"))
                continue
            moves = [e.move for e in procedure.moves(node)]
            if unknown := sorted(set(priors) - set(moves)):
                problems.append((where + (node,), f"{', '.join(unknown)}: not a move at {node!r} (its moves: "
                                                  f"{', '.join(moves)})"))
            if missing := [m for m in moves if m not in priors]:
                problems.append((where + (node,), f"no prior for {', '.join(missing)}: give one for every move at "
                                                  f"{node!r} ({', '.join(moves)})"))
    return problems
