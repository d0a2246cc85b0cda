"""A court: which personas sit in which roles, the procedure graph, limits and how rulings combine.

Courts are YAML files (`personas/courts/*.yaml` ships `default`, `jury` and `cross_examination`).
Loading validates everything before any model is touched: the file's fields, the graph (a verdict
is reachable, every cycle is bounded by the round limit, every move has a payload and a target),
that every role has a persona, and that every persona loads and renders.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from courtroom.case import Case
from courtroom.court.moves import payload_model
from courtroom.court.personas import Persona, load_persona, shipped_dir
from courtroom.court.procedure import GraphSpec, Procedure
from courtroom.court.yamlio import Locator, describe_errors, read_yaml
from courtroom.door.backend import Backend
from courtroom.engine.judge import Judge
from courtroom.engine.lockstep import Program, Transcript
from courtroom.errors import CourtError, PersonaError


class AggregationSpec(BaseModel):
    """How charge rulings become the case verdict."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    method: Literal["any", "majority", "mean", "share"] = "any"
    """any: hallucinated if any charge is (score = max P); majority: if most are (score = mean P);
    mean: if the mean P(hallucinated) over charges reaches the threshold; share: the expected share
    of the answer's statements that are hallucinated, every statement counted (a trial's ruling for
    those charged, the indictment's P(suspect) for the others), against the threshold."""
    threshold: float = Field(0.5, ge=0.0, le=1.0)
    """P(hallucinated) at or above which a ruling (and the `mean` method) says hallucinated."""
    share_by: Literal["statements", "characters"] = "statements"
    """share method: count every statement once, or by its length in characters (the expected share of
    the answer's *text* that is hallucinated: a long invented sentence outweighs a short greeting)."""
    by_model: dict[str, Annotated[float, Field(ge=0.0, le=1.0)]] = Field(default_factory=dict)
    """Thresholds tuned for particular models (by the name given to --model; `default` is
    `smollm2-135m`), overriding `threshold` with them: with another model rulings sit at other heights,
    so the threshold that balances the two kinds of error belongs to the court and the model together."""


class IndictmentSpec(BaseModel):
    """How the clerk draws up charges."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    mode: Literal["grounding", "score", "generate"] = "grounding"
    """grounding: the court measures how well the context accounts for every sentence of the answer
    (see `GroundingSpec`) and charges the least grounded; score: the clerk rates every sentence (a
    scored yes/no); generate: the clerk writes charges with quotes, and quotes not found in the answer
    are dropped."""
    threshold: float = Field(0.5, ge=0.0, le=1.0)
    """grounding and score modes: a sentence is charged when its P(suspect) reaches this."""


class GroundingSpec(BaseModel):
    """The court's measure of evidence: how much the context raises the model's likelihood of a statement.

    The grounding of a statement is its pointwise mutual information with the context, in nats per
    token: log P(statement | context, question) - log P(statement | question), averaged over its tokens.
    Words the context accounts for become likelier when the context is shown; invented ones do not. It
    maps to P(suspect) = sigmoid((center - grounding) / scale [+ the lexical term, see `LexicalSpec`])."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    center: float = 0.2
    """Grounding (nats per token) at which a statement is as likely hallucinated as not."""
    scale: float = Field(0.3, gt=0.0)
    """How sharply P(suspect) falls as grounding rises."""
    scoring: Literal["sentence", "answer"] = "sentence"
    """sentence: score each sentence alone, as if it were the whole answer (two calls per sentence);
    answer: score the whole answer once with the context and once without (two calls per case) and
    read each sentence off its tokens, so a sentence is measured in the flow of the answer before it."""
    clip: float | None = Field(None, gt=0.0)
    """The most one token may gain from the context (nats), or None for no cap (the measure is then
    total likelihoods, as first shipped). A copied rare name gains 5-10 nats and would otherwise
    outweigh the invented words beside it."""
    lexical: LexicalSpec | None = None
    """Also weigh lexical evidence (words of the statement the sources never use) into P(suspect), or
    None for grounding alone. The words are named in the charge, as exhibits for the debate."""


