"""Run directories: a manifest, one transcript per case, and a results file that streams as cases end.

```
runs/NAME/
  manifest.json              what ran (`courtroom.log.manifest`): the run spec, the judge's configuration, versions
  results.jsonl              one line per finished case (verdict or error), appended as each case ends
  transcripts/<case>.jsonl   the case's events, written whole (atomic rename) before its result line
```

A result line is written only after its transcript is complete, so a run killed at any moment
resumes cleanly: finished cases are those with a result line; a torn last line is ignored.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from courtroom.case import VariantVerdict
from courtroom.engine.events import Event, parse_event
from courtroom.engine.lockstep import CaseOutcome
from courtroom.errors import RunError, TranscriptError
from courtroom.evaluate.results import ResultRow, summarize
from courtroom.log.manifest import Manifest

MANIFEST = "manifest.json"
LOCK = ".lock"
RESULTS = "results.jsonl"
TRANSCRIPTS = "transcripts"
RUN_FILES = (MANIFEST, RESULTS, "metrics.json", "edits.jsonl")
"""The files a run writes into its directory (besides `transcripts/` and the lock)."""


def transcript_name(case_id: str) -> str:
    """A file name for a case id that no other id shares, also on a case-insensitive file system: the id made
    safe (at most 80 characters), then 12 hex digits of its SHA-256."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", case_id)[:80]
    return f"{safe}-{hashlib.sha256(case_id.encode()).hexdigest()[:12]}.jsonl"


