// courtroom view: the runs under a folder, a run's cases (filtered, sorted and paged by the server), a case's record
// (record.js draws it as the report does), two runs side by side, and labelling (labelling.js). Every value is set as
// text (el() sets textContent), never as markup; every request carries the page's token, every change is a POST.
import { el, fmt, table } from "./dom.js";
import { labelScreen } from "./labelling.js";
import { api, latest, page, poll, ready, recordNode, setKeys, status, stopPolling } from "./page.js";

const main = document.getElementById("main");

const hash = (name, params) => name + "?" + new URLSearchParams(params);
function link(text, to) {
  const a = el("a", "", text);
  a.href = "#" + to;
  return a;
}
function select(id, options, value) {
  const s = el("select");
  s.id = id;
  for (const [v, label] of options) {
    const o = el("option", "", label);
    o.value = v;
    s.append(o);
  }
  s.value = value || "";
  return s;
}
// ---- the runs under the folder
function runLine(r) {
  if (r.error) return [r.name, el("span", "err", r.error)];
  const judged = r.judged + (r.total === null ? "" : " of " + r.total) + (r.live ? " (being written)" : "");
  const gain = r.gain ? r.gain.pairings.map((p) => p[0] + ": " + p[2]).join("; ") : "-";
  return [link(r.key, hash("/run", { run: r.key })), r.by, r.model, judged, r.metrics.balanced_accuracy, r.metrics.auroc,
    r.metrics.errors, gain];
}
async function runsScreen() {
  const box = el("div"), h = el("h1", "", "Runs"), list = el("div");
  const pickA = el("select"), pickB = el("select"), compare = el("button", "", "side by side");
  compare.id = "compare";
  compare.addEventListener("click", () => { location.hash = hash("/diff", { a: pickA.value, b: pickB.value }); });
  const bar = el("div", "controls");
  bar.append("Two runs of the same data: A ", pickA, " B ", pickB, compare);
  box.append(h, list, bar);
  main.replaceChildren(box);
  const draw = async () => {
    const data = await api("/api/runs");
    h.textContent = "Runs under " + data.root;
    list.replaceChildren(table(["run", "judged by", "model", "cases judged", "balanced accuracy [95% CI]", "AUROC", "errors",
      "the debate's gain (court \u2212 it [95% CI])"], data.runs.map(runLine), "runs"));
    for (const pick of [pickA, pickB]) {
      if (pick.options.length === data.runs.length) continue;
      const was = pick.value;
      pick.replaceChildren(...data.runs.map((r) => { const o = el("option", "", r.key); o.value = r.key; return o; }));
      pick.value = was || (pick === pickB && data.runs[1] ? data.runs[1].key : pick.value);
    }
    ready();
  };
  await draw();
  poll(draw, 2000);
}

// ---- a run: its summary and its cases
const METRICS = [["verdicts", "verdicts"], ["cases", "cases"], ["errors", "errors"], ["balanced_accuracy", "balanced accuracy [95% CI]"],
  ["accuracy", "accuracy"], ["precision", "precision"], ["recall", "recall"], ["f1", "F1"], ["auroc", "AUROC"]];
const COLUMNS = [["i", "#"], ["id", "case"], ["verdict", "verdict"], ["gold", "gold"], ["score", "P(hallucinated)"],
  ["charges", "charges"], ["source", "source"], [null, "labelled"], [null, "trial ended"], [null, "reason"]];
