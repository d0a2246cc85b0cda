"""The span trial (`witnesses.trial`): the trial's job is to name the exact words that are false.

For each charged sentence of an answer found hallucinated, three turns, each a scored choice among candidates the
witnesses propose (small models choose badly from open options, and by prior: so every choice is also asked with its
content taken away, and the calibrated probability is P(option) / P(option without the content), renormalised):

1. the **prosecutor** names the words of the sentence it holds unsupported, among the word runs the witnesses found
   most suspect (or none); the quote is checked against the answer (normalised exact match);
2. the **defender** quotes the context sentence that supports those words, among the context sentences sharing most
   of the sentence's words (or none); the quote is *verified* when every content word of the named words is in it
   (with `witnesses.quote_check: strict`, also when it holds them in their order, its numbers count what the
   charged sentence's count, and it agrees in negation with the sentence where a negation reaches the words:
   `verified_support`);
3. the **judge** sees only the charge, the named words and the defender's quote with its verification (not the
   whole context: the condition under which debate beat a direct judge, Khan et al. 2024) and rules.

A verified quote acquits the words; otherwise the judge's P(hallucinated) decides. The words convicted are the
verdict's spans, each marked verified (its quote found in the answer) and named by the prosecutor.

With `witnesses.trial_charges: spans` the counts are the witnesses' own spans instead (the strongest `COUNTS`; the
prosecutor names words only in a charged sentence where the witnesses found none): each is defended and ruled on as
above, the judge's ruling calibrated against the same ruling with the words taken away (its log-odds clipped to
`JUDGE_CLIP`), and its odds multiply the witnesses' (a span is convicted when the product clears the span model's
threshold). A judge without an opinion (calibrated 0.5) leaves the witnesses' spans as they are (those beyond the
strongest stand untried, but for any words of them the prosecutor named: what the trial decides of those stands);
only a verified quote or a judge sure of the words' support acquits one.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Literal

from courtroom.case import Case, HallucinatedSpan
from courtroom.casefile import OPENING_SYSTEM
from courtroom.court.bench import Bench
from courtroom.court.move_priors import calibrate, most_probable
from courtroom.court.moves import VerdictChoice
from courtroom.court.prompts import case_messages
from courtroom.court.witnesses import Examination
from courtroom.door.requests import ChatMessage, GenerationRequest
from courtroom.engine.events import MoveEvent
from courtroom.engine.lockstep import Call, Step, Transcript, gather
from courtroom.text.negation import CUES as NEGATIONS
from courtroom.text.quotes import normalize, quoted_in
from courtroom.text.words import STOP_WORDS, content_words
from courtroom.witness.spans import words

NONE = "(none)"
CANDIDATES = 4
"""At most this many word runs are offered to the prosecutor."""
QUOTES = 5
"""At most this many context sentences are offered to the defender."""
COUNTS = 4
"""At most this many of the witnesses' spans are tried (`trial_charges: spans`), the strongest first."""
CONTENT_FREE = "N/A"


def _choice(messages: tuple[ChatMessage, ...], options: tuple[str, ...], case: Case) -> GenerationRequest:
    return GenerationRequest(messages=messages, output_type=Literal[options], cache_group=case.id)  # type: ignore[valid-type]


def _calibrated(probs: dict[str, float], free: dict[str, float]) -> dict[str, float]:
    return calibrate(probs, {o: max(p, 1e-6) for o, p in free.items()})


def _candidates(examination: Examination, spans: list[HallucinatedSpan], sentence: int) -> dict[str, int]:
    """The word runs of a sentence the witnesses found most suspect (the spans already predicted in it first), each
    with where it is in the examination's answer."""
    reading = examination.reading
    start, end = reading.sentences[sentence]
    found = words(reading.answer, reading.sentences)
    runs = [(s.text, s.start - reading.offset) for s in spans if start <= s.start - reading.offset < end]
    points = sorted((p for t in examination.testimony if t.heard for p in t.points), key=lambda p: -p.weight)
    for p in points:
        a, b = p.start - reading.offset, p.end - reading.offset
        whole = [w for w in found if w.start < b and w.end > a]
        if whole and start <= whole[0].start < end:
            runs.append((reading.answer[whole[0].start:whole[-1].end], whole[0].start))
    out: dict[str, int] = {}
    for text, at in runs:
        if text and text not in out and text.lower() not in STOP_WORDS and len(out) < CANDIDATES:
            out[text] = at
    return out


