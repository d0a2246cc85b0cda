"""A case's transcript as a readable court record (rich), for `courtroom audit show`. Everything the
transcript holds is someone else's text: it is shown as text (`terminal.shown` in markup, `terminal.visible`
in a `Text`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from courtroom.case import Case
from courtroom.casefile import context_sentences
from courtroom.engine.events import Grounds
from courtroom.evaluate.results import ResultRow
from courtroom.log.case_record import CaseRecord
from courtroom.report.calls import call_views, folded
from courtroom.report.grounds import pieces, reading_note
from courtroom.report.measurement import BAND_LABELS, answer_gains, band, weakest
from courtroom.report.tables import columns
from courtroom.report.terminal import shown, visible
from courtroom.report.witness_record import row_spans, spans_record, witnesses_record
from courtroom.text.sentences import SPLITTER, SentenceSplitter


def highlight(text: str, quotes: Sequence[str], style: str) -> Text:
    """`text` with every occurrence of each quote (case-insensitive) styled."""
    rich_text = Text(visible(text))
    lower = text.lower()
    for quote in quotes:
        needle = " ".join(quote.lower().split())
        if not needle:
            continue
        start = lower.find(needle)
        while start != -1:
            rich_text.stylize(style, start, start + len(needle))
            start = lower.find(needle, start + 1)
    return rich_text


def rests_on(grounds: Grounds | None, answer: str, sentences: Sequence[str]) -> Text:
    """A move's pieces, each quote with where it is from and the check's mark, then how they were read."""
    text = Text()
    if grounds is None:
        return text
    for piece in pieces(grounds, answer, sentences):
        text.append(f"{piece.source} ", style="bold")
        text.append(f"'{visible(piece.quote)}'", style="red" if piece.source == "answer" else "yellow")
        text.append(" \u2713  " if piece.verified else " \u2717 NOT FOUND  ",
                    style="green" if piece.verified else "bold red")
    text.append(visible(reading_note(grounds)), style="dim")
    return text


def _given(*parts: tuple[str, float | None]) -> str:
    """Each (format, value) part whose value is not None, formatted, comma-separated."""
    return ", ".join(text.format(value) for text, value in parts if value is not None)


def measured(charge: Any) -> str:
    """What the court measured of a charged or dropped quote ("" when nothing was measured)."""
    return _given(("grounding {:+.2f} nats/token", charge.grounding), ("P(suspect) {:.2f}", charge.p_suspect))


def weighed(ruling: Any) -> str:
    """How a ruling's P(hallucinated) came about, when the court weighed more than its own opinion."""
    parts = _given(("the court's opinion {:.2f}", ruling.opinion),
                   ("measured grounding {:+.2f} nats/token", ruling.evidence),
                   ("first reading {:.2f}", ruling.first_reading))
    return f"P(hallucinated) {ruling.p_hallucinated:.2f} from {parts}" if parts else ""


def court_record(record: CaseRecord, gold: str | None = None, clip: float | None = None,
                 splitter: SentenceSplitter = SPLITTER) -> Group:
    """The case, the charges, each round's moves, the rulings and the verdict (`splitter`: the run's
    court's)."""
    case, verdict = record.case, record.verdict
    sentences = context_sentences(case, splitter)
    cited = set(record.cited())
    parts: list[Any] = []

    context = Text()
    for i, sentence in enumerate(sentences, start=1):
        context.append(f"[{i}] ", style="dim")
        context.append(visible(sentence) + "\n", style="bold yellow" if i in cited else "")
    head = Table.grid(padding=(0, 1))
    head.add_row("[bold]case[/]", shown(f"{case.id}  ({case.source}, judge {record.judge})"))
    head.add_row("[bold]question[/]", shown(case.question))
    head.add_row("[bold]answer[/]", highlight(case.answer, [c.quote for c in record.charges],
                                              "bold red underline"))
    head.add_row("[bold]gold[/]", shown(gold or case.label or "unlabelled"))
    parts.append(Panel(head, title="the case", border_style="blue"))
    if (heat := measurement_record(case, record.events, clip)) is not None:
        parts.append(heat)
    parts.append(Panel(context, title="context (cited sentences in yellow)", border_style="blue"))

    if record.indictment is not None:
        table = columns(Table(title="indictment", show_lines=False),
                        ("#", "charge (quoted from the answer)", "clerk's reason", "measured"), left=None)
        for c in record.charges:
            table.add_row(str(c.index + 1), shown(c.quote), shown(c.reason), measured(c))
        for d in record.dropped:
            table.add_row("-", Text(visible(d.quote), style="dim strike"),
                          Text(visible(f"dropped: {d.why_dropped}"), style="dim"),
                          Text(measured(d), style="dim"))
        parts.append(table)
    for trial in record.trials:
        table = columns(Table(title=f"trial of charge {trial.charge + 1}", expand=True),
                        ("round", "speaker", "move", "P(move)", "argument", "rests on (checked)"), left=None,
                        overflow="fold")
        for m in trial.moves:
            p = "forced" if m.forced else f"{m.move_probs.get(m.move, 0):.2f}" if m.move_probs else "-"
            if m.polled_probs:  # asked all the same: what the side would have done
                p += " (polled: " + ", ".join(f"{k} {v:.2f}" for k, v in m.polled_probs.items()) + ")"
            said = [str(value) for key, value in m.payload.items() if key != "evidence"]
            table.add_row(str(m.round), shown(f"{m.role} ({m.persona})"), shown(m.move), p,
                          shown(" | ".join(said)), rests_on(m.grounds, case.answer, sentences))
        if (ruling := trial.ruling) is not None:
            style = "red" if ruling.verdict.value == "hallucinated" else "green"
            table.add_row("", "[bold]ruling[/]", Text(ruling.verdict.value, style=f"bold {style}"),
                          f"{ruling.confidence:.2f}", shown(f"({ruling.source}) {ruling.reason}"))
            if how := weighed(ruling):
                table.add_row("", "[dim]weighed[/]", "", f"{ruling.p_hallucinated:.2f}",
                              Text(how, style="dim"))
        parts.append(table)

    if verdict is not None:
        parts.extend(panel for panel in (witnesses_record(verdict, case.answer, sentences),
                                         spans_record(verdict, case.answer, case.spans, sentences))
                     if panel is not None)
    summary = Table.grid(padding=(0, 1))
    if verdict is not None:
        style = "red" if verdict.label == "FAIL" else "green"
        mark = "" if not (gold or case.label) else (" (correct)"
                                                    if verdict.label == (gold or case.label) else " (wrong)")
        summary.add_row("[bold]verdict[/]", Text(f"{verdict.label}{mark}, score {verdict.score:.3f}",
                                                 style=f"bold {style}"))
        summary.add_row("[bold]reason[/]", shown(verdict.reason))
    if (error := record.error) is not None:
        summary.add_row("[bold red]error[/]", shown(f"{error.error_type}: {error.message}"))
    for e in record.edits:
        target = "case" if e.charge is None else f"charge {e.charge + 1}"
        summary.add_row("[bold magenta]edit[/]", shown(f"{target} -> {e.verdict.value} by "
                                                       f"{e.provenance.author} "
                                                       f"({e.provenance.time:%Y-%m-%d %H:%M}): "
                                                       f"{e.provenance.reason}"))
    calls = record.calls
    prompt = sum(c.prompt_tokens for c in calls)
    cached = sum(c.cached_prompt_tokens for c in calls)
    summary.add_row("[bold]cost[/]", f"{len(calls)} model calls, {prompt} prompt tokens ({cached} reused "
                                     f"from cache), {sum(c.completion_tokens for c in calls)} generated, "
                                     f"{sum(c.seconds / max(c.batch_size, 1) for c in calls):.1f} s")
    parts.append(Panel(summary, title="verdict", border_style="magenta"))
    return Group(*parts)


