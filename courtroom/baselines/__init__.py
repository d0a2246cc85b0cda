"""Single-model judges to compare the court against, on the same door and model, each after a peer tool or the
founding article, with our own prompts: `single` (reasons and a score, Opik's style), `rails` (Phoenix's one
word), `two-step` (candidates, then scores), `per-context` (a verdict per passage, DeepEval's), `vote`
(self-consistency) and `unstructured` (the single judge without constraints, counting the replies that fail to
parse)."""

from courtroom.baselines.prompted import (
                                           Candidate,
                                           Candidates,
                                           CandidateScore,
                                           PerContextJudge,
                                           PromptJudge,
                                           RailsJudge,
                                           TwoStepJudge,
)
from courtroom.baselines.single import (
                                           READINGS,
                                           SingleJudge,
                                           SingleJudgment,
                                           UnstructuredJudge,
                                           read_leniently,
)
from courtroom.baselines.vote import VoteJudge

BASELINES = tuple(judge.name for judge in (SingleJudge, TwoStepJudge, RailsJudge, PerContextJudge, VoteJudge,
                                           UnstructuredJudge))
"""The single-model judges the court is compared with (each registers itself:
`engine.registry.register_judge`)."""

__all__ = ["BASELINES", "Candidate", "CandidateScore", "Candidates", "PerContextJudge", "PromptJudge",
           "RailsJudge", "READINGS",
           "SingleJudge", "SingleJudgment", "TwoStepJudge", "UnstructuredJudge", "VoteJudge",
           "read_leniently"]
