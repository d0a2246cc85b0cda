"""A court file: the clerk's settings (`courtroom.clerk.spec.ClerkSpec`) and a `trial` section that says how
the clerk's charges are tried; the court's own checks (graph, personas) are in `validation.py`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, model_validator

from courtroom.clerk.spec import ClerkSpec, SpecT
from courtroom.court.procedure import EXITS, GraphSpec
from courtroom.door.http_client import ServedUrl
from courtroom.errors import CourtError

_FIELDS = ConfigDict(extra="forbid", use_attribute_docstrings=True)


class EscalationSpec(BaseModel):
    """Which charges go to trial: a charge whose measured P(suspect) lies in [low, high] is tried; one outside
    it is decided by the measurement alone (no trial call), so the debate is paid for only where it can change
    the verdict. Set the band on labelled dev data (`courtroom rejudge --set trial.escalation=...`)."""

    model_config = _FIELDS

    low: float = Field(ge=0.0, le=1.0)
    """Charges measured below this P(suspect) are found supported by the measurement."""
    high: float = Field(ge=0.0, le=1.0)
    """Charges measured above this P(suspect) are found hallucinated by the measurement."""

    @model_validator(mode="after")
    def _a_band(self) -> EscalationSpec:
        if self.low > self.high:
            raise ValueError(f"low ({self.low:g}) is above high ({self.high:g}): the band is empty")
        return self


class SeatSpec(BaseModel):
    """A further model a role speaks through (`trial.models`): an alias, a `.gguf` file or a Hugging Face id
    run in this process (on the run's device and dtype), or a model served at `url`."""

    model_config = _FIELDS

    model: str = Field(min_length=1)
    """The model, as `--model` names it (for a served model, the name it is served under)."""
    url: ServedUrl = None
    """The served API's base (`http://127.0.0.1:8000/v1`); None runs the model in this process."""
    api_key_env: str | None = None
    """For a served model: the variable holding its API's key (only the name is recorded); None:
    `--api-key-env`'s."""
    gpus: float = Field(0.0, ge=0.0, allow_inf_nan=False)
    """GPUs (or a fraction of one) this model needs in each Ray worker beside the run's model
    (`--gpus-per-worker`): a worker asks Ray for the sum and places each model on its own share."""

    @property
    def key(self) -> str:
        """How requests name this seat (`GenerationRequest.seat`)."""
        return self.model if self.url is None else f"{self.model}@{self.url}"


def _seats(value: Any) -> Any:
    """A role's model as written: a name (`qwen2.5-coder-0.5b`), a seat, or a list of either (a panel's, in
    order)."""
    items = value if isinstance(value, list) else [value]
    return [SeatSpec(model=item) if isinstance(item, str) else item for item in items]


class TrialSpec(BaseModel):
    """How the clerk's charges are tried."""

    model_config = _FIELDS

    rules: str = Field(min_length=1)
    """Court rules: the opening of every prompt of a trial, shared by all turns of a case (then the case
    file)."""
    personas: dict[str, str | list[str]]
    """Role -> persona name or file (a list for a panel such as the jury)."""
    models: dict[str, Annotated[list[SeatSpec], BeforeValidator(_seats)]] = Field(
        default_factory=dict, exclude_if=lambda v: not v)
    """Role -> the model it speaks through, when not the run's (`--model`): a name (an alias, a `.gguf` file,
    a Hugging Face id), `{model, url}` for a served one, or a list of them for a panel (one per juror in
    order). The clerk's measurement always uses the run's model; each call in the transcript names its own
    (`seat`)."""
    charges: Literal["measured", "drafted"] = "measured"
    """measured: the clerk's charges (the least grounded statements); drafted: the persona in the `clerk` role
    writes them, with quotes, unfound quotes dropped (for a model without prompt log-probabilities)."""
    max_rounds: int = Field(3, ge=1, le=10)
    """Rounds of debate per charge; at the limit, moves that start a new round are illegal."""
    exchange_rounds: int = Field(0, ge=0, le=10)
    """Rounds in which no side may end the trial: a move to `acquit` or `convict` (a withdrawal, a concession)
    is legal only after them, so both sides argue and the judge (or jury) rules at least once before anyone
    gives up. At `max_rounds` or above no side may give up at all: every trial ends in the judge's ruling."""
    poll_moves: bool = False
    """Where the rules force a side's move (the rounds of exchange), still ask it for its probability of each
    of the node's moves (one scored call), recorded as `polled_probs` and heard as testimony; the forced move
    stands."""
    texts: Literal["composed", "generated"] = "composed"
    """composed: the court writes each move's text from its pieces (the quote, the sentence cited, that
    sentence's words: `reading`), so nothing is decoded and no role writes another's words; generated: the
    speaker writes one sentence after its pieces, under the pattern of `courtroom.court.moves.SENTENCE` (for a
    model that can argue)."""
    reading: Literal["likelihood", "words"] = "likelihood"
    """How the pieces are read off the case: likelihood, by how much likelier each context sentence alone
    makes the charged words than no context (the model scores it; needs prompt log-probabilities); words, by
    the content words they share (no model: for a server that cannot score)."""
    testify: bool = True
    """Record what the trials said as testimony (the `trial` witness, `courtroom.court.testimony`) in the
    verdict, beside the clerk's witnesses' (shown, never weighed). False in runs recorded before it (#51)."""
    blind_judge: bool = False
    """The judge (and the jury) reads the question, the answer, the charge and the debate, but not the
    context: a cited sentence is shown by its number alone."""
    judge_weight: float = Field(1.0, ge=0.0, le=1.0)
    """Weight of the court's own verdict (the judge's or jury's probability, or that of a withdrawal or
    concession); the rest goes to the measured evidence (the charged statement's grounding in the whole
    context or the sentences the defence cited, whichever is stronger). Small models judge near chance but
    measure well: weigh the evidence."""
    evidence_roles: list[str] = Field(default_factory=lambda: ["defender"])
    """Roles whose citations count as evidence for the defence when the court weighs the evidence."""
    jury_rule: Literal["majority", "mean"] = "mean"
    """How jurors' verdicts combine into P(hallucinated): the share voting hallucinated, or their mean P."""
    on_no_charges: Literal["acquit", "try_whole_answer"] = "acquit"
    """With no charge brought: judge the answer faithful, or try the whole answer as one charge."""
    escalation: EscalationSpec | None = None
    """Try only the charges whose measured P(suspect) lies in this band (the others by the measurement); None:
    all."""
    graph: GraphSpec
    """The procedure of each trial."""


class CourtSpec(ClerkSpec):
    """A court file: the clerk's settings, and how its charges are tried."""

    trial: TrialSpec
    """How the clerk's charges are tried (a court file without it is the clerk alone:
    `courtroom.clerk.ClerkSpec`)."""

    def problems(self) -> list[tuple[tuple[str | int, ...], str]]:
        found = super().problems()
        trial = self.trial
        if trial.charges == "drafted" and trial.escalation is not None:
            found.append((("trial", "escalation"), "drafted charges (trial.charges: drafted) have no "
                                                   "measured P(suspect) to escalate by: use measured "
                                                   "charges"))
        seated: dict[str, tuple[SeatSpec, str]] = {}
        for role, seats in trial.models.items():
            people = trial.personas.get(role)
            for seat in seats:  # one seat is one model loaded (or reached) once: one share of GPUs, one key
                first, by = seated.setdefault(seat.key, (seat, role))
                if first.gpus != seat.gpus:
                    found.append((("trial", "models", role), f"model {seat.model!r} is seated with "
                                                             f"{seat.gpus:g} GPUs here and {first.gpus:g} "
                                                             f"for role {by!r}: it is loaded once, give it "
                                                             "one number of GPUs"))
                    break
                if seat.url is not None and first.api_key_env != seat.api_key_env:
                    mine, theirs = (s.api_key_env or "no variable (--api-key-env's at --model-url's host)"
                                    for s in (seat, first))
                    found.append((("trial", "models", role), f"model {seat.model!r} at {seat.url} takes its "
                                                             f"key from {mine} for role {role!r} and from "
                                                             f"{theirs} for role {by!r}: one model at one "
                                                             "URL has one key, give both roles the same "
                                                             "api_key_env"))
                    break
            if not seats:
                found.append((("trial", "models", role), f"no model for role {role!r} (an empty list): name "
                                                         "one, or leave the role out to seat it on the run's "
                                                         "model"))
            elif people is None:
                found.append((("trial", "models", role), f"no persona sits in role {role!r} (roles: "
                                                         f"{', '.join(trial.personas)})"))
            elif len(seats) > 1 and len(seats) != (len(people) if isinstance(people, list) else 1):
                found.append((("trial", "models", role), f"{len(seats)} models for the "
                                                         f"{len(people) if isinstance(people, list) else 1} "
                                                         f"personas of role {role!r}: give one model for "
                                                         "all, or one each"))
        if trial.texts == "composed":
            for number, edge in enumerate(trial.graph.edges):
                if not isinstance(edge.payload, str):
                    found.append((("trial", "graph", "edges", number, "payload"),
                                  f"move {edge.move!r} carries the inline payload {edge.payload.name!r}, "
                                  "which only a model can write: the court composes the registered payloads "
                                  "alone (set trial.texts: generated)"))
        if trial.exchange_rounds:
            for name in trial.graph.nodes:
                moves = [e for e in trial.graph.edges if e.source == name]
                if moves and all(e.to in EXITS for e in moves):
                    found.append((("trial", "graph", "nodes", name), f"node {name!r} has only exits (moves "
                                                                     "to acquit or convict): in the rounds "
                                                                     "of exchange it would have no legal "
                                                                     "move"))
                elif moves and trial.exchange_rounds >= trial.max_rounds and \
                        all(e.to in EXITS or e.new_round for e in moves):
                    found.append((("trial", "graph", "nodes", name), f"node {name!r} has only exits and "
                                                                     "moves that start a new round: with "
                                                                     "exchange_rounds "
                                                                     f"{trial.exchange_rounds} and "
                                                                     f"max_rounds {trial.max_rounds} it has "
                                                                     "no legal move in round "
                                                                     f"{trial.max_rounds} (give it a move to "
                                                                     "the ruling, or set exchange_rounds "
                                                                     "below max_rounds)"))
        return found


OPEN_MAPPINGS = ("personas", "models", "by_model", "rulings")
"""Settings whose keys are the user's (a role, a model): `--set` may add one."""


def with_overrides(spec: SpecT, overrides: Mapping[str, Any]) -> SpecT:
    """The settings with some changed by their paths now (`{"aggregation.threshold": 0.4}`; a court file's
    `--set` of an older path is brought up to date by `courtroom.courts`); an unknown path or a value it does
    not take is a `CourtError` naming it."""
    if not overrides:
        return spec
    data = spec.model_dump(mode="json", by_alias=True)
    for path, value in overrides.items():
        node = data
        *parents, last = path.split(".")
        for part in parents:
            # an open mapping left out while empty (trial.models)
            if part in OPEN_MAPPINGS and part not in node:
                node[part] = {}
            if not isinstance(node.get(part), dict):
                raise CourtError(f"--set {path}: the court has no section {part!r}")
            node = node[part]
        if last not in node and last not in OPEN_MAPPINGS and (not parents
                                                               or parents[-1] not in OPEN_MAPPINGS) \
                and last not in _declared(type(spec), parents):
            # (an open mapping, left out of the dump while empty, is given whole: `trial.models={judge: x}`)
            raise CourtError(f"--set {path}: the court has no setting {last!r} there (it has {sorted(node)})")
        node[last] = value
    try:
        return type(spec).model_validate(data)
    except ValidationError as exc:
        raise (CourtError("; ".join(f"--set {'.'.join(map(str, e['loc']))}: {e['msg']}"
                                    for e in exc.errors()))) from exc


def _declared(model: type, parents: list[str]) -> set[str]:
    """The settings the section at `parents` declares, also those a dump leaves out at their default."""
    for part in parents:
        field = getattr(model, "model_fields", {}).get(part)
        kinds = [a for a in get_args(field.annotation) or (field.annotation,)
                 if isinstance(a, type) and issubclass(a, BaseModel)] if field is not None else []
        if not kinds:
            return set()
        model = kinds[0]
    return set(getattr(model, "model_fields", {}))
