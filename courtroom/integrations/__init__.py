"""The court as a metric inside the evaluation tools people already use, one module per tool:
`courtroom.integrations.opik`, `.deepeval` and `.ragas` (each imports its tool; install it with
`pip install "courtroom[opik]"`, `[deepeval]` or `[ragas]`). This package itself imports none of them.

Every adapter reports the court's `Score` (`courtroom.engine.metric`): the value is P(hallucinated), lower is
better, and success is the court's verdict at its own threshold for its model unless a threshold is given.
"""
