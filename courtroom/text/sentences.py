"""Sentences: how a context or an answer is cut into the numbered statements the court cites and charges, by
`regex` (kept for runs recorded with it) or `structured` (records, tables, list items and lines first, then
prose past abbreviations, initials and decimals). A context's are rendered; an answer's cut verbatim
(`render=False`)."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Iterator
from functools import lru_cache
from itertools import accumulate
from typing import Any, Literal, get_args

SentenceSplitter = Literal["regex", "structured"]
"""How a text is cut into sentences (see the module's docstring)."""
SPLITTERS: tuple[str, ...] = get_args(SentenceSplitter)
SPLITTER: SentenceSplitter = "structured"
"""The splitter of new courts; `regex` is kept for runs recorded with it."""

_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]*[A-Z0-9])|\n+")
"""The `regex` splitter (courtroom 0.1 to 0.3), unchanged."""


@lru_cache(maxsize=4096)
def split(text: str, splitter: SentenceSplitter = SPLITTER, render: bool = True) -> tuple[str, ...]:
    """The non-empty sentences of `text` by `splitter`: rendered, or verbatim substrings (`render=False`)."""
    if splitter == "regex":
        parts = (p.strip() for p in _SENTENCE_END.split(text))
    elif splitter == "structured":
        parts = (_collapse(p) if render else p.strip() for p in structured_sentences(text, render))
    else:
        raise ValueError(f"unknown sentence splitter {splitter!r}; choose one of {SPLITTERS}")
    return tuple(p for p in parts if p)


def sentence_spans(text: str, splitter: SentenceSplitter = SPLITTER) -> tuple[tuple[int, int], ...]:
    """Where each sentence of `text` (cut verbatim, as an answer's are) begins and ends in it, in order."""
    spans, cursor = [], 0
    for sentence in split(text, splitter, render=False):
        start = text.find(sentence, cursor)
        if start < 0:  # a piece not found verbatim (cannot happen with render=False): where it first occurs
            start = max(text.find(sentence), 0)
        spans.append((start, start + len(sentence)))
        cursor = max(cursor, start + len(sentence))
    return tuple(spans)


# -- prose ---------------------------------------------------------------------------------------------
TITLES = frozenset("""mr mrs ms mx dr prof sr jr st mt ft gen col lt sgt capt cmdr adm maj rev hon gov sen rep
    pres supt insp messrs mme mlle vs v cf viz al approx ca fl esp resp dept univ assn bros""".split())
"""Abbreviations a sentence does not end at, whatever follows ("Dr. Smith", "et al. (2019)", "approx. 40")."""
BEFORE_NUMBERS = frozenset("""no nos vol vols p pp fig figs eq eqs art sec ch pt ref tel tab para
    jan feb mar apr jun jul aug sep sept oct nov dec""".split())
"""Abbreviations a sentence does not end at when a number follows ("Fig. 2", "No. 5", "Dec. 31")."""
INITIALISMS = frozenset({"e.g", "i.e", "u.s", "u.k", "u.n", "e.u", "ph.d", "m.d", "b.a", "m.a", "b.sc",
                         "m.sc", "d.c", "u.s.a", "n.b", "a.k.a", "et.al"})
"""Dotted abbreviations a sentence does not end at ("e.g.", "U.S."); other dotted letters ("p.m.") may end
one."""

_OPENERS = "\"'“‘(["
_CLOSERS = "\"'”’)]"
_CANDIDATE = re.compile(r"(?:\.{2,}|…|[.!?]+)[\"'”’)\]]*(?=\s+[\"'“‘(\[]*\w)|(?<=[a-z]{2})\.(?=[A-Z][a-z])")
"""End punctuation (with its closing quotes and brackets) before a space and a word, or a period glued to
a capitalised word ("Manhattan.The"): the places a sentence may end."""
_MARKER = re.compile(r"\s*(?:[-*•·▪◦‣–—]|\(?(?:\d{1,3}|[A-Za-z]|[ivxIVX]{1,4})[.)])")
"""A list item's marker ("-", "2.", "b)", "(iv)")."""


