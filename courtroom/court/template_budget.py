"""The budget of one template rendering: the work it may do and the size of every value it may make.

Work is counted in steps: a loop's turn, a call, an attribute look-up, an operation, and the walk an operation
takes over what it is given (a filter that sorts, joins or selects from a list walks every item; a string
method reads every character, at `CHARS_PER_STEP` characters a step). Every value a template makes is measured
(`Measure`): its characters and items counted through every level, as many times as they are referenced
(`[a] * 3` holds `a` three times), which bounds the text `str()` would make of it, and how deep it nests. The
limits count work and sizes, never time, so a template renders (or is refused) the same way on every machine.
"""

from __future__ import annotations

from collections.abc import ItemsView, KeysView, Mapping, ValuesView
from contextvars import ContextVar
from typing import Any, NamedTuple

from jinja2.utils import Namespace

from courtroom.errors import TemplateLimitError

MAX_TEMPLATE_STEPS = 100_000
"""Steps (loop turns, calls, look-ups, operations, items walked) one rendering may take beyond the size of the case."""
MAX_TEMPLATE_CHARS = 20_000
"""Characters and items one value a template makes, and its output, may hold beyond the size of the case."""
MAX_TEMPLATE_RANGE = 10_000
"""Numbers one `range(...)` may hold."""
MAX_TEMPLATE_INT_BITS = 4_096
"""Bits an integer a template computes may hold."""
MAX_TEMPLATE_DEPTH = 50
"""Levels a value a template makes may nest (lists in lists ...): deeper, `str()` of it would fail."""
PRODUCED_FACTOR = 20
"""All the characters one rendering makes (outputs, loop text, results) may be this many times its output limit."""
CHARS_PER_STEP = 64
"""Characters an operation written in C (a string method, a comparison, `str()`) reads for one step."""


class Measure(NamedTuple):
    """What a value holds, through every level: items (of lists, tuples, sets, dicts: keys and values), characters
    (of strings, and the digits of numbers) and depth (0 for a string or a number)."""

    items: int
    chars: int
    depth: int

    @property
    def size(self) -> int:
        """Characters and items: what a value is limited by (its text, `str()` of it, is within a small factor)."""
        return self.items + self.chars

    @property
    def cost(self) -> int:
        """Steps walking the value takes: one per item, one per `CHARS_PER_STEP` characters."""
        return self.items + self.chars // CHARS_PER_STEP


_SCALAR = Measure(0, 1, 0)
_CONTAINERS = (list, tuple, dict, set, frozenset)
"""Values measured once (the sandbox cannot change them) and remembered by identity for the rendering."""


