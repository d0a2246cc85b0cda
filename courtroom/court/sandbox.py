"""The sandbox persona templates render in.

The sandbox is immutable and bounded. A template gets its own copy of what it is given and cannot call a
method that changes a list or a dict (`append`, `pop`, `update`, ...): it reads the case, it cannot alter it
for the turns after it. And a template's work is counted (`template_budget.Budget`): its loop iterations,
calls and operations and the items they walk (`MAX_TEMPLATE_STEPS`), the size of any one value it makes,
through every level, and of its output (`MAX_TEMPLATE_CHARS`), each beyond the size of the case it is given,
how deep a value nests (`MAX_TEMPLATE_DEPTH`), and `range` (`MAX_TEMPLATE_RANGE` numbers). `'x' * 300000000`,
a nested loop of a billion turns, a string doubled forty times, a list of lists repeated until its text would
fill the memory, or a sort of the same long list in every turn of a loop is refused (`TemplateLimitError`)
before it is computed (`template_growth` checks what filters and string methods would make). The limits count
work, never time, so a template renders (or is refused) the same way on every machine, and a replayed run asks
for the same prompts. Templates are not optimized: nothing is computed while a template compiles.
"""

from __future__ import annotations

import copy
import types
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from jinja2 import StrictUndefined, Template, nodes
from jinja2.compiler import CodeGenerator, Frame
from jinja2.runtime import Macro
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.visitor import NodeTransformer

from courtroom.court.template_budget import (
    MAX_TEMPLATE_CHARS,
    MAX_TEMPLATE_DEPTH,
    MAX_TEMPLATE_INT_BITS,
    MAX_TEMPLATE_RANGE,
    MAX_TEMPLATE_STEPS,
    Budget,
    current_budget,
    enter,
    leave,
)
from courtroom.court.template_growth import check_growth, check_percent, metered_filter, metered_range, metered_test
from courtroom.errors import TemplateLimitError

__all__ = ["MAX_TEMPLATE_CHARS", "MAX_TEMPLATE_DEPTH", "MAX_TEMPLATE_INT_BITS", "MAX_TEMPLATE_RANGE",
           "MAX_TEMPLATE_STEPS", "render_template"]

_SCANNING_METHODS = frozenset({"count", "index"})
"""Methods of lists and tuples that walk every item."""
_PREFIX_METHODS = frozenset({"startswith", "endswith"})
"""String methods that read only as much of the string as their argument."""


def _call(name: str, *args: nodes.Expr, lineno: int | None = None) -> nodes.Call:
    return nodes.Call(nodes.EnvironmentAttribute(name), list(args), [], None, None, lineno=lineno)


