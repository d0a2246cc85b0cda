"""Labelling a run, one workflow for `courtroom label` and `courtroom view`: the draw (`n` cases and `2 n`
spares for those skipped, seeded, over the cases the run's manifest lists, so a run still being written never
reshuffles it: a case not judged yet waits in its place), each case weighed by the prior (else the run's
ruling, else the court's measure), the labels the run's record of human judgement holds (`log.judgements`), a
label given or taken back, the minimums of a refit, and what a refit on the labels would do after every one
(`calibrate.refit`). The draw is random, not by uncertainty: picking by uncertainty did worse
(docs/witnesses.md)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from courtroom.calibrate.fit_ruling import Example
from courtroom.calibrate.label_file import Candidate, import_labels, label_path
from courtroom.calibrate.prior_refit import INTERCEPT_MIN_PER_CLASS
from courtroom.calibrate.prior_runs import Prior, read_prior
from courtroom.calibrate.refit import Estimate, Weighed, estimate
from courtroom.calibrate.ruling_runs import check_for_run, example_of, witness_court
from courtroom.case import Case, CaseVerdict
from courtroom.door.models import model_key
from courtroom.engine.events import CaseStartEvent, VerdictEvent
from courtroom.errors import ConfigError, CourtroomError
from courtroom.log.audit import Audit
from courtroom.log.judgements import Judgement, by_case, human_label

KEYS = {"h": "hallucinated", "f": "faithful", "s": "skip"}
"""The keys of a label: hallucinated, faithful, skip (`u` takes a label back: `undo`)."""
STABLE_AFTER = 5
"""Labels in a row that changed no verdict of the refit, after which more labels are said to have stopped
changing them."""


class LabelSession:
    """One run's labelling, by one author, in one place (`source`: view, terminal)."""

    def __init__(self, run: Audit, prior: str | None = None, n: int = 30, seed: int = 0, author: str = "",
                 source: str = "view", strict: bool = False) -> None:
        self.run, self.n, self.seed, self.author, self.source = run, n, seed, author, source
        self.court = witness_court(run)
        self.model = model_key(run.manifest.model)
        self.prior, self.why = self._prior(prior, strict)
        self.weigher = self.prior.ruling if self.prior else self.court.ruling
        self.weighed_by = (f"the ruling {self.weigher.court}/{self.weigher.model}/{self.weigher.fingerprint}"
                           if self.weigher else "the court's measure")
        self.found: dict[str, Candidate] = {}
        self.failed: set[str] = set()
        self.weighed = Weighed(self.prior.ruling) if self.prior else None  # type: ignore[arg-type]
        self._estimates: dict[frozenset, Estimate | str] = {}
        self.note = self._import_old()
        self.sync()

    def _prior(self, given: str | None, strict: bool) -> tuple[Prior | None, str | None]:
        """The prior the labels refit: the one given if fitted for the run's model and court, else the shipped
        one for its model (or none, and why); with `strict` (a prior named in the terminal), one given that
        does not fit is refused."""
        names = [str(Path(given).resolve()) if Path(given).is_file() else given] if given else []
        for name in [*names, f"rulings/default.{self.model}.yaml"]:
            named = strict and name in names
            try:
                prior = read_prior(name)
            except CourtroomError:
                if named:
                    raise
                continue  # none there: the shipped one, if any
            if not named and model_key(prior.ruling.model) != self.model:
                continue
            try:
                check_for_run(prior.ruling, self.court, self.model, f"the prior {name}")
            except ConfigError as exc:
                if named:
                    raise
                return None, f"the prior {name} cannot refit this run: {exc}"
            return prior, None
        return None, (f"no prior ruling for {self.run.manifest.model}: give one fitted for the run's model "
                      "and court (courtroom view --prior RULING, courtroom label --ruling RULING) to refit "
                      "it on these labels")

    def _import_old(self) -> str | None:
        """The labels of the label file `courtroom view` kept beside the run before the record, imported once
        (while the record holds no label given in a page, a terminal or a file); why it could not be, else
        None."""
        old = label_path(self.run.root)
        if not old.is_file() or any(j.source != "edit" for j in self.run.judgements()):
            return None
        try:
            import_labels(old, self.run, self.author or "an earlier courtroom view")
        except ConfigError as exc:
            return str(exc)
        return None

    def sync(self) -> None:
        """Weigh the cases judged since the last look (a run being written grows)."""
        self.run.refresh()
        new = {}
        for row in self.run.rows():
            if row.case_id not in self.found and row.case_id not in self.failed and row.case_id not in new:
                judged = (None if row.error is not None
                          or row.label is None else self._judged(self.run.events(row.case_id)))
                if judged is None:
                    self.failed.add(row.case_id)
                else:
                    new[row.case_id] = judged
        if not new:
            return
        if self.prior is not None:
            self.weighed.add({c: example for c, (_, _, example) in new.items() if example is not None})
            weighed = self.weighed.p(self.prior.ruling)
        for case_id, (case, verdict, example) in new.items():
            if self.prior is not None and example is not None:
                p, threshold = weighed[case_id]
            # the run's own ruling
            elif self.weigher is not None and (weighing := verdict.weighing) is not None:
                p, threshold = weighing.p_hallucinated, weighing.threshold
            else:
                p, threshold = verdict.score, self.court.threshold
            self.found[case_id] = Candidate(case, verdict, float(p), threshold, example)

    def _judged(self, events: list) -> tuple[Case, CaseVerdict, Example | None] | None:
        case = next((e.case for e in events if isinstance(e, CaseStartEvent)), None)
        verdict = next((e.verdict for e in events if isinstance(e, VerdictEvent)), None)
        if case is None or verdict is None:
            return None
        return case, verdict, example_of(events, self.court.spec.sentences, False, spans=False)

    def drawn(self) -> list[str]:
        """The cases drawn, in order: `n`, then `2 n` spares, over the cases the manifest lists (else those
        judged)."""
        listed = (list(self.run.manifest.cases.cases)
                  if self.run.manifest.cases else [r.case_id for r in self.run.rows()])
        return [listed[i] for i in np.random.default_rng(self.seed).permutation(len(listed))[: 3 * self.n]]

    def order(self) -> list[str]:
        """The drawn cases that can be labelled or soon can (not failed), in the draw's order."""
        return [case for case in self.drawn() if case not in self.failed]

    def words(self) -> dict[str, str]:
        """Each case's standing label as given (hallucinated, faithful, skip); taken back: none."""
        out = {}
        for case, judged in self.run.judged().items():
            given = [j for j in judged if j.charge is None]
            if given and given[-1].label != "undone":
                out[case] = given[-1].label
        return out

    def labels(self) -> dict[str, bool]:
        """Every case a person labelled (or corrected: `audit edit`), hallucinated or not: what a refit
        takes."""
        return {case: label == "FAIL" for case, label in self.run.human_labels().items()
                if case in self.found and self.found[case].example is not None}

    def why_not(self, labels: dict[str, bool] | None = None) -> str | None:
        """Why a refit cannot run yet (no prior, too few labels of a kind), else None."""
        labels = self.labels() if labels is None else labels
        if self.prior is None:
            return self.why
        if min(sum(labels.values()), len(labels) - sum(labels.values())) < INTERCEPT_MIN_PER_CLASS:
            return (f"label at least {INTERCEPT_MIN_PER_CLASS} cases of each kind (hallucinated and "
                    "faithful) to refit")
        return None

    def give(self, case_id: str, key: str, note: str = "") -> None:
        """Record a label of a drawn case (`h`, `f` or `s`), with an optional note."""
        if key not in KEYS:
            raise ConfigError(f"a label is h (hallucinated), f (faithful) or s (skip), not {key!r}")
        if case_id not in self.drawn():
            raise ConfigError(f"case {case_id!r} is not one of the cases drawn for labelling")
        if case_id not in self.found:
            raise ConfigError(f"case {case_id!r} is not judged yet (the run is being written): label it once "
                              "it is")
        self._record(case_id, KEYS[key], note)

    def undo(self, case_id: str) -> None:
        """Take back the label of a case (it counts as unlabelled again; the record keeps both)."""
        if case_id not in self.words():
            raise ConfigError(f"case {case_id!r} has no label to take back")
        self._record(case_id, "undone", "")

    def _record(self, case_id: str, label: str, note: str) -> None:
        self.run.record_judgements([Judgement(case_id=case_id, label=label, author=self.author, note=note,  # type: ignore[arg-type]
                                              source=self.source)])  # type: ignore[arg-type]

    def estimate(self) -> Estimate | None:
        """What a refit on the labels would do now (None while it cannot run; a `ConfigError` when the labels
        refit no family), and whether the last labels changed any verdict of it (`Estimate.stable`)."""
        states = self._states()
        if self.why_not(states[-1]) is not None:
            return None
        now = self._estimate(states[-1])
        if isinstance(now, str):
            raise ConfigError(now)
        earlier = [e for e in map(self._estimate, states[:-1]) if isinstance(e, Estimate)]
        stable = len(earlier) == STABLE_AFTER and all(e.after[c] == now.after[c] for e in earlier
                                                      for c in now.after
                                                      if c not in now.labels)
        return replace(now, stable=stable)

    def _states(self) -> list[dict[str, bool]]:
        """The labels now, and as they stood before each of the last `STABLE_AFTER` judgements that changed
        them."""
        judged = self.run.judgements()
        per_case = by_case(judged)
        usable = {c for c in per_case if c in self.found and self.found[c].example is not None}
        states = [{c: v == "FAIL" for c in usable if (v := human_label(per_case[c])) is not None}]
        for j in reversed(judged):  # each judgement taken back in turn, the latest first
            if len(states) > STABLE_AFTER:
                break
            if j.case_id not in usable:
                continue
            per_case[j.case_id].pop()
            before = dict(states[0])
            if (v := human_label(per_case[j.case_id])) is None:
                before.pop(j.case_id, None)
            else:
                before[j.case_id] = v == "FAIL"
            if before != states[0]:
                states.insert(0, before)
        return states

    def _estimate(self, labels: dict[str, bool]) -> Estimate | str:
        key = frozenset(labels.items())
        if key not in self._estimates:
            try:
                self._estimates[key] = estimate(self.prior, self.court.spec.name, self.model, self.weighed,  # type: ignore[arg-type]
                                                {c: self.found[c].example for c in labels}, labels,  # type: ignore[misc]
                                                {c: f.verdict.label for c, f in self.found.items()})
            except ConfigError as exc:  # too few labels of a kind in every family
                self._estimates[key] = str(exc)
        return self._estimates[key]
