"""The library's entry point: `courtroom.run(dataset, court=..., model=..., out=...)` judges a dataset into a
run directory exactly as `courtroom run` does, resumes an interrupted one, and returns its rows and
metrics."""

from __future__ import annotations

import html
import json
import math
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from courtroom.digest import content_hash
from courtroom.door.models import cache_dir
from courtroom.errors import DatasetError
from courtroom.evaluate.metrics import Metrics, compute_metrics, metrics_by_source
from courtroom.evaluate.results import ResultRow
from courtroom.log.files import atomic_write
from courtroom.log.manifest import RunSpec
from courtroom.log.span_metrics import run_span_scores
from courtroom.runs.runners import Runner
from courtroom.runs.start import Run, start_run


@dataclass
class RunResult:
    """A finished (or interrupted) run: where it is, its rows, and its metrics, overall and by source."""

    run_dir: Path
    rows: list[ResultRow]
    metrics: Metrics
    by_source: dict[str, Metrics]
    judge: str
    court: str | None
    model: str
    spans: dict[str, Any] | None = None
    """Span metrics (`courtroom.evaluate.spans.span_scores`), when the data has gold spans."""

    @property
    def errors(self) -> list[ResultRow]:
        """The cases that failed (they are judged again when the run is resumed)."""
        return [r for r in self.rows if r.error is not None]

    def _repr_html_(self) -> str:
        """The run in a notebook: its metrics overall and by source (every value escaped), and how to review
        it in the browser."""
        def cells(values: Sequence[Any], tag: str = "td") -> str:
            return "".join(f"<{tag}>{html.escape(str(v))}</{tag}>" for v in values)

        rows = [("all", self.metrics), *(self.by_source.items() if len(self.by_source) > 1 else ())]
        who = f"court {self.court}" if self.court else f"judge {self.judge}"
        return (f"<p><b>{html.escape(str(self.run_dir))}</b>: {html.escape(who)}, model "
                f"{html.escape(self.model)}, {len(self.rows)} cases, {len(self.errors)} "
                "errors</p><table><tr>" +
                cells(("cases", "judged", "balanced accuracy [95% CI]", "accuracy", "precision", "recall",
                       "F1", "AUROC"),
                      "th") + "</tr>" +
                "".join("<tr>" + cells((name, m.cases, m.balanced_accuracy, m.accuracy, m.precision, m.recall,
                                        m.f1, m.auroc)) + "</tr>" for name, m in rows) +
                "</table><p>review it in the browser: <code>courtroom view "
                f"{html.escape(shlex.quote(str(self.run_dir)))}</code></p>")

    def to_pandas(self) -> Any:
        """The rows as a pandas DataFrame, one row per case (the fields of `ResultRow`; pandas must be
        installed)."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("RunResult.to_pandas needs pandas: pip install pandas") from None
        return pd.DataFrame([row.model_dump(mode="json") for row in self.rows],
                            columns=list(ResultRow.model_fields))


Rows = Sequence[Mapping[str, Any]]
"""A dataset given as data: a list of dicts, one a case, with the fields of a dataset file's rows."""


def rows_file(rows: Rows | Any) -> str:
    """Data rows (dicts, or anything with `to_dict("records")`) written once as JSON Lines under the cache,
    named by their content (`rows-<hash>.jsonl`), so the run resumes on the same rows as with any file; NaN
    cells left out."""
    records = rows.to_dict("records") if hasattr(rows, "to_dict") else rows
    if isinstance(records, (str, bytes)) or not isinstance(records, Sequence) or \
            not all(isinstance(r, Mapping) for r in records):
        raise DatasetError("a dataset is a file name, `examples`, `hf:org/name`, a list of dicts or a "
                           f"DataFrame, not {type(rows).__name__}")
    try:
        text = "".join(json.dumps({k: v for k, v in record.items() if not _missing(v)}, default=_plain,
                                  ensure_ascii=False) + "\n" for record in records)
    except (TypeError, ValueError) as exc:
        raise DatasetError(f"a row of the data cannot be written as JSON ({exc})") from exc
    path = cache_dir() / "datasets" / f"rows-{content_hash(text)}.jsonl"
    if not path.is_file():
        atomic_write(path, text)
    return str(path)


def _missing(value: Any) -> bool:
    """An empty cell: None, NaN, or pandas' `NA` and `NaT`."""
    return value is None or (isinstance(value, float) and math.isnan(value)) or \
        type(value).__name__ in ("NAType", "NaTType")


def _plain(value: Any) -> Any:
    """A value of a DataFrame cell as JSON (numpy numbers and arrays, timestamps)."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if hasattr(value, "isoformat"):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} {value!r} is not JSON")


def _name_part(name: str) -> str:
    """A model's (or court's) part of a run directory's name: a file's name without its extension, or a Hub id
    with its slash kept apart (`Qwen/Qwen2.5-7B-Instruct` -> `Qwen_Qwen2.5-7B-Instruct`)."""
    path = Path(name)
    name = path.stem if path.suffix in {".gguf", ".safetensors", ".bin"} else name.strip("/")
    return name.replace(":", "_").replace("/", "_").replace("\\", "_")


def default_run_dir(dataset: str, judge: str, court: str, model: str) -> Path:
    """`runs/<dataset>-<court or judge>-<model>` (a court file by its stem, a run directory by its name),
    where `courtroom run` and `courtroom.run` both write: runs of two courts on the same data do not
    collide."""
    place = Path(court)
    who = (place.stem if place.suffix in (".yaml", ".yml") else place.name) if judge == "courtroom" else judge
    return Path("runs") / f"{Path(dataset).stem}-{_name_part(who)}-{_name_part(model)}"


def run(dataset: str | Path | Rows | Any, *, judge: str = "courtroom", court: str = "default",
        model: str = "default",
        out: str | Path | None = None, fresh: bool = False, runner: Runner | None = None,
        on_row: Callable[[ResultRow], None] | None = None, observer: Any = None,
        **settings: Any) -> RunResult:
    """Judge `dataset` into a run directory and return its results (`RunResult.to_pandas()`: the rows as a
    DataFrame).

    `dataset` is a file, `examples`, `hf:org/name[:split]`, or the data itself (a list of dicts or a
    DataFrame, `rows_file`). `settings` are those of `courtroom run` (`limit`, `seed`, `field_map`,
    `judge_options`, `runner="ray"`, ...; `log.manifest.RUN_SETTINGS`). An interrupted run resumes;
    `fresh=True` starts over."""
    dataset = str(dataset) if isinstance(dataset, (str, Path)) else rows_file(dataset)
    spec = RunSpec.build(dataset, judge=judge, court=court, model=model, **settings)
    target = Path(out) if out is not None else default_run_dir(dataset, judge, court, model)
    started = start_run(spec, target, fresh=fresh)
    try:
        started.execute(on_row, runner=runner, observer=observer)
    finally:
        started.close()
    return finish(started)


def finish(started: Run) -> RunResult:
    """The results of a started run as they stand, its metrics (and span metrics, when the data has gold
    spans) written to `metrics.json` (an `OSError` when they cannot be: the cases are saved, the same command
    writes them)."""
    wanted = {c.id for c in started.cases}
    rows = [r for r in started.store.rows() if r.case_id in wanted]
    metrics = compute_metrics(rows)
    spans = run_span_scores(started.store, rows)
    spec = started.spec
    result = RunResult(started.store.root, rows, metrics, metrics_by_source(rows), spec.judge.name,
                       spec.judge.court if spec.judge.name == "courtroom" else None, spec.backend.model,
                       spans)
    started.store.write_metrics(metrics, spans)
    return result
