"""Self-consistency: N sampled single judges vote, the majority decides."""

from __future__ import annotations

from typing import Any

from courtroom.baselines.budget import SINGLE_TOKEN_BUDGET
from courtroom.baselines.single import SingleJudge
from courtroom.case import Case, CaseVerdict
from courtroom.door.backend import Backend
from courtroom.engine.judge import Judge
from courtroom.engine.lockstep import Call, Program, Transcript
from courtroom.engine.registry import register_judge
from courtroom.errors import ConfigError


@register_judge
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
                                  temperature=temperature, prompt_format=self.prompt_format)

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
        failed = (f" ({len(responses) - len(counted)} voters failed and are not counted)"
                  if len(counted) < len(calls) else "")
        return CaseVerdict(case_id=case.id, label=label, score=sum(scores) / len(scores), judge=self.name,
                           reason=f"{guilty} of {len(scores)} sampled judges found a hallucination{failed}")
