import { el, fmt } from "./dom.js";
import { spanAnswer, spanEvidence, testimonyTable } from "./testimony.js";

// A case record as the report and `courtroom view` draw it (the report's case list and the view call caseRecord),
// with the spans and testimony of testimony.js. Every value of a case is set as text, never as markup. `page` says
// what the page knows: the grounding cap (`clip`), the bands' names (`bands`) and why calls may be left out
// (`calls_note`).

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

function heatmap(r, page) {
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
    (page.clip ? ", capped at " + page.clip : "") + "): ");
  page.bands.forEach((label, i) => legend.append(el("span", "band" + i, label)));
  legend.append("underlined: the words the context accounts for least; hover a token for its numbers");
  const wrap = el("div", "measurement"); wrap.append(el("b", "", "The measurement, token by token:"), box, legend);
  return wrap;
}

function groundsNode(g) {
  // What a move rests on: each quote in the text it is quoted from, side by side, with the court's check.
  const box = el("div", "grounds");
  g.pieces.forEach(p => {
    const side = el("div", p.verified ? "piece" : "piece failed");
    side.append(el("b", "", p.source + ": "), p.before, el("mark", p.source === "answer" ? "said" : "cite", p.quote), p.after);
    side.append(el("span", "check " + (p.verified ? "ok" : "failed"),
      p.verified ? " \u2713 found here" : " \u2717 not found where it is said to be"));
    box.append(side);
  });
  box.append(el("div", "muted reading", g.note));
  return box;
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

export function caseRecord(r, key, page) {
  const d = el("div", "case-detail");
  if (r === null) { d.append(el("div", "muted", "this run holds no such case")); return d; }
  if (r.note) d.append(el("div", "err note", r.note + " (what the results row holds is shown)"));
  if (r.question) d.append(el("div", "", "Question: " + r.question));
  const spanned = r.spans.length || r.gold_spans.length;
  if (r.answer && spanned) d.append(spanAnswer(r, key));
  else if (r.answer) { const ans = el("div"); ans.append(el("b", "", "Answer: "));
    ans.append(marked(r.answer, r.charges.map(x => x.quote), "charge")); d.append(ans); }
  if (r.spans.length) d.append(spanEvidence(r, key));
  if (r.heat.length) d.append(heatmap(r, page));
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
      d.append(line);
      if (m.grounds) d.append(groundsNode(m.grounds));
      else if (m.cite) { line.append(" citing "); line.append(el("mark", "cite", "[" + m.cite + "] " + (r.sentences[m.cite - 1] || ""))); }
      const mine = turnCalls(m, t.charge); mine.forEach(c => used.add(c.n));
      if (mine.length) d.append(callGroup(mine, r.opening, "turn-calls", mine.length + " model call" + (mine.length > 1 ? "s" : "") + " of this turn"));
    });
    if (t.ruling) d.append(el("div", "ruling", "Ruling: " + t.ruling.verdict + " (confidence " + t.ruling.confidence + ", " +
      t.ruling.source + ") \u2014 " + t.ruling.reason));
    if (t.ruling && t.ruling.weighed) d.append(el("div", "muted weighed", t.ruling.weighed)); });
  const rest = calls.filter(c => !used.has(c.n));
  if (rest.length) d.append(callGroup(rest, r.opening, "other-calls", rest.length + " other model call" +
    (rest.length > 1 ? "s" : "") + " (measurement, indictment, jury, weighing)"));
  if (r.calls === null && !r.note) d.append(el("div", "muted", page.calls_note));
  const v = el("div"); v.append(el("b", "", "Verdict: " + (r.label || "none") + (r.score === null ? "" : " (score " + fmt(r.score) + ")")));
  v.append(" gold: " + (r.gold || "-") + "; " + r.reason); d.append(v);
  if (r.error) d.append(el("div", "err", "Error: " + r.error));
  r.edits.forEach(e => d.append(el("div", "edit", "Judged by " + e.author + ": " + (e.charge === null ? "case" : "charge " +
    (e.charge + 1)) + " \u2192 " + e.verdict + " (" + e.reason + ")")));
  d.append(el("div", "muted", r.model_calls + " model calls, " + r.tokens + " tokens, " + r.seconds + " s"));
  return d;
}
