"""Two runs case by case (`audit diff`, the two-run report): the verdicts changed, fixed or broken; the paired
test."""

from __future__ import annotations

from dataclasses import dataclass

from courtroom.errors import AuditError
from courtroom.evaluate.comparison import Pairing, pair
from courtroom.evaluate.paired import gold_disagreements, named, other_cases
from courtroom.evaluate.results import ResultRow
from courtroom.log.audit import Audit


@dataclass(frozen=True)
class CasePair:
    """One case as both runs judged it (None on the side that does not hold it)."""

    case_id: str
    a: ResultRow | None
    b: ResultRow | None

    @property
    def gold(self) -> str | None:
        return (self.a or self.b).gold

    @property
    def change(self) -> str:
        """same, fixed (B right where A was wrong), broken (the other way), changed (a verdict changed and
        neither is right, or there is no gold), only A, only B."""
        if self.b is None:
            return "only A"
        if self.a is None:
            return "only B"
        if self.a.label == self.b.label and bool(self.a.error) == bool(self.b.error):
            return "same"
        a_right, b_right = self.a.correct is True, self.b.correct is True
        return "fixed" if b_right and not a_right else "broken" if a_right and not b_right else "changed"


@dataclass(frozen=True)
class RunDiff:
    """Every case of either run, paired by id."""

    cases: list[CasePair]
    pairing: Pairing
    """B paired with A (the reference): balanced accuracy difference and McNemar's test."""

    def count(self, change: str) -> int:
        return sum(c.change == change for c in self.cases)

    @property
    def changed(self) -> list[CasePair]:
        """The cases whose verdict differs between the runs (in A's order, then B's)."""
        return [c for c in self.cases if c.change in ("fixed", "broken", "changed")]


def diff_runs(a: Audit, b: Audit) -> RunDiff:
    """Pair the model verdicts of two runs by case id; fails unless they are runs of the same cases."""
    rows_a, rows_b = a.rows(), b.rows()
    by_id_b = {r.case_id: r for r in rows_b}
    ids_a = {r.case_id for r in rows_a}
    if not ids_a & set(by_id_b):
        raise AuditError(f"{a.root} and {b.root} share no case id: they are not runs of the same cases")
    if foreign := other_cases(rows_a, rows_b):
        raise AuditError(f"{len(foreign)} cases of {b.root} have the same id as a case of {a.root} but other "
                         f"content (their case digests differ: {named(foreign)}): they are not runs of the "
                         "same cases")
    if disagreements := gold_disagreements(rows_a, rows_b):
        raise AuditError(f"{disagreements} cases of {b.root} have the same id as a case of {a.root} but "
                         "another gold label: are they runs of the same dataset?")
    cases = [CasePair(r.case_id, r, by_id_b.get(r.case_id)) for r in rows_a]
    cases += [CasePair(r.case_id, None, r) for r in rows_b if r.case_id not in ids_a]
    return RunDiff(cases, pair(b.root.name, rows_a, rows_b))


def diff_cells(diff: RunDiff) -> list[str]:
    """The pairing as the report's and the page's table show it: cases in both, changed, fixed, broken,
    changed with neither right, only in A, only in B, the balanced accuracy difference with its interval,
    McNemar's p."""
    p = diff.pairing
    shared = sum(c.a is not None and c.b is not None for c in diff.cases)
    interval = "-" if p.difference is None else f"{p.difference:+.3f} [{p.low:+.3f}, {p.high:+.3f}]"
    return [str(shared), str(len(diff.changed)), str(diff.count("fixed")), str(diff.count("broken")),
            str(diff.count("changed")), str(diff.count("only A")), str(diff.count("only B")), interval,
            f"{p.p_value:.3g}"]
