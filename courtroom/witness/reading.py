"""What the court read of a case for its witnesses: the answer's sentences and what the model's passes
gave."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from courtroom.case import Case, Pointer
from courtroom.door.observe import TokenIndex
from courtroom.witness.spans import Word, sentence_locator, words


@dataclass(frozen=True)
class Reading:
    """A case as the witnesses see it. Character positions are in `answer` (the case's answer without its
    leading and trailing blanks); a pointer adds `offset` to stand in the case's own answer."""

    case: Case
    answer: str
    offset: int
    sentences: tuple[tuple[int, int], ...]
    """Each answer sentence's span in `answer`, in order."""
    context_sentences: tuple[str, ...]
    """The context's sentences as the court numbers them (from 1)."""
    token_spans: tuple[tuple[int, int], ...] | None = None
    full: tuple[float, ...] | None = None
    """Each answer token's log-probability after the context and question."""
    bare: tuple[float, ...] | None = None
    """The same after the question alone."""
    lookback: tuple[tuple[float, ...], ...] | None = None
    """Per sentence, then the whole answer (last): attention to the prompt per layer and head, flattened."""
    token_lookback: tuple[float, ...] | None = None
    hidden: tuple[tuple[float, ...], ...] | None = None
    """Per sentence, then the whole answer (last): the mean hidden state at the court's depth."""
    word_hidden: tuple[tuple[float, ...], ...] | None = None
    """Per word of the answer (`witness.spans.words`), the mean hidden state at the court's depth, when the
    court asked for them (`witnesses.word_states`)."""
    word_projection: tuple[str, tuple[float, ...]] | None = None
    """Instead of the words' states, when the court's word probe asked the door to project them
    (`Observation.project_words`): the direction's fingerprint, and per word its state projected onto it."""
    says_yes: float | None = None
    """The model's P(yes) when asked the case's yes/no question after the context, when it was asked."""
    unheard: dict[str, str] = field(default_factory=dict)
    """What the court could not ask the model for, and why (`attention`: "the served backend ...")."""

    @classmethod
    def of(cls, case: Case, sentences: Sequence[tuple[int, int]], context_sentences: Sequence[str],
           **passes: object) -> Reading:
        """A reading of `case` whose stripped answer is cut into `sentences`
        (`text.sentences.sentence_spans`)."""
        answer = case.answer.strip()
        return cls(case, answer, case.answer.find(answer), tuple(sentences), tuple(context_sentences),
                   **passes)

    def tokens(self, start: int, end: int) -> list[int]:
        """The answer tokens over characters [start, end)."""
        return self.token_index.within(start, end)

    @cached_property
    def token_index(self) -> TokenIndex:
        """The answer's token spans, ready for range queries (built once)."""
        return TokenIndex(self.token_spans or ())

    @cached_property
    def words(self) -> list[Word]:
        """The answer's words (`witness.spans.words`), each in its sentence: what `word_hidden` gives a state
        for."""
        return words(self.answer, self.sentences)

    def pointer(self, start: int, end: int, note: str, weight: float = 0.0,
                context_sentence: int | None = None) -> Pointer:
        """A pointer at characters [start, end) of `answer`, placed in the case's own answer."""
        return Pointer(start=start + self.offset, end=end + self.offset, note=note, weight=round(weight, 4),
                       context_sentence=context_sentence)

    def sentence_of(self, start: int) -> int:
        """The index of the sentence holding character `start` (the last one that starts at or before it)."""
        return self._locate(start)

    @cached_property
    def _locate(self) -> Callable[[int], int]:
        return sentence_locator(self.sentences)
