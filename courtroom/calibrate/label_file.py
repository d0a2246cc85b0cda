"""The label file, the CSV export and import of a run's labels (`courtroom label --write/--read`, `calibrate
--labels`): a run's drawn cases, one a row, to fill in in a spreadsheet and read back only against the run it
was written for (its `case_digest` and `config_hash`); imported, its labels become judgements of the run's
record."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Container, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

from courtroom.calibrate.fit_ruling import Example
from courtroom.case import Case, CaseVerdict
from courtroom.errors import ConfigError
from courtroom.evaluate.paired import named
from courtroom.log.audit import Audit
from courtroom.log.export import FORMULA_STARTS, spreadsheet_safe
from courtroom.log.files import MAX_LINE_BYTES, atomic_file, run_file
from courtroom.log.judgements import Judgement

COLUMNS = ("case_id", "label", "question", "answer", "verdict", "p_hallucinated", "reason", "case_digest",
           "run", "config_hash")
REQUIRED = ("case_id", "label", "case_digest", "config_hash")
WORDS = {"hallucinated": True, "fail": True, "faithful": False, "pass": False}
"""What the label column may say (any case), and whether it means hallucinated."""


@dataclass(frozen=True)
class Candidate:
    """A judged case of a run drawn to label (`label_session`), as the terminal, the page and the file show
    it."""

    case: Case
    verdict: CaseVerdict
    p: float
    """P(hallucinated) by the prior (or the run's ruling, or the court's measure)."""
    threshold: float
    example: Example | None
    """Its testimony as a ruling reads it (None: its court heard none for it)."""


@dataclass(frozen=True)
class LabelRow:
    """One row read from a label file."""

    line: int
    case_id: str
    hallucinated: bool | None
    """None: left unlabelled (skipped)."""
    case_digest: str
    config_hash: str
    run: str


def word(hallucinated: bool | None) -> str:
    """The label column's word for a label (empty for none)."""
    return "" if hallucinated is None else "hallucinated" if hallucinated else "faithful"


def label_path(run: Path) -> Path:
    """Where `courtroom view` kept a run's labels before the record: `<run>.labels.csv` beside the run
    directory."""
    return run.parent / f"{run.name}.labels.csv"


