"""Wrap the lines of Python files longer than the package's limit (110, docs/development.md "The budget"), in the
package's style: a docstring's or a comment's paragraph reflowed (a trailing comment moved above its line), a chain of
string literals packed again (implicitly concatenated, aligned), code broken after a comma (else before `and`, `or`,
`if`, `for` or an operator) and aligned with its open bracket, a statement without one put in parentheses first.
Every change keeps the syntax tree but for the docstrings' white space (checked, else the line is left), and wraps
more. The lines it leaves are listed, to wrap by hand (`ruff check` wraps long imports).

    python experiments/dev/wrap_long_lines.py [--limit 110] FILE_OR_FOLDER...

#61 wrapped the package with it; a change merged with lines of the old length is wrapped again the same way.
"""

from __future__ import annotations

import argparse
import ast
import io
import re
import sys
import textwrap
import tokenize
from pathlib import Path

LIMIT = 110
PRAGMA = re.compile(r"#\s*(noqa|type:\s*ignore|pragma)")
BULLET = re.compile(r"^(\s*)([-*] |\d+\. )")
OPEN, CLOSE = "([{", ")]}"


def normalized(source: str) -> str:
    """The syntax tree with every docstring's white space collapsed (what wrapping may change)."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            node.value.value = " ".join(node.value.value.split())
    return ast.dump(tree)


def tokens(source: str) -> list[tokenize.TokenInfo]:
    return list(tokenize.generate_tokens(io.StringIO(source).readline))


def docstring_tokens(source: str, toks: list[tokenize.TokenInfo]) -> set[tuple[int, int]]:
    """Start positions of the string tokens that are whole expression statements (docstrings)."""
    starts = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            starts.add((node.value.lineno, node.value.col_offset))
    found = set()
    for t in toks:
        if t.type == tokenize.STRING and t.start in starts:
            found.add(t.start)
    return found


def wrap_docstring(lines: list[str], tok: tokenize.TokenInfo, limit: int) -> bool:
    """Reflow the blocks of a docstring that hold a line longer than `limit`; True if anything changed."""
    (srow, scol), (erow, ecol) = tok.start, tok.end
    text = tok.string
    m = re.match(r'^([rRuU]?)("""|\'\'\')', text)
    if not m or not text.endswith(m.group(2)):
        return False
    prefix, quote = m.groups()
    body = text[len(prefix) + 3:-3]
    base = " " * scol
    body_lines = body.split("\n")
    first_col = scol + len(prefix) + 3
    # lines as (indent text, content); the first line starts after the quotes
    blocks: list[list[int]] = []
    current: list[int] = []
    for i, line in enumerate(body_lines):
        if line.strip():
            current.append(i)
        elif current:
            blocks.append(current)
            current = []
    if current:
        blocks.append(current)

    def width(i: int, line: str) -> int:
        extra = 3 if i == len(body_lines) - 1 else 0
        return (first_col if i == 0 else 0) + len(line) + extra

    changed = False
    out = list(body_lines)
    for block in reversed(blocks):
        if not any(width(i, body_lines[i]) > limit for i in block):
            continue
        # items: a bullet starts one; a line indented deeper than the block's first (not a bullet's continuation) is code
        items: list[list[int]] = []
        for i in block:
            if BULLET.match(body_lines[i]) or not items:
                items.append([i])
            else:
                items[-1].append(i)
        new: list[str] = []
        for item in items:
            firstline = body_lines[item[0]]
            lead = firstline[:len(firstline) - len(firstline.lstrip())] if item[0] != 0 else ""
            bullet = BULLET.match(firstline)
            marker = bullet.group(2) if bullet else ""
            words = " ".join(body_lines[i].strip() for i in item)
            if marker:
                words = words[len(marker):]
            if item[0] == 0:
                initial = " " * first_col
                subsequent = base + " " * (len(marker))
            else:
                initial = lead + marker
                subsequent = lead + " " * len(marker)
            is_last = item[-1] == len(body_lines) - 1
            wrapped = textwrap.wrap(words + ("\x00" * 3 if is_last else ""), width=limit, initial_indent=initial,
                                    subsequent_indent=subsequent, break_long_words=False, break_on_hyphens=False)
            if not wrapped:
                return False
            wrapped[-1] = wrapped[-1].replace("\x00" * 3, "")
            if item[0] == 0:
                wrapped[0] = wrapped[0][first_col:]
            new.extend(wrapped)
        out[block[0]:block[-1] + 1] = new
        changed = True
    if not changed:
        return False
    newtext = prefix + quote + "\n".join(out) + quote
    head = lines[srow - 1][:scol]
    tail = lines[erow - 1][ecol:].rstrip("\n")
    lines[srow - 1:erow] = [r + "\n" for r in (head + newtext + tail).split("\n")]
    return True


