"""``Memory.get`` and ``Memory.list``: one stored item, or a page of sessions and notes.

Both read the committed snapshot (one consistent state) and the stored input turns. An id or
namespace that is not stored is an error, never an empty answer.

``list`` pages newest first by ``(date, id)``: the cursor (``api.cursors``: bound to the
namespace, kind and filter it was made for) holds the last item's key, so a
page never repeats or skips an item because another was added or deleted meanwhile (an item
added with an older date than the cursor's shows on a later page, one with a newer date on a
new listing). Its filters are search's (``model.filters``): a session or note is listed when
one of its turns is admitted.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from memgraph_agents.api.cursors import binding, decode_cursor, encode_cursor
from memgraph_agents.api.items import ItemPage, MemoryItem, Neighbour, TurnItem
from memgraph_agents.api.ops import open_store
from memgraph_agents.config import Settings
from memgraph_agents.errors import InputError
from memgraph_agents.model.filters import MemoryFilter
from memgraph_agents.model.notes import is_note_id
from memgraph_agents.retrieval.evidence import provenance
from memgraph_agents.retrieval.scope import admitted_turns
from memgraph_agents.storage.snapshot import GraphSnapshot

MAX_NEIGHBOURS = 50  # edges ``get`` lists (``n_neighbours`` counts them all)
MAX_LIMIT = 1000
ListKind = Literal["session", "note"]


# -- get -----------------------------------------------------------------------------------
def get_item(settings: Settings, namespace: str, item_id: str) -> MemoryItem:
    """The note, session, turn (``S1:3``) or graph node (``event:S1:2``) called ``item_id``."""

    if not isinstance(item_id, str) or not item_id.strip():
        raise InputError("get: the id is empty")
    store = open_store(settings, namespace)
    snap = store.snapshot()
    record = snap.sessions.get(item_id)
    if record is not None:
        return session_item(store, snap, record, full=True)
    nid = item_id if item_id in snap.index else f"turn:{item_id}"
    if nid not in snap.index:
        raise InputError(f"no note, session, turn or node {item_id!r} in namespace {namespace!r}")
    return node_item(store, snap, nid)


def _turns(store: Any, session_id: str) -> list[TurnItem]:
    return [
        TurnItem(
            id=tid,
            speaker=d["speaker"],
            text=d["text"],
            image_caption=d.get("image_caption"),
            timestamp=d.get("timestamp"),
        )
        for tid, _, d in store.db.session_turns(session_id)
    ]


def _head_nid(record: dict, turns: list[TurnItem]) -> str:
    """The graph node a session or note stands for: a note's turn, a session's session node."""
    return f"turn:{turns[0].id}" if is_note_id(record["id"]) and turns else f"session:{record['id']}"


def session_item(
    store: Any,
    snap: GraphSnapshot | None,
    record: dict,
    *,
    full: bool,
    heads: dict[str, tuple[str, str]] | None = None,
) -> MemoryItem:
    """A session or note; ``full``: with its turns and its graph node's neighbours. Without a
    snapshot (an unfiltered ``list`` page), ``heads`` gives the head nodes' (text, kind)."""
    sid = record["id"]
    note = is_note_id(sid)
    turns = _turns(store, sid) if full or note else []
    nid = _head_nid(record, turns)
    if snap is not None:
        head = (str(snap.text[snap.index[nid]]), snap.kind_of(snap.index[nid])) if nid in snap.index else None
    else:
        head = (heads or {}).get(nid)
    if note:
        text = turns[0].text if turns else ""
    elif full:
        text = "\n".join(f"{t.speaker}: {t.text}" for t in turns)
    else:  # the session node's head: its date and first turns
        text = head[0] if head else ""
    item = MemoryItem(
        id=sid,
        kind="note" if note else "session",
        namespace=store.namespace,
        node_kind=head[1] if head else "",
        node_id=nid if head else "",
        text=text,
        date=record["date"],
        speaker=turns[0].speaker if note and turns else "",
        participants=list(record.get("participants") or []),
        session_id=sid,
        metadata=dict(record.get("metadata") or {}),
        n_turns=int(record.get("n_turns") or 0),
        ingested_at=record.get("ingested_at") or "",
        turns=turns if full else [],
        turn_ids=[t.id for t in turns],
    )
    if full and snap is not None and nid in snap.index:
        item.neighbours, item.n_neighbours = neighbours(snap, nid)
    return item


