"""Court configurations of earlier versions brought up to date (`MIGRATIONS`, applied by
`Manifest.judge_config`; court files before the trial section through `nest_trial`), and the settings retired
since (`RETIRED_SETTINGS`: a court that uses one is refused, naming the last version that replays it)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from courtroom.engine.migrations import JudgeConfig, Migration
from courtroom.errors import CourtError

LAST_BEFORE_RETIREMENT = "courtroom 0.1.0 (commit 5150ee0)"
"""The last version that replays runs of the settings retired with the trial section."""


@dataclass(frozen=True)
class RetiredSetting:
    """A setting the numbers rejected: how to find it in a flat court configuration, and what it was."""

    name: str
    """The setting as court files wrote it."""
    used: Callable[[dict[str, Any]], bool]
    """Whether a court configuration of the flat format (before the trial section) uses it."""
    why: str
    """What the numbers said (docs/experiments.md has them)."""
    last: str = LAST_BEFORE_RETIREMENT
    """The last version that can replay a run made with it."""
    flat_only: bool = True
    """Whether `used` reads only the flat format (before the trial section); else also a court's settings with
    its trial section's merged in."""
    recorded_only: bool = False
    """Retired for recorded runs alone: a court file that writes it still loads (what it asks for is made
    another way now, so a run recorded with it no longer replays)."""

    def message(self, where: str) -> str:
        return (f"{where}: `{self.name}` is retired ({self.why}); {self.last} is the last version that can "
                "replay a run made with it")


def _section(court: dict[str, Any], name: str) -> dict[str, Any]:
    section = court.get(name)
    return section if isinstance(section, dict) else {}


LAST_BEFORE_EVIDENCE = "courtroom 0.1.0 (commit 4517f7b)"
"""The last version that replays runs of the evidence court's moves and of statement-first turns."""
LAST_BEFORE_REGIONS = "courtroom 0.1.0 (commit b319afa)"
"""The last version that replays runs decided by a ruling with regions."""
LAST_BEFORE_TRIAL_WEIGHTS = "courtroom 0.1.0 (commit cddc169)"
"""The last version that replays runs decided by a ruling with trial weights."""
LAST_BEFORE_READINGS = "courtroom 0.1.0 (commit 795874c)"
"""The last version that replays trials whose texts and citations the model generated."""


