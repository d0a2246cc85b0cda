"""Versioned migrations of recorded judge configurations.

A run's manifest keeps the judge configuration it was made with, and its hash names the run. When a
setting is added to a judge, configurations recorded before it lack the setting. Each migration below
says what was added, in which version, and what a configuration without it meant; `upgrade` applies
them, so a run of any age rebuilds the judge it was made with. The recorded hash stays the run's
identity: a migrated configuration is checked by content (`upgrade(recorded) == judge.config()`), not
by hash.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

JudgeConfig = dict[str, Any]


@dataclass(frozen=True)
class Migration:
    """A setting added to a judge's configuration after runs had been recorded without it."""

    name: str
    """What changed, for the record (`courtroom audit` and tests name it)."""
    applies: Callable[[JudgeConfig], bool]
    """Whether a recorded configuration predates the change."""
    upgrade: Callable[[JudgeConfig], None]
    """Bring such a configuration up to date, in place."""


def _court_without_by_model(config: JudgeConfig) -> bool:
    return config.get("judge") == "courtroom" and "by_model" not in config.get("court", {}).get("aggregation", {})


def _add_by_model(config: JudgeConfig) -> None:
    config["court"]["aggregation"]["by_model"] = {}


def _without_prompt_format(config: JudgeConfig) -> bool:
    return "prompt_format" not in config


def _prompt_format_1(config: JudgeConfig) -> None:
    config["prompt_format"] = 1


def _court_without_sentences(config: JudgeConfig) -> bool:
    return config.get("judge") == "courtroom" and "sentences" not in config.get("court", {})


def _regex_sentences(config: JudgeConfig) -> None:
    config["court"]["sentences"] = "regex"


MIGRATIONS: tuple[Migration, ...] = (
    Migration("court 2: aggregation.by_model (per-model thresholds) added; absent means none",
              _court_without_by_model, _add_by_model),
    Migration("prompts 2: the answer's fence is drawn per case (an answer could close the fixed fence of "
              "format 1); absent means format 1", _without_prompt_format, _prompt_format_1),
    Migration("court 3: sentences (how the context and the answer are cut into sentences; new courts cut JSON, "
              "tables and lists by their structure) added; absent means regex, the first splitter",
              _court_without_sentences, _regex_sentences),
)


RETIRED: dict[str, str] = {
    "8f47c87808d3cc7b": "two-step version 1, whose first step could answer with no candidate (Qwen2.5-Coder-0.5B "
                        "did, on every case); replaced by the founding article's version in 7698ee1",
}
"""Configuration hashes of judges that no longer exist, and why: their runs can be read and compared, but
not replayed or resumed (the code that made them is gone)."""


def retired(config_hash: str) -> str | None:
    """Why a recorded judge configuration can no longer be rebuilt, or None when it can."""
    return RETIRED.get(config_hash)


def upgrade(config: JudgeConfig) -> tuple[JudgeConfig, list[str]]:
    """A recorded judge configuration brought up to date, and the names of the migrations applied."""
    upgraded = copy.deepcopy(config)
    applied = []
    for migration in MIGRATIONS:
        if migration.applies(upgraded):
            migration.upgrade(upgraded)
            applied.append(migration.name)
    return upgraded, applied


@dataclass(frozen=True)
class Since:
    """Marks a setting added to a judge's configuration in `version` (> 1) of its schema: `canonical_config`
    leaves it out while it holds its default, the value that behaves as the judge did before the setting
    existed, so configurations that do not use it keep the identity (hash) of their earlier runs."""

    version: int


def canonical_config(model: BaseModel) -> dict[str, Any]:
    """A configuration model as recorded (JSON, by alias), without the `Since` settings at their default."""
    data = model.model_dump(mode="json", by_alias=True)
    for name, field in type(model).model_fields.items():
        key = field.alias or name
        value = getattr(model, name)
        if any(isinstance(m, Since) for m in field.metadata) and value == field.get_default(call_default_factory=True):
            del data[key]
        elif isinstance(value, BaseModel):
            data[key] = canonical_config(value)
    return data
