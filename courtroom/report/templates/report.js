"use strict";
// The report's case list (sort, filter, search, pages) and case records (opened on demand: each record is a
// JSON block of its own, parsed only when its case is opened). Every value of a case is set as text, never
// as markup.
const meta = JSON.parse(document.getElementById("data").textContent);
const lines = meta.cases;
const two = meta.runs.length === 2;
const $ = (id) => document.getElementById(id);
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}
const records = new Map();
function record(key) {
  if (!records.has(key)) { const node = document.getElementById(key); records.set(key, node ? JSON.parse(node.textContent) : null); }
  return records.get(key);
}
const fmt = (x, digits) => (x === null || x === undefined) ? "-" : Number(x).toFixed(digits === undefined ? 3 : digits);

// Lower case, character by character, keeping the text's length (so an index found in it is one in the text): a
// character whose lower case is longer (U+0130 "İ" -> "i̇") is kept as it is.
const fold = (s) => Array.from(s, (c) => { const l = c.toLowerCase(); return l.length === c.length ? l : c; }).join("");
function marked(text, quotes, cls) {
  const span = el("span"); const lower = fold(text); const ranges = [];
  for (const q of quotes) { const n = fold(q).trim(); if (!n) continue;
    let i = lower.indexOf(n); while (i !== -1) { ranges.push([i, i + n.length]); i = lower.indexOf(n, i + 1); } }
  ranges.sort((a, b) => a[0] - b[0]); let pos = 0;
  for (const [s, e] of ranges) { if (s < pos) continue; span.append(text.slice(pos, s));
    span.append(el("mark", cls, text.slice(s, e))); pos = e; }
  span.append(text.slice(pos)); return span;
}

function heatmap(r) {
  // The answer as the court scored it, each token shaded by its grounding gain; hover gives the numbers.
  const box = el("div", "heat"); const text = r.scored_answer; let pos = 0;
  const weak = r.weak;
  for (const [s, e, gain, uncapped, band] of r.heat) {
    if (s > pos) box.append(text.slice(pos, s));
    const tok = el("span", "tok band" + band, text.slice(s, e));
    if (weak.some(([ws, we]) => s < we && e > ws && text.slice(s, e).trim())) tok.classList.add("weak");
    tok.title = "gain " + (gain >= 0 ? "+" : "") + gain.toFixed(2) + " nats" +
      (uncapped !== gain ? " (uncapped " + (uncapped >= 0 ? "+" : "") + uncapped.toFixed(2) + ")" : "");
    box.append(tok); pos = Math.max(pos, e);
  }
  box.append(text.slice(pos));
  const legend = el("div", "legend muted", "gain of each token from the context (nats" +
    (meta.clip ? ", capped at " + meta.clip : "") + "): ");
  meta.bands.forEach((label, i) => legend.append(el("span", "band" + i, label)));
  legend.append("underlined: the words the context accounts for least; hover a token for its numbers");
  const wrap = el("div", "measurement"); wrap.append(el("b", "", "The measurement, token by token:"), box, legend);
  return wrap;
}

function callNode(call, opening) {
  const d = el("details", "call");
  const cost = call.prompt_tokens + " prompt tokens (" + call.reused + " reused), " + call.completion_tokens +
    " generated, " + call.seconds + " s";
  d.append(el("summary", "", "call " + call.n + " \u00b7 " + call.purpose + " \u00b7 " + call.speaker +
    (call.where ? " \u00b7 " + call.where : "") + " \u2014 " + cost));
  const field = (name, node) => { const f = el("div", "field"); f.append(el("b", "", name)); f.append(node); return f; };
  d.append(field("constraint ", document.createTextNode(call.constraint)));
  for (const [role, text, shared] of call.messages) {
    const m = el("div", "field message"); m.append(el("b", "", role));
    if (shared) { const s = el("details", "shared");
      s.append(el("summary", "", shared.toLocaleString() + " characters shared by every prompt of the case"));
      s.append(el("pre", "", opening.slice(0, shared))); m.append(s); }
    m.append(el("pre", "prompt", text)); d.append(m);
  }
  d.append(field("output", el("pre", "raw", call.raw || "(empty)")));
  if (call.options) d.append(field("options ", document.createTextNode(
    Object.entries(call.options).map(([o, p]) => o + " " + p.toFixed(3)).join(", "))));
  if (call.error) d.append(field("error ", el("span", "err", call.error)));
  return d;
}

function callGroup(calls, opening, cls, label) {
  const g = el("details", cls); g.append(el("summary", "", label));
  calls.forEach(c => g.append(callNode(c, opening))); return g;
}

