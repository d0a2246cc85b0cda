"""Loading a court's file and personas, and validating them together: the file's fields, the graph (a verdict is
reachable, every cycle is bounded by the round limit, every move has a payload and a target), the move priors,
that every role has a persona, and that every persona loads, renders and sits in its role. Every error names the
file, line and field (or the `--set` that seated a persona)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from courtroom.court.moves import payload_model
from courtroom.court.personas import Persona, load_persona
from courtroom.court.procedure import Procedure
from courtroom.court.spec import CourtSpec, courts_dir, find_court_file
from courtroom.court.yamlio import Locator, read_yaml, validate_as
from courtroom.errors import CourtError, PersonaError


def read_spec(name_or_path: str | Path) -> tuple[Path, CourtSpec, Locator]:
    """A court's file (by name or path), validated as a `CourtSpec` (its personas not loaded)."""
    path = find_court_file(str(name_or_path))
    data, locator = read_yaml(path, CourtError)
    return path, validate_as(CourtSpec, data, path, CourtError, locator=locator), locator


def seated_roles(court: str | Path | None = None) -> set[str]:
    """The roles a court seats (its personas' roles and its clerk's), read from its file; without a court, those of
    every shipped court."""
    courts = [court] if court is not None else sorted(courts_dir().glob("*.yaml"))
    return {role for c in courts for spec in [read_spec(c)[1]] for role in (*spec.personas, spec.clerk)}


def check_seated(persona: Persona, path: str | Path, court: str | Path | None = None,
                 roles: set[str] | None = None) -> None:
    """Refuse a persona whose role no court seats (by default: no shipped court; else not `court`, whose
    `seated_roles` may be given), naming the persona file, the line of its role and the roles seated."""
    roles = seated_roles(court) if roles is None else roles
    if persona.role in roles:
        return
    line = read_yaml(path, PersonaError)[1].line(["role"])
    seated = f"court {court} seats" if court is not None else "the shipped courts seat"
    hint = "" if court is not None else "; give --court to check it against your own"
    raise PersonaError(f"{path}:{line}: field role: no court seats {persona.role!r} ({seated} "
                       f"{', '.join(sorted(roles))}{hint})")


def load_personas(spec: CourtSpec, path: Path, locator: Locator, skip: Collection[str] = ()) -> dict[str, list[Persona]]:
    """The personas the court file seats (but in the roles `skip`), each looked for beside the court file first."""
    personas: dict[str, list[Persona]] = {}
    for role, names in spec.personas.items():
        if role in skip:
            continue
        if not (names if isinstance(names, list) else [names]):
            raise CourtError(f"{path}:{locator.line(['personas', role])}: field personas.{role}: no persona given")
        loaded = []
        for index, name in enumerate([names] if isinstance(names, str) else names):
            where = ["personas", role] + ([] if isinstance(names, str) else [index])
            field = f"{path}:{locator.line(where)}: field {'.'.join(map(str, where))}"
            loaded.append(_seat(name, role, [path.parent, path.parent.parent], field))
        personas[role] = loaded
    return personas


def set_roles(spec: CourtSpec, overrides: Mapping[str, Any]) -> set[str]:
    """The roles whose personas `--set` names (`personas.ROLE=...`, or every role by `personas={...}`)."""
    if "personas" in overrides:
        return set(spec.personas)
    return {path.split(".")[1] for path in overrides if path.startswith("personas.") and path.count(".") == 1}


def set_personas(spec: CourtSpec, personas: dict[str, list[Persona]], roles: Collection[str],
                  near: list[Path]) -> dict[str, list[Persona]]:
    """`personas` with those of `roles` loaded as `--set` names them (each looked for from the working directory
    first, then `near`), in the court's order of roles; an error names the `--set` and the file."""
    if not roles:
        return personas
    for role in roles:
        names = spec.personas[role]
        listed = [names] if isinstance(names, str) else names
        if not listed:
            raise CourtError(f"--set personas.{role}: no persona given")
        personas = {**personas, role: [_seat(name, role, [Path.cwd(), *near], f"--set personas.{role}"
                                             + ("" if isinstance(names, str) else f" (persona {index + 1})"))
                                       for index, name in enumerate(listed)]}
    return {role: personas[role] for role in spec.personas}


