"""Rich tables of metrics for `courtroom run`, `compare` and `audit`; every string given goes through
`shown`."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.table import Table

from courtroom.evaluate.comparison import Comparison
from courtroom.evaluate.metrics import Metrics
from courtroom.evaluate.trial_stats import TrialSummary
from courtroom.report.terminal import shown


def columns(table: Table, names: Iterable[str], left: int | None = 1, **options: Any) -> Table:
    """`table` with the columns `names` added: the first `left` (all: None) justified left, the rest right."""
    for i, name in enumerate(names):
        table.add_column(name, justify="left" if left is None or i < left else "right", **options)
    return table


def metrics_table(title: str, overall: Metrics, by_source: dict[str, Metrics] | None = None) -> Table:
    """One row for all cases, then one per source."""
    table = columns(Table(title=shown(title)), ("source", "cases", "errors", "bal. accuracy [95% CI]",
                                                "accuracy",
                                                "F1 (FAIL)", "AUROC", "parse fail.", "tokens/case", "s/case"))
    rows = [("all", overall)] + (sorted(by_source.items()) if by_source and len(by_source) > 1 else [])
    for name, m in rows:
        table.add_row(shown(name), str(m.cases), str(m.errors), str(m.balanced_accuracy),
                      _v(m.accuracy.value),
                      _v(m.f1.value), _v(m.auroc.value), str(m.parse_failures), f"{m.tokens_per_case:.0f}",
                      f"{m.seconds_per_case:.1f}")
    return table


def confusion_table(m: Metrics) -> Table:
    table = columns(Table(title="confusion (positive = FAIL, hallucinated)"),
                    ("", "predicted FAIL", "predicted PASS"))
    table.add_row("gold FAIL", str(m.confusion["tp"]), str(m.confusion["fn"]))
    table.add_row("gold PASS", str(m.confusion["fp"]), str(m.confusion["tn"]))
    return table


SPAN_ROWS = (("token", "hallucinated answers"), ("char", "hallucinated answers"), ("token", "all answers"),
             ("char", "all answers"))
"""The span metrics shown, by level and answers (`courtroom.evaluate.spans.span_scores`' keys)."""


def span_table(scores: dict[str, Any]) -> Table:
    """Precision, recall and F1 of the spans named, by tokens and characters; hit@1 and recall by type
    beneath."""
    hit = scores.get("hit@1")
    low_high = scores.get("hit@1_95")
    caption = [f"hit@1 {hit:.3f}" + (f" [{low_high[0]:.3f}, {low_high[1]:.3f}]" if low_high else "")
               + " (the strongest span overlaps a gold span)"]
    if by_type := scores.get("token recall by type"):
        caption.append("token recall by type: " + ", ".join(f"{k} {v:.3f}" for k, v in by_type.items()))
    if (implicit := scores.get("token recall, implicit_true spans")) is not None:
        caption.append(f"token recall of implicit_true spans (left out above) {implicit:.3f}")
    table = columns(Table(title=f"hallucinated spans against the gold spans: {scores['answers']} answers, "
                                f"{scores['hallucinated answers']} hallucinated", caption="\n".join(caption)),
                    ("level", "answers", "precision", "recall", "F1 [95% CI]"), left=2)
    for level, answers in SPAN_ROWS:
        m = scores[f"{level} {answers}"]
        low, high = m["f1_95"]
        table.add_row("tokens" if level == "token" else "characters", answers, f"{m['precision']:.3f}",
                      f"{m['recall']:.3f}", f"{m['f1']:.3f} [{low:.3f}, {high:.3f}]")
    return table


def compare_table(comparison: Comparison, title: str = "runs side by side") -> Table:
    """Every contender's metrics, one row each."""
    table = Table(title=shown(title))
    _name_column(table, [c.name for c in comparison.contenders])
    columns(table, ("judge", "court", "model", "cases", "errors", "bal. accuracy [95% CI]", "F1 (FAIL)",
                    "AUROC [95% CI]", "parse fail.", "tokens/case", "s/case"), left=3, overflow="fold")
    for contender, m in zip(comparison.contenders, comparison.metrics):
        table.add_row(shown(contender.name), shown(contender.judge), shown(contender.court or "-"),
                      shown(contender.model), str(m.cases), str(m.errors),
                      str(m.balanced_accuracy), _v(m.f1.value), str(m.auroc), str(m.parse_failures),
                      f"{m.tokens_per_case:.0f}", f"{m.seconds_per_case:.1f}")
    return table


def pairing_table(comparison: Comparison) -> Table:
    """Every contender after the first, paired with it on the cases both judged."""
    reference = comparison.contenders[0].name
    table = Table(title=shown(f"paired against {reference}: Δ = {reference} − run"),
                  caption="Δ > 0: the reference is ahead; on the cases both judged")
    _name_column(table, [p.name for p in comparison.pairings])
    columns(table, ("shared", "left out (errors)", "Δ bal. accuracy [95% CI]", "only ref right",
                    "only run right", "McNemar p"), left=0, overflow="fold")
    for p in comparison.pairings:
        ci = f" [{p.low:+.3f}, {p.high:+.3f}]" if p.low is not None and p.high is not None else ""
        table.add_row(shown(p.name), str(p.shared), str(p.left_out),
                      "-" if p.difference is None else f"{p.difference:+.3f}{ci}",
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
    """`text` cut to at most `width` characters at a word, with `…` where it was cut."""
    import textwrap

    return textwrap.shorten(" ".join(text.split()), width=width, placeholder=" …")


def trial_columns(summary: TrialSummary) -> dict[str, str]:
    """One run's trials as cells (`courtroom compare` and the HTML report)."""
    t, by = summary.total, summary.ended_by()
    return {"trials": str(t.tried), "bench rules": _share(by.get("judge", 0) + by.get("jury", 0), t.tried),
            "withdrawn": _share(by.get("withdrawn", 0), t.tried),
            "conceded": _share(by.get("conceded", 0), t.tried),
            "both spoke": _share(t.exchanged, t.tried),
            "chars/text": f"{t.text_chars / t.texts:.0f}" if t.texts else "-",
            "empty or unfinished": str(t.empty + t.unfinished),
            "bench with clerk": _share(t.with_clerk, t.measured)}


def endings_rows(summary: TrialSummary) -> tuple[list[str], list[list[str]]]:
    """How trials ended by round: the header (rounds) and one row per ending (`judge`, `withdrawn`, ...)."""
    rounds = summary.rounds()
    rows = [[source, *(str(summary.total.endings.get(f"{source}@{r}", 0)) for r in rounds), str(total)]
            for source, total in sorted(summary.ended_by().items(), key=lambda kv: -kv[1])]
    return ["ended by", *(f"round {r}" for r in rounds), "all"], rows


def trials_table(summary: TrialSummary) -> Table:
    """How a run's trials ended, round by round."""
    header, rows = endings_rows(summary)
    table = columns(Table(title=f"how {summary.total.tried} trials ended"), header)
    for row in rows:
        table.add_row(*row)
    return table


def trial_comparison_table(named: list[tuple[str, TrialSummary]]) -> Table:
    """Runs' trials side by side."""
    table = Table(title="trials: how they ended, what was written, the bench against the clerk")
    _name_column(table, [name for name, _ in named])
    columns(table, trial_columns(named[0][1]), left=0, overflow="fold")
    for name, summary in named:
        table.add_row(shown(name), *trial_columns(summary).values())
    return table


def _share(part: int, whole: int) -> str:
    return f"{part / whole:.0%}" if whole else "-"
