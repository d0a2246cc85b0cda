"""Rich tables of metrics, shared by `courtroom run`, `compare` and `audit`. Every string given (a title, a source, a
run's name, a model) is shown as the text it is (`terminal.shown`)."""

from __future__ import annotations

from rich.table import Table

from courtroom.evaluate.comparison import Comparison
from courtroom.evaluate.metrics import Metrics
from courtroom.report.terminal import shown


def metrics_table(title: str, overall: Metrics, by_source: dict[str, Metrics] | None = None) -> Table:
    """One row for all cases, then one per source."""
    table = Table(title=shown(title))
    for column in ("source", "cases", "errors", "bal. accuracy [95% CI]", "accuracy", "F1 (FAIL)", "AUROC",
                   "parse fail.", "tokens/case", "s/case"):
        table.add_column(column, justify="right" if column != "source" else "left")
    rows = [("all", overall)] + sorted((by_source or {}).items()) if by_source and len(by_source) > 1 else [
        ("all", overall)]
    for name, m in rows:
        table.add_row(shown(name), str(m.cases), str(m.errors), str(m.balanced_accuracy), _v(m.accuracy.value),
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


def compare_table(comparison: Comparison, title: str = "runs side by side") -> Table:
    """Every contender's metrics, one row each."""
    table = Table(title=shown(title))
    _name_column(table, [c.name for c in comparison.contenders])
    for column in ("judge", "model", "cases", "errors", "bal. accuracy [95% CI]", "F1 (FAIL)",
                   "AUROC [95% CI]", "parse fail.", "tokens/case", "s/case"):
        table.add_column(column, justify="left" if column in ("judge", "model") else "right", overflow="fold")
    for contender, m in zip(comparison.contenders, comparison.metrics):
        table.add_row(shown(contender.name), shown(contender.judge), shown(contender.model), str(m.cases), str(m.errors),
                      str(m.balanced_accuracy), _v(m.f1.value), str(m.auroc), str(m.parse_failures),
                      f"{m.tokens_per_case:.0f}", f"{m.seconds_per_case:.1f}")
    return table


def pairing_table(comparison: Comparison) -> Table:
    """Every contender after the first, paired with it on the cases both judged."""
    reference = comparison.contenders[0].name
    table = Table(title=shown(f"paired against {reference}: Δ = {reference} − run"),
                  caption="Δ > 0: the reference is ahead; on the cases both judged")
    _name_column(table, [p.name for p in comparison.pairings])
    for column in ("shared", "left out (errors)", "Δ bal. accuracy [95% CI]", "only ref right",
                   "only run right", "McNemar p"):
        table.add_column(column, justify="right", overflow="fold")
    for p in comparison.pairings:
        ci = f" [{p.low:+.3f}, {p.high:+.3f}]" if p.low is not None and p.high is not None else ""
        table.add_row(shown(p.name), str(p.shared), str(p.left_out), "-" if p.difference is None else f"{p.difference:+.3f}{ci}",
                      str(p.reference_only), str(p.contender_only), p_value(p.p_value))
    return table


def _name_column(table: Table, names: list[str]) -> None:
    """The run column: names of up to 48 characters whole on one line (the other columns fold instead)."""
    table.add_column("run", justify="left", **({"no_wrap": True} if max(map(len, names), default=0) <= 48
                                                else {"overflow": "fold"}))


def p_value(p: float) -> str:
    """A p-value as people read it: three significant digits, scientific notation below 0.001."""
    return f"{p:.3f}" if p >= 0.001 else f"{p:.1e}"


def _v(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def elide(text: str, width: int) -> str:
    """`text` cut to at most `width` characters at a word, with `…` where it was cut (the whole text is one
    command away: `courtroom audit show RUN CASE`)."""
    import textwrap

    return textwrap.shorten(" ".join(text.split()), width=width, placeholder=" …")