def prose_sentences(text: str) -> list[str]:
    """Sentences of a run of prose, verbatim, cut where `_ends_sentence` says a sentence ends."""
    out, start = [], 0
    for match in _CANDIDATE.finditer(text):
        end = match.end()
        if not _ends_sentence(text, start, match.start(), end):
            continue
        out.append(text[start:end])
        start = end
    out.append(text[start:])
    return [s.strip() for s in out if s.strip()]


def _ends_sentence(text: str, start: int, punct: int, end: int) -> bool:
    """Whether the end punctuation at `punct` (its closers up to `end`) ends the sentence begun at `start`."""
    rest = text[end:].lstrip()
    following = rest.lstrip(_OPENERS)[:1]
    if not following or not (following.isupper() or following.isdigit()):
        return False  # "e.g. the", "Yahoo! is": a sentence starts with a capital or a figure
    said = text[start:end]
    if (said.count('"') % 2 and '"' in text[end:]) or said.count("“") > said.count("”") and "”" in text[end:]:
        return False  # inside a quotation that closes further on: "Great tacos. We'll be back!"
    mark = text[punct:end].rstrip(_CLOSERS)
    if mark != ".":
        return True  # "?", "!", "..." and "…" end a sentence before a capital
    word = text[start:punct].rsplit(None, 1)[-1] if text[start:punct].strip() else ""
    if "/" in word or "@" in word or word.lower().startswith("www"):
        return False  # a URL or an address
    bare = word.lstrip(_OPENERS)
    if len(bare) > 1 and bare.isupper() and "." not in bare:
        return True  # an acronym ("CA", "NASA") is no abbreviation: "in Santa Barbara, CA. It"
    bare = bare.lower()
    if bare in TITLES or (bare in BEFORE_NUMBERS and following.isdigit()) or bare in INITIALISMS:
        return False
    if len(bare) == 1 and bare.isalpha():
        return False  # an initial: "J. R. Smith"
    if re.fullmatch(r"(?:[a-z]\.)+[a-z]", bare) and bare not in ("a.m", "p.m"):
        return False  # dotted letters: "U.S.", "Ph.D."
    if _MARKER.fullmatch(said) or re.search(r":\s+\d{1,3}$", text[start:punct]):
        return False  # the marker of a list item ("2." before its text, "Steps: 1. Mix")
    return True


# -- structure -----------------------------------------------------------------------------------------
_CELLS = re.compile(r"[\s$€£¥%()\[\]\-–—+.,:;/*0-9]+")
"""A line of figures only ("$", "4,835", "(765.2)", "12%"): the cells of a row whose label is the line
above."""
_LONE_MARKER = re.compile(r"(?:\d{1,3}|[A-Za-z])[.)]")
"""A numbered item's marker alone on its line, before the item's text (a lone "-" is a cell: nil)."""
_BORDER = re.compile(r"[\s|+\-=:_]+")
"""A table's rule line ("|---|:--:|", "+----+----+")."""


def structured_sentences(text: str, render: bool = True,
                         prose: Callable[[str], list[str]] = prose_sentences) -> list[str]:
    """The sentences of a text, structure first (literals, tables, lists, lines), then its prose cut by
    `prose`."""
    return ([s for kind, piece in _pieces(text, render)
             for s in (prose(piece) if kind == "prose" else [piece])])


