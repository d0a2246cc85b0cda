"""Run directories: `manifest.json`, `transcripts/<case>.jsonl`, `results.jsonl` (a line per finished case,
written after its transcript, so a killed run resumes cleanly), `metrics.json` and `judgements.jsonl` (the
record of human judgement: `log.judgements`; earlier versions' `edits.jsonl` is read into it). A command
writes only into a new, empty or run directory none of whose files is a symbolic link (`RunStore.lock`)."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from courtroom.case import Case, VariantVerdict
from courtroom.engine.events import Event, parse_event
from courtroom.engine.lockstep import CaseOutcome
from courtroom.errors import RunError, TranscriptError
from courtroom.evaluate.metrics import Metrics
from courtroom.evaluate.results import TRANSCRIPTS, ResultRow, summarize
from courtroom.log.files import (
    MAX_LINE_BYTES,
    RunLock,
    append_line,
    atomic_write,
    cut_torn_line,
    read_lines,
    refuse_links,
    run_file,
)
from courtroom.log.manifest import Manifest

MANIFEST = "manifest.json"
LOCK = ".lock"
EDITS_LOCK = ".edits.lock"
RESULTS = "results.jsonl"
METRICS = "metrics.json"
EDITS = "edits.jsonl"
"""Where earlier versions recorded `audit edit`'s corrections: read into the record, never written."""
JUDGEMENTS = "judgements.jsonl"
RUN_FILES = (MANIFEST, RESULTS, METRICS, EDITS, JUDGEMENTS)
"""The files a run writes into its directory (besides `transcripts/` and the locks)."""
LOCKS = (LOCK, EDITS_LOCK)
"""The lock files (`.lock` while a run writes, `.edits.lock` while a judgement is recorded); never deleted."""
WRITTEN = re.compile("(" + "|".join(map(re.escape, RUN_FILES)) + r")(\.tmp\d+(-\d+)?)?")
"""The names a run writes into its directory: its files and their temporary files (`courtroom.log.files`)."""
WRITTEN_TRANSCRIPT = re.compile(r".+\.jsonl(\.tmp\d+(-\d+)?)?")
"""The names a run writes into `transcripts/`."""


def transcript_name(case_id: str) -> str:
    """A file name for a case id that no other id shares (also case-insensitively): safe, then 12 hex of its
    SHA-256."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", case_id)[:80]
    return f"{safe}-{hashlib.sha256(case_id.encode()).hexdigest()[:12]}.jsonl"


def legacy_transcript_name(case_id: str) -> str:
    """The file name runs recorded before 0.2 gave a case (two ids could share it: `a/b` and `a_b-3ec69c85`,
    or `Case` and `case` on a case-insensitive file system); such runs keep their files, named in their
    rows."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", case_id)[:80]
    if safe != case_id:
        safe += "-" + hashlib.sha1(case_id.encode()).hexdigest()[:8]
    return f"{safe}.jsonl"


