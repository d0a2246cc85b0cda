"""Attack (#50): the task family, by which a ruling picks its weights, was read off words anywhere in the question: a
question about "summary judgment" was a summarisation case and two "user:"/"system:" words made a dialogue, so the
shipped SmolLM2 ruling weighed a QA case by its summary weights. A summarisation request is now recognised by the
question's form (it asks to summarise), a dialogue by speaker turns at the start of lines (or HaluEval's bracketed
turns), and a dataset's `task` field decides when given. Each test fails on 0abab8c."""

from __future__ import annotations

import pytest

from courtroom.case import Case
from courtroom.witness.family import task_family
from courtroom.witness.ruling import FittedRuling
from tests.helpers.rulings import shipped_ruling


def family(question: str, context: str = "The court granted the motion.", **metadata: object) -> str:
    return task_family(Case(id="c", question=question, context=[context], answer="a", metadata=metadata))


@pytest.mark.parametrize("question", [
    "Did the court grant the motion for summary judgment?",
    "What is the standard for summary judgment in this district?",
    "Summary judgment: on what ground was it granted?",
    "How was the case summarized by the appeals court?",
    "Which executive summary figure rose most in 2021?",
])
def test_a_question_that_mentions_a_summary_is_no_summarisation(question: str) -> None:
    assert family(question) == "qa"


@pytest.mark.parametrize("question", [
    "Summarize the following news within 77 words:",
    "Please summarise this.",
    "Instruction:\nSummarize the report in three sentences.",
    "Write a summary of the article.",
    "Give me a short summary of the findings.",
    "What is the summary of this report?",
    "Here is a report. Can you summarize it?",
    "Based on the passage, what is the summary of the findings?",
    "Summary:",
    "TL;DR",
])
def test_a_request_to_summarise_is_a_summarisation(question: str) -> None:
    assert family(question) == "summary"


@pytest.mark.parametrize("question", [
    "The user: field and the system: field of the log differ; which one names the admin?",
    "What did the user ask the system: where is it?",
    "System: You are a careful assistant.\nUser: What time does it open?",  # one question in chat form
    "User: hi\nUser: What time does it open?",  # one speaker
])
def test_speaker_words_that_are_no_turns_of_two_speakers_are_no_dialogue(question: str) -> None:
    assert family(question) == "qa"


@pytest.mark.parametrize("question", [
    "User: hi\nAssistant: hello, how can I help?\nUser: What time does it open?",
    "  human: is it open?\n  assistant: yes\n  human: until when?",
    "[Human]: Who directed it? [Assistant]: Andrew Niccol. [Human]: What else did he write?",  # HaluEval's turns
])
def test_turns_of_two_speakers_are_a_dialogue(question: str) -> None:
    assert family(question) == "dialogue"


def test_the_datasets_task_decides_when_given() -> None:
    assert family("Did the court grant the motion for summary judgment?", task="summarization") == "summary"
    assert family("Summarize the ruling.", task="QA") == "qa"
    assert family("User: hi\nAssistant: hello\nUser: when?", task="qa") == "qa"


def test_the_shipped_ruling_weighs_a_summary_judgment_question_by_its_qa_weights() -> None:
    ruling = FittedRuling.model_validate(shipped_ruling())
    used, _ = ruling.family_for(family("Did the court grant the motion for summary judgment?"))
    assert used != "summary" and used == ruling.family_for("qa")[0]
