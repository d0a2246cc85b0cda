"""A ruling refitted on a few labels with a fitted ruling as its prior: the weights held near the prior's (the fewer the
labels, the nearer), the probes kept, too few labels of a kind an intercept-only refit or an error."""

from __future__ import annotations

import numpy as np
import pytest

from courtroom.calibrate import prior_refit
from courtroom.calibrate.fit_ruling import Example
from courtroom.calibrate.logistic import fit_linear
from courtroom.calibrate.prior_refit import out_of_fold, p_hallucinated, refit_linear, refit_with_prior
from courtroom.errors import ConfigError
from courtroom.witness.ruling import FamilyRuling, FittedRuling, Linear, Probe

FEATURES = ["real.x", "noise.x", "hidden.probe"]


def prior() -> FittedRuling:
    """A ruling that trusts `real.x` and the hidden probe, and gives `noise.x` no weight; with a `summary` family."""
    linear = Linear(features=FEATURES, mean=[0.0, 0.0, 0.0], scale=[1.0, 1.0, 2.0], weights=[1.5, 0.0, 0.8],
                    intercept=-0.2)
    probe = Probe(source="hidden", linear=Linear(features=[], mean=[0.0, 0.0], scale=[1.0, 1.0], weights=[1.0, -1.0],
                                                 intercept=0.0))
    return FittedRuling(model="smollm2-135m", court="default", witnesses={"real": 1, "noise": 1, "hidden": 1},
                        hidden_depth=0.5, probes={"hidden": probe},
                        families={"any": FamilyRuling(linear=linear, threshold=0.6, cases=600),
                                  "summary": FamilyRuling(linear=linear.model_copy(update={"intercept": 1.0}))},
                        fitted={"cases": 600})