def _quotes(examination: Examination, sentence: int, words: str = "") -> list[int]:
    """The context sentences (numbered from 1) sharing most content words with an answer sentence (with the named
    `words` first, when given)."""
    reading = examination.reading
    start, end = reading.sentences[sentence]
    wanted = {w.key for w in content_words(reading.answer[start:end])}
    named = {w.key for w in content_words(words)}
    shared = [(len(named & keys), len(wanted & keys), i + 1)
              for i, keys in enumerate({w.key for w in content_words(s)} for s in reading.context_sentences)]
    return [i for m, n, i in sorted(shared, key=lambda x: (-x[0], -x[1], x[2])) if n > 0 or m > 0][:QUOTES]


_COUNTS_THING = re.compile(r"[\s-]+(?:of\s+(?:the\s+)?)?")
"""What may stand between a number and the thing it counts: "12 employees", "12 of the employees"."""
DESCRIBED = 3
"""A number of a quote counts any of the next this many words of its phrase: "12 full-time employees" counts
employees (a phrase ends at punctuation, a function word other than "of the", or another number); a number joined to
its word by a hyphen counts that word alone ("a 2-week course" counts weeks, not courses)."""
_SUBORDINATE = r"although|though|while|whereas|because|since|unless|if|when"
_SCOPE_OPENS = re.compile(rf"[.!?](?=\s+[A-Z])|[;:]|\s--?\s|--|(?<!\d)[\u2013\u2014](?!\d)|\b(?:but|{_SUBORDINATE})\b",
                          re.IGNORECASE)
"""Where a negation's reach begins: a sentence's end, a semicolon or colon, a dash (not a range: "2019\u20132021"), "but"
or a subordinate clause (past the comma that closes it: "Although it was not painted, it was automated"); read with
brackets and a negation's own aside blanked ("did not (HR 0.95; CI 0.80-1.12) or", "did not, however, improve")."""
_MASKED = re.compile(r"\([^()]*\)|(?<=\bnot)\s*,[^,]*,|(?<=\bnever)\s*,[^,]*,", re.IGNORECASE)
_SCOPE_CLOSES = re.compile(rf"[,;:()]|[.!?](?=\s+[A-Z])|\s--?\s|--|[\u2013\u2014]|\b(?:but|{_SUBORDINATE})\b", re.IGNORECASE)
"""Where it ends after the words: "automated in 1926, not 1920" does not negate "automated"."""
_ASIDE = re.compile(r"\([^()]*\)|,\s*(?:which|who|whom|whose|where)\b[^,]*,", re.IGNORECASE)
"""An aside before the words, whose negation is its own: "The tower, which was not painted, was automated"."""
_AGENT = re.compile(r"\s+by\s+(?:the\s+|an?\s+)?", re.IGNORECASE)
"""What joins a verb to its agent ("acquired by Google")."""
_OWNER = re.compile(r"\s+of\s+(?:the\s+|an?\s+)?", re.IGNORECASE)
"""What joins a thing to its owner ("the CEO of Tesla")."""
_CURRENCIES = "$\u20ac\u00a3"