def bracket_columns(toks: list[tokenize.TokenInfo]) -> dict[tuple[int, int], list[int]]:
    """For each token's start, where a line inside each bracket open before it starts (innermost last): the column of
    the first token after the bracket (a hanging indent when the bracket ends its line)."""
    return {start: [c for c, _ in opened] for start, opened in brackets_open(toks).items()}


def brackets_open(toks: list[tokenize.TokenInfo]) -> dict[tuple[int, int], list[tuple[int, tuple[int, int]]]]:
    """For each token's start, the brackets open before it (innermost last): the column a line inside starts at, and
    where the bracket closes."""
    closes: dict[int, tuple[int, int]] = {}
    pending: list[int] = []
    for n, t in enumerate(toks):
        if t.type == tokenize.OP and t.string in OPEN:
            pending.append(n)
        elif t.type == tokenize.OP and t.string in CLOSE and pending:
            closes[pending.pop()] = t.start
    stack: list[list] = []
    at: dict[tuple[int, int], list[tuple[int, tuple[int, int]]]] = {}
    for n, t in enumerate(toks):
        if stack and stack[-1][0] < 0 and t.type not in (tokenize.NL, tokenize.COMMENT):
            stack[-1][0] = t.start[1]
        at[t.start] = [(c[0] if c[0] >= 0 else c[1] + 1, c[2]) for c in stack]
        if t.type == tokenize.OP and t.string in OPEN:
            stack.append([-1, t.start[1], closes.get(n, (10**9, 0))])
        elif t.type == tokenize.OP and t.string in CLOSE and stack:
            stack.pop()
    return at


LITERAL = re.compile(r"^([a-zA-Z]{0,2})(['\"])(.*)\2$", re.S)


def has_placeholder(text: str) -> bool:
    return "{" in text.replace("{{", "").replace("}}", "")


def atoms_of(body: str, is_f: bool) -> list[tuple[bool, str]]:
    """A literal's body cut after each space outside `{...}`."""
    out, start, depth, i = [], 0, 0, 0
    while i < len(body):
        c = body[i]
        if is_f and c in "{}":
            if i + 1 < len(body) and body[i + 1] == c and depth == 0:
                i += 2
                continue
            depth += 1 if c == "{" else -1
        elif c == " " and depth == 0 and (i + 1 == len(body) or body[i + 1] != " "):
            out.append((is_f, body[start:i + 1]))
            start = i + 1
        i += 1
    if start < len(body):
        out.append((is_f, body[start:]))
    return out


def render(atoms: list[tuple[bool, str]], quote: str, other: str = "") -> str:
    """A literal of `atoms` (f-string pieces, or plain): an f-string only when one has a placeholder; `other`: the
    one prefix (r, b) every piece had instead."""
    if other:
        return other + quote + "".join(text for _, text in atoms) + quote
    if any(f and has_placeholder(text) for f, text in atoms):
        return "f" + quote + "".join(text if f else text.replace("{", "{{").replace("}", "}}") for f, text in atoms) \
            + quote
    return quote + "".join(text.replace("{{", "{").replace("}}", "}") if f else text for f, text in atoms) + quote


