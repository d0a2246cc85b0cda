"""Pointing at the hallucinated words: the answer's words, their values, and spans of the words found."""

from __future__ import annotations

import math

import pytest

from courtroom.case import Pointer, Testimony
from courtroom.witness.ruling import Linear, SpanModel
from courtroom.witness.spans import FEATURES, Word, model_scores, rule_scores, smoothed, spans_of, word_values, words

F = {name: i for i, name in enumerate(FEATURES)}


def texts(answer: str, found: list[Word]) -> list[str]:
    return [answer[w.start:w.end] for w in found]


def test_words_leave_out_surrounding_punctuation_and_belong_to_the_sentence_they_start_in() -> None:
    answer = '"Hello," she said (twice). It\'s 9.5% -- done!'
    found = words(answer, [(0, 26), (27, len(answer))])
    assert texts(answer, found) == ["Hello", "she", "said", "twice", "It's", "9.5%", "done"]
    assert [w.sentence for w in found] == [0, 0, 0, 0, 1, 1, 1]
    assert words("", [(0, 0)]) == [] and words("... !", [(0, 5)]) == []


def w(start: int, sentence: int) -> Word:
    return Word(start, start + 1, sentence)


def test_spans_join_words_above_the_threshold_across_small_gaps_within_a_sentence() -> None:
    found = [w(0, 0), w(2, 0), w(4, 0), w(6, 0), w(8, 1), w(10, 1)]
    scores = [0.9, 0.1, 0.8, 0.1, 0.7, 0.95]
    names = [["figures"], [], ["names"], [], [], ["overlap"]]
    spans = spans_of(found, scores, names, threshold=0.5, max_gap=1)
    # words 0 and 2 bridge one word; word 4 is in the next sentence: its own span with word 5
    assert [(s.start, s.end, s.sentence) for s in spans] == [(8, 11, 1), (0, 5, 0)]  # strongest first
    assert spans[0].score == 0.95 and spans[1].score == 0.9
    assert spans[1].named_by == ("figures", "names") and spans[0].named_by == ("overlap",)
    # no gap allowed: words 0 and 2 stand apart
    apart = spans_of(found, scores, names, threshold=0.5, max_gap=0)
    assert sorted((s.start, s.end) for s in apart) == [(0, 1), (4, 5), (8, 11)]
    # a gap of two words is too wide for max_gap 1
    wide = spans_of([w(0, 0), w(2, 0), w(4, 0), w(6, 0)], [0.9, 0.1, 0.1, 0.9], [[]] * 4, 0.5, 1)
    assert sorted((s.start, s.end) for s in wide) == [(0, 1), (6, 7)]
    assert spans_of(found, scores, names, threshold=0.99) == []
    assert [s.score for s in spans_of(found, scores, names, threshold=0.95)] == [0.95]  # at the threshold counts


def test_a_window_smooths_each_words_score_over_its_neighbours_in_its_sentence() -> None:
    found = [w(0, 0), w(2, 0), w(4, 0), w(6, 0), w(8, 1)]
    scores = [0.9, 0.6, 0.1, 0.7, 0.9]
    assert smoothed(found, scores, 0) == scores
    # word 1 averages words 0-2; word 3 averages words 2-3 only (word 4 is in the next sentence)
    assert smoothed(found, scores, 1) == pytest.approx([0.75, 0.5333333, 0.4666667, 0.4, 0.9])
    # the lone peak of word 3 falls below the threshold, the run of words 0-1 stays
    assert [(s.start, s.end) for s in spans_of(found, scores, [[]] * 5, 0.5, 0, window=1)] == [(8, 9), (0, 3)]
    assert [(s.start, s.end) for s in spans_of(found, scores, [[]] * 5, 0.5, 0)] == [(0, 3), (8, 9), (6, 7)]


def test_word_values_take_the_tokens_the_witnesses_pointers_and_the_offset() -> None:
    case_answer = "  Paris has 9 million people. It is big."
    answer, offset = case_answer.strip(), 2
    sentences = [(0, 27), (28, 38)]
    pieces = ["Paris", " has", " 9", " million", " people", ".", " It", " is", " big", "."]
    spans, at = [], 0
    for piece in pieces:
        spans.append((at, at + len(piece)))
        at += len(piece)
    assert at == len(answer)
    full = [-0.5, -0.2, -5.0, -1.0, -0.4, -0.1, -0.3, -0.1, -2.0, -0.1]
    bare = [-6.0, -0.2, -2.0, -3.0, -0.4, -0.1, -0.3, -0.1, -1.0, -0.1]
    look = [0.9, 0.5, 0.1, 0.3, 0.5, 0.5, 0.5, 0.5, 0.2, 0.5]
    at_9 = case_answer.index("9 million")
    testimony = [
        Testimony(witness="figures", version=1, points=[Pointer(start=at_9, end=at_9 + 9, note="the context has no "
                                                                 "such figure", weight=1.0)]),
        Testimony(witness="names", version=1, points=[Pointer(start=2, end=7, note="the context never names it")]),
        Testimony(witness="overlap", version=1, heard=False, why_not="x",
                  points=[Pointer(start=2, end=7, note="ignored: not heard")]),
    ]
    found, rows, named = word_values(answer, sentences, [0.8, 0.2], spans, full, bare, look, testimony, offset)
    assert texts(answer, found) == ["Paris", "has", "9", "million", "people", "It", "is", "big"]
    assert all(len(r) == len(FEATURES) for r in rows)
    row = dict(zip(texts(answer, found), rows))
    assert row["Paris"][F["sentence_p"]] == 0.8 and row["big"][F["sentence_p"]] == 0.2
    assert row["Paris"][F["gain_min"]] == pytest.approx(5.5) and row["Paris"][F["surprisal"]] == pytest.approx(6.0)
    assert row["9"][F["gain_min"]] == pytest.approx(-3.0) and row["9"][F["lookback"]] == pytest.approx(0.1)
    # "people" is the token " people" alone (the full stop after it is a token outside the word)
    assert row["people"][F["gain_mean"]] == pytest.approx(0.0)
    assert row["9"][F["figure_absent"]] == 1.0 and row["million"][F["figure_absent"]] == 1.0
    assert row["9"][F["figure_computed"]] == 0.0 and row["people"][F["figure_absent"]] == 0.0
    assert row["Paris"][F["name_absent"]] == 1.0 and row["has"][F["name_absent"]] == 0.0
    assert row["Paris"][F["unsupported"]] == 0.0  # the overlap witness was not heard
    assert row["9"][F["number"]] == 1.0 and row["million"][F["number"]] == 0.0
    assert row["is"][F["stop_word"]] == 1.0 and row["big"][F["stop_word"]] == 0.0
    lowest = [t for t, r in row.items() if r[F["lowest_in_sentence"]] == 1.0]
    assert lowest == ["9", "big"]  # one per sentence: its least supported word
    assert dict(zip(texts(answer, found), named))["9"] == ["figures"]
    assert dict(zip(texts(answer, found), named))["Paris"] == ["names"]