def _counted(text: str, within: tuple[int, int] | None = None, reach: int = 1) -> set[tuple[str, str]]:
    """Each number of `text` (of its characters `within`, when given) with the thing it counts, as written: the content
    word right after it, or any of the next `reach` words of its phrase (only the first when a hyphen joins it to the
    number), and its unit (a currency sign before it, a percent after it)."""
    lo, hi = within or (0, len(text))
    found = content_words(text)
    out = set()
    for i, number in enumerate(found):
        if not (number.text[0].isdigit() and lo <= number.start < hi):
            continue
        sign = text[:number.start].rstrip()[-1:]
        if sign and sign in _CURRENCIES:
            out.add((number.key, sign))
        if re.match(r"\s*(?:%|percent\b)", text[number.end:], re.IGNORECASE):
            out.add((number.key, "%"))
        joined = i + 1 < len(found) and text[number.end:found[i + 1].start] == "-"
        for before, word in zip(found[i:i + reach], found[i + 1:i + 1 + (1 if joined else reach)]):
            if word.text[0].isdigit() or not _COUNTS_THING.fullmatch(text[before.end:word.start]):
                break
            out.add((number.key, word.text.lower()))
    return out


def _counted_in_statement(words: str, statement: str) -> set[tuple[str, str]]:
    """What the numbers of the named words count, read in the statement that holds them (words ending in a number
    do not say what it counts: their statement does), or in the words alone."""
    at = statement.find(words)
    return _counted(words) if at < 0 else _counted(statement, (at, at + len(words)))


def _scope(text: str, start: int, end: int) -> str:
    """The text whose negation reaches the words at `start` to `end`: from where the reach begins before them (asides
    left out) to where it ends after them."""
    masked = _MASKED.sub(lambda m: " " * len(m.group()), text)
    opens = [m for m in _SCOPE_OPENS.finditer(masked) if m.end() <= start]
    lo = opens[-1].end() if opens else 0
    if opens and re.fullmatch(_SUBORDINATE, opens[-1].group(), re.IGNORECASE) and "," in masked[lo:start]:
        lo = masked.index(",", lo, start) + 1
    hi = min((m.start() for m in _SCOPE_CLOSES.finditer(text) if m.start() >= end), default=len(text))
    return _ASIDE.sub(" ", text[lo:start]) + text[start:hi]


def _negates(text: str) -> bool:
    """Whether any negation is in `text` ("not only" is none): two do not cancel ("no fever and no cough")."""
    return NEGATIONS.search(re.sub(r"\bnot\s+only\b", " ", text.replace("\u2019", "'"), flags=re.IGNORECASE)) is not None


def _negated_at(text: str, held: tuple[int, int]) -> bool:
    return _negates(_scope(text, *held))


def _said_negated(words: str, statement: str) -> bool:
    """Whether the statement negates the named words (where a negation reaches them; the whole statement when the
    words are not found in it)."""
    at = statement.find(words)
    return _negates(statement) if at < 0 else _negated_at(statement, (at, at + len(words)))


def _holdings(words: str, quote: str) -> list[tuple[int, int]]:
    """Where the quote holds the named words' content words in their order, or reversed when the quote names the last
    of them as the agent ("YouTube was acquired by Google" holds "Google acquired YouTube"; "YouTube acquired Google"
    does not) or its owner ("the CEO of Tesla" holds "Tesla CEO"): every such place, first word to last. Numbers
    keep no order (what they count is checked apart); one content word is held wherever it is."""
    named = content_words(words)
    ordered = [w for w in named if not w.text[0].isdigit()] or named
    keys = list(dict.fromkeys(w.key for w in ordered))
    agent = len(ordered) > 1 and _AGENT.fullmatch(words[ordered[-2].end:ordered[-1].start]) is not None
    found = content_words(quote)
    out = []
    for order, flipped in ((keys, False), (keys[::-1], True)) if len(keys) > 1 else ((keys, False),):
        for first in (i for i, w in enumerate(found) if w.key == order[0]):
            at, where = first, [found[first]]
            for key in order[1:]:
                at = next((i for i in range(at + 1, len(found)) if found[i].key == key), -1)
                if at < 0:
                    break
                where.append(found[at])
            if len(where) < len(order):
                break
            between = quote[where[-2].end:where[-1].start] if len(where) > 1 else ""
            by = _AGENT.fullmatch(between) is not None
            if not flipped:
                same_roles = len(keys) == 1 or by == agent
            else:  # reversed: one side names the agent with "by", or the quote names the owner of a pair with "of"
                same_roles = by != agent or (len(keys) == 2 and _OWNER.fullmatch(between) is not None)
            if same_roles:
                out.append((where[0].start, where[-1].end))
    return out


