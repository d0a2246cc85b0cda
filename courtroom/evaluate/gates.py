"""Gates for CI: a run passes when each named metric is at least its minimum (`--fail-under NAME=VALUE`).

Every number a run reports in `metrics.json` can be gated: the rates (`balanced_accuracy`, `accuracy`,
`precision`, `recall`, `f1`, `auroc`) by their point estimate or, with `.low` / `.high`, by an end of their
95% bootstrap interval (`balanced_accuracy.low=0.6`: the interval must clear 0.6), and the counts and costs
(`cases`, `tokens_per_case`, ...). A gate fails when the value is below its minimum, or undefined (AUROC of
a run with one gold class).
"""

from __future__ import annotations

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


@dataclass(frozen=True)
class Gate:
    """`metric` must be at least `minimum`."""

    metric: str
    minimum: float
    shown: str = ""
    """The minimum as the user wrote it (`0.70`), for messages."""

    def value(self, metrics: Metrics) -> float | None:
        """The gated number of these metrics (None: undefined)."""
        name, _, end = self.metric.partition(".")
        value = getattr(metrics, name)
        if isinstance(value, Interval):
            value = getattr(value, end or "value")
        return None if value is None else float(value)

    def failure(self, metrics: Metrics) -> str | None:
        """None when the gate passes, else a one-line reason: `balanced_accuracy 0.620 < 0.70`."""
        value, minimum = self.value(metrics), self.shown or f"{self.minimum:g}"
        if value is None:
            return f"{self.metric} undefined < {minimum}"
        shown = f"{value:.0f}" if self.metric in COUNTS else f"{value:.3f}"
        return None if value >= self.minimum else f"{self.metric} {shown} < {minimum}"


def parse_gate(text: str) -> Gate:
    """`balanced_accuracy=0.70` as a gate; an unknown metric is an error listing the valid ones."""
    name, sep, number = text.partition("=")
    name = name.strip().replace("-", "_")
    if not sep or not number.strip():
        raise ConfigError(f"--fail-under {text!r}: expected METRIC=VALUE, e.g. balanced_accuracy=0.70")
    if name not in GATE_METRICS:
        raise ConfigError(f"--fail-under {text!r}: unknown metric {name!r}; the metrics a run reports are "
                          + ", ".join(GATE_METRICS))
    try:
        minimum = float(number)
    except ValueError:
        raise ConfigError(f"--fail-under {text!r}: {number.strip()!r} is not a number") from None
    return Gate(name, minimum, number.strip())


def parse_gates(texts: list[str]) -> list[Gate]:
    return [parse_gate(t) for t in texts]


def gate_failures(metrics: Metrics, gates: list[Gate]) -> list[str]:
    """The reasons of every gate these metrics fail (empty: all pass)."""
    return [reason for gate in gates if (reason := gate.failure(metrics)) is not None]
