import { el, fmt } from "./dom.js";

// The hallucinated spans and the witnesses' testimony of a case record (record.js calls these): the answer with the
// predicted spans (each a link to its evidence) and the gold spans in two styles, each span's evidence, and the
// table of witnesses. Every value of a case is set as text, never as markup.
function spanId(key, n) { return "span-" + key + "-" + n; }

export function spanAnswer(r, key) {
  // The answer cut at every span edge: a piece inside a predicted span links to the evidence of the strongest span
  // that holds it, a piece inside a gold span is outlined, and a predicted span's number follows its end.
  const text = r.answer, pred = r.spans, gold = r.gold_spans;
  const edges = new Set([0, text.length]);
  pred.forEach(s => { edges.add(s.start); edges.add(s.end); });
  gold.forEach(([s, e]) => { edges.add(s); edges.add(e); });
  const cuts = [...edges].filter(x => x >= 0 && x <= text.length).sort((a, b) => a - b);
  const box = el("div", "spans");
  for (let i = 0; i + 1 < cuts.length; i++) {
    const s = cuts[i], e = cuts[i + 1], piece = text.slice(s, e);
    const p = pred.find(x => x.start <= s && e <= x.end);
    const g = gold.find(([a, b]) => a <= s && e <= b);
    let node;
    if (p) {
      node = el("a", "pred" + (g ? " gold" : ""), piece); node.href = "#" + spanId(key, p.n);
      node.title = "span " + p.n + ": P(hallucinated) " + fmt(p.score, 2) + (g ? "; also a gold span" : "");
    } else if (g) {
      node = el("span", "gold", piece); node.title = "gold span" + (g[2] ? " (" + g[2] + ")" : "");
    } else node = document.createTextNode(piece);
    box.append(node);
    pred.filter(x => x.end === e).forEach(x => { const n = el("a", "n", x.n); n.href = "#" + spanId(key, x.n);
      const sup = el("sup"); sup.append(n); box.append(sup); });
  }
  const legend = el("div", "legend muted");
  legend.append(el("span", "pred", "found hallucinated"), " ");
  if (gold.length) legend.append(el("span", "gold", "gold (annotated)"), " ", el("span", "pred gold", "both"), " ");
  legend.append(pred.length ? "click a span for its evidence" : "the court names no span");
  const wrap = el("div", "answer-spans"); wrap.append(el("b", "", "Answer:"), box, legend);
  return wrap;
}

export function spanEvidence(r, key) {
  // Each predicted span (the link target of its pieces): score, who named it, the closest context sentence, and
  // every witness's pointer that falls on it.
  const box = el("div", "span-list"); box.append(el("b", "", "Hallucinated spans, strongest first:"));
  const list = el("ol");
  r.spans.forEach(s => {
    const item = el("li", "span-evidence"); item.id = spanId(key, s.n); item.value = s.n;
    item.append(el("b", "", "\u201c" + s.text + "\u201d"), " P(hallucinated) " + fmt(s.score, 2) +
      "; named by " + (s.named_by.join(", ") || "-") +
      (s.verified === null ? "" : s.verified ? "; quote found" : "; quote not found"));
    if (s.sentence) { const ctx = el("div", "point"); ctx.append("closest context sentence ");
      const whole = s.sentence_text || "(no such sentence)";
      const cite = el("mark", "cite", "[" + s.sentence + "] " + (whole.length > SENTENCE_SHOWN ? whole.slice(0, SENTENCE_SHOWN) + "\u2026" : whole));
      cite.title = whole; ctx.append(cite); item.append(ctx); }
    s.evidence.forEach(p => item.append(el("div", "point", p.witness + ": \u201c" + p.words + "\u201d \u2014 " + p.note)));
    list.append(item);
  });
  box.append(list);
  return box;
}

const POINTS_SHOWN = 8, SENTENCE_SHOWN = 240;
function pointLine(p) {
  const named = p.sentence && !p.note.includes("[" + p.sentence + "]");
  return "\u201c" + p.words + "\u201d \u2014 " + p.note + (named ? " (context sentence [" + p.sentence + "])" : "");
}

export function testimonyTable(r) {
  // One row per witness: heard or not (and why not), its values with their part of the ruling's log-odds, and
  // what it points at.
  const box = el("div", "witnesses"); box.append(el("b", "", "The witnesses:"));
  if (r.weighing) box.append(el("div", "muted weighing", r.weighing));
  const table = el("table", "testimony"); const head = el("tr");
  ["witness", "values of the whole answer (part of the log-odds)", "points at"].forEach(h => head.append(el("th", "", h)));
  table.append(head);
  r.witnesses.forEach(w => {
    const row = el("tr", w.heard ? "" : "unheard"); const name = el("td"), values = el("td"), points = el("td");
    name.append(el("b", "", w.name + " v" + w.version)); if (w.about) name.append(el("div", "muted", w.about));
    if (!w.heard) {
      values.append(el("div", "err", "not heard: " + w.why_not));
      w.values.filter(v => v.missing).forEach(v => values.append(el("div", "muted", v.text)));
    } else {
      w.values.forEach(v => values.append(el("div", v.contribution === null ? "" : v.contribution > 0 ? "up" : "down", v.text)));
      if (!w.values.length) values.append(el("span", "muted", "no values"));
      w.points.slice(0, POINTS_SHOWN).forEach(p => points.append(el("div", "", pointLine(p))));
      if (w.points.length > POINTS_SHOWN) { const more = el("details"); more.append(el("summary", "", (w.points.length - POINTS_SHOWN) + " more"));
        w.points.slice(POINTS_SHOWN).forEach(p => more.append(el("div", "", pointLine(p)))); points.append(more); }
      if (!w.points.length) points.append(el("span", "muted", "nothing"));
    }
    row.append(name, values, points); table.append(row);
  });
  box.append(table);
  return box;
}
