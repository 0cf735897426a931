"""``SessionBuild``: the rows one session adds, accumulated step by step by the ingest graph.

It is plain data (pydantic) so LangGraph can carry it in state and Studio can show it.
Vectors are not carried: ``EmbeddingModel`` serves them again when needed (computed once per text).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, TypeVar

from pydantic import BaseModel, Field

from memgraph_agents.model.conversation import Session, Turn
from memgraph_agents.model.graph import Edge, EdgeKind, Node, NodeKind
from memgraph_agents.model.identity_memo import IdentityMemo

_Item = TypeVar("_Item", Node, Edge)


class SessionBuild(BaseModel):
    session_id: str
    nodes: list[Node] = Field(default_factory=list)
    edges: list[Edge] = Field(default_factory=list)
    replace_nodes: list[Node] = Field(default_factory=list)  # topic rows written over (in place)
    replace_edges: list[Edge] = Field(default_factory=list)
    replace_all_topics: bool = False  # a re-clustering: every old topic row goes first
    notes: list[str] = Field(default_factory=list)  # fallbacks and other things worth reporting

    def of_kind(self, kind: NodeKind) -> list[Node]:
        return [n for n in self.nodes if n.kind == kind]

    def fork(self) -> SessionBuild:
        """A copy a step may change freely: new lists, new node and edge objects with their own
        ``attrs`` and ``turn_ids`` (values inside are shared: steps replace them, never edit them).
        A deep copy per step cost more than a whole chat-turn append (a topic's centroid is 384 floats)."""
        return SessionBuild(
            session_id=self.session_id,
            nodes=[_own(n) for n in self.nodes],
            edges=[_own(e) for e in self.edges],
            replace_nodes=[_own(n) for n in self.replace_nodes],
            replace_edges=[_own(e) for e in self.replace_edges],
            replace_all_topics=self.replace_all_topics,
            notes=list(self.notes),
        )

    def edges_of_kind(self, kind: EdgeKind) -> list[Edge]:
        return [e for e in self.edges if e.kind == kind]


def _own(item: _Item) -> _Item:
    return item.model_copy(update={"attrs": dict(item.attrs), "turn_ids": list(item.turn_ids)})


def fallback_note(step: str, exc: BaseException) -> str:
    """The build note of an LLM step that failed and was built offline instead."""
    return f"{step}: LLM failed ({type(exc).__name__}: {str(exc)[:120]}); offline fallback"


def session_hash(session: Session, layers: tuple[str, ...] = (), *, llm_built: bool = False) -> str:
    """Content hash: re-ingesting an unchanged session is a no-op. Its metadata is content.

    The generated-memory layers asked for are part of it (when there are any): ingesting
    again with another preset rebuilds the session with that preset's layers. So is an LLM
    build (``llm_built``): ingesting with an LLM rebuilds a session built offline (or one
    whose LLM extraction fell back); an offline hash is the same as before builders counted."""
    payload: dict[str, Any] = {
        "id": session.id,
        "date": session.date.isoformat(),
        "turns": [
            [t.id, t.speaker, t.text, t.image_caption, t.timestamp.isoformat() if t.timestamp else None]
            + ([t.role] if t.role is not None else [])  # only when set: transcripts hash as before
            for t in session.turns
        ],
    }
    if session.metadata:  # only when given: hashes stored before metadata stay valid
        payload["metadata"] = session.metadata
    if layers:
        payload["layers"] = sorted(layers)
    if llm_built:
        payload["builder"] = "llm"
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:32]


_DIGESTS: IdentityMemo[str] = IdentityMemo()


def turn_digest(turn: Turn) -> str:
    """A turn's identity: a stored session whose turns are a prefix of a new version's is
    an append (a chat thread that grew), not a change. Remembered per (frozen) turn object:
    a chat writer passes the same earlier turns again on every write."""
    digest = _DIGESTS.get(turn)
    if digest is None:
        digest = _turn_digest(turn)
        _DIGESTS.put(turn, digest)
    return digest


def _turn_digest(turn: Turn) -> str:
    payload = [
        turn.id,
        turn.speaker,
        turn.text,
        turn.image_caption,
        turn.timestamp.isoformat() if turn.timestamp else None,
    ]
    if turn.role is not None:  # only when set: the digests of transcript turns stay as they were
        payload.append(turn.role)
    return hashlib.sha256(json.dumps(payload).encode()).hexdigest()[:32]


def turn_record(turn: Turn) -> tuple[str, str, dict]:
    """``(turn id, digest, data)``: the input turn as the store keeps it (enough to rebuild it)."""
    data = {
        "speaker": turn.speaker,
        "text": turn.text,
        "image_caption": turn.image_caption,
        "timestamp": turn.timestamp.isoformat() if turn.timestamp else None,
    }
    if turn.role is not None:
        data["role"] = turn.role
    return turn.id, turn_digest(turn), data