def verified_support(words: str, quote: str, statement: str | None = None) -> bool:
    """Whether a quoted context sentence holds every content word of the named words (stemmed), or the words
    themselves (normalised). Given the `statement` holding the words (`quote_check: strict`), also:
    - the quote holds the content words in their order, or reversed by an agent named with "by" or an owner with
      "of" ("YouTube acquired Google" does not hold "Google acquired YouTube"; "YouTube was acquired by Google" does);
    - words without a content word are whole words of the quote;
    - a number counts the same thing ("12 employees" is not held by "12 offices and 400 employees", nor by "a
      12-month employee survey", but is by "12 full-time employees");
    - the quote agrees in negation with the statement, each read where a negation reaches the words (`_scope`):
      "was not automated" is not held by "was automated", nor "fatigue" by "no fever, cough, or fatigue" for a
      statement that patients showed fatigue, and a "not" in an aside or another clause does not count."""
    keys = {w.key for w in content_words(words)}
    if bool(keys) and keys <= {w.key for w in content_words(quote)}:
        if statement is None:
            return True
        said = _said_negated(words, statement)
        return any(_negated_at(quote, held) == said for held in _holdings(words, quote)) \
            and _counted_in_statement(words, statement) <= _counted(quote, reach=DESCRIBED)
    needle = normalize(words)
    if statement is None:
        return needle in normalize(quote)
    if _negates(words):  # "not" is held by any quote with a "not": what it negates is the question
        return False
    text, said = normalize(quote), _said_negated(words, statement)
    return bool(needle) and any(_negated_at(text, m.span()) == said
                                for m in re.finditer(rf"(?<!\w){re.escape(needle)}(?!\w)", text))


def _prosecute(bench: Bench, case: Case, examination: Examination, spans: list[HallucinatedSpan], sentence: int,
               charge: int, transcript: Transcript) -> Step:
    """The prosecutor's turn over a charged sentence: the words it names (checked against the answer) and where the
    witnesses found them in the examination's answer, or None."""
    reading = examination.reading
    start, end = reading.sentences[sentence]
    quote = reading.answer[start:end]
    offered = _candidates(examination, spans, sentence)
    if not offered:
        return None
    info = {"role": "prosecutor", "node": "prosecution", "charge": charge, "round": 1}
    options = (*offered, NONE)
    task = (f'CHARGE {charge + 1}: the answer states "{quote}"\nName the exact words of this statement that the context '
            f"does not support, or {NONE} if the context supports all of it. Options:\n"
            + "\n".join(f"- {o}" for o in options))
    free_case = case.model_copy(update={"context": [CONTENT_FREE]})
    said, free = yield from gather([_ask(bench, case, task, options, info), _ask(bench, free_case, task, options, info)])
    named_probs = _calibrated(said, free)
    named = most_probable(named_probs)
    found_in_answer = named == NONE or quoted_in(named, reading.answer)
    transcript.add(MoveEvent, charge=charge, round=1, node="prosecution", role="prosecutor",
                   persona=bench.persona("prosecutor").name, move="name", payload={"words": named},
                   move_probs=None, choice_probs=named_probs,
                   finding=f"the words are {'' if found_in_answer else 'not '}in the answer (raw P {said[named]:.2f})")
    return None if named == NONE else (named, found_in_answer, offered[named])


