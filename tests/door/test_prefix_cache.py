"""The radix prefix cache returns the longest cached prefix, split at the right tokens."""

from __future__ import annotations

import torch

from courtroom.door.prefix_cache import PrefixCache


def kv_for(ids: list[int]) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """Fake 2-layer KV whose entries encode the token id, so slices can be checked."""
    t = torch.tensor(ids, dtype=torch.float32).view(1, 1, -1, 1)
    return [(t.clone(), -t.clone()), (t * 10, -t * 10)]


def flat(match, layer: int = 0) -> list[int]:
    return [int(x) for seg in match.segments for x in seg[layer][0].flatten().tolist()]


def test_longest_prefix_and_split() -> None:
    cache = PrefixCache()
    a = [1, 2, 3, 4, 5]
    cache.insert("case", a, 0, kv_for(a))
    b = [1, 2, 3, 9, 9, 9]
    match = cache.lookup("case", b, max_length=len(b) - 1)
    assert match.length == 3 and flat(match) == [1, 2, 3]
    cache.insert("case", b, 3, kv_for(b[3:]))  # splits the first node after [1, 2, 3]
    assert flat(cache.lookup("case", a, 10)) == a
    assert flat(cache.lookup("case", b, 10)) == b
    assert flat(cache.lookup("case", b, 10), layer=1) == [10 * x for x in b]


def test_max_length_and_groups_are_respected() -> None:
    cache = PrefixCache()
    ids = [7, 8, 9]
    cache.insert("one", ids, 0, kv_for(ids))
    assert cache.lookup("one", ids, max_length=2).length == 2
    assert cache.lookup("two", ids, max_length=3).length == 0
    assert "one" in cache
    cache.release("one")
    assert cache.lookup("one", ids, 3).length == 0 and "one" not in cache
