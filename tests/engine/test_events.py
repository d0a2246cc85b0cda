"""Transcripts and rows of older versions read: fields nothing writes any more are left out, a version 1 move's
generated citation becomes its grounds."""

from __future__ import annotations

from courtroom.engine.events import RETIRED_MOVE_FIELDS, MoveEvent
from courtroom.evaluate.trial_stats import RETIRED_STATS, TrialStats

MOVE = {"event": "move", "seq": 3, "charge": 0, "round": 1, "node": "defence", "role": "defender", "persona": "d",
        "move": "rebut", "payload": {"argument": "It says 1962.", "evidence": 2}, "move_probs": {"rebut": 0.7}}


def test_a_move_recorded_with_retired_fields_reads_without_them() -> None:
    retired = {"calibrated_probs": {"rebut": 0.9}, "rule": "evidence", "choice_probs": {"1": 0.6}, "finding": "+0.4",
               "evidence_found": True, "quote_verified": False, "stance": 0.3, "agrees": True}
    assert set(retired) == set(RETIRED_MOVE_FIELDS)
    move = MoveEvent.model_validate({**MOVE, **retired})
    assert move.move_probs == {"rebut": 0.7} and not set(move.model_dump()) & set(RETIRED_MOVE_FIELDS)
    assert move.grounds is not None and (move.grounds.reading, move.grounds.sentence, move.grounds.found) == \
        ("generated", 2, True)  # version 1: the generated number, and whether it named a sentence


def test_a_row_counting_statement_first_turns_reads_without_the_counts() -> None:
    stats = TrialStats.model_validate({"tried": 2, "quotes": 3, "verified": 1, "stances": 2, "disagreements": 1})
    assert stats.tried == 2 and not set(stats.model_dump()) & set(RETIRED_STATS)