def node_item(store: Any, snap: GraphSnapshot, nid: str) -> MemoryItem:
    """A turn or any other graph node, with its provenance turns and neighbours."""

    i = snap.index[nid]
    attrs = {k: v for k, v in snap.attrs[i].items() if k != "centroid"}
    owner = str(snap.owner[i])
    record = snap.sessions.get(owner) or {}
    is_turn = snap.kind_of(i) == "turn"
    text, speaker = str(snap.text[i]), ""
    if is_turn:
        stored = {t.id: t for t in _turns(store, owner)}.get(attrs.get("turn_id", ""))
        if stored is not None:
            text, speaker = stored.text, stored.speaker
    rows, total = neighbours(snap, nid)
    return MemoryItem(
        id=str(attrs["turn_id"]) if is_turn else nid,
        kind="turn" if is_turn else "node",
        namespace=store.namespace,
        node_kind=snap.kind_of(i),
        node_id=nid,
        text=text,
        date=record.get("date", ""),
        speaker=speaker,
        participants=list(record.get("participants") or []),
        session_id=owner if record else "",
        metadata=dict(record.get("metadata") or {}),
        n_turns=int(record.get("n_turns") or 0),
        ingested_at=record.get("ingested_at") or "",
        turn_ids=provenance(snap, i),
        attrs=attrs,
        neighbours=rows,
        n_neighbours=total,
    )


def neighbours(snap: GraphSnapshot, nid: str) -> tuple[list[Neighbour], int]:
    """The first ``MAX_NEIGHBOURS`` edges of ``nid`` (snapshot order), and how many it has."""
    edges = snap.edges_of(nid)
    out = []
    for e in edges[:MAX_NEIGHBOURS]:
        other = e.dst if e.src == nid else e.src
        j = snap.index[other]
        out.append(
            Neighbour(
                direction="out" if e.src == nid else "in",
                edge=e.kind.value,
                label=e.label,
                node_id=other,
                kind=snap.kind_of(j),
                text=str(snap.text[j]),
            )
        )
    return out, len(edges)


# -- list ----------------------------------------------------------------------------------
def check_limit(limit: Any) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise InputError(f"invalid limit={limit!r}: must be an integer from 1 to {MAX_LIMIT}")
    return limit


def check_kind(kind: Any) -> ListKind | None:
    if kind is None or kind in ("session", "note"):
        return kind
    raise InputError(f"invalid kind={kind!r}: 'session', 'note' or None (both)")


def list_items(
    settings: Settings,
    namespace: str,
    *,
    kind: ListKind | None = None,
    filter: MemoryFilter | None = None,
    limit: int = 20,
    cursor: str | None = None,
) -> ItemPage:
    """A page of the namespace's sessions and notes, newest first (see the module docstring)."""

    kind, limit = check_kind(kind), check_limit(limit)
    bound = binding(namespace, kind, filter.key() if filter is not None else MemoryFilter().key())
    after = decode_cursor(cursor, bound) if cursor is not None else None
    store = open_store(settings, namespace)
    if filter is None or filter.empty:
        gen = store.db.generation()
        page, more = _page(store.db.sessions("committed"), kind, after, limit)
        heads = _heads(store, page, gen)
        if heads is not None:
            items = [session_item(store, None, r, full=False, heads=heads) for r in page]
            return _item_page(namespace, items, page, more, bound)
    snap = store.snapshot()  # filtered, or a commit landed between the reads above
    records = list(snap.sessions.values())
    if filter is not None and not filter.empty:
        live = set(snap.owner[admitted_turns(snap, filter)])
        records = [r for r in records if r["id"] in live]
    page, more = _page(records, kind, after, limit)
    return _item_page(namespace, [session_item(store, snap, r, full=False) for r in page], page, more, bound)


def _page(records: list[dict], kind: ListKind | None, after: tuple[datetime, str] | None, limit: int):
    """The records of one page, newest first (equal dates by id, descending: the cursor's order),
    and whether more follow."""
    if kind is not None:
        records = [r for r in records if is_note_id(r["id"]) == (kind == "note")]
    keyed = sorted(
        (((datetime.fromisoformat(r["date"]), r["id"]), r) for r in records), key=lambda x: x[0], reverse=True
    )
    if after is not None:
        keyed = [(key, r) for key, r in keyed if key < after]
    return [r for _, r in keyed[:limit]], len(keyed) > limit


def _item_page(namespace: str, items: list[MemoryItem], page: list[dict], more: bool, bound: str) -> ItemPage:
    cursor = encode_cursor(page[-1]["date"], page[-1]["id"], bound) if more else None
    return ItemPage(namespace=namespace, items=items, cursor=cursor)


# An unfiltered page reads the session records and its items' head nodes from the graph store,
# not the whole snapshot: a 10,000-turn namespace's first page costs a few small queries, not a
# load of every node and edge (docs/benchmarks-history.md, "The memory browser on 10,000 turns").
# The generation, read before and after, makes it one committed state; if a commit landed in
# between, ``list_items`` reads the page from the snapshot instead.
def _heads(store: Any, records: list[dict], gen: int) -> dict[str, tuple[str, str]] | None:
    """``nid -> (text, kind)`` of the records' head nodes; None when the namespace changed since ``gen``."""
    nids = [_head_nid(r, _turns(store, r["id"]) if is_note_id(r["id"]) else []) for r in records]
    texts = store.db.node_texts(nids)
    kinds = store.db.node_kinds(nids)
    if store.db.generation() != gen:
        return None
    return {n: (texts[n][0], kinds[n]) for n in nids if n in texts and n in kinds}