function caseRecord(r, line, key) {
  const d = el("div", "case-detail");
  if (r === null) { d.append(el("div", "muted", "this run holds no such case")); return d; }
  if (r.note) d.append(el("div", "err note", r.note + " (what the results row holds is shown)"));
  if (r.question) d.append(el("div", "", "Question: " + r.question));
  const spanned = r.spans.length || r.gold_spans.length;
  if (r.answer && spanned) d.append(spanAnswer(r, key));
  else if (r.answer) { const ans = el("div"); ans.append(el("b", "", "Answer: "));
    ans.append(marked(r.answer, r.charges.map(x => x.quote), "charge")); d.append(ans); }
  if (r.spans.length) d.append(spanEvidence(r, key));
  if (r.heat.length) d.append(heatmap(r));
  const cited = new Set(); r.trials.forEach(t => t.moves.forEach(m => { if (m.cite) cited.add(m.cite); }));
  if (r.sentences.length) { const ctx = el("div", "context"); ctx.append(el("b", "", "Context:"));
    r.sentences.forEach((s, i) => { const line = el("span", "sentence"); line.append(el("span", "n", "[" + (i + 1) + "] "));
      line.append(cited.has(i + 1) ? el("mark", "cite", s) : document.createTextNode(s)); ctx.append(line); });
    d.append(ctx); }
  if (r.witnesses.length) d.append(testimonyTable(r));
  if (r.charges.length) { const h = el("div"); h.append(el("b", "", "Charges: "));
    r.charges.forEach((x, i) => h.append(el("div", "", (i + 1) + ". \u201c" + x.quote + "\u201d \u2014 " + x.reason +
      (x.measured ? " [" + x.measured + "]" : "")))); d.append(h); }
  r.dropped.forEach(x => d.append(el("div", "muted", "dropped: \u201c" + x.quote + "\u201d (" + x.why + ")" +
    (x.measured ? " [" + x.measured + "]" : ""))));
  const calls = r.calls || []; const used = new Set();
  const turnCalls = (m, charge) => calls.filter(c => !used.has(c.n) && c.charge === charge && c.round === m.round &&
    c.role === m.role && (c.purpose === "move" || c.purpose === "payload" || c.purpose === "verdict"));
  r.trials.forEach(t => { d.append(el("h4", "", "Trial of charge " + (t.charge + 1)));
    t.moves.forEach(m => { const line = el("div", "move", "Round " + m.round + " \u00b7 " + m.role + " (" + m.persona + ") " +
        m.move + (m.p === null ? " [forced]" : " [p=" + m.p + "]") +
        (m.polled ? " [polled: " + Object.entries(m.polled).map(([k, v]) => k + " " + v).join(", ") + "]" : "") + ": " + m.text);
      if (m.cite) { line.append(" citing "); line.append(el("mark", "cite", "[" + m.cite + "] " + (r.sentences[m.cite - 1] || ""))); }
      d.append(line);
      const mine = turnCalls(m, t.charge); mine.forEach(c => used.add(c.n));
      if (mine.length) d.append(callGroup(mine, r.opening, "turn-calls", mine.length + " model call" + (mine.length > 1 ? "s" : "") + " of this turn"));
    });
    if (t.ruling) d.append(el("div", "ruling", "Ruling: " + t.ruling.verdict + " (confidence " + t.ruling.confidence + ", " +
      t.ruling.source + ") \u2014 " + t.ruling.reason));
    if (t.ruling && t.ruling.weighed) d.append(el("div", "muted weighed", t.ruling.weighed)); });
  const rest = calls.filter(c => !used.has(c.n));
  if (rest.length) d.append(callGroup(rest, r.opening, "other-calls", rest.length + " other model call" +
    (rest.length > 1 ? "s" : "") + " (measurement, indictment, jury, weighing)"));
  if (r.calls === null && !r.note) d.append(el("div", "muted", meta.calls_note));
  const v = el("div"); v.append(el("b", "", "Verdict: " + (r.label || "none") + (r.score === null ? "" : " (score " + fmt(r.score) + ")")));
  v.append(" gold: " + (r.gold || "-") + "; " + r.reason); d.append(v);
  if (r.error) d.append(el("div", "err", "Error: " + r.error));
  r.edits.forEach(e => d.append(el("div", "edit", "Edit by " + e.author + ": " + (e.charge === null ? "case" : "charge " + (e.charge + 1)) +
    " \u2192 " + e.verdict + " (" + e.reason + ")")));
  d.append(el("div", "muted", r.model_calls + " model calls, " + r.tokens + " tokens, " + r.seconds + " s"));
  return d;
}

// ---- the case list: columns, sorting, filters, pages
const columns = [
  {key: "i", label: "#", num: true, get: c => c.i + 1},
  {key: "id", label: "case", get: c => c.id},
  {key: "verdict", label: two ? "verdict A" : "verdict", get: c => c.corrected || ""},
  {key: "gold", label: "gold", get: c => c.gold || ""},
  {key: "score", label: two ? "score A" : "score", num: true, get: c => c.score},
];
if (two) columns.push(
  {key: "verdict_b", label: "verdict B", get: c => c.b ? (c.b.corrected || "") : ""},
  {key: "score_b", label: "score B", num: true, get: c => c.b ? c.b.score : null},
  {key: "delta", label: "\u0394 score", num: true, get: c => (c.b && c.b.score !== null && c.score !== null) ? c.b.score - c.score : null},
  {key: "change", label: "change", get: c => c.change});