def reflow_chain(lines: list[str], toks: list[tokenize.TokenInfo], at: int, brackets: dict, limit: int) -> bool:
    """The adjacent string literals around `toks[at]`, packed again into lines of at most `limit`, aligned."""
    skip = (tokenize.NL,)
    first = last = at
    while True:
        k = first - 1
        while k >= 0 and toks[k].type in skip:
            k -= 1
        if k >= 0 and toks[k].type == tokenize.STRING:
            first = k
        else:
            break
    while True:
        k = last + 1
        while k < len(toks) and toks[k].type in skip:
            k += 1
        if k < len(toks) and toks[k].type == tokenize.STRING:
            last = k
        else:
            break
    pieces = [t for t in toks[first:last + 1] if t.type == tokenize.STRING]
    atoms: list[tuple[bool, str]] = []
    quotes, others = set(), set()
    for piece in pieces:
        m = LITERAL.match(piece.string)
        if not m or piece.start[0] != piece.end[0] or piece.string[len(m.group(1)):][:3] in ('"""', "\'\'\'"):
            return False
        prefix, quote, body = m.groups()
        if prefix.lower() not in ("", "f", "r", "b", "rb", "br"):
            return False
        quotes.add(quote)
        others.add("" if prefix.lower() in ("", "f") else prefix)
        atoms += atoms_of(body, prefix.lower() == "f")
    if len(quotes) != 1 or len(others) != 1 or not atoms:
        return False
    quote, other = quotes.pop(), others.pop()
    if any(quote in text.replace("\\" + quote, "") for _, text in atoms):
        return False
    (r0, c0), (r1, c1) = pieces[0].start, pieces[-1].end
    head = lines[r0 - 1][:c0]
    tail = lines[r1 - 1][c1:].rstrip("\n")
    inside = bool(brackets.get(pieces[0].start))
    col = c0 if inside else c0 + 1
    if not inside:
        head, tail = head + "(", ")" + tail
    room = limit - col
    if room < 40:
        return False
    packed: list[list[tuple[bool, str]]] = [[]]
    for atom in atoms:
        if packed[-1] and len(render(packed[-1] + [atom], quote, other).rstrip()) > room:
            packed.append([])
        packed[-1].append(atom)
    while len(packed) > 0 and len(render(packed[-1], quote, other)) + len(tail) > room and len(packed[-1]) > 1:
        packed.append([packed[-1].pop()])
        if len(render(packed[-1], quote, other)) + len(tail) <= room:
            break
    if len(packed) < 2 and inside:
        return False
    out = [(head if n == 0 else " " * col) + render(group, quote, other) for n, group in enumerate(packed)]
    out[-1] += tail
    new = [line + "\n" for line in out]
    if new == lines[r0 - 1:r1]:
        return False
    lines[r0 - 1:r1] = new
    return True


def longs(lines: list[str], limit: int) -> list[int]:
    return [i + 1 for i, line in enumerate(lines) if len(line.rstrip("\n")) > limit]


def better(before: list[str], after: list[str], row: int, limit: int) -> bool:
    """Whether `after` wraps more: fewer long lines, or the first one further down."""
    old, new = longs(before, limit), longs(after, limit)
    return len(new) < len(old) or not [r for r in new if r <= row]


