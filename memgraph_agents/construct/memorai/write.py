"""MemORAI plans -> rows of the session's build (the kinds it stores: docs/architecture.md "Data model").

* SEGMENT ``segment:<session>:<k>``: text = the summary (embedded), ``turn_ids`` = its turns,
  attrs ``title`` (when known), ``builder``, ``index``, ``date``; ``SEGMENT_EDGE`` edges
  segment -> turn (MEMBER; readers of topic membership filter on a TOPIC source). Each TURN
  node gets ``attrs["segment_id"]``.
* Gate: TURN ``attrs["user_specific"]`` (bool) and ``attrs["gate_reason"]``.
* Entities are ARGUMENT nodes keyed like the core layer's (``relate.argument_key``), so a
  MemORAI entity and an event argument with the same name are one node. A new argument gets
  ``attrs["description"]``; an argument created by this session's ``relate`` step gains it;
  one already in memory (another session's) is not rewritten — arguments are shared, first
  writer wins, like their text. Every MENTIONS edge entity -> turn carries the description
  this session gave (``attrs["description"]``) and ``turn_ids = [turn]``.
* TRIPLE argument -> argument: ``label`` = predicate in snake_case, ``attrs["text"]`` =
  ``"<subject> <predicate> <object>"`` written with the stored argument texts (the text DW-PR
  rebuilds from the snapshot), ``turn_ids`` = source turns. A triple endpoint the entity list
  missed becomes an argument too, described by the triple, with MENTIONS edges to its turns.

Everything is owned by the session being ingested, so deleting it removes exactly this.
"""

from __future__ import annotations

from memgraph_agents.construct.build import SessionBuild
from memgraph_agents.construct.memorai.plan import EntityPlan, GateVerdict, SegmentPlan, TriplePlan
from memgraph_agents.construct.relate import argument_key
from memgraph_agents.llm.coerce import normalise_label
from memgraph_agents.model.conversation import Session
from memgraph_agents.model.graph import Edge, EdgeKind, Node, NodeKind, node_id
from memgraph_agents.model.memorai_rows import SEGMENT_EDGE, triple_text
from memgraph_agents.storage.snapshot import GraphSnapshot


def add_segments(b: SessionBuild, session: Session, segments: list[SegmentPlan], builder: str) -> None:
    turns = {n.attrs["turn_id"]: n for n in b.of_kind(NodeKind.TURN)}
    for k, seg in enumerate(segments, start=1):
        sid = node_id(NodeKind.SEGMENT, session.id, str(k))
        attrs = {"builder": builder, "index": k, "date": session.date.date().isoformat()}
        if seg.title:
            attrs["title"] = seg.title
        b.nodes.append(
            Node(
                id=sid,
                kind=NodeKind.SEGMENT,
                text=seg.summary,
                session_id=session.id,
                turn_ids=list(seg.turn_ids),
                attrs=attrs,
            )
        )
        for t in seg.turn_ids:
            b.edges.append(
                Edge(src=sid, dst=node_id(NodeKind.TURN, t), kind=SEGMENT_EDGE, session_id=session.id, turn_ids=[t])
            )
            if t in turns:
                turns[t].attrs["segment_id"] = sid


def apply_gate(b: SessionBuild, gate: dict[str, GateVerdict]) -> None:
    for n in b.of_kind(NodeKind.TURN):
        verdict = gate.get(n.attrs["turn_id"])
        if verdict is not None:
            n.attrs["user_specific"] = verdict.keep
            if verdict.reason:
                n.attrs["gate_reason"] = verdict.reason


class _Arguments:
    """The session's view of argument nodes: this build's, memory's, and new ones it adds."""

    def __init__(self, b: SessionBuild, session: Session, snapshot: GraphSnapshot, builder: str) -> None:
        self.b, self.session, self.snapshot, self.builder = b, session, snapshot, builder
        self.in_build = {n.id: n for n in b.of_kind(NodeKind.ARGUMENT)}
        self.mentions: set[tuple[str, str]] = set()

    def ensure(self, name: str, description: str, kind: str = "entity") -> str | None:
        """The id of ``name``'s argument (created when new); sets a missing description."""
        key = argument_key(name)
        if not key:
            return None
        aid = node_id(NodeKind.ARGUMENT, key)
        node = self.in_build.get(aid)
        if node is not None:
            node.attrs.setdefault("description", description)
        elif aid not in self.snapshot:
            node = Node(
                id=aid,
                kind=NodeKind.ARGUMENT,
                text=name.strip(),
                session_id=self.session.id,
                turn_ids=[],
                attrs={"arg_kind": kind, "key": key, "description": description, "builder": self.builder},
            )
            self.in_build[aid] = node
            self.b.nodes.append(node)
        return aid

    def text(self, aid: str) -> str:
        node = self.in_build.get(aid)
        return node.text if node is not None else self.snapshot.text[self.snapshot.index[aid]]

    def description(self, aid: str) -> str:
        node = self.in_build.get(aid)
        attrs = node.attrs if node is not None else self.snapshot.attrs[self.snapshot.index[aid]]
        return str(attrs.get("description") or "")

    def mention(self, aid: str, turn_id: str, description: str) -> None:
        if (aid, turn_id) in self.mentions:
            return
        self.mentions.add((aid, turn_id))
        self.b.edges.append(
            Edge(
                src=aid,
                dst=node_id(NodeKind.TURN, turn_id),
                kind=EdgeKind.MENTIONS,
                session_id=self.session.id,
                turn_ids=[turn_id],
                attrs={"description": description},
            )
        )


def add_entities(
    b: SessionBuild,
    session: Session,
    snapshot: GraphSnapshot,
    entities: list[EntityPlan],
    triples: list[TriplePlan],
    builder: str,
) -> list[str]:
    """Arguments, MENTIONS and TRIPLE rows; returns the description texts DW-PR will embed."""
    args = _Arguments(b, session, snapshot, builder)
    touched: list[str] = []
    for e in entities:
        aid = args.ensure(e.name, e.description, e.kind)
        if aid is None:
            continue
        touched.append(aid)
        for t in e.turn_ids:
            args.mention(aid, t, e.description)
    merged: dict[tuple[str, str, str], Edge] = {}
    for tr in triples:
        label = normalise_label(tr.predicate)
        said = triple_text(tr.subject, label, tr.object)
        ends = [args.ensure(name, said) for name in (tr.subject, tr.object)]
        a, c = ends
        if not label or a is None or c is None or a == c:
            continue
        for aid in (a, c):
            touched.append(aid)
            for t in tr.turn_ids:
                args.mention(aid, t, args.description(aid) or said)
        edge = merged.get((a, c, label))
        if edge is None:
            merged[(a, c, label)] = Edge(
                src=a,
                dst=c,
                kind=EdgeKind.TRIPLE,
                label=label,
                session_id=session.id,
                turn_ids=list(tr.turn_ids),
                attrs={
                    "text": triple_text(args.text(a), label, args.text(c)),
                    "predicate": tr.predicate,
                    "builder": builder,
                },
            )
        else:
            edge.turn_ids = list(dict.fromkeys([*edge.turn_ids, *tr.turn_ids]))
    b.edges.extend(merged.values())
    texts = [d for d in (args.description(a) for a in dict.fromkeys(touched)) if d]
    return texts + [e.attrs["text"] for e in merged.values()]
