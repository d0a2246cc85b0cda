"""A court file as data: who sits in which role, how charges are drawn up and measured, how rulings are
decided and combined, and the procedure graph (the optional sections added later, escalation, move priors,
exhibit checks and witnesses, are `spec_sections`). Validated by pydantic on load; the court's own checks
(graph, personas) are in `validation.py`.

Settings added after the first court files are marked `Since(version)`: at their default they are left
out of a court's recorded configuration (`canonical_config`), so a court that does not use them keeps the
identity its runs were made with. A setting whose default is not the old behaviour (`sentences`) is always
recorded instead, and configurations recorded without it are migrated to the old value
(`courtroom.engine.migrations`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from courtroom.court.personas import shipped_dir
from courtroom.court.procedure import GraphSpec
from courtroom.court.spec_sections import EscalationSpec, ExhibitCheckSpec, MovePriorsSpec, WitnessesSpec
from courtroom.engine.migrations import Since
from courtroom.errors import CourtError
from courtroom.text.sentences import SPLITTER, SentenceSplitter


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
    share_by: Annotated[Literal["statements", "characters"], Since(2)] = "statements"
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
    scoring: Annotated[Literal["sentence", "answer"], Since(2)] = "sentence"
    """sentence: score each sentence alone, as if it were the whole answer (two calls per sentence);
    answer: score the whole answer once with the context and once without (two calls per case) and
    read each sentence off its tokens, so a sentence is measured in the flow of the answer before it."""
    clip: Annotated[float | None, Since(2)] = Field(None, gt=0.0)
    """The most one token may gain from the context (nats), or None for no cap (the measure is then
    total likelihoods, as first shipped). A copied rare name gains 5-10 nats and would otherwise
    outweigh the invented words beside it."""
    lexical: Annotated[LexicalSpec | None, Since(2)] = None
    """Also weigh lexical evidence (words of the statement the sources never use) into P(suspect), or
    None for grounding alone. The words are named in the charge, as exhibits for the debate."""


class LexicalSpec(BaseModel):
    """Lexical evidence: the words of a statement that neither the context nor the question uses
    (`courtroom.text.words`), named in its charge as exhibits for the debate, and optionally weighed: the
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
    first_reading_weight: Annotated[float, Since(2)] = Field(0.0, ge=0.0, le=1.0)
    """Weight, in every ruling of a case, of the judge's first reading of the whole answer: the one-word
    question `factual` or `hallucinated` asked once per case beside the indictment (`courtroom.engine.plain`),
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
    sentences: SentenceSplitter = SPLITTER
    """How the context is cut into the numbered sentences the parties cite, and the answer into the statements
    the clerk charges (`courtroom.text.sentences`): structured (JSON records, table rows, list items and lines first,
    then prose, past abbreviations, initials and decimals) or regex (end punctuation before a capital, or a
    line break: the first splitter). Always recorded; a court recorded before the setting existed is regex."""
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
    escalation: Annotated[EscalationSpec | None, Since(4)] = None
    """Try only the charges whose measured P(suspect) lies in this band, deciding the others by the measurement
    alone; None tries every charge."""
    move_priors: Annotated[MovePriorsSpec | None, Since(4)] = None
    """Calibrate the model's move choices by these priors; None chooses by the raw probabilities."""
    exhibit_check: Annotated[ExhibitCheckSpec | None, Since(4)] = None
    """Weigh the court's check of the items the prosecution names (`exhibit` moves) into P(suspect); None
    records the checks without weighing them."""
    witnesses: Annotated[WitnessesSpec | None, Since(6)] = None
    """Hear these witnesses when charging, and weigh their testimony by a ruling fitted for the court's model; None
    hears none (the grounding measure decides)."""


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


def court_json_schema() -> dict[str, Any]:
    """JSON Schema of court files, for editors."""
    schema = CourtSpec.model_json_schema(by_alias=True)
    schema["title"] = "courtroom court"
    return schema


def parse_override(item: str) -> tuple[str, Any]:
    """`ruling.judge_weight=0.3` -> `("ruling.judge_weight", 0.3)` (the value read as YAML: numbers, booleans,
    null, lists and mappings as written)."""
    import yaml

    path, sep, text = item.partition("=")
    if not sep or not path.strip():
        raise CourtError(f"--set {item!r}: expected FIELD=VALUE, e.g. ruling.judge_weight=0.3")
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise CourtError(f"--set {item!r}: the value is not valid YAML ({exc})") from exc
    return path.strip(), value


def with_overrides(spec: CourtSpec, overrides: Mapping[str, Any]) -> CourtSpec:
    """The court with some of its settings changed (`{"ruling.judge_weight": 0.0}`); a path that names no setting,
    or a value it does not take, is a `CourtError` naming it."""
    data = spec.model_dump(mode="json", by_alias=True)
    for path, value in overrides.items():
        node = data
        *parents, last = path.split(".")
        for part in parents:
            if not isinstance(node.get(part), dict):
                raise CourtError(f"--set {path}: the court has no section {part!r}")
            node = node[part]
        if last not in node:
            raise CourtError(f"--set {path}: the court has no setting {last!r} there (it has {sorted(node)})")
        node[last] = value
    try:
        return CourtSpec.model_validate(data)
    except ValidationError as exc:
        raise CourtError("; ".join(f"--set {'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())) from exc
