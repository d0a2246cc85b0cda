"""`courtroom label RUN`: a random draw of a run's cases, labelled in the terminal or in a file to fill in and
read back, for `courtroom calibrate RUN --ruling OUT --prior FILE --labels FILE`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.panel import Panel
from rich.prompt import Prompt

from courtroom.cli.app import app, console, fail, failing
from courtroom.errors import CourtroomError
from courtroom.report.terminal import shown

if TYPE_CHECKING:
    from courtroom.calibrate.label_pick import Candidate, Candidates

KEYS = {"h": True, "f": False, "s": None}
EXCERPT = 600
"""Characters of the context and the answer shown in the terminal."""


@app.command()
def label(
    run_dir: str = typer.Argument(..., help="A finished run of a court that hears witnesses."),
    n: int = typer.Option(30, "--n", min=1, help="Labels to ask for."),
    ruling: str | None = typer.Option(None, "--ruling", help="Weigh the run's testimony by this ruling file "
                                                             "(the prior you will refit, e.g. "
                                                             "rulings/default.<model>.yaml); default: the "
                                                             "run's own ruling, else the court's measure."),
    out: str = typer.Option("labels.csv", "-o", "--out", help="The label file the terminal's labels are "
                                                              "saved to, after each one (labelling resumes "
                                                              "where it stopped)."),
    write: str | None = typer.Option(None, "--write", help="Write the picked cases to this label file, to "
                                                           "fill in its label column, instead of asking in "
                                                           "the terminal."),
    read: str | None = typer.Option(None, "--read", help="Check a filled label file against the run and "
                                                         "count its labels."),
    from_gold: bool = typer.Option(False, "--from-gold", help="For experiments: label the picked cases by "
                                                              "the data's gold labels (the gold as the "
                                                              "oracle), asking nothing."),
    seed: int = typer.Option(0, min=0, help="Seed of the random draw."),
) -> None:
    """Draw cases of a finished run at random (seeded; each shown with its P(hallucinated) by the ruling, or
    the court's measure), and ask for their labels in the terminal (h hallucinated, f faithful, s skip, q
    quit; saved after each), or write them to a CSV file to fill in (--write) and check it (--read). Then
    refit the ruling with the shipped one as its prior: courtroom calibrate RUN --ruling OUT.yaml --prior
    RULING --labels labels.csv."""
    with failing(out, "the label file"):
        if read is not None:
            _read(run_dir, read)
            return
        found, order = _picked(run_dir, ruling, n, seed, many=write is None and not from_gold)
        if write is not None or from_gold:
            _write(run_dir, write or out, found, order[:n], from_gold, ruling)
            return
        _ask(run_dir, out, found, order, n, ruling)


def _picked(run_dir: str, ruling: str | None, n: int, seed: int,
            many: bool) -> tuple[Candidates, list[Candidate]]:
    """The run's candidates and the picked ones, in order (with `many`, more than `n`: skipped ones are
    replaced)."""
    from courtroom.calibrate.label_pick import candidates, picked
    from courtroom.calibrate.prior_runs import read_prior

    found = candidates(run_dir, read_prior(ruling)[0] if ruling is not None else None)
    return found, picked(found, n, seed, spare=2 * n if many else 0)


def _refit_hint(run_dir: str, path: str, ruling: str | None) -> str:
    return (f"refit: courtroom calibrate {shown(run_dir)} --ruling RULING.yaml --prior "
            f"{shown(ruling or 'PRIOR.yaml')} --labels {shown(path)}")


def _write(run_dir: str, path: str, found: Candidates, order: list[Candidate], from_gold: bool,
           ruling: str | None) -> None:
    from courtroom.calibrate.label_file import read_rows, write_labels

    if Path(path).exists():  # a file of labels someone gave is never written over
        try:
            given = sum(r.hallucinated is not None for r in read_rows(path))
        except CourtroomError:
            fail(f"{path}: exists and is not a label file (no case_id, label, case_digest and config_hash "
                 "columns): choose another file")
        if given:
            fail(f"{path} holds {given} label{'s' if given > 1 else ''}: writing the picked cases there "
                 "would replace them; choose another file (--write FILE), or continue labelling it in the "
                 f"terminal (-o {path})")
    labels = ({c.case.id: c.case.label == "FAIL" for c in order if c.case.label is not None}
              if from_gold else {})
    write_labels(path, run_dir, order, labels)
    console.print(f"wrote {shown(path)}: {len(order)} cases of {shown(str(found.run))} drawn at random, "
                  f"weighed by {shown(found.weighed_by)}" +
                  (f", labelled by the data's gold ({len(labels)})" if from_gold else
                   "; fill its label column with hallucinated or faithful (empty: unlabelled)"))
    console.print(_refit_hint(run_dir, path, ruling))


def _read(run_dir: str, path: str) -> None:
    from courtroom.calibrate.label_file import read_labels
    from courtroom.calibrate.prior_refit import WEIGHTS_MIN_PER_CLASS

    labels = read_labels(path, run_dir)
    given = [v for v in labels.values() if v is not None]
    fails, passes = sum(given), len(given) - sum(given)
    console.print(f"{shown(path)}: {len(labels)} cases of {shown(run_dir)}, {len(given)} labelled ({fails} "
                  f"hallucinated, {passes} faithful), {len(labels) - len(given)} left unlabelled")
    if min(fails, passes) < WEIGHTS_MIN_PER_CLASS:
        console.print(f"with fewer than {WEIGHTS_MIN_PER_CLASS} of each kind, a refit moves the intercept "
                      "only")


def _ask(run_dir: str, path: str, found: Candidates, order: list[Candidate], n: int, ruling: str
         | None) -> None:
    from courtroom.calibrate.label_file import read_labels, write_labels

    labels: dict[str, bool | None] = {}
    shown_cases: list[Candidate] = []
    by_id = {c.case.id: c for c in found.cases}
    if Path(path).exists():
        labels = read_labels(path, run_dir)
        shown_cases = [by_id[case_id] for case_id in labels if case_id in by_id]
        console.print(f"resuming {shown(path)}: {sum(v is not None for v in labels.values())} labels so far")
    todo = [c for c in order if c.case.id not in labels]
    console.print(f"{len(found.cases)} cases of {shown(str(found.run))}, weighed by "
                  f"{shown(found.weighed_by)}; h hallucinated, f faithful, s skip, q quit (each label is "
                  "saved at once)")
    for c in todo:
        done = sum(v is not None for v in labels.values())
        if done >= n:
            break
        console.print(_panel(c, done + 1, n, found.weighed_by))
        try:
            key = Prompt.ask("label", choices=["h", "f", "s", "q"], console=console)
        except EOFError:
            key = "q"
        if key == "q":
            break
        labels[c.case.id] = KEYS[key]
        shown_cases.append(c)
        write_labels(path, run_dir, shown_cases, labels)
    given = [v for v in labels.values() if v is not None]
    console.print(f"{shown(path)}: {len(given)} labels ({sum(given)} hallucinated, {len(given) - sum(given)} "
                  "faithful)")
    console.print(_refit_hint(run_dir, path, ruling))


def _panel(c: Candidate, number: int, n: int, weighed_by: str) -> Panel:
    """A case as the terminal shows it: question, context, answer, the court's verdict and P(hallucinated)."""
    def cut(text: str) -> str:
        return shown(text if len(text) <= EXCERPT else text[:EXCERPT] + " ...")

    verdict = "hallucinated" if c.verdict.label == "FAIL" else "faithful"
    body = (f"[bold]question[/] {cut(c.case.question)}\n[bold]context[/] {cut(' '.join(c.case.context))}\n"
            f"[bold]answer[/] {cut(c.case.answer.strip())}\n[bold]the court[/] {verdict}: "
            f"{cut(c.verdict.reason)}\n[bold]weighed[/] P(hallucinated) {c.p:.2f} against {c.threshold:.2f}, "
            f"by {shown(weighed_by)}")
    return Panel(body, title=f"label {number} of {n}: {shown(c.case.id)}", title_align="left")