def _defend(bench: Bench, case: Case, examination: Examination, named: str, sentence: int, charge: int,
            transcript: Transcript, numbers: list[int]) -> Step:
    """The defender's turn: the context sentence it quotes for the named words (0: none) and whether the quote holds
    them."""
    reading = examination.reading
    start, end = reading.sentences[sentence]
    quote = reading.answer[start:end]
    if not numbers:
        return 0, False
    listed = "\n".join(f"[{n}] {reading.context_sentences[n - 1]}" for n in numbers)

    def ask(words: str) -> str:  # not str.format: the case's text may hold braces
        return (f'CHARGE {charge + 1}: the answer states "{quote}"\nThe prosecution holds these words unsupported: '
                f'"{words}"\nQuote the one context sentence that supports them: answer with its number, or 0 if none '
                f"does.\n{listed}")

    choices = (*(str(n) for n in numbers), "0")
    defence = {"role": "defender", "node": "defense", "charge": charge, "round": 1}
    said, free = yield from gather([_ask(bench, case, ask(named), choices, defence),
                                    _ask(bench, case, ask(CONTENT_FREE), choices, defence)])
    cited_probs = _calibrated(said, free)
    cited = int(most_probable(cited_probs))
    witnesses = bench.spec.witnesses
    strict = witnesses is not None and witnesses.quote_check == "strict"
    verified = cited > 0 and verified_support(named, reading.context_sentences[cited - 1], quote if strict else None)
    transcript.add(MoveEvent, charge=charge, round=1, node="defense", role="defender",
                   persona=bench.persona("defender").name, move="quote", payload={"evidence": cited},
                   choice_probs=cited_probs, evidence_found=cited > 0 or None,
                   finding=(f"[{cited}] {'holds' if verified else 'does not hold'} the named words" if cited
                            else "no sentence quoted"))
    return cited, verified


def _ruling_request(examination: Examination, sentence: int, named: str, cited: int, verified: bool,
                    case: Case) -> GenerationRequest:
    """The judge's question: the charged statement, the named words and the defence's quote with the court's check."""
    reading = examination.reading
    start, end = reading.sentences[sentence]
    judged = (f'The answer states "{reading.answer[start:end]}". The prosecution holds the words "{named}" unsupported '
              "by the context. "
              + (f'The defence quotes the context: "{reading.context_sentences[cited - 1]}" (the court checked: the '
                 f"quote {'holds' if verified else 'does not hold'} the named words)." if cited else
                 "The defence quotes no context sentence.")
              + ' Are the named words hallucinated? Answer "hallucinated" or "supported".')
    messages = (ChatMessage(role="system", content=OPENING_SYSTEM), ChatMessage(role="user", content=judged))
    return GenerationRequest(messages=messages, output_type=VerdictChoice, cache_group=case.id)


def try_span(bench: Bench, case: Case, examination: Examination, spans: list[HallucinatedSpan], sentence: int,
             charge: int, transcript: Transcript) -> Step:
    """The three turns over one charged sentence (`trial_charges: named`); the span convicted, or None."""
    reading = examination.reading
    prosecuted = yield from _prosecute(bench, case, examination, spans, sentence, charge, transcript)
    if prosecuted is None:
        return None
    named, found_in_answer, _ = prosecuted  # placed by `_locate`, as the runs of this first trial were
    cited, verified = yield from _defend(bench, case, examination, named, sentence, charge, transcript,
                                         _quotes(examination, sentence))
    [response] = yield [Call(_ruling_request(examination, sentence, named, cited, verified, case), purpose="verdict",
                             role="judge", node="bench", charge=charge, round=1)]
    response.unwrap()
    p = float((response.option_probs or {}).get("hallucinated", 0.0))
    convicted = not verified and p >= 0.5
    transcript.add(MoveEvent, charge=charge, round=1, node="bench", role="judge", persona=bench.persona("judge").name,
                   move="rule", payload={"words": named}, choice_probs=response.option_probs,
                   finding=("acquitted: the defence's quote, verified, holds the words" if verified else
                            f"P(hallucinated) = {p:.2f}: {'convicted' if convicted else 'acquitted'}"))
    if not convicted or not found_in_answer:
        return None
    at = _locate(examination, named, sentence)
    return HallucinatedSpan(start=at + reading.offset, end=at + len(named) + reading.offset, text=named,
                            score=round(p, 4), named_by=["prosecutor", "judge"], verified=True,
                            context_sentence=cited or None)


