"""What the HTML report holds of a case: its line in the case list and its whole record, as JSON-able
dicts."""

from __future__ import annotations

from typing import Any

from courtroom.errors import TranscriptError
from courtroom.evaluate.results import ResultRow
from courtroom.log.audit import Audit
from courtroom.log.case_record import CaseRecord, citation
from courtroom.report.calls import CallView, call_views
from courtroom.report.grounds import grounds_data
from courtroom.report.measurement import answer_gains, band, weakest
from courtroom.report.record import measured, weighed
from courtroom.report.testimony import testimony_data, utf16_offsets


def _call(view: CallView) -> dict[str, Any]:
    return {"n": view.number, "purpose": view.purpose, "speaker": view.speaker, "where": view.where,
            "role": view.role, "charge": view.charge, "round": view.round, "constraint": view.constraint,
            "messages": [[role, text[shared:], shared] for role, text, shared in view.messages],
            "raw": view.raw,
            "options": view.option_probs, "prompt_tokens": view.prompt_tokens, "reused": view.reused_tokens,
            "completion_tokens": view.completion_tokens, "seconds": round(view.seconds, 3),
            "error": view.error}


def _row_only(row: ResultRow, note: str) -> dict[str, Any]:
    """A case whose transcript cannot be read: what its result row holds, and why the rest is missing."""
    return {"note": note, "question": "", "answer": "", "sentences": [], "charges": [], "dropped": [],
            "trials": [],
            "edits": [], "heat": [], "weak": [], "calls": None, "opening": "", "reason": row.reason,
            "weighing": None, "witnesses": [], "spans": [], "gold_spans": [],
            "error": row.error, "label": row.label, "gold": row.gold, "score": row.score,
            "tokens": row.prompt_tokens + row.completion_tokens, "seconds": round(row.seconds, 2),
            "model_calls": row.model_calls}


def _trials(record: CaseRecord, sentences: tuple[str, ...]) -> list[dict[str, Any]]:
    answer = record.case.answer
    return [{"charge": trial.charge, "moves": [
        {"round": m.round, "role": m.role, "persona": m.persona, "move": m.move,
         "p": None if m.forced or not m.move_probs else round(m.move_probs.get(m.move, 0), 3),
         "polled": {k: round(v, 3) for k, v in (m.polled_probs or {}).items()} or None,
         "text": " ".join(str(v) for k, v in m.payload.items() if k != "evidence"), "cite": citation(m),
         "grounds": grounds_data(m.grounds, answer, sentences)}
        for m in trial.moves], "ruling": None if (ruling := trial.ruling) is None else {
        "verdict": ruling.verdict.value, "confidence": round(ruling.confidence, 3), "source": ruling.source,
        "reason": ruling.reason, "weighed": weighed(ruling)}} for trial in record.trials]


def case_record(audit: Audit, row: ResultRow, with_calls: bool, clip: float | None = None) -> dict[str, Any]:
    """Everything the report shows when the case is opened (the results row's, when the transcript is
    broken)."""
    try:
        record = audit.record(row.case_id)
    except TranscriptError as exc:
        return _row_only(row, str(exc))
    case = record.case
    gains = answer_gains(case, record.events, clip)
    answer = case.answer.strip()
    at = utf16_offsets(answer)
    sentences = audit.context_sentences(case)
    calls = call_views(record.events) if with_calls else None
    opening = next((text for call in calls or () for role, text, _ in call.messages if role == "user"), "")
    return {
        "note": None, "question": case.question, "answer": case.answer, "sentences": list(sentences),
        **testimony_data(record.verdict, case.answer, sentences, case.spans),
        "charges": [{"quote": c.quote, "reason": c.reason, "measured": measured(c)} for c in record.charges],
        "dropped": [{"quote": d.quote, "why": d.why_dropped, "measured": measured(d)}
                    for d in record.dropped],
        "trials": _trials(record, sentences),
        "edits": [{"charge": e.charge, "verdict": e.verdict.value, "author": e.provenance.author,
                   "reason": e.provenance.reason} for e in record.edits],
        # offsets into the answer as the court scored it (stripped), in UTF-16 units as the page slices it:
        # [start, end, gain, uncapped gain, band]
        "heat": [[at(t.start), at(t.end), round(t.gain, 3), round(t.uncapped, 3), band(t.gain)]
                 for t in gains],
        "scored_answer": answer,
        "weak": [[at(start), at(end)] for start, end in weakest(gains, answer)] if gains else [],
        "calls": None if calls is None else [_call(v) for v in calls], "opening": opening,
        "reason": row.reason, "error": row.error, "label": row.label, "gold": row.gold, "score": row.score,
        "tokens": row.prompt_tokens + row.completion_tokens, "seconds": round(row.seconds, 2),
        "model_calls": row.model_calls,
    }
