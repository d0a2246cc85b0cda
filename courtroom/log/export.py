"""A run as data for other tools: one row per case (CSV, Parquet, JSON Lines), and summaries as JSON. A CSV
cell a spreadsheet would run as a formula gets a leading `'` (docs/SECURITY.md)."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from courtroom.errors import AuditError, TranscriptError
from courtroom.evaluate.results import ResultRow
from courtroom.log.audit import Audit
from courtroom.log.case_record import CaseRecord
from courtroom.log.files import atomic_file

FORMATS = ("csv", "parquet", "jsonl", "inspect")
"""What `courtroom export --format` writes (`inspect`: an inspect_ai eval log,
`courtroom.log.inspect_log`)."""

COLUMNS = ("case_id", "source", "gold", "verdict", "corrected_verdict", "score", "correct", "reason", "error",
           "error_type", "n_charges", "charges", "model_calls", "prompt_tokens", "completion_tokens",
           "seconds", "spans", "gold_spans", "question", "answer", "context")
"""The columns of an exported case, in order (stable: scripts may rely on them; new ones are added at the
end)."""
JSON_COLUMNS = ("charges", "spans", "gold_spans", "context")
"""The columns of lists of records (a JSON string in CSV)."""
SPAN_FIELDS = ("start", "end", "text", "score")
"""The fields of an exported span."""
GOLD_SPAN_FIELDS = ("start", "end", "text", "type", "implicit_true", "due_to_null")
"""The fields of an exported gold span."""

CHARGE_FIELDS = ("number", "quote", "reason", "grounding", "p_suspect", "verdict", "p_hallucinated", "source",
                 "ruling_reason", "opinion", "evidence_grounding", "cited")
"""The fields of an exported charge."""

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""How a CSV cell opened in a spreadsheet begins a formula (and so gets a leading `'` on export)."""


def spreadsheet_safe(value: Any) -> Any:
    """`value`, with a leading `'` if it is text a spreadsheet would run as a formula."""
    return f"'{value}" if isinstance(value, str) and value.startswith(FORMULA_STARTS) else value


def charge_records(record: CaseRecord, sentences: tuple[str, ...]) -> list[dict[str, Any]]:
    """Every charge of a case's verdict with its ruling and the context sentences cited in its trial."""
    verdict = record.verdict
    if verdict is None:
        return []
    rulings = {r.charge: r for r in verdict.rulings}
    return [{
        "number": charge.index + 1, "quote": charge.quote, "reason": charge.reason,
        "grounding": charge.grounding, "p_suspect": charge.p_suspect,
        "verdict": ruling.verdict.value if ruling else None,
        "p_hallucinated": ruling.p_hallucinated if ruling else None,
        "source": ruling.source if ruling else None, "ruling_reason": ruling.reason if ruling else None,
        "opinion": ruling.opinion if ruling else None,
        "evidence_grounding": ruling.evidence if ruling else None,
        "cited": [{"sentence": n, "text": sentences[n - 1] if n <= len(sentences) else ""}
                  for n in record.cited(charge.index)],
    } for charge in verdict.charges for ruling in [rulings.get(charge.index)]]


def span_records(row: ResultRow, answer: str | None) -> tuple[list[dict[str, Any]] | None,
                                                              list[dict[str, Any]] | None]:
    """The row's spans and gold spans as exported (None when it has none), their text read from `answer` if
    need be."""
    spans = None if row.spans is None else [
        {"start": start, "end": end, "text": None if answer is None else answer[start:end], "score": score}
        for start, end, score in row.spans]
    gold = None if row.gold_spans is None else [
        {**g.model_dump(include=set(GOLD_SPAN_FIELDS)),
         "text": g.text if g.text is not None or answer is None else answer[g.start:g.end]}
        for g in row.gold_spans]
    return spans, gold


