"use strict";
// courtroom view: the runs under a folder, a run's cases (filtered, sorted and paged by the server), a case's record
// (record.js draws it as the report does), two runs side by side, and labelling with the refit. Every value is set as
// text (el() sets textContent), never as markup; every request carries the page's token, every change is a POST.
const token = document.querySelector("meta[name=courtroom-token]").content;
const meta = {bands: [], clip: null, calls_note: ""};  // what record.js reads of the page
const main = document.getElementById("main");
let timer = null;  // the poll of the screen shown
let onKey = null;  // the label screen's keys

async function api(path, params, body) {
  const init = {headers: {"X-Courtroom-Token": token}};
  if (body !== undefined) Object.assign(init, {method: "POST", body: JSON.stringify(body)});
  const r = await fetch(path + (params ? "?" + new URLSearchParams(params) : ""), init);
  const data = await r.json();
  if (!r.ok) throw new Error(data.error || r.statusText);
  return data;
}
const link = (text, hash) => { const a = el("a", "", text); a.href = "#" + hash; return a; };
const hash = (name, params) => name + "?" + new URLSearchParams(params);
function table(head, rows, cls) {
  const t = el("table", cls || ""); const tr = el("tr"); head.forEach(h => tr.append(el("th", "", h))); t.append(tr);
  for (const r of rows) { const row = el("tr"); r.forEach(c => { const td = el("td"); td.append(c === null || c === undefined ? "-" : c); row.append(td); }); t.append(row); }
  return t;
}
function select(id, options, value) {
  const s = el("select"); s.id = id;
  for (const [v, label] of options) { const o = el("option", "", label); o.value = v; s.append(o); }
  s.value = value || ""; return s;
}
function poll(fn, ms) { timer = setTimeout(async () => { try { await fn(); } catch (e) { status(e.message); } if (timer) poll(fn, ms); }, ms); }
function status(text) { document.getElementById("status").textContent = text ? " " + text : ""; }
function ready() {  // the screen is drawn (tests wait for it; the benchmark reads the first paint's time)
  document.body.dataset.ready = "1"; if (!document.body.dataset.readyMs) document.body.dataset.readyMs = String(Math.round(performance.now())); }

// ---- the runs under the folder
async function runsScreen() {
  const box = el("div"); const h = el("h1", "", "Runs"); const list = el("div"); box.append(h, list);
  const pickA = el("select"), pickB = el("select"); const compare = el("button", "", "side by side"); compare.id = "compare";
  compare.addEventListener("click", () => { location.hash = hash("/diff", {a: pickA.value, b: pickB.value}); });
  const bar = el("div", "controls"); bar.append("Two runs of the same data: A ", pickA, " B ", pickB, compare); box.append(bar);
  main.replaceChildren(box);
  const draw = async () => {
    const data = await api("/api/runs"); h.textContent = "Runs under " + data.root;
    list.replaceChildren(table(["run", "judged by", "model", "cases judged", "balanced accuracy [95% CI]", "AUROC", "errors",
      "the debate's gain (court \u2212 it [95% CI])"], data.runs.map(r => r.error ? [r.name, el("span", "err", r.error)] : [
      link(r.key, hash("/run", {run: r.key})), r.by, r.model,
      r.judged + (r.total === null ? "" : " of " + r.total) + (r.live ? " (being written)" : ""), r.metrics[3], r.metrics[8],
      r.metrics[2], r.gain ? r.gain.pairings.map(p => p[0] + ": " + p[2]).join("; ") : "-"]), "runs"));
    for (const pick of [pickA, pickB]) if (pick.options.length !== data.runs.length) {
      const was = pick.value; pick.replaceChildren(...data.runs.map(r => { const o = el("option", "", r.key); o.value = r.key; return o; }));
      pick.value = was || (pick === pickB && data.runs[1] ? data.runs[1].key : pick.value); }
    ready();
  };
  await draw(); poll(draw, 2000);
}

// ---- a run: its summary and its cases
const METRICS = ["verdicts", "cases", "errors", "balanced accuracy [95% CI]", "accuracy", "precision", "recall", "F1", "AUROC"];
const COLUMNS = [["i", "#"], ["id", "case"], ["verdict", "verdict"], ["gold", "gold"], ["score", "P(hallucinated)"],
  ["charges", "charges"], ["source", "source"], [null, "labelled"], [null, "trial ended"], [null, "reason"]];