def _pieces(text: str, render: bool) -> Iterator[tuple[str, str]]:
    """("prose", a line or a labelled row to cut into sentences) and ("done", a sentence as it stands)."""
    lines = text.split("\n")
    starts = [0, *accumulate(len(line) + 1 for line in lines)]
    header: list[str] | None = None
    pending: list[str] = []  # a line and the lines of figures that belong to it
    marker = ""  # a list marker alone on its line, for the line after it
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        if render and line.startswith(("{", "[")) and line.endswith(("}", "]", ",", "{", "[")):
            found = _literal(text, starts[i] + lines[i].index(line[0]))
            if found is not None:
                value, end = found
                yield from _flush(pending)
                pending = []
                yield from (("done", r) for r in records(value))
                while starts[i + 1] <= end:  # on to the line after the one the literal ends on
                    i += 1
                i += 1
                continue
        if not line:
            i += 1
            continue
        if line.count("|") >= 2 and (line.startswith("|") or line.endswith("|") or line.count("|") >= 3):
            yield from _flush(pending)
            pending = []
            if _is_rule(line):
                i += 1
                continue
            cells = [c.strip() for c in line.strip("|").split("|")]
            following = lines[i + 1].strip() if i + 1 < len(lines) else ""
            if _is_rule(following) and "-" in following:
                header, i = cells, i + 2  # a header row: its names go to the cells of the rows below
                continue
            if not render:
                yield "done", line
            elif header is not None and len(header) == len(cells):
                yield "done", "; ".join(f"{h}: {c}" if h else c for h, c in zip(header, cells) if c)
            else:
                yield "done", " | ".join(c for c in cells if c)
            i += 1
            continue
        header = None
        if _is_rule(line) and "|" not in line and len(line) > 2 and not any(ch.isdigit() for ch in line):
            i += 1  # a rule line of an ASCII table
            continue
        if render and _LONE_MARKER.fullmatch(line):
            marker, i = line + " ", i + 1
            continue
        if render and _CELLS.fullmatch(line) and pending:
            pending.append(line)
        else:
            yield from _flush(pending)
            pending = [marker + line]
        marker = ""
        i += 1
    yield from _flush(pending)


def _flush(pending: list[str]) -> Iterator[tuple[str, str]]:
    if pending:
        yield "prose", " ".join(pending)


def _is_rule(line: str) -> bool:
    return bool(line) and _BORDER.fullmatch(line) is not None


def _literal(text: str, start: int) -> tuple[Any, int] | None:
    """The JSON (or Python literal) object or array that starts at `start` and ends its line, and its end; or
    None."""
    end = _closing(text, start)
    if end is None or text[end:].split("\n", 1)[0].strip():
        return None
    source = text[start:end]
    try:
        value = json.loads(source)
    except (ValueError, RecursionError):  # a literal nested too deep reads as text
        try:
            value = ast.literal_eval(source)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return None
    if not isinstance(value, (dict, list)) or not value or (isinstance(value, list) and all(
            not isinstance(v, (dict, list)) for v in value) and "\n" not in source and len(value) < 3):
        return None  # "[1]" or "[Music]" before a line of text is no data record
    return value, end


def _closing(text: str, start: int) -> int | None:
    """The index after the bracket that closes the one at `start` (quoted strings skipped), or None."""
    depth, quote, escaped = 0, "", False
    for i in range(start, len(text)):
        ch = text[i]
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return i + 1
    return None


def records(value: Any) -> list[str]:
    """A JSON object or array as sentences: one per top-level field (`key: value`), and one per record of a
    field that holds a list of records (`key: field: value, field: value`)."""
    items = value.items() if isinstance(value, dict) else ((None, v) for v in value)
    out = []
    for key, item in items:
        label = "" if key is None else f"{key}: "
        if isinstance(item, list) and item and all(isinstance(v, dict) for v in item):
            out.extend(label + _inline(v, 0) for v in item)
        else:
            out.append(label + _inline(item, 0))
    return out


def _inline(value: Any, depth: int) -> str:
    if isinstance(value, dict):
        text = ", ".join(f"{k}: {_inline(v, depth + 1)}" for k, v in value.items()) or "(none)"
        return f"({text})" if depth and value else text
    if isinstance(value, (list, tuple)):
        text = ", ".join(_inline(v, depth + 1) for v in value) or "(none)"
        return f"({text})" if depth and len(value) > 1 else text
    if isinstance(value, str):
        return _collapse(value)
    return json.dumps(value) if value is None or isinstance(value, bool) else str(value)


def _collapse(text: str) -> str:
    return " ".join(text.split())
