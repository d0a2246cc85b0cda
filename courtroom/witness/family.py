"""The task family of a case, by which a fitted ruling picks its weights: `qa`, `summary`, `data2text` or `dialogue`;
given by the dataset (a `task` field in the case's metadata) or read off the question (a dialogue's turns, a request
to summarise) and the shape of the context."""

from __future__ import annotations

import re

from courtroom.case import Case

_SUMMARY = re.compile(r"\bsummar(?:y|ise|ize|ising|izing)\b", re.IGNORECASE)
_DESCRIBE = re.compile(r"\b(?:overview|describe|description|write|structured data|json)\b", re.IGNORECASE)
_ALIASES = {"qa": "qa", "question answering": "qa", "summary": "summary", "summarization": "summary",
            "summarisation": "summary", "data2text": "data2text", "data2txt": "data2text", "data-to-text": "data2text",
            "dialogue": "dialogue", "dialog": "dialogue", "chat": "dialogue"}
_TURN = re.compile(r"(?:^|\s)\[?(?:human|user|assistant|system)\]?:", re.IGNORECASE)
"""A speaker's turn in a dialogue written into the question ("[Human]: ...", "User: ...")."""


def task_family(case: Case) -> str:
    """`qa`, `summary`, `data2text` or `dialogue` (see the module's rules)."""
    given = case.metadata.get("task")
    if isinstance(given, str) and given.strip().lower() in _ALIASES:
        return _ALIASES[given.strip().lower()]
    if len(_TURN.findall(case.question)) >= 2:
        return "dialogue"
    if _SUMMARY.search(case.question):
        return "summary"
    context = "\n".join(case.context).lstrip()
    if _DESCRIBE.search(case.question) and (context[:1] in "{[" or context.count(":") >= 5):
        return "data2text"
    return "qa"
