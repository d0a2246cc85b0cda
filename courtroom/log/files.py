"""How `courtroom` reads and writes a run's files: only its own regular files, never through a symbolic link
(a run directory may be someone else's: docs/SECURITY.md), lines of a bounded length; whole or not at all, one
writer at a time; a torn last line is skipped when read, cut by the next append."""

from __future__ import annotations

import errno
import itertools
import os
import stat
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, BinaryIO

from courtroom.errors import CourtroomError, RunError

_WRITES = itertools.count()
"""Numbers the temporary files of this process's writes (`next` on a count is atomic in CPython)."""
NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
"""Open flags: fail on a symbolic link instead of following it (where the system can), and read bytes as they
are."""
NONBLOCK = getattr(os, "O_NONBLOCK", 0)
MAX_LINE_BYTES = 64 * 2**20
"""The longest line (or manifest) read from a run: a transcript's longest, a case with its context, takes a
few MB."""


def link_refused(path: Path) -> str:
    """Why a command will not read or write through the symbolic link at `path`."""
    return (f"{path} is a symbolic link (to {os.readlink(path)}): a run directory's files must be its own, "
            "courtroom never reads or writes through a link there; put the file itself there, or remove the "
            "link")


@contextmanager
def run_file(path: Path, error: type[CourtroomError] = RunError, limit: int
             | None = None) -> Iterator[BinaryIO]:
    """`path` opened to read if it is a regular file (of at most `limit` bytes), not a link nor in a linked
    `transcripts/` (a link to /dev/zero would fill the memory, a FIFO block for ever); else `error` naming it.
    A missing file is a `FileNotFoundError`."""
    if path.parent.name == "transcripts" and path.parent.is_symlink():
        raise error(link_refused(path.parent))
    fd = _open_unlinked(path, os.O_RDONLY | NONBLOCK, error)  # a FIFO opens at once
    if not stat.S_ISREG((info := os.fstat(fd)).st_mode) or (limit is not None and info.st_size > limit):
        os.close(fd)
        raise error(f"{path} is not a regular file (a folder, a device, a FIFO): a run's files are read only "
                    "when they are files of their own" if not stat.S_ISREG(info.st_mode) else
                    f"{path} is {info.st_size} bytes, over the {limit} courtroom reads of such a file")
    if NONBLOCK:
        os.set_blocking(fd, True)
    with os.fdopen(fd, "rb") as handle:
        yield handle


def read_lines(path: Path, error: type[CourtroomError] = RunError, at: tuple[int, int] = (0, 0)
               ) -> Iterator[tuple[int, bytes]]:
    """The lines of a run's file (`run_file`), numbered from 1 (or from `at`: a byte offset and the lines
    before it); one longer than `MAX_LINE_BYTES` is `error` naming it."""
    with run_file(path, error) as handle:
        handle.seek(at[0])
        for number, line in enumerate(iter(lambda: handle.readline(MAX_LINE_BYTES + 1), b""), start=at[1]
                                      + 1):
            if len(line) > MAX_LINE_BYTES:
                raise error(f"{path}:{number}: a line of more than {MAX_LINE_BYTES // 2**20} MiB, longer "
                            "than courtroom writes: not read")
            yield number, line


def refuse_links(root: Path, names: Iterable[str]) -> None:
    """Refuse (`RunError`, naming it) a run directory where any of `names` is a symbolic link."""
    for name in names:
        if (root / name).is_symlink():
            raise RunError(link_refused(root / name))


@contextmanager
def atomic_file(path: str | Path, mode: str = "w", **options: Any) -> Iterator[IO[Any]]:
    """A temporary file beside `path` (`open` mode and options) that replaces `path` when the block ends,
    flushed to disk, and is removed if the block fails. A `path` that is not a regular file is refused
    (`FileExistsError`)."""
    path = Path(path)
    # both follow a link: a link to a device is refused, not replaced
    if path.exists() and not path.is_file():
        raise FileExistsError(errno.EEXIST, "is not a regular file (a directory, a device such as /dev/null, "
                                            "a FIFO): a file is written beside its name and renamed over it, "
                                            "which would replace it; give the path of a file", str(path))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except FileExistsError:  # the folder named is a file
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(path.parent)) from None
    # one name per write, also between threads of one process (two `courtroom.run` finishing one run)
    tmp = path.with_name(f"{path.name}.tmp{os.getpid()}-{next(_WRITES)}")
    tmp.unlink(missing_ok=True)  # left by a killed process of the same id (a link is removed, not followed)
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NO_FOLLOW, 0o666)
        with os.fdopen(fd, mode, **options) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def atomic_write(path: str | Path, data: str | bytes) -> None:
    """Write a whole file or nothing (`atomic_file`); text as UTF-8."""
    binary = isinstance(data, bytes)
    with atomic_file(path, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8"})) as handle:
        handle.write(data)


def _open_unlinked(path: Path, flags: int, error: type[CourtroomError] = RunError) -> int:
    """A file descriptor on `path`, which must not be a symbolic link (refused, naming it)."""
    try:
        return os.open(path, flags | NO_FOLLOW, 0o666)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK) or path.is_symlink():
            raise error(link_refused(path)) from exc
        raise


def _cut_torn_line(fd: int) -> int:
    """Cut the bytes after the file's last newline (a line an interrupted append left torn); its size
    after."""
    size = end = os.fstat(fd).st_size
    keep = 0
    while end > 0:
        start = max(0, end - 65536)
        os.lseek(fd, start, os.SEEK_SET)
        chunk = os.read(fd, end - start)
        if (cut := chunk.rfind(b"\n")) >= 0:
            keep = start + cut + 1
            break
        end = start
    if keep != size:
        os.ftruncate(fd, keep)
    return keep


def cut_torn_line(path: Path) -> None:
    """Cut a torn last line of `path` (if it exists), so that appends start on a line of their own."""
    if path.exists() or path.is_symlink():
        fd = _open_unlinked(path, os.O_RDWR)
        try:
            _cut_torn_line(fd)
        finally:
            os.close(fd)


def append_line(path: Path, line: str) -> None:
    """Append one line to `path`, flushed to disk: all of it or none. A torn last line left by an interrupted
    append is cut first; if writing fails (a full disk), the file is cut back to what it was and the error
    raised."""
    data = (line.rstrip("\n") + "\n").encode("utf-8")
    fd = _open_unlinked(path, os.O_RDWR | os.O_CREAT | os.O_APPEND)
    try:
        size = _cut_torn_line(fd)
        try:
            written = 0
            while written < len(data):
                written += os.write(fd, data[written:])
            os.fsync(fd)
        except BaseException:
            os.ftruncate(fd, size)
            raise
    finally:
        os.close(fd)


class RunLock:
    """An exclusive lock on `path` until `close()`; another holder makes it wait `wait` seconds, then
    refuse."""

    def __init__(self, path: Path, busy: str, wait: float = 0) -> None:
        from filelock import FileLock, Timeout

        self.handle: Any = FileLock(path, timeout=wait, thread_local=False)
        try:
            self.handle.acquire()
        except Timeout:
            self.handle = None
            raise RunError(busy) from None
        except OSError as exc:
            self.handle = None
            raise RunError(link_refused(path)
                           if path.is_symlink() else f"{path}: cannot lock ({exc.strerror or exc})") \
                from exc

    def close(self) -> None:
        """Release the lock."""
        if self.handle is not None:
            self.handle.release(force=True)
            self.handle = None

    def __enter__(self) -> RunLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()
