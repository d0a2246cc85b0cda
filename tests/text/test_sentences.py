"""Sentences that are sentences (#22.4): the structured splitter on JSON, tables, lists, lines and hard prose; the
court's `sentences` setting (YAML, validation, recorded configuration); runs recorded before the setting replay
with the first splitter, prompt for prompt; and the court, its prompts and the audit number sentences alike."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError
from rich.console import Console

from courtroom.case import Case
from courtroom.casefile import context_sentences, render_numbered_context
from courtroom.clerk import ClerkSpec
from courtroom.court import with_overrides
from courtroom.courts import court_from_config, courts_dir, load_court
from courtroom.door import ScriptedBackend
from courtroom.door.pseudo import PseudoModel
from courtroom.engine.registry import upgrade_config
from courtroom.errors import CourtError
from courtroom.log.audit import Audit
from courtroom.log.manifest import RunSpec
from courtroom.log.rejudge import rejudge_run, rejudged_judge
from courtroom.log.store import RunStore
from courtroom.log.verify import verify
from courtroom.report.record import court_record
from courtroom.runs.runners import LocalRunner
from courtroom.runs.start import start_run
from courtroom.text.sentences import split

BEFORE = Path(__file__).parents[1] / "golden" / "before_sentences"
"""Five cases with structured contexts and a court run of them on the pseudo-model, recorded at 114c1ee, before the
`sentences` setting existed (so by the regex splitter). Not to be regenerated: it is the record of what was asked."""
JSON_CASE = "structured-json-business"


def structured(text: str) -> list[str]:
    return list(split(text, "structured"))


# -- the structured splitter ----------------------------------------------------------------------------
def test_a_python_literal_record_is_one_sentence_per_field_and_per_record() -> None:
    text = ("\n{'name': 'Casa Verde', 'address': '12 W. Haley St.', 'hours': {'Friday': '17:0-22:0'}, "
            "'attributes': {'WiFi': 'free', 'Parking': {'street': True, 'lot': None}}, 'stars': 4.5, "
            "'reviews': [{'stars': 5.0, 'text': \"Best tacos. We'll be back!\"}, {'stars': 2.0, 'text': 'Slow.'}]}"
            "\nOverview:")
    assert structured(text) == [
        "name: Casa Verde", "address: 12 W. Haley St.", "hours: Friday: 17:0-22:0",
        "attributes: WiFi: free, Parking: (street: true, lot: null)", "stars: 4.5",
        "reviews: stars: 5.0, text: Best tacos. We'll be back!", "reviews: stars: 2.0, text: Slow.", "Overview:"]
    # the first splitter cut the same record at every period inside its strings
    assert split(text, "regex")[:2] == ("{'name': 'Casa Verde', 'address': '12 W.", "Haley St.', 'hours': {'Friday': "
                                        "'17:0-22:0'}, 'attributes': {'WiFi': 'free', 'Parking': {'street': True, "
                                        "'lot': None}}, 'stars': 4.5, 'reviews': [{'stars': 5.0, 'text': \"Best tacos.")


def test_json_arrays_of_records_and_pretty_printed_json() -> None:
    assert structured('[{"city": "Oslo", "pop": 709000}, {"city": "Bergen", "pop": 291000}]') == [
        "city: Oslo, pop: 709000", "city: Bergen, pop: 291000"]
    pretty = json.dumps({"title": "Report", "tags": ["a", "b"], "score": 0.5}, indent=2)
    assert structured(f"Data:\n{pretty}\nEnd of data.") == ["Data:", "title: Report", "tags: a, b", "score: 0.5",
                                                            "End of data."]


@pytest.mark.parametrize("text, expected", [
    ("[1] The first passage. It goes on.", ["[1] The first passage.", "It goes on."]),  # a citation, not JSON
    ("[Music] Welcome back. Today we cook.", ["[Music] Welcome back.", "Today we cook."]),
    ("{'name': 'unclosed, 'city': 'Oslo'", ["{'name': 'unclosed, 'city': 'Oslo'"]),  # no literal: text as it is
])
def test_brackets_that_are_not_data_stay_text(text: str, expected: list[str]) -> None:
    assert structured(text) == expected


def test_a_markdown_table_is_one_sentence_per_row_under_its_header() -> None:
    text = ("Quarterly results:\n\n| Quarter | Revenue | Margin |\n|---|---:|:--:|\n| Q1 2023 | 41.2 | 14% |\n"
            "| Q2 2023 | 38.0 | 11% |\n\nAfter the table.")
    assert structured(text) == ["Quarterly results:", "Quarter: Q1 2023; Revenue: 41.2; Margin: 14%",
                                "Quarter: Q2 2023; Revenue: 38.0; Margin: 11%", "After the table."]
    assert structured("| Oslo | 709000 |\n| Bergen | 291000 |") == ["Oslo | 709000", "Bergen | 291000"]  # no header
    # an answer's rows stay verbatim, so each can be found in the answer
    assert split("| Q1 | 41.2 |\n|---|---|\n| Q2 | 38.0 |", render=False) == ("| Q2 | 38.0 |",)


def test_list_items_are_sentences_with_their_markers() -> None:
    text = ("Drivers:\n- Higher component costs.\n- A weaker U.S. dollar.\n1. Shipping delays in Q2. They lasted six "
            "weeks.\n2.\nA one-off charge.\nSteps: 1. Mix the flour. 2. Add water.")
    assert structured(text) == ["Drivers:", "- Higher component costs.", "- A weaker U.S. dollar.",
                                "1. Shipping delays in Q2.", "They lasted six weeks.", "2. A one-off charge.",
                                "Steps: 1. Mix the flour.", "2. Add water."]
    assert split(text, "regex")[-4:] == ("Steps: 1.", "Mix the flour.", "2.", "Add water.")


def test_lines_are_sentences_and_figures_join_their_label() -> None:
    reviews = "Great coffee, friendly staff\nthe pastries were stale though\nWi-Fi is fast. Plenty of outlets.\n5 stars!!! Will return"
    assert structured(reviews) == ["Great coffee, friendly staff", "the pastries were stale though", "Wi-Fi is fast.",
                                   "Plenty of outlets.", "5 stars!!!", "Will return"]
    statement = "Balance sheet\nDecember 31,\n2022\n2021\nCash and cash equivalents\n$\n4,835 \n$\n2,535 \nInventories\n3,771 \n-\n"
    assert structured(statement) == ["Balance sheet", "December 31, 2022 2021", "Cash and cash equivalents $ 4,835 $ 2,535",
                                     "Inventories 3,771 -"]
    assert len(split(statement, "regex")) == 12  # every cell its own "sentence"


@pytest.mark.parametrize("text, expected", [
    ("Dr. J. R. Smith joined the U.S. Navy in 1998. He left in 2004.",
     ["Dr. J. R. Smith joined the U.S. Navy in 1998.", "He left in 2004."]),
    ("Revenue rose to $3.5 million, i.e. 12.5% more. See Fig. 2 and No. 5 for details.",
     ["Revenue rose to $3.5 million, i.e. 12.5% more.", "See Fig. 2 and No. 5 for details."]),
    ("Some fruits, e.g. apples, keep well. Smith et al. (2019) agree. It costs approx. 40 dollars.",
     ["Some fruits, e.g. apples, keep well.", "Smith et al. (2019) agree.", "It costs approx. 40 dollars."]),
    ('"We were lucky," said Ms. Ruiz. "The timing was right." Growth slowed after that... The firm grew again.',
     ['"We were lucky," said Ms. Ruiz.', '"The timing was right."', "Growth slowed after that...", "The firm grew again."]),
    ('Said Crowe: "Devastating news. He has passed on." Fans mourned.',
     ['Said Crowe: "Devastating news. He has passed on."', "Fans mourned."]),  # a quotation stays whole
    ("It is in Santa Barbara, CA. It opens at 5 p.m. The tower is in Manhattan.The bank is next to it.",
     ["It is in Santa Barbara, CA.", "It opens at 5 p.m.", "The tower is in Manhattan.", "The bank is next to it."]),
    ("Was it cold? Yes! She holds a Ph.D. from MIT. Mr. and Mrs. Lee moved on Dec. 31, 2019.",
     ["Was it cold?", "Yes!", "She holds a Ph.D. from MIT.", "Mr. and Mrs. Lee moved on Dec. 31, 2019."]),
])
def test_prose_is_cut_past_abbreviations_initials_decimals_and_quotes(text: str, expected: list[str]) -> None:
    assert structured(text) == expected
    assert list(split(text, "structured", render=False)) == expected


def test_the_first_splitter_is_kept_as_it_was() -> None:
    text = 'Dr. Smith joined the U.S. Navy. "The timing was right." Growth slowed.\nNext line'
    assert split(text, "regex") == ("Dr.", "Smith joined the U.S.", "Navy.", '"The timing was right.', "Growth slowed.",
                                    "Next line")


def test_answer_sentences_are_found_in_the_answer() -> None:
    texts = [case.answer for case in _before_cases()] + ["Total was\n$\n4,835.\n2.\nNext one. And (see Fig. 2). Done!"]
    for text in texts:
        for sentence in split(text, "structured", render=False):
            assert sentence in text


def test_the_splitter_is_deterministic_and_cached() -> None:
    text = "Dr. Lee came. " * 200 + "\n| a | b |\n|---|---|\n| 1 | 2 |\n" + "[1] not json.\n" * 500
    first = split.__wrapped__(text, "structured")
    assert first == split.__wrapped__(text, "structured") == split(text, "structured")
    assert split(text, "structured") is split(text, "structured")
    with pytest.raises(ValueError, match="unknown sentence splitter 'nltk'"):
        split.__wrapped__("x", "nltk")  # type: ignore[arg-type]


# -- the court's setting --------------------------------------------------------------------------------
def test_new_courts_cut_structured_and_record_it() -> None:
    court = load_court("full")
    assert court.spec.sentences == "structured"
    config = court.config()
    assert config["court"]["sentences"] == "structured"  # recorded even at its default: absent means regex
    assert court_from_config(config).spec.sentences == "structured"
    assert upgrade_config(config) == (config, [])


def test_the_setting_round_trips_through_yaml(tmp_path: Path) -> None:
    data = yaml.safe_load((courts_dir() / "default.yaml").read_text())
    data["sentences"] = "regex"
    path = tmp_path / "court.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    court = load_court(path)
    assert court.spec.sentences == "regex"
    again = tmp_path / "again.yaml"
    again.write_text(yaml.safe_dump(court.spec.model_dump(mode="json", by_alias=True, exclude_none=True), sort_keys=False))
    assert load_court(again).spec == court.spec
    assert "sentences: regex" in again.read_text()


def test_a_malformed_splitter_is_refused_naming_the_field(tmp_path: Path) -> None:
    data = yaml.safe_load((courts_dir() / "default.yaml").read_text())
    with pytest.raises(ValidationError) as info:
        ClerkSpec.model_validate({**data, "sentences": "nltk"})
    [error] = info.value.errors()
    assert error["loc"] == ("sentences",) and "'regex' or 'structured'" in error["msg"]
    path = tmp_path / "court.yaml"
    path.write_text(yaml.safe_dump({**data, "sentences": "nltk"}, sort_keys=False))
    with pytest.raises(CourtError, match=rf"{path}:\d+: field sentences: Input should be 'regex' or 'structured' "
                                         r"\(got 'nltk'\)"):
        load_court(path)
    with pytest.raises(CourtError, match="--set sentences: Input should be 'regex' or 'structured'"):
        with_overrides(load_court("full").spec, {"sentences": "pysbd"})


# -- runs recorded before the setting -------------------------------------------------------------------
def _before_cases() -> list[Case]:
    return [Case.model_validate(json.loads(line)) for line in (BEFORE / "cases.jsonl").read_text().splitlines()]


@pytest.fixture
def before_run(tmp_path: Path) -> Path:
    target = tmp_path / "before"
    shutil.copytree(BEFORE / "run", target)
    return target


def test_a_run_recorded_before_the_setting_reads_as_the_first_splitter_and_its_trials_are_retired(
        before_run: Path) -> None:
    manifest = RunStore(before_run).manifest()
    assert "sentences" not in manifest.judge["court"]
    upgraded, applied = manifest.upgraded_judge
    assert upgraded["court"]["sentences"] == "regex" and any(m.startswith("court 3: sentences") for m in applied)
    # its court (0.1's default) tried its charges, writing texts cut at a character count: it no longer replays
    assert upgraded["retired"] == ["a trial's payload texts cut at a character count"]
    with pytest.raises(CourtError, match="payload texts cut at a character count` is retired"):
        manifest.rebuild_judge()
    events = RunStore(before_run).events(JSON_CASE)
    recorded = next(e.content for e in events if e.event == "prompt" and e.content.startswith("CONTEXT:"))
    case = next(e.case for e in events if e.event == "case_start")
    assert recorded.startswith(f"CONTEXT:\n{render_numbered_context(case, 'regex')}\n\nQUESTION:")
    assert "[3] Dr.\n" in recorded and "[1] name: Casa Verde" in render_numbered_context(case, "structured")


def test_the_audit_numbers_sentences_as_the_run_did(before_run: Path, tmp_path: Path) -> None:
    audit = Audit(before_run)
    case = next(e.case for e in audit.events(JSON_CASE) if e.event == "case_start")
    assert audit.sentence_splitter() == "regex"
    assert audit.context_sentences(case) == context_sentences(case, "regex")
    assert audit.context_sentences(case)[2] == "Dr."

    console = Console(record=True, width=200)
    console.print(court_record(audit.record(JSON_CASE), "FAIL", audit.grounding_clip(), audit.sentence_splitter()))
    shown = console.export_text()
    assert "[3] Dr." in shown and "name: Casa Verde" not in shown
    # a transcript of version 1: its moves cited by a number the model wrote, read as grounds of their own (#59)
    cited = [m.grounds for t in audit.record(JSON_CASE).trials for m in t.moves if m.grounds is not None]
    assert cited and all(g.reading == "generated" and not g.verified for g in cited)
    assert "cited by a number the model wrote (not checked)" in " ".join(shown.split())

    new_run = tmp_path / "new"  # a run of today's court: structured, and the audit says so
    run = start_run(RunSpec.build(str(BEFORE / "cases.jsonl"), judge="courtroom", window=4), new_run)
    run.execute(runner=LocalRunner(ScriptedBackend(PseudoModel(), model="default")))
    run.close()
    fresh = Audit(new_run)
    assert fresh.sentence_splitter() == "structured"
    assert fresh.context_sentences(case)[0] == "name: Casa Verde"
    console = Console(record=True, width=200)
    console.print(court_record(fresh.record(JSON_CASE), "FAIL", fresh.grounding_clip(), fresh.sentence_splitter()))
    assert "[1] name: Casa Verde" in console.export_text()
    assert verify(fresh) == []


def test_a_run_of_retired_trials_is_not_rejudged(before_run: Path, tmp_path: Path) -> None:
    manifest = RunStore(before_run).manifest()
    with pytest.raises(CourtError, match="payload texts cut at a character count` is retired"):
        rejudge_run(before_run, tmp_path / "re", judge=rejudged_judge(manifest, overrides={"max_charges": 2}))


# -- one splitter through the court ---------------------------------------------------------------------
def test_every_prompt_and_citation_of_a_case_uses_the_courts_splitter() -> None:
    case = next(c for c in _before_cases() if c.id == "structured-table-and-list")
    for splitter in ("regex", "structured"):
        court = load_court("full", ScriptedBackend(PseudoModel(), model="default"), overrides={"sentences": splitter},
                           window=1)
        [outcome] = court.run_many([case])
        numbered = render_numbered_context(case, splitter)
        sentences = context_sentences(case, splitter)
        blocks = [e.content.split("CONTEXT:\n", 1)[1].split("\n\nQUESTION:", 1)[0]
                  for e in outcome.events if e.event == "prompt" and e.content.startswith("CONTEXT:\n")]
        assert blocks.count(numbered) >= 2
        for block in blocks:  # the whole numbered context, or the sentences a party cited, under their numbers
            lines = [line.split("] ", 1) for line in block.split("\n")]
            assert block == numbered or all(sentences[int(i.strip("[")) - 1] == text for i, text in lines)
        moves = [e for e in outcome.events if e.event == "move" and isinstance(e.payload.get("evidence"), int)]
        for move in moves:
            cited = move.payload["evidence"]
            assert move.grounds is not None and move.grounds.found == (1 <= cited <= len(sentences)) or cited == 0
        charges = next(e for e in outcome.events if e.event == "charges")
        statements = [c.quote for c in charges.charges] + [d.quote for d in charges.dropped]
        assert statements == list(split(case.answer, splitter, render=False))
