import { el, fmt } from "./dom.js";
import { caseRecord } from "./record.js";

// The report's case list (sort, filter, search, pages) and its case records (opened on demand: each record is a
// JSON block of its own, parsed only when its case is opened, drawn by record.js). Every value of a case is set as
// text, never as markup. The filters are `report.summary.CaseQuery`'s, as `courtroom view` applies them on its server.
const meta = JSON.parse(document.getElementById("data").textContent);
const lines = meta.cases;
const two = meta.runs.length === 2;
const $ = (id) => document.getElementById(id);
const records = new Map();
function record(key) {
  if (!records.has(key)) { const node = document.getElementById(key); records.set(key, node ? JSON.parse(node.textContent) : null); }
  return records.get(key);
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
      wrap.append(caseRecord(record(key + c.i), key + c.i, meta)); pair.append(wrap); }
    td.append(pair);
  } else td.append(caseRecord(record("a" + c.i), "a" + c.i, meta));
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
  const q = $("search").value.toLowerCase().trim(), o = $("filter-outcome").value, v = $("filter-verdict").value,
    s = $("filter-source").value, ch = two ? $("filter-change").value : "";
  shown = lines.filter(c => (o === "all" || (o === "edited" ? c.edited : c.outcome === o)) && (!v || c.corrected === v) &&
    (!s || c.source === s) && (!ch || (ch === "any" ? ["fixed", "broken", "changed"].includes(c.change) : c.change === ch)) &&
    (!q || c.search.some((t) => t.includes(q))));
  const col = columns.find(x => x.key === sort.key);
  if (col && !(col.key === "i" && sort.dir === 1)) shown = shown.slice().sort(compare(col));
  draw();
}
for (const c of lines) c.search = [c.id, c.reason, c.question, c.answer].map((t) => t.toLowerCase());
["search", "filter-outcome", "filter-verdict", "filter-source", "filter-change"].forEach(id => { const e = $(id);
  if (e) e.addEventListener("input", () => { page = 0; apply(); }); });
$("prev").addEventListener("click", () => { page -= 1; draw(); });
$("next").addEventListener("click", () => { page += 1; draw(); });
header(); apply();
document.body.dataset.readyMs = String(Math.round(performance.now()));
document.body.dataset.ready = "1";
