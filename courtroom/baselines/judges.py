"""Single-model judges to compare the court against, on the same model door and the same model.

Each one follows a peer tool or the founding article (`../shared/seeds`), with our own prompts:
- `single`: one prompt returning reasons and a hallucination score (Opik's metric style);
- `rails`: one word, `factual` or `hallucinated`, scored by its probability (Phoenix's template);
- `two-step`: extract up to 3 candidate hallucinations, score each, stop at the first hallucinated
  one (the founding article's multi-step judge);
- `per-context`: a verdict per context passage; score = contradicted passages / passages, compared
  with a threshold (DeepEval's metric);
- `vote`: self-consistency, N sampled single judges, majority vote;
- `unstructured`: the single judge without constraints, parsed with `json.loads` (or leniently, as peer
  tools' parsers do); it reports how often the model's free text fails to parse.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from courtroom.baselines.plain import JUDGE_SYSTEM, RAILS_TASK, p_hallucinated, plain_messages, rails_request
from courtroom.case import Case, CaseVerdict
from courtroom.door.backend import Backend
from courtroom.door.requests import GenerationRequest, GenerationResponse, Sampling
from courtroom.engine.judge import Judge
from courtroom.engine.lockstep import Call, Program, Transcript
from courtroom.errors import ConfigError

REASON_CHARS = 200
MAX_REASONS = 3
Reason = Annotated[str, Field(max_length=REASON_CHARS)]
STATEMENT_CHARS = 150


def token_budget(string_chars: int, overhead: int = 40) -> int:
    """Tokens enough for constrained generation to finish the longest output its schema allows.

    A token of ASCII text holds at least one character, so `string_chars` (the sum of the schema's
    string bounds) plus the JSON around them covers a model that writes every string to its bound, the
    case that cut off the small models (and made the case an error). Not a proof: escaped quotes, long
    numbers and non-ASCII text take more tokens per character. The budget only caps generation; it costs
    nothing when the output is short.
    """
    return string_chars + overhead


SINGLE_TOKEN_BUDGET = token_budget(MAX_REASONS * (REASON_CHARS + 8))

class SingleJudgment(BaseModel):
    """The single judge's output: reasons first, then the score."""

    model_config = ConfigDict(extra="forbid")

    reasons: list[Reason] = Field(max_length=MAX_REASONS)
    score: float = Field(ge=0.0, le=1.0)


class PromptJudge(Judge):
    """A baseline with one fixed task prompt and a decision threshold on its score."""

    task: str = ""

    def __init__(self, backend: Backend | None = None, *, threshold: float = 0.5, **options: Any) -> None:
        super().__init__(backend, **options)
        self.threshold = threshold

    def options(self) -> dict[str, Any]:
        return {"threshold": self.threshold}

    def prompts(self) -> dict[str, str]:
        return {"system": JUDGE_SYSTEM, "task": self.task}


class SingleJudge(Judge):
    """One constrained call: reasons and a hallucination score in [0, 1]."""

    name = "single"
    task = ("Check every claim of the answer against the context. Give up to three short reasons, then a "
            "hallucination score between 0.0 (fully supported by the context) and 1.0 (hallucinated).")

    def __init__(self, backend: Backend | None = None, *, threshold: float = 0.5,
                 max_new_tokens: int = SINGLE_TOKEN_BUDGET, constrained: bool = True, temperature: float = 0.0,
                 **options: Any) -> None:
        super().__init__(backend, **options)
        self.threshold = threshold
        self.sampling = Sampling(max_new_tokens=max_new_tokens, temperature=temperature)
        self.constrained = constrained

    def options(self) -> dict[str, Any]:
        return {"threshold": self.threshold, "max_new_tokens": self.sampling.max_new_tokens,
                "temperature": self.sampling.temperature, "constrained": self.constrained}

    def prompts(self) -> dict[str, str]:
        return {"system": JUDGE_SYSTEM, "task": self.task}

    def request(self, case: Case, seed: int | None = None) -> GenerationRequest:
        sampling = self.sampling if seed is None else self.sampling.model_copy(update={"seed": seed})
        return GenerationRequest(messages=plain_messages(case, self.task), output_type=SingleJudgment,
                                 sampling=sampling, constrained=self.constrained, cache_group=case.id)

    def program(self, case: Case, transcript: Transcript) -> Program:
        [response] = yield [Call(self.request(case), purpose="judge", role="judge")]
        judgment = self.read(response)
        if judgment is None:
            return CaseVerdict(case_id=case.id, label="PASS", score=0.0, judge=self.name, parse_failures=1,
                               reason=f"unparseable output counted as faithful: {response.error}")
        score, reasons = judgment
        label = "FAIL" if score >= self.threshold else "PASS"
        return CaseVerdict(case_id=case.id, label=label, score=score, reason=" ".join(reasons) or "no reason given",
                           judge=self.name)

    def read(self, response: GenerationResponse) -> tuple[float, list[str]] | None:
        """The score and reasons of a reply, or None when it cannot be read (an unconstrained judge's
        parse failure; a constrained judge that fails raises, as an error of the case)."""
        if response.ok:
            return response.value.score, list(response.value.reasons)
        if self.constrained:
            response.unwrap()
        return None


