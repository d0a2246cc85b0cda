"""Every model call of a case as a reviewer reads it, for `courtroom audit show --calls` and the report."""

from __future__ import annotations

import os.path
from collections.abc import Sequence
from dataclasses import dataclass

from courtroom.engine.events import Event, ModelCallEvent, PromptEvent


@dataclass(frozen=True)
class CallView:
    """One model call of a case."""

    number: int
    purpose: str
    speaker: str
    where: str
    """Charge and round, when the call belongs to a trial."""
    role: str | None
    charge: int | None
    round: int | None
    constraint: str
    messages: tuple[tuple[str, str, int], ...]
    """(role, text, shared) of each message: `shared` leading characters are the case's opening, for a view to
    fold."""
    raw: str
    option_probs: dict[str, float] | None
    prompt_tokens: int
    reused_tokens: int
    completion_tokens: int
    seconds: float
    error: str | None


def _common_prefix(a: str, b: str) -> int:
    i = len(os.path.commonprefix([a, b]))
    return a.rfind("\n", 0, i) + 1 if i < min(len(a), len(b)) else i  # fold whole lines


def call_views(events: Sequence[Event]) -> list[CallView]:
    """The case's model calls in order, with their prompts rebuilt from the transcript."""
    prompts = {e.hash: e for e in events if isinstance(e, PromptEvent)}
    calls = [e for e in events if isinstance(e, ModelCallEvent)]
    opening = next((prompts[h].content for c in calls for h in c.messages if prompts[h].role == "user"), "")
    views = []
    for number, call in enumerate(calls, start=1):
        messages = []
        for h in call.messages:
            prompt = prompts[h]
            shared = _common_prefix(opening, prompt.content) if prompt.role == "user" and number > 1 else 0
            messages.append((prompt.role, prompt.content, shared if shared > 200 else 0))
        kind = ("scoring (the text's likelihood, nothing generated)" if call.purpose in ("ground", "read")
                else f"{call.output_type} (constraint {call.schema_key})"
                if call.constrained else "free text")
        where = ", ".join(part for part in (f"charge {call.charge + 1}" if call.charge is not None else "",
                                            f"round {call.round}" if call.round else "") if part)
        speaker = " ".join(part for part in (call.role or "", f"({call.persona})" if call.persona else "")
                           if part)
        views.append(CallView(number, call.purpose, speaker or "-", where, call.role, call.charge, call.round,
                              kind, tuple(messages), call.raw,
                              call.option_probs, call.prompt_tokens, call.cached_prompt_tokens,
                              call.completion_tokens, call.seconds, call.error))
    return views


def folded(text: str, shared: int) -> str:
    """A message with its shared opening replaced by a note of its length."""
    if not shared:
        return text
    return (f"[... {shared:,} characters shared by every prompt of the case ...]\n"
            + text[shared:].lstrip("\n"))
