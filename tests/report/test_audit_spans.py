"""What the court heard and where it finds the lie, in the audit: `audit show`'s witnesses and spans, and the HTML
report's testimony table and spans (in a real headless Chromium)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from courtroom.case import CaseVerdict, Pointer, Testimony, Weighing
from courtroom.cli import app
from courtroom.log.audit import Audit
from courtroom.report.html import build_report
from courtroom.report.witness_record import GOLD_STYLE, PREDICTED_STYLE, answer_with_spans, witnesses_record
from tests.helpers.browser import chromium as chromium_or_skip
from tests.helpers.span_run import span_run

runner = CliRunner()
WIDE = {"COLUMNS": "220"}
CASE = "example-lighthouse-automated"
"""Hallucinated ("automated in 1926"); its gold span is "1926"; the pseudo-model's court names two spans."""


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    return span_run(tmp_path_factory.mktemp("spans"))


def _verdict(run: Path, case_id: str) -> CaseVerdict:
    return next(e.verdict for e in Audit(run).events(case_id) if e.event == "verdict")


def test_show_lists_every_witness_heard_or_not_and_what_it_points_at(run_dir: Path) -> None:
    result = runner.invoke(app, ["audit", "show", str(run_dir), CASE], env=WIDE)
    assert result.exit_code == 0, result.output
    text = result.output
    verdict = _verdict(run_dir, CASE)
    witnesses = text[text.index("witnesses"):text.index("hallucinated spans")]
    for testimony in verdict.testimony:
        assert f"{testimony.witness} v{testimony.version}" in witnesses
        if not testimony.heard:  # the pseudo-model's door shows no attention: why, not zeros
            assert "not heard" in witnesses and testimony.why_not[:40] in " ".join(witnesses.split())
    pointed = next(t for t in verdict.testimony if t.points)
    point = pointed.points[0]
    answer = Audit(run_dir).events(CASE)[0].case.answer
    assert f"'{answer[point.start:point.end].strip()}' ({point.note}" in witnesses  # the words, quoted, and the note
    assert "no fitted ruling weighed this testimony" in witnesses


def test_show_lists_each_span_with_its_score_witnesses_and_context_sentence(run_dir: Path) -> None:
    text = runner.invoke(app, ["audit", "show", str(run_dir), CASE], env=WIDE).output
    spans = text[text.index("hallucinated spans (and the gold spans)"):text.index(" verdict ─")]
    sentences = Audit(run_dir).context_sentences(Audit(run_dir).events(CASE)[0].case)
    verdict = _verdict(run_dir, CASE)
    assert verdict.spans, "the pseudo-model's court names no span here: the test would prove nothing"
    for number, span in enumerate(verdict.spans, start=1):
        row = next(line for line in spans.splitlines() if f"'{span.text}'" in line)
        assert re.search(rf"│ {number} +│", row) and f"{span.score:.2f}" in row
        assert ", ".join(span.named_by)[:15] in row
        assert f"[{span.context_sentence}] {sentences[span.context_sentence - 1][:30]}" in spans
    assert "gold (annotated)" in spans


def test_the_answer_shows_predicted_and_gold_spans_in_two_styles() -> None:
    from courtroom.case import AnnotatedSpan, HallucinatedSpan

    answer = "It was automated in 1926, after its last keeper retired."
    predicted = [HallucinatedSpan(start=36, end=55, text="last keeper retired", score=0.6),
                 HallucinatedSpan(start=20, end=24, text="1926", score=0.5)]
    text = answer_with_spans(answer, predicted, [AnnotatedSpan(start=20, end=29)])
    assert text.plain == "It was automated in 1926[2], after its last keeper retired[1]."

    def styles(at: int) -> set[str]:
        return {str(s.style) for s in text.spans if s.start <= at < s.end}

    assert styles(text.plain.index("1926")) >= {PREDICTED_STYLE, GOLD_STYLE}          # both
    assert styles(text.plain.index(", after")) == {GOLD_STYLE}                          # gold alone
    assert PREDICTED_STYLE in styles(text.plain.index("keeper")) and GOLD_STYLE not in styles(text.plain.index("keeper"))
    assert styles(0) == set()


