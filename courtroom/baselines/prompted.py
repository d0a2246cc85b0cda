"""Baselines with fixed prompts and a decision threshold: `rails` (Phoenix's one word), `two-step` (the
founding article's) and `per-context` (DeepEval's verdict per passage)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from courtroom.baselines.budget import REASON_CHARS, STATEMENT_CHARS, Reason, token_budget
from courtroom.case import Case, CaseVerdict
from courtroom.door.backend import Backend
from courtroom.door.requests import GenerationRequest, Sampling
from courtroom.engine.judge import Judge
from courtroom.engine.lockstep import Call, Program, Transcript
from courtroom.engine.plain import JUDGE_SYSTEM, RAILS_TASK, p_hallucinated, plain_messages, rails_request
from courtroom.engine.registry import register_judge


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


@register_judge
class RailsJudge(PromptJudge):
    """One word, `factual` or `hallucinated`; the score is the model's probability of `hallucinated`."""

    name = "rails"
    task = RAILS_TASK

    def program(self, case: Case, transcript: Transcript) -> Program:
        [response] = yield [Call(rails_request(case, self.prompt_format), purpose="classify", role="judge")]
        p = p_hallucinated(response)
        return CaseVerdict(case_id=case.id, label="FAIL" if p >= self.threshold else "PASS", score=p,
                           judge=self.name, reason=f"the model answers {response.value!r} (P(hallucinated) = "
                                                   f"{p:.2f})")


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


@register_judge
class TwoStepJudge(PromptJudge):
    """The founding article's multi-step judge: up to 3 candidates, each scored, stop at the first
    hallucinated one; the case's score is the highest candidate score. As in the article, the first step
    always names candidates (a first step allowed to answer "none" made small models name none at all) and the
    second decides."""

    name = "two-step"
    extract_task = ("List up to 3 statements of the answer that are the most likely to be hallucinated: not "
                    "stated in the context, or in conflict with it. Copy each statement from the answer and "
                    "say why it may be unsupported. The next step checks each one, so list the most doubtful "
                    "statements even when they may turn out to be supported.")
    score_task = ("Examine this statement from the answer, which was flagged as a potential hallucination:\n"
                  "STATEMENT: {statement}\nWHY IT WAS FLAGGED: {reasoning}\nCheck it against the context. "
                  "Score 1.0 if the context does not support it or contradicts it, 0.0 if the context "
                  "supports it. Give a short reason first.")

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
        request = GenerationRequest(messages=plain_messages(case, self.extract_task, self.prompt_format),
                                    output_type=Candidates,
                                    sampling=Sampling(max_new_tokens=self.extract_tokens),
                                    cache_group=case.id)
        [response] = yield [Call(request, purpose="extract", role="judge")]
        candidates: Candidates = response.unwrap()
        best = CaseVerdict(case_id=case.id, label="PASS", score=0.0, judge=self.name,
                           reason="No candidate was scored.")
        for candidate in candidates.potential_hallucinations:
            task = self.score_task.format(statement=candidate.statement, reasoning=candidate.reasoning)
            request = GenerationRequest(messages=plain_messages(case, task, self.prompt_format),
                                        output_type=CandidateScore,
                                        sampling=Sampling(max_new_tokens=self.score_tokens),
                                        cache_group=case.id)
            [response] = yield [Call(request, purpose="score", role="judge")]
            scored: CandidateScore = response.unwrap()
            verdict = CaseVerdict(case_id=case.id, label="FAIL" if scored.score >= self.threshold else "PASS",
                                  score=scored.score, judge=self.name,
                                  reason=f"\"{candidate.statement}\": {scored.reason}")
            if verdict.label == "FAIL":
                return verdict
            if scored.score >= best.score:
                best = verdict
        return best


ContextVerdict = Literal["yes", "no"]


@register_judge
class PerContextJudge(PromptJudge):
    """DeepEval's metric: does the answer agree with each context passage? The case fails when the share of
    passages contradicted (P(no) reaches 0.5) exceeds `threshold`; the score is the mean P(no), which ranks
    cases for AUROC. Blank passages are not asked about."""

    name = "per-context"
    task = ("Consider only this passage of the context:\nPASSAGE: {passage}\n"
            "Does the answer agree with this passage, without contradicting it? Answer \"yes\" or \"no\".")

    def program(self, case: Case, transcript: Transcript) -> Program:
        requests = [GenerationRequest(messages=plain_messages(case, self.task.format(passage=p),
                                                              self.prompt_format),
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