columns.push({key: "charges", label: "charges", num: true, get: c => c.charges},
  {key: "source", label: "source", get: c => c.source},
  {key: "reason", label: "reason", get: c => c.reason});
let sort = {key: "i", dir: 1}; let page = 0; let shown = lines;
const pageSize = meta.page_size;

function compare(col) {
  return (a, b) => { const x = col.get(a), y = col.get(b);
    if (x === null || x === undefined || x === "") return (y === null || y === undefined || y === "") ? a.i - b.i : 1;
    if (y === null || y === undefined || y === "") return -1;
    const r = col.num ? x - y : String(x).localeCompare(String(y));
    return r !== 0 ? r * sort.dir : a.i - b.i; };
}
function verdictCell(label, corrected, outcomeName) {
  const cls = outcomeName === "wrong" ? "wrong" : outcomeName === "error" ? "err" : "ok";
  return el("td", cls, (corrected || "error") + (corrected !== label ? " (model: " + (label || "error") + ")" : ""));
}
function header() {
  const tr = $("case-head"); tr.replaceChildren();
  for (const col of columns) { const th = el("th", col.key === "reason" ? "" : "sortable", col.label); th.dataset.key = col.key;
    if (col.key === sort.key) th.setAttribute("aria-sort", sort.dir > 0 ? "ascending" : "descending");
    if (col.key !== "reason") th.addEventListener("click", () => {
      sort = {key: col.key, dir: sort.key === col.key ? -sort.dir : (col.key === "score" || col.key === "delta" || col.key === "score_b") ? -1 : 1};
      page = 0; header(); apply(); });
    tr.append(th); }
}
function openCase(row, c) {
  const next = row.nextSibling;
  if (next && next.classList.contains("detail-row")) { next.remove(); return; }
  const tr = el("tr", "detail-row"); const td = el("td"); td.colSpan = columns.length; tr.append(td);
  if (two) { const pair = el("div", "pair");
    for (const [side, key] of [[0, "a"], [1, "b"]]) { const wrap = el("div");
      wrap.append(el("div", "run-name", (side ? "B: " : "A: ") + meta.runs[side]));
      wrap.append(caseRecord(record(key + c.i), c, key + c.i)); pair.append(wrap); }
    td.append(pair);
  } else td.append(caseRecord(record("a" + c.i), c, "a" + c.i));
  row.after(tr);
}
function draw() {
  const body = $("case-body"); body.replaceChildren();
  const pages = Math.max(1, Math.ceil(shown.length / pageSize)); page = Math.min(page, pages - 1);
  for (const c of shown.slice(page * pageSize, (page + 1) * pageSize)) {
    const row = el("tr", "case-row"); row.dataset.id = c.id;
    for (const col of columns) {
      if (col.key === "verdict") row.append(verdictCell(c.label, c.corrected, c.outcome));
      else if (col.key === "verdict_b") row.append(c.b ? verdictCell(c.b.label, c.b.corrected, c.b.outcome) : el("td", "muted", "-"));
      else if (col.key === "change") row.append(el("td", c.change, c.change));
      else { const v = col.get(c); row.append(el("td", col.key === "id" ? "id" : col.num ? "num" : col.key === "reason" ? "reason" : "",
        v === null || v === undefined ? "-" : (col.num && !Number.isInteger(v)) ? fmt(v) : v)); }
    }
    row.addEventListener("click", () => openCase(row, c));
    body.append(row);
  }
  const first = shown.length ? page * pageSize + 1 : 0, last = Math.min(shown.length, (page + 1) * pageSize);
  $("count").textContent = "showing " + (shown.length > pageSize ? first + "-" + last : shown.length) + " of " + shown.length +
    " matching cases (" + lines.length + " in all)";
  $("page").textContent = "page " + (page + 1) + " of " + pages;
  $("prev").disabled = page === 0; $("next").disabled = page >= pages - 1;
}
function apply() {
  const q = $("search").value.toLowerCase(), o = $("filter-outcome").value, v = $("filter-verdict").value,
    s = $("filter-source").value, ch = two ? $("filter-change").value : "";
  shown = lines.filter(c => (o === "all" || (o === "edited" ? c.edited : c.outcome === o)) && (!v || c.corrected === v) &&
    (!s || c.source === s) && (!ch || (ch === "any" ? ["fixed", "broken", "changed"].includes(c.change) : c.change === ch)) &&
    (!q || c.search.includes(q)));
  const col = columns.find(x => x.key === sort.key);
  if (col && !(col.key === "i" && sort.dir === 1)) shown = shown.slice().sort(compare(col));
  draw();
}
for (const c of lines) c.search = [c.id, c.reason, c.question || "", c.answer || ""].join("\n").toLowerCase();
["search", "filter-outcome", "filter-verdict", "filter-source", "filter-change"].forEach(id => { const e = $(id);
  if (e) e.addEventListener("input", () => { page = 0; apply(); }); });
$("prev").addEventListener("click", () => { page -= 1; draw(); });
$("next").addEventListener("click", () => { page += 1; draw(); });
header(); apply();
document.body.dataset.readyMs = String(Math.round(performance.now()));
document.body.dataset.ready = "1";
