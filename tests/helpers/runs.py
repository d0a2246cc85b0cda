"""Runs judged without a model (the pseudo-model, a scripted court), the labelled data they judge, and their result
rows compared."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.log.manifest import RunSpec
from courtroom.runs.runners import LocalRunner
from courtroom.runs.start import start_run
from tests.helpers.cases import NO_RULING_MODEL
from tests.helpers.court_script import CourtScript

VOLATILE = {"seconds"}
TOWNS = ["Arden", "Brill", "Corve", "Dunmore", "Elsby", "Fenwick", "Garth", "Hollin", "Ivel", "Jessop", "Kelby",
         "Lorne"]
"""The towns of a labelled file (`labelled`): 24 cases, a ruling's usual first fit."""


def scripted_runner() -> LocalRunner:
    script = CourtScript(charges={}, moves={"prosecutor": ["argue"], "defender": ["rebut"], "judge": ["rule"]},
                         p_hallucinated=0.7)

    def answer(request):
        if request.spec.name == "Indictment":
            # charge a word of the answer for odd-numbered cases only
            answer_text = request.messages[0].content.split("=" * 12)[1].strip()
            n = sum(map(ord, answer_text))
            return {"charges": [{"quote": answer_text.split()[0], "reason": "r"}] if n % 2 else []}
        return script(request)

    return LocalRunner(ScriptedBackend(answer))


def rows_of(path: Path) -> list[dict]:
    rows = [json.loads(line) for line in (path / "results.jsonl").read_text().splitlines()]
    return sorted(({k: v for k, v in r.items() if k not in VOLATILE} for r in rows), key=lambda r: r["case_id"])


def labelled(path: Path, towns: list[str] = TOWNS, fails: int | None = None) -> Path:
    """A labelled file: every town's population; the faithful answer gives the context's figure, the hallucinated
    one a figure the context never states (and no step of arithmetic gives)."""
    rows = []
    for i, town in enumerate(towns):
        population = 1000 + 137 * (i + 3)
        context = f"The town of {town} had a population of {population:,} in the last census. Its market is on Tuesdays."
        question = f"What was the population of {town}?"
        rows.append({"id": f"{town}-pass", "source": "towns", "question": question, "context": [context],
                     "answer": f"The population of {town} was {population:,}.", "label": "PASS"})
        if fails is None or i < fails:
            rows.append({"id": f"{town}-fail", "source": "towns", "question": question, "context": [context],
                         "answer": f"The population of {town} was {population + 4321:,}.", "label": "FAIL"})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def judged(data: Path, out: Path) -> Path:
    """The default court's run of the file on the pseudo-model (no ruling fitted for it: the measure decides)."""
    run = start_run(RunSpec.build(str(data), judge="courtroom", court="default", model=NO_RULING_MODEL), out)
    run.execute(runner=LocalRunner(ScriptedBackend(PseudoModel(), model="default")))
    run.close()
    return out


def pseudo_run(rows: list[dict[str, Any]], dataset: Path, out: Path) -> Path:
    """Write `rows` to `dataset` (JSON Lines) and judge them with the default court on the pseudo-model into `out` (under
    a model name no ruling is fitted for: the measurement decides)."""
    dataset.write_text("".join(json.dumps(r) + "\n" for r in rows))
    run = start_run(RunSpec.build(str(dataset), judge="courtroom", window=5, model=NO_RULING_MODEL), out)
    run.execute(runner=LocalRunner(ScriptedBackend(PseudoModel())))
    run.close()
    return out


def court_run(out: Path, p_hallucinated: float, grounding: float) -> Path:
    """A run of the full court on the examples, scripted: its measurement finds the charged statements grounded as
    `grounding` says, and its judge rules them hallucinated with `p_hallucinated`."""
    script = CourtScript(suspect={str(d): 0.8 for d in range(10)}, grounding={str(d): grounding for d in range(10)},
                         word_grounding={str(d): grounding - 1 for d in range(10)},
                         moves={"prosecutor": ["argue"], "defender": ["rebut"], "judge": ["rule"]},
                         p_hallucinated=p_hallucinated)
    options = {"overrides": {"trial.exchange_rounds": 0}}  # the prosecutor chooses its first move: a move call to show
    start_run(RunSpec.build("examples", judge="courtroom", court="full", window=4, judge_options=options), out).execute(
        runner=LocalRunner(ScriptedBackend(script)))
    return out
