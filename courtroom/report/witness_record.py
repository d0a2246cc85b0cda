"""The witnesses and hallucinated spans of a verdict in the court record (`courtroom audit show`), beside the
gold spans. Every text from the run is a `Text` of its `visible` characters, never markup or raw control
characters."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from courtroom.case import AnnotatedSpan, CaseVerdict, HallucinatedSpan
from courtroom.report.tables import elide
from courtroom.report.terminal import visible
from courtroom.report.testimony import PointerView, span_views, value_text, weighing_line, witness_views

PREDICTED_STYLE = "bold white on red3"
"""A span the court finds hallucinated (the background)."""
GOLD_STYLE = "bold underline bright_green"
"""A gold span (underlined): on a predicted span it keeps its underline under the predicted span's colours."""
MARKER_STYLE = "bold red"
POINTS_SHOWN = 8
"""Pointers listed per witness, strongest first (the rest are counted)."""
SENTENCE_WIDTH = 200
"""Characters of a context sentence quoted beside a span (the context panel numbers them whole)."""


def quoted(pointer: PointerView, sentence: bool = True) -> str:
    """`'words' (note)`, with the context sentence it names."""
    number = pointer.context_sentence
    where = (f"; context sentence [{number}]" if sentence and number
             and f"[{number}]" not in pointer.note else "")
    return f"'{pointer.words}' ({pointer.note}{where})"


def witnesses_record(verdict: CaseVerdict, answer: str, sentences: Sequence[str]) -> Panel | None:
    """Every witness the court heard (or could not, and why), with the ruling's weighing; None without
    testimony."""
    views = witness_views(verdict, answer, sentences)
    if not views:
        return None
    table = Table(expand=True, show_lines=True)
    table.add_column("witness", overflow="fold", ratio=2)
    table.add_column("values of the whole answer (part of the log-odds)", overflow="fold", ratio=3)
    table.add_column("points at (the answer's words, its note)", overflow="fold", ratio=5)
    for view in views:
        name = Text(visible(f"{view.name} v{view.version}"), style="bold")
        if view.about:
            name.append(visible(f"\n{view.about}"), style="dim")
        if not view.heard:
            unheard = Text(visible(f"not heard: {view.why_not}"), style="yellow")
            for value in (v for v in view.values if v.missing):
                unheard.append(visible(f"\n{value_text(value)}"), style="dim")
            table.add_row(name, unheard, Text("-", style="dim"))
            continue
        points = Text(visible("\n".join(quoted(p) for p in view.points[:POINTS_SHOWN])))
        if len(view.points) > POINTS_SHOWN:
            points.append(f"\n... and {len(view.points) - POINTS_SHOWN} more", style="dim")
        table.add_row(name, Text(visible("\n".join(value_text(v) for v in view.values) or "no values")),
                      points if view.points else Text("nothing", style="dim"))
    return Panel(Group(Text(visible(weighing_line(verdict.weighing)), style="italic"), table),
                 title="witnesses", border_style="cyan")


def answer_with_spans(answer: str, predicted: Sequence[HallucinatedSpan],
                      gold: Sequence[AnnotatedSpan]) -> Text:
    """The answer with the gold spans underlined, the predicted spans on red, each followed by its number."""
    styled = Text(visible(answer))  # one character for one: the spans' offsets stay right
    for span in gold:
        styled.stylize(GOLD_STYLE, span.start, span.end)
    for span in predicted:
        styled.stylize(PREDICTED_STYLE, span.start, span.end)
    ends: dict[int, list[int]] = {}
    for number, span in enumerate(predicted, start=1):
        ends.setdefault(min(span.end, len(answer)), []).append(number)
    out, position = Text(), 0
    for end in sorted(ends):
        out.append_text(styled[position:end])
        out.append("".join(f"[{n}]" for n in ends[end]), style=MARKER_STYLE)
        position = end
    out.append_text(styled[position:])
    return out


def spans_legend(gold: bool) -> Text:
    """What the styles of `answer_with_spans` mean."""
    legend = Text()
    legend.append(" found hallucinated [n] ", style=PREDICTED_STYLE)
    if gold:
        legend.append("  ")
        legend.append("gold (annotated)", style=GOLD_STYLE)
        legend.append("  both: underlined on red", style="dim")
    return legend


def spans_record(verdict: CaseVerdict, answer: str, gold: Sequence[AnnotatedSpan],
                 sentences: Sequence[str]) -> Panel | None:
    """The answer with its predicted (and gold) spans, each predicted one with its evidence; None without
    any."""
    if not verdict.spans and not gold:
        return None
    parts: list[Text | Table] = [answer_with_spans(answer, verdict.spans, gold), Text(""),
                                 spans_legend(bool(gold))]
    views = span_views(verdict, answer, sentences)
    if views:
        table = Table(expand=True, show_lines=True)
        for column, ratio in (("#", None), ("span", 4), ("score", None), ("named by", 2),
                              ("context sentence", 5), ("the witnesses on it", 6)):
            table.add_column(column, overflow="fold", ratio=ratio, no_wrap=ratio is None)
        for view in views:
            sentence = ("-" if view.context_sentence is None else
                        f"[{view.context_sentence}] "
                        f"{elide(view.context_text or '(no such sentence)', SENTENCE_WIDTH)}")
            quote = f"'{view.text}'" + ("" if view.verified is None else
                                        " (quote found)" if view.verified else " (quote not found)")
            evidence = "\n".join(f"{w}: {quoted(p, False)}" for w, p in view.evidence) or "-"
            table.add_row(str(view.number), Text(visible(quote), style="bold"), f"{view.score:.2f}",
                          Text(visible(", ".join(view.named_by))), Text(visible(sentence)),
                          Text(visible(evidence)))
        parts.append(table)
    else:
        why = ("it finds the answer faithful" if not verdict.hallucinated else
               "it finds the answer hallucinated, but no words of it were convicted")
        parts.append(Text(f"the court names no span: {why}", style="dim"))
    title = "hallucinated spans" + (" (and the gold spans)" if gold else "")
    return Panel(Group(*parts), title=title, border_style="red")


def row_spans(spans: Sequence[tuple[int, int, float]] | None) -> str:
    """A result row's spans as characters and scores (for a case whose transcript is gone)."""
    return ", ".join(f"characters {a}-{b} ({score:.2f})" for a, b, score in spans or ())