def write_labels(path: str | Path, run_dir: str | Path | Audit, picked: Sequence[Candidate],
                 labels: Mapping[str, bool | None]) -> Path:
    """The label file of the run's picked cases, in order, with their `labels`, written whole or not at
    all."""
    manifest = Audit.of(run_dir).manifest
    path = Path(path)
    with atomic_file(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(COLUMNS)
        for c in picked:
            writer.writerow([guarded(c.case.id), *(spreadsheet_safe(cell) for cell in (
                word(labels.get(c.case.id)), c.case.question, c.case.answer.strip(),
                "hallucinated" if c.verdict.label == "FAIL" else "faithful", f"{c.p:.3f}", c.verdict.reason,
                c.case.digest(), manifest.name, manifest.config_hash))])
    return path


def guarded(case_id: str) -> str:
    """The case id's cell: with a leading `'` when it starts like a formula (`spreadsheet_safe`) or with a `'`
    (so `=x` and `'=x` are two cells), read back without it."""
    return f"'{case_id}" if case_id.startswith((*FORMULA_STARTS, "'")) else case_id


def read_rows(path: str | Path) -> list[LabelRow]:
    """The rows of a label file, every label checked (an error names the file and line), the case ids as
    written."""
    path = Path(path)
    try:
        # a file of its own (it may be a handed run's)
        with run_file(path, ConfigError, MAX_LINE_BYTES) as raw:
            # a spreadsheet's BOM
            reader = csv.DictReader(io.TextIOWrapper(raw, newline="", encoding="utf-8-sig"))
            missing = [c for c in REQUIRED if c not in (reader.fieldnames or [])]
            if missing:
                raise ConfigError(f"{path}:1: the label file lacks the "
                                  f"column{'s' if len(missing) > 1 else ''} {', '.join(missing)}: write it "
                                  f"with `courtroom label RUN --write {path}` and fill its label column")
            rows = []
            for record in reader:
                line = reader.line_num
                case_id = record.get("case_id") or ""
                text = (record.get("label") or "").strip()
                if text and text.lower() not in WORDS:
                    raise ConfigError(f"{path}:{line}: case {case_id}: the label {text!r} is not one of "
                                      "hallucinated, faithful (or FAIL, PASS); leave it empty to leave the "
                                      "case unlabelled")
                rows.append(LabelRow(line, case_id, WORDS[text.lower()] if text else None,
                                     (record.get("case_digest") or "").strip(),
                                     (record.get("config_hash") or "").strip(),
                                     (record.get("run") or "").strip()))
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the label file ({exc.strerror or exc})") from exc
    except (UnicodeDecodeError, csv.Error) as exc:
        raise ConfigError(f"{path}: not a label file (a CSV file in UTF-8): {exc}") from exc
    return rows


def _as_judged(row: LabelRow, judged: Container[str], digest: Callable[[str], str]) -> LabelRow:
    """The row with its case id as the run has it: the cell as written, or without spaces around it (as
    earlier versions read it), or either without its guard's `'` (`guarded`; earlier versions guarded `'=x`
    and `=x` alike): of those the run holds, the one whose digest (it covers the id) is the row's, else the
    first."""
    cells = (row.case_id, row.case_id.strip())
    held = [i for i in dict.fromkeys([*cells, *(c[1:] for c in cells if c.startswith("'"))]) if i in judged]
    matching = [i for i in held if digest(i) == row.case_digest]
    return replace(row, case_id=(matching or held or [row.case_id])[0])


def read_labels(path: str | Path, run_dir: str | Path | Audit) -> dict[str, bool | None]:
    """Each case's label (None: unlabelled) of a label file, checked against the run's judge, ids and
    cases."""
    rows = read_rows(path)
    audit = Audit.of(run_dir)
    manifest = audit.manifest
    for row in rows:
        if row.config_hash != manifest.config_hash:
            raise ConfigError(f"{path}:{row.line}: the label file was written for the run {row.run or '?'} "
                              f"(judge configuration {row.config_hash or 'not given'}), not for {audit.root} "
                              f"({manifest.config_hash}): give the run it was written for, or label this "
                              f"run's cases (courtroom label {audit.root} --write FILE)")
    judged = {r.case_id: r for r in audit.rows()}
    digest = cache(lambda case_id: judged[case_id].case_digest or audit.store.case(case_id).digest())
    rows = [_as_judged(row, judged, digest) for row in rows]
    lines: dict[str, int] = {}
    for row in rows:
        if lines.setdefault(row.case_id, row.line) != row.line:
            raise ConfigError(f"{path}:{row.line}: case {row.case_id} is listed twice (first on line "
                              f"{lines[row.case_id]}): keep one row a case")
    unknown = [r.case_id for r in rows if r.case_id not in judged]
    if unknown:
        raise ConfigError(f"{path}: {len(unknown)} case id{'s' if len(unknown) > 1 else ''} not in the run "
                          f"{audit.root} ({named(unknown)}, line "
                          f"{next(r.line for r in rows if r.case_id == unknown[0])}): label only the run's "
                          f"cases (courtroom label {audit.root} --write FILE lists them)")
    for row in rows:
        if row.case_digest != digest(row.case_id):
            raise ConfigError(f"{path}:{row.line}: case {row.case_id} was labelled as another case (digest "
                              f"{row.case_digest or 'not given'}; the run's case is {digest(row.case_id)}): "
                              "the data changed since the file was written; label the run's cases again "
                              f"(courtroom label {audit.root} --write FILE)")
    return {r.case_id: r.hallucinated for r in rows}


def import_labels(path: str | Path, run: Audit, author: str) -> int:
    """Record the labels of a label file in the run's record, those that differ from the label standing there
    (so a file imported twice records nothing more); how many were recorded."""
    standing = run.human_labels()
    new = [Judgement(case_id=case, label=word(label), author=author, note=f"from {Path(path).name}",
                     source="csv")
           for case, label in read_labels(path, run).items()
           if label is not None and standing.get(case) != ("FAIL" if label else "PASS")]
    if new:
        run.record_judgements(new)
    return len(new)
