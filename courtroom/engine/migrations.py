"""Versioned migrations of recorded judge configurations, and the judges retired. Each judge lists its
migrations (`Judge.migrations`); a manifest applies them once when read (`Manifest.judge_config`), so a run of
any age rebuilds its judge. The recorded hash stays the run's identity: a migrated configuration is checked by
content."""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

JudgeConfig = dict[str, Any]


@dataclass(frozen=True)
class Migration:
    """A change of a judge's configuration after runs had been recorded without it."""

    name: str
    """What changed, for the record (`courtroom audit` and tests name it)."""
    applies: Callable[[JudgeConfig], bool]
    """Whether a recorded configuration predates the change."""
    upgrade: Callable[[JudgeConfig], None]
    """Bring such a configuration up to date, in place."""


PROMPTS_2 = Migration("prompts 2: the answer's fence is drawn per case (an answer could close the fixed "
                      "fence of format 1); absent means format 1", lambda c: "prompt_format" not in c,
                      lambda c: c.update(prompt_format=1))
"""Every judge's: the prompt format."""


def upgrade(config: JudgeConfig, migrations: Sequence[Migration]) -> tuple[JudgeConfig, list[str]]:
    """A recorded judge configuration brought up to date by `migrations` (in order), and the names of those
    applied."""
    upgraded = copy.deepcopy(config)
    applied = []
    for migration in migrations:
        if migration.applies(upgraded):
            migration.upgrade(upgraded)
            applied.append(migration.name)
    return upgraded, applied


RETIRED: dict[str, str] = {
    "8f47c87808d3cc7b": "two-step version 1, whose first step could answer with no candidate "
                        "(Qwen2.5-Coder-0.5B did, on every case); replaced by the founding article's version "
                        "in 7698ee1",
}
"""Configuration hashes of judges that no longer exist, and why: their runs are read and compared, not
replayed or resumed (retired settings of a living judge: `courtroom.courts.migrations.RETIRED_SETTINGS`)."""


def retired(config_hash: str) -> str | None:
    """Why a recorded judge configuration can no longer be rebuilt, or None when it can."""
    return RETIRED.get(config_hash)
