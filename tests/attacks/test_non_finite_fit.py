"""Attack 43.1 (the fit's part): a testimony value of 1e308 made `calibrate --ruling` write `scale: .inf`, and a NaN
value was silently taken for a missing one. A value the fit cannot standardise is a clear error naming the case and
the value, never a ruling written."""

from __future__ import annotations

import re

import numpy as np
import pytest

from courtroom.calibrate.fit_ruling import Example, fit_ruling
from courtroom.errors import ConfigError


def cases(n: int = 40, width: int = 0) -> list[Example]:
    rng = np.random.default_rng(0)
    return [Example(case_id=f"c{i}", source="s", family="qa", hallucinated=i % 2 == 0,
                    values={"grounding.q10": float(rng.normal() + (i % 2 == 0)), "overlap.share": float(rng.normal())},
                    vectors={"hidden": rng.normal(size=width).tolist()} if width else {}) for i in range(n)]


def fit(examples: list[Example]):  # noqa: ANN201
    return fit_ruling(examples, model="smollm2-135m", court="default", witnesses={"grounding": 1, "overlap": 1})


@pytest.mark.parametrize("bad", [1e308, -1e308, float("inf"), float("nan")])
def test_a_value_the_fit_cannot_standardise_is_refused_naming_case_and_value(bad: float) -> None:
    examples = cases()
    examples[7] = Example(**{**examples[7].__dict__, "values": {**examples[7].values, "grounding.q10": bad}})
    shown = re.escape(f"{bad:g}")
    with pytest.raises(ConfigError, match=rf"case c7: testimony value grounding\.q10 holds {shown}, not a finite "):
        fit(examples)


def test_a_non_finite_probe_vector_is_refused_naming_case() -> None:
    examples = cases(width=6)
    vector = list(examples[3].vectors["hidden"])
    vector[2] = float("inf")
    examples[3] = Example(**{**examples[3].__dict__, "vectors": {"hidden": vector}})
    with pytest.raises(ConfigError, match=r"case c3: hidden vector holds inf"):
        fit(examples)


def test_large_finite_values_still_fit_to_finite_weights() -> None:
    examples = cases()
    examples[7] = Example(**{**examples[7].__dict__, "values": {**examples[7].values, "grounding.q10": 1e100}})
    linear = fit(examples).ruling.families["any"].linear
    assert np.isfinite(linear.scale).all() and np.isfinite(linear.weights).all()
