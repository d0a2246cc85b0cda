"""Golden transcripts: every shipped court and baseline, on the pseudo-model, event for event.

Each variant judges the same example cases with `ScriptedBackend(PseudoModel())` and its events are
compared with the committed `data/<variant>.jsonl` (event numbers, times and tracebacks left out).
A change of any prompt byte, move, ruling, score or verdict shows here as the first differing line. A
change meant to alter behaviour regenerates them: `COURTROOM_UPDATE_GOLDEN=1 pytest tests/golden`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from courtroom.engine.registry import upgrade_config
from tests.helpers.golden import VARIANTS, golden_lines

DATA = Path(__file__).parent / "data"


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_golden_transcript(name: str) -> None:
    lines = golden_lines(VARIANTS[name], name)
    path = DATA / f"{name}.jsonl"
    if os.environ.get("COURTROOM_UPDATE_GOLDEN"):
        DATA.mkdir(exist_ok=True)
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    expected = path.read_text(encoding="utf-8").splitlines()
    for number, (want, got) in enumerate(zip(expected, lines), start=1):
        if want != got:
            pytest.fail(f"{path.name}:{number} differs\n{_first_difference(json.loads(want), json.loads(got))}")
    assert len(lines) == len(expected), f"{path.name}: {len(expected)} events recorded, {len(lines)} now"


def _first_difference(want: object, got: object, where: str = "") -> str:
    if isinstance(want, dict) and isinstance(got, dict):
        for key in sorted(set(want) | set(got)):
            if want.get(key) != got.get(key):
                return _first_difference(want.get(key), got.get(key), f"{where}.{key}")
    if isinstance(want, list) and isinstance(got, list) and len(want) == len(got):
        for i, (a, b) in enumerate(zip(want, got)):
            if a != b:
                return _first_difference(a, b, f"{where}[{i}]")
    return f"at {where or '<event>'}:\n  recorded: {want!r}\n  now:      {got!r}"




FORMAT_1 = Path(__file__).parent / "format1"


@pytest.mark.parametrize("name", sorted(p.stem for p in FORMAT_1.glob("*.jsonl")))
def test_a_judge_of_prompt_format_1_still_writes_the_transcripts_of_0_1(name: str) -> None:
    """Runs recorded before the per-case fence replay: a judge rebuilt at prompt format 1 asks exactly what they
    asked, prompt for prompt and call for call (these goldens were recorded by 0.1; its trials are retired, their
    payload texts cut at a character count: `courtroom.courts.migrations`)."""

    def at_format_1(backend):  # noqa: ANN001, ANN202
        judge = VARIANTS[name](backend)
        config = {**judge.config(), "prompt_format": 1}
        if "court" in config:  # 0.1 recorded no sentence splitter either: the migration gives the first one
            config["court"] = {k: v for k, v in config["court"].items() if k != "sentences"}
        config, _ = upgrade_config(config)
        rebuilt = type(judge).from_config(config, backend)
        rebuilt.window = judge.window
        if hasattr(judge, "spec"):
            assert rebuilt.spec.sentences == "regex"
            rebuilt.spec = judge.spec.model_copy(update={"sentences": rebuilt.spec.sentences, "trial": rebuilt.spec.trial})
        return rebuilt

    def asked(lines: list[str]) -> list[dict]:
        """What was asked of the model: the prompts and each call's request (the decisions' wording may change)."""
        events = [json.loads(line) for line in lines]
        keep = ("hash", "role", "content", "messages", "output_type", "schema_key", "sampling", "purpose", "raw")
        return [{k: e[k] for k in keep if k in e} for e in events if e["event"] in ("prompt", "model_call")]

    expected = asked((FORMAT_1 / f"{name}.jsonl").read_text().splitlines())
    assert asked(golden_lines(at_format_1)) == expected
