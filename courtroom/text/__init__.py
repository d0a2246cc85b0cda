"""The ground floor: how courtroom reads text, each meaning written once and used by every reader of words.

- `sentences`: a context or an answer cut into the statements the court cites and charges, with their positions;
- `words`: content words, stop words and stemming, and the vocabulary of a case's sources;
- `numbers`: ONE grammar of written numbers (value, unit, scale, written precision);
- `negation`: ONE meaning of negation, with its scope (the words a negation reaches);
- `quotes`: matching a quote against a text (normalised, or by its content words).

Nothing here knows of cases, courts or models; nothing here imports the rest of courtroom.
"""
