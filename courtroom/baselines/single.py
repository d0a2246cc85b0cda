"""The single judge (one constrained call: reasons, then a score, Opik's style) and its unconstrained twin,
whose free text is read back strictly or leniently, counting the replies that fail to parse."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from courtroom.baselines.budget import MAX_REASONS, SINGLE_TOKEN_BUDGET, Reason
from courtroom.baselines.prompted import PromptJudge
from courtroom.case import Case, CaseVerdict
from courtroom.door.backend import Backend
from courtroom.door.requests import GenerationRequest, GenerationResponse, Sampling
from courtroom.engine.lockstep import Call, Program, Transcript
from courtroom.engine.plain import plain_messages
from courtroom.engine.registry import register_judge
from courtroom.errors import ConfigError


class SingleJudgment(BaseModel):
    """The single judge's output: reasons first, then the score."""

    model_config = ConfigDict(extra="forbid")

    reasons: list[Reason] = Field(max_length=MAX_REASONS)
    score: float = Field(ge=0.0, le=1.0)


@register_judge
class SingleJudge(PromptJudge):
    """One constrained call: reasons and a hallucination score in [0, 1]."""

    name = "single"
    task = ("Check every claim of the answer against the context. Give up to three short reasons, then a "
            "hallucination score between 0.0 (fully supported by the context) and 1.0 (hallucinated).")

    def __init__(self, backend: Backend | None = None, *, threshold: float = 0.5,
                 max_new_tokens: int = SINGLE_TOKEN_BUDGET, constrained: bool = True,
                 temperature: float = 0.0, **options: Any) -> None:
        super().__init__(backend, threshold=threshold, **options)
        self.sampling = Sampling(max_new_tokens=max_new_tokens, temperature=temperature)
        self.constrained = constrained

    def options(self) -> dict[str, Any]:
        return {**super().options(), "max_new_tokens": self.sampling.max_new_tokens,
                "temperature": self.sampling.temperature, "constrained": self.constrained}

    def request(self, case: Case, seed: int | None = None) -> GenerationRequest:
        sampling = self.sampling if seed is None else self.sampling.model_copy(update={"seed": seed})
        return GenerationRequest(messages=plain_messages(case, self.task, self.prompt_format),
                                 output_type=SingleJudgment,
                                 sampling=sampling, constrained=self.constrained, cache_group=case.id)

    def program(self, case: Case, transcript: Transcript) -> Program:
        [response] = yield [Call(self.request(case), purpose="judge", role="judge")]
        judgment = self.read(response)
        if judgment is None:
            return CaseVerdict(case_id=case.id, label="PASS", score=0.0, judge=self.name, parse_failures=1,
                               reason=f"unparseable output counted as faithful: {response.error}")
        score, reasons = judgment
        label = "FAIL" if score >= self.threshold else "PASS"
        return CaseVerdict(case_id=case.id, label=label, score=score,
                           reason=" ".join(reasons) or "no reason given", judge=self.name)

    def read(self, response: GenerationResponse) -> tuple[float, list[str]] | None:
        """The score and reasons of a reply, or None when it cannot be read (a constrained judge's failure
        raises)."""
        if response.ok:
            return response.value.score, list(response.value.reasons)
        if self.constrained:
            response.unwrap()
        return None


READINGS = ("strict", "lenient")


def read_leniently(raw: str) -> tuple[float, list[str]] | None:
    """The first top-level JSON object in `raw` holding a numeric `score` in [0, 1], wherever it sits (a
    ```json fence, prose around it), reasons a list or a string: what Opik's and DeepEval's parsers forgive;
    else None."""
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


@register_judge
class UnstructuredJudge(SingleJudge):
    """The single judge without constraints: its free text is read back as JSON, failures counted.
    `reading="strict"` is the founding article's `json.loads` of the whole reply; `"lenient"` forgives what
    peer tools' parsers forgive (`read_leniently`). A reply that neither reads is counted faithful (score
    0)."""

    name = "unstructured"
    task = SingleJudge.task + (' Reply with JSON only, in this form: {"reasons": ["..."], "score": 0.0}')

    def __init__(self, backend: Backend | None = None, *, reading: str = "strict", **options: Any) -> None:
        if reading not in READINGS:
            raise ConfigError(f"reading {reading!r}: the unstructured judge reads replies "
                              f"{' or '.join(READINGS)}")
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