def case_records(audit: Audit) -> list[dict[str, Any]]:
    """One record per case of the run, with the columns of `COLUMNS`."""
    corrected = {r.case_id: r.label for r in audit.corrected_rows()}
    records = []
    for row in audit.rows():
        try:
            record: CaseRecord | None = CaseRecord.of(audit.store.events(row.case_id))
        except TranscriptError:
            record = None
        case = None if record is None else record.case
        charges = None if record is None else charge_records(record, audit.context_sentences(record.case)) \
            if row.error is None else []
        spans, gold_spans = span_records(row, case.answer if case is not None else None)
        records.append({
            "case_id": row.case_id, "source": row.source, "gold": row.gold, "verdict": row.label,
            "corrected_verdict": corrected.get(row.case_id), "score": row.score, "correct": row.correct,
            "reason": row.reason, "error": row.error, "error_type": row.error_type, "n_charges": row.charges,
            "charges": charges, "model_calls": row.model_calls, "prompt_tokens": row.prompt_tokens,
            "completion_tokens": row.completion_tokens, "seconds": row.seconds, "spans": spans,
            "gold_spans": gold_spans, "question": case and case.question, "answer": case and case.answer,
            "context": None if case is None else list(case.context)})
    return records


def _arrow_schema():  # noqa: ANN202
    import pyarrow as pa

    cited = pa.list_(pa.struct([("sentence", pa.int64()), ("text", pa.string())]))
    charge = pa.struct([("number", pa.int64()), ("quote", pa.string()), ("reason", pa.string()),
                        ("grounding", pa.float64()), ("p_suspect", pa.float64()), ("verdict", pa.string()),
                        ("p_hallucinated", pa.float64()), ("source", pa.string()),
                        ("ruling_reason", pa.string()),
                        ("opinion", pa.float64()), ("evidence_grounding", pa.float64()), ("cited", cited)])
    span = pa.struct([("start", pa.int64()), ("end", pa.int64()), ("text", pa.string()),
                      ("score", pa.float64())])
    gold = pa.struct([("start", pa.int64()), ("end", pa.int64()), ("text", pa.string()),
                      ("type", pa.string()), ("implicit_true", pa.bool_()), ("due_to_null", pa.bool_())])
    types = {"case_id": pa.string(), "source": pa.string(), "gold": pa.string(), "verdict": pa.string(),
             "corrected_verdict": pa.string(), "score": pa.float64(), "correct": pa.bool_(),
             "reason": pa.string(),
             "error": pa.string(), "error_type": pa.string(), "n_charges": pa.int64(),
             "charges": pa.list_(charge),
             "model_calls": pa.int64(), "prompt_tokens": pa.int64(), "completion_tokens": pa.int64(),
             "seconds": pa.float64(), "spans": pa.list_(span), "gold_spans": pa.list_(gold),
             "question": pa.string(), "answer": pa.string(), "context": pa.list_(pa.string())}
    return pa.schema([(name, types[name]) for name in COLUMNS])


def export_run(run_dir: str | Path, fmt: str, output: str | Path) -> Path:
    """Write the run's cases to `output` as `fmt` (csv, parquet, jsonl), whole or not at all; returns the
    path."""
    if fmt not in FORMATS:
        raise AuditError(f"unknown export format {fmt!r}; the formats are {', '.join(FORMATS)}")
    audit = Audit(run_dir)
    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "inspect":
        raise AuditError("an inspect_ai eval log is written by courtroom.log.inspect_log.write_inspect_log")
    records = case_records(audit)
    if fmt == "jsonl":
        with atomic_file(output, "w", encoding="utf-8") as handle:
            for record in records:
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    elif fmt == "csv":
        with atomic_file(output, "w", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=COLUMNS)
            writer.writeheader()
            for record in records:
                lists = {key: "" if record[key] is None else json.dumps(record[key], ensure_ascii=False)
                         for key in JSON_COLUMNS}
                writer.writerow({key: spreadsheet_safe(value) for key, value in {**record, **lists}.items()})
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        with atomic_file(output, "wb") as handle:
            pq.write_table(pa.Table.from_pylist(records, schema=_arrow_schema()), handle)
    return output


def default_output(run_dir: str | Path, fmt: str) -> Path:
    """Where an export goes unless told: beside the run, named after it (`runs/x` -> `runs/x.csv`)."""
    root = Path(run_dir).resolve()
    suffix = {"inspect": ".inspect.json"}.get(fmt, f".{fmt}")
    return root.parent / f"{root.name}{suffix}"


# -- a case in `audit list --json` ---------------------------------------------------------------------------
def row_json(row: ResultRow) -> dict[str, Any]:
    """A case in a listing: what `audit list` shows, whole."""
    return {"case_id": row.case_id, "source": row.source, "gold": row.gold, "verdict": row.label,
            "score": row.score, "correct": row.correct, "charges": row.charges, "reason": row.reason,
            "error": row.error}
