"""Court files written: a recorded court (a run manifest's) as the court file that loads as it, its personas
named as that file's folder finds them, or written beside it as recorded (`draft_court`); the texts, not the
writing, which is `courtroom.log.files.atomic_write`'s (whole or not at all)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from courtroom.clerk import ClerkSpec
from courtroom.court.personas import Persona, find_persona_file
from courtroom.court.spec import CourtSpec
from courtroom.errors import PersonaError


@dataclass
class CourtDraft:
    """A recorded court as a court file to write at `path`: its settings (to change before it is written) and
    the files of recorded personas that are not found as recorded where the court looks for them."""

    path: Path
    data: dict[str, Any]
    personas: dict[Path, str] = field(default_factory=dict)

    def files(self, header: str = "") -> dict[Path, str]:
        """Every file to write and its text, the court file (under the comment `header`) last: it names the
        others."""
        return {**self.personas, self.path: header + to_yaml(self.data)}


def draft_court(config: dict[str, Any], path: Path) -> CourtDraft:
    """The recorded court of a run (its judge's configuration) as a court file to write at `path`."""
    spec = CourtSpec if config["court"].get("trial") is not None else ClerkSpec
    data = (spec.model_validate(config["court"]).model_dump(mode="json", by_alias=True,
                                                            exclude={"schema_path"}))
    draft = CourtDraft(path, data)
    if "trial" in data:
        data["trial"]["personas"] = _personas(config, data["trial"]["personas"], draft)
    return draft


def _personas(config: dict[str, Any], named: dict[str, Any], draft: CourtDraft) -> dict[str, Any]:
    """The court's persona references: each kept when it loads as recorded, else the recorded persona written
    beside."""
    original = (config["court"].get("trial") or {}).get("personas", {})
    folder = draft.path.parent
    result: dict[str, Any] = {}
    for role, reference in named.items():
        names = reference if isinstance(reference, list) else [reference]
        recorded = config["personas"][role]
        kept = []
        for name, persona in zip(names, recorded):
            wanted = Persona.model_validate(persona)
            try:
                path = find_persona_file(name, [folder, folder.parent])  # where the court looks
                found = Persona.from_file(path)
            except (PersonaError, OSError):
                found = None
            if found is not None and found == wanted:
                kept.append(_from_folder(name, path, folder))
                continue
            path = folder / f"{draft.path.stem}.{wanted.name}.yaml"
            draft.personas[path] = to_yaml(wanted.model_dump(mode="json", by_alias=True, exclude_none=True))
            kept.append(path.name)
        result[role] = kept if isinstance(original.get(role, reference), list) else kept[0]
    return result


def _from_folder(name: str, path: Path, folder: Path) -> str:
    """A persona reference as a court file in `folder` names it: a name as it is, a relative file from
    `folder`."""
    if Path(name).suffix not in (".yaml", ".yml") or Path(name).is_absolute():
        return name
    try:
        return Path(os.path.relpath(path.resolve(), folder.resolve())).as_posix()
    except ValueError:  # another drive
        return str(path.resolve())


class _Dumper(yaml.SafeDumper):
    """YAML as people write it: texts of several lines as blocks (`|`)."""


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|" if "\n" in value else None)


_Dumper.add_representer(str, _text)


def to_yaml(data: dict[str, Any]) -> str:
    """Settings as the YAML of a court or persona file."""
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=110)
