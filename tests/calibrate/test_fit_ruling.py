"""Fitting a ruling on labelled cases: refusals, honest out-of-fold scores, groups, families, warnings."""

from __future__ import annotations

import numpy as np
import pytest

from courtroom.calibrate import fit_ruling as fitting
from courtroom.calibrate.fit_ruling import CASES_PER_WEIGHT, FAMILY_MIN_CASES, Example, fit_ruling, leave_one_source_out
from courtroom.errors import ConfigError


def auroc(gold: np.ndarray, scores: np.ndarray) -> float:
    """P(a FAIL case scores above a PASS case), ties half."""
    pos, neg = scores[gold], scores[~gold]
    return float(((pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()) /
                 (len(pos) * len(neg)))


def examples(n: int, seed: int = 0, signal: float = 0.0, width: int = 0, family: str = "qa", source: str = "s",
             prefix: str = "c") -> list[Example]:
    """n cases, half hallucinated: `real.x` is the label times `signal` plus noise, `noise.x` is noise, and `hidden`
    (when `width`) a vector of pure per-case noise, which a probe with more weights than cases fits perfectly in
    sample and which says nothing out of sample."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        label = i % 2 == 0
        values = {"real.x": signal * label + float(rng.normal()), "noise.x": float(rng.normal())}
        vectors = {"hidden": rng.normal(size=width).tolist()} if width else {}
        out.append(Example(case_id=f"{prefix}{i}", source=source, family=family, hallucinated=label, values=values,
                           vectors=vectors))
    return out


def fit(cases: list[Example], **options: object) -> fitting.RulingFit:
    return fit_ruling(cases, model="smollm2-135m", court="default", witnesses={"real": 1, "noise": 1}, **options)


def test_too_few_labels_of_a_kind_is_a_clear_error_suggesting_fewer_folds() -> None:
    cases = examples(40)
    few = [e for e in cases if not e.hallucinated] + [e for e in cases if e.hallucinated][:3]
    with pytest.raises(ConfigError, match=r"3 hallucinated \(FAIL\) cases among 23: .*5-fold .* at least 5 of each "
                                          r"kind.*use fewer folds \(--folds 3\)"):
        fit(few)
    assert fit(few, folds=3).ruling.families  # what the message suggests works
    with pytest.raises(ConfigError, match=r"1 faithful \(PASS\) case among 21: a ruling needs labelled cases of both"):
        fit([e for e in cases if e.hallucinated] + [e for e in cases if not e.hallucinated][:1])


def test_identical_answers_count_once_toward_the_folds() -> None:
    cases = examples(40)
    same = [e if not e.hallucinated else Example(**{**e.__dict__, "group": "one answer"}) for e in cases]
    with pytest.raises(ConfigError, match=r"20 hallucinated \(FAIL\) cases \(1 distinct answer or question\) among 40"):
        fit(same)
    three = [e if not e.hallucinated else Example(**{**e.__dict__, "group": f"answer {int(e.case_id[1:]) % 3}"})
             for e in cases]
    with pytest.raises(ConfigError, match=r"\(3 distinct answers or questions\).*--folds 3"):
        fit(three)
    result = fit(three, folds=3)
    by_group: dict[str, set[int]] = {}
    for e, k in zip(three, result.fold):
        by_group.setdefault(e.group or e.case_id, set()).add(int(k))
    assert all(len(folds) == 1 for folds in by_group.values())  # a group sits in one fold
    assert {k for g, folds in by_group.items() if g.startswith("answer") for k in folds} == {0, 1, 2}


def test_the_answers_to_one_question_share_a_fold_and_folds_hold_each_sources_share() -> None:
    # pairs: a faithful and a hallucinated answer to one question and context (an item), and identical answers
    # across items link items into one group
    cases = [Example(**{**e.__dict__, "item": f"item {int(e.case_id[1:]) // 2}", "source": f"s{int(e.case_id[1:]) // 2 % 3}"})
             for e in examples(120, seed=2, signal=1.0)]
    cases[5] = Example(**{**cases[5].__dict__, "group": "shared answer"})
    cases[50] = Example(**{**cases[50].__dict__, "group": "shared answer"})
    result = fit(cases)
    fold = {e.case_id: int(k) for e, k in zip(cases, result.fold)}
    assert all(fold[f"c{2 * i}"] == fold[f"c{2 * i + 1}"] for i in range(60))  # a pair is never split
    assert fold["c4"] == fold["c5"] == fold["c50"] == fold["c51"]  # linked through the shared answer
    for source in ("s0", "s1", "s2"):
        for label in (True, False):
            counts = np.bincount([fold[e.case_id] for e in cases if e.source == source and e.hallucinated == label],
                                 minlength=5)
            assert counts.max() - counts.min() <= 2, (source, label, counts)  # each fold its share (pairs move two)


def test_out_of_fold_scores_come_only_from_rulings_that_never_saw_the_case(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[set[int]] = []
    decided: list[set[int]] = []
    real_fit, real_decide = fitting.fit, fitting.decide

    def spy_fit(design, train, seed, procedure=fitting.PROCEDURE):  # noqa: ANN001, ANN202
        seen.append({int(i) for i in train})
        return real_fit(design, train, seed, procedure)

    def spy_decide(design, fitted, test):  # noqa: ANN001, ANN202
        decided.append({int(i) for i in test})
        return real_decide(design, fitted, test)

    monkeypatch.setattr(fitting, "fit", spy_fit)
    monkeypatch.setattr(fitting, "decide", spy_decide)
    cases = examples(30, signal=2.0, width=8)
    result = fit(cases)
    assert len(decided) == 5 and sorted(i for d in decided for i in d) == list(range(30))  # each case once
    for train, test in zip(seen, decided):
        assert not train & test
    assert seen[-1] == set(range(30))  # the ruling written is fitted on every case, after the folds
    assert all(result.fold[i] == k for k, test in enumerate(decided) for i in test)


def test_a_feature_predictive_only_in_sample_scores_chance_out_of_fold() -> None:
    # hidden: 300 numbers of noise per case, 80 cases: a probe separates them perfectly in sample
    cases = examples(80, seed=3, width=300)
    gold = np.array([e.hallucinated for e in cases])
    result = fit(cases)
    probe = result.ruling.probes["hidden"]
    in_sample = np.array([probe.score(e.vectors["hidden"]) for e in cases])
    assert auroc(gold, in_sample) == 1.0
    assert 0.3 <= auroc(gold, result.out_of_fold) <= 0.7
    # the ruling weighs the probe by its out-of-fold worth: a small weight, not the weight of a perfect feature
    weights = dict(zip(result.ruling.families["any"].linear.features, result.ruling.families["any"].linear.weights))
    assert abs(weights["hidden.probe"]) < 1.0

    informed = fit(examples(80, seed=3, signal=3.0, width=300))
    assert auroc(gold, informed.out_of_fold) >= 0.9
    weights = dict(zip(informed.ruling.families["any"].linear.features, informed.ruling.families["any"].linear.weights))
    assert weights["real.x"] > 1.0 and abs(weights["real.x"]) > abs(weights["noise.x"])


def test_a_family_gets_weights_of_its_own_only_with_enough_cases_and_when_they_pay() -> None:
    qa = examples(120, seed=1, signal=3.0)

    def summaries(n: int) -> list[Example]:  # the value points the other way in summaries
        return [Example(**{**e.__dict__, "values": {**e.values, "real.x": -e.values["real.x"]}})
                for e in examples(n, seed=2, signal=3.0, family="summary", prefix="s")]

    many = fit(qa + summaries(FAMILY_MIN_CASES + 20))
    assert set(many.ruling.families) == {"any", "qa", "summary"}  # each does better on its own than pooled
    assert many.ruling.families["summary"].cases == FAMILY_MIN_CASES + 20
    assert many.ruling.families["any"].cases == 120 + FAMILY_MIN_CASES + 20
    own = dict(zip(many.ruling.families["summary"].linear.features, many.ruling.families["summary"].linear.weights))
    assert own["real.x"] < 0
    few = fit(qa + summaries(FAMILY_MIN_CASES - 20))
    assert "summary" not in few.ruling.families and few.ruling.family_for("summary")[0] == "any"
    one_sided = fit(qa + [e for e in summaries(FAMILY_MIN_CASES * 2) if e.hallucinated][:FAMILY_MIN_CASES] +
                    [e for e in summaries(FAMILY_MIN_CASES * 2) if not e.hallucinated][:10])
    assert "summary" not in one_sided.ruling.families  # 70 cases, but 10 of a kind
    # a ruling with a family of its own decides that family's cases by it, out of fold as well
    gold = np.array([e.hallucinated for e in many.examples])
    family = np.array([e.family for e in many.examples])
    assert auroc(gold[family == "summary"], many.out_of_fold[family == "summary"]) >= 0.85


def test_few_cases_for_the_weights_draw_a_warning() -> None:
    cases = examples(30, width=4)  # 2 values, 1 probe, 1 intercept: 4 weights, 40 cases wanted
    [note] = fit(cases).notes
    assert note.startswith("30 labelled cases for 4 weights") and f"fewer than {CASES_PER_WEIGHT} a weight" in note
    assert fit(examples(40, width=4)).notes == []


def test_the_fitted_ruling_records_how_it_was_fitted_and_decides_like_the_fit() -> None:
    cases = examples(40, signal=2.0)
    result = fit(cases, seed=4, command="courtroom calibrate run --ruling r.yaml")
    r = result.ruling
    assert r.model == "smollm2-135m" and r.court == "default" and r.witnesses == {"real": 1, "noise": 1}
    assert r.fitted["cases"] == 40 and r.fitted["hallucinated"] == 20 and r.fitted["sources"] == {"s": 40}
    assert r.fitted["folds"] == 5 and r.fitted["seed"] == 4 and "--ruling" in str(r.fitted["command"])
    # the ruling applied to a case's values gives what the fit's own arithmetic gives
    e = cases[0]
    p = r.weigh_values(e.values, "qa").p_hallucinated
    lin = r.families["any"].linear
    z = lin.intercept + sum(w * (e.values[f] - m) / s for f, m, s, w in zip(lin.features, lin.mean, lin.scale,
                                                                             lin.weights))
    assert p == pytest.approx(1 / (1 + np.exp(-z)), abs=1e-6)


def test_leave_one_source_out_decides_each_source_by_the_others() -> None:
    a = examples(40, seed=5, signal=3.0, source="a", prefix="a")
    b = examples(40, seed=6, signal=3.0, source="b", prefix="b")
    alone = examples(10, seed=7, signal=3.0, source="c", prefix="c")
    out = leave_one_source_out(a + b)
    gold = np.array([e.hallucinated for e in a + b])
    assert auroc(gold[:40], out[:40]) >= 0.9 and auroc(gold[40:], out[40:]) >= 0.9
    # a source whose others hold one kind only cannot be decided: 0.5
    only_pass = [e for e in b if not e.hallucinated]
    assert np.all(leave_one_source_out(alone + only_pass)[:10] == 0.5)


def tried(n: int, seed: int = 0, trial_signal: float = 3.0, clerk_signal: float = 0.0,
          held: float = 1.0) -> list[Example]:
    """Cases a court tried: the clerk's `real.x` carries `clerk_signal`, the trial's `trial.bench_max` carries
    `trial_signal` (and `trial.held` says the case was tried)."""
    rng = np.random.default_rng(seed)
    out = []
    for e in examples(n, seed, signal=clerk_signal):
        bench = trial_signal * e.hallucinated + float(rng.normal())
        out.append(Example(**{**e.__dict__, "values": {**e.values, "trial.bench_max": bench, "trial.held": held}}))
    return out


def balanced(gold: np.ndarray, p: np.ndarray) -> float:
    return float(((p >= 0.5)[gold].mean() + (p < 0.5)[~gold].mean()) / 2)


def test_the_trials_testimony_is_recorded_never_weighed() -> None:
    """Trial weights were retired (#51): the fit weighs the clerk's values only, even where the trial's carry it all."""
    cases = tried(200)
    result = fit_ruling(cases, model="smollm2-135m", court="full", witnesses={"real": 1, "noise": 1})
    assert not any(f.startswith("trial.") for f in result.ruling.families["any"].linear.features)
    gold = np.array([e.hallucinated for e in cases])
    assert balanced(gold, result.out_of_fold) < 0.65  # the clerk's values carry nothing here


def test_a_study_changes_the_procedure_through_its_parameters() -> None:
    """The folds, the probes and the family weights are the `Procedure`'s: experiments pass them, not patch them."""
    cases = examples(120, signal=2.0) + examples(120, signal=2.0, family="summary", prefix="s")
    dealt: list[int] = []

    def counted(design, idx, k, seed):  # noqa: ANN001, ANN202
        dealt.append(len(idx))
        return fitting.source_folds(design, idx, k, seed)

    result = fit(cases, procedure=fitting.Procedure(folds=counted, families=False))
    assert dealt and dealt[0] == len(cases) and set(result.ruling.families) == {"any"}
