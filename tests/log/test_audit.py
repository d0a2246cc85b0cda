"""Auditing run directories: summary, filters, the court record, verification, human edits, the HTML
report (in a real headless Chromium)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from courtroom.cli import app
from courtroom.courts import load_court
from courtroom.door import ScriptedBackend
from courtroom.evaluate.metrics import compute_metrics
from courtroom.log.audit import Audit
from courtroom.log.manifest import RunSpec
from courtroom.log.store import RunStore
from courtroom.log.verify import verify
from courtroom.report.html import build_report
from courtroom.report.record import court_record
from courtroom.runs.runners import LocalRunner
from courtroom.runs.start import start_run
from tests.helpers.browser import chromium as chromium_or_skip
from tests.helpers.court_script import CourtScript

runner = CliRunner()


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    """A court run on the 20 examples with a scripted model: sentences with digits are charged, and the
    judge rules hallucinated, so faithful answers with numbers come out wrong."""
    out = tmp_path_factory.mktemp("runs") / "court"
    script = CourtScript(suspect={str(d): 0.8 for d in range(10)}, grounding={str(d): -0.5 for d in range(10)},
                         moves={"prosecutor": ["argue"], "defender": ["rebut"], "judge": ["rule"]}, p_hallucinated=0.7)
    run = start_run(RunSpec.build("examples", judge="courtroom", court="full", window=4), out)
    rows = run.execute(runner=LocalRunner(ScriptedBackend(script)))
    (out / "metrics.json").write_text(compute_metrics(rows).model_dump_json(indent=2))
    return out


@pytest.fixture
def copy_of(run_dir: Path, tmp_path: Path) -> Path:
    target = tmp_path / "copy"
    shutil.copytree(run_dir, target)
    return target


def test_summary_and_filters(run_dir: Path) -> None:
    audit = Audit(run_dir)
    assert len(audit.rows()) == 20
    wrong = audit.select(wrong=True)
    assert wrong and all(r.correct is False for r in wrong)
    assert all(r.label == "FAIL" for r in audit.select(verdict="FAIL"))
    assert [r.case_id for r in audit.select(search="lighthouse-year")] == ["example-lighthouse-year"]
    result = runner.invoke(app, ["audit", str(run_dir)])
    assert result.exit_code == 0 and "model verdicts" in result.output
    result = runner.invoke(app, ["audit", "list", str(run_dir), "--wrong"])
    assert result.exit_code == 0 and f"{len(wrong)} matching cases" in result.output


def test_show_renders_the_court_record(run_dir: Path) -> None:
    audit = Audit(run_dir)
    console = Console(record=True, width=160)
    console.print(court_record(audit.record("example-lighthouse-automated"), "FAIL"))
    text = console.export_text()
    assert "It was automated in 1926" in text and "trial of charge 1" in text
    assert "prosecutor" in text and "ruling" in text and "verdict" in text and "gold" in text
    assert 'citing' not in text or "[1]" in text
    verdict = next(e.verdict for e in audit.events("example-lighthouse-automated") if e.event == "verdict")
    charge, ruling = verdict.charges[0], verdict.rulings[0]
    assert f"grounding {charge.grounding:+.2f} nats/token" in text  # what the court measured, not only what it said
    assert ruling.evidence is not None and f"measured grounding {ruling.evidence:+.2f}" in text


def test_verify_passes_on_an_intact_run(run_dir: Path) -> None:
    assert verify(Audit(run_dir)) == []
    result = runner.invoke(app, ["audit", "verify", str(run_dir)])
    assert result.exit_code == 0 and "verified" in result.output


def test_verify_reports_a_tampered_value_with_file(copy_of: Path) -> None:
    path = RunStore(copy_of).transcript_path("example-lighthouse-automated")
    lines = path.read_text().splitlines()
    i = next(i for i, line in enumerate(lines) if '"purpose":"verdict"' in line)
    event = json.loads(lines[i])
    event["option_probs"] = {"hallucinated": 0.05, "supported": 0.95}
    lines[i] = json.dumps(event)
    path.write_text("\n".join(lines) + "\n")
    problems = [str(p) for p in verify(Audit(copy_of))]
    assert any(str(path) in p and "ruling" in p for p in problems)
    result = runner.invoke(app, ["audit", "verify", str(copy_of)])
    assert result.exit_code == 1


def test_verify_names_a_witness_whose_version_changed_once(copy_of: Path) -> None:
    """A run recorded before a witness's version changed fails verify, and says which witness, from and to which
    version, and the commit to verify it with, in one line however many transcripts hold it."""
    store = RunStore(copy_of)
    cases = ["example-lighthouse-automated", "example-bakery-sunday"]
    witness = None
    for case in cases:
        path = store.transcript_path(case)
        lines = path.read_text().splitlines()
        i = next(i for i, line in enumerate(lines) if json.loads(line).get("event") == "verdict")
        event = json.loads(lines[i])
        heard = next(t for t in event["verdict"]["testimony"] if t["heard"])
        witness, now = heard["witness"], heard["version"]
        heard["version"] = now + 7
        lines[i] = json.dumps(event)
        path.write_text("\n".join(lines) + "\n")
    problems = [str(p) for p in verify(Audit(copy_of))]
    named = [p for p in problems if f"the {witness} witness's testimony" in p]
    sha = store.manifest().git_sha
    assert len(named) == 1 and "2 transcripts" in named[0] and f"at version {now + 7}" in named[0]
    assert f"computes at version {now}" in named[0] and (sha is None or sha[:7] in named[0])
    assert problems[-1] == named[0]


def test_verify_reports_truncated_broken_and_foreign_files(copy_of: Path) -> None:
    store = RunStore(copy_of)
    truncated = store.transcript_path("example-bakery-hours")
    lines = truncated.read_text().splitlines()
    truncated.write_text("\n".join(lines[:-1]) + "\n")                   # the verdict line is gone
    broken = store.transcript_path("example-drug-dose")
    lines = broken.read_text().splitlines()
    lines[2] = lines[2][: len(lines[2]) // 2]                              # a line cut in half
    broken.write_text("\n".join(lines) + "\n")
    foreign = store.transcript_path("example-orbit-period")
    shutil.copy(store.transcript_path("example-river-length"), foreign)
    problems = [str(p) for p in verify(Audit(copy_of))]
    assert any(f"{truncated}:" in p and "truncated" in p for p in problems)
    assert any(f"{broken}:3:" in p and "not a valid event" in p for p in problems)
    assert any(f"{foreign.name}:1:" in p and "foreign transcript" in p for p in problems)


def test_metrics_that_do_not_recompute_are_reported(copy_of: Path) -> None:
    path = copy_of / "metrics.json"
    data = json.loads(path.read_text())
    data["cases"] += 1
    path.write_text(json.dumps(data))
    assert any("metrics do not recompute" in str(p) for p in verify(Audit(copy_of)))


def test_human_edits_are_appended_and_corrected_metrics_reported(copy_of: Path) -> None:
    audit = Audit(copy_of)
    wrong = audit.select(wrong=True)[0]
    transcript = copy_of / wrong.transcript
    before = transcript.read_text()
    verdict = "supported" if wrong.gold == "PASS" else "hallucinated"
    result = runner.invoke(app, ["audit", "edit", str(copy_of), wrong.case_id, "--verdict", verdict,
                                 "--reason", "checked by hand", "--author", "reviewer@example.org"])
    assert result.exit_code == 0, result.output
    assert transcript.read_text() == before  # the model's record is never rewritten
    audit = Audit(copy_of)
    assert audit.events(wrong.case_id)[-1].event == "edit" and len(audit.judged()[wrong.case_id]) == 1  # the record
    assert sum(r.correct is False for r in audit.corrected_rows()) == sum(r.correct is False for r in audit.rows()) - 1
    assert compute_metrics(audit.corrected_rows()).accuracy.value > compute_metrics(audit.rows()).accuracy.value
    assert verify(audit) == []                   # edits do not break the record
    result = runner.invoke(app, ["audit", "edit", str(copy_of), wrong.case_id, "--charge", "9", "--verdict",
                                 "supported", "--reason", "x", "--author", "y"])
    assert result.exit_code == 2 and "no ruling on charge 9" in result.output


def test_charge_edits_are_combined_again_by_the_courts_own_rule(copy_of: Path) -> None:
    audit = Audit(copy_of)
    judge = audit.store.manifest().rebuild_judge()
    assert judge.spec.aggregation.method == "share"  # the shipped court: the share of text convicted
    convicted = next(r for r in audit.rows() if r.label == "FAIL" and audit.record(r.case_id).verdict.rulings)
    rulings = audit.record(convicted.case_id).verdict.rulings

    def corrected() -> str:
        return next(r.label for r in Audit(copy_of).corrected_rows() if r.case_id == convicted.case_id)

    for ruling in rulings:  # a reviewer confirms what the court found hallucinated: the verdict stands
        if ruling.verdict.value == "hallucinated":
            audit.edit(convicted.case_id, "hallucinated", "confirmed", "reviewer", charge=ruling.charge)
    assert corrected() == "FAIL"
    for ruling in rulings:  # every charge found supported by hand: the answer stands
        audit.edit(convicted.case_id, "supported", "checked the context", "reviewer", charge=ruling.charge)
    assert corrected() == "PASS"
    assert verify(audit) == []


@pytest.mark.browser
def test_html_report_in_a_real_browser(run_dir: Path, tmp_path: Path) -> None:
    playwright, chromium = chromium_or_skip()
    report = tmp_path / "report.html"
    report.write_text(build_report(run_dir))
    audit = Audit(run_dir)
    n_wrong = len(audit.select(wrong=True))
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--no-first-run"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        requests: list[str] = []
        page.on("request", lambda r: requests.append(r.url))
        page.goto(report.as_uri())
        assert "20 in all" in page.text_content("#count")
        assert page.locator("#confusion").is_visible() and page.locator("#calibration circle.bin").count() > 0
        page.select_option("#filter-outcome", "wrong")
        assert page.text_content("#count").startswith(f"showing {n_wrong} of {n_wrong}")
        rows = page.locator(".case-row")
        assert rows.count() == n_wrong
        rows.first.click()
        detail = page.locator(".case-detail")
        assert detail.is_visible()
        text = detail.inner_text()
        assert "Trial of charge 1" in text and "Ruling:" in text and "Verdict:" in text
        assert "nats/token" in text and "P(hallucinated)" in detail.locator(".weighed").first.text_content()
        assert detail.locator("mark.charge").count() >= 1   # the charged quote, highlighted in the answer
        assert detail.locator("mark.cite").count() >= 1     # the cited sentence, highlighted in the context
        page.fill("#search", "lighthouse-year")
        assert "of 1 matching" in page.text_content("#count") or "of 0 matching" in page.text_content("#count")
        page.screenshot(path=str(tmp_path / "report.png"), full_page=True)
        browser.close()
    assert (tmp_path / "report.png").stat().st_size > 10_000
    assert all(url.startswith(("file:", "data:", "about:")) for url in requests), requests


def test_confirming_a_supported_charge_does_not_convict_under_the_share_rule() -> None:
    from courtroom.case import CaseVerdict, Charge, Ruling, Verdict
    from courtroom.evaluate.results import ResultRow
    from courtroom.log.audit import corrected_label
    from courtroom.log.judgements import Judgement

    court = load_court("full")
    charges = [Charge(index=i, quote=q, reason="r") for i, q in enumerate(["It opened in 1901.", "It has a bell."])]
    rulings = [Ruling(charge=0, verdict=Verdict.HALLUCINATED, reason="r", confidence=0.5, p_hallucinated=0.5),
               Ruling(charge=1, verdict=Verdict.SUPPORTED, reason="r", confidence=0.9, p_hallucinated=0.1)]
    verdict = CaseVerdict(case_id="c", label="PASS", score=0.3, reason="r", rulings=rulings, charges=charges)
    row = ResultRow(case_id="c", source="s", gold="PASS", label="PASS", score=0.3)

    def judged(charge: int | None, label: str) -> Judgement:
        return Judgement(case_id="c", charge=charge, label=label, author="a", note="r", source="edit")

    assert corrected_label(row, [judged(1, "faithful")], verdict, court) == "PASS"  # (0.5 + 0) / 2: below
    assert corrected_label(row, [judged(0, "hallucinated")], verdict, court) == "FAIL"  # a false statement found
    assert corrected_label(row, [judged(0, "hallucinated"), judged(None, "faithful")], verdict, court) == "PASS"
    assert corrected_label(row, [judged(None, "hallucinated"), judged(None, "undone")], verdict, court) == "PASS"


def test_verify_passes_on_a_run_whose_failed_cases_were_judged_again(tmp_path: Path) -> None:
    from courtroom.errors import BackendError

    script = CourtScript(suspect={str(d): 0.8 for d in range(10)}, grounding={str(d): -0.5 for d in range(10)},
                         moves={"prosecutor": ["argue"], "defender": ["rebut"], "judge": ["rule"]}, p_hallucinated=0.7)

    def out_of_memory_on_some(request):  # the model door raises (nothing is recorded for the call)
        if sum(map(ord, request.cache_group or "")) % 4 == 0:
            raise BackendError("CUDA out of memory")
        return script(request)

    spec = RunSpec.build("examples", judge="courtroom", court="full", window=4)
    first = start_run(spec, tmp_path / "r")
    rows = first.execute(runner=LocalRunner(ScriptedBackend(out_of_memory_on_some)))
    first.close()
    assert any(r.error_type == "BackendError" for r in rows)
    assert verify(Audit(tmp_path / "r")) == []  # a failure at the model door replays as that failure
    again = start_run(spec, tmp_path / "r")
    rows = again.execute(runner=LocalRunner(ScriptedBackend(script)))
    (tmp_path / "r" / "metrics.json").write_text(compute_metrics(rows).model_dump_json(indent=2))
    lines = (tmp_path / "r" / "results.jsonl").read_text().splitlines()
    assert len(lines) > 20 and not any(r.error for r in rows)
    assert verify(Audit(tmp_path / "r")) == []  # the rows superseded on resume are not checked against new transcripts


def test_verify_accepts_a_run_that_has_not_finished_a_case(tmp_path: Path) -> None:
    start_run(RunSpec.build("examples", judge="rails"), tmp_path / "r").close()
    assert verify(Audit(tmp_path / "r")) == []
