"""Attack 14 (issue 43): the new span and witness views. `audit show` wrote an answer's escape sequences and
bidirectional overrides raw in its span and witness panels (the rest of the record showed them as pictures); the HTML
report highlighted the wrong characters (gold spans, predicted spans, the heat map) in any answer holding a character
outside the BMP (an emoji): the offsets were Python's, in characters, and the page sliced UTF-16 code units."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from courtroom.cli import app
from courtroom.log.audit import Audit
from courtroom.report.html import build_report
from tests.helpers.browser import chromium as chromium_or_skip
from tests.helpers.runs import pseudo_run
from tests.helpers.span_run import GOLD, span_rows

ESCAPES = "\x1b[31m\u202eby the keeper\x1b]0;pwned\x07\x9b2J"
"""A colour, a right-to-left override, a window title and a C1 sequence that clears the screen."""
CASE = "example-lighthouse-automated"
"""Hallucinated ("automated in 1926", gold span "1926"); the pseudo-model's court names two spans in it."""


def rows(extra: str) -> list[dict]:
    """The span run's examples, every answer with `extra` after its first word, a ship before it (and the gold
    spans where the words now are)."""
    out = []
    for row in span_rows():
        row["answer"] = "\U0001F6A2 " + row["answer"].replace(" ", f" {extra} ", 1)
        if (words := GOLD.get(row["id"])) is not None:
            start = row["answer"].index(words)
            row["spans"] = [{"start": start, "end": start + len(words), "text": words}]
        out.append(row)
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("views")
    return {name: pseudo_run(rows(extra), root / f"{name}.jsonl", root / name)
            for name, extra in (("escapes", ESCAPES), ("emoji", "\U0001F600 \U0001F980"))}


def test_audit_show_shows_the_span_and_witness_panels_as_text(runs: dict[str, Path]) -> None:
    result = CliRunner().invoke(app, ["audit", "show", str(runs["escapes"]), CASE], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "hallucinated spans" in result.output and "witnesses" in result.output
    assert not set(result.output) & {"\x1b", "\x07", "\x9b", "\u202e"}
    assert "␛[31m\ufffdby the keeper␛]0;pwned␇\ufffd2J" in result.output


def _utf16(text: str, start: int, end: int) -> str:
    """`text.slice(start, end)` as the page's JavaScript reads it."""
    return text.encode("utf-16-le")[2 * start:2 * end].decode("utf-16-le")


def _record(html: str, case_id: str) -> dict:
    unescape = lambda block: block.replace("\\u003c", "<").replace("\\u003e", ">").replace("\\u0026", "&")  # noqa: E731
    meta = json.loads(unescape(re.search(r'<script type="application/json" id="data">(.*?)</script>', html, re.S)[1]))
    index = next(c["i"] for c in meta["cases"] if c["id"] == case_id)
    return json.loads(unescape(re.search(rf'<script type="application/json" id="a{index}">(.*?)</script>', html,
                                         re.S)[1]))


def test_the_report_marks_the_right_characters_past_an_emoji(runs: dict[str, Path]) -> None:
    html = build_report(runs["emoji"])
    verdicts = {r.case_id: r for r in Audit(runs["emoji"]).rows()}
    checked = 0
    for case_id in verdicts:
        record = _record(html, case_id)
        answer, scored = record["answer"], record["scored_answer"]
        assert [_utf16(answer, s["start"], s["end"]) for s in record["spans"]] == [s["text"] for s in record["spans"]]
        assert [_utf16(answer, s, e) for s, e, _ in record["gold_spans"]] == ([GOLD[case_id]] if case_id in GOLD else [])
        for witness in record["witnesses"]:
            assert all(_utf16(answer, p["start"], p["end"]).strip() == p["words"] for p in witness["points"])
        pieces = [_utf16(scored, s, e) for s, e, *_ in record["heat"]]
        assert "".join(pieces).strip() == scored.strip() and all(_utf16(scored, s, e).strip() for s, e in record["weak"])
        checked += len(record["spans"]) + len(record["gold_spans"])
    assert checked >= 5 and verdicts[CASE].spans


@pytest.mark.browser
def test_the_page_underlines_the_gold_span_past_an_emoji_in_a_real_browser(runs: dict[str, Path],
                                                                            tmp_path: Path) -> None:
    playwright, chromium = chromium_or_skip()
    report = tmp_path / "report.html"
    report.write_text(build_report(runs["emoji"]))
    spans = next(r.spans for r in Audit(runs["emoji"]).rows() if r.case_id == CASE)
    answer = next(r["answer"] for r in rows("\U0001F600 \U0001F980") if r["id"] == CASE)
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu", "--no-first-run"])
        page = browser.new_page()
        page.goto(report.as_uri())
        page.wait_for_selector("body[data-ready='1']")
        page.fill("#search", CASE)
        page.locator(".case-row").first.click()
        box = page.locator(".case-detail .answer-spans .spans")
        assert box.locator(".gold").all_text_contents() == ["1926"]
        assert box.locator("a.pred").all_text_contents() == [answer[s:e] for s, e, _ in sorted(spans)]
        browser.close()
