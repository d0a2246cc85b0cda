"""What a trial's moves rest on, read off the case instead of generated: for each charge, how well each context
sentence alone accounts for the charged statement and for each of its words (`trial.reading: likelihood`: how much
likelier the sentence makes each token than no context, scored by the model; `words`: the content words they share,
no model), from which the court takes each side's pieces (`prosecution`, `defence`) and checks every quote where it
says it stands. Nothing here is weighed into a verdict."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from courtroom.case import Case, Charge
from courtroom.casefile import context_sentences
from courtroom.clerk import grounding as measure
from courtroom.clerk.measure import Measure, measure_statements
from courtroom.court.bench import Bench
from courtroom.engine.events import Grounds, Quote
from courtroom.engine.lockstep import Call, Step
from courtroom.text.quotes import found_at, passage, quoted_in
from courtroom.text.words import Word, content_words

CANDIDATES = 6
"""Sentences the model reads a charge against: those sharing the most content words with it (every sentence that
shares one, for the `words` reading, which costs nothing)."""
UNACCOUNTED = {"likelihood": 1.0, "words": 1.0}
"""A word no source makes this much likelier (nats), or that no source uses (words), is one the context does not
account for: the prosecution's quote runs over such words around the least accounted for."""
QUOTE_WORDS = 5
"""The most content words a prosecution's quote holds."""


@dataclass(frozen=True)
class Reading:
    """A charge read against the context: its content words (placed in the answer), each candidate sentence's
    support of each word and grounding of the whole statement, and the whole context's support of each word."""

    how: Literal["likelihood", "words"]
    answer: str
    statement: str
    """The charged statement (its quote), which the prosecution's quote must lie in."""
    words: tuple[Word, ...]
    support: dict[int, tuple[float, ...]]
    """Sentence number -> its support of each word (nats the sentence alone adds to the word, or 1 if it uses it)."""
    grounding: dict[int, float]
    """Sentence number -> its grounding of the whole statement (as the court measures the charge; a share of words)."""
    context: tuple[float, ...] | None
    """The whole context's support of each word (None for the words reading: no sentence's is then counted)."""
    sentences: tuple[str, ...]

    def accounted(self) -> list[float]:
        """How well the best source accounts for each word."""
        columns = [*self.support.values(), *([self.context] if self.context is not None else [])]
        return [max((c[i] for c in columns), default=-math.inf) for i in range(len(self.words))]


def candidates(sentences: Sequence[str], statement: str, limit: int | None) -> list[int]:
    """The sentences (from 1) to read `statement` against: every one when there are at most `limit`; else those
    sharing content words with it, the most first (then the denser), at most `limit` (None: all that share)."""
    if limit is not None and len(sentences) <= limit:
        return list(range(1, len(sentences) + 1))
    keys = {w.key for w in content_words(statement)}
    shared = []
    for number, sentence in enumerate(sentences, start=1):
        theirs = [w.key for w in content_words(sentence)]
        if held := len(keys.intersection(theirs)):
            shared.append((-held, -held / len(theirs), number))
    return [number for *_, number in sorted(shared)[:limit]]


def _placed(case: Case, charge: Charge, measured: Measure | None) -> tuple[int, list[Word]]:
    """Where the charged statement starts in the answer, and its content words placed in the answer."""
    answer = case.answer.strip()
    start = measured.span[0] if measured is not None and measured.span is not None else max(answer.find(charge.quote), 0)
    return start, [Word(w.text, w.start + start, w.end + start, w.key) for w in content_words(charge.quote)]