def labels(n: int, seed: int = 0, family: str = "qa", fails: int | None = None) -> list[Example]:
    """n labelled cases of a domain where `noise.x` tells the label and `real.x` does not (the opposite of the prior)."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        label = i % 2 == 0 if fails is None else i < fails
        out.append(Example(case_id=f"c{i}", source="mine", family=family, hallucinated=label,
                           values={"real.x": float(rng.normal()), "noise.x": 1.5 * label + float(rng.normal())},
                           vectors={"hidden": rng.normal(size=2).tolist()}))
    return out


def refit(examples: list[Example], precision: float = prior_refit.PRIOR_PRECISION) -> FittedRuling:
    return refit_with_prior(prior(), examples, prior_path="rulings/prior.yaml", prior_digest="abc",
                            precision=precision).ruling


def weights(ruling: FittedRuling, family: str = "any") -> np.ndarray:
    return np.array(ruling.families[family].linear.weights)  # type: ignore[index]


def test_few_labels_move_the_weights_a_little_toward_them_and_an_unshrunk_fit_would_move_them_far() -> None:
    few = labels(30)
    w0 = weights(prior())
    shrunk, free = weights(refit(few)), weights(refit(few, precision=1e-4))
    scratch = np.array(fit_linear(np.array([[e.values["real.x"], e.values["noise.x"],
                                             prior().probes["hidden"].score(e.vectors["hidden"])] for e in few]),
                                  np.array([e.hallucinated for e in few], dtype=int), FEATURES, 1.0).weights)
    # the prior holds: the refit is far nearer the prior's weights than the same labels fitted without it
    assert np.abs(shrunk - w0).max() < 0.6
    assert np.linalg.norm(shrunk - w0) < 0.5 * np.linalg.norm(free - w0)
    assert np.linalg.norm(shrunk - w0) < 0.5 * np.linalg.norm(scratch - w0)
    assert shrunk[0] > 1.0 and free[0] < 0.8  # the prior's trust in real.x survives thirty labels that ignore it
    # and the labels move it all the same: toward noise.x, which tells them apart
    assert shrunk[1] > 0.1 and np.sign(shrunk[1] - w0[1]) == np.sign(free[1] - w0[1])


def test_the_more_labels_the_less_the_prior_holds() -> None:
    w0 = weights(prior())
    moved = [np.linalg.norm(weights(refit(labels(n, seed=1))) - w0) for n in (20, 200, 2000)]
    assert moved[0] < moved[1] < moved[2]
    many = labels(2000, seed=1)
    assert weights(refit(many)) == pytest.approx(weights(refit(many, precision=1e-4)), abs=0.1)


def test_only_the_family_that_decides_the_labels_moves_its_probes_and_threshold_are_the_priors() -> None:
    before = prior()
    after = refit(labels(30))  # qa cases: decided by `any` (the prior has no qa weights)
    assert after.families["summary"] == before.families["summary"]
    assert after.probes == before.probes and after.hidden_depth == 0.5
    assert after.families["any"].threshold == 0.6 and after.families["any"].cases == 30
    assert after.families["any"].linear.mean == before.families["any"].linear.mean  # the prior's standardised space
    summaries = refit(labels(30, family="summary"))
    assert summaries.families["any"] == before.families["any"] and summaries.families["summary"] != \
        before.families["summary"]


def test_the_refit_records_its_prior_and_its_labels() -> None:
    result = refit_with_prior(prior(), labels(30), prior_path="rulings/p.yaml", prior_digest="d1", command="c")
    fitted = result.ruling.fitted
    assert fitted["prior"] == {"path": "rulings/p.yaml", "digest": "d1", "cases": 600}
    assert fitted["labels"] == 30 and fitted["hallucinated"] == 15 and fitted["precision"] == prior_refit.PRIOR_PRECISION
    assert fitted["refitted"] == {"any": "weights"} and result.modes["summary"] == "kept"
    assert result.ruling.evaluation == {}  # the prior's out-of-fold numbers are not the refit's


def test_too_few_labels_of_a_kind_refit_the_intercept_alone_and_say_how_many_more_are_needed() -> None:
    few = labels(12, fails=4)  # 4 hallucinated, 8 faithful
    result = refit_with_prior(prior(), few, prior_path="p", prior_digest="d")
    assert result.modes["any"] == "intercept"
    assert weights(result.ruling) == pytest.approx(weights(prior()))
    assert result.ruling.families["any"].linear.intercept != prior().families["any"].linear.intercept
    [note] = result.notes
    assert "4 hallucinated and 8 faithful" in note and f"needs {prior_refit.WEIGHTS_MIN_PER_CLASS} of each kind" in note
    assert f"label {prior_refit.WEIGHTS_MIN_PER_CLASS - 4} more" in note


def test_labels_that_cannot_refit_anything_are_an_error_naming_what_is_needed() -> None:
    with pytest.raises(ConfigError, match=rf"6 labels \(1 hallucinated and 5 faithful\) cannot refit the ruling: .*at "
                                          rf"least {prior_refit.INTERCEPT_MIN_PER_CLASS} labels of each kind.*courtroom label"):
        refit_with_prior(prior(), labels(6, fails=1), prior_path="p", prior_digest="d")


def test_an_intercept_only_refit_centres_the_labels_on_the_threshold() -> None:
    linear = prior().families["any"].linear
    X = np.array([[5.0, 0.0, 0.0]] * 10)  # every case far on the hallucinated side of the prior
    y = np.array([1] * 5 + [0] * 5)
    moved = refit_linear(linear, X, y, intercept_only=True)
    assert moved.weights == linear.weights
    z = moved.intercept + 1.5 * 5.0
    assert abs(z) < 0.1  # half of each kind: the refit puts them at even odds


def test_out_of_fold_decides_each_label_by_a_refit_on_the_others() -> None:
    examples = labels(30, seed=2)
    fold = np.arange(30) % 3
    oof = out_of_fold(prior(), examples, fold)
    assert oof.shape == (30,) and np.all((oof > 0) & (oof < 1))
    # the case of fold 0 is decided by the refit on folds 1 and 2, not by the refit on all
    alone = refit_with_prior(prior(), [e for e, f in zip(examples, fold) if f != 0], prior_path="p",
                             prior_digest="d").ruling
    assert oof[0] == pytest.approx(p_hallucinated(alone, examples[0], prior()))
