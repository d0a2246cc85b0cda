"""A self-contained HTML report of a run, or of two runs of the same cases side by side: one static file (its
CSP allows only its own script and style), each case's record a JSON block parsed only when opened. The
template autoescapes, and case data reaches the page only as escaped JSON (`script_json`), set as text by the
script."""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from jinja2 import Environment
from markupsafe import Markup

from courtroom.evaluate.comparison import Contender, debate_gain
from courtroom.evaluate.metrics import Metrics, compute_metrics
from courtroom.evaluate.results import ResultRow, trials
from courtroom.log.audit import Audit
from courtroom.log.files import atomic_write
from courtroom.log.manifest import Manifest
from courtroom.report.case_view import case_line, case_record
from courtroom.report.charts import calibration_svg, histogram_svg, roc_svg
from courtroom.report.diff import RunDiff, diff_runs
from courtroom.report.measurement import BAND_LABELS
from courtroom.report.tables import _v, elide, endings_rows, trial_columns

CALLS_UP_TO = 1000
"""Reports of at most this many cases include every model call unless told otherwise (a prompt is
kilobytes)."""
PAGE_SIZE = 100


@cache
def _asset(name: str) -> str:
    return resources.files("courtroom.report").joinpath("templates", name).read_text(encoding="utf-8")


@cache
def _page() -> Any:
    return Environment(autoescape=True, keep_trailing_newline=True).from_string(_asset("report.html.j2"))


def script_json(data: Any) -> Markup:
    """JSON to embed in a `<script type="application/json">`: `<`, `>` and `&` escaped as \\u003c etc., so no
    field can close the script, open a comment or start markup."""
    text = json.dumps(data, separators=(",", ":"))
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return Markup(text)  # noqa: S704 - escaped above, for a script element rather than HTML text


def csp_hash(text: str) -> Markup:
    """The CSP source expression that allows exactly this inline script or style."""
    return Markup("'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'")  # noqa: S704


def _metrics_cells(name: str, m: Metrics) -> list[str]:
    return [name, str(m.cases), str(m.errors), str(m.balanced_accuracy), _v(m.accuracy.value),
            _v(m.precision.value), _v(m.recall.value), _v(m.f1.value), _v(m.auroc.value)]


def judged_by(manifest: Manifest) -> str:
    """Who judged the run: `court NAME` for a court, else `judge NAME`."""
    court = manifest.judge.get("court") if manifest.spec.judge.name == "courtroom" else None
    name = court.get("name") if isinstance(court, dict) else None
    if manifest.spec.judge.name == "courtroom":
        return f"court {name or manifest.spec.judge.court or 'default'}"
    return f"judge {manifest.spec.judge.name}"


@dataclass
class _Run:
    """One run's part of the page: its summary and its case records keyed by case id."""

    audit: Audit
    label: str
    side: int

    def summary(self) -> dict[str, Any]:
        manifest = self.audit.store.manifest()
        rows = self.audit.rows()
        metrics = compute_metrics(rows)
        cells = [_metrics_cells("model", metrics)]
        if self.audit.edits():
            cells.append(_metrics_cells("corrected by humans", compute_metrics(self.audit.corrected_rows())))
        suffix = "" if self.side == 0 else "-b"
        return {"label": self.label, "side": self.side, "suffix": suffix, "metrics": cells,
                "confusion": metrics.confusion,
                "info": f"{self.audit.root.name}: {judged_by(manifest)}, model {manifest.model}, created "
                        f"{manifest.created:%Y-%m-%d %H:%M} UTC, git {manifest.git_sha or 'unknown'}"
                        + (f". {note}" if (note := self.audit.ruling_note()) else ""),
                # numbers only reach the charts' markup
                "roc": Markup(roc_svg(rows, metrics.auroc.value, "roc" + suffix)),  # noqa: S704
                "histogram": Markup(histogram_svg(rows, chart_id="histogram" + suffix)),  # noqa: S704
                "calibration": Markup(calibration_svg(rows, chart_id="calibration" + suffix)),  # noqa: S704
                "trials": _trials(rows), "gain": _gain(rows, manifest)}

    def cases(self, with_calls: bool) -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
        """case id -> (its line in the case list, its record)."""
        clip = self.audit.grounding_clip()
        edited = self.audit.edits()
        out = {}
        for row, corrected in zip(self.audit.rows(), self.audit.corrected_rows()):
            record = case_record(self.audit, row, with_calls, clip)
            line = case_line(0, row, corrected, bool(edited.get(row.case_id)))
            line.update(question=elide(record["question"], 300), answer=elide(record["answer"], 300))
            out[row.case_id] = (line, record)
        return out


