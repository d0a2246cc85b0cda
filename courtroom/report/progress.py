"""The progress display of `run` and `demo`: a rich bar driven by `runs.progress.RunProgress`.

    judging ━━━━━━━╸━━━━━━━━  3/20  8 running · 5/16 calls in flight (step 2) · 412 tok/s · 0:01:10 · ETA
    0:06:40

Where the output is not a terminal, the same line is printed as plain text every `PLAIN_EVERY` seconds."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

from rich.console import Console
from rich.progress import BarColumn, Progress, ProgressColumn, Task, TaskID, TextColumn
from rich.text import Text

from courtroom.runs.progress import RunProgress, Snapshot

PLAIN_EVERY = 30.0
"""Seconds between the plain progress lines of a run whose output is not a terminal."""
STYLES = {"count": "progress.download", "work": "progress.data.speed", "elapsed": "progress.elapsed",
          "eta": "progress.remaining"}


def parts(s: Snapshot) -> dict[str, str]:
    """What the progress line says, part by part (the bar's columns; the plain line)."""
    step = f" (step {s.step + 1})" if s.step is not None else ""
    flight = f"{s.in_flight}/{s.batch} calls in flight{step}" if s.batch else "starting"
    return {"count": f"{s.done}/{s.total}", "work": f"{s.running} running · {flight} · "
                                                    f"{s.tokens_per_second:,.0f} tok/s",
            "elapsed": str(timedelta(seconds=int(s.elapsed))),
            "eta": f"ETA {'-:--:--' if s.eta is None else timedelta(seconds=int(s.eta))}"}


class _Live(ProgressColumn):
    """A column read from the run's progress at every refresh."""

    def __init__(self, monitor: RunProgress, part: str) -> None:
        super().__init__()
        self.monitor, self.part = monitor, part

    def render(self, task: Task) -> Text:  # noqa: ARG002
        return Text(parts(self.monitor.snapshot())[self.part], style=STYLES[self.part])


@contextmanager
def run_progress(console: Console, total: int, done: int, calls_per_case: float,
                 description: str = "judging") -> Iterator[tuple[RunProgress, Progress, TaskID]]:
    """A live progress display for a run; yields its `RunProgress` (the runner's observer), `Progress` and
    task."""
    holder: dict[str, TaskID] = {}
    printed = [float("-inf")]

    def refresh(monitor: RunProgress) -> None:
        if "task" not in holder:
            return
        snapshot = monitor.snapshot()
        progress.update(holder["task"], completed=snapshot.fraction)
        if not console.is_terminal and monitor.clock() - printed[0] >= PLAIN_EVERY:
            printed[0] = monitor.clock()
            console.print(f"{description} {' · '.join(parts(snapshot).values())}", markup=False,
                          highlight=False)

    monitor = RunProgress(total, done, calls_per_case, on_change=refresh)
    columns = [TextColumn("[progress.description]{task.description}"), BarColumn(), _Live(monitor, "count"),
               _Live(monitor, "work"), _Live(monitor, "elapsed"), _Live(monitor, "eta"),
               TextColumn("{task.fields[score]}")]
    with Progress(*columns, console=console) as progress:
        holder["task"] = progress.add_task(description, total=total, completed=done, score="")
        yield monitor, progress, holder["task"]
