"""The sandbox persona templates render in.

The sandbox is immutable and bounded. A template gets its own copy of what it is given and cannot call a
method that changes a list or a dict (`append`, `pop`, `update`, ...): it reads the case, it cannot alter it
for the turns after it. And a template's work is counted (`_Budget`): its loop iterations, calls and
operations (`MAX_TEMPLATE_STEPS`), the size of any one value it makes and of its output
(`MAX_TEMPLATE_CHARS`), each beyond the size of the case it is given, and `range` (`MAX_TEMPLATE_RANGE`
numbers). `'x' * 300000000`, a nested loop of a billion turns or a string doubled forty times is refused
(`TemplateLimitError`) before it is computed. The limits count work, never time, so a template renders (or
is refused) the same way on every machine, and a replayed run asks for the same prompts.
"""

from __future__ import annotations

import copy
import functools
import re
import string
import types
from collections.abc import Callable, Iterator, Sized
from contextvars import ContextVar
from functools import lru_cache
from typing import Any

from jinja2 import StrictUndefined, Template, nodes
from jinja2.compiler import CodeGenerator, Frame
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.visitor import NodeTransformer

from courtroom.errors import TemplateLimitError

MAX_TEMPLATE_STEPS = 100_000
"""Loop iterations, calls, attribute look-ups and operations one rendering may take beyond the size of the case."""
MAX_TEMPLATE_CHARS = 20_000
"""Characters (or items) one value a template makes, and its output, may hold beyond the size of the case."""
MAX_TEMPLATE_RANGE = 10_000
"""Numbers one `range(...)` may hold."""
MAX_TEMPLATE_INT_BITS = 4_096
"""Bits an integer a template computes may hold."""
PRODUCED_FACTOR = 20
"""All the characters one rendering makes (outputs, loop text, results) may be this many times its output limit."""


def _size(value: Any) -> int | None:
    if isinstance(value, (str, bytes, list, tuple, dict, set, frozenset, range)):
        return len(value)
    return None


