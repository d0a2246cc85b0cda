"""A script for the fake backend that plays a whole court, chosen per role and call kind."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from courtroom.court.moves import VerdictChoice
from courtroom.door import Scored
from courtroom.door.requests import GenerationRequest
from courtroom.text.sentences import split

MOVE_ROLES = {frozenset({"argue", "withdraw"}): "prosecutor", frozenset({"rebut", "concede"}): "defender",
              frozenset({"rule", "next_round"}): "judge", frozenset({"to_jury", "next_round"}): "judge",
              frozenset({"question", "rest"}): "cross"}


@dataclass
class CourtScript:
    """Answers court calls: the clerk's charges, each role's move, payloads, and verdict probabilities.

    `moves` maps a role to the moves it makes in order (the last one repeats); `p_hallucinated` is the
    judge's (or each juror's, in order) probability of `hallucinated`.
    """

    charges: list[dict[str, str]] | dict[str, list[dict[str, str]]] = field(default_factory=list)
    suspect: dict[str, float] = field(default_factory=dict)
    """score-mode clerk: P(suspect) of answer sentences containing a key (others 0.1)."""
    grounding: dict[str, float] = field(default_factory=dict)
    """grounding of statements containing a key in the whole context (others 1.0, well grounded)."""
    cited_grounding: dict[str, float] = field(default_factory=dict)
    """grounding of statements containing a key in the sentences the defence cited (default: as above)."""
    word_grounding: dict[str, float] = field(default_factory=dict)
    """grounding of single words containing a key, in any context (overrides their sentence's)."""
    sentence_grounding: dict[str, float] = field(default_factory=dict)
    """grounding of every word (but `word_grounding`'s) after a prompt of one context sentence holding a key (the
    court's reading of a charge against each sentence alone)."""
    moves: dict[str, list[str]] = field(default_factory=dict)
    p_hallucinated: float | list[float] = 0.8
    first_reading: float = 0.5
    says_yes: float = 0.5
    """The verdict witness: the model's P(yes) to a yes/no question after the context."""
    """P(hallucinated) of the one-word question (`factual` or `hallucinated`) about the whole answer."""
    move_p: float = 0.9
    context_sentences: int = 1
    """A grounding prompt citing at least this many numbered sentences holds the whole context."""
    payloads: dict[str, dict[str, Any]] = field(default_factory=dict)
    """The payload of a move, by the move's name (else each text field says what it is)."""
    seen: list[str] = field(default_factory=list)
    _counts: dict[str, int] = field(default_factory=dict)

    def _next(self, key: str, options: list[Any]) -> Any:
        n = self._counts.get(key, 0)
        self._counts[key] = n + 1
        return options[min(n, len(options) - 1)]

    def __call__(self, request: GenerationRequest) -> Any:
        spec = request.spec
        prompt = request.messages[-1].content
        case_key = request.cache_group or ""
        if spec.name == "Indictment":
            self.seen.append("indict")
            charges = self.charges.get(case_key, []) if isinstance(self.charges, dict) else self.charges
            return {"charges": charges}
        if spec.kind == "choice" and len(spec.options) == 1 and "ANSWER UNDER JUDGMENT" not in prompt:  # a measure
            [text] = spec.options
            self.seen.append("ground")
            # one token per word; every word gains its sentence's grounding from the context (0 without it)
            tokens = []
            numbered = re.findall(r"^\[\d+\] (.*)$", prompt, flags=re.MULTILINE)
            alone = next((v for k, v in self.sentence_grounding.items() if k in numbered[0]), None) \
                if len(numbered) == 1 else None
            for sentence in split(text, render=False) or (text,):
                full = next((v for k, v in self.grounding.items() if k in sentence), 1.0)
                cited = next((v for k, v in self.cited_grounding.items() if k in sentence), full)
                is_full = prompt.count("\n[") >= self.context_sentences
                by_context = full if is_full else cited
                for word in re.findall(r"\S+\s*", sentence):
                    value = next((v for k, v in self.word_grounding.items() if k in word),
                                 by_context if alone is None else alone)
                    tokens.append((word, 0.0 if "CONTEXT:" not in prompt else value))
            pieces, rest = [], text  # the words again, with the spaces between sentences
            for word, value in tokens:
                start = rest.index(word.rstrip())
                pieces.append((rest[:start + len(word.rstrip())], value))
                rest = rest[start + len(word.rstrip()):]
            pieces[-1] = (pieces[-1][0] + rest, pieces[-1][1])
            return Scored({text: sum(v for _, v in pieces)}, tokens=pieces)
        if spec.kind == "choice" and set(spec.options) == {"yes", "no"} and "ANSWER SENTENCE" in prompt:
            self.seen.append("indict")
            sentence = re.search(r'ANSWER SENTENCE \d+ of \d+: "(.*)"', prompt).group(1)
            p = next((v for k, v in self.suspect.items() if k in sentence), 0.1)
            return {"yes": p, "no": 1 - p}
        if spec.kind == "choice" and set(spec.options) == {"yes", "no"}:  # the verdict witness: the model's own yes or no
            self.seen.append("says yes")
            return {"yes": self.says_yes, "no": 1 - self.says_yes}
        if spec.kind == "choice" and set(spec.options) == {"factual", "hallucinated"}:
            self.seen.append("first reading")
            return {"hallucinated": self.first_reading, "factual": 1 - self.first_reading}
        if spec.kind == "choice" and set(spec.options) == set(VerdictChoice.__args__):
            self.seen.append("verdict")
            p = self.p_hallucinated
            if isinstance(p, list):
                p = self._next(f"{case_key}:verdict", p)
            return {"hallucinated": p, "supported": 1 - p}
        if spec.kind == "choice":
            role = MOVE_ROLES[frozenset(spec.options)]
            charge = re.search(r"CHARGE (\d+)", prompt).group(1)
            move = self._next(f"{case_key}:{charge}:{role}", self.moves.get(role, [spec.options[0]]))
            self.seen.append(f"{role}:{move}")
            return {o: (self.move_p if o == move else (1 - self.move_p) / (len(spec.options) - 1)) for o in spec.options}
        move = re.search(r"Your move: (\w+)", prompt).group(1)
        self.seen.append(f"payload:{move}")
        fields = {name: f"The {move.replace('_', ' ')} text." for name in spec.output_type.model_fields}
        return {**fields, **self.payloads.get(move, {})}
