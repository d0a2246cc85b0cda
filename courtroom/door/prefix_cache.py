"""A per-group radix tree of prompt tokens and their KV cache, so no prompt token is computed twice: every
prompt of a case opens the same way, so each turn reuses the longest common prefix. Nodes hold contiguous
segments; a partial match splits a node. `release(group)` drops a case's tree."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

# One KV segment: per layer a (keys, values) pair of shape [1, heads, tokens, head_dim].
Segment = list[tuple[Any, Any]]


@dataclass
class _Node:
    tokens: tuple[int, ...]
    kv: Segment
    children: dict[int, _Node] = field(default_factory=dict)


def _slice(kv: Segment, start: int, stop: int | None) -> Segment:
    return [(k[:, :, start:stop], v[:, :, start:stop]) for k, v in kv]


@dataclass
class PrefixMatch:
    """The reusable part of a prompt: its length and the KV segments that cover it, in order."""

    length: int
    segments: list[Segment]


class PrefixCache:
    """Radix trees of prompt token ids to KV segments, one tree per cache group."""

    def __init__(self) -> None:
        self._roots: dict[str, _Node] = {}

    def __contains__(self, group: str) -> bool:
        return group in self._roots

    def lookup(self, group: str, ids: Sequence[int], max_length: int) -> PrefixMatch:
        """Longest cached prefix of `ids` in `group`, at most `max_length` tokens long."""
        node = self._roots.get(group)
        segments: list[Segment] = []
        matched = 0
        while node is not None and matched < max_length:
            child = node.children.get(ids[matched]) if matched < len(ids) else None
            if child is None:
                break
            common = _common_length(child.tokens, ids[matched:])
            take = min(common, max_length - matched)
            if take <= 0:
                break
            segments.append(child.kv if take == len(child.tokens) else _slice(child.kv, 0, take))
            matched += take
            if take < len(child.tokens):
                break
            node = child
        return PrefixMatch(matched, segments)

    def insert(self, group: str, ids: Sequence[int], start: int, kv: Segment) -> None:
        """Store the KV of `ids[start:]`, given that `ids[:start]` is already cached in `group`."""
        node = self._roots.setdefault(group, _Node((), []))
        position = 0
        while position < len(ids):
            child = node.children.get(ids[position])
            if child is None:
                if position < start:
                    return  # the cached prefix was evicted meanwhile; nothing consistent to attach to
                node.children[ids[position]] = _Node(tuple(ids[position:]),
                                                     _slice(kv, position - start, len(ids) - start))
                return
            common = _common_length(child.tokens, ids[position:])
            if common < len(child.tokens):
                # split the child: the common head becomes a node with the tail as its only child
                head = _Node(child.tokens[:common], _slice(child.kv, 0, common))
                child.tokens, child.kv = child.tokens[common:], _slice(child.kv, common, None)
                head.children[child.tokens[0]] = child
                node.children[ids[position]] = head
                child = head
            position += common
            node = child

    def release(self, group: str) -> None:
        """Drop everything cached for a group and its sub-groups (`group#...`)."""
        for name in [g for g in self._roots if g == group or g.startswith(group + "#")]:
            del self._roots[name]


def _common_length(a: Sequence[int], b: Sequence[int]) -> int:
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