class RunStore:
    """Reads and writes one run directory."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self._transcripts: dict[str, str] | None = None

    @property
    def manifest_path(self) -> Path:
        return self.root / MANIFEST

    @property
    def results_path(self) -> Path:
        return self.root / RESULTS

    def exists(self) -> bool:
        return self.manifest_path.is_file()

    def existing(self) -> RunStore:
        """This store, when it holds a run; else a `RunError`."""
        if not self.exists():
            raise RunError(f"{self.root} is not a run directory (no {MANIFEST})")
        return self

    def lock(self) -> RunLock:
        """Claim the run directory for this process (until `close()`); a second writer is refused
        (`check_writable`)."""
        self.check_writable()
        self.root.mkdir(parents=True, exist_ok=True)
        return RunLock(self.root / LOCK, busy=f"{self.root} is being written by another run right now; wait "
                                              "for it to end or use another --out")

    def record_lock(self) -> RunLock:
        """Claim the run's record of judgements while one is written; another writer waits its turn (up to a
        minute)."""
        refuse_links(self.root, (JUDGEMENTS, EDITS_LOCK))
        return RunLock(self.root / EDITS_LOCK, wait=60, busy=f"{self.root}: another judgement has been "
                                                             "recording for a minute; try again when it ends")

    def check_writable(self) -> None:
        """Refuse (`RunError`) a directory whose run files are symbolic links, or that holds files but no
        run."""
        refuse_links(self.root, (*RUN_FILES, TRANSCRIPTS, *LOCKS))
        if self.root.is_dir() and not self.exists():
            self._refuse_foreign("--out")

    def _refuse_foreign(self, option: str) -> None:
        """Refuse a directory that holds more than a run that never started leaves, naming what it holds."""
        entries = [p for p in self.root.iterdir() if p.name not in LOCKS
                   and not re.fullmatch(r"manifest\.json\.tmp\d+(-\d+)?", p.name)
                   and not (p.name == TRANSCRIPTS and p.is_dir() and not any(p.iterdir()))]
        if entries:
            listed = ", ".join(sorted(p.name for p in entries)[:5]) + (" ..." if len(entries) > 5 else "")
            raise RunError(f"{option} {self.root}: not a run directory (no {MANIFEST}) and not empty "
                           f"({listed}); a run writes only into a new, an empty or a run directory: give "
                           "another")

    def clear(self) -> None:
        """Delete the run recorded here (`--fresh`): the files a run writes, nothing else."""
        if not self.root.is_dir():
            return
        if not self.exists():
            self._refuse_foreign("--fresh")
        for path in self.root.iterdir():
            if WRITTEN.fullmatch(path.name) or (path.name == TRANSCRIPTS and path.is_symlink()):
                path.unlink()
        transcripts = self.root / TRANSCRIPTS
        if transcripts.is_dir() and not transcripts.is_symlink():
            for path in transcripts.iterdir():
                if WRITTEN_TRANSCRIPT.fullmatch(path.name) and (path.is_symlink() or path.is_file()):
                    path.unlink()
            if not any(transcripts.iterdir()):
                transcripts.rmdir()
        self._transcripts = None

    def write_manifest(self, manifest: Manifest) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        (self.root / TRANSCRIPTS).mkdir(exist_ok=True)
        atomic_write(self.manifest_path, manifest.model_dump_json(indent=2))

    def write_metrics(self, metrics: Metrics, spans: dict[str, Any] | None = None) -> None:
        """Record the run's metrics (`metrics.json`, written whole), with its span metrics under `spans`."""
        text = metrics.model_dump_json(indent=2) if spans is None else \
            json.dumps({**metrics.model_dump(mode="json"), "spans": spans}, indent=2)
        atomic_write(self.root / METRICS, text)

    def manifest(self) -> Manifest:
        """The run's manifest; one that cannot be read or does not validate is a `RunError` naming the
        file."""
        try:
            with run_file(self.manifest_path, limit=MAX_LINE_BYTES) as handle:
                text = handle.read().decode("utf-8")
        except OSError as exc:
            raise RunError(f"{self.manifest_path}: cannot read the run's manifest ({exc.strerror})") from exc
        except UnicodeDecodeError as exc:
            raise RunError(f"{self.manifest_path}: not a valid run manifest (not valid UTF-8 at byte "
                           f"{exc.start})") from exc
        try:
            return Manifest.model_validate_json(text).read_from(self.manifest_path)
        except ValidationError as exc:
            raise RunError(f"{self.manifest_path}: not a valid run manifest ({first_problem(exc)})") from exc
        except (ValueError, TypeError, KeyError) as exc:  # a migration of an older manifest that is not one
            raise RunError(f"{self.manifest_path}: not a valid run manifest ({type(exc).__name__}: "
                           f"{exc})") from exc

    def write(self, outcome: CaseOutcome, variants: dict[str, VariantVerdict] | None = None) -> ResultRow:
        """Store a finished case: its transcript first, then its result line (with the variants' verdicts)."""
        name = self.transcript_path(outcome.case.id).relative_to(self.root).as_posix()
        text = "".join(event.model_dump_json() + "\n" for event in outcome.events)
        atomic_write(self.root / name, text)
        row = summarize(outcome, name, variants)
        if self._transcripts is not None:
            self._transcripts[outcome.case.id] = name
        append_line(self.results_path, row.model_dump_json())
        return row

    def rows(self) -> list[ResultRow]:
        """The latest row of every case (a case judged again on resume counts once), in the order written."""
        latest: dict[str, ResultRow] = {}
        for row in self.iter_rows():
            latest.pop(row.case_id, None)
            latest[row.case_id] = row
        return list(latest.values())

    def iter_rows(self) -> Iterator[ResultRow]:
        """Every result line, in order (a torn last line skipped; another bad line a `RunError` naming its
        line)."""
        return (row for row, _ in self.rows_from((0, 0)))

    def rows_from(self, at: tuple[int, int]) -> Iterator[tuple[ResultRow, tuple[int, int]]]:
        """The result lines after `at` (a byte offset and the lines before it), each with where the next one
        starts: a run being written is read by what was appended since."""
        if not (self.results_path.exists() or self.results_path.is_symlink()):
            return
        offset = at[0]
        for number, raw in read_lines(self.results_path, at=at):
            if not raw.endswith(b"\n"):
                return  # torn write at the end of an interrupted run (or one being written)
            offset += len(raw)
            where = f"{self.results_path}:{number}"
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise RunError(f"{where}: not a result row (not valid UTF-8 at column {exc.start + 1}); "
                               "fix or remove the line") from exc
            if not line.strip():
                continue
            try:
                yield ResultRow.model_validate_json(line), (offset, number)
            except ValidationError as exc:
                raise RunError(f"{where}: not a result row ({first_problem(exc)}); fix or remove the "
                               "line") from exc

    def finished_ids(self) -> set[str]:
        """The cases a resumed run skips: those whose latest row holds a verdict."""
        return {row.case_id for row in self.rows() if row.error is None}

    def repair(self) -> None:
        """Cut a torn last line left by an interrupted run, so appends start on a fresh line."""
        cut_torn_line(self.results_path)

    def transcript_path(self, case_id: str) -> Path:
        """Where a case's transcript is: as its result row names it (runs before 0.2), else by
        `transcript_name`."""
        if self._transcripts is None:
            self._transcripts = {row.case_id: row.transcript for row in self.iter_rows() if row.transcript}
        return self.root / self._transcripts.get(case_id, f"{TRANSCRIPTS}/{transcript_name(case_id)}")

    def events(self, case_id: str) -> list[Event]:
        """A case's events, validated."""
        return read_transcript(self.transcript_path(case_id))

    def case(self, case_id: str) -> Case:
        """The case as its transcript's first event records it, read alone (a transcript runs to
        megabytes)."""
        return read_case(self.transcript_path(case_id))


