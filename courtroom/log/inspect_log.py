"""A run as an inspect_ai eval log (`courtroom export RUN --format inspect`), to browse in `inspect view`: its
JSON format (version 2) written directly, so exporting needs no inspect_ai; one sample per case."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

from courtroom.case import Case, CaseVerdict
from courtroom.casefile import render_numbered_context
from courtroom.engine.events import Event
from courtroom.engine.metric import reason_with_spans
from courtroom.errors import CourtroomError, TranscriptError
from courtroom.evaluate.metrics import compute_metrics
from courtroom.evaluate.results import ResultRow
from courtroom.log.audit import Audit
from courtroom.log.case_record import CaseRecord
from courtroom.log.cases import run_cases
from courtroom.log.export import charge_records, span_records
from courtroom.log.files import atomic_write

LOG_VERSION = 2
"""inspect_ai's log format version this writes."""
RATES = ("balanced_accuracy", "accuracy", "precision", "recall", "f1", "auroc")


def _id() -> str:
    return uuid.uuid4().hex[:22]


def case_input(case: Case, audit: Audit) -> str:
    """What the judge was shown, as one text: question, numbered context, the answer under judgment."""
    context = render_numbered_context(case, audit.sentence_splitter())
    return f"Question: {case.question}\n\nContext:\n{context}\n\nAnswer under judgment:\n{case.answer}"


def _usage(input_tokens: int, output_tokens: int) -> dict[str, int]:
    return {"input_tokens": input_tokens, "output_tokens": output_tokens,
            "total_tokens": input_tokens + output_tokens}


def _calls(events: list[Event], model: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]],
                                                     dict[str, str]]:
    """The transcript's model calls as inspect messages, model events and attachments."""
    prompts = {e.hash: e for e in events if e.event == "prompt"}
    messages: list[dict[str, Any]] = []
    model_events: list[dict[str, Any]] = []
    attachments: dict[str, str] = {}
    for e in events:
        if e.event != "model_call":
            continue
        attachments.update({key: prompts[key].content for key in e.messages if key in prompts})
        inputs = [{"id": _id(), "content": f"attachment://{key}", "role": prompts[key].role}
                  for key in e.messages if key in prompts]
        site = {name: value for name in ("purpose", "role", "persona", "node", "charge", "round")
                if (value := getattr(e, name)) is not None}
        if site.get("charge") is not None:
            # numbered from 1, as the court record and `audit edit --charge` number charges
            site["charge"] += 1
        if e.option_probs:
            site["option_probs"] = e.option_probs
        reply = {"id": _id(), "content": e.raw if e.error is None else f"{e.raw}\n[error: {e.error}]",
                 "role": "assistant", "model": model, "metadata": site}
        messages.extend([*inputs, reply])
        usage = {**_usage(e.prompt_tokens, e.completion_tokens),
                 **({"input_tokens_cache_read": e.cached_prompt_tokens} if e.cached_prompt_tokens else {})}
        config = {"temperature": e.sampling.temperature, "max_tokens": e.sampling.max_new_tokens,
                  **({} if e.sampling.seed is None else {"seed": e.sampling.seed})}
        model_events.append({
            "uuid": _id(), "timestamp": e.time.isoformat(), "working_start": 0.0, "event": "model",
            "model": model,
            "role": e.role, "input": inputs, "tools": [], "tool_choice": "none", "config": config,
            "output": {"model": model, "choices": [{"message": reply,
                                                    "stop_reason": "stop" if e.finish_reason == "stop"
                                                    else "max_tokens"
                                                    if e.finish_reason == "length" else "unknown"}],
                       "completion": e.raw, "usage": usage, "time": e.seconds},
            "metadata": site, "error": e.error, "working_time": e.seconds,
        })
    return messages, model_events, attachments


def testimony_records(verdict: CaseVerdict, answer: str) -> list[dict[str, Any]]:
    """What each witness said of the whole answer: heard or not (and why), its values, and what it points
    at."""
    return [{"witness": t.witness, "version": t.version, "heard": t.heard, "why_not": t.why_not,
             "values": t.values,
             "points": [{**p.model_dump(), "words": answer[p.start:p.end]} for p in t.points]}
            for t in verdict.testimony]


def _verdict_metadata(row: ResultRow, verdict: CaseVerdict | None, case: Case | None) -> dict[str, Any]:
    """A case's spans, gold spans, testimony and weighing, for its score's metadata."""
    answer = case.answer if case is not None else None
    spans, gold = span_records(row, answer)
    if verdict is not None and spans is not None:
        spans = [s.model_dump() for s in verdict.spans]
    testimony = (testimony_records(verdict, answer or "") if verdict is not None
                 and verdict.testimony else None)
    weighing = verdict.weighing.model_dump() if verdict is not None and verdict.weighing is not None else None
    return {"spans": spans, "gold_spans": gold, "testimony": testimony, "weighing": weighing}


