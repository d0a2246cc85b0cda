"""A pseudo-model for the scripted backend: valid, deterministic answers to any request (choice probabilities,
per-token log-probabilities, a JSON instance of the schema, free text that sometimes does not parse), each
number a hash of what was asked: a court end to end without a model (`ScriptedBackend(PseudoModel())`), and
golden transcripts."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from courtroom.door.observe import TokenIndex, direction_key, projected_means, span_means
from courtroom.door.requests import GenerationRequest, Observation
from courtroom.door.scripted import Scored, Unparseable
from courtroom.door.token_spans import end_to_end

WORDS = ("the", "context", "states", "answer", "claim", "year", "supported", "unclear", "record", "sentence")


class PseudoModel:
    """A script function for `ScriptedBackend`: deterministic, content-derived outputs for any request."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def unit(self, *parts: Any) -> float:
        """A number in [0, 1) determined by `parts` (and the seed)."""
        digest = hashlib.sha256(json.dumps([self.seed, *parts], default=str).encode()).digest()
        return int.from_bytes(digest[:8], "big") / 2**64

    def __call__(self, request: GenerationRequest) -> Any:
        spec = request.spec
        prompt = "\n".join(m.content for m in request.messages)
        key = (prompt, spec.key, request.sampling.seed)
        if spec.kind == "choice" and len(spec.options) == 1:
            scored = self._scored(prompt, spec.options[0])
            if request.observe is not None:
                scored.observed = self._observed(prompt, scored, request.observe)
            return scored
        if spec.kind == "choice":
            return {o: 0.05 + self.unit(key, o) for o in spec.options}
        if not request.constrained:
            return self._free_text(key)
        quotes = _answer_sentences(prompt)
        return _instance(json.loads(spec.schema or "{}"), lambda *p: self.unit(key, *p), quotes=quotes)

    def _scored(self, prompt: str, text: str) -> Scored:
        """Per-word log-probabilities of a text; with the context shown, words the context uses gain."""
        pieces = re.findall(r"\S+\s*", text) or [text]
        tokens = []
        for i, word in enumerate(pieces):
            base = -0.5 - 4.0 * self.unit("lp", word.strip(), i)
            gain = 0.0
            # a word the context uses gains on average; any word may gain or lose a little
            if "CONTEXT:" in prompt:
                used = word.strip(" .,;:!?\"'").lower() in prompt.lower()
                gain = (0.6 if used else -0.2) + 1.6 * (self.unit("gain", word.strip(), i) - 0.5)
            tokens.append((word, base + gain))
        consumed = "".join(w for w, _ in tokens)
        if consumed != text:  # leading whitespace the split left out
            tokens[0] = (text[: len(text) - len(consumed)] + tokens[0][0], tokens[0][1])
        return Scored({text: sum(lp for _, lp in tokens)}, tokens=tokens)

    def _observed(self, prompt: str, scored: Scored, observe: Observation) -> dict[str, Any]:
        """Pseudo-observations of a scored text (2 layers of 2 heads, hidden states of 4 dimensions): each
        token's attention to the prompt is higher where its log-probability rose with the context."""
        assert scored.tokens is not None
        ratios = [[[round(0.2 + 0.6 * self.unit("att", word, i, layer, head), 4) for head in range(2)]
                   for layer in range(2)] for i, (word, _) in enumerate(scored.tokens)]
        hidden = [[[round(self.unit("h", word, i, depth, d) - 0.5, 3) for d in range(4)]
                   for depth in observe.hidden]
                  for i, (word, _) in enumerate(scored.tokens)]
        index = TokenIndex(end_to_end([word for word, _ in scored.tokens]))
        members = [index.within(a, b) for a, b in observe.spans]
        words = [index.within(a, b) for a, b in observe.hidden_only]
        out = {"lookback": span_means(ratios, members),
               "hidden": span_means(hidden, members + words, digits=3),
               "token_lookback": [round(sum(sum(layer) for layer in r) / 4, 4) for r in ratios]}
        if observe.project_words:  # one depth (`Observation` checks): each word's state projected, one number
            states = [token[0] for token in hidden]
            out["hidden"][len(members):] = ([[p]
                                             for p in projected_means(states, words, observe.project_words)])
            out["projected_words"] = direction_key(observe.project_words)
        return out

    def _free_text(self, key: tuple[Any, ...]) -> Any:
        """Free text as small models write it: JSON, JSON in a fence, or prose that does not parse."""
        score = round(self.unit(key, "score"), 2)
        reply = json.dumps({"reasons": [_sentence(lambda *p: self.unit(key, *p), 40)], "score": score})
        kind = self.unit(key, "kind")
        if kind < 0.4:
            return reply
        if kind < 0.7:
            return Unparseable(f"Here is my verdict:\n```json\n{reply}\n```")
        return Unparseable("The answer looks mostly fine to me.")


