"""The cases of a finished run worth labelling (`courtroom label RUN`): each judged case's P(hallucinated) by a ruling
(the one given, else the run's own) or by the court's measure, and its inputs, handed to
`courtroom.evaluate.picking.pick`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from courtroom.case import Case, CaseVerdict
from courtroom.clerk.rulings import check_ruling
from courtroom.door.models import model_key
from courtroom.engine.events import CaseStartEvent, ModelCallEvent, VerdictEvent
from courtroom.errors import ConfigError, CourtError
from courtroom.evaluate.picking import POOL, pick
from courtroom.log.audit import Audit
from courtroom.log.ruling_calibrate import pass_vectors, witness_court
from courtroom.witness.family import task_family
from courtroom.witness.ruling import FittedRuling, testimony_values


@dataclass(frozen=True)
class Candidate:
    """A judged case of the run, as picking sees it."""

    case: Case
    verdict: CaseVerdict
    p: float
    """P(hallucinated) by the ruling (or the measure)."""
    threshold: float
    values: dict[str, float]
    """The inputs the ruling reads (the testimony's values and the probes' scores)."""


@dataclass(frozen=True)
class Candidates:
    """A run's judged cases, and what weighed them."""

    run: Path
    cases: list[Candidate]
    weighed_by: str
    """`the ruling <court>/<model>/<fingerprint>`, or `the court's measure`."""
    X: np.ndarray
    """Each case's standardised inputs (rows in `cases` order)."""


def judged_case(events: list) -> tuple[Case | None, CaseVerdict | None, dict[str, list[float]]]:
    """A transcript's case, verdict, and the whole answer's vectors of its scoring pass (for the probes)."""
    case = next((e.case for e in events if isinstance(e, CaseStartEvent)), None)
    verdict = next((e.verdict for e in events if isinstance(e, VerdictEvent)), None)
    observed = next((e for e in events if isinstance(e, ModelCallEvent) and e.purpose == "ground" and e.charge is None
                     and e.observe is not None), None)
    return case, verdict, pass_vectors(observed, -1)


def candidates(run_dir: str | Path, ruling: FittedRuling | None = None) -> Candidates:
    """The run's judged cases weighed by `ruling`, else the run's own ruling, else the court's measure."""
    audit = Audit(run_dir)
    court = witness_court(audit)
    model = model_key(audit.store.manifest().model)
    if ruling is not None and model_key(ruling.model) != model:
        raise ConfigError(f"the ruling was fitted for model {ruling.model!r}, the run {audit.root} judged with "
                          f"{model!r}: give a ruling fitted for {model!r}")
    if ruling is not None:  # its witnesses heard by the run's court, else every case would weigh at its means
        try:
            check_ruling(ruling, court.spec, ruling.model, f"--ruling (for the run {audit.root})", courts=None)
        except CourtError as exc:
            raise ConfigError(str(exc)) from exc
    ruling = ruling or court.ruling
    found: list[Candidate] = []
    for row in audit.rows():
        if row.error is not None or row.label is None:
            continue
        case, verdict, vectors = judged_case(list(audit.events(row.case_id)))
        if case is None or verdict is None:
            continue
        values = testimony_values(verdict.testimony)
        if ruling is None:
            found.append(Candidate(case, verdict, verdict.score, court.threshold, values))
            continue
        values = ruling.with_probes(values, vectors)
        weighing = verdict.weighing
        if weighing is None or not weighing.ruling.endswith(ruling.fingerprint):  # the run's verdict is another's
            weighing = ruling.weigh_values(values, task_family(case))
        found.append(Candidate(case, verdict, weighing.p_hallucinated, weighing.threshold, values))
    if not found:
        raise ConfigError(f"{audit.root}: no judged case to label (every case failed, or none was judged yet)")
    by = f"the ruling {ruling.court}/{ruling.model}/{ruling.fingerprint}" if ruling else "the court's measure"
    return Candidates(audit.root, found, by, _standardised(found, ruling))


def _standardised(found: list[Candidate], ruling: FittedRuling | None) -> np.ndarray:
    """Each case's inputs standardised by the ruling's own means and scales (those of its weights for every family),
    or, weighed by the measure, by the run's; a value a case lacks at its mean (0)."""
    if ruling is not None:
        linear = ruling.family_for("any")[1].linear
        names, mean, scale = linear.features, np.array(linear.mean), np.array(linear.scale)
    else:
        names = sorted({k for c in found for k in c.values})
        raw = np.array([[c.values.get(n, np.nan) for n in names] for c in found], dtype=np.float64)
        with np.errstate(all="ignore"):
            mean, scale = np.nan_to_num(np.nanmean(raw, axis=0)), np.nan_to_num(np.nanstd(raw, axis=0))
        scale[scale < 1e-9] = 1.0
    X = np.array([[c.values.get(n, m) for n, m in zip(names, mean)] for c in found], dtype=np.float64)
    return (X - mean) / scale if len(names) else np.zeros((len(found), 0))


def picked(found: Candidates, n: int, seed: int = 0, spare: int = 0) -> list[Candidate]:
    """The `n` cases whose labels would teach the ruling most, in the order picked (`courtroom.evaluate.picking`), and
    up to `spare` more after them from the same pool (to stand in for cases skipped)."""
    order = pick(np.array([c.p for c in found.cases]), np.array([c.threshold for c in found.cases]), found.X,
                 n + spare, seed, pool=POOL * n)
    return [found.cases[i] for i in order]
