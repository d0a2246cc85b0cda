"""The court procedure as a graph (networkx): nodes are turns bound to roles, edges are moves. The legal moves
at a node are its out-edges' labels; a `new_round` move is illegal at the round limit, which forces a ruling.
Edges end at a node or a verdict: `acquit`, `convict`, `ruling` (the mover's verdict) or `jury` (the jury
rule's)."""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx
from pydantic import BaseModel, ConfigDict, Field

from courtroom.court.moves import InlinePayload

TERMINALS: tuple[str, ...] = ("acquit", "convict", "ruling", "jury")
EXITS: tuple[str, ...] = ("acquit", "convict")
"""The verdicts a side reaches by giving up (a withdrawal, a concession) rather than by a ruling."""
IDENTIFIER = r"^[a-z][a-z0-9_]*$"


class NodeSpec(BaseModel):
    """A turn in the procedure: which role speaks."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    role: str = Field(pattern=IDENTIFIER)
    """The role whose persona takes this turn."""
    description: str = ""
    """What happens at this turn (for diagrams and auditors)."""


class EdgeSpec(BaseModel):
    """A move: from a turn, to the next turn or to a verdict, carrying a payload."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True, populate_by_name=True)

    source: str = Field(alias="from")
    """The turn at which this move is legal."""
    move: str = Field(pattern=IDENTIFIER)
    """The move's name, as the model chooses it."""
    to: str
    """The next turn, or a verdict: acquit, convict, ruling, jury."""
    payload: str | InlinePayload
    """A registered payload (argument, reason, ruling, question, testimony, note, none) or an inline one."""
    description: str = Field(min_length=1)
    """What the move means, shown to the model when it chooses."""
    new_round: bool = False
    """Taking this move starts a new round; it is illegal once the round limit is reached."""


class GraphSpec(BaseModel):
    """The procedure of a trial, as nodes and edges."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    start: str
    """The first turn of every trial."""
    nodes: dict[str, NodeSpec] = Field(min_length=1)
    """Turns, by name."""
    edges: list[EdgeSpec] = Field(min_length=1)
    """Moves."""


@dataclass(frozen=True)
class GraphProblem:
    """One reason a graph is illegal, with the path of the field at fault."""

    field: tuple[str | int, ...]
    message: str


class Procedure:
    """A validated debate graph (a networkx MultiDiGraph keyed by move)."""

    def __init__(self, spec: GraphSpec) -> None:
        self.spec = spec
        self.graph = nx.MultiDiGraph()
        for name, node in spec.nodes.items():
            self.graph.add_node(name, role=node.role, terminal=False)
        for terminal in TERMINALS:
            self.graph.add_node(terminal, role=None, terminal=True)
        for edge in spec.edges:
            self.graph.add_edge(edge.source, edge.to, key=edge.move, spec=edge)

    @property
    def start(self) -> str:
        return self.spec.start

    def role(self, node: str) -> str:
        """The role that speaks at a node."""
        return self.spec.nodes[node].role

    def is_terminal(self, node: str) -> bool:
        return node in TERMINALS

    def moves(self, node: str) -> list[EdgeSpec]:
        """Every move out of a node, in file order."""
        return [e for e in self.spec.edges if e.source == node]

    def legal_moves(self, node: str, round: int, max_rounds: int, exchange_rounds: int = 0) -> list[EdgeSpec]:
        """The moves the model may choose at `node` in `round`: no new round at the limit, no exit while
        exchanging."""
        return [e for e in self.moves(node) if not (e.new_round and round >= max_rounds)
                and not (e.to in EXITS and round <= exchange_rounds)]

    def roles(self) -> set[str]:
        return {n.role for n in self.spec.nodes.values()}

    def terminals_used(self) -> set[str]:
        return {e.to for e in self.spec.edges if e.to in TERMINALS}

    def problems(self) -> list[GraphProblem]:
        """Everything that makes this graph illegal (empty when it is legal)."""
        problems: list[GraphProblem] = []
        spec = self.spec
        if spec.start not in spec.nodes:
            problems.append(GraphProblem(("graph", "start"), f"start {spec.start!r} is not a node"))
        problems += [GraphProblem(("graph", "nodes", name), f"{name!r} is reserved for a verdict")
                     for name in spec.nodes if name in TERMINALS]
        seen: set[tuple[str, str]] = set()
        for i, edge in enumerate(spec.edges):
            where = ("graph", "edges", i)
            if edge.source not in spec.nodes:
                problems.append(GraphProblem(where + ("from",), f"move {edge.move!r} starts at unknown node "
                                                                f"{edge.source!r}"))
            if edge.to not in spec.nodes and edge.to not in TERMINALS:
                problems.append(GraphProblem(where + ("to",), f"move {edge.move!r} leads to unknown target "
                                                              f"{edge.to!r} (a node, or one of "
                                                              f"{list(TERMINALS)})"))
            if (edge.source, edge.move) in seen:
                problems.append(GraphProblem(where + ("move",), f"move {edge.move!r} is declared twice at "
                                                                f"{edge.source!r}"))
            seen.add((edge.source, edge.move))
        if problems:
            return problems
        reachable = nx.descendants(self.graph, spec.start) | {spec.start}
        problems += [GraphProblem(("graph", "nodes", name), f"node {name!r} cannot be reached from the start")
                     for name in spec.nodes if name not in reachable]
        if not reachable & set(TERMINALS):
            problems.append(GraphProblem(("graph", "edges"), "no verdict (acquit, convict, ruling, jury) is "
                                                             "reachable"))
        for name in spec.nodes:
            if not self.moves(name):
                problems.append(GraphProblem(("graph", "nodes", name),
                                             f"node {name!r} has no moves: the trial would stall"))
            elif all(e.new_round for e in self.moves(name)):
                problems.append(GraphProblem(("graph", "nodes", name),
                                             f"at the round limit node {name!r} has no legal move (all its "
                                             "moves start new rounds)"))
        bounded = nx.DiGraph()
        bounded.add_nodes_from(self.graph.nodes)
        bounded.add_edges_from((e.source, e.to) for e in spec.edges if not e.new_round)
        if not nx.is_directed_acyclic_graph(bounded):
            cycle = [u for u, *_ in nx.find_cycle(bounded)]
            problems.append(GraphProblem(("graph", "edges"), "cycle " + " -> ".join(cycle + cycle[:1]) +
                                         " has no new_round move, so the round limit cannot end it"))
        return problems

    def to_mermaid(self, title: str | None = None) -> str:
        """A mermaid flowchart of the procedure."""
        lines = ([f'---\ntitle: "{title}"\n---'] if title else []) + ["flowchart TD"]
        lines += [f'    {name}["{name}<br/><i>{node.role}</i>"]' for name, node in self.spec.nodes.items()]
        lines += [f"    {terminal}((({terminal})))" for terminal in sorted(self.terminals_used())]
        lines += ([f"    {e.source} -->|{e.move}{' ↻' if e.new_round else ''}| {e.to}"
                   for e in self.spec.edges])
        return "\n".join(lines) + "\n"
