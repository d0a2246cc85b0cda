"""A move's text written by the court from its checked pieces (`trial.texts: composed`): the prosecution
quotes the answer and the sentence it cites, the defence the sentence that states the charge, the judge the
side its ruling took and that side's quote. Each role's text is its own by construction, and nothing is
decoded."""

from __future__ import annotations

from courtroom.case import Verdict
from courtroom.court.procedure import EdgeSpec
from courtroom.engine.events import Grounds

FIELDS = {"argument": "argument", "reason": "reason", "ruling": "reason", "question": "question",
          "testimony": "answer", "note": "note"}
"""The text field of each registered payload (`none` has none)."""
SIDE_OF_VERDICT = {Verdict.HALLUCINATED: "prosecution", Verdict.SUPPORTED: "defence"}


def side(role: str, edge: EdgeSpec) -> str | None:
    """Whose pieces a side's move rests on: its own, or its opponent's where it gives up (a withdrawal rests
    on the defence's, a concession on the prosecution's); None for a role that takes no side."""
    if role == "prosecutor":
        return "defence" if edge.to == "acquit" else "prosecution"
    if role == "defender":
        return "prosecution" if edge.to == "convict" else "defence"
    return None


def _words(quote: str) -> str:
    return quote.rstrip(" .!?;:,")


def prosecution_says(grounds: Grounds, hidden: bool = False) -> str:
    """The prosecution's case, from its pieces: the answer's words, and what the cited sentence says (or
    none)."""
    said = f"the answer says '{_words(grounds.answer.text)}'" if grounds.answer else "the answer says it"
    if grounds.sentence is None:
        return f"{said}, and no sentence of the context speaks to it"
    if hidden or grounds.passage is None:
        return f"{said}, against sentence {grounds.sentence}"
    return f"{said}, and sentence {grounds.sentence} says '{_words(grounds.passage.text)}'"


def defence_says(grounds: Grounds, hidden: bool = False) -> str:
    """The defence's case, from its pieces: the sentence that states the charge, in its own words (or
    none)."""
    if grounds.sentence is None:
        return "no single sentence of the context states it"
    if hidden or grounds.passage is None:
        return f"sentence {grounds.sentence} states it"
    return f"sentence {grounds.sentence} states it: '{_words(grounds.passage.text)}'"


def says(side: str, grounds: Grounds, hidden: bool = False) -> str:
    return (prosecution_says if side == "prosecution" else defence_says)(grounds, hidden)


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + ("" if text.endswith(("?", ".")) else ".")


def compose(edge: EdgeSpec, role: str, grounds: Grounds | None, verdict: Verdict | None = None,
            hidden: bool = False) -> str:
    """The text of `role`'s move along `edge`, from `grounds` (and, for a ruling, its `verdict`); `hidden`: as
    a judge who reads no context sees it (a cited sentence by its number alone)."""
    if edge.payload == "ruling" and verdict is not None:
        taken = SIDE_OF_VERDICT[verdict]
        return _sentence(f"{verdict.value}, with the {taken}: " + (says(taken, grounds, hidden)
                                                                   if grounds else
                                                                  "nothing was cited"))
    if edge.payload == "note" or grounds is None or (taken := side(role, edge)) is None:
        return _sentence(f"the {role} chooses to {edge.move.replace('_', ' ')}: {edge.description}")
    if edge.payload == "question":
        quoted = f"'{_words(grounds.answer.text)}'" if grounds.answer else "the charged statement"
        return f"Which sentence of the context states {quoted}?"
    given_up = {"acquit": "the prosecution withdraws the charge: ",
                "convict": "the defence concedes the charge: "}
    rests = (f"the {'prosecution' if role == 'prosecutor' else 'defence'} rests: "
             if edge.payload == "reason" else "")
    opening = given_up.get(edge.to, rests)
    return _sentence(opening + says(taken, grounds, hidden))