def _moves(court: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    """A court's graph's edges and nodes (of a trial's settings, or a flat court's)."""
    graph = _section(court, "graph")
    edges, nodes = graph.get("edges"), graph.get("nodes")
    return (edges if isinstance(edges, list) else []), (list(nodes.values())
                                                        if isinstance(nodes, dict) else [])


def _evidence_moves(court: dict[str, Any]) -> bool:
    edges, nodes = _moves(court)
    return court.get("exhibit_check") is not None or \
        any(isinstance(e, dict) and e.get("payload") in ("citation", "exhibit") for e in edges) or \
        any(isinstance(n, dict) and n.get("choice") == "evidence" for n in nodes)


def _in_rulings(key: str) -> Callable[[dict[str, Any]], bool]:
    """Whether a court's rulings hold `key` in a family."""
    def used(court: dict[str, Any]) -> bool:
        rulings = _section(_section(court, "witnesses"), "rulings")
        return any(isinstance(family, dict) and family.get(key) for ruling in rulings.values()
                   if isinstance(ruling, dict) for family in _section(ruling, "families").values())
    return used


_regions, _trial_weights = _in_rulings("region"), _in_rulings("trial")


def _unread_trial(court: dict[str, Any]) -> bool:
    """A trial section recorded before its moves were read off the case (#59): no `texts` setting."""
    return isinstance(court.get("trial"), dict) and "texts" not in court["trial"]


def _statements(court: dict[str, Any]) -> bool:
    return court.get("turns") == "statement-first" or \
        any(isinstance(e, dict) and e.get("payload") == "statement" for e in _moves(court)[0])


RETIRED_SETTINGS: tuple[RetiredSetting, ...] = (
    RetiredSetting("indictment.mode: score", lambda c: _section(c, "indictment").get("mode") == "score",
                   "the clerk's yes/no per sentence charged no better than the grounding measure; no court "
                   "shipped it"),
    RetiredSetting("move_priors", lambda c: c.get("move_priors") is not None,
                   "calibrating a small model's moves by its priors did not make its trials better than the "
                   "measurement; one experiment court used it"),
    RetiredSetting("ruling.first_reading_weight",
                   lambda c: bool(_section(c, "ruling").get("first_reading_weight")),
                   "the judge's first reading of the whole answer added nothing on HaluBench dev (0.655 vs "
                   "0.650)"),
    RetiredSetting("witnesses.trial", lambda c: bool(_section(c, "witnesses").get("trial")),
                   "the span trial (with its `trial_charges` and `quote_check`) did not point at the false "
                   "words better than the witnesses' own spans: -0.002 at 0.5B, -0.047 at 135M, no change at "
                   "1.5B served"),
    RetiredSetting("a trial's payload texts cut at a character count",
                   lambda c: "graph" in c and _section(c, "escalation").get("tries") != "nothing",
                   "arguments were cut mid-word and could be empty; every text of a move is whole sentences "
                   "since the trial section (#44)", recorded_only=True),
    RetiredSetting("the evidence court's moves (payloads `citation` and `exhibit`, a node of `choice: "
                   "evidence`, `trial.exhibit_check`)", _evidence_moves,
                   "at 1.5B the evidence court was 4.0 points worse than `full` on the same 200 HaluBench "
                   "cases (p = 0.008) and 2.5 below the clerk alone (p = 0.06); no run of it beat its "
                   "measurement",
                   last=LAST_BEFORE_EVIDENCE, flat_only=False),
    RetiredSetting("trial.turns: statement-first", _statements,
                   "at 135M 34 of 50 cases errored and 5 of 8 moves took the side opposite their own "
                   "statement; no court shipped it", last=LAST_BEFORE_EVIDENCE, flat_only=False),
    RetiredSetting("a ruling's region (`families.*.region`: the measure decided the cases beyond "
                   "it)", _regions,
                   "built to tell a new domain, it did not (a held-out source's cases lay inside the other "
                   "sources' region: 2 of 130 FinanceBench, 9 of 117 HaluEval rows beyond it), and as a "
                   "guard it moved balanced accuracy by -0.01 to +0.04; a ruling file that holds one still "
                   "reads, without it",
                   last=LAST_BEFORE_REGIONS, flat_only=False, recorded_only=True),
    RetiredSetting("a ruling's trial weights (`families.*.trial`: a tried case decided by the trial's "
                   "testimony)",
                   _trial_weights, "on 847 HaluBench and RAGTruth dev cases at 135M, every charge tried, the "
                                   "clerk and trial ruling was 0.720 against the clerk's 0.717 out of fold "
                                   "(p = 0.91), +7/-6 on 239 held out; a ruling file that holds them still "
                                   "reads, without them",
                   last=LAST_BEFORE_TRIAL_WEIGHTS, flat_only=False, recorded_only=True),
    RetiredSetting("a trial's generated texts and numbered citations (before `trial.texts` and "
                   "`trial.reading`)",
                   _unread_trial, "at 0.5B every role of four held-out trials wrote one same sentence and "
                                  "cited sentence 0; texts and citations are now read off the case and "
                                  "checked (#59: docs/experiments.md, 'A trial a person can check'); a court "
                                  "file that does not set them gets the defaults",
                   last=LAST_BEFORE_READINGS, flat_only=False, recorded_only=True),
)
"""Every retired court setting."""


def _retired_by(used: Callable[[dict[str, Any]], bool]) -> str:
    return next(setting.name for setting in RETIRED_SETTINGS if setting.used is used)


def retired_in(court: dict[str, Any], recorded: bool = False) -> list[RetiredSetting]:
    """The retired settings a flat court configuration uses (a `recorded` one: a run's, also those retired for
    runs)."""
    return [setting for setting in RETIRED_SETTINGS if setting.used(court)
            and (recorded or not setting.recorded_only)]


FLAT_TRIAL_KEYS = ("rules", "personas", "clerk", "ruling", "ruling_evidence_roles", "max_rounds", "jury_rule",
                   "on_no_charges", "graph", "escalation", "move_priors", "exhibit_check")
"""Settings a court file held at its top level before the trial section."""
MOVED = {"ruling.judge_weight": "trial.judge_weight", "ruling_evidence_roles": "trial.evidence_roles",
         **{key: f"trial.{key}" for key in ("rules", "personas", "max_rounds", "jury_rule", "on_no_charges",
                                            "graph", "escalation", "exhibit_check")}}
"""Where the settings of the flat format are now."""


def modern_path(path: str) -> str:
    """A setting's dotted path as it is now (`personas.judge` is `trial.personas.judge`)."""
    for old, new in MOVED.items():
        if path == old or path.startswith(old + "."):
            return new + path[len(old):]
    return path


def flat_court(court: dict[str, Any]) -> bool:
    """Whether a court configuration is of the flat format (before the trial section)."""
    return any(key in court for key in FLAT_TRIAL_KEYS) or "mode" in _section(court, "indictment")


def nest_trial(flat: dict[str, Any], where: str = "the court") -> dict[str, Any]:
    """A flat court configuration as the clerk's settings and a `trial` section (none for a court that tried
    no charge). Only the settings written are moved; a retired setting is a `CourtError` naming the last
    version that replays it."""
    if retired := retired_in(flat):
        raise CourtError(retired[0].message(where))
    if "trial" in flat:
        key = next(k for k in FLAT_TRIAL_KEYS if k in flat)
        raise CourtError(f"{where}: field {key}: a setting of the trial belongs in the trial section "
                         f"({modern_path(key)})")
    court = {k: copy.deepcopy(v) for k, v in flat.items() if k not in FLAT_TRIAL_KEYS}
    indictment = dict(_section(flat, "indictment"))
    mode = indictment.pop("mode", "grounding")
    if "indictment" in flat:
        court["indictment"] = indictment
    if isinstance(court.get("witnesses"), dict):
        court["witnesses"] = {k: v for k, v in court["witnesses"].items()
                              if k not in ("trial", "trial_charges", "quote_check", "rulings_from")}
    escalation = flat.get("escalation")
    if isinstance(escalation, dict) and escalation.get("tries") == "nothing":
        return court
    trial: dict[str, Any] = {MOVED[k].split(".", 1)[1]: copy.deepcopy(flat[k]) for k in MOVED
                             if "." not in k and k in flat}
    if "judge_weight" in _section(flat, "ruling"):
        trial["judge_weight"] = flat["ruling"]["judge_weight"]
    if mode == "generate":
        trial["charges"] = "drafted"
    if isinstance(trial.get("escalation"), dict):
        trial["escalation"] = {k: v for k, v in trial["escalation"].items() if k != "tries"}
    court["trial"] = trial
    return court


# -- recorded configurations ---------------------------------------------------------------------------------
def _courtroom(config: JudgeConfig) -> dict[str, Any] | None:
    court = config.get("court") if config.get("judge") == "courtroom" else None
    return court if isinstance(court, dict) else None


SINCE_DEFAULTS: dict[str, Any] = {
    "grounding": {"scoring": "sentence", "clip": None, "lexical": None},
    "aggregation": {"share_by": "statements"},
    "witnesses": {"word_states": False, "rulings": {}},
}
"""The settings a flat configuration left out at their default (added after the first court files)."""
TRIAL_DEFAULTS: dict[str, Any] = {"charges": "measured", "judge_weight": 1.0, "evidence_roles": ["defender"],
                                  "max_rounds": 3, "exchange_rounds": 0, "turns": "move-first",
                                  "blind_judge": False,
                                  "jury_rule": "mean", "on_no_charges": "acquit", "escalation": None,
                                  "exhibit_check": None}
"""The trial settings of court 11 (`turns` and `exhibit_check` left again by court 12)."""


def _trial_section(config: JudgeConfig) -> None:
    """Court 11: the trial's settings in their own section, every setting recorded, no trial for a court that
    tried no charge (with its personas), the first reading's prompts gone; retired settings named."""
    flat = config["court"]
    if retired := retired_in(flat, recorded=True):
        config["retired"] = [setting.name for setting in retired]
        return
    court = nest_trial(flat)
    court.pop("$schema", None)
    court.setdefault("description", "")
    court.setdefault("indictment", {"threshold": 0.5})
    court.setdefault("max_charges", 3)
    for section, defaults in SINCE_DEFAULTS.items():
        if isinstance(court.get(section), dict):
            court[section] = {**defaults, **court[section]}
    court.setdefault("witnesses", None)
    if "trial" in court:
        court["trial"] = {**TRIAL_DEFAULTS, **court["trial"]}
    else:
        config.pop("personas", None)
    config.pop("first_reading", None)
    config["court"] = court


RETIRED_DEFAULTS = {"turns": "move-first", "exhibit_check": None}
"""Trial settings every court recorded before they were retired with their alternatives (#53), at these
values."""


def without_retired_defaults(trial: dict[str, Any]) -> dict[str, Any]:
    """A trial section without the settings retired with their alternatives, where they hold the one value
    kept."""
    return {k: v for k, v in trial.items() if not (k in RETIRED_DEFAULTS and v == RETIRED_DEFAULTS[k])}


def _recorded_trial(court: dict[str, Any]) -> bool:
    return isinstance(court.get("trial"), dict) and any(key in court["trial"] for key in RETIRED_DEFAULTS)


def _retire_trial_settings(config: JudgeConfig) -> None:
    """Court 12: the evidence court's moves and statement-first turns retired; a recorded court that used them
    is refused, the others lose the settings they held at their one value kept."""
    court = config["court"]
    if retired := [s for s in retired_in({**court, **court["trial"]}, recorded=True) if not s.flat_only]:
        config["retired"] = [setting.name for setting in retired]
        return
    court["trial"] = without_retired_defaults(court["trial"])


MIGRATIONS: tuple[Migration, ...] = (
    Migration("court 2: aggregation.by_model (per-model thresholds) added; absent means none",
              lambda c: (court := _courtroom(c)) is not None and "rules" in court
              and "by_model" not in court.get("aggregation", {}),
              lambda c: c["court"]["aggregation"].__setitem__("by_model", {})),
    Migration("court 3: sentences (how the context and the answer are cut into sentences; new courts cut "
              "JSON, tables and lists by their structure) added; absent means regex, the first splitter",
              lambda c: (court := _courtroom(c)) is not None and "sentences" not in court,
              lambda c: c["court"].__setitem__("sentences", "regex")),
    Migration("court 11: the trial's settings in a section of their own (none for a court that tries no "
              "charge), every setting recorded; retired settings "
              "named", lambda c: (court := _courtroom(c)) is not None
              and flat_court(court), _trial_section),
    Migration("court 12: the evidence court's moves and statement-first turns retired (trial.turns, "
              "trial.exhibit_check and the payloads citation, exhibit and statement); a court that used them "
              "is refused", lambda c: (court := _courtroom(c)) is not None and _recorded_trial(court),
              _retire_trial_settings),
    Migration("court 13: a clerk recorded as a court without a trial (`trial: null`: rebuilt through the "
              "court's class by rejudge or --court RUN before #53) is the clerk; the empty section leaves",
              lambda c: (court := _courtroom(c)) is not None and "trial" in court and court["trial"] is None,
              lambda c: c["court"].pop("trial")),
    Migration("court 14: trial.poll_moves and trial.testify (the trial's testimony, #51) recorded at every "
              "value; absent means false: no side polled, no testimony in the verdict",
              lambda c: (court := _courtroom(c)) is not None and isinstance(court.get("trial"), dict)
              and not {"poll_moves", "testify"} <= set(court["trial"]),
              lambda c: c["court"].__setitem__("trial",
                                               {"poll_moves": False, "testify": False,
                                                **c["court"]["trial"]})),
    Migration("court 15: rulings' regions retired (#53); a recorded court whose ruling has one is refused",
              lambda c: (court := _courtroom(c)) is not None and not c.get("retired") and _regions(court),
              lambda c: c.__setitem__("retired", [_retired_by(_regions)])),
    Migration("court 16: rulings' trial weights retired (#51); a recorded court whose ruling has them is "
              "refused",
              lambda c: (court := _courtroom(c)) is not None and not c.get("retired")
              and _trial_weights(court), lambda c: c.__setitem__("retired", [_retired_by(_trial_weights)])),
    Migration("court 17: a trial's texts and citations read off the case (trial.texts, trial.reading, #59); "
              "a recorded trial whose model wrote them is "
              "refused", lambda c: (court := _courtroom(c)) is not None
              and not c.get("retired") and _unread_trial(court),
              lambda c: c.__setitem__("retired", [_retired_by(_unread_trial)])),
)
"""The court's migrations, in order (after the judges' own, `courtroom.engine.migrations`)."""