def first_problem(exc: ValidationError) -> str:
    """The first problem pydantic found, with its field, in a few words."""
    errors = exc.errors()
    if not errors:
        return str(exc)
    first = errors[0]
    field = ".".join(map(str, first["loc"]))
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return (f"field {field}: " if field else "") + first["msg"] + more


def _transcript(path: Path) -> Iterator[tuple[int, str]]:
    """A transcript's lines, numbered, that are not blank; a file missing or unreadable (not a file of the
    run's own, a line too long, not UTF-8) is a `TranscriptError` naming it."""
    try:
        for number, raw in read_lines(path, TranscriptError):
            if raw.strip():
                yield number, raw.decode("utf-8")
    except FileNotFoundError as exc:
        raise TranscriptError(f"{path}: the transcript is missing") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise TranscriptError(f"{path}: cannot read the transcript ({exc})") from exc


def read_transcript(path: str | Path) -> list[Event]:
    """Every line of a transcript file as an event; a bad transcript is a `TranscriptError` naming file and
    line."""
    path = Path(path)
    events = []
    for number, line in _transcript(path):
        try:
            events.append(parse_event(line))
        except ValidationError as exc:
            raise TranscriptError(f"{path}:{number}: not a transcript event ({first_problem(exc)})") from exc
    if not events or events[0].event != "case_start":
        raise TranscriptError(f"{path}: " + ("the transcript is empty" if not events else
                                             "the transcript does not begin with case_start"))
    return events


def read_case(path: str | Path) -> Case:
    """The case of a transcript's first event, `case_start` (else a `TranscriptError` naming the file)."""
    path = Path(path)
    lines = _transcript(path)
    _, line = next(lines, (0, ""))
    lines.close()
    if not line:
        raise TranscriptError(f"{path}: the transcript is empty")
    try:
        event = parse_event(line)
    except ValidationError as exc:
        raise TranscriptError(f"{path}: its first event is not a transcript event "
                              f"({first_problem(exc)})") from exc
    if event.event != "case_start":
        raise TranscriptError(f"{path}: the transcript does not begin with case_start")
    return event.case
