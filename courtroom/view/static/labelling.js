// Labelling a run's drawn cases with the keyboard (h hallucinated, f faithful, s skip, u take back, arrows to move),
// each label a judgement of the run's record; after every label, what a refit would do (its out-of-fold estimate, the
// verdicts it would flip); the refit, and its table. Every value is set as text, never as markup.
import { el, table } from "./dom.js";
import { api, latest, poll, ready, recordNode, setKeys, status, stopPolling } from "./page.js";

const KEYS = [["h", "h: hallucinated"], ["f", "f: faithful"], ["s", "s: skip"], ["u", "u: take back"], ["ArrowLeft", "\u2190"],
  ["ArrowRight", "\u2192"]];

export async function labelScreen(main, p) {
  const key = p.run;
  let s = await api("/api/label", { run: key });
  const labelled = (c) => c.id in s.labels;
  let pos = Math.max(0, s.order.findIndex((c) => !c.waiting && !labelled(c)));
  const progress = el("div", "progress"), about = el("div", "muted"), record = el("div"), keys = el("div", "keys");
  const live = el("div", "estimate"), refit = el("div", "refit"), note = el("input");
  progress.id = "progress"; live.id = "estimate"; refit.id = "refit"; note.id = "note";
  Object.assign(note, { type: "text", size: 50, maxLength: 2000, placeholder: "a note with the next label (optional)" });
  const button = el("button", "", "refit the prior on these labels");
  button.id = "refit-button";
  for (const [k, label] of KEYS) {
    const b = el("button", "", label);
    b.addEventListener("click", () => press(k));
    keys.append(b);
  }
  keys.append(note, button);
  main.replaceChildren(el("h1", "", "Label the cases of " + key), el("div", "muted", "the cases drawn at random (seed " + s.seed +
    ") over those the run lists, weighed by " + s.weighed_by + "; each label is recorded at once in " + s.record),
  progress, about, keys, live, record, refit);

  const estimated = latest(() => api("/api/estimate", { run: key }));
  async function estimate() {
    const e = await estimated();
    if (e === null) return;
    live.dataset.labelled = e.labelled === undefined ? "" : String(e.labelled);
    if (e.why !== undefined) { live.replaceChildren(el("span", "muted", e.why || "")); return; }
    live.replaceChildren(el("b", "", "A refit on these " + e.labelled + " labels: "),
      "out of fold " + (e.refit || "- (too few labels of a kind for folds)") + " against the prior's " + e.prior + "; it would flip ",
      el("b", "flips", String(e.flipped)), " verdicts of the cases not labelled. ",
      el("span", e.stable ? "stable" : "muted", e.stable ? "The last 5 labels changed no verdict of it: more labels have stopped changing them."
        : "The last labels still change its verdicts."));
  }
  async function show() {
    const c = s.order[pos];
    const given = s.labels[c.id];
    progress.textContent = s.given + " of " + s.n + " labelled (" + s.hallucinated + " hallucinated, " + s.faithful +
      " faithful) \u00b7 case " + (pos + 1) + " of the draw: " + c.id;
    about.textContent = (c.waiting ? "not judged yet: the run is being written" : "P(hallucinated) " + c.p.toFixed(2) + " against " +
      c.threshold.toFixed(2)) + (given !== undefined ? " \u00b7 your label: " + given : "") + (s.note ? " \u00b7 " + s.note : "") +
      (s.refit ? " \u00b7 " + s.refit : "");
    button.disabled = s.refit !== null || s.job.rejudged === "writing";
    record.replaceChildren(c.waiting ? el("div", "muted", "waiting for the run to judge it") : await recordNode(key, c.id));
    record.dataset.case = c.id;
    ready();
  }
  const step = (from, by) => {
    let i = from + by;
    while (i >= 0 && i < s.order.length && s.order[i].waiting) i += by;
    return i >= 0 && i < s.order.length ? i : from;
  };
  let queue = Promise.resolve(); // keys pressed quickly are taken one after the other, each on the case it was meant for
  const press = (k) => {
    queue = queue.then(async () => {
      if (["h", "f", "s", "u"].includes(k)) {
        s = await api("/api/label", { run: key }, { case: s.order[pos].id, key: k, note: k === "u" ? "" : note.value });
        if (k !== "u") { note.value = ""; pos = step(pos, 1); }
        estimate().catch((e) => status(e.message));
      } else pos = step(pos, k === "ArrowRight" ? 1 : -1);
      await show();
    }).catch((e) => status(e.message));
  };
  setKeys((e) => {
    if (!(e.target.tagName === "INPUT" || e.ctrlKey || e.metaKey || e.altKey) && KEYS.some(([k]) => k === e.key)) press(e.key);
  });
  const follow = async () => {
    const job = await api("/api/refit", { run: key });
    s.job = job;
    drawRefit(refit, job);
    if (job.rejudged !== "writing") stopPolling();
  };
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      s.job = await api("/api/refit", { run: key }, {});
      drawRefit(refit, s.job);
      refit.scrollIntoView();
      poll(follow, 700);
    } catch (e) { status(e.message); button.disabled = false; }
  });
  drawRefit(refit, s.job);
  if (s.job.rejudged === "writing") poll(follow, 700);
  await show();
  await estimate();
}

function drawRefit(box, job) {
  box.dataset.state = job.state;
  box.dataset.rejudged = job.rejudged || "";
  if (job.state === "idle") { box.replaceChildren(); return; }
  const l = job.labelled, u = job.unlabelled;
  const rows = [["the labelled cases, out of fold (the refit: fitted on the other folds)", l.labelled + " (" + l.hallucinated +
    " hallucinated, " + l.faithful + " faithful)", l.prior, l.refit || "- (too few labels of a kind for folds)", "", ""]];
  if (u.with_gold) {
    rows.push(["the cases not labelled, by their gold labels (paired)", u.with_gold, u.before, u.after, u.difference || "-",
      u.p + " (" + u.discordant + " discordant)"]);
  }
  rows.push(["verdicts of the cases not labelled that flipped", u.cases, "", String(u.flipped.length), "", ""]);
  const flips = el("ul", "flipped");
  u.flipped.forEach((f) => flips.append(el("li", "", f.id + ": " + f.before + " \u2192 " + f.after + (f.gold ? " (gold " + f.gold + ")" : ""))));
  const rejudged = job.rejudged === "writing" ? "is being written" : job.rejudged === "written" ? "is written" : job.rejudged;
  box.replaceChildren(el("h2", "", "What the labels changed"), table(["", "cases", "before: the prior / the run's verdicts",
    "after: the refit", "after \u2212 before [95% CI]", "McNemar p"], rows, "before-after"), flips,
  el("div", "", "refitted: " + (Object.entries(l.refitted).map(([f, m]) => f + " (" + m + ")").join(", ") || "nothing")),
  ...job.notes.map((n) => el("div", "muted", n)),
  el("div", "", "wrote the court file " + job.court + " (with the ruling " + job.ruling + "); the run decided again by it, " +
    job.run + ", " + rejudged + ". The commands that make them, and reuse the court on new data:"),
  el("pre", "commands", job.commands.join("\n")));
}
