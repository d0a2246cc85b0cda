"""A self-contained HTML report of a run: summary, confusion matrix, calibration, and every debate.

One static file: styles, script and data are inline, so it opens anywhere and makes no network
request. Cases can be searched and filtered (wrong verdicts, label, source); opening a case shows
its debate, with the charged quotes highlighted in the answer and every cited sentence highlighted
in the context.
"""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

from jinja2 import Environment
from markupsafe import Markup

from courtroom.casefile import context_sentences
from courtroom.errors import TranscriptError
from courtroom.evaluate.metrics import Metrics, compute_metrics
from courtroom.evaluate.results import ResultRow
from courtroom.log.audit import Audit
from courtroom.report.record import measured, weighed


def _row_only(row: ResultRow, corrected: ResultRow, note: str) -> dict[str, Any]:
    """A case whose transcript cannot be read: what its result row holds, and why the rest is missing."""
    return {"id": row.case_id, "source": row.source, "gold": row.gold, "label": row.label, "corrected": corrected.label,
            "score": row.score, "reason": row.reason, "error": row.error, "question": "", "answer": "", "sentences": [],
            "charges": [], "dropped": [], "trials": [], "edits": [], "note": note,
            "tokens": row.prompt_tokens + row.completion_tokens, "seconds": round(row.seconds, 2), "calls": row.model_calls}


def _case_data(audit: Audit, row: ResultRow, corrected: ResultRow) -> dict[str, Any]:
    try:
        events = audit.store.events(row.case_id)
    except TranscriptError as exc:
        return _row_only(row, corrected, str(exc))
    start = next(e for e in events if e.event == "case_start")
    case = start.case
    charges = next((e for e in events if e.event == "charges"), None)
    moves = [e for e in events if e.event == "move"]
    rulings = {e.ruling.charge: e.ruling for e in events if e.event == "ruling"}
    sentences = list(context_sentences(case))
    trials = []
    for index in sorted({m.charge for m in moves} | set(rulings)):
        trial_moves = []
        for m in (m for m in moves if m.charge == index):
            cite = m.payload.get("evidence") if isinstance(m.payload.get("evidence"), int) else None
            text = " ".join(str(v) for k, v in m.payload.items() if k != "evidence")
            trial_moves.append({"round": m.round, "role": m.role, "persona": m.persona, "move": m.move,
                                "p": None if m.forced or not m.move_probs else round(m.move_probs.get(m.move, 0), 3),
                                "text": text, "cite": cite})
        ruling = rulings.get(index)
        trials.append({"charge": index, "moves": trial_moves, "ruling": None if ruling is None else {
            "verdict": ruling.verdict.value, "confidence": round(ruling.confidence, 3), "source": ruling.source,
            "reason": ruling.reason, "weighed": weighed(ruling)}})
    return {
        "id": row.case_id, "source": row.source, "gold": row.gold, "label": row.label, "corrected": corrected.label,
        "score": row.score, "reason": row.reason, "error": row.error, "question": case.question,
        "answer": case.answer, "sentences": sentences,
        "charges": [{"quote": c.quote, "reason": c.reason, "measured": measured(c)}
                    for c in charges.charges] if charges else [],
        "dropped": [{"quote": d.quote, "why": d.why_dropped, "measured": measured(d)}
                    for d in charges.dropped] if charges else [],
        "trials": trials,
        "edits": [{"charge": e.charge, "verdict": e.verdict.value, "author": e.provenance.author,
                   "reason": e.provenance.reason} for e in events if e.event == "edit"],
        "tokens": row.prompt_tokens + row.completion_tokens, "seconds": round(row.seconds, 2), "calls": row.model_calls,
    }