def _data_size(value: Any, depth: int = 0) -> int:
    """Characters and items of the plain data a template is given."""
    if isinstance(value, (str, bytes)):
        return len(value)
    if depth > 20:
        return 0
    if isinstance(value, dict):
        return len(value) + sum(_data_size(k, depth + 1) + _data_size(v, depth + 1) for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return len(value) + sum(_data_size(v, depth + 1) for v in value)
    return 0


class _Budget:
    """The work one rendering may still do."""

    def __init__(self, data_size: int = 0, *, counting: bool = True) -> None:
        self.largest = MAX_TEMPLATE_CHARS + data_size
        self.total = PRODUCED_FACTOR * self.largest
        self.max_steps = MAX_TEMPLATE_STEPS + data_size  # a loop over the case's own text may run its length
        self.counting = counting
        self.steps = 0
        self.produced = 0

    def step(self, chars: int = 0) -> None:
        if not self.counting:
            return
        self.steps += 1
        self.produced += chars
        if self.steps > self.max_steps:
            raise TemplateLimitError(f"the template goes over the limit of {self.max_steps:,} steps (loop "
                                     "iterations, calls and operations)")
        if self.produced > self.total:
            raise TemplateLimitError(f"the template goes over the limit of {self.total:,} characters made in all")

    def fits(self, size: int, what: str) -> None:
        if size > self.largest:
            raise TemplateLimitError(f"{what} would hold {size:,} characters or items; a template's values and "
                                     f"output are limited to {self.largest:,}")

    def made(self, value: Any, what: str = "a value") -> Any:
        size = _size(value)
        if size is not None:
            self.fits(size, what)
            if self.counting and isinstance(value, (str, bytes)):
                self.produced += size
        return value

    def small_int(self, value: Any, what: str) -> None:
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > self.largest:
            raise TemplateLimitError(f"{what} ({value:,}) is over the limit of {self.largest:,}")


_BUDGET: ContextVar[_Budget | None] = ContextVar("courtroom_template_budget", default=None)


def _budget() -> _Budget:
    """The budget of the rendering under way; outside one (Jinja folding constants while it compiles), a
    budget that checks sizes without counting steps."""
    return _BUDGET.get() or _Budget(counting=False)


_PERCENT_SPEC = re.compile(r"%(?:\([^)]*\))?[#0\- +]*(\*|\d+)?(?:\.(\*|\d+))?")


def _check_percent(fmt: str, budget: _Budget) -> None:
    """`'%0999999999d' % 1` would make a billion characters: widths are bounded, `*` widths refused."""
    for match in _PERCENT_SPEC.finditer(fmt):
        for group in match.groups():
            if group == "*":
                raise TemplateLimitError("a '*' width in a %-format is not allowed in templates; write the width")
            if group and (len(group) > 9 or int(group) > budget.largest):
                raise TemplateLimitError(f"a %-format width of {group} is over the limit of {budget.largest:,}")


def _check_format(fmt: str, budget: _Budget) -> None:
    """`'{:999999999}'.format(1)`: the same bound for `str.format` (nested fields are refused)."""
    for _, _, spec, _ in string.Formatter().parse(fmt):
        if not spec:
            continue
        if "{" in spec:
            raise TemplateLimitError("a nested replacement field in a format spec is not allowed in templates")
        for digits in re.findall(r"\d+", spec):
            if len(digits) > 9 or int(digits) > budget.largest:
                raise TemplateLimitError(f"a format width of {digits} is over the limit of {budget.largest:,}")


def _text_len(value: Any) -> int:
    return len(value) if isinstance(value, str) else len(str(value))


_WIDTH_ARGUMENTS = frozenset({"center", "ljust", "rjust", "zfill", "batch", "slice", "indent"})
"""String methods and filters whose integer arguments size what they make."""


def _join_items(items: Any, separator: Any, budget: _Budget) -> Any:
    """The items to join (an iterator, as a list), once their joined length is known to fit."""
    if not isinstance(items, (str, bytes, Sized)):
        items = list(items)
    budget.fits(sum(_text_len(i) for i in items) + _text_len(separator) * len(items), "join(...)")
    return items


def _check_growth(name: str, target: Any, args: tuple[Any, ...], kwargs: dict[str, Any], budget: _Budget) -> tuple[Any, ...]:
    """Refuse, before it runs, a string method or filter that would make a value over the limit from values
    under it (a width, a replacement, a separator); returns the arguments (an iterator to join, as a list)."""
    if name in _WIDTH_ARGUMENTS:
        for value in (*args, *kwargs.values()):
            budget.small_int(value, f"the argument of {name}")
    if name in ("format", "format_map") and isinstance(target, str):
        _check_format(target, budget)
    elif name == "%format" and isinstance(target, str):
        _check_percent(target, budget)
    elif name == "replace" and isinstance(target, (str, bytes)) and len(args) >= 2:
        old, new = args[0], args[1]
        count = args[2] if len(args) > 2 else kwargs.get("count")
        if isinstance(old, (str, bytes)) and isinstance(new, (str, bytes)):
            times = target.count(old) if old else len(target) + 1
            if isinstance(count, int) and count >= 0:
                times = min(times, count)
            budget.fits(len(target) + times * max(len(new) - len(old), 0), f"{name}(...)")
    elif name == "join" and isinstance(target, (str, bytes)) and args:
        args = (_join_items(args[0], target, budget), *args[1:])
    elif name == "expandtabs" and isinstance(target, (str, bytes)):
        tabsize = args[0] if args else kwargs.get("tabsize", 8)
        if isinstance(tabsize, int):
            budget.fits(len(target) + target.count("\t" if isinstance(target, str) else b"\t") * tabsize, name)
    elif name == "indent" and isinstance(target, str):
        width = args[0] if args else kwargs.get("width", 4)
        prefix = width if isinstance(width, int) else len(str(width))
        budget.fits(len(target) + (target.count("\n") + 1) * prefix, name)
    elif name == "wordwrap" and isinstance(target, str):
        width = args[0] if args else kwargs.get("width", 79)
        wrapstring = args[2] if len(args) > 2 else kwargs.get("wrapstring")
        lines = len(target) // max(width, 1) + target.count("\n") + 1 if isinstance(width, int) else len(target)
        budget.fits(len(target) + lines * len(wrapstring or "\n"), name)
    elif name == "tojson":
        indent = args[0] if args else kwargs.get("indent")
        if isinstance(indent, int) and indent > 100:
            raise TemplateLimitError(f"tojson(indent={indent}) is over the limit of 100")
    return args


def _metered_filter(name: str, func: Callable[..., Any]) -> Callable[..., Any]:
    """A filter whose growth is checked before it runs and whose result is measured after."""
    skip = 1 if getattr(func, "jinja_pass_arg", None) is not None else 0
    checked = "%format" if name == "format" else name

    @functools.wraps(func)
    def metered(*args: Any, **kwargs: Any) -> Any:
        budget = _budget()
        budget.step()
        if len(args) > skip:
            value, rest = args[skip], args[skip + 1:]
            if name == "join":
                value = _join_items(value, rest[0] if rest else kwargs.get("d", ""), budget)
            else:
                rest = _check_growth(checked, value, rest, kwargs, budget)
            args = (*args[:skip], value, *rest)
        return budget.made(func(*args, **kwargs), f"the {name} filter's result")

    return metered


def _metered_range(*args: Any) -> range:
    budget = _budget()
    budget.step()
    numbers = range(*args)
    if len(numbers) > MAX_TEMPLATE_RANGE:
        raise TemplateLimitError(f"range of {len(numbers):,} numbers is over the limit of {MAX_TEMPLATE_RANGE:,}")
    return numbers


class _Metering(NodeTransformer):
    """Loops count their turns (and the text of their body); `~` measures what it joins."""

    def visit_For(self, node: nodes.For) -> nodes.Node:
        self.generic_visit(node)
        text = sum(len(data.data) for part in node.body for data in part.find_all(nodes.TemplateData))
        node.iter = nodes.Call(nodes.EnvironmentAttribute("metered_loop"), [node.iter, nodes.Const(text)], [], None,
                               None, lineno=node.iter.lineno)
        return node

    def visit_Concat(self, node: nodes.Concat) -> nodes.Node:
        self.generic_visit(node)
        return nodes.Call(nodes.EnvironmentAttribute("metered_concat"), list(node.nodes), [], None, None,
                          lineno=node.lineno)


class _MeteredCodeGenerator(CodeGenerator):
    def visit_Template(self, node: nodes.Template, frame: Frame | None = None) -> None:
        _Metering().visit(node)
        super().visit_Template(node, frame)


class _CourtSandbox(ImmutableSandboxedEnvironment):
    """Jinja's immutable sandbox, with every step of a template's work counted and every value it makes
    bounded (see the module's docstring)."""

    code_generator_class = _MeteredCodeGenerator
    intercepted_binops = frozenset({"*", "**", "+", "%"})

    def __init__(self) -> None:
        super().__init__(undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True, autoescape=False,
                         finalize=self._output)
        self.globals["range"] = _metered_range
        self.globals.pop("lipsum", None)
        self.filters = {name: _metered_filter(name, func) for name, func in self.filters.items()}

    @staticmethod
    def _output(value: Any) -> Any:
        budget = _budget()
        budget.step(_text_len(value))
        return value

    @staticmethod
    def metered_loop(iterable: Any, text: int) -> Iterator[Any]:
        budget = _budget()
        for item in iterable:
            budget.step(text)
            yield item

    @staticmethod
    def metered_concat(*parts: Any) -> str:
        budget = _budget()
        texts = [str(part) for part in parts]
        budget.fits(sum(map(len, texts)), "a string joined with ~")
        return budget.made("".join(texts))

    def getattr(self, obj: Any, attribute: str) -> Any:
        budget = _budget()
        budget.step()
        value = super().getattr(obj, attribute)
        size = _size(value)
        if size is not None:
            budget.fits(size, f"attribute {attribute!r}")
        return value

    def getitem(self, obj: Any, argument: Any) -> Any:
        budget = _budget()
        budget.step()
        value = super().getitem(obj, argument)
        size = _size(value)
        if size is not None:
            budget.fits(size, "an item")
        return value

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        budget = _budget()
        budget.step()
        if operator == "*":
            sequence, times = (left, right) if isinstance(right, int) else (right, left)
            if isinstance(sequence, (str, bytes, list, tuple)) and isinstance(times, int):
                budget.fits(len(sequence) * max(times, 0), f"{type(sequence).__name__} repeated {times:,} times")
            elif isinstance(left, int) and isinstance(right, int):
                if left.bit_length() + right.bit_length() > MAX_TEMPLATE_INT_BITS:
                    raise TemplateLimitError(f"a product over {MAX_TEMPLATE_INT_BITS} bits is over the limit")
        elif operator == "**" and isinstance(left, int) and isinstance(right, int) and abs(left) > 1 and right > 0:
            if right * left.bit_length() > MAX_TEMPLATE_INT_BITS:
                raise TemplateLimitError(f"a power over {MAX_TEMPLATE_INT_BITS} bits is over the limit")
        elif operator == "+" and isinstance(left, (str, bytes, list, tuple)) and isinstance(right, type(left)):
            budget.fits(len(left) + len(right), f"{type(left).__name__} + {type(right).__name__}")
        elif operator == "%" and isinstance(left, str):
            _check_percent(left, budget)
        return budget.made(super().call_binop(context, operator, left, right), f"the result of {operator}")

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805 (Jinja's own)
        budget = _budget()
        budget.step()
        target = getattr(__obj, "__self__", None)
        if target is None and hasattr(__obj, "__wrapped__"):  # str.format, as the sandbox wraps it
            target = getattr(__obj.__wrapped__, "__self__", None)
        if isinstance(target, (str, bytes)) and isinstance(__obj, (types.BuiltinMethodType, types.FunctionType)):
            args = _check_growth(getattr(__obj, "__name__", ""), target, args, kwargs, budget)
        return budget.made(super().call(__context, __obj, *args, **kwargs), "a call's result")


_ENV = _CourtSandbox()


@lru_cache(maxsize=512)
def _compiled(source: str) -> Template:
    return _ENV.from_string(source)


def render_template(source: str, context: dict[str, Any]) -> str:
    """Render a persona template over a deep copy of `context`, within the sandbox's limits."""
    context = copy.deepcopy(context)
    budget = _Budget(_data_size(context))
    token = _BUDGET.set(budget)
    try:
        parts, size = [], 0
        for chunk in _compiled(source).generate(**context):
            size += len(chunk)
            if size > budget.largest:
                raise TemplateLimitError(f"the template's output is over the limit of {budget.largest:,} characters")
            parts.append(chunk)
        return "".join(parts)
    finally:
        _BUDGET.reset(token)
