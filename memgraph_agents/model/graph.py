"""Memory-graph node and edge kinds (docs/architecture.md, "Data model") and their pydantic records.

Every node and edge is *owned* by the session whose ingest created it (``session_id``);
namespace-level derived rows (topics) use ``session_id = ""``. Provenance turn ids travel on
every row so deleting a session removes exactly what it produced and answers can cite turns.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class NodeKind(StrEnum):
    SESSION = "session"
    TURN = "turn"
    SENTENCE = "sentence"
    EVENT = "event"
    ARGUMENT = "argument"
    TOPIC = "topic"
    FACT = "fact"  # SGMem generated memory: a fact stated in a session
    INSIGHT = "insight"  # SGMem: a higher-level observation over facts
    # Appended kinds keep the codes of the ones above stable.
    SUMMARY = "summary"  # SGMem / MemORAI: a session or segment summary
    SEGMENT = "segment"  # MemORAI: a topic segment of one session
    FRAGMENT = "fragment"  # PREMem: an episodic memory fragment (factual | experiential | subjective)
    CLUSTER = "cluster"  # PREMem: a per-session cluster of fragments
    REASONING = "reasoning"  # PREMem: a reasoning fragment over linked clusters


class EdgeKind(StrEnum):
    CONTAINS = "contains"  # session->turn, turn->sentence
    NEXT = "next"  # turn->turn within a session
    EVIDENCE = "evidence"  # event->turn
    RELATION = "relation"  # event->event, typed by ``label``
    ROLE = "role"  # event->argument, ``label`` = role
    SYNONYM = "synonym"  # argument<->argument
    MEMBER = "member"  # topic->event
    SIMILAR = "similar"  # sentence<->sentence kNN, event<->event across sessions
    # Appended kinds (the presets' generated memory); the codes above stay stable.
    DERIVED = "derived"  # generated node -> the nodes it was generated from (its sources)
    LINK = "link"  # PREMem cluster<->cluster across sessions, weight = similarity
    MENTIONS = "mentions"  # MemORAI entity (argument) -> turn that mentions it
    TRIPLE = "triple"  # MemORAI argument -> argument, ``label`` = predicate
    SUPERSEDES = "supersedes"  # later turn -> earlier turn whose statement it replaces, ``label`` = attribute


TOPIC_OWNER = ""  # session_id of namespace-level derived rows


class Node(BaseModel):
    model_config = ConfigDict(frozen=False)

    id: str
    kind: NodeKind
    text: str
    session_id: str
    turn_ids: list[str] = Field(default_factory=list)
    attrs: dict[str, Any] = Field(default_factory=dict)
    embed: bool = True  # whether the text goes into the vector index


class Edge(BaseModel):
    model_config = ConfigDict(frozen=False)

    src: str
    dst: str
    kind: EdgeKind
    session_id: str
    label: str = ""
    weight: float = 1.0
    turn_ids: list[str] = Field(default_factory=list)
    attrs: dict[str, Any] = Field(default_factory=dict)

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.src, self.dst, self.kind.value, self.label)


def node_id(kind: NodeKind | str, *parts: str) -> str:
    """Deterministic node id, e.g. ``turn:D1:3``, ``event:S1:2``, ``arg:pixel``."""
    prefix = {"argument": "arg"}.get(str(kind), str(kind))
    return ":".join([prefix, *parts])