@dataclass(frozen=True)
class Count:
    """Words of the answer put on trial (`trial_charges: spans`): where they are, who named them, and the
    log-odds by which the witnesses' score clears the span model's threshold (0 for the prosecutor's words)."""

    start: int
    """Offset in the examination's answer."""
    text: str
    sentence: int
    charge: int
    """The charge it is tried under: its sentence's among the charged ones, or a number after theirs."""
    named_by: tuple[str, ...]
    margin: float
    score: float
    """The witnesses' P(hallucinated) of it (0.5 for the prosecutor's words)."""
    context_sentence: int | None = None


JUDGE_CLIP = 4.0
"""The judge's calibrated log-odds are clipped to this (P 0.018 to 0.982): a ruling calibrated against a near-certain
ruling on content-free words would otherwise outweigh any testimony."""


def _logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))


def try_count(bench: Bench, case: Case, examination: Examination, count: Count, transcript: Transcript) -> Step:
    """The defence and the ruling over one count; the span convicted, or None."""
    reading, charge = examination.reading, count.charge
    cited, verified = yield from _defend(bench, case, examination, count.text, count.sentence, charge, transcript,
                                         _quotes(examination, count.sentence, count.text))
    info = {"purpose": "verdict", "role": "judge", "node": "bench", "charge": charge, "round": 1}
    said, free = yield [Call(_ruling_request(examination, count.sentence, count.text, cited, verified, case), **info),
                        Call(_ruling_request(examination, count.sentence, CONTENT_FREE, cited, verified, case), **info)]
    said.unwrap(), free.unwrap()
    probs = _calibrated(dict(said.option_probs or {}), dict(free.option_probs or {}))
    judge = min(max(_logit(probs.get("hallucinated", 0.5)), -JUDGE_CLIP), JUDGE_CLIP)
    convicted = not verified and count.margin + judge >= 0.0
    score = 1 / (1 + math.exp(-(_logit(count.score) + judge)))
    transcript.add(MoveEvent, charge=charge, round=1, node="bench", role="judge", persona=bench.persona("judge").name,
                   move="rule", payload={"words": count.text}, choice_probs=probs,
                   finding=("acquitted: the defence's quote, verified, holds the words" if verified else
                            f"calibrated P(hallucinated) = {1 / (1 + math.exp(-judge)):.2f}, with the witnesses' "
                            f"{count.score:.2f}: {'convicted' if convicted else 'acquitted'}"))
    if not convicted:
        return None
    return HallucinatedSpan(start=count.start + reading.offset, end=count.start + len(count.text) + reading.offset,
                            text=count.text, score=round(score, 4), named_by=[*count.named_by, "judge"],
                            verified=True if "prosecutor" in count.named_by else None,
                            context_sentence=cited or count.context_sentence)


def _locate(examination: Examination, words: str, sentence: int) -> int:
    """Where named words are in the examination's answer: from their sentence on, else anywhere."""
    answer = examination.reading.answer
    at = answer.find(words, examination.reading.sentences[sentence][0])
    return at if at >= 0 else answer.find(words)


def _sentence_of(examination: Examination, at: int) -> int:
    """The index of the answer sentence holding character `at` of the examination's answer."""
    return next((i for i, (a, b) in enumerate(examination.reading.sentences) if a <= at < b), 0)


