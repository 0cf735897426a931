"""The embedded graph store's rows: a ``Node`` or ``Edge`` as a SQLite row and back (JSON
columns), the column lists its statements select, and the id chunks they bind (SQLite's
bound-parameter limit), and ``node_texts_in``, the one query both sides run. ``storage.graph_db``
reads with them, ``storage.sqlite_writer`` writes with them; ``storage.pg_writer`` and
``storage.migrate`` share the codecs.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from typing import TypeVar

from memgraph_agents.model.graph import Edge, EdgeKind, Node, NodeKind

T = TypeVar("T")


def node_row(n: Node) -> tuple:
    return (n.id, n.kind.value, n.text, n.session_id, json.dumps(n.turn_ids), json.dumps(n.attrs), int(n.embed))


def edge_row(e: Edge) -> tuple:
    return (
        e.src,
        e.dst,
        e.kind.value,
        e.label,
        e.session_id,
        float(e.weight),
        json.dumps(e.turn_ids),
        json.dumps(e.attrs),
    )


def row_to_node(r: tuple) -> Node:
    return Node(
        id=r[0],
        kind=NodeKind(r[1]),
        text=r[2],
        session_id=r[3],
        turn_ids=json.loads(r[4]),
        attrs=json.loads(r[5]),
        embed=bool(r[6]),
    )


def row_to_edge(r: tuple) -> Edge:
    return Edge(
        src=r[0],
        dst=r[1],
        kind=EdgeKind(r[2]),
        label=r[3],
        session_id=r[4],
        weight=r[5],
        turn_ids=json.loads(r[6]),
        attrs=json.loads(r[7]),
    )


NODE_COLS = "id, kind, text, session_id, turn_ids, attrs, embed"
EDGE_COLS = "src, dst, kind, label, session_id, weight, turn_ids, attrs"


def chunks(ids: list[T], size: int = 450) -> Iterator[list[T]]:
    for i in range(0, len(ids), size):
        yield ids[i : i + size]


def node_texts_in(c: sqlite3.Connection, ids: Iterable[str]) -> dict[str, tuple[str, str, bool]]:
    """``node_texts`` as seen by connection ``c`` (inside a write transaction: its own rows)."""
    ids = list(ids)
    out: dict[str, tuple[str, str, bool]] = {}
    for chunk in chunks(ids):
        q = f"SELECT id, text, session_id, embed FROM nodes WHERE id IN ({','.join('?' * len(chunk))})"
        out.update({r[0]: (r[1], r[2], bool(r[3])) for r in c.execute(q, chunk)})
    return out
