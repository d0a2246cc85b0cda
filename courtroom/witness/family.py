"""The task family of a case, by which a fitted ruling picks its weights: given by the dataset (a `task`
field) or read off the question and the context (docs/witnesses.md)."""

from __future__ import annotations

import re

from courtroom.case import Case

_SUMMARY = re.compile(
    r"(?:^|[.!?:;,]\s)\s*(?:(?:please|kindly|(?:can|could|would) "
    r"you)\s+)?(?:summari[sz]e\b|(?:write|give|provide|produce|create|generate|what "
    r"is|what's)(?:\s+me)?\s+(?:a|an|the)\s+(?:[\w-]+\s+){0,2}?summary\b"
    r"(?=\s*(?:(?:of|for|about|in)\b|[:.,!?]|$)))|\A\s*(?:summary|tl;?\s*dr)\s*:?\s*\Z",
    re.IGNORECASE | re.MULTILINE)
"""A request to summarise: "Summarize ...", "Please summarise ...", "Write a short summary of ...", "What is
the summary of ...", at the start of the question, a line, a sentence or a clause; or "Summary:" (or "TL;DR")
as the whole of it. The word elsewhere ("the motion for summary judgment") asks for none."""
_DESCRIBE = re.compile(r"\b(?:overview|describe|description|write|structured data|json)\b", re.IGNORECASE)
_ALIASES = {"qa": "qa", "question answering": "qa", "summary": "summary", "summarization": "summary",
            "summarisation": "summary", "data2text": "data2text", "data2txt": "data2text",
            "data-to-text": "data2text", "dialogue": "dialogue", "dialog": "dialogue", "chat": "dialogue"}
_TURN = re.compile(r"(?:^[ \t]*\[?|\[)(human|user|assistant)\]?:", re.IGNORECASE | re.MULTILINE)
"""A speaker's turn in a dialogue written into the question: at the start of a line ("User: ..."), or
bracketed anywhere, as HaluEval writes a dialogue on one line ("[Human]: ... [Assistant]: ..."). A dialogue
has turns of both sides, the person's and the assistant's; a system prompt is no turn."""


def task_family(case: Case) -> str:
    """`qa`, `summary`, `data2text` or `dialogue` (see the module's rules)."""
    given = case.metadata.get("task")
    if isinstance(given, str) and given.strip().lower() in _ALIASES:
        return _ALIASES[given.strip().lower()]
    if {speaker.lower() == "assistant" for speaker in _TURN.findall(case.question)} == {True, False}:
        return "dialogue"
    if _SUMMARY.search(case.question):
        return "summary"
    context = "\n".join(case.context).lstrip()
    if _DESCRIBE.search(case.question) and (context[:1] in "{[" or context.count(":") >= 5):
        return "data2text"
    return "qa"