def legacy_transcript_name(case_id: str) -> str:
    """The file name runs recorded before 0.2 gave a case (two ids could share it: `a/b` and `a_b-3ec69c85`,
    or `Case` and `case` on a case-insensitive file system); such runs keep their files, named in their rows."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", case_id)[:80]
    if safe != case_id:
        safe += "-" + hashlib.sha1(case_id.encode()).hexdigest()[:8]
    return f"{safe}.jsonl"


class RunLock:
    """An exclusive lock on a run directory (`.lock`, through `filelock`: flock on POSIX, msvcrt on Windows), held
    while a run writes into it; a second writer is refused at once, however the first was started."""

    def __init__(self, root: Path) -> None:
        from filelock import FileLock, Timeout

        self.handle: Any = FileLock(root / LOCK, timeout=0, thread_local=False)
        try:
            self.handle.acquire()
        except Timeout:
            self.handle = None
            raise RunError(f"{root} is being written by another run right now; wait for it to end "
                           "or use another --out") from None

    def close(self) -> None:
        """Release the directory."""
        if self.handle is not None:
            self.handle.release(force=True)
            self.handle = None

    def __del__(self) -> None:
        self.close()


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

    def lock(self) -> RunLock:
        """Claim the run directory for this process (released by `close()` or when the process ends,
        however it ends); a second run writing into the same directory would duplicate cases, so it is
        refused."""
        self.root.mkdir(parents=True, exist_ok=True)
        return RunLock(self.root)

    def clear(self) -> None:
        """Delete the run recorded here (`--fresh`), and nothing else: the run's own files go, any other
        file stays. A directory that holds files but no run is refused, naming what it holds."""
        if not self.root.is_dir():
            return
        entries = [p for p in self.root.iterdir() if p.name != LOCK]
        if entries and not self.exists():
            listed = ", ".join(sorted(p.name for p in entries)[:5]) + (" ..." if len(entries) > 5 else "")
            raise RunError(f"--fresh {self.root}: not a run directory (no {MANIFEST}), refusing to delete what it "
                           f"holds ({listed}); give --out a new or a run directory")
        for path in entries:
            if path.name == TRANSCRIPTS and path.is_dir():
                shutil.rmtree(path)
            elif path.name in RUN_FILES or path.name.startswith(MANIFEST + ".tmp"):
                path.unlink()
        self._transcripts = None

    def write_manifest(self, manifest: Manifest) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        (self.root / TRANSCRIPTS).mkdir(exist_ok=True)
        _atomic_write(self.manifest_path, manifest.model_dump_json(indent=2))

    def manifest(self) -> Manifest:
        """The run's manifest; one that cannot be read or does not validate is a `RunError` naming the file."""
        try:
            text = self.manifest_path.read_text(encoding="utf-8")
        except OSError as exc:
            raise RunError(f"{self.manifest_path}: cannot read the run's manifest ({exc.strerror})") from exc
        except UnicodeDecodeError as exc:
            raise RunError(f"{self.manifest_path}: not a valid run manifest (not valid UTF-8 at byte "
                           f"{exc.start})") from exc
        try:
            return Manifest.model_validate_json(text).read_from(self.manifest_path)
        except ValidationError as exc:
            raise RunError(f"{self.manifest_path}: not a valid run manifest ({_first_problem(exc)})") from exc
        except (ValueError, TypeError, KeyError) as exc:  # a migration of an older manifest that is not one
            raise RunError(f"{self.manifest_path}: not a valid run manifest ({type(exc).__name__}: {exc})") from exc

    def write(self, outcome: CaseOutcome, variants: dict[str, VariantVerdict] | None = None) -> ResultRow:
        """Store a finished case: its transcript first, then its result line (with the variants' verdicts)."""
        name = str(self.transcript_path(outcome.case.id).relative_to(self.root))
        text = "".join(event.model_dump_json() + "\n" for event in outcome.events)
        _atomic_write(self.root / name, text)
        row = summarize(outcome, name, variants)
        if self._transcripts is not None:
            self._transcripts[outcome.case.id] = name
        with self.results_path.open("a", encoding="utf-8") as handle:
            handle.write(row.model_dump_json() + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        return row

    def rows(self) -> list[ResultRow]:
        """The latest row of every case, in the order the rows were written (a case that failed and was
        judged again on resume counts once, with its new row; a torn last line is skipped)."""
        latest: dict[str, ResultRow] = {}
        for row in self.iter_rows():
            latest.pop(row.case_id, None)
            latest[row.case_id] = row
        return list(latest.values())

    def iter_rows(self) -> Iterator[ResultRow]:
        """Every result line, in order; a torn last line (an interrupted write) is skipped, blank lines are
        ignored, and any other line that is not a result row is a `RunError` naming `results.jsonl:LINE`."""
        if not self.results_path.is_file():
            return
        with self.results_path.open("rb") as handle:
            for number, raw in enumerate(handle, start=1):
                if not raw.endswith(b"\n"):
                    return  # torn write at the end of an interrupted run
                where = f"{self.results_path}:{number}"
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise RunError(f"{where}: not a result row (not valid UTF-8 at column {exc.start + 1}); "
                                   "fix or remove the line") from exc
                if not line.strip():
                    continue
                try:
                    yield ResultRow.model_validate_json(line)
                except ValidationError as exc:
                    raise RunError(f"{where}: not a result row ({_first_problem(exc)}); fix or remove the "
                                   "line") from exc

    def finished_ids(self) -> set[str]:
        """The cases a resumed run skips: those whose latest row holds a verdict (a case that failed is
        judged again)."""
        return {row.case_id for row in self.rows() if row.error is None}

    def repair(self) -> None:
        """Cut a torn last line left by an interrupted run, so appends start on a fresh line."""
        if not self.results_path.is_file():
            return
        data = self.results_path.read_bytes()
        if data and not data.endswith(b"\n"):
            self.results_path.write_bytes(data[: data.rfind(b"\n") + 1])

    def transcript_path(self, case_id: str) -> Path:
        """Where a case's transcript is: as its result row names it (runs before 0.2 named files otherwise),
        else by `transcript_name`."""
        if self._transcripts is None:
            self._transcripts = {row.case_id: row.transcript for row in self.iter_rows() if row.transcript}
        return self.root / self._transcripts.get(case_id, f"{TRANSCRIPTS}/{transcript_name(case_id)}")

    def events(self, case_id: str) -> list[Event]:
        """A case's events, validated."""
        return read_transcript(self.transcript_path(case_id))


def _first_problem(exc: ValidationError) -> str:
    """The first problem pydantic found, with its field, in a few words."""
    errors = exc.errors()
    if not errors:
        return str(exc)
    first = errors[0]
    field = ".".join(map(str, first["loc"]))
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return (f"field {field}: " if field else "") + first["msg"] + more


def read_transcript(path: str | Path) -> list[Event]:
    """Validate every line of a transcript file as an event; a transcript that is missing, empty, not a
    transcript or has no `case_start` is a `TranscriptError` naming the file (and line)."""
    path = Path(path)
    events = []
    try:
        with path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    events.append(parse_event(line))
                except ValidationError as exc:
                    raise TranscriptError(f"{path}:{number}: not a transcript event ({_first_problem(exc)})") from exc
    except FileNotFoundError as exc:
        raise TranscriptError(f"{path}: the transcript is missing") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise TranscriptError(f"{path}: cannot read the transcript ({exc})") from exc
    if not events or events[0].event != "case_start":
        raise TranscriptError(f"{path}: " + ("the transcript is empty" if not events else
                                             "the transcript does not begin with case_start"))
    return events


def _atomic_write(path: Path, text: str) -> None:
    """Write a whole file or nothing: a temporary file renamed over it (removed if writing fails)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    try:
        with tmp.open("w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)

