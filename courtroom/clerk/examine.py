"""The clerk hears its witnesses: a scoring pass of the answer with the context (looking inside the model when
the backend can), one without, and the model's own yes or no; a fitted ruling weighs them and points at words
(`locate`)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

from courtroom.case import Case, HallucinatedSpan, Testimony, Weighing
from courtroom.casefile import OPENING_SYSTEM, context_sentences, render_opening
from courtroom.clerk import grounding as measure
from courtroom.clerk.measure import ROLE, Measure, answer_measures, with_lexical_evidence
from courtroom.clerk.spec import ClerkSpec
from courtroom.door.observe import direction_key
from courtroom.door.requests import ChatMessage, GenerationRequest, GenerationResponse, Observation
from courtroom.engine.lockstep import Call, Step
from courtroom.errors import CourtError
from courtroom.text.words import content_words
from courtroom.witness.family import task_family
from courtroom.witness.polarity import is_yes_no_question
from courtroom.witness.reading import Reading
from courtroom.witness.registry import GroundingSettings, hear
from courtroom.witness.ruling import FittedRuling, Probe
from courtroom.witness.spans import model_scores, rule_scores, spans_of, word_values

YES_NO_TASK = "Answer the question with yes or no."
"""What the verdict witness asks after the case's opening (context and question)."""
NOT_INSIDE = ("the model door reports no {what} (a served model returns log-probabilities only; in-process "
              "backends report it)")


@dataclass(frozen=True)
class Examination:
    """What the witnesses' step found: each sentence's measure, the testimony, and the reading it rests on."""

    measures: list[Measure]
    testimony: list[Testimony]
    reading: Reading
    _word_scores: dict[int, tuple[Probe, list[float]]] = field(default_factory=dict, init=False, repr=False,
                                                                compare=False)

    def vectors(self, sentence: int | None = None) -> dict[str, list[float]]:
        """The vectors the ruling's probes read, of the whole answer (or one sentence), as far as the pass
        gave them."""
        at = -1 if sentence is None else sentence
        return {name: list(vectors[at]) for name, vectors in (("lookback", self.reading.lookback),
                                                              ("hidden", self.reading.hidden))
                if vectors is not None}

    def word_scores(self, probe: Probe | None, sentence: int | None = None) -> list[float] | None:
        """A word probe's log-odds of the answer's (or a sentence's) words, from their states or projections
        (once)."""
        if probe is None:
            return None
        cached = self._word_scores.get(id(probe))
        if cached is None or cached[0] is not probe:
            cached = self._word_scores[id(probe)] = (probe, self._score_words(probe))
        scores = cached[1]
        if scores is None or sentence is None:
            return scores
        return [s for w, s in zip(self.reading.words, scores) if w.sentence == sentence]

    def _score_words(self, probe: Probe) -> list[float] | None:
        states, projection = self.reading.word_hidden, self.reading.word_projection
        if states is not None:
            return probe.scores(states)
        if projection is not None and projection[0] == direction_key(probe.direction):
            return [probe.offset + v for v in projection[1]]
        return None

    def weigh(self, ruling: FittedRuling, sentence: int | None = None) -> Weighing:
        """The ruling's weighing of the whole answer (or of one sentence)."""
        probe = ruling.spans.probe if ruling.spans is not None else None
        return ruling.weigh(self.testimony, self.vectors(sentence), task_family(self.reading.case), sentence,
                            self.word_scores(probe, sentence))


def locate(examination: Examination, sentence_ps: list[float], ruling: FittedRuling
           | None) -> list[HallucinatedSpan]:
    """The words of the answer found hallucinated, as spans (the ruling's span model, or the rule without
    one)."""
    reading = examination.reading
    if reading.full is None or reading.bare is None or reading.token_spans is None:
        return []
    found, rows, names = word_values(reading.answer, reading.sentences, sentence_ps, reading.token_spans,
                                     reading.full,
                                     reading.bare, reading.token_lookback, examination.testimony,
                                     reading.offset)
    model = ruling.spans if ruling is not None else None
    scores = model_scores(model, rows, examination.word_scores(model.probe)) if model is not None \
        else rule_scores(rows)
    predicted = spans_of(found, scores, names, model.threshold if model else 0.5,
                         model.max_gap if model else 1, model.window if model else 0)
    keyed = [{w.key for w in content_words(s)} for s in reading.context_sentences]
    out = []
    for span in predicted:
        text = reading.answer[span.start:span.end]
        start, end = reading.sentences[span.sentence]
        wanted = {w.key for w in content_words(reading.answer[start:end])}
        shares = [len(wanted & k) / len(wanted) if wanted else 0.0 for k in keyed]
        closest = max(range(len(shares)), key=shares.__getitem__) if shares and max(shares) > 0 else None
        out.append(HallucinatedSpan(start=span.start + reading.offset, end=span.end + reading.offset,
                                    text=text, score=round(span.score, 4), named_by=list(span.named_by),
                                    context_sentence=closest + 1 if closest is not None else None))
    return out


