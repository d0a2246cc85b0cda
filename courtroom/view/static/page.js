// The page's machinery that its screens share: requests carrying the token (and only the latest answer drawn), the
// poll of the screen shown, its keys, the status line, the ready mark tests wait for, and a case's record.
import { el } from "./dom.js";
import { caseRecord } from "./record.js";

const token = document.querySelector("meta[name=courtroom-token]").content;
export const page = { bands: [], clip: null, calls_note: "model calls: show them with the button above the record" };
// what a case record needs to know of the page (`caseRecord`)
let timer = null; // the poll of the screen shown
let onKey = null; // the screen's keys

export async function api(path, params, body) {
  const init = { headers: { "X-Courtroom-Token": token } };
  if (body !== undefined) Object.assign(init, { method: "POST", body: JSON.stringify(body) });
  const r = await fetch(path + (params ? "?" + new URLSearchParams(params) : ""), init);
  const data = await r.json();
  if (!r.ok) throw new Error(data.error || r.statusText);
  return data;
}

export function latest(fetcher) {
  // A request whose answer is drawn only if no later one was asked meanwhile (a slow early answer never overwrites
  // a later one).
  let asked = 0;
  return async (...args) => {
    const mine = ++asked;
    const data = await fetcher(...args);
    return mine === asked ? data : null;
  };
}

export function poll(fn, ms) {
  timer = setTimeout(async () => {
    try { await fn(); } catch (e) { status(e.message); }
    if (timer) poll(fn, ms);
  }, ms);
}
export function stopPolling() { clearTimeout(timer); timer = null; }
export function setKeys(handler) { onKey = handler; }
export function status(text) { document.getElementById("status").textContent = text ? " " + text : ""; }
export function ready() {
  // the screen is drawn (tests wait for it; the benchmark reads the first paint's time)
  document.body.dataset.ready = "1";
  if (!document.body.dataset.readyMs) document.body.dataset.readyMs = String(Math.round(performance.now()));
}

document.addEventListener("keydown", (e) => { if (onKey) onKey(e); });

export async function recordNode(key, id, calls) {
  const box = el("div");
  const r = await api("/api/case", { run: key, id: id, calls: calls ? "1" : "0" });
  if (!calls) {
    const more = el("button", "calls", "show the model calls (prompts and raw outputs)");
    more.addEventListener("click", async () => box.replaceWith(await recordNode(key, id, true)));
    box.append(more);
  }
  box.append(caseRecord(r, "v", page));
  return box;
}

