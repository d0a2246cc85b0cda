"""A self-contained HTML report of a run, or of two runs of the same cases side by side: one static file (its
CSP allows only its own script and style), each case's record a JSON block parsed only when opened. The
template autoescapes, and case data reaches the page only as escaped JSON (`script_json`), set as text by the
script."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from jinja2 import Environment
from markupsafe import Markup

from courtroom.evaluate.metrics import compute_metrics
from courtroom.log.audit import Audit
from courtroom.log.files import atomic_write
from courtroom.report.case_view import case_record
from courtroom.report.charts import calibration_svg, histogram_svg, roc_svg
from courtroom.report.diff import diff_cells, diff_runs
from courtroom.report.measurement import BAND_LABELS
from courtroom.report.summary import case_line, judged_by, run_summary, with_text

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


MODULES = ("dom.js", "testimony.js", "record.js", "report.js")
"""The report's ES modules, each after those it imports."""


def inlined(names: tuple[str, ...]) -> str:
    """ES modules as one module to set inline (a report opens from file://, where a module cannot load
    another): the modules in order, their imports of each other dropped and their exports made plain
    declarations of one scope."""
    return "".join(re.sub(r"^import .*\n", "", re.sub(r"^export ", "", _asset(name), flags=re.M), flags=re.M)
                   for name in names)


def script_json(data: Any) -> Markup:
    """JSON to embed in a `<script type="application/json">`: `<`, `>` and `&` escaped as \\u003c etc., so no
    field can close the script, open a comment or start markup."""
    text = json.dumps(data, separators=(",", ":"))
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return Markup(text)  # noqa: S704 - escaped above, for a script element rather than HTML text


def csp_hash(text: str) -> Markup:
    """The CSP source expression that allows exactly this inline script or style."""
    return Markup("'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'")  # noqa: S704


@dataclass
class _Run:
    """One run's part of the page: its summary (with charts) and its case records keyed by case id."""

    audit: Audit
    label: str
    side: int

    def summary(self) -> dict[str, Any]:
        rows = self.audit.rows()
        summary = run_summary(self.audit)
        suffix = "" if self.side == 0 else "-b"
        return {"label": self.label, "side": self.side, "suffix": suffix, "info": summary.info,
                "trials": summary.trials,
                "metrics": [list(m.model_dump().values()) for m in summary.metrics],
                "confusion": summary.confusion, "gain": summary.gain,  # numbers only reach the charts' markup
                "roc": Markup(roc_svg(rows, compute_metrics(rows, resamples=0).auroc.value, "roc" + suffix)),  # noqa: S704
                "histogram": Markup(histogram_svg(rows, chart_id="histogram" + suffix)),  # noqa: S704
                "calibration": Markup(calibration_svg(rows, chart_id="calibration" + suffix))}  # noqa: S704

    def cases(self, with_calls: bool) -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
        """case id -> (its line in the case list, its record)."""
        clip = self.audit.grounding_clip()
        out = {}
        for row in self.audit.rows():
            record = case_record(self.audit, row, with_calls, clip)
            out[row.case_id] = (with_text(case_line(self.audit, 0, row), record["question"],
                                          record["answer"]).model_dump(),
                                record)
        return out


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
    style, script = _asset("report.css"), inlined(MODULES)
    names = [f"{run.audit.root.name} ({judged_by(run.audit.manifest)})" for run in runs]
    title = f"courtroom report: {names[0]}" if not diff else (f"courtroom report: {names[0]} (A) against "
                                                              f"{names[1]} (B)")
    return _page().render(
        title=title, runs=[run.summary() for run in runs], diff=diff_cells(diff) if diff else None,
        sources=sorted({line["source"] for line in lines}), data=script_json(meta), records=records,
        style_hash=csp_hash(style), script_hash=csp_hash(script), style=Markup(style), script=Markup(script))  # noqa: S704


def write_report(run_dir: str | Path, output: str | Path, against: str | Path | None = None,
                 calls: bool | None = None) -> Path:
    """Write the report file, whole or not at all; returns its path."""
    path = Path(output)
    atomic_write(path, build_report(run_dir, against, calls))
    return path
