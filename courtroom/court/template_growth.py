"""What a template's filters, tests and string methods may make and walk, checked before they run.

A string method or filter that would make a value over the limit from values under it (a width, a replacement,
a separator, a format repeating an argument) is refused before it runs (`check_growth`); every filter and test
counts the walk it takes over what it is given (`metered_filter`, `metered_test`); `range` is bounded
(`metered_range`). The budget itself is `courtroom.court.template_budget`.
"""

from __future__ import annotations

import functools
import re
import string
from collections.abc import Callable, Sized
from typing import Any

from courtroom.court.template_budget import MAX_TEMPLATE_RANGE, Budget, current_budget
from courtroom.errors import TemplateLimitError

READING_FILTERS = frozenset({"abs", "attr", "count", "d", "default", "first", "last", "length", "random", "round",
                             "safe"})
"""Filters that read one item or a length, whatever the size of what they are given: one step."""
TEXT_FILTERS = frozenset({"capitalize", "center", "e", "escape", "float", "forceescape", "format", "int", "lower",
                          "pprint", "replace", "reverse", "string", "tojson", "trim", "truncate", "upper"})
"""Filters whose work is C code reading their input once (`Measure.cost`). Every other filter (sort, unique,
join, map, select, batch, wordwrap, urlize, title, wordcount ...) walks its input item by item, a string
character by character, in Python."""
WIDTH_ARGUMENTS = frozenset({"center", "ljust", "rjust", "zfill", "batch", "slice", "indent"})
"""String methods and filters whose integer arguments size what they make."""

_PERCENT_SPEC = re.compile(r"%(?:\([^)]*\))?[#0\- +]*(\*|\d+)?(?:\.(\*|\d+))?")


def _checked_width(digits: str, budget: Budget, what: str) -> int:
    if len(digits) > 9 or int(digits) > budget.largest:
        raise TemplateLimitError(f"a {what} width of {digits} is over the limit of {budget.largest:,}")
    return int(digits)


def _size_of_arguments(values: Any, budget: Budget) -> int:
    """The characters and items of a format's arguments: a tuple's items, a mapping's keys and values, or one value."""
    if isinstance(values, tuple):
        return sum(budget.size(value) for value in values)
    if isinstance(values, dict):
        return sum(budget.size(key) + budget.size(value) for key, value in values.items())
    return budget.size(values)


def check_percent(fmt: str, values: Any, budget: Budget) -> None:
    """`fmt % values`: widths are bounded, `*` widths refused (`'%0999999999d' % 1`), and what it would make, every
    field holding all of `values` (`('%(a)s' * 3000) % {'a': s}`), must fit."""
    fields = widest = 0
    for match in _PERCENT_SPEC.finditer(fmt):
        fields += 1
        for group in match.groups():
            if group == "*":
                raise TemplateLimitError("a '*' width in a %-format is not allowed in templates; write the width")
            if group:
                widest = max(widest, _checked_width(group, budget, "%-format"))
    if fields:
        budget.fits(len(fmt) + fields * (_size_of_arguments(values, budget) + widest), "a %-format")


def check_format(fmt: str, args: tuple[Any, ...], kwargs: dict[str, Any], budget: Budget) -> None:
    """`fmt.format(...)`: the same bounds for `str.format` (nested fields are refused)."""
    fields = widest = 0
    for _, name, spec, _ in string.Formatter().parse(fmt):
        fields += name is not None
        if "{" in (spec or ""):
            raise TemplateLimitError("a nested replacement field in a format spec is not allowed in templates")
        for digits in re.findall(r"\d+", spec or ""):
            widest = max(widest, _checked_width(digits, budget, "format"))
    if fields:
        arguments = _size_of_arguments(args, budget) + _size_of_arguments(kwargs, budget)
        budget.fits(len(fmt) + fields * (arguments + widest), "str.format(...)")


def _join_items(items: Any, separator: Any, budget: Budget) -> Any:
    """The items to join (an iterator, as a list), once their joined length is known to fit."""
    if not isinstance(items, (str, bytes, Sized)):
        items = list(items)
    budget.fits(sum(budget.size(item) for item in items) + budget.size(separator) * len(items), "join(...)")
    return items


def _argument(args: tuple[Any, ...], kwargs: dict[str, Any], position: int, name: str, default: Any = None) -> Any:
    return args[position] if len(args) > position else kwargs.get(name, default)


