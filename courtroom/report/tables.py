"""Rich tables of metrics, shared by `courtroom run`, `compare` and `audit`."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table

from courtroom.evaluate.metrics import Metrics


def metrics_table(title: str, overall: Metrics, by_source: dict[str, Metrics] | None = None) -> Table:
    """One row for all cases, then one per source."""
    table = Table(title=title)
    for column in ("source", "cases", "errors", "bal. accuracy [95% CI]", "accuracy", "F1 (FAIL)", "AUROC",
                   "parse fail.", "tokens/case", "s/case"):
        table.add_column(column, justify="right" if column != "source" else "left")
    rows = [("all", overall)] + sorted((by_source or {}).items()) if by_source and len(by_source) > 1 else [
        ("all", overall)]
    for name, m in rows:
        table.add_row(name, str(m.cases), str(m.errors), str(m.balanced_accuracy), _v(m.accuracy.value),
                      _v(m.f1.value), _v(m.auroc.value), str(m.parse_failures), f"{m.tokens_per_case:.0f}",
                      f"{m.seconds_per_case:.1f}")
    return table


def confusion_table(m: Metrics) -> Table:
    table = Table(title="confusion (positive = FAIL, hallucinated)")
    table.add_column("")
    table.add_column("predicted FAIL", justify="right")
    table.add_column("predicted PASS", justify="right")
    table.add_row("gold FAIL", str(m.confusion["tp"]), str(m.confusion["fn"]))
    table.add_row("gold PASS", str(m.confusion["fp"]), str(m.confusion["tn"]))
    return table


def compare_table(names: Sequence[str], metrics: Sequence[Metrics], judges: Sequence[str],
                  models: Sequence[str]) -> Table:
    table = Table(title="runs side by side")
    for column in ("run", "judge", "model", "cases", "errors", "bal. accuracy [95% CI]", "F1 (FAIL)",
                   "AUROC [95% CI]", "parse fail.", "tokens/case", "s/case"):
        table.add_column(column, justify="left" if column in ("run", "judge", "model") else "right")
    for name, m, judge, model in zip(names, metrics, judges, models):
        table.add_row(name, judge, model, str(m.cases), str(m.errors), str(m.balanced_accuracy), _v(m.f1.value),
                      str(m.auroc),
                      str(m.parse_failures), f"{m.tokens_per_case:.0f}", f"{m.seconds_per_case:.1f}")
    return table


def _v(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
