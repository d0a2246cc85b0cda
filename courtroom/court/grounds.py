"""What a trial's moves rest on, chosen from a charge's reading (`courtroom.clerk.reading`) instead of
generated: the prosecution's words of the statement the context accounts for least and the sentence that
speaks to them, the defence's sentence that states it (the one that accounts best for the most of its words),
each quote checked where it says it stands. Nothing here is weighed."""

from __future__ import annotations

import math
from collections import Counter

from courtroom.clerk.reading import Reading
from courtroom.engine.events import Grounds, Quote
from courtroom.text.quotes import found_at, passage, quoted_in
from courtroom.text.words import content_words

ACCOUNTS = 1.0
"""A source accounts for a word when it makes it this much likelier than no context (nats: e times), or, read
by words, uses it (1): the prosecution's quote runs over words no source accounts for, the defence counts
those it does."""
QUOTE_WORDS = 5
"""The most content words a prosecution's quote holds."""


def _quote(text: str, start: int, end: int, within: str | None = None) -> Quote:
    """The words of `text` at [start, end), checked: found there (and inside `within`, the charged
    statement)."""
    words = text[start:end]
    verified = found_at(words, text, start, end) and (within is None or quoted_in(words, within))
    return Quote(text=words, start=start, end=end, verified=verified)


def _cited(reading: Reading, number: int | None, keys: set[str], scores: dict[int, float]) -> Grounds:
    """Grounds citing sentence `number` (None: none speaks to the words), with the passage holding `keys`."""
    if number is None:
        return Grounds(reading=reading.how, scores=scores)
    sentence = reading.sentences[number - 1]
    return Grounds(reading=reading.how, sentence=number, found=True,
                   passage=_quote(sentence, *passage(sentence, keys)), scores=scores)


def _best(scores: dict[int, float]) -> int | None:
    """The best-scoring sentence, if any scores above nothing."""
    number = max(scores, key=lambda n: (scores[n], -n), default=None)
    return number if number is not None and scores[number] > 0 else None


def defence(reading: Reading) -> Grounds:
    """The defence's pieces: the sentence that accounts for the most of the statement's words (a word for
    which it is the best source, by at least `ACCOUNTS` than without it; then the one that accounts best for
    the whole), else the one that makes the whole likelier than no context; and its words that say it. None
    when neither is."""
    cut = ACCOUNTS
    best = [max(reading.support, key=lambda n: (reading.support[n][i], -n))
            for i in range(len(reading.words))] \
        if reading.support else []
    for_words = Counter(n for i, n in enumerate(best) if reading.support[n][i] >= cut)
    number = max(for_words, key=lambda n: (for_words[n], reading.grounding[n], -n)) if for_words else \
        _best(reading.grounding)
    scores = {n: round(g, 4) for n, g in reading.grounding.items()}
    return _cited(reading, number, {w.key for w in reading.words}, scores)


def unaccounted(reading: Reading) -> tuple[int, int] | None:
    """The prosecution's quote, as words of the answer: the run of adjacent words no source accounts for,
    around the one least accounted for (that word alone when every word is accounted for); None without
    content words."""
    if not reading.words:
        return None
    best = reading.accounted()
    weakest = min(range(len(best)), key=lambda i: (best[i], i))
    cut = ACCOUNTS
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
    """[start, end) widened to the whitespace around it (`Wi-Fi`, `$32`), without the punctuation that ends a
    word."""
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
    """The prosecution's pieces: the words of the statement the context accounts for least, and the sentence
    that speaks to them (of those that name one of them, the one that accounts for them best; else the one
    that accounts for them, or else for the rest of the statement, better than no context), or none."""
    span = unaccounted(reading)
    if span is None:  # no content word ("Yes."): the statement itself
        start = max(reading.answer.find(reading.statement), 0)
        quote = _quote(reading.answer, *_whole_words(reading.answer, start,
                                                     start + len(reading.statement.rstrip())),
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