class RailsJudge(PromptJudge):
    """One word, `factual` or `hallucinated`; the score is the model's probability of `hallucinated`."""

    name = "rails"
    task = RAILS_TASK

    def program(self, case: Case, transcript: Transcript) -> Program:
        [response] = yield [Call(rails_request(case), purpose="classify", role="judge")]
        p = p_hallucinated(response)
        return CaseVerdict(case_id=case.id, label="FAIL" if p >= self.threshold else "PASS", score=p,
                           judge=self.name, reason=f"the model answers {response.value!r} (P(hallucinated) = {p:.2f})")


class Candidate(BaseModel):
    """A candidate hallucination proposed at the first step of the two-step judge."""

    model_config = ConfigDict(extra="forbid")

    statement: str = Field(max_length=STATEMENT_CHARS)
    reasoning: str = Field(max_length=STATEMENT_CHARS)


MAX_CANDIDATES = 3


class Candidates(BaseModel):
    """The first step's output: the statements most likely to be hallucinated (at least one, as the
    article asks for a list of three; an optional list lets a small model answer `[]` every time)."""

    model_config = ConfigDict(extra="forbid")

    potential_hallucinations: list[Candidate] = Field(min_length=1, max_length=MAX_CANDIDATES)


class CandidateScore(BaseModel):
    model_config = ConfigDict(extra="forbid")

    reason: Reason
    score: float = Field(ge=0.0, le=1.0)


EXTRACT_TOKEN_BUDGET = token_budget(MAX_CANDIDATES * (2 * STATEMENT_CHARS + 40))
SCORE_TOKEN_BUDGET = token_budget(REASON_CHARS)