def _sample(row: ResultRow, audit: Audit, cases: dict[str, Case], model: str, corrected: str
            | None) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    model_events: list[dict[str, Any]] = []
    attachments: dict[str, str] = {}
    charges: list[dict[str, Any]] | None = None
    verdict: CaseVerdict | None = None
    case = cases.get(row.case_id)
    started = completed = None
    try:
        events = audit.store.events(row.case_id)
    except TranscriptError:
        pass
    else:
        record = CaseRecord.of(events)
        case, verdict = record.case, record.verdict
        started, completed = events[0].time.isoformat(), events[-1].time.isoformat()
        messages, model_events, attachments = _calls(events, model)
        charges = charge_records(record, audit.context_sentences(case)) if row.error is None else []
    scores: dict[str, Any] = {}
    if row.label is not None:
        explanation = reason_with_spans(row.reason, verdict.spans) if verdict is not None else row.reason
        scores["courtroom"] = {"value": row.score, "answer": row.label, "explanation": explanation,
                               "metadata": {"gold": row.gold, "correct": row.correct, "charges": charges,
                                            "corrected_verdict": corrected,
                                            **_verdict_metadata(row, verdict, case)}}
        if row.correct is not None:
            scores["correct"] = {"value": "C" if row.correct else "I", "answer": row.label}
    verdict_text = f"{row.label}: {row.reason}" if row.label is not None else f"error: {row.error}"
    sample: dict[str, Any] = {
        "id": row.case_id, "epoch": 1,
        "input": case_input(case, audit) if case is not None else f"case {row.case_id} (its text is not in "
                                                                  "the run)",
        "target": row.gold or "",
        "messages": messages,
        "output": {"model": model, "choices": [{"message": {"id": _id(), "content": verdict_text,
                                                            "role": "assistant",
                                                            "model": model}, "stop_reason": "stop"}],
                   "completion": verdict_text},
        "scores": scores,
        "metadata": {"source": row.source, "verdict": row.label, "score": row.score, "gold": row.gold,
                     "correct": row.correct, "n_charges": row.charges, "model_calls": row.model_calls,
                     "transcript": row.transcript},
        "store": {}, "events": model_events, "model_usage": {model: _usage(row.prompt_tokens,
                                                                           row.completion_tokens)},
        "attachments": attachments, "total_time": row.seconds, "working_time": row.seconds,
    }
    if started:
        sample["started_at"], sample["completed_at"] = started, completed
    if row.error is not None:
        sample["error"] = {"message": f"{row.error_type}: {row.error}", "traceback": "", "traceback_ansi": ""}
    return sample


def inspect_log(audit: Audit) -> dict[str, Any]:
    """The run as an inspect_ai eval log (its JSON data)."""
    manifest = audit.store.manifest()
    rows = audit.rows()
    model = manifest.model
    try:
        cases = {c.id: c for c in run_cases(audit.store)}
    except CourtroomError:  # the dataset is not here: inputs come from the transcripts alone
        cases = {}
    corrected = {r.case_id: r.label for r in audit.corrected_rows()}
    samples = [_sample(r, audit, cases, model, corrected.get(r.case_id)) for r in rows]
    metrics = compute_metrics(rows)
    created = manifest.created.isoformat()
    times = [s["completed_at"] for s in samples if "completed_at" in s]
    judge = manifest.spec.judge
    usage = _usage(sum(r.prompt_tokens for r in rows), sum(r.completion_tokens for r in rows))
    return {
        "version": LOG_VERSION,
        "status": "success" if rows and not any(r.error for r in rows) else "error" if rows else "started",
        "eval": {
            "eval_id": _id(), "run_id": manifest.config_hash, "created": created,
            "task": f"courtroom/{audit.root.name}", "task_id": audit.root.name, "task_version": 0,
            "task_attribs": {}, "task_args": {}, "task_args_passed": {}, "solver": judge.name,
            "solver_args_passed": {},
            "dataset": {"name": manifest.spec.selection.dataset, "samples": len(rows),
                        "sample_ids": [r.case_id for r in rows]},
            "model": f"courtroom/{model}", "model_generate_config": {}, "model_args": {}, "config": {},
            "packages": {name: version for name, version in manifest.versions.items() if version},
            "metadata": {"judge": judge.name, "config_hash": manifest.config_hash, "run": str(audit.root),
                         "git_sha": manifest.git_sha},
        },
        "plan": {"name": "plan", "steps": [{"solver": judge.name, "params": {"court": judge.court}}],
                 "config": {}},
        "results": {
            "total_samples": len(rows), "completed_samples": sum(r.label is not None for r in rows),
            "scores": [{"name": "courtroom", "scorer": "courtroom", "params": {},
                        "metrics": {name: {"name": name, "value": getattr(metrics, name).value, "params": {}}
                                    for name in RATES if getattr(metrics, name).value is not None}}],
        },
        "stats": {"started_at": created, "completed_at": max(times) if times else created,
                  "model_usage": {model: usage}, "role_usage": {}},
        "invalidated": False, "tags": [], "metadata": {}, "samples": samples,
    }


def write_inspect_log(audit: Audit, output: str | Path) -> Path:
    """Write the run's inspect_ai eval log (JSON) to `output`, whole or not at all."""
    output = Path(output)
    atomic_write(output, json.dumps(inspect_log(audit), ensure_ascii=False))
    return output