function summaryNode(run) {
  const box = el("div"); box.append(el("h1", "", run.name), el("div", "info", run.info));
  box.append(table(METRICS, run.metrics, "metrics"));
  if (run.gain) { box.append(el("h3", "", "The debate's gain: the court against its measurement alone and its agents alone"),
    table(["verdicts", "cases", "balanced accuracy [95% CI]", "AUROC [95% CI]"], run.gain.metrics),
    table(["against the court", "cases in both", "balanced accuracy court \u2212 it [95% CI]", "McNemar p"], run.gain.pairings)); }
  if (run.trials) box.append(el("h3", "", "Trials"), table(run.trials.header, run.trials.rows, "trials"));
  return box;
}
async function runScreen(p) {
  const key = p.run;
  const q = {outcome: "all", verdict: "", source: "", pmin: "", pmax: "", labelled: "", ended: "", q: "", sort: "i", desc: false, offset: 0};
  const count = el("span"); count.id = "count"; const body = el("tbody"); body.id = "case-body"; const head = el("tr"); head.id = "case-head";
  const sources = select("filter-source", [["", "any source"]]), endings = select("filter-ended", [["", "any trial"], ["none", "no trial"]]);
  const search = el("input"); search.id = "search"; search.type = "search"; search.placeholder = "search id, reason";
  const range = ["pmin", "pmax"].map(name => { const i = el("input"); i.id = name; i.type = "number"; i.min = 0; i.max = 1; i.step = 0.05;
    i.placeholder = name === "pmin" ? "P from" : "P to"; i.size = 5; return i; });
  const controls = el("div", "controls"); const prev = el("button", "", "\u2190 previous"), next = el("button", "", "next \u2192");
  controls.append(search, select("filter-outcome", [["all", "all cases"], ["wrong", "wrong verdicts"], ["correct", "correct verdicts"],
    ["error", "errors"], ["unlabelled", "no gold label"], ["edited", "edited"]], "all"),
    select("filter-verdict", [["", "any verdict"], ["FAIL", "FAIL"], ["PASS", "PASS"]]), sources, ...range,
    select("filter-labelled", [["", "labelled or not"], ["yes", "labelled"], ["no", "not labelled"]]), endings, count, prev, next);
  const judged = el("div", "muted");
  const top = el("div"); top.append(el("h1", "", key), judged, link("label its cases and refit \u2192", hash("/label", {run: key})));
  const summary = api("/api/run", {run: key}).then(run => top.replaceChildren(summaryNode(run), judged, top.lastChild));  // after the list: its bootstrap takes longest
  const t = el("table"); t.id = "case-table"; const thead = el("thead"); thead.append(head); t.append(thead, body);
  main.replaceChildren(top, el("h2", "", "Cases"), controls, t);
  for (const [sortKey, label] of COLUMNS) { const th = el("th", sortKey ? "sortable" : "", label); head.append(th);
    if (sortKey) th.addEventListener("click", () => { q.desc = q.sort === sortKey ? !q.desc : sortKey === "score"; q.sort = sortKey; q.offset = 0; load(); }); }
  let shown = null;
  async function load(keepOpen) {
    const params = Object.fromEntries(Object.entries(q).filter(([k, v]) => v !== "" && v !== false).map(([k, v]) => [k, String(v)]));
    const data = await api("/api/cases", Object.assign({run: key}, params)); meta.clip = data.clip;
    judged.textContent = data.total + " cases judged" + (data.live ? ", the run is being written: new cases appear as they are judged" : "");
    for (const [node, values] of [[sources, data.sources], [endings, data.endings]]) for (const v of values)
      if (![...node.options].some(o => o.value === v)) { const o = el("option", "", v); o.value = v; node.append(o); }
    const first = data.matching ? data.offset + 1 : 0, last = data.offset + data.lines.length;
    count.textContent = first + "\u2013" + last + " of " + data.matching + " matching cases (" + data.total + " in all)";
    prev.disabled = data.offset === 0; next.disabled = last >= data.matching;
    const signature = JSON.stringify(data.lines);
    if (!(keepOpen && signature === shown)) { body.replaceChildren(...data.lines.map(c => caseRow(key, c))); shown = signature;
      body.dataset.drawn = Number(body.dataset.drawn || 0) + 1; }
    [...head.children].forEach((th, i) => th.setAttribute("aria-sort", COLUMNS[i][0] === q.sort ? (q.desc ? "descending" : "ascending") : "none"));
    ready(); return data;
  }
  for (const [id, field] of [["search", "q"], ["filter-outcome", "outcome"], ["filter-verdict", "verdict"], ["filter-source", "source"],
    ["pmin", "pmin"], ["pmax", "pmax"], ["filter-labelled", "labelled"], ["filter-ended", "ended"]])
    document.getElementById(id).addEventListener("input", e => { q[field] = e.target.value; q.offset = 0; load(); });
  prev.addEventListener("click", () => { q.offset = Math.max(0, q.offset - 100); load(); });
  next.addEventListener("click", () => { q.offset += 100; load(); });
  await load(); await summary;
  poll(() => load(true), 1500);
}
function verdictText(c) { return (c.corrected || "error") + (c.corrected !== c.label ? " (model: " + (c.label || "error") + ")" : ""); }
function caseRow(key, c) {
  const row = el("tr", "case-row"); row.dataset.id = c.id;
  const cells = [c.i + 1, c.id, verdictText(c), c.gold, c.score === null ? null : fmt(c.score), c.charges, c.source, c.labelled,
    c.ended.join(", "), c.reason];
  const classes = ["num", "id", c.outcome === "wrong" ? "wrong" : c.outcome === "error" ? "err" : "ok", "", "num", "num", "", "", "", "reason"];
  cells.forEach((v, i) => row.append(el("td", classes[i], v === null || v === "" ? "-" : v)));
  row.addEventListener("click", () => toggleRecord(row, key, c.id, cells.length));
  return row;
}
async function toggleRecord(row, key, id, span) {
  if (row.nextSibling && row.nextSibling.classList.contains("detail-row")) { row.nextSibling.remove(); return; }
  const tr = el("tr", "detail-row"); const td = el("td"); td.colSpan = span; tr.append(td); row.after(tr);
  td.append(await recordNode(key, id));
}
async function recordNode(key, id, calls) {
  const box = el("div"); const r = await api("/api/case", {run: key, id: id, calls: calls ? "1" : "0"});
  if (!calls) { const more = el("button", "calls", "show the model calls (prompts and raw outputs)");
    more.addEventListener("click", async () => box.replaceWith(await recordNode(key, id, true))); box.append(more); }
  box.append(caseRecord(r, null, "v")); return box;
}