def calibration_svg(rows: list[Any], bins: int = 10, size: int = 260) -> str:
    """Reliability diagram: observed share of FAIL per bin of the judge's score."""
    judged = [r for r in rows if r.score is not None and r.gold is not None]
    pad = 30
    inner = size - 2 * pad
    parts = [f'<svg id="calibration" xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" '
             f'role="img" aria-label="calibration plot">',
             f'<rect x="{pad}" y="{pad}" width="{inner}" height="{inner}" fill="#fafafa" stroke="#999"/>',
             f'<line x1="{pad}" y1="{pad + inner}" x2="{pad + inner}" y2="{pad}" stroke="#bbb" stroke-dasharray="4"/>',
             f'<text x="{size / 2}" y="{size - 6}" font-size="11" text-anchor="middle">score</text>',
             f'<text x="10" y="{size / 2}" font-size="11" text-anchor="middle" '
             f'transform="rotate(-90 10 {size / 2})">observed FAIL share</text>']
    for b in range(bins):
        members = [r for r in judged if min(int(r.score * bins), bins - 1) == b]
        if not members:
            continue
        x = sum(r.score for r in members) / len(members)
        y = sum(r.gold == "FAIL" for r in members) / len(members)
        radius = 3 + min(9, len(members) ** 0.5)
        parts.append(f'<circle class="bin" cx="{pad + x * inner:.1f}" cy="{pad + (1 - y) * inner:.1f}" r="{radius:.1f}" '
                     f'fill="#4a7bd0" fill-opacity="0.7"><title>{len(members)} cases, mean score {x:.2f}, '
                     f'FAIL share {y:.2f}</title></circle>')
    parts.append("</svg>")
    return "".join(parts)


def _metrics_cells(name: str, m: Metrics) -> list[str]:
    return [name, str(m.cases), str(m.errors), str(m.balanced_accuracy), _f(m.accuracy.value), _f(m.precision.value),
            _f(m.recall.value), _f(m.f1.value), _f(m.auroc.value)]


