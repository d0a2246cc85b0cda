"""Runs judged on a scripted court, and their result rows compared."""

from __future__ import annotations

import json
from pathlib import Path

from courtroom.door import ScriptedBackend
from courtroom.runs.runners import LocalRunner
from tests.helpers.court_script import CourtScript

VOLATILE = {"seconds"}


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