class LexicalSpec(BaseModel):
    """Lexical evidence: the words of a statement that neither the context nor the question uses
    (`courtroom.court.lexical`), named in its charge as exhibits for the debate, and optionally weighed: the
    share u of the statement's distinct content words that are unsupported adds (u - center) / scale to
    the log-odds that the statement is hallucinated."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    center: float = Field(0.35, ge=0.0, le=1.0)
    """Share of unsupported words at which the lexical evidence is neutral."""
    scale: float | None = Field(0.1, gt=0.0)
    """How sharply suspicion rises with the share of unsupported words; None names the words in the
    charges without weighing them."""


class RulingSpec(BaseModel):
    """How a charge's probability of being hallucinated is decided."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    judge_weight: float = Field(1.0, ge=0.0, le=1.0)
    """Weight of the court's own verdict (the judge's or jury's probability, or the probability of a
    withdrawal or concession); the rest goes to the measured evidence: the grounding of the charged
    statement in the whole context or in the sentences the defence cited, whichever is stronger.
    1.0 decides by the court's verdict alone (needs a model that can judge); small models judge near
    chance but measure grounding well, so courts for them weigh the evidence."""
    first_reading_weight: float = Field(0.0, ge=0.0, le=1.0)
    """Weight, in every ruling of a case, of the judge's first reading of the whole answer: the one-word
    question `factual` or `hallucinated` asked once per case beside the indictment (`courtroom.baselines.plain`),
    its probability of `hallucinated`. The rest goes to the verdict and evidence above; 0 does not ask.
    A case without charges is acquitted as before (its reading stays in the transcript's model calls).
    The reading sees the whole answer at once, where likelihoods see one sentence, and its errors are
    nearly independent of theirs; but it is only as good as the model's plain verdict: with
    Qwen2.5-Coder-0.5B it added nothing on HaluBench dev (weight 0.1: 0.655 vs 0.650 cross-validated)."""


class CourtSpec(BaseModel):
    """A court file."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True, populate_by_name=True)

    schema_path: str | None = Field(default=None, alias="$schema")
    """Optional JSON schema reference for editors (ignored)."""
    name: str = Field(pattern=r"^[a-z][a-z0-9_\-]*$")
    """The court's name."""
    description: str = ""
    """What kind of procedure this is."""
    rules: str = Field(min_length=1)
    """Court rules: the opening of every prompt, shared by all turns of a case (then the case file)."""
    personas: dict[str, str | list[str]]
    """Role -> persona name or file (a list for a panel such as the jury)."""
    clerk: str = "clerk"
    """The role that draws up the charges."""
    indictment: IndictmentSpec = IndictmentSpec()
    """How charges are drawn up."""
    grounding: GroundingSpec = GroundingSpec()
    """How grounding (measured evidence) maps to a probability."""
    ruling: RulingSpec = RulingSpec()
    """How verdicts and evidence combine into a ruling."""
    ruling_evidence_roles: list[str] = Field(default_factory=lambda: ["defender"])
    """Roles whose citations count as evidence for the defence when the court weighs the evidence."""
    max_charges: int = Field(3, ge=1, le=10)
    """At most this many charges are tried per case."""
    max_rounds: int = Field(3, ge=1, le=10)
    """Rounds of debate per charge; at the limit, moves that start a new round are illegal."""
    aggregation: AggregationSpec = AggregationSpec()
    """How rulings combine into the case verdict."""
    jury_rule: Literal["majority", "mean"] = "mean"
    """How jurors' verdicts combine into P(hallucinated): the share voting hallucinated, or their mean P."""
    on_no_charges: Literal["acquit", "try_whole_answer"] = "acquit"
    """With no charge brought: judge the answer faithful, or try the whole answer as one charge."""
    graph: GraphSpec
    """The procedure of each trial."""


LATER_FIELDS = [("ruling", "first_reading_weight", 0.0), ("grounding", "scoring", "sentence"),
                ("grounding", "clip", None), ("aggregation", "share_by", "statements"), ("grounding", "lexical", None)]
"""(section, field, default) of court fields added after runs had been published."""


def courts_dir() -> Path:
    """The directory of the shipped courts."""
    return shipped_dir() / "courts"


def find_court_file(name: str) -> Path:
    """A court by path, or by name among the shipped courts."""
    path = Path(name)
    if path.suffix in (".yaml", ".yml"):
        if path.is_file():
            return path
        raise CourtError(f"court file {path} does not exist")
    candidate = courts_dir() / f"{name}.yaml"
    if candidate.is_file():
        return candidate
    shipped = sorted(p.stem for p in courts_dir().glob("*.yaml"))
    raise CourtError(f"unknown court {name!r}: not a file, and not one of the shipped courts {shipped}")


