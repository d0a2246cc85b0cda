"""Where a served model's tokens lie in a text it scored, from the token strings its log-probabilities carry.

A server writes each token as it decodes alone, so a string's length is not the token's part of the text: a
byte-level token holding part of a character's UTF-8 bytes comes as U+FFFD (OpenAI: `bytes:\\xe2\\x80`), and a
SentencePiece token may lose its leading space. `token_spans` finds each token's bytes in the text's."""

from __future__ import annotations

import itertools
import re

REPLACEMENT = "\ufffd"
"""What a token holding part of a character's UTF-8 bytes decodes to alone (as servers write each token)."""


def end_to_end(pieces: list[str]) -> list[tuple[int, int]]:
    """The character spans of strings laid end to end."""
    ends = list(itertools.accumulate(map(len, pieces)))
    return list(zip([0, *ends[:-1]], ends))


def decoded(token: str) -> str:
    """A token string as text: OpenAI's form of bytes that are not UTF-8 (`bytes:\\xe2\\x80`) decoded, a part
    of a character as `REPLACEMENT`."""
    if not token.startswith("bytes:"):
        return token
    raw = re.sub(r"\\x([0-9a-fA-F]{2})", lambda m: chr(int(m[1], 16)), token[len("bytes:"):])
    return raw.encode("latin-1", errors="replace").decode("utf-8", errors="replace")


def token_spans(tokens: list[str], text: str) -> list[tuple[int, int]] | None:
    """Each token's character span in `text`, the text the tokens make, or None when they do not make it.

    Measured by the strings' lengths (see the module), every later token (and the words the witnesses read off
    them) would shift. So the tokens are cut from the text's bytes, in order, each cut decoding (replacing
    what is not UTF-8) to the token's string; a token spans the characters its bytes are part of, as a
    tokenizer's offsets do. Tokens after the text (the end of a turn) span nothing at its end. Where several
    cuts fit (a run of split characters), one is taken: the tokens after the run keep their place."""
    pieces = [decoded(t) for t in tokens]
    if "".join(pieces) == text:
        return _held_back(end_to_end(pieces), text)
    data = text.encode()
    char_at = [i for i, character in enumerate(text) for _ in character.encode()] + [len(text)]
    # after each token: the byte positions it can end at -> where it began
    cuts: list[dict[int, int]] = [{0: 0}]
    for piece in pieces:
        split = piece.count(REPLACEMENT)  # each stands for 1 to 3 bytes
        shortest = len(piece.replace(REPLACEMENT, "").encode()) + split
        ends: dict[int, int] = {}
        for begin in cuts[-1]:
            if begin == len(data):
                ends.setdefault(begin, begin)  # past the text: the end of a turn
                continue
            for end in range(begin + shortest, min(begin + shortest + 2 * split + 1, len(data)) + 1):
                cut = data[begin:end].decode("utf-8", errors="replace")
                if cut == piece or (cut.startswith(" ") and cut[1:] == piece):  # a lost leading space
                    ends.setdefault(end, begin)
        if not ends:
            return None
        cuts.append(ends)
    if len(data) not in cuts[-1]:
        return None
    bounds = [len(data)]
    for ends in reversed(cuts[1:]):
        bounds.append(ends[bounds[-1]])
    bounds.reverse()
    spans = [(char_at[a], char_at[b - 1] + 1) if b > a else (char_at[a], char_at[a])
             for a, b in zip(bounds, bounds[1:])]
    return _held_back(spans, text)


def _held_back(spans: list[tuple[int, int]], text: str) -> list[tuple[int, int]]:
    """Tokens a server wrote as nothing because it held back a character's first bytes until the token
    completing it (vLLM does): the first such token spans what the completing token's text does, and the rest
    of the run and the completing token the character they share, as a tokenizer's offsets give them."""
    out = list(spans)
    i = 0
    while i < len(out):
        j = i
        while j < len(out) and out[j][0] == out[j][1]:
            j += 1
        if j > i and j < len(out) and len(text[out[j][1] - 1].encode()) > 1:
            start, end = out[j]
            out[i] = (start, end)
            out[i + 1:j + 1] = [(end - 1, end)] * (j - i)
        i = max(j, i + 1)
    return out