def fix_line(lines: list[str], row: int, toks: list[tokenize.TokenInfo], docs: set, limit: int,
             nested: bool = False) -> bool:
    line = lines[row - 1].rstrip("\n")
    on_line = [t for t in toks if t.start[0] <= row <= t.end[0] and t.type not in (tokenize.NL, tokenize.NEWLINE,
                                                                                   tokenize.INDENT, tokenize.DEDENT)]
    # a docstring over the line
    for t in on_line:
        if t.type == tokenize.STRING and t.start in docs:
            return wrap_docstring(lines, t, limit)
    comment = next((t for t in on_line if t.type == tokenize.COMMENT and t.start[0] == row), None)
    code = line[:comment.start[1]].rstrip() if comment else line
    if comment and PRAGMA.search(comment.string) and len(code) <= limit:
        return False  # ruff measures the code before a pragma
    if comment and not code.strip() and re.search(r"[-=]{5,}$", comment.string):  # a rule: cut to the limit
        lines[row - 1] = line[:limit] + "\n"
        return True
    if comment and not code.strip():  # a comment line of its own: its block reflowed
        indent = line[:comment.start[1]]
        own = re.compile(re.escape(indent) + r"#(?!\s*(noqa|type:|pragma))")
        first = last = row
        while first > 1 and own.match(lines[first - 2]):
            first -= 1
        while last < len(lines) and own.match(lines[last]):
            last += 1
        text = " ".join(lines[i - 1].strip().lstrip("#").strip() for i in range(first, last + 1))
        wrapped = textwrap.wrap(text, width=limit, initial_indent=indent + "# ", subsequent_indent=indent + "# ",
                                break_long_words=False, break_on_hyphens=False)
        new = [w + "\n" for w in wrapped]
        if new == lines[first - 1:last]:
            return False
        lines[first - 1:last] = new
        return True
    if comment and len(code) <= limit and not PRAGMA.search(comment.string):
        # the comment above its line (above the first line of a backslash continuation), with the comments that
        # continue it at the same column on the lines below
        above = row
        while above > 1 and lines[above - 2].rstrip("\n").endswith("\\"):
            above -= 1
        indent = re.match(r"\s*", lines[above - 1]).group(0)
        texts = [comment.string.lstrip("#").strip()]
        lines[row - 1] = code + "\n"
        nxt = row + 1
        while nxt <= len(lines):
            later = lines[nxt - 1].rstrip("\n")
            at = comment.start[1]
            if len(later) > at and later[at] == "#" and later[:at].strip() and not later[:at].rstrip().endswith("#") \
                    and not PRAGMA.search(later[at:]):
                texts.append(later[at:].lstrip("#").strip())
                lines[nxt - 1] = later[:at].rstrip() + "\n"
                nxt += 1
            else:
                break
        wrapped = textwrap.wrap(" ".join(texts), width=limit, initial_indent=indent + "# ",
                                subsequent_indent=indent + "# ", break_long_words=False, break_on_hyphens=False)
        lines[above - 1:above - 1] = [w + "\n" for w in wrapped]
        return True
    brackets = bracket_columns(toks)
    # a string literal over the limit: the chain of adjacent literals it belongs to, reflowed
    for t in reversed(on_line):
        if t.type != tokenize.STRING or t.start in docs or t.start[0] != t.end[0] or t.start[0] != row:
            continue
        if t.end[1] + 12 < len(code) and t.end[1] < limit:
            continue  # code after it is long: break the code
        attempt = list(lines)
        if reflow_chain(attempt, toks, toks.index(t), brackets, limit) and better(lines, attempt, row, limit):
            lines[:] = attempt
            return True
    # code: break after a comma (else before a keyword operator), aligned with the innermost open bracket
    logical = [t for t in toks if t.start[0] == row]
    closing = brackets_open(toks)
    targets: set[int] = set()  # depths inside a `for` target (`for a, b in`), where a comma is no place to break
    candidates = []
    for i, t in enumerate(logical):
        opens = brackets.get(t.start, [])
        depth = len(opens)
        if t.type == tokenize.NAME and t.string == "for":
            targets.add(depth)
        elif t.type == tokenize.NAME and t.string == "in":
            targets.discard(depth)
        if not opens:
            continue
        close = closing[t.start][-1][1]
        early = close[0] == row and close[1] <= limit  # the line runs long after this bracket closes
        if t.type == tokenize.OP and t.string == "," and t.end[1] <= limit and i + 1 < len(logical) and \
                depth not in targets:
            nxt = logical[i + 1]
            if nxt.type in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT):
                continue
            candidates.append((3 if early else 0, nxt.start[1], opens[-1], depth))
        elif t.type == tokenize.NAME and t.string in ("and", "or", "if", "for") and 0 < t.start[1] <= limit and i > 0:
            candidates.append((3 if early else 1, t.start[1], opens[-1], depth))
        elif t.type == tokenize.OP and t.string in ("+", "-", "*", "/", "@", "|", "%") and 0 < t.start[1] <= limit \
                and i > 0 and logical[i - 1].type in (tokenize.NAME, tokenize.NUMBER, tokenize.STRING, tokenize.OP) \
                and logical[i - 1].string not in OPEN + ",=":
            candidates.append((3 if early else 2, t.start[1], opens[-1], depth))
    good = [c for c in candidates if c[2] < c[1] and c[2] <= limit - 30]
    chosen = pick(good, (0, 1, 2), limit)
    if chosen is None and not nested and not [c for c in good if c[0] < 3]:
        attempt = list(lines)
        if parenthesized(attempt, row, toks, limit):
            text = "".join(attempt)
            try:
                toks2 = tokens(text)
                fixed = fix_line(attempt, row, toks2, docstring_tokens(text, toks2), limit, nested=True)
            except (SyntaxError, tokenize.TokenError):
                fixed = False
            if fixed:
                lines[:] = attempt
                return True
    if chosen is None:
        chosen = pick(good, (3,), limit)
    if chosen is None:
        return False
    at, col = chosen
    head, rest = line[:at].rstrip(), line[at:]
    new = [head + "\n", " " * col + rest + "\n"]
    following = lines[row].rstrip("\n") if row < len(lines) else ""
    if following.startswith(" " * col) and not following[col:col + 1].isspace() and "#" not in rest and \
            rest.rstrip().endswith(",") and len(" " * col + rest.rstrip() + " " + following.strip()) <= limit and \
            not following.strip().startswith(("#", ")", "]", "}")):
        lines[row - 1:row + 1] = [new[0], " " * col + rest.rstrip() + " " + following.strip() + "\n"]
        return True
    lines[row - 1:row] = new
    return True


