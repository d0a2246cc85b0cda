"""The court as a metric inside evaluation tools, one module per tool (`opik`, `deepeval`, `ragas`; each
imports its tool, installed by `pip install "courtroom[opik]"` and so on). Every adapter reports the judge's
`Score` (`courtroom.engine.metric`): P(hallucinated), lower is better."""
