"""What the HTML report and `courtroom view` both show of a run, typed and made once: its summary
(`RunSummary`), its case list (`CaseLine`) and the one filter of that list (`CaseQuery`, `select`; the
report's script applies the same fields in the page)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from courtroom.evaluate.comparison import Contender, debate_gain
from courtroom.evaluate.metrics import Metrics, compute_metrics
from courtroom.evaluate.results import ResultRow, trials
from courtroom.log.audit import Audit
from courtroom.log.judgements import human_label
from courtroom.log.manifest import Manifest
from courtroom.report.tables import _v, elide, endings_rows, trial_columns

SEARCHED = 300
"""Characters of the question and the answer a case line keeps for the search."""


class MetricsLine(BaseModel):
    """One line of the metrics table, each value as shown."""

    verdicts: str
    cases: str
    errors: str
    balanced_accuracy: str
    accuracy: str
    precision: str
    recall: str
    f1: str
    auroc: str

    @classmethod
    def of(cls, verdicts: str, m: Metrics) -> MetricsLine:
        return cls(verdicts=verdicts, cases=str(m.cases), errors=str(m.errors),
                   balanced_accuracy=str(m.balanced_accuracy),
                   accuracy=_v(m.accuracy.value), precision=_v(m.precision.value), recall=_v(m.recall.value),
                   f1=_v(m.f1.value), auroc=_v(m.auroc.value))


class RunSummary(BaseModel):
    """A run's summary: who judged it, its metrics (and after human judgements), its trials and the debate's
    gain."""

    name: str
    by: str
    model: str
    created: str
    info: str
    metrics: list[MetricsLine]
    confusion: dict[str, int]
    trials: dict[str, Any] | None
    gain: dict[str, Any] | None


def judged_by(manifest: Manifest) -> str:
    """Who judged the run: `court NAME` for a court, else `judge NAME`."""
    court = manifest.judge.get("court") if manifest.spec.judge.name == "courtroom" else None
    name = court.get("name") if isinstance(court, dict) else None
    if manifest.spec.judge.name == "courtroom":
        return f"court {name or manifest.spec.judge.court or 'default'}"
    return f"judge {manifest.spec.judge.name}"


def run_summary(audit: Audit) -> RunSummary:
    """The summary of a run as it is now."""
    manifest, rows = audit.manifest, audit.rows()
    metrics = compute_metrics(rows)
    lines = [MetricsLine.of("model", metrics)]
    if audit.judged():
        lines.append(MetricsLine.of("corrected by humans", compute_metrics(audit.corrected_rows())))
    return RunSummary(
        name=audit.root.name, by=judged_by(manifest), model=manifest.model,
        created=f"{manifest.created:%Y-%m-%d %H:%M}",
        info=f"{audit.root.name}: {judged_by(manifest)}, model {manifest.model}, created "
             f"{manifest.created:%Y-%m-%d %H:%M} UTC, git "
             f"{manifest.git_sha or 'unknown'}" + (f". {note}" if (note := audit.ruling_note()) else ""),
        metrics=lines, confusion=metrics.confusion, trials=_trials(rows), gain=_gain(rows, manifest))


def _trials(rows: list[ResultRow]) -> dict[str, Any] | None:
    """How the run's trials went (`courtroom.evaluate.trial_stats`); None when it held none."""
    summary = trials(rows)
    if summary is None:
        return None
    header, endings = endings_rows(summary)
    return {"header": header, "rows": endings, "lines": summary.lines(), "columns": trial_columns(summary)}


def _gain(rows: list[ResultRow], manifest: Manifest) -> dict[str, Any] | None:
    """The debate's gain: the court against its measurement alone and its agents alone, on the same calls."""
    gain = debate_gain(Contender.of(manifest.spec.judge.name, rows, model=manifest.model))
    if gain is None:
        return None
    return {"metrics": [[c.name, str(m.cases), str(m.balanced_accuracy), str(m.auroc)]
                        for c, m in zip(gain.contenders, gain.metrics)],
            "pairings": [[p.name, str(p.shared), "-" if p.difference is None else
                          f"{p.difference:+.3f} [{p.low:+.3f}, {p.high:+.3f}]", f"{p.p_value:.3g}"]
                         for p in gain.pairings]}


