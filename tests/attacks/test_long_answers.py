"""Attack 13 (#30): an answer of thousands of sentences. Reading each sentence's tokens off the whole answer walked
every token once per sentence (8,000 sentences: 27 s of CPU). Now a sentence's tokens are found by binary search:
the tokens visited grow with the answer, not with its square. Counted, not timed."""

from __future__ import annotations

from courtroom.clerk.grounding import TokenScores


class CountingSpans(tuple):
    """Token spans that count how many of them are looked at (by index or by iteration)."""

    seen = 0

    def __getitem__(self, index):  # noqa: ANN001, ANN204
        CountingSpans.seen += 1
        return super().__getitem__(index)

    def __iter__(self):  # noqa: ANN204
        for item in super().__iter__():
            CountingSpans.seen += 1
            yield item


def test_reading_every_sentence_of_a_long_answer_visits_each_token_a_few_times() -> None:
    sentences, tokens_per = 4000, 6
    spans = CountingSpans((i * 5, i * 5 + 4) for i in range(sentences * tokens_per))
    scores = TokenScores(tuple(-0.1 for _ in spans), spans)
    width = tokens_per * 5
    CountingSpans.seen = 0
    read = [scores.within(s * width, (s + 1) * width) for s in range(sentences)]
    assert all(len(r) == tokens_per for r in read)
    assert CountingSpans.seen < 10 * len(spans), f"{CountingSpans.seen} token spans looked at for {len(spans)} tokens"
