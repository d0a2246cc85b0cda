"""Attack: trial settings (#44) that load but leave a trial with nothing to do. A court whose rounds of exchange
last to the round limit, with a node whose only moves are exits and new rounds, has no legal move there in the last
round; a role seated on an empty list of models has no model. Both must be refused when the court loads, naming
the field, not fail every case of a run after the model is loaded."""

from __future__ import annotations

import pytest

from courtroom.court import Court
from courtroom.courts import load_court
from courtroom.door.spec import BackendSpec
from courtroom.errors import CourtError

EDGES = [
    {"from": "prosecution", "move": "argue", "to": "defense", "payload": "argument", "description": "argue"},
    {"from": "defense", "move": "rebut", "to": "bench", "payload": "argument", "description": "rebut"},
    {"from": "bench", "move": "dismiss", "to": "acquit", "payload": "reason", "description": "dismiss the charge"},
    {"from": "bench", "move": "next_round", "to": "prosecution", "payload": "note", "new_round": True,
     "description": "hear another round"},
]


def load(**overrides: object) -> Court:
    return load_court("full", BackendSpec(model="debaters"), overrides={"trial.graph.edges": EDGES, **overrides})


@pytest.mark.parametrize("exchange", [3, 5])
def test_an_exchange_to_the_round_limit_leaving_a_node_no_move_is_refused(exchange: int) -> None:
    with pytest.raises(CourtError, match=r"field trial.graph.nodes.bench: node 'bench' .*no legal move in round 3"):
        load(**{"trial.max_rounds": 3, "trial.exchange_rounds": exchange})


def test_the_same_graph_with_a_shorter_exchange_loads() -> None:
    assert load(**{"trial.max_rounds": 3, "trial.exchange_rounds": 2}).spec.trial.exchange_rounds == 2


def test_a_role_seated_on_no_model_is_refused() -> None:
    with pytest.raises(CourtError, match=r"trial.models.judge: no model"):
        load_court("full", BackendSpec(model="debaters"), overrides={"trial.models.judge": []})


@pytest.mark.parametrize("gpus", [float("inf"), float("nan")])
def test_a_seat_asking_for_infinite_gpus_is_refused(gpus: float) -> None:
    with pytest.raises(CourtError, match=r"trial.models.judge.0.gpus"):
        load_court("full", BackendSpec(model="debaters"), overrides={"trial.models.judge": {"model": "x", "gpus": gpus}})


def test_one_model_seated_twice_asking_for_different_gpus_is_refused() -> None:
    """A seat is one door (one model loaded once): two roles on it must not ask Ray for two shares, the last one
    silently winning."""
    with pytest.raises(CourtError, match=r"trial.models.prosecutor: model 'x' is seated with 0.5 GPUs here and 1 "):
        load_court("full", BackendSpec(model="debaters"), overrides={"trial.models.judge": {"model": "x", "gpus": 1},
                                                                     "trial.models.prosecutor": {"model": "x",
                                                                                                 "gpus": 0.5}})
    both = load_court("full", BackendSpec(model="d"), overrides={"trial.models.judge": {"model": "x", "gpus": 1},
                                                                 "trial.models.prosecutor": {"model": "x", "gpus": 1}})
    assert both.seat_gpus() == {"x": 1}


def test_the_models_of_a_trial_set_whole_as_they_are_set_role_by_role() -> None:
    """`--set trial.models={judge: x}` was refused as 'no setting models' (left out of the dump while empty), though
    `--set trial.models.judge=x` seated the judge."""
    whole = load_court("full", BackendSpec(model="debaters"), overrides={"trial.models": {"judge": "x"}})
    by_role = load_court("full", BackendSpec(model="debaters"), overrides={"trial.models.judge": "x"})
    assert whole.seat_keys() == by_role.seat_keys() == {"judge": ["x"]}
    assert whole.config_hash() == by_role.config_hash()
    with pytest.raises(CourtError, match="no persona sits in role 'bailiff'"):
        load_court("full", BackendSpec(model="debaters"), overrides={"trial.models": {"bailiff": "x"}})