def _f(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def script_json(data: Any) -> Markup:
    """JSON to embed in a `<script type="application/json">`: `<`, `>` and `&` escaped as \\u003c etc., so no
    field can close the script, open a comment or start markup."""
    text = json.dumps(data).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return Markup(text)  # noqa: S704 - escaped above, for a script element rather than HTML text


def csp_hash(text: str) -> Markup:
    """The CSP source expression that allows exactly this inline script or style."""
    return Markup("'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'")  # noqa: S704


def build_report(run_dir: str | Path) -> str:
    """The HTML text of a run's report: one autoescaping template pass, every value from the run as text."""
    audit = Audit(run_dir)
    manifest = audit.store.manifest()
    rows = audit.rows()
    corrected = audit.corrected_rows()
    cases = [_case_data(audit, r, c) for r, c in zip(rows, corrected)]
    metrics = [_metrics_cells("model", compute_metrics(rows))]
    if audit.edits():
        metrics.append(_metrics_cells("corrected by humans", compute_metrics(corrected)))
    return PAGE.render(
        title=f"courtroom report: {audit.root.name}",
        info=f"judge {manifest.spec.judge.name}, model {manifest.model}, created {manifest.created:%Y-%m-%d %H:%M} "
             f"UTC, git {manifest.git_sha or 'unknown'}",
        metrics=metrics, confusion=compute_metrics(rows).confusion, calibration=Markup(calibration_svg(rows)),  # noqa: S704 - numbers only
        sources=sorted({c["source"] for c in cases}), data=script_json(cases),
        style_hash=csp_hash(STYLE), script_hash=csp_hash(SCRIPT), style=Markup(STYLE), script=Markup(SCRIPT))  # noqa: S704


def write_report(run_dir: str | Path, output: str | Path) -> Path:
    """Write the report file; returns its path."""
    path = Path(output)
    path.write_text(build_report(run_dir), encoding="utf-8")
    return path


STYLE = """body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:1.5em;color:#222;max-width:1200px}
h1{font-size:1.4em;margin-bottom:.2em} .info{color:#666;font-size:.9em}
table{border-collapse:collapse;margin:.6em 0} td,th{border:1px solid #ddd;padding:.25em .5em;font-size:.9em}
.panels{display:flex;gap:2em;align-items:flex-start;flex-wrap:wrap}
.controls{position:sticky;top:0;background:#fff;padding:.5em 0;border-bottom:1px solid #ddd;display:flex;gap:.6em;flex-wrap:wrap}
.case-row{padding:.35em .5em;border-bottom:1px solid #eee;cursor:pointer;display:flex;gap:1em}
.case-row:hover{background:#f4f7ff} .case-row .id{flex:0 0 18em;font-family:monospace;overflow:hidden}
.ok{color:#1a7f37} .wrong{color:#c62828;font-weight:bold} .err{color:#b26a00}
.case-detail{border:1px solid #ccd;border-radius:6px;padding:.8em;margin:.4em 0 1em 0;background:#fcfcff}
mark.charge{background:#ffd7d7;border-bottom:2px solid #c62828} mark.cite{background:#fff3a8}
.sentence{display:block;margin:.1em 0} .sentence .n{color:#888;font-family:monospace}
.move{margin:.2em 0 .2em 1em} .ruling{margin:.3em 0 .6em 1em;font-weight:bold}
.edit{color:#7b1fa2} .muted{color:#888}
"""

SCRIPT = r""""use strict";
const cases = JSON.parse(document.getElementById("data").textContent);
const $ = (id) => document.getElementById(id);
function el(tag, cls, text) { const e = document.createElement(tag); if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = text; return e; }
function outcome(c) { if (c.error) return "error"; if (!c.gold) return "unlabelled";
  return c.corrected === c.gold ? "correct" : "wrong"; }
function marked(text, quotes, cls) {
  const span = el("span"); const lower = text.toLowerCase(); const ranges = [];
  for (const q of quotes) { const n = q.toLowerCase().trim(); if (!n) continue;
    let i = lower.indexOf(n); while (i !== -1) { ranges.push([i, i + n.length]); i = lower.indexOf(n, i + 1); } }
  ranges.sort((a, b) => a[0] - b[0]); let pos = 0;
  for (const [s, e] of ranges) { if (s < pos) continue; span.append(text.slice(pos, s));
    span.append(el("mark", cls, text.slice(s, e))); pos = e; }
  span.append(text.slice(pos)); return span; }
function detail(c) {
  const d = el("div", "case-detail");
  if (c.note) d.append(el("div", "err note", c.note + " (what the results row holds is shown)"));
  d.append(el("div", "", "Question: " + c.question));
  const ans = el("div"); ans.append(el("b", "", "Answer: ")); ans.append(marked(c.answer, c.charges.map(x => x.quote), "charge"));
  d.append(ans);
  const cited = new Set(); c.trials.forEach(t => t.moves.forEach(m => { if (m.cite) cited.add(m.cite); }));
  const ctx = el("div", "context"); ctx.append(el("b", "", "Context:"));
  c.sentences.forEach((s, i) => { const line = el("span", "sentence"); line.append(el("span", "n", "[" + (i + 1) + "] "));
    line.append(cited.has(i + 1) ? el("mark", "cite", s) : document.createTextNode(s)); ctx.append(line); });
  d.append(ctx);
  if (c.charges.length) { const h = el("div"); h.append(el("b", "", "Charges: "));
    c.charges.forEach((x, i) => h.append(el("div", "", (i + 1) + ". \u201c" + x.quote + "\u201d \u2014 " + x.reason +
      (x.measured ? " [" + x.measured + "]" : "")))); d.append(h); }
  c.dropped.forEach(x => d.append(el("div", "muted", "dropped: \u201c" + x.quote + "\u201d (" + x.why + ")" +
    (x.measured ? " [" + x.measured + "]" : ""))));
  c.trials.forEach(t => { d.append(el("h4", "", "Trial of charge " + (t.charge + 1)));
    t.moves.forEach(m => { const line = el("div", "move", "Round " + m.round + " \u00b7 " + m.role + " (" + m.persona + ") " + m.move +
        (m.p === null ? " [forced]" : " [p=" + m.p + "]") + ": " + m.text);
      if (m.cite) { line.append(" citing "); line.append(el("mark", "cite", "[" + m.cite + "] " + (c.sentences[m.cite - 1] || ""))); }
      d.append(line); });
    if (t.ruling) d.append(el("div", "ruling", "Ruling: " + t.ruling.verdict + " (confidence " + t.ruling.confidence + ", " +
      t.ruling.source + ") \u2014 " + t.ruling.reason));
    if (t.ruling && t.ruling.weighed) d.append(el("div", "muted weighed", t.ruling.weighed)); });
  const v = el("div"); v.append(el("b", "", "Verdict: " + (c.label || "none") + (c.score === null ? "" : " (score " + c.score.toFixed(3) + ")")));
  v.append(" gold: " + (c.gold || "-") + "; " + c.reason); d.append(v);
  if (c.error) d.append(el("div", "err", "Error: " + c.error));
  c.edits.forEach(e => d.append(el("div", "edit", "Edit by " + e.author + ": " + (e.charge === null ? "case" : "charge " + (e.charge + 1)) +
    " \u2192 " + e.verdict + " (" + e.reason + ")")));
  d.append(el("div", "muted", c.calls + " model calls, " + c.tokens + " tokens, " + c.seconds + " s"));
  return d; }
function render() {
  const q = $("search").value.toLowerCase(), o = $("filter-outcome").value, v = $("filter-verdict").value, s = $("filter-source").value;
  const shown = cases.filter(c => (o === "all" || (o === "edited" ? c.edits.length > 0 : outcome(c) === o)) &&
    (!v || c.corrected === v) && (!s || c.source === s) &&
    (!q || [c.id, c.question, c.answer, c.reason].some(t => (t || "").toLowerCase().includes(q))));
  const list = $("cases"); list.replaceChildren();
  shown.slice(0, 500).forEach(c => { const row = el("div", "case-row"); row.dataset.id = c.id;
    row.append(el("span", "id", c.id)); row.append(el("span", outcome(c) === "wrong" ? "wrong" : outcome(c) === "error" ? "err" : "ok",
      (c.corrected || "error") + (c.corrected !== c.label ? " (model: " + c.label + ")" : "")));
    row.append(el("span", "muted", "gold " + (c.gold || "-") + " \u00b7 " + c.source));
    row.addEventListener("click", () => { const next = row.nextSibling;
      if (next && next.classList && next.classList.contains("case-detail")) next.remove(); else row.after(detail(c)); });
    list.append(row); });
  $("count").textContent = "showing " + Math.min(shown.length, 500) + " of " + shown.length + " matching cases (" + cases.length + " in all)";
}
["search", "filter-outcome", "filter-verdict", "filter-source"].forEach(id => $(id).addEventListener("input", render));
render();
"""

PAGE = Environment(autoescape=True).from_string("""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src {{ style_hash }}; script-src {{ script_hash }}; img-src data:">
<title>{{ title }}</title>
<style>{{ style }}</style></head><body>
<h1>{{ title }}</h1><div class="info">{{ info }}</div>
<h2>Summary</h2>
<table class="metrics"><tr><th>verdicts</th><th>cases</th><th>errors</th><th>balanced accuracy [95% CI]</th><th>accuracy</th><th>precision</th><th>recall</th><th>F1</th><th>AUROC</th></tr>
{% for cells in metrics %}<tr>{% for cell in cells %}<td>{{ cell }}</td>{% endfor %}</tr>
{% endfor %}</table>
<div class="panels"><div><h3>Confusion (positive = FAIL)</h3>
<table id="confusion" class="confusion"><tr><th></th><th>predicted FAIL</th><th>predicted PASS</th></tr>
<tr><th>gold FAIL</th><td>{{ confusion.tp }}</td><td>{{ confusion.fn }}</td></tr>
<tr><th>gold PASS</th><td>{{ confusion.fp }}</td><td>{{ confusion.tn }}</td></tr></table></div>
<div><h3>Calibration</h3>{{ calibration }}</div></div>
<h2>Cases</h2>
<div class="controls">
<input id="search" type="search" placeholder="search id, question, answer, reason" size="40">
<select id="filter-outcome"><option value="all">all cases</option><option value="wrong">wrong verdicts</option>
<option value="correct">correct verdicts</option><option value="error">errors</option><option value="edited">edited</option></select>
<select id="filter-verdict"><option value="">any verdict</option><option value="FAIL">FAIL</option><option value="PASS">PASS</option></select>
<select id="filter-source"><option value="">any source</option>{% for source in sources %}<option value="{{ source }}">{{ source }}</option>{% endfor %}</select>
<span id="count"></span></div>
<div id="cases"></div>
<script type="application/json" id="data">{{ data }}</script>
<script>{{ script }}</script></body></html>
""")