def row_record(row: ResultRow) -> Panel:
    """What a case's result row holds (for a case whose transcript is gone)."""
    grid = Table.grid(padding=(0, 1))
    grid.add_row("[bold]case[/]", shown(f"{row.case_id}  ({row.source})"))
    grid.add_row("[bold]gold[/]", shown(row.gold or "unlabelled"))
    if row.label is not None:
        mark = "" if row.correct is None else (" (correct)" if row.correct else " (wrong)")
        grid.add_row("[bold]verdict[/]", shown(f"{row.label}{mark}, score {row.score:.3f}"))
        grid.add_row("[bold]reason[/]", shown(row.reason))
    if row.spans:
        grid.add_row("[bold]spans[/]", row_spans(row.spans))
    if row.error:
        grid.add_row("[bold red]error[/]", shown(f"{row.error_type}: {row.error}"))
    grid.add_row("[bold]cost[/]", f"{row.model_calls} model calls, {row.prompt_tokens} prompt tokens, "
                                  f"{row.completion_tokens} generated, {row.seconds:.1f} s")
    return Panel(grid, title="the results row (no transcript)", border_style="yellow")


BAND_STYLES = ("white on red3", "black on orange1", "black on khaki1", "black on pale_green1",
               "black on green3")
"""Token shading by grounding band (`measurement.band`): what the context accounts for least is red, most
green."""


def measurement_record(case: Case, events: Sequence[Any], clip: float | None) -> Panel | None:
    """The answer shaded token by token by its grounding gain, the weakest words underlined; None if not
    measured."""
    gains = answer_gains(case, events, clip)
    if not gains:
        return None
    answer = case.answer.strip()
    text = Text(visible(answer))
    for token in gains:
        text.stylize(BAND_STYLES[band(token.gain)], token.start, token.end)
    for start, end in weakest(gains, answer):
        text.stylize("bold underline", start, end)
    legend = Text("gain (nats per token, capped at " + (f"{clip:g}" if clip else "none") + "): ")
    for style, label in zip(BAND_STYLES, BAND_LABELS):
        legend.append(f" {label} ", style=style)
        legend.append(" ")
    legend.append("  underlined: the words the context accounts for least")
    return Panel(Group(text, Text(""), legend), title="the measurement, token by token", border_style="cyan")


def calls_record(events: Sequence[Any]) -> Group:
    """Every model call of the case: prompt (shared opening folded), constraint, raw output, probabilities,
    cost."""
    panels = []
    for call in call_views(events):
        body = Table.grid(padding=(0, 1))
        body.add_row("[bold]constraint[/]", shown(call.constraint))
        for role, content, shared in call.messages:
            body.add_row(f"[bold]{shown(role)}[/]", shown(folded(content, shared)))
        body.add_row("[bold]output[/]", shown(call.raw) if call.raw else "[dim](empty)[/]")
        if call.option_probs:
            body.add_row("[bold]options[/]",
                         shown(", ".join(f"{o} {p:.3f}" for o, p in call.option_probs.items())))
        if call.error:
            body.add_row("[bold red]error[/]", shown(call.error))
        body.add_row("[bold]cost[/]", f"{call.prompt_tokens} prompt tokens ({call.reused_tokens} reused), "
                                      f"{call.completion_tokens} generated, {call.seconds:.2f} s")
        where = f" · {call.where}" if call.where else ""
        panels.append(Panel(body, title=shown(f"call {call.number} · {call.purpose} · {call.speaker}{where}"),
                            border_style="grey50"))
    return Group(*panels)
