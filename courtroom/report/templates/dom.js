// What the report's and the view's modules share to build a page: an element whose text is set as text (never as
// markup), a number as the tables show it, a table of values, and a select of options.
export function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}

export const fmt = (x, digits) => (x === null || x === undefined) ? "-" : Number(x).toFixed(digits === undefined ? 3 : digits);

export function table(head, rows, cls) {
  const t = el("table", cls || "");
  const tr = el("tr");
  head.forEach((h) => tr.append(el("th", "", h)));
  t.append(tr);
  for (const r of rows) {
    const row = el("tr");
    r.forEach((c) => { const td = el("td"); td.append(c === null || c === undefined ? "-" : c); row.append(td); });
    t.append(row);
  }
  return t;
}
