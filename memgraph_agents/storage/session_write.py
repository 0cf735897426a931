"""What one ingested session writes: its record and rows (``SessionWrite``), as the store commits them."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, Field

from memgraph_agents.model.graph import Edge, Node


class SessionRecord(BaseModel):
    id: str
    date: str  # ISO datetime
    participants: list[str] = Field(default_factory=list)
    n_turns: int = 0
    content_hash: str = ""
    builder: str = "offline"
    info: dict = Field(default_factory=dict)
    metadata: dict = Field(default_factory=dict)  # the user's (model.metadata), apart from the builder's ``info``


WriteMode = Literal["new", "replace", "append"]


@dataclass
class SessionWrite:
    """Everything one ingested session adds, plus namespace-level rows it replaces (topics).

    ``mode``: ``new``; ``replace`` (the stored version's rows go in the same commit); ``append``
    (``nodes``/``edges`` are only what the new turns add, ``drop_nodes`` the session's nodes
    the append rebuilt, e.g. the reopened last event). ``turns``: the input turns to store,
    ``(turn id, digest, data)``, from position ``turns_start``."""

    record: SessionRecord
    nodes: list[Node]
    edges: list[Edge]
    vectors: dict[str, np.ndarray]  # node id -> embedding, for new embedded nodes
    replace_nodes: list[Node] | None = None  # derived rows rewritten wholesale (topic layer)
    replace_edges: list[Edge] | None = None
    replace_kinds: tuple[str, ...] = ()  # kinds whose old namespace-level rows are dropped first
    mode: WriteMode = "new"
    drop_nodes: tuple[str, ...] = ()
    turns: list[tuple[str, str, dict]] = field(default_factory=list)
    turns_start: int = 0


def check_dimension(w: SessionWrite, dim: int, model: str) -> None:
    """Refuse a write holding a vector that is not ``(dim,)``: the graph rows take any bytes
    (and a namespace without a Chroma index has nothing else to refuse it), and one such
    vector would break every snapshot of the namespace."""
    for i, v in w.vectors.items():
        if np.shape(v) != (dim,):
            raise ValueError(
                f"session {w.record.id!r}: the vector of node {i!r} has shape {np.shape(v)}, not ({dim},), "
                f"the dimension of embeddings {model!r}: nothing was written"
            )


# The columns of a session row, in table order (both graph stores).
SESSION_KEYS = (
    "id",
    "date",
    "status",
    "seq",
    "participants",
    "n_turns",
    "content_hash",
    "builder",
    "ingested_at",
    "info",
    "metadata",
)


def session_row(v: dict[str, Any], status: str, seq: int) -> tuple:
    """A session's values in the sessions table's column order (``SESSION_KEYS``): one encoding
    for both stores."""
    return (
        v["id"],
        v["date"],
        status,
        int(seq),
        json.dumps(v["participants"]),
        v["n_turns"],
        v["content_hash"],
        v["builder"],
        v["ingested_at"],
        json.dumps(v["info"]),
        json.dumps(v.get("metadata") or {}),
    )


def session_dict(row: tuple) -> dict[str, Any]:
    """A session row read back (columns ``SESSION_KEYS``) as the dict ``session_row`` encoded."""
    d = dict(zip(SESSION_KEYS, row, strict=True))
    d["participants"] = json.loads(d["participants"])
    d["info"] = json.loads(d["info"])
    d["metadata"] = json.loads(d["metadata"])
    return d


def session_update(v: dict[str, Any]) -> tuple:
    """What committing a session rewrites: date, participants, n_turns, content_hash, builder, info,
    metadata."""
    return (
        v["date"],
        json.dumps(v["participants"]),
        v["n_turns"],
        v["content_hash"],
        v["builder"],
        json.dumps(v["info"]),
        json.dumps(v.get("metadata") or {}),
    )


def version_row(text: str, metadata: dict[str, Any]) -> tuple[str, str]:
    """A note version's (text, metadata) columns: one encoding for both stores, so "equal to
    the latest version" is a comparison of stored text."""
    return text, json.dumps(metadata, sort_keys=True)


def version_dict(row: tuple) -> dict[str, Any]:
    """A ``(version, at, text, metadata)`` row read back."""
    return {"version": int(row[0]), "at": row[1], "text": row[2], "metadata": json.loads(row[3])}