def _counts(bench: Bench, examination: Examination, spans: list[HallucinatedSpan], sentences: list[int]) -> list[Count]:
    """The witnesses' strongest spans as counts, each under its sentence's charge (or one after the charged ones)."""
    reading = examination.reading
    model = bench.ruling.spans if bench.ruling is not None else None
    threshold = model.threshold if model is not None else 0.5
    extra: dict[int, int] = {}
    counts = []
    for s in spans[:COUNTS]:
        at = s.start - reading.offset
        sentence = _sentence_of(examination, at)
        charge = sentences.index(sentence) if sentence in sentences else \
            extra.setdefault(sentence, len(sentences) + len(extra))
        # every word of a span cleared the threshold (its score is rounded: the margin is never below 0)
        counts.append(Count(start=at, text=s.text, sentence=sentence, charge=charge, named_by=tuple(s.named_by),
                            margin=max(_logit(s.score) - _logit(threshold), 0.0), score=s.score,
                            context_sentence=s.context_sentence))
    return counts


def spans_trial(bench: Bench, case: Case, examination: Examination, spans: list[HallucinatedSpan],
                sentences: list[int], transcript: Transcript) -> Step:
    """`trial_charges: spans`: the witnesses' strongest spans tried, and the prosecutor's words where they found
    none; the spans beyond the strongest stand untried."""
    counts = _counts(bench, examination, spans, sentences)
    bare = list(dict.fromkeys(s for s in sentences if s not in {c.sentence for c in counts}))
    prosecuted = yield from gather([_prosecute(bench, case, examination, spans, s, sentences.index(s), transcript)
                                    for s in bare])
    for sentence, named in zip(bare, prosecuted):
        if named is None or not named[1]:
            continue
        counts.append(Count(start=named[2], text=named[0], sentence=sentence, charge=sentences.index(sentence),
                            named_by=("prosecutor",), margin=0.0, score=0.5))
    found = yield from gather([try_count(bench, case, examination, c, transcript) for c in counts])
    offset = examination.reading.offset
    tried = [(c.start + offset, c.start + offset + len(c.text)) for c in counts]
    untried = [rest for s in spans[COUNTS:] for rest in _untried_rest(s, tried, case.answer)]
    return sorted([*(s for s in found if s is not None), *untried], key=lambda s: -s.score)


def _untried_rest(span: HallucinatedSpan, tried: list[tuple[int, int]], answer: str) -> list[HallucinatedSpan]:
    """An untried span without the words the trial ruled on (the prosecutor may name some of its words): what the
    trial decided of them stands, the rest stands untried."""
    pieces = [(span.start, span.end)]
    for a, b in tried:
        pieces = [(x, y) for p, q in pieces for x, y in ((p, min(q, a)), (max(p, b), q)) if x < y]
    if pieces == [(span.start, span.end)]:
        return [span]
    rest = []
    for p, q in pieces:
        if (word := re.search(r"\w(?:.*\w)?", answer[p:q], re.S)) is not None:
            rest.append(span.model_copy(update={"start": p + word.start(), "end": p + word.end(),
                                                "text": word.group()}))
    return rest


def _ask(bench: Bench, case: Case, task: str, options: tuple[str, ...], info: dict[str, object]) -> Step:
    """A scored choice after the case's opening; every option's probability."""
    persona = bench.persona(str(info["role"]))
    [response] = yield [Call(_choice(case_messages(bench, case, task), options, case), purpose="payload",
                             persona=persona.name, **info)]  # type: ignore[arg-type]
    response.unwrap()
    return dict(response.option_probs or {})


def span_trial(bench: Bench, case: Case, examination: Examination, spans: list[HallucinatedSpan],
               sentences: list[int], transcript: Transcript) -> Step:
    """The span trials of the charged sentences (by their index among the answer's sentences), side by side; the
    spans convicted, strongest first."""
    witnesses = bench.spec.witnesses
    if witnesses is not None and witnesses.trial_charges == "spans":
        return (yield from spans_trial(bench, case, examination, spans, sentences, transcript))
    found = yield from gather([try_span(bench, case, examination, spans, s, n, transcript)
                               for n, s in enumerate(sentences)])
    return sorted((s for s in found if s is not None), key=lambda s: -s.score)