def _seat(name: str, role: str, search: list[Path], where: str) -> Persona:
    """The persona `name` (a name or a file) loaded to sit as `role`; a `CourtError` prefixed by `where` when it is
    not found, does not validate or has another role."""
    try:
        persona = load_persona(name, search)
    except PersonaError as exc:
        raise CourtError(f"{where}: {exc}") from exc
    if persona.role != role:
        raise CourtError(f"{where}: persona {persona.name!r} has role {persona.role!r}, but sits as {role!r}")
    return persona


def validate(spec: CourtSpec, personas: dict[str, list[Persona]], path: Path, locator: Locator) -> None:
    procedure = Procedure(spec.graph)
    problems = [(p.field, p.message) for p in procedure.problems()]
    for i, edge in enumerate(spec.graph.edges):
        try:
            payload_model(edge.payload)
        except CourtError as exc:
            problems.append((("graph", "edges", i, "payload"), str(exc)))
    for role in sorted(procedure.roles() | {spec.clerk}):
        if role not in personas:
            problems.append((("personas",), f"role {role!r} has no persona"))
    speakers = procedure.roles()
    for i, role in enumerate(spec.ruling_evidence_roles):
        if role not in speakers:
            problems.append((("ruling_evidence_roles", i), f"role {role!r} never speaks in the graph (roles that "
                                                           f"speak: {', '.join(sorted(speakers))})"))
    if "jury" in procedure.terminals_used() and "jury" not in personas:
        problems.append((("personas",), "the graph ends at `jury`, but no personas sit in the `jury` role"))
    problems += priors_problems(spec, procedure)
    if spec.escalation is not None and spec.indictment.mode == "generate":
        problems.append((("escalation",), "the clerk's drafted charges (indictment.mode: generate) have no measured "
                                          "P(suspect) to escalate by: use indictment.mode grounding or score"))
    if spec.escalation is not None and spec.escalation.bounds is None and spec.on_no_charges == "try_whole_answer":
        problems.append((("escalation", "tries"), "a court that tries nothing cannot try the whole answer when nothing "
                                                  "was charged (on_no_charges: try_whole_answer): it has no measured "
                                                  "P(suspect) to decide by; use on_no_charges: acquit"))
    if spec.witnesses is not None:
        if spec.indictment.mode != "grounding" or spec.grounding.scoring != "answer":
            problems.append((("witnesses",), "witnesses are heard on the whole answer's measured tokens: they need "
                                             "indictment.mode: grounding and grounding.scoring: answer"))
    if problems:
        lines = [f"{path}:{locator.line(field) or ''}: field {'.'.join(map(str, field))}: {message}"
                 for field, message in problems]
        raise CourtError("illegal court:\n" + "\n".join(lines))


def priors_problems(spec: CourtSpec, procedure: Procedure) -> list[tuple[tuple[str | int, ...], str]]:
    """Move priors name nodes the model chooses at, and give a prior for every move out of each."""
    if spec.move_priors is None:
        return []
    problems: list[tuple[tuple[str | int, ...], str]] = []
    tables: list[tuple[tuple[str | int, ...], dict[str, dict[str, float]]]] = [(("move_priors", "nodes"),
                                                                             spec.move_priors.nodes)]
    tables += [(("move_priors", "by_model", model), nodes) for model, nodes in spec.move_priors.by_model.items()]
    for where, nodes in tables:
        for node, priors in nodes.items():
            if node not in spec.graph.nodes:
                problems.append((where + (node,), f"{node!r} is not a node of the graph (nodes: "
                                                  f"{', '.join(spec.graph.nodes)})"))
                continue
            if spec.graph.nodes[node].choice != "model":
                problems.append((where + (node,), f"node {node!r} is decided by the court's rule, not by the model: "
                                                  "it has no move probabilities to calibrate"))
                continue
            moves = [e.move for e in procedure.moves(node)]
            if unknown := sorted(set(priors) - set(moves)):
                problems.append((where + (node,), f"{', '.join(unknown)}: not a move at {node!r} (its moves: "
                                                  f"{', '.join(moves)})"))
            if missing := [m for m in moves if m not in priors]:
                problems.append((where + (node,), f"no prior for {', '.join(missing)}: give one for every move at "
                                                  f"{node!r} ({', '.join(moves)})"))
    return problems