def check_growth(name: str, target: Any, args: tuple[Any, ...], kwargs: dict[str, Any], budget: Budget
                 ) -> tuple[Any, ...]:
    """Refuse, before it runs, a string method or filter that would make a value over the limit from values under it;
    returns the arguments (an iterator to join, as a list)."""
    if name in WIDTH_ARGUMENTS:
        for value in (*args, *kwargs.values()):
            budget.small_int(value, f"the argument of {name}")
    text = isinstance(target, (str, bytes))
    if name in ("format", "format_map") and isinstance(target, str):
        check_format(target, args, kwargs, budget)
    elif name == "%format" and isinstance(target, str):
        check_percent(target, kwargs or args, budget)
    elif name == "replace" and text and len(args) >= 2:
        old, new, count = args[0], args[1], _argument(args, kwargs, 2, "count")
        if isinstance(old, (str, bytes)) and isinstance(new, (str, bytes)):
            times = target.count(old) if old else len(target) + 1
            if isinstance(count, int) and count >= 0:
                times = min(times, count)
            budget.fits(len(target) + times * max(len(new) - len(old), 0), f"{name}(...)")
    elif name == "translate" and text and args and isinstance(args[0], dict):
        widest = max((budget.size(value) for value in args[0].values()), default=1)
        budget.fits(len(target) * max(widest, 1), "translate(...)")
    elif name == "join" and text and args:
        args = (_join_items(args[0], target, budget), *args[1:])
    elif name == "expandtabs" and text:
        tabsize = _argument(args, kwargs, 0, "tabsize", 8)
        if isinstance(tabsize, int):
            budget.fits(len(target) + target.count("\t" if isinstance(target, str) else b"\t") * tabsize, name)
    elif name == "indent" and isinstance(target, str):
        width = _argument(args, kwargs, 0, "width", 4)
        prefix = width if isinstance(width, int) else len(str(width))
        budget.fits(len(target) + (target.count("\n") + 1) * prefix, name)
    elif name == "wordwrap" and isinstance(target, str):
        width, wrapstring = _argument(args, kwargs, 0, "width", 79), _argument(args, kwargs, 2, "wrapstring")
        lines = len(target) // max(width, 1) + target.count("\n") + 1 if isinstance(width, int) else len(target)
        budget.fits(len(target) + lines * len(wrapstring or "\n"), name)
    elif name == "tojson":
        indent = _argument(args, kwargs, 0, "indent")
        if isinstance(indent, int) and indent > 100:
            raise TemplateLimitError(f"tojson(indent={indent}) is over the limit of 100")
        if isinstance(indent, int) and indent > 0:  # every item on a line of its own, indented at every level
            measured = budget.measure(target)
            budget.fits(measured.size + measured.items * (indent * measured.depth + 1), "tojson(indent=...)")
    elif name == "sum" and not isinstance(_argument(args, kwargs, 1, "start", 0), (int, float)):
        # lists added one by one: every partial sum is copied again
        budget.step(len(target) * budget.measure(target).cost // 2 if isinstance(target, Sized) else 0)
    return args


def _input_work(name: str, value: Any, budget: Budget) -> None:
    """Count the walk a filter takes over its input."""
    if name in READING_FILTERS:
        budget.step()
    elif name in TEXT_FILTERS:
        budget.walked(value)
    else:
        budget.iterated(value)


def metered_filter(name: str, func: Callable[..., Any]) -> Callable[..., Any]:
    """A filter whose walk is counted and whose growth is checked before it runs, and whose result is measured."""
    skip = 1 if getattr(func, "jinja_pass_arg", None) is not None else 0
    checked = "%format" if name == "format" else name

    @functools.wraps(func)
    def metered(*args: Any, **kwargs: Any) -> Any:
        budget = current_budget()
        if len(args) > skip:
            value, rest = args[skip], args[skip + 1:]
            if name == "join":
                value = _join_items(value, _argument(rest, kwargs, 0, "d", ""), budget)
            _input_work(name, value, budget)
            rest = check_growth(checked, value, rest, kwargs, budget)
            args = (*args[:skip], value, *rest)
        else:
            budget.step()
        return budget.made(func(*args, **kwargs), f"the {name} filter's result")

    return metered


def metered_test(func: Callable[..., Any]) -> Callable[..., Any]:
    """A test (`is in`, `is eq`, ...) whose reading of its value and arguments is counted."""

    @functools.wraps(func)
    def metered(*args: Any, **kwargs: Any) -> Any:
        current_budget().walked(*args, *kwargs.values())
        return func(*args, **kwargs)

    return metered


def metered_range(*args: Any) -> range:
    """`range`, of at most `MAX_TEMPLATE_RANGE` numbers."""
    budget = current_budget()
    budget.step()
    numbers = range(*args)
    if len(numbers) > MAX_TEMPLATE_RANGE:
        raise TemplateLimitError(f"range of {len(numbers):,} numbers is over the limit of {MAX_TEMPLATE_RANGE:,}")
    return numbers