def _trials(rows: list[ResultRow]) -> dict[str, Any] | None:
    """How the run's trials went (`courtroom.evaluate.trial_stats`); None when it held none."""
    summary = trials(rows)
    if summary is None:
        return None
    header, endings = endings_rows(summary)
    return {"header": header, "rows": endings, "lines": summary.lines(), "columns": trial_columns(summary)}


def _gain(rows: list[ResultRow], manifest: Manifest) -> dict[str, Any] | None:
    """The debate's gain: the court against its measurement alone and its agents alone, on the same calls."""
    gain = debate_gain(Contender.of(manifest.spec.judge.name, rows, model=manifest.model))
    if gain is None:
        return None
    return {"metrics": [[c.name, str(m.cases), str(m.balanced_accuracy), str(m.auroc)]
                        for c, m in zip(gain.contenders, gain.metrics)],
            "pairings": [[p.name, str(p.shared), "-" if p.difference is None else
                          f"{p.difference:+.3f} [{p.low:+.3f}, {p.high:+.3f}]", f"{p.p_value:.3g}"]
                         for p in gain.pairings]}


def _diff_cells(diff: RunDiff) -> list[str]:
    p = diff.pairing
    shared = sum(c.a is not None and c.b is not None for c in diff.cases)
    interval = "-" if p.difference is None else f"{p.difference:+.3f} [{p.low:+.3f}, {p.high:+.3f}]"
    return [str(shared), str(len(diff.changed)), str(diff.count("fixed")), str(diff.count("broken")),
            str(diff.count("changed")), str(diff.count("only A")), str(diff.count("only B")), interval,
            f"{p.p_value:.3g}"]


def build_report(run_dir: str | Path, against: str | Path | None = None, calls: bool | None = None,
                 page_size: int = PAGE_SIZE) -> str:
    """The HTML text of a run's report, or of two runs compared case by case (`against` is run B)."""
    runs = [_Run(Audit(run_dir), "A", 0)] + ([_Run(Audit(against), "B", 1)] if against is not None else [])
    diff = diff_runs(runs[0].audit, runs[1].audit) if against is not None else None
    total = len({r.case_id for run in runs for r in run.audit.rows()})
    with_calls = calls if calls is not None else total <= CALLS_UP_TO
    per_run = [run.cases(with_calls) for run in runs]
    order = [c.case_id for c in diff.cases] if diff else list(per_run[0])
    changes = {c.case_id: c.change for c in diff.cases} if diff else {}
    lines, records = [], []
    for i, case_id in enumerate(order):
        a, b = per_run[0].get(case_id), per_run[1].get(case_id) if diff else None
        base = dict((a or b)[0], i=i)
        if diff:
            base["b"] = (None if b is None else {k: b[0][k]
                                                 for k in ("label", "corrected", "score", "outcome")})
            base["change"] = changes[case_id]
            if a is None:  # a case only B holds: its line shows no A verdict
                base.update(label=None, corrected=None, score=None, outcome="missing")
        lines.append(base)
        records.append((f"a{i}", script_json(a[1] if a else None)))
        if diff:
            records.append((f"b{i}", script_json(b[1] if b else None)))
    clip = runs[0].audit.grounding_clip()
    calls_note = (f"model calls are not included in this report: it holds more than {CALLS_UP_TO:,} cases "
                  "(write it with --calls to include them, or see `courtroom audit show RUN CASE "
                  "--calls`)") if calls is None else ("model calls are not included in this report (written "
                                                      "with --no-calls)")
    meta = {"cases": lines, "runs": [run.audit.root.name for run in runs], "page_size": page_size,
            "clip": clip, "bands": list(BAND_LABELS), "calls_note": calls_note}
    style, script = _asset("report.css"), _asset("record.js") + _asset("testimony.js") + _asset("report.js")
    names = [f"{run.audit.root.name} ({judged_by(run.audit.store.manifest())})" for run in runs]
    title = f"courtroom report: {names[0]}" if not diff else (f"courtroom report: {names[0]} (A) against "
                                                              f"{names[1]} (B)")
    return _page().render(
        title=title, runs=[run.summary() for run in runs], diff=_diff_cells(diff) if diff else None,
        sources=sorted({line["source"] for line in lines}), data=script_json(meta), records=records,
        style_hash=csp_hash(style), script_hash=csp_hash(script), style=Markup(style), script=Markup(script))  # noqa: S704


def write_report(run_dir: str | Path, output: str | Path, against: str | Path | None = None,
                 calls: bool | None = None) -> Path:
    """Write the report file, whole or not at all; returns its path."""
    path = Path(output)
    atomic_write(path, build_report(run_dir, against, calls))
    return path