def read_charges(bench: Bench, case: Case, charges: Sequence[Charge], measures: dict[int, Measure]) -> Step:
    """Each charge's reading (by charge index), the model's calls for all of them in one batch."""
    sentences = context_sentences(case, bench.spec.sentences)
    if bench.trial.reading == "words":
        return {c.index: _words_reading(case, c, sentences) for c in charges}
    missing = [c for c in charges if c.index not in measures or measures[c.index].tokens is None]
    if missing:
        again = yield from measure_statements(bench.spec, case, [c.quote for c in missing])
        measures = {**measures, **{c.index: m for c, m in zip(missing, again)}}
    wanted = {c.index: candidates(sentences, c.quote, CANDIDATES) for c in charges}
    answer = case.answer.strip()
    whole = {c.index for c in charges if measures[c.index].span is not None}  # scored within the answer: one call a
    shared = sorted({n for index in whole for n in wanted[index]})            # sentence serves every charge
    calls = [Call(measure.scoring_request(case, answer, "cited", [(n, sentences[n - 1])]), purpose="read",
                  role="court") for n in shared]
    alone = [(c, n) for c in charges if c.index not in whole for n in wanted[c.index]]
    calls += [Call(measure.scoring_request(case, c.quote, "cited", [(n, sentences[n - 1])]), purpose="read",
                   role="court", charge=c.index) for c, n in alone]
    responses = yield calls
    by_shared = dict(zip(shared, responses))
    by_alone = {(c.index, n): r for (c, n), r in zip(alone, responses[len(shared):])}
    readings = {}
    for charge in charges:
        measured = measures[charge.index]
        scored = {n: by_shared[n] if charge.index in whole else by_alone[(charge.index, n)] for n in wanted[charge.index]}
        readings[charge.index] = _likelihood_reading(bench, case, charge, measured, scored, sentences)
    return readings


def _word_sums(words: Sequence[Word], spans: Sequence[tuple[int, int]], gains: Sequence[float],
               offset: int) -> tuple[float, ...]:
    """Each word's summed gain over the tokens that overlap it (token spans shifted by `offset` into the answer)."""
    return tuple(math.fsum(g for (a, b), g in zip(spans, gains) if a + offset < w.end and b + offset > w.start)
                 for w in words)


def _likelihood_reading(bench: Bench, case: Case, charge: Charge, measured: Measure, scored: dict[int, object],
                        sentences: tuple[str, ...]) -> Reading:
    tokens = measured.tokens
    assert tokens is not None
    start, words = _placed(case, charge, measured)
    offset = 0 if measured.span is not None else start
    clip = bench.spec.grounding.clip
    support, grounding = {}, {}
    for number, response in scored.items():
        cited = measure.TokenScores.of(response)  # type: ignore[arg-type]
        logprobs = cited.within(*measured.span) if measured.span is not None else cited.logprobs
        if len(logprobs) != len(tokens.bare):
            continue  # tokenized otherwise than the clerk's pass: not comparable, not read
        gains = [c - b for c, b in zip(logprobs, tokens.bare)]
        support[number] = _word_sums(words, tokens.spans, gains, offset)
        grounding[number] = measure.token_grounding(logprobs, tokens.bare, clip)
    context = _word_sums(words, tokens.spans, [c - b for c, b in zip(tokens.context, tokens.bare)], offset)
    return Reading("likelihood", case.answer.strip(), charge.quote, tuple(words), support, grounding, context,
                   sentences)


def _words_reading(case: Case, charge: Charge, sentences: tuple[str, ...]) -> Reading:
    _, words = _placed(case, charge, None)
    support, grounding = {}, {}
    for number in candidates(sentences, charge.quote, None):
        keys = {w.key for w in content_words(sentences[number - 1])}
        support[number] = tuple(float(w.key in keys) for w in words)
        grounding[number] = math.fsum(support[number]) / max(len(words), 1)
    return Reading("words", case.answer.strip(), charge.quote, tuple(words), support, grounding, None, sentences)


def _quote(text: str, start: int, end: int, within: str | None = None) -> Quote:
    """The words of `text` at [start, end), checked: found there (and inside `within`, the charged statement)."""
    words = text[start:end]
    verified = found_at(words, text, start, end) and (within is None or quoted_in(words, within))
    return Quote(text=words, start=start, end=end, verified=verified)