class _Metering(NodeTransformer):
    """Loops count their turns (and the text of their body); `~` measures what it joins; list, tuple and dict
    literals and slices are measured; comparisons count the reading of what they compare."""

    def visit_For(self, node: nodes.For) -> nodes.Node:
        self.generic_visit(node)
        text = sum(len(data.data) for part in node.body for data in part.find_all(nodes.TemplateData))
        node.iter = _call("metered_loop", node.iter, nodes.Const(text), lineno=node.iter.lineno)
        return node

    def visit_Concat(self, node: nodes.Concat) -> nodes.Node:
        self.generic_visit(node)
        return _call("metered_concat", *node.nodes, lineno=node.lineno)

    def _literal(self, node: nodes.Expr) -> nodes.Node:
        self.generic_visit(node)
        if getattr(node, "ctx", "load") != "load":  # `{% for a, b in ... %}`: a target, not a value
            return node
        return _call("metered_literal", node, lineno=node.lineno)

    visit_List = visit_Tuple = visit_Dict = _literal

    def visit_Getitem(self, node: nodes.Getitem) -> nodes.Node:
        self.generic_visit(node)  # Jinja takes a slice without the sandbox's getitem
        return _call("metered_slice", node, lineno=node.lineno) if isinstance(node.arg, nodes.Slice) else node

    def visit_Compare(self, node: nodes.Compare) -> nodes.Node:
        self.generic_visit(node)
        node.expr = _call("metered_operand", node.expr, lineno=node.lineno)
        for operand in node.ops:
            operand.expr = _call("metered_operand", operand.expr, lineno=node.lineno)
        return node


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
                         finalize=self._output, optimized=False)
        self.globals["range"] = metered_range
        self.globals.pop("lipsum", None)
        self.filters = {name: metered_filter(name, func) for name, func in self.filters.items()}
        self.tests = {name: metered_test(func) for name, func in self.tests.items()}

    @staticmethod
    def _output(value: Any) -> Any:
        budget = current_budget()
        size = budget.size(value)
        budget.fits(size, "the value written")
        budget.step(1 + budget.measure(value).cost, size)
        return value

    @staticmethod
    def metered_loop(iterable: Any, text: int) -> Iterator[Any]:
        budget = current_budget()
        for item in iterable:
            budget.step(1, text)
            yield item

    @staticmethod
    def metered_concat(*parts: Any) -> str:
        budget = current_budget()
        budget.fits(sum(map(budget.size, parts)), "a string joined with ~")
        texts = [str(part) for part in parts]
        budget.fits(sum(map(len, texts)), "a string joined with ~")
        return budget.made("".join(texts))

    @staticmethod
    def metered_literal(value: Any) -> Any:
        return current_budget().made(value, f"a {type(value).__name__} written in the template")

    @staticmethod
    def metered_slice(value: Any) -> Any:
        return current_budget().made(value, "a slice")

    @staticmethod
    def metered_operand(value: Any) -> Any:
        current_budget().walked(value)
        return value

    def getattr(self, obj: Any, attribute: str) -> Any:
        current_budget().step()
        return super().getattr(obj, attribute)

    def getitem(self, obj: Any, argument: Any) -> Any:
        current_budget().step()
        return super().getitem(obj, argument)

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        budget = current_budget()
        budget.step()
        if operator == "*":
            sequence, times = (left, right) if isinstance(right, int) else (right, left)
            if isinstance(sequence, (str, bytes, list, tuple)) and isinstance(times, int):
                budget.fits(budget.size(sequence) * max(times, 0), f"{type(sequence).__name__} repeated {times:,} times")
            elif isinstance(left, int) and isinstance(right, int):
                if left.bit_length() + right.bit_length() > MAX_TEMPLATE_INT_BITS:
                    raise TemplateLimitError(f"a product over {MAX_TEMPLATE_INT_BITS} bits is over the limit")
        elif operator == "**" and isinstance(left, int) and isinstance(right, int) and abs(left) > 1 and right > 0:
            if right * left.bit_length() > MAX_TEMPLATE_INT_BITS:
                raise TemplateLimitError(f"a power over {MAX_TEMPLATE_INT_BITS} bits is over the limit")
        elif operator == "+" and isinstance(left, (str, bytes, list, tuple)) and isinstance(right, type(left)):
            budget.fits(budget.size(left) + budget.size(right), f"{type(left).__name__} + {type(right).__name__}")
        elif operator == "%" and isinstance(left, str):
            check_percent(left, right, budget)
        return budget.made(super().call_binop(context, operator, left, right), f"the result of {operator}")

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805 (Jinja's own)
        budget = current_budget()
        target = getattr(__obj, "__self__", None)
        if target is None and hasattr(__obj, "__wrapped__"):  # str.format, as the sandbox wraps it
            target = getattr(__obj.__wrapped__, "__self__", None)
        name = getattr(__obj, "__name__", "")
        if isinstance(__obj, Macro):  # its body's work is counted as it runs
            budget.step()
        elif isinstance(target, (str, bytes)) and name not in _PREFIX_METHODS \
                or isinstance(target, (list, tuple)) and name in _SCANNING_METHODS:
            budget.walked(target, *args, *kwargs.values())
        else:
            budget.walked(*args, *kwargs.values())
        if isinstance(target, (str, bytes)) and isinstance(__obj, (types.BuiltinMethodType, types.FunctionType)):
            args = check_growth(name, target, args, kwargs, budget)
        return budget.made(super().call(__context, __obj, *args, **kwargs), "a call's result")


_ENV = _CourtSandbox()


@lru_cache(maxsize=512)
def _compiled(source: str) -> Template:
    return _ENV.from_string(source)


def render_template(source: str, context: dict[str, Any]) -> str:
    """Render a persona template over a deep copy of `context`, within the sandbox's limits."""
    context = copy.deepcopy(context)
    budget = Budget(context)
    token = enter(budget)
    try:
        parts, size = [], 0
        for chunk in _compiled(source).generate(**context):
            size += len(chunk)
            if size > budget.largest:
                raise TemplateLimitError(f"the template's output is over the limit of {budget.largest:,} characters")
            parts.append(chunk)
        return "".join(parts)
    finally:
        leave(token)