def verdict_request(spec: ClerkSpec, case: Case) -> GenerationRequest:
    """The verdict witness's question: yes or no, after the case's opening (whose KV every prompt of the case
    shares)."""
    user = f"{render_opening(case, splitter=spec.sentences)}\n\n{YES_NO_TASK}"
    return GenerationRequest(messages=(ChatMessage(role="system", content=OPENING_SYSTEM),
                                       ChatMessage(role="user", content=user)),
                             output_type=Literal["yes", "no"], cache_group=case.id)


def examine(spec: ClerkSpec, ruling: FittedRuling | None, case: Case,
            sentences: tuple[tuple[int, int], ...]) -> Step:
    """Measure every sentence in the flow of the whole answer and hear the clerk's witnesses: an
    `Examination`."""
    witnesses = spec.witnesses
    assert witnesses is not None
    g = spec.grounding
    answer = case.answer.strip()
    reading = Reading.of(case, sentences, context_sentences(case, spec.sentences))
    lookback, hidden = "lookback" in witnesses.heard, "hidden" in witnesses.heard
    probe = ruling.spans.probe if ruling is not None and ruling.spans is not None else None
    found = [(w.start, w.end) for w in reading.words] if hidden and (witnesses.word_states
                                                                     or probe is not None) else []
    # a clerk that only weighs its word probe asks for each word's state projected onto it: one number, not
    # the state
    project = probe.direction if probe is not None and found and not witnesses.word_states else ()
    observe = Observation(spans=(*reading.sentences, (0, len(answer))), lookback=lookback,
                          hidden=(witnesses.hidden_depth,) if hidden else (), hidden_only=tuple(found),
                          project_words=project) if lookback or hidden else None
    calls = [Call(measure.scoring_request(case, answer, "full", splitter=spec.sentences, observe=observe),
                  purpose="ground", role=ROLE),
             Call(measure.scoring_request(case, answer, "none", splitter=spec.sentences), purpose="ground",
                  role=ROLE)]
    asks = "verdict" in witnesses.heard and is_yes_no_question(case.question)
    if asks:
        calls.append(Call(verdict_request(spec, case), purpose="witness", role=ROLE))
    responses = yield calls
    full, bare = measure.TokenScores.of(responses[0]), measure.TokenScores.of(responses[1])
    measured = answer_measures(spec, answer, list(reading.sentences), full, bare)
    statements = [answer[a:b] for a, b in reading.sentences]
    measures = with_lexical_evidence(spec, case, statements, [m for m in measured if m is not None])
    reading = _read(reading, full, bare, responses[0], responses[2] if asks else None, len(found))
    testimony = hear(reading, witnesses.heard, GroundingSettings(g.clip, g.center, g.scale))
    return Examination(measures, testimony, reading)


def _read(reading: Reading, full: measure.TokenScores, bare: measure.TokenScores,
          observed: GenerationResponse, verdict: GenerationResponse | None, words_asked: int = 0) -> Reading:
    """The reading with what the passes gave (`words_asked`: how many words' states the scoring pass was asked
    for)."""
    n = len(reading.sentences) + 1
    lookback = tuple(tuple(v for layer in span for v in layer) for span in observed.lookback) \
        if observed.lookback is not None and len(observed.lookback) == n else None
    hidden = tuple(tuple(span[0]) for span in observed.hidden[:n]) \
        if observed.hidden is not None and len(observed.hidden) >= n and observed.hidden[0] else None
    asked = observed.hidden[n:] if hidden is not None and observed.hidden is not None else []
    word_hidden, word_projection = None, None
    # (a rejudging court that asks for no words reads none it is served)
    if words_asked and asked and all(asked):
        if len(asked) != words_asked:
            raise CourtError(f"case {reading.case.id}: the model door gave the hidden states of {len(asked)} "
                             f"words for the {words_asked} words of the answer it was asked for: a defect of "
                             "the backend")
        if observed.projected_words is None:
            word_hidden = tuple(tuple(span[0]) for span in asked)
        elif all(len(span[0]) == 1 for span in asked):
            word_projection = (observed.projected_words, tuple(float(span[0][0]) for span in asked))
        else:
            raise CourtError(f"case {reading.case.id}: the model door says it projected the words' states, "
                             "and gave more than one number a word: a defect of the backend")
    unheard = {capability: NOT_INSIDE.format(what=what) for capability, what, given in
               (("attention", "attention", lookback), ("hidden_states", "hidden states", hidden))
               if given is None}
    says_yes = None
    if verdict is not None:
        verdict.unwrap()
        says_yes = float((verdict.option_probs or {}).get("yes", 0.5))
    return replace(reading, token_spans=full.spans, full=full.logprobs, bare=bare.logprobs, lookback=lookback,
                   token_lookback=tuple(observed.token_lookback) if lookback is not None
                   and observed.token_lookback
                   else None, hidden=hidden, word_hidden=word_hidden, word_projection=word_projection,
                   says_yes=says_yes, unheard=unheard)


