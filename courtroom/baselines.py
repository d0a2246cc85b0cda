"""Single-model judges to compare the court against, on the same model door and the same model.

Each one follows a peer tool or the founding article (`../shared/seeds`), with our own prompts:
- `single`: one prompt returning reasons and a hallucination score (Opik's metric style);
- `rails`: one word, `factual` or `hallucinated`, scored by its probability (Phoenix's template);
- `two-step`: extract up to 3 candidate hallucinations, score each, stop at the first hallucinated
  one (the founding article's multi-step judge);
- `per-context`: a verdict per context passage; score = contradicted passages / passages, compared
  with a threshold (DeepEval's metric);
- `vote`: self-consistency, N sampled single judges, majority vote;
- `unstructured`: the single judge without constraints, parsed with `json.loads`; it reports how
  often the model's free text fails to parse.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from courtroom.backends.base import Backend
from courtroom.case import Case, CaseVerdict
from courtroom.generation import ChatMessage, GenerationRequest, Sampling
from courtroom.judges import Judge
from courtroom.lockstep import Call, Program, Transcript
from courtroom.prompts import render_case_file

Reason = Annotated[str, Field(max_length=200)]

JUDGE_SYSTEM = (
    "You are a careful fact-checker. You decide whether an ANSWER is faithful to its CONTEXT: every "
    "claim in the answer must be stated in, or follow directly from, the context. An answer that adds "
    "facts the context does not contain, or contradicts it, is hallucinated, even if the added facts "
    "sound plausible. The question is given for orientation only."
)


class SingleJudgment(BaseModel):
    """The single judge's output: reasons first, then the score."""

    model_config = ConfigDict(extra="forbid")

    reasons: list[Reason] = Field(max_length=3)
    score: float = Field(ge=0.0, le=1.0)


RailsLabel = Literal["factual", "hallucinated"]


def _messages(case: Case, task: str) -> tuple[ChatMessage, ...]:
    return (ChatMessage(role="system", content=JUDGE_SYSTEM),
            ChatMessage(role="user", content=f"{render_case_file(case)}\n\n{task}"))


class SingleJudge(Judge):
    """One constrained call: reasons and a hallucination score in [0, 1]."""

    name = "single"
    task = ("Check every claim of the answer against the context. Give up to three short reasons, then a "
            "hallucination score between 0.0 (fully supported by the context) and 1.0 (hallucinated).")

    def __init__(self, backend: Backend | None = None, *, threshold: float = 0.5, max_new_tokens: int = 200,
                 constrained: bool = True, temperature: float = 0.0, **options: Any) -> None:
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
        return GenerationRequest(messages=_messages(case, self.task), output_type=SingleJudgment, sampling=sampling,
                                 constrained=self.constrained, cache_group=case.id)

    def program(self, case: Case, transcript: Transcript) -> Program:
        [response] = yield [Call(self.request(case), purpose="judge", role="judge")]
        if not response.ok:
            if self.constrained:
                response.unwrap()  # a constrained judge that fails is an error of the case
            return CaseVerdict(case_id=case.id, label="PASS", score=0.0, judge=self.name, parse_failures=1,
                               reason=f"unparseable output counted as faithful: {response.error}")
        judgment: SingleJudgment = response.value
        label = "FAIL" if judgment.score >= self.threshold else "PASS"
        reason = " ".join(judgment.reasons) or "no reason given"
        return CaseVerdict(case_id=case.id, label=label, score=judgment.score, reason=reason, judge=self.name)


class RailsJudge(Judge):
    """One word, `factual` or `hallucinated`; the score is the model's probability of `hallucinated`."""

    name = "rails"
    task = ("Is the answer faithful to the context? Reply with one word: \"factual\" if every claim is "
            "supported by the context, \"hallucinated\" if any claim is not.")

    def __init__(self, backend: Backend | None = None, *, threshold: float = 0.5, **options: Any) -> None:
        super().__init__(backend, **options)
        self.threshold = threshold

    def options(self) -> dict[str, Any]:
        return {"threshold": self.threshold}

    def prompts(self) -> dict[str, str]:
        return {"system": JUDGE_SYSTEM, "task": self.task}

    def program(self, case: Case, transcript: Transcript) -> Program:
        request = GenerationRequest(messages=_messages(case, self.task), output_type=RailsLabel,
                                    sampling=Sampling(max_new_tokens=8), cache_group=case.id)
        [response] = yield [Call(request, purpose="classify", role="judge")]
        response.unwrap()
        probs = response.option_probs or {}
        p_hallucinated = float(probs.get("hallucinated", 0.0))
        label = "FAIL" if p_hallucinated >= self.threshold else "PASS"
        return CaseVerdict(case_id=case.id, label=label, score=p_hallucinated, judge=self.name,
                           reason=f"the model answers {response.value!r} (P(hallucinated) = {p_hallucinated:.2f})")


BASELINES: dict[str, type[Judge]] = {"single": SingleJudge, "rails": RailsJudge}