def _cited(reading: Reading, number: int | None, keys: set[str], scores: dict[int, float]) -> Grounds:
    """Grounds citing sentence `number` (None: none speaks to the words), with the passage holding `keys`."""
    if number is None:
        return Grounds(reading=reading.how, scores=scores)
    sentence = reading.sentences[number - 1]
    return Grounds(reading=reading.how, sentence=number, found=True, passage=_quote(sentence, *passage(sentence, keys)),
                   scores=scores)


def _best(scores: dict[int, float]) -> int | None:
    """The best-scoring sentence, if any scores above nothing."""
    number = max(scores, key=lambda n: (scores[n], -n), default=None)
    return number if number is not None and scores[number] > 0 else None


def defence(reading: Reading) -> Grounds:
    """The defence's pieces: the sentence that best accounts for the whole statement, and its words that say it."""
    scores = {n: round(g, 4) for n, g in reading.grounding.items()}
    return _cited(reading, _best(reading.grounding), {w.key for w in reading.words}, scores)


def unaccounted(reading: Reading) -> tuple[int, int] | None:
    """The prosecution's quote, as words of the answer: the run of adjacent words no source accounts for, around
    the one least accounted for (that word alone when every word is accounted for); None without content words."""
    if not reading.words:
        return None
    best = reading.accounted()
    weakest = min(range(len(best)), key=lambda i: (best[i], i))
    cut = UNACCOUNTED[reading.how]
    first = last = weakest
    while last - first + 1 < QUOTE_WORDS and best[weakest] < cut:
        left = first > 0 and best[first - 1] < cut
        right = last < len(best) - 1 and best[last + 1] < cut
        if not (left or right):
            break
        first, last = (first - 1, last) if left and (not right or best[first - 1] <= best[last + 1]) else \
            (first, last + 1)
    return _whole_words(reading.answer, reading.words[first].start, reading.words[last].end)


def _whole_words(text: str, start: int, end: int) -> tuple[int, int]:
    """[start, end) widened to the whitespace around it (`Wi-Fi`, `$32`), without the punctuation that ends a word."""
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    while end < len(text) and not text[end].isspace():
        end += 1
    while end > start and text[end - 1] in ".,;:!?)\"'”’":
        end -= 1
    while start < end and text[start] in "(\"'“‘":
        start += 1
    return start, end


def prosecution(reading: Reading) -> Grounds:
    """The prosecution's pieces: the words of the statement the context accounts for least, and the sentence that
    speaks to them (of those that name one of them, the one that accounts for them best; else the one that accounts
    for them, or else for the rest of the statement, better than no context), or none."""
    span = unaccounted(reading)
    if span is None:  # no content word ("Yes."): the statement itself
        start = max(reading.answer.find(reading.statement), 0)
        quote = _quote(reading.answer, *_whole_words(reading.answer, start, start + len(reading.statement.rstrip())),
                       within=reading.statement)
        return Grounds(reading=reading.how, answer=quote, scores={})
    inside = [i for i, w in enumerate(reading.words) if span[0] <= w.start and w.end <= span[1]]
    rest = [i for i in range(len(reading.words)) if i not in inside]

    def mean(number: int, of: list[int]) -> float:
        return math.fsum(reading.support[number][i] for i in of) / len(of) if of else 0.0
    on_quote = {n: mean(n, inside) for n in reading.support}
    quoted = {reading.words[i].key for i in inside}
    speaking = {n: v for n, v in on_quote.items()
                if quoted.intersection(w.key for w in content_words(reading.sentences[n - 1]))}
    if speaking:  # the sentences that name the quoted words: the one that accounts for them best
        number: int | None = max(speaking, key=lambda n: (speaking[n], -n))
    else:
        number = _best(on_quote) or (_best({n: mean(n, rest) for n in reading.support}) if rest else None)
    grounds = _cited(reading, number, {reading.words[i].key for i in range(len(reading.words))},
                     {n: round(v, 4) for n, v in on_quote.items()})
    return grounds.model_copy(update={"answer": _quote(reading.answer, *span, within=reading.statement)})
