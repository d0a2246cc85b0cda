"""Gates for CI: a run passes when each named metric is within its bound (`--fail-under NAME>=VALUE`, or
`NAME=VALUE`: at least; `NAME<=VALUE`: at most). Any number of `metrics.json` can be gated, a rate also by an
end of its interval (`balanced_accuracy.low=0.6`); a value beyond its bound, or undefined, fails."""

from __future__ import annotations

import re
from dataclasses import dataclass

from courtroom.errors import ConfigError
from courtroom.evaluate.metrics import Interval, Metrics

RATES = tuple(name for name, field in Metrics.model_fields.items() if field.annotation is Interval)
"""The metrics with a bootstrap interval."""
NUMBERS = tuple(name for name, field in Metrics.model_fields.items() if field.annotation in (int, float))
"""The counts and costs."""
COUNTS = tuple(name for name, field in Metrics.model_fields.items() if field.annotation is int)
GATE_METRICS = (*RATES, *(f"{rate}.{end}" for rate in RATES for end in ("low", "high")), *NUMBERS)
"""Every name `--fail-under` takes."""


AT_LEAST, AT_MOST = ">=", "<="
_GATE = re.compile(r"^\s*([^<>=]+?)\s*(<=|>=|=)\s*([^<>=]*?)\s*$")
"""METRIC, the comparison (`=` is `>=`) and VALUE of a gate as written."""


@dataclass(frozen=True)
class Gate:
    """`metric` must be at least (`op` `>=`) or at most (`<=`) `bound`."""

    metric: str
    bound: float
    shown: str = ""
    """The bound as the user wrote it (`0.70`), for messages."""
    op: str = AT_LEAST

    @property
    def limit(self) -> str:
        """What the bound is: `minimum` or `maximum` (the key of a gate in JSON summaries)."""
        return "minimum" if self.op == AT_LEAST else "maximum"

    def describe(self) -> str:
        """The gate as a condition: `balanced_accuracy >= 0.70`, `errors <= 0`."""
        return f"{self.metric} {self.op} {self.shown or f'{self.bound:g}'}"

    def value(self, metrics: Metrics) -> float | None:
        """The gated number of these metrics (None: undefined)."""
        name, _, end = self.metric.partition(".")
        value = getattr(metrics, name)
        if isinstance(value, Interval):
            value = getattr(value, end or "value")
        return None if value is None else float(value)

    def failure(self, metrics: Metrics) -> str | None:
        """None when the gate passes, else a one-line reason: `balanced_accuracy 0.620 < 0.70`, `errors 2 >
        0`."""
        value, bound = self.value(metrics), self.shown or f"{self.bound:g}"
        beyond = "<" if self.op == AT_LEAST else ">"
        if value is None:
            return f"{self.metric} undefined {beyond} {bound}"
        shown = f"{value:.0f}" if self.metric in COUNTS else f"{value:.3f}"
        passed = value >= self.bound if self.op == AT_LEAST else value <= self.bound
        return None if passed else f"{self.metric} {shown} {beyond} {bound}"


def parse_gate(text: str) -> Gate:
    """`balanced_accuracy>=0.70` (or `=0.70`), `errors<=0` as a gate; an unknown metric is an error listing
    them."""
    match = _GATE.match(text)
    if match is None or not match.group(3):
        raise ConfigError(f"--fail-under {text!r}: expected METRIC>=VALUE (at least; METRIC=VALUE too) or "
                          "METRIC<=VALUE (at most), e.g. balanced_accuracy>=0.70 or errors<=0")
    name, op, number = match.group(1).replace("-", "_"), match.group(2), match.group(3)
    if name not in GATE_METRICS:
        raise ConfigError(f"--fail-under {text!r}: unknown metric {name!r}; the metrics a run reports are "
                          + ", ".join(GATE_METRICS))
    try:
        bound = float(number)
    except ValueError:
        raise ConfigError(f"--fail-under {text!r}: {number!r} is not a number") from None
    return Gate(name, bound, number, AT_MOST if op == AT_MOST else AT_LEAST)


def parse_gates(texts: list[str]) -> list[Gate]:
    return [parse_gate(t) for t in texts]


def gate_failures(metrics: Metrics, gates: list[Gate]) -> list[str]:
    """The reasons of every gate these metrics fail (empty: all pass)."""
    return [reason for gate in gates if (reason := gate.failure(metrics)) is not None]