class TwoStepJudge(PromptJudge):
    """The founding article's multi-step judge: up to 3 candidates, each scored, stop at the first
    hallucinated one; the case's score is the highest candidate score.

    As in the article, the first step always names candidates (the most suspect statements, whether or
    not they are hallucinated) and the second step decides. Letting the first step answer "none" made
    Qwen2.5-Coder-0.5B return an empty list for all 200 HaluBench cases (recorded in the `v1` runs of
    this judge), which is not the article's judge.
    """

    name = "two-step"
    extract_task = ("List up to 3 statements of the answer that are the most likely to be hallucinated: not "
                    "stated in the context, or in conflict with it. Copy each statement from the answer and say "
                    "why it may be unsupported. The next step checks each one, so list the most doubtful "
                    "statements even when they may turn out to be supported.")
    score_task = ("Examine this statement from the answer, which was flagged as a potential hallucination:\n"
                  "STATEMENT: {statement}\nWHY IT WAS FLAGGED: {reasoning}\n"
                  "Check it against the context. Score 1.0 if the context does not support it or contradicts it, "
                  "0.0 if the context supports it. Give a short reason first.")

    def __init__(self, backend: Backend | None = None, *, extract_tokens: int = EXTRACT_TOKEN_BUDGET,
                 score_tokens: int = SCORE_TOKEN_BUDGET, **options: Any) -> None:
        super().__init__(backend, **options)
        self.extract_tokens = extract_tokens
        self.score_tokens = score_tokens

    def options(self) -> dict[str, Any]:
        return {**super().options(), "extract_tokens": self.extract_tokens, "score_tokens": self.score_tokens}

    def prompts(self) -> dict[str, str]:
        return {"system": JUDGE_SYSTEM, "extract": self.extract_task, "score": self.score_task}

    def program(self, case: Case, transcript: Transcript) -> Program:
        request = GenerationRequest(messages=plain_messages(case, self.extract_task), output_type=Candidates,
                                    sampling=Sampling(max_new_tokens=self.extract_tokens), cache_group=case.id)
        [response] = yield [Call(request, purpose="extract", role="judge")]
        candidates: Candidates = response.unwrap()
        best = CaseVerdict(case_id=case.id, label="PASS", score=0.0, judge=self.name,
                           reason="No candidate was scored.")
        for candidate in candidates.potential_hallucinations:
            task = self.score_task.format(statement=candidate.statement, reasoning=candidate.reasoning)
            request = GenerationRequest(messages=plain_messages(case, task), output_type=CandidateScore,
                                        sampling=Sampling(max_new_tokens=self.score_tokens),
                                        cache_group=case.id)
            [response] = yield [Call(request, purpose="score", role="judge")]
            scored: CandidateScore = response.unwrap()
            if scored.score >= self.threshold:
                return CaseVerdict(case_id=case.id, label="FAIL", score=scored.score, judge=self.name,
                                   reason=f"\"{candidate.statement}\": {scored.reason}")
            if scored.score >= best.score:
                best = CaseVerdict(case_id=case.id, label="PASS", score=scored.score, judge=self.name,
                                   reason=f"\"{candidate.statement}\": {scored.reason}")
        return best


ContextVerdict = Literal["yes", "no"]


class PerContextJudge(PromptJudge):
    """DeepEval's metric: does the answer agree with each context passage? The case fails when the share
    of passages contradicted (the model's P(no) reaches 0.5) exceeds `threshold`. The reported score is
    the mean P(no) over passages, which ranks cases for AUROC (the share alone is too coarse with the
    one passage per case of HaluBench and RAGTruth, where both give the same label). Blank passages are
    not asked about."""

    name = "per-context"
    task = ("Consider only this passage of the context:\nPASSAGE: {passage}\n"
            "Does the answer agree with this passage, without contradicting it? Answer \"yes\" or \"no\".")

    def program(self, case: Case, transcript: Transcript) -> Program:
        requests = [GenerationRequest(messages=plain_messages(case, self.task.format(passage=p)),
                                      output_type=ContextVerdict, sampling=Sampling(max_new_tokens=4),
                                      cache_group=case.id) for p in case.context if p.strip()]
        responses = yield [Call(r, purpose="context", role="judge") for r in requests]
        for response in responses:
            response.unwrap()
        p_no = [float((r.option_probs or {}).get("no", 0.0)) for r in responses]
        contradicted = sum(p >= 0.5 for p in p_no)
        score = sum(p_no) / len(p_no)
        label = "FAIL" if contradicted / len(p_no) > self.threshold else "PASS"
        return CaseVerdict(case_id=case.id, label=label, score=score, judge=self.name,
                           reason=f"{contradicted} of {len(p_no)} context passages are contradicted "
                                  f"(mean P(contradicted) = {score:.2f})")