// ---- two runs side by side
async function diffScreen(p) {
  const d = await api("/api/diff", {a: p.a, b: p.b});
  const kinds = select("filter-change", [["", "every change"], ["fixed", "fixed"], ["broken", "broken"],
    ["changed", "changed, neither right"], ["only A", "only in A"], ["only B", "only in B"]]);
  const t = table(["case", "gold", "verdict A", "verdict B", "change"], []); t.id = "diff-table";
  const draw = () => { while (t.rows.length > 1) t.deleteRow(1);
    for (const c of d.cases.filter(c => !kinds.value || c.change === kinds.value)) {
      const row = el("tr", "case-row"); row.dataset.id = c.id;
      [c.id, c.gold, c.a && (c.a.label || "error"), c.b && (c.b.label || "error"), c.change].forEach((v, i) => row.append(el("td", i === 4 ? c.change : "", v || "-")));
      row.addEventListener("click", () => openPair(row, d, c)); t.append(row); } };
  kinds.addEventListener("input", draw);
  const bar = el("div", "controls"); bar.append(kinds, el("span", "muted", d.cases.length + " cases changed or in one run only; click one for both records"));
  main.replaceChildren(el("h1", "", "A: " + d.a + " against B: " + d.b),
    table(["cases in both", "verdict changed", "fixed (B right, A wrong)", "broken (A right, B wrong)", "changed, neither right",
      "only in A", "only in B", "balanced accuracy A \u2212 B [95% CI]", "McNemar p"], [d.cells], "diff"), bar, t);
  draw(); ready();
}
async function openPair(row, d, c) {
  if (row.nextSibling && row.nextSibling.classList.contains("detail-row")) { row.nextSibling.remove(); return; }
  const tr = el("tr", "detail-row"); const td = el("td"); td.colSpan = 5; tr.append(td); row.after(tr);
  const pair = el("div", "pair"); td.append(pair);
  for (const [side, key, rec] of [["A: ", d.a, c.a], ["B: ", d.b, c.b]]) { const wrap = el("div"); wrap.append(el("div", "run-name", side + key));
    wrap.append(rec ? await recordNode(key, c.id) : el("div", "muted", "this run holds no such case")); pair.append(wrap); }
}

