"""Every committed run manifest rebuilds the judge it was made with: the same configuration hash, or (for runs
recorded before a change) the same configuration after a documented migration; or it is refused, naming the judge
retired or the retired setting and the last version that replays it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from courtroom.courts.migrations import RETIRED_SETTINGS
from courtroom.digest import content_hash
from courtroom.engine.migrations import retired
from courtroom.engine.registry import judge_from_config, upgrade_config
from courtroom.errors import CourtError, RunError
from courtroom.log.store import RunStore

RESULTS = Path(__file__).resolve().parents[1] / "experiments" / "results"
MANIFESTS = sorted(RESULTS.rglob("manifest.json"))


def test_there_are_committed_runs() -> None:
    assert len(MANIFESTS) >= 40


@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: p.parent.relative_to(RESULTS).as_posix())
def test_a_committed_manifest_rebuilds_its_judge(path: Path) -> None:
    manifest = RunStore(path.parent).manifest()
    recorded = manifest.judge
    assert content_hash(json.dumps(recorded, sort_keys=True, default=str)) == manifest.config_hash
    upgraded, applied = manifest.upgraded_judge
    if retired(manifest.config_hash):
        assert judge_from_config(upgraded).config() != upgraded  # truly gone: the code cannot make it
        with pytest.raises(RunError, match="retired"):
            manifest.rebuild_judge()
        return
    if upgraded.get("retired"):
        setting = next(s for s in RETIRED_SETTINGS if s.name == upgraded["retired"][0])
        with pytest.raises(CourtError, match=re.escape(setting.last)) as refused:
            manifest.rebuild_judge()
        assert f"`{upgraded['retired'][0]}` is retired" in str(refused.value)
        return
    judge = manifest.rebuild_judge()
    assert judge.config() == upgraded
    if not applied:
        assert judge.config_hash() == manifest.config_hash


def test_runs_made_before_per_model_thresholds_are_migrated() -> None:
    migrated = [p for p in MANIFESTS if any(m.startswith("court 2") for m in RunStore(p.parent).manifest().upgraded_judge[1])]
    assert {p.parent.name for p in migrated} == {"halubench-courtroom-v1", "halubench-courtroom-tune",
                                                 "ragtruth-courtroom-v1"}


def test_runs_recorded_before_prompt_formats_are_of_the_fixed_fence_of_format_1() -> None:
    older = [RunStore(p.parent).manifest().judge for p in MANIFESTS]
    older = [config for config in older if "prompt_format" not in config]
    assert len(older) >= 50
    for config in older:
        upgraded, applied = upgrade_config(config)
        assert upgraded["prompt_format"] == 1 and any(m.startswith("prompts 2") for m in applied)


def test_only_the_first_two_step_runs_are_of_a_retired_judge() -> None:
    gone = [p for p in MANIFESTS if retired(RunStore(p.parent).manifest().config_hash)]
    assert sorted(p.parent.name for p in gone) == ["halubench-two-step-v1", "ragtruth-two-step-v1"]


def test_the_runs_of_retired_settings_are_those_of_move_priors_the_span_trial_0_1s_trials_and_statements() -> None:
    refused = {p.parent.relative_to(RESULTS).as_posix(): RunStore(p.parent).manifest().judge_config.get("retired")
               for p in MANIFESTS}
    refused = {name: settings for name, settings in refused.items() if settings}
    assert refused.pop("qwen2.5-coder-0.5b/halubench-evidence")[0] == "move_priors"
    assert refused.pop("debate/ruling-statements-135m")[0] == "trial.turns: statement-first"
    span = {name for name, settings in refused.items() if settings[0] == "witnesses.trial"}
    assert {name.split("/")[1] for name in span} == {"ragtruth-pointing", "span-trial", "span-trial-unseen"}
    trials = {name: settings for name, settings in refused.items() if name not in span}
    assert "qwen2.5-coder-0.5b/halubench-court-full" in trials  # every run of a court that tried its charges
    evidence = {name for name, settings in trials.items() if "evidence" in name}
    assert {name.split("/")[1] for name in evidence} == {"halubench-evidence", "halubench-evidence-tune"}
    cut, unread = "a trial's payload texts cut at a character count", _retired_name("unread")
    assert all(settings[0] in (cut, unread) for settings in trials.values())
    # the trials whose texts and citations the model generated (#44, #51, #59's pair) are refused since #59
    assert {name for name, settings in trials.items() if settings[0] == unread} == \
        {name for name in trials if name.startswith("debate/") or "-trial-testimony" in name or "-795874c" in name}


def _retired_name(fragment: str) -> str:
    return next(s.name for s in RETIRED_SETTINGS if fragment in s.used.__name__)


def test_the_court_runs_that_replay_are_of_the_clerk_alone_or_of_trials_read_off_the_case() -> None:
    configs = {p.parent.relative_to(RESULTS).as_posix(): RunStore(p.parent).manifest().judge_config for p in MANIFESTS}
    courts = {name: c["court"] for name, c in configs.items() if c.get("judge") == "courtroom" and not c.get("retired")}
    tried = {name for name, court in courts.items() if court.get("trial") is not None}
    assert len(courts) - len(tried) >= 15
    # every trial recorded before #59 had its texts and citations written by the model: those that replay are #59's
    assert all(court["trial"]["texts"] in ("composed", "generated") for name, court in courts.items() if name in tried)
    assert all("rules" not in c and "graph" not in c for c in courts.values())  # the flat trial settings of 0.1


def test_a_version_1_manifest_reads_as_typed_sections() -> None:
    manifest = RunStore(RESULTS / "qwen2.5-coder-0.5b" / "ragtruth-unstructured-lenient").manifest()
    assert manifest.schema_version == 2 and manifest.model == "qwen2.5-coder-0.5b"
    assert manifest.spec.selection.limit == 200 and manifest.spec.selection.balanced
    assert manifest.spec.judge.name == "unstructured"
    assert manifest.origin is not None and manifest.origin.changed == {"reading": "lenient"}
    assert manifest.origin.rejudged_from.endswith("ragtruth-unstructured")
