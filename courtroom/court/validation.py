"""A court's personas loaded and the court validated with them; errors name file, line and field (or the
`--set`)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from courtroom.clerk.clerk import problems
from courtroom.court.indictment import CLERK
from courtroom.court.moves import payload_model
from courtroom.court.personas import Persona, load_persona
from courtroom.court.procedure import Procedure
from courtroom.court.spec import CourtSpec
from courtroom.errors import CourtError, PersonaError
from courtroom.yamlio import Locator


def load_personas(spec: CourtSpec, path: Path, locator: Locator, skip: Collection[str] = (),
                  origin: Mapping[tuple[str, ...], str] | None = None) -> dict[str, list[Persona]]:
    """The personas the court's trial seats (but `skip`), each looked for beside the court file naming it
    first."""
    personas: dict[str, list[Persona]] = {}
    for role, names in spec.trial.personas.items():
        if role in skip:
            continue
        if not (names if isinstance(names, list) else [names]):
            raise CourtError(f"{path}:{locator.line(['trial', 'personas', role])}: field "
                             f"trial.personas.{role}: no persona given")
        loaded = []
        for index, name in enumerate([names] if isinstance(names, str) else names):
            where = ["trial", "personas", role] + ([] if isinstance(names, str) else [index])
            field = f"{path}:{locator.line(where)}: field {'.'.join(map(str, where))}"
            named_in = Path((origin or {}).get(("trial", "personas", role), path))
            near = list(dict.fromkeys([named_in.parent, named_in.parent.parent, path.parent,
                                       path.parent.parent]))
            loaded.append(_seat(name, role, near, field))
        personas[role] = loaded
    return personas


def speaking_roles(spec: CourtSpec) -> set[str]:
    """The roles the trial gives a turn: its graph's, the clerk when it drafts charges, the jury at a jury
    ending."""
    procedure = Procedure(spec.trial.graph)
    return procedure.roles() | ({CLERK} if spec.trial.charges == "drafted" else set()) | \
        ({"jury"} if "jury" in procedure.terminals_used() else set())


def check_new_roles(before: CourtSpec, after: CourtSpec, roles: Collection[str]) -> None:
    """Refuse a `--set trial.personas.ROLE` seating a role the court neither seats nor gives a turn (a
    typo)."""
    seated = set(before.trial.personas)
    for role in sorted(set(roles) - seated - speaking_roles(after)):
        raise CourtError(f"--set trial.personas.{role}: the court seats no {role!r} (it seats "
                         f"{', '.join(sorted(seated | speaking_roles(after)))})")


def set_roles(spec: CourtSpec, overrides: Mapping[str, Any]) -> set[str]:
    """The roles whose personas `--set` names (`trial.personas.ROLE=...`, or every role by
    `trial.personas={...}`)."""
    paths = list(overrides)
    if "trial.personas" in paths or "trial" in paths:
        return set(spec.trial.personas)
    return {path.split(".")[2] for path in paths if path.startswith("trial.personas.")
            and path.count(".") == 2}


def set_personas(spec: CourtSpec, personas: dict[str, list[Persona]], roles: Collection[str],
                  near: list[Path]) -> dict[str, list[Persona]]:
    """`personas` with those of `roles` loaded as `--set` names them (from the working directory, then
    `near`)."""
    if not roles:
        return personas
    for role in roles:
        names = spec.trial.personas[role]
        listed = [names] if isinstance(names, str) else names
        if not listed:
            raise CourtError(f"--set trial.personas.{role}: no persona given")
        personas = {**personas, role: [_seat(name, role, [Path.cwd(), *near], f"--set trial.personas.{role}"
                                             + ("" if isinstance(names, str) else f" (persona {index + 1})"))
                                       for index, name in enumerate(listed)]}
    return {role: personas[role] for role in spec.trial.personas}


def _seat(name: str, role: str, search: list[Path], where: str) -> Persona:
    """The persona `name` (a name or a file) loaded to sit as `role`; else a `CourtError` prefixed by
    `where`."""
    try:
        persona = load_persona(name, search)
    except PersonaError as exc:
        raise CourtError(f"{where}: {exc}") from exc
    if persona.role != role:
        raise CourtError(f"{where}: persona {persona.name!r} has role {persona.role!r}, but sits as {role!r}")
    return persona


def validate(spec: CourtSpec, personas: dict[str, list[Persona]], path: Path, locator: Locator) -> None:
    """Refuse an illegal court, every problem on a line of its own with its file, line and field."""
    problems(spec.problems() + _trial_problems(spec, personas), path, locator)


def _trial_problems(spec: CourtSpec,
                    personas: dict[str, list[Persona]]) -> list[tuple[tuple[str | int, ...], str]]:
    trial = spec.trial
    procedure = Procedure(trial.graph)
    found = [(("trial", *p.field), p.message) for p in procedure.problems()]
    for i, edge in enumerate(trial.graph.edges):
        try:
            payload_model(edge.payload)
        except CourtError as exc:
            found.append((("trial", "graph", "edges", i, "payload"), str(exc)))
    needed = procedure.roles() | ({CLERK} if trial.charges == "drafted" else set())
    found += [(("trial", "personas"), f"role {role!r} has no persona") for role in sorted(needed)
              if role not in personas]
    speakers = procedure.roles()
    for i, role in enumerate(trial.evidence_roles):
        if role not in speakers:
            found.append((("trial", "evidence_roles", i), f"role {role!r} never speaks in the graph (roles "
                                                          f"that speak: {', '.join(sorted(speakers))})"))
    if "jury" in procedure.terminals_used() and "jury" not in personas:
        found.append((("trial", "personas"), "the graph ends at `jury`, but no personas sit in the `jury` "
                                             "role"))
    return found
