"""Attack 9: case ids, sources and server error text were printed as rich markup. An id or source of `[/]`, or a
server's 400 body holding `[/]`, stopped `audit list`, `audit` and the end of `run` with a MarkupError; an id of
`[link=...]` became a clickable link; ESC bytes reached the terminal. Every untrusted string is now shown as the
text it is (`report.terminal.shown` / `visible`): markup escaped, control characters shown as pictures."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from courtroom.cli import app
from courtroom.door import ScriptedBackend
from courtroom.errors import BackendError
from courtroom.log.manifest import RunSpec
from courtroom.runs.runners import LocalRunner
from courtroom.runs.start import start_run
from tests.helpers.court_script import CourtScript
from tests.helpers.fake_openai import MODEL, FakeServer, fake_server

runner = CliRunner()

CLOSE = "[/]"
LINK = "[link=https://evil.example]click me[/link]"
ESCAPES = "esc\x1b[31mred\x1b]0;pwned\x07\x9b2J\rback"
"""An SGR colour, a window title (OSC ... BEL), a C1 CSI that clears the screen, a carriage return."""
HTML = "<img src=x onerror=alert(1)>"
IDS = [CLOSE, LINK, ESCAPES, HTML, "[bold]b 7[/bold]"]
SOURCES = [CLOSE, "[red]src", "\x1b[2Jwiped", HTML, "[link=file:///etc/passwd]src[/link]"]
SERVER_ERROR = f"HTTP 400: {CLOSE} bad request {LINK} \x1b[5mblink"


def rows() -> list[dict]:
    return [{"id": case_id, "source": source, "question": f"Q {LINK}?", "context": [f"The sky is blue {CLOSE}."],
             "answer": f"It is 7 {CLOSE} blue \x1b[31m.", "label": "PASS" if n % 2 else "FAIL"}
            for n, (case_id, source) in enumerate(zip(IDS, SOURCES))]


def court_run(out: Path, dataset: Path) -> Path:
    script = CourtScript(suspect={"7": 0.8}, grounding={"7": -0.5}, p_hallucinated=0.7,
                         moves={"prosecutor": ["argue"], "defender": ["rebut"], "judge": ["rule"]})

    def fails_on_the_last(request):  # noqa: ANN001, ANN202
        if request.cache_group == IDS[-1]:
            raise BackendError(SERVER_ERROR)
        return script(request)

    run = start_run(RunSpec.build(str(dataset), judge="courtroom", court="full", window=4), out)
    run.execute(runner=LocalRunner(ScriptedBackend(fails_on_the_last)))
    run.close()
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A court run of the hostile cases (the last ends in the server's error), and a copy of it whose verdicts are
    all the other way."""
    root = tmp_path_factory.mktemp("hostile")
    dataset = root / "cases.jsonl"
    dataset.write_text("".join(json.dumps(r) + "\n" for r in rows()))
    run = court_run(root / "a", dataset)
    flipped = root / "b"
    shutil.copytree(run, flipped)
    rewrite_results(flipped, lambda line: line.update(label={"PASS": "FAIL", "FAIL": "PASS"}.get(line["label"])))
    return run, flipped


def rewrite_results(run: Path, change) -> None:  # noqa: ANN001
    results = run / "results.jsonl"
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    for line in lines:
        change(line)
    results.write_text("".join(json.dumps(line) + "\n" for line in lines))


def shown_safely(args: list[str], code: int = 0) -> str:
    result = runner.invoke(app, args, env={"COLUMNS": "1000"})
    output = result.output
    assert "Traceback" not in output and "MarkupError" not in output, output[-3000:]
    assert result.exit_code == code, (result.exit_code, output[-3000:], result.exception)
    assert "\x1b" not in output and "\x9b" not in output and "\x07" not in output and "\r" not in output
    return output


def test_audit_summary_shows_ids_and_server_errors_as_text(runs: tuple[Path, Path]) -> None:
    output = shown_safely(["audit", str(runs[0])])
    assert IDS[-1] in output and SERVER_ERROR.replace("\x1b", "␛") in output


@pytest.mark.parametrize("options", [[], ["--errors"], ["--source", "src"]])
def test_audit_list_shows_ids_and_sources_as_text(runs: tuple[Path, Path], options: list[str]) -> None:
    output = shown_safely(["audit", "list", *options, str(runs[0])])
    if not options:
        assert all(case_id.replace("\x1b", "␛").replace("\x07", "␇").replace("\r", "␍") in output
                   for case_id in IDS[:2])
        assert CLOSE in output and LINK in output and "␛[31mred␛]0;pwned␇" in output


@pytest.mark.parametrize("case_id", IDS)
def test_audit_show_shows_the_record_as_text(runs: tuple[Path, Path], case_id: str) -> None:
    output = shown_safely(["audit", "show", str(runs[0]), case_id, "--calls"])
    assert "It is 7 [/] blue ␛[31m." in output


def test_audit_diff_and_verify_show_ids_as_text(runs: tuple[Path, Path], tmp_path: Path) -> None:
    output = shown_safely(["audit", "diff", str(runs[0]), str(runs[1])])
    assert LINK in output
    tampered = tmp_path / "tampered"
    shutil.copytree(runs[0], tampered)
    rewrite_results(tampered, lambda line: line.update(score=0.123456 if line["label"] else None))
    output = shown_safely(["audit", "verify", str(tampered)], code=1)
    assert f"case {LINK}: the results say" in output


def test_the_html_report_shows_ids_and_sources_as_text(runs: tuple[Path, Path], tmp_path: Path) -> None:
    """The report was already one autoescaping pass (attack 3); ids and sources are no exception."""
    shown_safely(["audit", "report", str(runs[0]), "-o", str(tmp_path / "report.html")])
    page = (tmp_path / "report.html").read_text()
    assert HTML not in page and "<img" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page


def test_compare_and_rejudge_show_names_as_text(runs: tuple[Path, Path], tmp_path: Path) -> None:
    named = tmp_path / "[bold]run"
    shutil.copytree(runs[0], named)
    output = shown_safely(["compare", str(runs[0]), str(named)])
    assert "[bold]run" in output
    output = shown_safely(["rejudge", str(named), "--out", str(tmp_path / "[/]again"), "--set",
                           "ruling.judge_weight=0.3"])
    assert "[red]src" in output and "␛[2Jwiped" in output and "rejudged by --set" in output


@pytest.fixture
def refusing_server() -> Iterator[FakeServer]:
    with fake_server() as server:
        server.refusal = SERVER_ERROR
        yield server


def test_the_end_of_a_run_shows_sources_and_server_errors_as_text(refusing_server: FakeServer, tmp_path: Path) -> None:
    dataset = tmp_path / "cases.jsonl"
    dataset.write_text("".join(json.dumps(r) + "\n" for r in rows()))
    output = shown_safely(["run", str(dataset), "--judge", "rails", "--model", MODEL, "--model-url", refusing_server.url,
                           "--out", str(tmp_path / "run")])
    assert "[link=file:///etc/passwd]src[/link]" in output and "␛[2Jwiped" in output
    output = shown_safely(["audit", str(tmp_path / "run")])
    assert "bad request [link=https://evil.example]click me[/link] ␛[5mblink" in output