class Court(Judge):
    """The courtroom judge: indictment, a trial per charge over rounds, then the verdict."""

    name = "courtroom"

    def __init__(self, spec: CourtSpec, personas: dict[str, list[Persona]], backend: Backend | None = None, *,
                 source: str | None = None, **options: Any) -> None:
        super().__init__(backend, **options)
        self.spec = spec
        self.personas = personas
        self.source = source
        self.procedure = Procedure(spec.graph)

    # -- loading ---------------------------------------------------------------------------------
    @classmethod
    def load(cls, name_or_path: str | Path = "default", backend: Backend | None = None, **options: Any) -> Court:
        """Load and validate a court by name (shipped) or path; errors name the file, line and field."""
        path = find_court_file(str(name_or_path))
        data, locator = read_yaml(path, CourtError)
        try:
            spec = CourtSpec.model_validate(data)
        except ValidationError as exc:
            raise CourtError(describe_errors(path, exc, locator)) from exc
        personas = _load_personas(spec, path, locator)
        _validate(spec, personas, path, locator)
        return cls(spec, personas, backend, source=str(path), **options)

    @classmethod
    def from_config(cls, config: dict[str, Any], backend: Backend | None = None, **options: Any) -> Court:
        """Rebuild a court from a run manifest's copy of its file and personas (not from disk)."""
        spec = CourtSpec.model_validate(config["court"])
        personas = {role: [Persona.model_validate(p) for p in people] for role, people in config["personas"].items()}
        _validate(spec, personas, Path("<manifest>"), Locator(""))
        if "model" in config:
            options.setdefault("model", config["model"])
        return cls(spec, personas, backend, source="<manifest>", **options)

    @classmethod
    def default(cls, backend: Backend | None = None, **options: Any) -> Court:
        """The default court: clerk, prosecutor, defender and judge; 3 charges, 3 rounds."""
        return cls.load("default", backend, **options)

    # -- what the engine needs --------------------------------------------------------------------
    @property
    def threshold(self) -> float:
        """The verdict threshold for this court's model (`aggregation.by_model`, else `aggregation.threshold`)."""
        from courtroom.door.models import model_key

        aggregation = self.spec.aggregation
        tuned = {model_key(name): value for name, value in aggregation.by_model.items()}
        return tuned.get(model_key(self.model), aggregation.threshold)

    def persona(self, role: str) -> Persona:
        """The persona in a role (the first, for a panel)."""
        return self.personas[role][0]

    def panel(self, role: str) -> list[Persona]:
        """Every persona in a role."""
        return self.personas[role]

    def config(self) -> dict[str, Any]:
        config = {"judge": self.name, "court": self.spec.model_dump(mode="json", by_alias=True),
                  "personas": {role: [p.model_dump(mode="json", by_alias=True) for p in people]
                               for role, people in self.personas.items()}}
        if self.spec.ruling.first_reading_weight:  # its prompt is then part of the court's behaviour
            from courtroom.baselines.plain import JUDGE_SYSTEM, RAILS_TASK

            config["first_reading"] = {"system": JUDGE_SYSTEM, "task": RAILS_TASK}
        # fields added after the first runs are left out at their defaults, so that courts without
        # them keep the configuration (and the hash) their runs were made with
        for section, field, default in LATER_FIELDS:
            if config["court"][section][field] == default:
                del config["court"][section][field]
        if self.spec.aggregation.by_model:  # the model then decides the threshold: part of the behaviour
            from courtroom.door.models import model_key

            config["model"] = model_key(self.model)
        return config

    def program(self, case: Case, transcript: Transcript) -> Program:
        from courtroom.court.trial import run_case

        return run_case(self, case, transcript)

    def to_mermaid(self) -> str:
        """The procedure as a mermaid diagram."""
        return self.procedure.to_mermaid(title=f"court: {self.spec.name}")

    def describe(self) -> str:
        """A short text summary of the court."""
        people = ", ".join(f"{role}: {'/'.join(p.name for p in ps)}" for role, ps in self.personas.items())
        return (f"{self.spec.name}: {people}; at most {self.spec.max_charges} charges and {self.spec.max_rounds} "
                f"rounds; aggregation {self.spec.aggregation.method}")


def _load_personas(spec: CourtSpec, path: Path, locator: Locator) -> dict[str, list[Persona]]:
    personas: dict[str, list[Persona]] = {}
    for role, names in spec.personas.items():
        listed = [names] if isinstance(names, str) else names
        if not listed:
            raise CourtError(f"{path}:{locator.line(['personas', role])}: field personas.{role}: no persona given")
        loaded = []
        for index, name in enumerate(listed):
            where = ["personas", role] + ([] if isinstance(names, str) else [index])
            try:
                persona = load_persona(name, [path.parent, path.parent.parent])
            except PersonaError as exc:
                raise CourtError(f"{path}:{locator.line(where)}: field {'.'.join(map(str, where))}: {exc}") from exc
            if persona.role != role:
                raise CourtError(f"{path}:{locator.line(where)}: field {'.'.join(map(str, where))}: persona "
                                 f"{persona.name!r} has role {persona.role!r}, but sits as {role!r}")
            loaded.append(persona)
        personas[role] = loaded
    return personas


def _validate(spec: CourtSpec, personas: dict[str, list[Persona]], path: Path, locator: Locator) -> None:
    procedure = Procedure(spec.graph)
    problems = [(p.field, p.message) for p in procedure.problems()]
    for i, edge in enumerate(spec.graph.edges):
        try:
            payload_model(edge.payload)
        except KeyError as exc:
            problems.append((("graph", "edges", i, "payload"), str(exc.args[0])))
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
    if problems:
        lines = [f"{path}:{locator.line(field) or ''}: field {'.'.join(map(str, field))}: {message}"
                 for field, message in problems]
        raise CourtError("illegal court:\n" + "\n".join(lines))


def court_json_schema() -> dict[str, Any]:
    """JSON Schema of court files, for editors."""
    schema = CourtSpec.model_json_schema(by_alias=True)
    schema["title"] = "courtroom court"
    return schema

