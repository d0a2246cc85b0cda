"""The ground floor: how courtroom reads text, each meaning written once: `sentences`, `words` (content words, stemming,
a case's vocabulary), `numbers` (one grammar of written numbers), `negation` (cues and their scope) and `quotes`.
Nothing here imports the rest of courtroom."""