def pick(good: list, kinds: tuple[int, ...], limit: int) -> tuple[int, int] | None:
    """Where to break among the candidates of the first of `kinds` that has some: the rightmost of the shallowest."""
    for kind in kinds:
        pool = [c for c in good if c[0] == kind]
        wide = [c for c in pool if c[1] >= limit * 0.5] or pool
        if wide:
            shallow = min(c[3] for c in wide)
            _, at, col, _ = max(c for c in wide if c[3] == shallow)
            return at, col
    return None


def parenthesized(lines: list[str], row: int, toks: list[tokenize.TokenInfo], limit: int) -> bool:
    """A one-line statement without brackets to break in: its expression put in parentheses (the value of an
    assignment, `return`, `raise` up to `from`, the condition of `if`/`elif`/`while`/`assert`)."""
    line = lines[row - 1].rstrip("\n")
    n = next(i for i, t in enumerate(toks) if t.start[0] == row)
    before = toks[n - 1] if n else None
    if before is not None and before.type not in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.NL,
                                                  tokenize.COMMENT, tokenize.ENCODING):
        return False
    if line.endswith("\\") or (row > 1 and lines[row - 2].rstrip("\n").endswith("\\")):
        return False
    code = [t for t in toks[n:] if t.start[0] == row and t.type not in (
        tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT)]
    if not code or any(t.end[0] != row for t in code) or brackets_open(toks).get(code[0].start):
        return False
    depth, start, end = 0, None, code[-1].end[1]
    first = code[0]
    if first.string in ("return", "raise", "if", "elif", "while", "assert", "yield") and len(code) > 1:
        start = code[1].start[1]
    for t in code:
        if t.type == tokenize.OP and t.string in OPEN:
            depth += 1
        elif t.type == tokenize.OP and t.string in CLOSE:
            depth -= 1
        elif depth == 0 and t.type == tokenize.OP and t.string in ("=", "+=", "-=", "|=", ":=") and start is None \
                and first.string not in ("if", "elif", "while", "assert", "return"):
            start = t.end[1] + 1
        elif depth == 0 and t.type == tokenize.NAME and t.string == "from" and first.string == "raise":
            end = t.start[1] - 1
        elif depth == 0 and t.type == tokenize.OP and t.string == ":" and first.string in ("if", "elif", "while") \
                and t is code[-1]:
            end = t.start[1]
        elif depth == 0 and t.type == tokenize.OP and t.string == "," and first.string == "assert":
            end = t.start[1]
            break
    if start is None or start >= end or start > limit - 30 or line[start] == "(":
        return False
    lines[row - 1] = line[:start] + "(" + line[start:end].rstrip() + ")" + line[end:] + "\n"
    return True


def wrap_file(path: Path, limit: int) -> list[str]:
    source = path.read_text(encoding="utf-8")
    before = normalized(source)
    lines = source.splitlines(keepends=True)
    stuck: set[int] = set()
    for _ in range(5000):
        text = "".join(lines)
        long = [i + 1 for i, line in enumerate(text.splitlines()) if len(line) > limit and i + 1 not in stuck]
        if not long:
            break
        toks = tokens(text)
        docs = docstring_tokens(text, toks)
        lines = text.splitlines(keepends=True)
        row = long[0]
        attempt = list(lines)
        try:
            ok = fix_line(attempt, row, toks, docs, limit)
        except Exception as exc:  # noqa: BLE001
            print(f"{path}:{row}: {exc!r}", file=sys.stderr)
            ok = False
        if ok and better(lines, attempt, row, limit):
            new = "".join(attempt)
            try:
                valid = normalized(new) == before
            except SyntaxError:
                valid = False
            if valid:
                lines = attempt
                continue
        stuck.add(row)
    text = "".join(lines)
    if text != source:
        path.write_text(text, encoding="utf-8")
    return [f"{path}:{i + 1}: {len(line)}" for i, line in enumerate(text.splitlines()) if len(line) > limit]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--limit", type=int, default=LIMIT)
    args = parser.parse_args()
    left = []
    for name in args.paths:
        path = Path(name)
        for file in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
            left += wrap_file(file, args.limit)
    print("\n".join(left))
    print(f"{len(left)} lines left", file=sys.stderr)


if __name__ == "__main__":
    main()
