"""Attack (#58, low): a seat URL or `--model-url` whose port is not a port (`+9`, `99999`, fullwidth digits) ended
`court validate`, `court show` and `run` in a ValueError traceback, and port 0 was read as 80. A URL's port is
checked where the URL is validated (`ServedUrl`, `origin`): one line naming the field, the port, and what a port is."""

from __future__ import annotations

from pathlib import Path

import pytest

from courtroom.door.http_client import origin
from tests.helpers.cli import invoke

PORTS = ["+9", "99999", "\uff18\uff10", "0", "-1", "8 0"]
"""Ports that are not: signed, past 65535, fullwidth "80", zero, negative, with a space."""


@pytest.mark.parametrize("port", PORTS)
def test_a_port_that_is_none_is_one_clear_line_everywhere(tmp_path: Path, port: str) -> None:
    url = f"http://127.0.0.1:{port}/v1"
    court = tmp_path / "court.yaml"
    court.write_text(f'name: seated\nextends: full\ntrial:\n  models:\n    judge: {{model: m, url: "{url}"}}\n')
    expected = f"names the port {port!r}: a port is a number from 1 to 65535, in ASCII digits"
    for command, field in ((["court", "validate", str(court)], f"{court}:5: field trial.models.judge"),
                           (["court", "show", str(court)], f"{court}:5: field trial.models.judge"),
                           (["run", "examples", "--judge", "rails", "--limit", "1", "--model", "m", "--model-url", url,
                             "--out", str(tmp_path / "run")], "url"),
                           (["run", "examples", "--limit", "1", "--allow-host", url.removesuffix("/v1"), "--out",
                             str(tmp_path / "run")], "--allow-host")):
        code, output = invoke(*command)
        assert code != 0 and field in output and expected in output, (command, output)
    assert not (tmp_path / "run").exists()


def test_origin_reads_only_ports_that_are_ports() -> None:
    assert origin("http://127.0.0.1/v1") == "http://127.0.0.1:80" and origin("https://[::1]:8443/v1") == "https://[::1]:8443"
    assert origin("http://user@127.0.0.1:8000/v1") == "http://127.0.0.1:8000"
    for port in PORTS:
        with pytest.raises(ValueError, match="a port is a number from 1 to 65535"):
            origin(f"http://127.0.0.1:{port}/v1")
