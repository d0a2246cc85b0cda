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

from courtroom.baselines.prompted import (
    Candidate,
    Candidates,
    CandidateScore,
    PerContextJudge,
    PromptJudge,
    RailsJudge,
    TwoStepJudge,
)
from courtroom.baselines.single import READINGS, SingleJudge, SingleJudgment, UnstructuredJudge, read_leniently
from courtroom.baselines.vote import VoteJudge

__all__ = ["Candidate", "CandidateScore", "Candidates", "PerContextJudge", "PromptJudge", "RailsJudge", "READINGS",
           "SingleJudge", "SingleJudgment", "TwoStepJudge", "UnstructuredJudge", "VoteJudge", "read_leniently"]