class Budget:
    """The work one rendering may still do, and the sizes of the values it made (`counting=False`: sizes are
    checked, steps not counted)."""

    def __init__(self, context: Any = None, *, counting: bool = True) -> None:
        self._measures: dict[int, tuple[Any, Measure]] = {}  # keeps each value alive, so its id stays its own
        data_size = self.measure(context).size if context is not None else 0
        self.largest = MAX_TEMPLATE_CHARS + data_size
        self.total = PRODUCED_FACTOR * self.largest
        self.max_steps = MAX_TEMPLATE_STEPS + data_size  # a loop over the case's own text may run its length
        self.counting = counting
        self.steps = 0
        self.produced = 0

    # -- sizes -------------------------------------------------------------------------------------
    def measure(self, value: Any, level: int = 0) -> Measure:
        """The items, characters and depth of `value`, walking each container once per rendering. A value nested
        deeper than `MAX_TEMPLATE_DEPTH` is refused."""
        if isinstance(value, (str, bytes)):
            return Measure(0, len(value), 0)
        if isinstance(value, bool) or value is None:
            return _SCALAR
        if isinstance(value, int):  # its decimal digits (or one more)
            return Measure(0, value.bit_length() * 31 // 100 + 1, 0)
        if isinstance(value, (KeysView, ValuesView, ItemsView)):  # `str()` of a view shows its dictionary
            return self._walk(value.mapping, level)
        if isinstance(value, Namespace):  # changed by `{% set ns.x = ... %}`: measured afresh each time
            return self._walk(object.__getattribute__(value, "_Namespace__attrs"), level)
        if not isinstance(value, _CONTAINERS):
            return _SCALAR
        known = self._measures.get(id(value))
        if known is not None:
            return known[1]
        measured = self._walk(value, level)
        self._measures[id(value)] = (value, measured)
        return measured

    def _walk(self, container: Any, level: int) -> Measure:
        if level >= MAX_TEMPLATE_DEPTH:
            raise TemplateLimitError(f"a value nested more than {MAX_TEMPLATE_DEPTH} levels deep is over the limit")
        parts = [part for pair in container.items() for part in pair] if isinstance(container, Mapping) else container
        items, chars, depth = len(container), 0, 0
        for part in parts:
            inner = self.measure(part, level + 1)
            items, chars, depth = items + inner.items, chars + inner.chars, max(depth, inner.depth)
        if depth + 1 > MAX_TEMPLATE_DEPTH:
            raise TemplateLimitError(f"a value nested more than {MAX_TEMPLATE_DEPTH} levels deep is over the limit")
        return Measure(items, chars, depth + 1)

    def size(self, value: Any) -> int:
        """`value`'s characters and items, through every level."""
        return self.measure(value).size

    # -- limits ------------------------------------------------------------------------------------
    def step(self, steps: int = 1, chars: int = 0) -> None:
        """Count `steps` of work and `chars` characters made; past a limit, `TemplateLimitError`."""
        if not self.counting:
            return
        self.steps += steps
        self.produced += chars
        if self.steps > self.max_steps:
            raise TemplateLimitError(f"the template goes over the limit of {self.max_steps:,} steps (loop "
                                     "iterations, calls, operations and the items they walk)")
        if self.produced > self.total:
            raise TemplateLimitError(f"the template goes over the limit of {self.total:,} characters made in all")

    def walked(self, *values: Any) -> None:
        """Count the work of an operation written in C reading `values` (a comparison, a string method, `str()`)."""
        self.step(1 + sum(self.measure(value).cost for value in values))

    def iterated(self, value: Any) -> None:
        """Count the work of a walk item by item through `value` in Python (a filter that sorts, selects, maps or
        groups): a string's characters are its items."""
        self.step(1 + (len(value) if isinstance(value, (str, bytes)) else self.measure(value).cost))

    def fits(self, size: int, what: str) -> None:
        """Refuse, before it is made, a value of `size` characters and items over the limit."""
        if size > self.largest:
            raise TemplateLimitError(f"{what} would hold {size:,} characters or items; a template's values and "
                                     f"output are limited to {self.largest:,}")

    def made(self, value: Any, what: str = "a value") -> Any:
        """Measure a value just made: over the limit it is refused; its walk and its characters are counted."""
        measured = self.measure(value)
        self.fits(measured.size, what)
        self.step(measured.cost, len(value) if isinstance(value, (str, bytes)) else 0)
        return value

    def small_int(self, value: Any, what: str) -> None:
        """Refuse an integer argument that would size a value over the limit (a width, a count)."""
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > self.largest:
            raise TemplateLimitError(f"{what} ({value:,}) is over the limit of {self.largest:,}")


_BUDGET: ContextVar[Budget | None] = ContextVar("courtroom_template_budget", default=None)


def current_budget() -> Budget:
    """The budget of the rendering under way; outside one, a budget that checks sizes without counting steps."""
    return _BUDGET.get() or Budget(counting=False)


def enter(budget: Budget) -> Any:
    """Make `budget` the current one; returns the token `leave` takes."""
    return _BUDGET.set(budget)


def leave(token: Any) -> None:
    """Restore the budget before `enter`."""
    _BUDGET.reset(token)
