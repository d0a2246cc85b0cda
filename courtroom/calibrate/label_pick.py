"""The cases of a finished run to label (`courtroom label RUN`): a seeded random draw of its judged cases, each with
its P(hallucinated) by a ruling or the court's measure (a draw: picking by uncertainty did worse, docs/witnesses.md)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from courtroom.calibrate.ruling_runs import check_for_run, pass_vectors, witness_court
from courtroom.case import Case, CaseVerdict
from courtroom.door.models import model_key
from courtroom.engine.events import CaseStartEvent, ModelCallEvent, VerdictEvent
from courtroom.errors import ConfigError
from courtroom.log.audit import Audit
from courtroom.witness.family import task_family
from courtroom.witness.ruling import FittedRuling, testimony_values


@dataclass(frozen=True)
class Candidate:
    """A judged case of the run, as the label command shows it."""

    case: Case
    verdict: CaseVerdict
    p: float
    """P(hallucinated) by the ruling (or the measure)."""
    threshold: float


@dataclass(frozen=True)
class Candidates:
    """A run's judged cases, and what weighed them."""

    run: Path
    cases: list[Candidate]
    weighed_by: str
    """`the ruling <court>/<model>/<fingerprint>`, or `the court's measure`."""


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
    if ruling is not None:
        check_for_run(ruling, court, model, f"--ruling (for the run {audit.root})")
    ruling = ruling or court.ruling
    found: list[Candidate] = []
    for row in audit.rows():
        if row.error is not None or row.label is None:
            continue
        case, verdict, vectors = judged_case(list(audit.events(row.case_id)))
        if case is None or verdict is None:
            continue
        if ruling is None:
            found.append(Candidate(case, verdict, verdict.score, court.threshold))
            continue
        weighing = verdict.weighing
        if weighing is None or not weighing.ruling.endswith(ruling.fingerprint):  # the run's verdict is another's
            values = ruling.with_probes(testimony_values(verdict.testimony), vectors)
            weighing = ruling.weigh_values(values, task_family(case))
        found.append(Candidate(case, verdict, weighing.p_hallucinated, weighing.threshold))
    if not found:
        raise ConfigError(f"{audit.root}: no judged case to label (every case failed, or none was judged yet)")
    by = f"the ruling {ruling.court}/{ruling.model}/{ruling.fingerprint}" if ruling else "the court's measure"
    return Candidates(audit.root, found, by)


def picked(found: Candidates, n: int, seed: int = 0, spare: int = 0) -> list[Candidate]:
    """`n` cases drawn at random (seeded), and up to `spare` more to stand in for those skipped (the same order)."""
    order = np.random.default_rng(seed).permutation(len(found.cases))[:n + spare]
    return [found.cases[i] for i in order]