function summaryNode(run) {
  const box = el("div");
  box.append(el("h1", "", run.name), el("div", "info", run.info));
  box.append(table(METRICS.map(([, label]) => label), run.metrics.map((m) => METRICS.map(([key]) => m[key])), "metrics"));
  if (run.gain) {
    box.append(el("h3", "", "The debate's gain: the court against its measurement alone and its agents alone"),
      table(["verdicts", "cases", "balanced accuracy [95% CI]", "AUROC [95% CI]"], run.gain.metrics),
      table(["against the court", "cases in both", "balanced accuracy court \u2212 it [95% CI]", "McNemar p"], run.gain.pairings));
  }
  if (run.trials) box.append(el("h3", "", "Trials"), table(run.trials.header, run.trials.rows, "trials"));
  return box;
}
function filters(q, load) {
  const sources = select("filter-source", [["", "any source"]]);
  const endings = select("filter-ended", [["", "any trial"], ["none", "no trial"]]);
  const search = el("input");
  Object.assign(search, { id: "search", type: "search", placeholder: "search id, reason, question, answer" });
  const range = ["pmin", "pmax"].map((name) => {
    const i = el("input");
    Object.assign(i, { id: name, type: "number", min: 0, max: 1, step: 0.05, size: 5, placeholder: name === "pmin" ? "P from" : "P to" });
    return i;
  });
  const controls = el("div", "controls");
  controls.append(search, select("filter-outcome", [["all", "all cases"], ["wrong", "wrong verdicts"], ["correct", "correct verdicts"],
    ["error", "errors"], ["unlabelled", "no gold label"], ["edited", "judged by a person"]], "all"),
  select("filter-verdict", [["", "any verdict"], ["FAIL", "FAIL"], ["PASS", "PASS"]]), sources, ...range,
  select("filter-labelled", [["", "labelled or not"], ["yes", "labelled"], ["no", "not labelled"]]), endings);
  for (const [node, field] of [[search, "q"], ...[...controls.children].slice(1).map((n) => [n, n.id.replace("filter-", "")])]) {
    node.addEventListener("input", (e) => { q[field] = e.target.value; q.offset = 0; load(); });
  }
  return { controls, sources, endings };
}
async function runScreen(p) {
  const key = p.run;
  const q = { outcome: "all", verdict: "", source: "", pmin: "", pmax: "", labelled: "", ended: "", q: "", sort: "i", desc: false, offset: 0 };
  const count = el("span"), body = el("tbody"), head = el("tr"), judged = el("div", "muted");
  count.id = "count"; body.id = "case-body"; head.id = "case-head";
  const prev = el("button", "", "\u2190 previous"), next = el("button", "", "next \u2192");
  const { controls, sources, endings } = filters(q, () => load());
  controls.append(count, prev, next);
  const top = el("div");
  top.append(el("h1", "", key), judged, link("label its cases and refit \u2192", hash("/label", { run: key })));
  const t = el("table"), thead = el("thead");
  t.id = "case-table";
  thead.append(head);
  t.append(thead, body);
  main.replaceChildren(top, el("h2", "", "Cases"), controls, t);
  const summary = api("/api/run", { run: key }).then((run) => top.replaceChildren(summaryNode(run), judged, top.lastChild)); // after the list: its bootstrap takes longest
  for (const [sortKey, label] of COLUMNS) {
    const th = el("th", sortKey ? "sortable" : "", label);
    head.append(th);
    if (sortKey) th.addEventListener("click", () => { q.desc = q.sort === sortKey ? !q.desc : sortKey === "score"; q.sort = sortKey; q.offset = 0; load(); });
  }
  const cases = latest((params) => api("/api/cases", params));
  let shown = null;
  async function load(keepOpen) {
    const params = Object.fromEntries(Object.entries(q).filter(([, v]) => v !== "" && v !== false).map(([k, v]) => [k, String(v)]));
    const data = await cases(Object.assign({ run: key }, params));
    if (data === null) return; // a later request was asked meanwhile: its answer draws
    page.clip = data.clip;
    page.bands = data.bands;
    judged.textContent = data.total + " cases judged" + (data.live ? ", the run is being written: new cases appear as they are judged" : "");
    for (const [node, values] of [[sources, data.sources], [endings, data.endings]]) {
      for (const v of values) if (![...node.options].some((o) => o.value === v)) { const o = el("option", "", v); o.value = v; node.append(o); }
    }
    const first = data.matching ? data.offset + 1 : 0, last = data.offset + data.lines.length;
    count.textContent = first + "\u2013" + last + " of " + data.matching + " matching cases (" + data.total + " in all)";
    prev.disabled = data.offset === 0;
    next.disabled = last >= data.matching;
    const signature = JSON.stringify(data.lines);
    if (!(keepOpen && signature === shown)) {
      body.replaceChildren(...data.lines.map((c) => caseRow(key, c)));
      shown = signature;
      body.dataset.drawn = Number(body.dataset.drawn || 0) + 1;
    }
    [...head.children].forEach((th, i) => th.setAttribute("aria-sort", COLUMNS[i][0] === q.sort ? (q.desc ? "descending" : "ascending") : "none"));
    ready();
  }
  prev.addEventListener("click", () => { q.offset = Math.max(0, q.offset - 100); load(); });
  next.addEventListener("click", () => { q.offset += 100; load(); });
  await load();
  await summary;
  poll(() => load(true), 1500);
}
function verdictText(c) { return (c.corrected || "error") + (c.corrected !== c.label ? " (model: " + (c.label || "error") + ")" : ""); }
function caseRow(key, c) {
  const row = el("tr", "case-row");
  row.dataset.id = c.id;
  const cells = [c.i + 1, c.id, verdictText(c), c.gold, c.score === null ? null : fmt(c.score), c.charges, c.source, c.labelled,
    c.ended.join(", "), c.reason];
  const classes = ["num", "id", c.outcome === "wrong" ? "wrong" : c.outcome === "error" ? "err" : "ok", "", "num", "num", "", "", "", "reason"];
  cells.forEach((v, i) => row.append(el("td", classes[i], v === null || v === "" ? "-" : v)));
  row.addEventListener("click", () => toggleRecord(row, key, c.id, cells.length));
  return row;
}
async function toggleRecord(row, key, id, span) {
  if (row.nextSibling && row.nextSibling.classList.contains("detail-row")) { row.nextSibling.remove(); return; }
  const tr = el("tr", "detail-row"), td = el("td");
  td.colSpan = span;
  tr.append(td);
  row.after(tr);
  td.append(await recordNode(key, id));
}
// ---- two runs side by side
async function diffScreen(p) {
  const d = await api("/api/diff", { a: p.a, b: p.b });
  const kinds = select("filter-change", [["", "every change"], ["fixed", "fixed"], ["broken", "broken"],
    ["changed", "changed, neither right"], ["only A", "only in A"], ["only B", "only in B"]]);
  const t = table(["case", "gold", "verdict A", "verdict B", "change"], []);
  t.id = "diff-table";
  const draw = () => {
    while (t.rows.length > 1) t.deleteRow(1);
    for (const c of d.cases.filter((c) => !kinds.value || c.change === kinds.value)) {
      const row = el("tr", "case-row");
      row.dataset.id = c.id;
      [c.id, c.gold, c.a && (c.a.label || "error"), c.b && (c.b.label || "error"), c.change]
        .forEach((v, i) => row.append(el("td", i === 4 ? c.change : "", v || "-")));
      row.addEventListener("click", () => openPair(row, d, c));
      t.append(row);
    }
  };
  kinds.addEventListener("input", draw);
  const bar = el("div", "controls");
  bar.append(kinds, el("span", "muted", d.cases.length + " cases changed or in one run only; click one for both records"));
  main.replaceChildren(el("h1", "", "A: " + d.a + " against B: " + d.b),
    table(["cases in both", "verdict changed", "fixed (B right, A wrong)", "broken (A right, B wrong)", "changed, neither right",
      "only in A", "only in B", "balanced accuracy A \u2212 B [95% CI]", "McNemar p"], [d.cells], "diff"), bar, t);
  draw();
  ready();
}
async function openPair(row, d, c) {
  if (row.nextSibling && row.nextSibling.classList.contains("detail-row")) { row.nextSibling.remove(); return; }
  const tr = el("tr", "detail-row"), td = el("td"), pair = el("div", "pair");
  td.colSpan = 5;
  tr.append(td);
  row.after(tr);
  td.append(pair);
  for (const [side, key, rec] of [["A: ", d.a, c.a], ["B: ", d.b, c.b]]) {
    const wrap = el("div");
    wrap.append(el("div", "run-name", side + key));
    wrap.append(rec ? await recordNode(key, c.id) : el("div", "muted", "this run holds no such case"));
    pair.append(wrap);
  }
}

function route() {
  stopPolling();
  setKeys(null);
  status("");
  delete document.body.dataset.ready;
  const [name, query] = location.hash.slice(1).split("?");
  const screens = { "/run": runScreen, "/label": (p) => labelScreen(main, p), "/diff": diffScreen };
  document.getElementById("where").textContent = name && name !== "/" ? " / " + name.slice(1) : "";
  (screens[name] || runsScreen)(Object.fromEntries(new URLSearchParams(query || ""))).catch((e) => {
    main.replaceChildren(el("div", "err", e.message));
    ready();
  });
}
window.addEventListener("hashchange", route);
route();
