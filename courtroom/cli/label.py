"""`courtroom label RUN`: a random draw of a run's cases labelled in the terminal, each label a judgement of
the run's record (`calibrate.label_session`, the workflow `courtroom view` drives too); `--write` and `--read`
export the drawn cases to a CSV file to fill in and import it back; then `courtroom calibrate RUN --ruling OUT
--prior FILE`."""

from __future__ import annotations

import getpass
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.panel import Panel
from rich.prompt import Prompt

from courtroom.cli.app import app, console, fail, failing
from courtroom.errors import CourtroomError
from courtroom.report.terminal import shown

if TYPE_CHECKING:
    from courtroom.calibrate.label_session import Candidate, LabelSession

EXCERPT = 600
"""Characters of the context and the answer shown in the terminal."""


@app.command()
def label(
    run_dir: str = typer.Argument(..., help="A run of a court that hears witnesses (one being written: its "
                                            "cases drawn among those its manifest lists, each asked once "
                                            "judged)."),
    n: int = typer.Option(30, "--n", min=1, help="Labels to ask for."),
    ruling: str | None = typer.Option(None, "--ruling", help="Weigh the run's testimony by this ruling file "
                                                             "(the prior you will refit, e.g. "
                                                             "rulings/default.<model>.yaml); default: the "
                                                             "run's own ruling, else the court's measure."),
    author: str | None = typer.Option(None, "--author", help="Who labels, as the record keeps it (default: "
                                                             "the login name)."),
    write: str | None = typer.Option(None, "--write", help="Export the drawn cases, with the labels the "
                                                           "run's record holds, to this CSV file to fill in "
                                                           "(its label column), instead of asking here."),
    read: str | None = typer.Option(None, "--read", help="Import the labels of a filled label file into the "
                                                         "run's record (checked against the run), and count "
                                                         "them."),
    from_gold: bool = typer.Option(False, "--from-gold", help="With --write, for experiments: label the "
                                                              "drawn cases by the data's gold labels (the "
                                                              "gold as the oracle)."),
    seed: int = typer.Option(0, min=0, help="Seed of the random draw."),
) -> None:
    """Draw cases of a run at random (seeded; each shown with its P(hallucinated) by the ruling, or the
    court's measure) and ask for their labels here (h hallucinated, f faithful, s skip, u take back the last,
    q quit), each recorded at once in the run's record of human judgement (judgements.jsonl, where `audit
    edit` corrections are too); or export them to a CSV file to fill in (--write) and import it (--read). Then
    refit the ruling with the shipped one as its prior: courtroom calibrate RUN --ruling OUT.yaml --prior
    RULING."""
    from courtroom.calibrate.label_file import import_labels
    from courtroom.calibrate.label_session import LabelSession
    from courtroom.log.audit import Audit

    if from_gold and write is None:
        fail("--from-gold writes the gold labels to a label file: give it with --write FILE (the run's "
             "record keeps only a person's labels)")
    who = author or getpass.getuser()
    with failing(write or read, "the label file"):
        run = Audit(run_dir)
        if read is not None:
            added = import_labels(read, run, who)
            labels = run.human_labels()
            console.print(f"{shown(read)}: {added} label{'s' * (added != 1)} recorded in {shown(run.root)} "
                          f"(the others stood there already); the run holds {len(labels)} labelled cases "
                          f"({sum(v == 'FAIL' for v in labels.values())} hallucinated)")
            return
        session = LabelSession(run, ruling, n, seed, who, "terminal", strict=True)
        if write is not None:
            _write(session, write, from_gold, ruling)
        else:
            _ask(session, ruling)


def _refit_hint(run: Path, ruling: str | None) -> str:
    return (f"refit: courtroom calibrate {shown(run)} --ruling RULING.yaml --prior "
            f"{shown(ruling or 'PRIOR.yaml')}")


def _write(s: LabelSession, path: str, from_gold: bool, ruling: str | None) -> None:
    from courtroom.calibrate.label_file import read_rows, write_labels

    if Path(path).exists():  # a file of labels someone gave is never written over
        try:
            given = sum(r.hallucinated is not None for r in read_rows(path))
        except CourtroomError:
            fail(f"{path}: exists and is not a label file (no case_id, label, case_digest and config_hash "
                 "columns): choose another file")
        if given:
            fail(f"{path} holds {given} label{'s' if given > 1 else ''}: writing the drawn cases there would "
                 f"replace them; choose another file, or import it first (courtroom label RUN --read {path})")
    order = [s.found[c] for c in s.order() if c in s.found][: s.n]
    words = s.words()
    labels = {c.case.id: c.case.label == "FAIL" for c in order
              if c.case.label is not None} if from_gold else \
        {c.case.id: words[c.case.id] == "hallucinated" for c in order
         if words.get(c.case.id) in ("hallucinated", "faithful")}
    write_labels(path, s.run, order, labels)
    console.print(f"wrote {shown(path)}: {len(order)} cases of {shown(str(s.run.root))} drawn at random, "
                  "weighed by "
                  f"{shown(s.weighed_by)}" + (f", labelled by the data's gold ({len(labels)})"
                                              if from_gold else
                                              "; fill its label column with hallucinated or faithful (empty: "
                                              "unlabelled) and import it: courtroom label RUN --read "
                                              f"{shown(path)}"))
    console.print(_refit_hint(s.run.root, ruling))


def _ask(s: LabelSession, ruling: str | None) -> None:
    words = s.words()
    todo = [c for c in s.order() if c in s.found and c not in words]
    asked = {c for c in s.order() if c in s.found}
    if words.keys() & asked:
        console.print(f"resuming: {len(words.keys() & asked)} of the drawn cases are labelled in "
                      f"{shown(s.run.root)}")
    waiting = [c for c in s.order() if c not in s.found]
    console.print(f"{len(s.found)} cases of {shown(str(s.run.root))}, weighed by {shown(s.weighed_by)}"
                  + (f" ({len(waiting)} drawn not judged yet)" if waiting else "")
                  + "; h hallucinated, f faithful, "
                  "s skip, u take back the last, q quit (each label is recorded at once in the run)")
    given: list[int] = []
    i = 0
    while i < len(todo):
        done = sum(c in s.labels() for c in asked)
        if done >= s.n:
            break
        console.print(_panel(s.found[todo[i]], done + 1, s.n, s.weighed_by))
        try:
            key = Prompt.ask("label", choices=["h", "f", "s", "u", "q"], console=console)
        except EOFError:
            key = "q"
        if key == "q":
            break
        if key == "u":
            if given:
                i = given.pop()
                s.undo(todo[i])
            else:
                console.print("no label of this session to take back")
            continue
        s.give(todo[i], key)
        given.append(i)
        i += 1
    labels = [v for c, v in s.labels().items() if c in asked]
    console.print(f"{shown(s.run.root)}: {len(labels)} drawn cases labelled ({sum(labels)} hallucinated, "
                  f"{len(labels) - sum(labels)} faithful)")
    try:  # what a refit on the run's labels would do, as the page says it after every label
        if (e := s.estimate()) is not None:
            got = e.summary()
            console.print(shown(f"a refit on the run's {got['labelled']} labels: out of fold "
                                f"{got['refit'] or '-'} against the prior's {got['prior']}; it would flip "
                                f"{got['flipped']} verdicts of the cases not labelled"))
    except CourtroomError as exc:
        console.print(shown(str(exc)))
    console.print(_refit_hint(s.run.root, ruling))


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