// ---- labelling, and the refit
async function labelScreen(p) {
  const key = p.run; let s = await api("/api/label", {run: key});
  let pos = Math.max(0, s.order.findIndex(c => !(c.id in s.labels)));
  const progress = el("div", "progress"); progress.id = "progress"; const about = el("div", "muted"); const record = el("div");
  const refit = el("div", "refit"); refit.id = "refit"; const keys = el("div", "keys");
  const button = el("button", "", "refit the prior on these labels and decide the run again"); button.id = "refit-button";
  for (const [k, label] of [["h", "h: hallucinated"], ["f", "f: faithful"], ["s", "s: skip"], ["ArrowLeft", "\u2190"], ["ArrowRight", "\u2192"]]) {
    const b = el("button", "", label); b.addEventListener("click", () => press(k)); keys.append(b); }
  keys.append(button);
  main.replaceChildren(el("h1", "", "Label the cases of " + key), el("div", "muted", "the cases courtroom label draws (seed " +
    s.seed + "), weighed by " + s.weighed_by + "; each label is saved at once to " + s.file), progress, about, keys, record, refit);
  async function show() {
    const c = s.order[pos]; const given = s.labels[c.id];
    progress.textContent = s.given + " of " + s.n + " labelled (" + s.hallucinated + " hallucinated, " + s.faithful +
      " faithful) \u00b7 case " + (pos + 1) + " of the draw: " + c.id;
    about.textContent = "P(hallucinated) " + fmt(c.p, 2) + " against " + fmt(c.threshold, 2) + (given !== undefined ?
      " \u00b7 your label: " + (given || "skipped") : "") + (s.note ? " \u00b7 " + s.note : "") + (s.refit ? " \u00b7 " + s.refit : "");
    button.disabled = s.refit !== null || s.job.state === "running";
    record.replaceChildren(await recordNode(key, c.id)); record.dataset.case = c.id; ready();
  }
  let queue = Promise.resolve();  // keys pressed quickly are taken one after the other, each on the case it was meant for
  const press = k => { queue = queue.then(async () => {
    if (["h", "f", "s"].includes(k)) { s = await api("/api/label", {run: key}, {case: s.order[pos].id, key: k}); pos = Math.min(pos + 1, s.order.length - 1); }
    else pos = Math.max(0, Math.min(s.order.length - 1, pos + (k === "ArrowRight" ? 1 : -1)));
    await show(); }).catch(e => status(e.message)); };
  onKey = e => { if (!(e.target.tagName === "INPUT" || e.ctrlKey || e.metaKey || e.altKey) && ["h", "f", "s", "ArrowLeft", "ArrowRight"].includes(e.key)) press(e.key); };
  const follow = async () => { const job = await api("/api/refit", {run: key}); s.job = job; drawRefit(refit, job);
    button.disabled = s.refit !== null || job.state === "running";
    if (job.state !== "running") { clearTimeout(timer); timer = null; refit.scrollIntoView(); } };
  button.addEventListener("click", async () => { s.job = await api("/api/refit", {run: key}, {}); drawRefit(refit, s.job); button.disabled = true; poll(follow, 700); });
  drawRefit(refit, s.job); if (s.job.state === "running") poll(follow, 700);
  await show();
}
function drawRefit(box, job) {
  box.dataset.state = job.state;
  if (job.state === "idle") { box.replaceChildren(); return; }
  if (job.state === "running") { box.replaceChildren(el("div", "muted", "refitting the prior and deciding the run again (no model call)\u2026")); return; }
  if (job.state === "failed") { box.replaceChildren(el("div", "err", "the refit failed: " + job.error)); return; }
  const l = job.labelled, u = job.unlabelled;
  const rows = [["the labelled cases, out of fold (the refit: fitted on the other folds)", l.cases + " (" + l.hallucinated +
    " hallucinated, " + l.faithful + " faithful)", l.prior, l.refit || "- (too few labels of a kind for folds)", "", ""]];
  if (u.with_gold) rows.push(["the cases not labelled, by their gold labels (paired)", u.with_gold, u.before, u.after,
    u.difference || "-", u.p + " (" + u.discordant + " discordant)"]);
  rows.push(["verdicts of the cases not labelled that flipped", u.cases, "", String(u.flipped.length), "", ""]);
  const flips = el("ul", "flipped"); u.flipped.forEach(f => flips.append(el("li", "", f.id + ": " + f.before + " \u2192 " +
    f.after + (f.gold ? " (gold " + f.gold + ")" : ""))));
  const commands = el("pre", "commands", job.commands.join("\n"));
  box.replaceChildren(el("h2", "", "What the labels changed"), table(["", "cases", "before: the prior / the run's verdicts",
    "after: the refit", "after \u2212 before [95% CI]", "McNemar p"], rows, "before-after"), flips,
    el("div", "", "refitted: " + (Object.entries(l.refitted).map(([f, m]) => f + " (" + m + ")").join(", ") || "nothing")),
    ...job.notes.map(n => el("div", "muted", n)),
    el("div", "", "wrote the court file " + job.court + " (with the ruling " + job.ruling + ") and the run decided again by it, " +
      job.run + ". The commands that made them, and reuse the court on new data:"), commands);
}

function route() {
  clearTimeout(timer); timer = null; onKey = null; status(""); delete document.body.dataset.ready;
  const [name, query] = location.hash.slice(1).split("?");
  const screens = {"/run": runScreen, "/label": labelScreen, "/diff": diffScreen};
  const where = document.getElementById("where"); where.textContent = name && name !== "/" ? " / " + name.slice(1) : "";
  (screens[name] || runsScreen)(Object.fromEntries(new URLSearchParams(query || ""))).catch(e => {
    main.replaceChildren(el("div", "err", e.message)); ready(); });
}
document.addEventListener("keydown", e => { if (onKey) onKey(e); });
window.addEventListener("hashchange", route);
route();