def test_each_value_shows_its_part_of_the_rulings_log_odds() -> None:
    testimony = [
        Testimony(witness="figures", version=1, values={"absent": 1.0},
                  points=[Pointer(start=20, end=24, note="the context has no such figure", weight=1.0, context_sentence=2)]),
        Testimony(witness="lookback", version=1, values={"mean": 0.3}),
        Testimony(witness="hidden", version=1, heard=False, why_not="the model door reports no hidden states")]
    weighing = Weighing(ruling="pseudo/default/abc", family="qa", log_odds=1.2, p_hallucinated=0.77, threshold=0.5,
                        contributions={"intercept": -0.3, "figures.absent": 1.4, "lookback.mean": 0.05,
                                       "lookback.probe": -0.25}, missing=["hidden.probe"])
    verdict = CaseVerdict(case_id="x", label="FAIL", score=0.77, reason="r", testimony=testimony, weighing=weighing)
    console = Console(record=True, width=200)
    console.print(witnesses_record(verdict, "It was automated in 1926, after its last keeper retired.",
                                   ["The lighthouse stands.", "It was automated in 1962."]))
    text = console.export_text()
    assert "absent 1 (+1.40 to the log-odds)" in text and "mean 0.3 (+0.05 to the log-odds)" in text
    assert "probe (-0.25 to the log-odds)" in text                     # lookback's probe, not a value of its testimony
    assert "not heard: the model door reports no hidden states" in text and "probe (not heard: not weighed)" in text
    assert "'1926' (the context has no such figure; context sentence [2])" in text
    assert "log-odds +1.20 (intercept -0.30), P(hallucinated) 0.77 against threshold 0.50" in text


def _record(html: str, case_id: str) -> dict:
    meta = json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>', html, re.S).group(1)
                      .replace("\\u003c", "<").replace("\\u003e", ">").replace("\\u0026", "&"))
    index = next(c["i"] for c in meta["cases"] if c["id"] == case_id)
    block = re.search(rf'<script type="application/json" id="a{index}">(.*?)</script>', html, re.S).group(1)
    return json.loads(block.replace("\\u003c", "<").replace("\\u003e", ">").replace("\\u0026", "&"))


def test_the_report_record_holds_the_testimony_and_the_spans(run_dir: Path) -> None:
    html = build_report(run_dir)
    assert re.search(r"<h1>courtroom report: spans \(court default\)</h1>", html)  # the header names the court
    record = _record(html, CASE)
    verdict = _verdict(run_dir, CASE)
    assert [w["name"] for w in record["witnesses"]] == [t.witness for t in verdict.testimony]
    assert [(s["start"], s["end"], s["text"]) for s in record["spans"]] == [(s.start, s.end, s.text) for s in verdict.spans]
    assert record["gold_spans"] == [[20, 24, "Evident Conflict"]]
    span = record["spans"][0]
    assert span["sentence_text"] == Audit(run_dir).context_sentences(Audit(run_dir).events(CASE)[0].case)[span["sentence"] - 1]
    assert span["evidence"] and all(e["start"] < span["end"] and e["end"] > span["start"] for e in span["evidence"])


@pytest.mark.browser
def test_the_report_shows_the_spans_linked_to_their_evidence_in_a_real_browser(run_dir: Path, tmp_path: Path) -> None:
    playwright, chromium = chromium_or_skip()
    report = tmp_path / "report.html"
    report.write_text(build_report(run_dir))
    verdict = _verdict(run_dir, CASE)
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu", "--no-first-run"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        problems: list[str] = []
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.goto(report.as_uri())
        page.wait_for_selector("body[data-ready='1']")
        page.fill("#search", CASE)
        page.locator(".case-row").first.click()
        detail = page.locator(".case-detail")
        answer = detail.locator(".answer-spans .spans")
        in_order = sorted(verdict.spans, key=lambda s: s.start)
        assert answer.locator("a.pred").all_text_contents() == [s.text for s in in_order]
        assert answer.locator(".gold").all_text_contents() == ["1926"] and answer.locator("a.pred.gold").count() == 1
        predicted, gold = (answer.locator(sel).first.evaluate("e => getComputedStyle(e).backgroundColor + '|' + "
                                                              "getComputedStyle(e).outlineStyle")
                           for sel in ("a.pred:not(.gold)", "a.pred.gold"))
        assert predicted.split("|")[0] not in ("rgba(0, 0, 0, 0)", "transparent") and predicted != gold
        answer.locator("a.pred").first.click()                     # the first in the answer: its evidence opens
        target = page.evaluate("location.hash").lstrip("#")
        evidence = detail.locator(f"li#{target}")
        first = in_order[0]
        assert evidence.count() == 1 and evidence.locator("b").first.text_content() == f"\u201c{first.text}\u201d"
        assert f"[{first.context_sentence}]" in evidence.inner_text() and " \u2014 " in evidence.inner_text()
        assert evidence.evaluate("e => e.matches(':target')")
        table = detail.locator("table.testimony")
        assert table.locator("tr").count() == len(verdict.testimony) + 1
        assert "not heard" in table.locator("tr.unheard").first.inner_text()
        browser.close()
    assert not problems, problems
