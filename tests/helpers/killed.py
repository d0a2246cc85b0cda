"""A `courtroom` command run in a child process that dies, or meets a full disk, in the middle of writing a file.

The child's file-size limit (`RLIMIT_FSIZE`) is set to `limit` bytes before the command runs: the first write
that would take any file past it writes up to the limit, and the next one is stopped by the kernel, at the same
byte whatever code is writing. `kill`: the child is then terminated on the spot (SIGXFSZ's default action, like
SIGKILL: no handler, no `finally`, no flush). `full`: the write fails instead (SIGXFSZ ignored: `OSError`
EFBIG, as a full disk fails a write with ENOSPC), and the command carries on as it would on a full disk.
`sigkill_after_writes` kills the child with SIGKILL after a given number of `RunStore.write` calls (a case
stored whole, the next not begun).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

if not hasattr(signal, "SIGXFSZ"):  # pragma: no cover (Windows)
    pytest.skip("needs POSIX file-size limits", allow_module_level=True)

_LIMITED = """
import resource, signal, sys
from courtroom.cli import app
mode, limit, *args = sys.argv[1:]
signal.signal(signal.SIGXFSZ, signal.SIG_DFL if mode == "kill" else signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
resource.setrlimit(resource.RLIMIT_FSIZE, (int(limit), resource.RLIM_INFINITY))
app(args, prog_name="courtroom")
"""

_SIGKILLED = """
import os, signal, sys
from courtroom.log.store import RunStore
after, *args = sys.argv[1:]
real, count = RunStore.write, [0]
def write(self, *a, **k):
    if count[0] == int(after):
        os.kill(os.getpid(), signal.SIGKILL)
    count[0] += 1
    return real(self, *a, **k)
RunStore.write = write
from courtroom.cli import app
app(args, prog_name="courtroom")
"""


def _child(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "COLUMNS": "1000"}
    return subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120, check=False)


def killed_at(limit: int, *args: str) -> subprocess.CompletedProcess[str]:
    """`courtroom ARGS`, terminated when a file it writes reaches `limit` bytes (asserted)."""
    result = _child(_LIMITED, "kill", str(limit), *args)
    assert result.returncode == -signal.SIGXFSZ, (result.returncode, result.stdout, result.stderr)
    return result


def disk_full_at(limit: int, *args: str) -> subprocess.CompletedProcess[str]:
    """`courtroom ARGS`, whose writes fail once a file reaches `limit` bytes (the command ends as it ends)."""
    return _child(_LIMITED, "full", str(limit), *args)


def sigkill_after_writes(writes: int, *args: str) -> subprocess.CompletedProcess[str]:
    """`courtroom ARGS`, killed with SIGKILL when it is about to store its case number `writes + 1` (asserted)."""
    result = _child(_SIGKILLED, str(writes), *args)
    assert result.returncode == -signal.SIGKILL, (result.returncode, result.stdout, result.stderr)
    return result