QUOTE_FIELDS = ("quote", "statement")
"""String fields that copy words of the answer: filled with a sentence of the fenced answer, most of the
time."""


def _answer_sentences(prompt: str) -> tuple[str, ...]:
    """The sentences of the answer fenced in a prompt (none when the prompt fences no answer)."""
    match = re.search(r"\n(=+(?: [0-9a-f]+ =+)?)\n(.*?)\n\1", prompt, re.S)
    return tuple(s for s in re.split(r"(?<=[.!?])\s+", match.group(2).strip()) if s) if match else ()


def _sentence(unit: Any, limit: int) -> str:
    return " ".join(WORDS[int(unit("w", i) * len(WORDS))] for i in range(8))[:limit].strip() or "x"


def _instance(schema: dict[str, Any], unit: Any, defs: dict[str, Any] | None = None, path: str = "",
              quotes: tuple[str, ...] = ()) -> Any:
    """A value valid under a JSON schema (the subset pydantic writes for our output types)."""
    defs = defs if defs is not None else schema.get("$defs", {})
    if "$ref" in schema:
        return _instance(defs[schema["$ref"].split("/")[-1]], unit, defs, path, quotes)
    for union in ("anyOf", "oneOf"):
        if union in schema:
            options = schema[union]
            return _instance(options[int(unit(path, union) * len(options))], unit, defs, path, quotes)
    kind = schema.get("type")
    if "enum" in schema:
        return schema["enum"][int(unit(path, "enum") * len(schema["enum"]))]
    if "const" in schema:
        return schema["const"]
    if kind == "object":
        return {name: _instance(sub, unit, defs, f"{path}.{name}", quotes)
                for name, sub in schema.get("properties", {}).items()}
    if kind == "array":
        low = schema.get("minItems", 0)
        high = max(low, min(schema.get("maxItems", low + 2), low + 2))
        count = low + int(unit(path, "n") * (high - low + 1))
        return [_instance(schema.get("items", {}), unit, defs, f"{path}[{i}]", quotes) for i in range(count)]
    if kind == "integer":
        low, high = schema.get("minimum", 0), schema.get("maximum", 9)
        return low + int(unit(path) * (high - low + 1))
    if kind == "number":
        low, high = schema.get("minimum", 0.0), schema.get("maximum", 1.0)
        return round(low + unit(path) * (high - low), 2)
    if kind == "boolean":
        return unit(path) < 0.5
    limit = schema.get("maxLength", 60)
    if quotes and path.rsplit(".", 1)[-1] in QUOTE_FIELDS and unit(path, "copy") < 0.7:
        return quotes[int(unit(path, "which") * len(quotes))][:limit]
    if "pattern" in schema:  # a sentence of a move (`court.moves.ONE_SENTENCE`): capitalised, full stop
        return _sentence(lambda *p: unit(path, *p), 100).capitalize() + "."
    return _sentence(lambda *p: unit(path, *p), limit)