def test_the_rule_raises_words_a_witness_pointed_at_and_a_span_model_weighs_its_features() -> None:
    plain = [0.5, 0.0, 0.0, 2.0, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    absent = list(plain)
    absent[F["figure_absent"]] = 1.0
    stop = list(plain)
    stop[F["stop_word"]] = 1.0
    p_plain, p_absent, p_stop = rule_scores([plain, absent, stop])
    assert p_stop < p_plain < p_absent
    model = SpanModel(linear=Linear(features=list(FEATURES), mean=[0.0] * len(FEATURES), scale=[1.0] * len(FEATURES),
                                    weights=[0.0] * F["figure_absent"] + [3.0] + [0.0] * (len(FEATURES) - 6),
                                    intercept=-1.0))
    low, high = model_scores(model, [plain, absent])
    assert low == pytest.approx(1 / (1 + math.exp(1))) and high == pytest.approx(1 / (1 + math.exp(-2)))


def test_a_word_probe_weighs_each_words_hidden_state_and_adds_nothing_without_the_states() -> None:
    from courtroom.witness.ruling import Probe

    n = len(FEATURES)
    probe = Probe(source="hidden", linear=Linear(features=[], mean=[0.0, 0.0], scale=[1.0, 1.0], weights=[2.0, 0.0],
                                                 intercept=0.0))
    model = SpanModel(linear=Linear(features=[*FEATURES, "word_probe"], mean=[0.0] * n + [0.5],
                                    scale=[1.0] * (n + 1), weights=[0.0] * n + [1.0], intercept=0.0), probe=probe)
    row = [0.5] + [0.0] * (n - 1)
    scores = probe.scores([[-1.0, 9.0], [1.0, -9.0]])  # the probe reads the first value only
    low, high = model_scores(model, [row, row], scores)
    assert low == pytest.approx(1 / (1 + math.exp(2.5))) and high == pytest.approx(1 / (1 + math.exp(-1.5)))
    # a run that recorded no word states (or states for other words): the probe's mean, no contribution
    for states in (None, [[1.0, 0.0]]):
        assert model_scores(model, [row, row], probe.scores(states) if states else None) == [0.5, 0.5]
    with pytest.raises(Exception, match="probe weighs 2 values"):  # states of another model
        probe.scores([[1.0, 0.0, 0.0]])
    # what a door projects a word's state onto: the probe's score is its offset plus the projection
    skewed = Probe(source="hidden", linear=Linear(features=[], mean=[0.3, -1.0], scale=[2.0, 0.5], weights=[1.5, -0.4],
                                                  intercept=0.2))
    for state in ([1.0, 2.0], [-0.7, 0.1]):
        dot = sum(v * d for v, d in zip(state, skewed.direction))
        assert skewed.offset + dot == pytest.approx(skewed.score(state))


def test_a_ruling_with_a_word_probe_weighs_its_most_suspect_words_and_leaves_them_out_without_the_states() -> None:
    from courtroom.witness.ruling import WORD_VALUES, FamilyRuling, FittedRuling, Probe, word_values

    assert word_values([]) == {}
    assert word_values([-2.0, 3.0, 1.0, -1.0]) == dict(zip(WORD_VALUES, (3.0, 1.0, 0.5)))
    n = len(FEATURES)
    probe = Probe(source="hidden", linear=Linear(features=[], mean=[0.0], scale=[1.0], weights=[1.0], intercept=0.0))
    spans = SpanModel(linear=Linear(features=[*FEATURES, "word_probe"], mean=[0.0] * (n + 1), scale=[1.0] * (n + 1),
                                    weights=[0.0] * (n + 1), intercept=0.0), probe=probe)
    family = FamilyRuling(linear=Linear(features=["hidden.words_max"], mean=[0.0], scale=[1.0], weights=[1.0],
                                        intercept=0.0))
    ruling = FittedRuling(model="m", court="default", witnesses={}, families={"any": family}, spans=spans)
    weighed = ruling.weigh([], {}, "qa", word_scores=ruling.word_scores([[-1.0], [2.0]]))
    assert weighed.log_odds == pytest.approx(2.0) and weighed.missing == []  # the most suspect word: 2.0
    unheard = ruling.weigh([], {}, "qa")
    assert unheard.log_odds == 0.0 and unheard.missing == ["hidden.words_max"]  # no states: left out, not a zero