class VoteJudge(Judge):
    """Self-consistency: N sampled single judges vote; the majority decides, the score is the mean. A voter
    whose output failed (truncated) is left out of the count, and said so; a case fails only if all do."""

    name = "vote"

    def __init__(self, backend: Backend | None = None, *, votes: int = 5, temperature: float = 0.7,
                 threshold: float = 0.5, max_new_tokens: int = SINGLE_TOKEN_BUDGET, **options: Any) -> None:
        super().__init__(backend, **options)
        if votes < 1:
            raise ConfigError(f"votes {votes}: the vote needs at least one voter")
        self.votes = votes
        self.single = SingleJudge(backend, threshold=threshold, max_new_tokens=max_new_tokens,
                                  temperature=temperature)

    def options(self) -> dict[str, Any]:
        return {"votes": self.votes, "temperature": self.single.sampling.temperature,
                "threshold": self.single.threshold, "max_new_tokens": self.single.sampling.max_new_tokens}

    def prompts(self) -> dict[str, str]:
        return self.single.prompts()

    def program(self, case: Case, transcript: Transcript) -> Program:
        calls = [Call(self.single.request(case, seed=i), purpose=f"vote {i + 1}", role="judge")
                 for i in range(self.votes)]
        responses = yield calls
        counted = [r for r in responses if r.ok]
        if not counted:
            responses[0].unwrap()  # every voter failed: the case fails with the first voter's error
        scores = [r.value.score for r in counted]
        guilty = sum(s >= self.single.threshold for s in scores)
        label = "FAIL" if guilty * 2 > len(scores) else "PASS"
        failed = f" ({len(responses) - len(counted)} voters failed and are not counted)" if len(counted) < len(calls) else ""
        return CaseVerdict(case_id=case.id, label=label, score=sum(scores) / len(scores), judge=self.name,
                           reason=f"{guilty} of {len(scores)} sampled judges found a hallucination{failed}")


READINGS = ("strict", "lenient")


def read_leniently(raw: str) -> tuple[float, list[str]] | None:
    """The first top-level JSON object in `raw` that holds a numeric `score` in [0, 1], wherever it sits: inside a
    ```json fence, after prose, before trailing text. Reasons may be a list or a string, of any length.
    What the parsers of Opik and DeepEval forgive; None when no such object is found."""
    decoder = json.JSONDecoder(strict=False)
    start = raw.find("{")
    while start != -1:
        try:
            data, end = decoder.raw_decode(raw, start)
        except json.JSONDecodeError:
            start = raw.find("{", start + 1)
            continue
        score, reasons = data.get("score"), data.get("reasons", [])
        if isinstance(score, int | float) and not isinstance(score, bool) and 0.0 <= score <= 1.0:
            reasons = [reasons] if isinstance(reasons, str) else reasons
            return float(score), [str(r) for r in reasons] if isinstance(reasons, list) else []
        start = raw.find("{", end)  # a whole object without a score: look past it, not inside it
    return None


class UnstructuredJudge(SingleJudge):
    """The single judge without constraints: its free text is read back as JSON, failures counted.

    `reading="strict"` is the founding article's: `json.loads` of the whole reply, validated against the
    constrained judge's schema. `reading="lenient"` forgives what peer tools' parsers forgive (a ```json
    fence, prose around the object, over-long reasons; see `read_leniently`), so the parse-failure rate
    is not an artefact of a strict reader. A reply that neither reads is counted faithful (score 0)."""

    name = "unstructured"
    task = SingleJudge.task + (' Reply with JSON only, in this form: {"reasons": ["..."], "score": 0.0}')

    def __init__(self, backend: Backend | None = None, *, reading: str = "strict", **options: Any) -> None:
        if reading not in READINGS:
            raise ConfigError(f"reading {reading!r}: the unstructured judge reads replies {' or '.join(READINGS)}")
        options["constrained"] = False
        super().__init__(backend, **options)
        self.reading = reading

    def options(self) -> dict[str, Any]:
        # strict runs keep the configuration (and hash) they had before lenient reading existed
        return super().options() | ({"reading": self.reading} if self.reading != "strict" else {})

    def read(self, response: GenerationResponse) -> tuple[float, list[str]] | None:
        if self.reading == "strict" or response.ok:
            return super().read(response)
        return read_leniently(response.raw)


BASELINES: dict[str, type[Judge]] = {
    "single": SingleJudge, "two-step": TwoStepJudge, "rails": RailsJudge, "per-context": PerContextJudge,
    "vote": VoteJudge, "unstructured": UnstructuredJudge,
}