class CaseLine(BaseModel):
    """A case's entry in the case list: enough to sort, filter and search without opening its record."""

    i: int
    id: str
    source: str
    gold: str | None
    label: str | None
    corrected: str | None
    """The verdict after human judgements."""
    score: float | None
    outcome: Literal["correct", "wrong", "error", "unlabelled"]
    """After human judgements; unlabelled: no gold label."""
    edited: bool
    """A person judged the case (a label, or a correction)."""
    labelled: str
    """The label a person gave it: FAIL, PASS, or empty."""
    reason: str
    charges: int
    ended: list[str]
    """How its trials ended (`judge`, `withdrawn`, ...)."""
    question: str = ""
    answer: str = ""
    """Its question and answer, elided (for the search; filled when asked: `with_text`)."""


def case_line(audit: Audit, index: int, row: ResultRow) -> CaseLine:
    """The case's line, by its row and its judgements."""
    judged = audit.judged().get(row.case_id, [])
    corrected = audit.corrected(row)
    outcome = "error" if row.error else "unlabelled" if row.gold is None else \
        "correct" if corrected.label == row.gold else "wrong"
    return CaseLine(i=index, id=row.case_id, source=row.source, gold=row.gold, label=row.label,
                    corrected=corrected.label,
                    score=row.score, outcome=outcome, edited=any(j.verdict is not None for j in judged),
                    labelled=human_label(judged) or "", reason=elide(row.reason or row.error or "", 240),
                    charges=row.charges,
                    ended=sorted({k.split("@")[0] for k in row.trial.endings}) if row.trial else [])


def with_text(line: CaseLine, question: str, answer: str) -> CaseLine:
    return line.model_copy(update={"question": elide(question, SEARCHED), "answer": elide(answer, SEARCHED)})


class CaseQuery(BaseModel):
    """The case list's filters, sort and page."""

    model_config = ConfigDict(extra="forbid")

    outcome: Literal["all", "wrong", "correct", "error", "unlabelled", "edited"] = "all"
    verdict: Literal["", "FAIL", "PASS"] = ""
    source: str = ""
    pmin: float = Field(0.0, ge=0.0, le=1.0)
    pmax: float = Field(1.0, ge=0.0, le=1.0)
    labelled: Literal["", "yes", "no"] = ""
    ended: str = ""
    """How a trial of the case ended (`judge`, `withdrawn`, ...), or `none`: no trial."""
    q: str = ""
    """Searched in the id, the reason, the question and the answer (as the report searches)."""
    sort: Literal["i", "id", "verdict", "gold", "score", "charges", "source"] = "i"
    desc: bool = False
    offset: int = Field(0, ge=0)
    limit: int = Field(100, ge=1, le=500)


def select(lines: Sequence[CaseLine], query: CaseQuery) -> list[CaseLine]:
    """The lines that pass the query's filters, in the order it asks for (those without the sorted value
    last)."""
    needle = query.q.lower().strip()
    ranged = query.pmin > 0 or query.pmax < 1

    def keep(c: CaseLine) -> bool:
        return ((query.outcome == "all"
                 or (c.edited if query.outcome == "edited" else c.outcome == query.outcome))
                and (not query.verdict or c.corrected == query.verdict)
                and (not query.source or c.source == query.source)
                and (not ranged or (c.score is not None and query.pmin <= c.score <= query.pmax))
                and (not query.labelled or bool(c.labelled) == (query.labelled == "yes"))
                and (not query.ended or (query.ended in c.ended if query.ended != "none" else not c.ended))
                and (not needle or any(needle in text.lower() for text in (c.id, c.reason, c.question,
                                                                           c.answer))))

    chosen = [c for c in lines if keep(c)]
    if query.sort != "i" or query.desc:
        field = "corrected" if query.sort == "verdict" else query.sort
        chosen = sorted((c for c in chosen if getattr(c, field) is not None), key=lambda c: getattr(c, field),
                        reverse=query.desc) + [c for c in chosen if getattr(c, field) is None]
    return chosen
