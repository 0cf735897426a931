"""Conversations and store fingerprints shared by the reliability tests (crash, concurrency, isolation)."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import sqlite3
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np

from memgraph_agents.model import Conversation, Session, Turn

_PEOPLE = [("Ana", "Ben"), ("Cleo", "Dev"), ("Eli", "Fay"), ("Gus", "Hana")]
_PLACES = ["Lisbon", "Porto", "Kyoto", "Oslo", "Quito", "Hanoi", "Dakar", "Lima", "Perth", "Riga", "Tunis", "Cusco"]
_HOBBIES = [
    "pottery",
    "rock climbing",
    "chess",
    "sourdough baking",
    "birdwatching",
    "salsa dancing",
    "watercolour painting",
    "kayaking",
    "beekeeping",
    "astronomy",
    "knitting",
    "trail running",
]
_PETS = ["beagle", "parrot", "tabby cat", "tortoise", "ferret", "goldfish"]


def conversation(
    cid: str = "chat",
    n_sessions: int = 6,
    *,
    tag: str = "",
    turns: int = 5,
    start: datetime = datetime(2024, 1, 5, 18, 0),
) -> Conversation:
    """A varied two-person chat: ``n_sessions`` dated sessions of ``turns`` turns.

    ``tag`` goes into every turn id (``{tag}D3:2``) and into the text, so that conversations
    built with different tags share no node id and no rare word.
    """
    a, b = _PEOPLE[sum(map(ord, cid)) % len(_PEOPLE)]
    marker = f" ({tag})" if tag else ""
    sessions = []
    for s in range(1, n_sessions + 1):
        place, hobby, pet = _PLACES[s % len(_PLACES)], _HOBBIES[(3 * s) % len(_HOBBIES)], _PETS[s % len(_PETS)]
        lines = [
            (a, f"Hi {b}! Yesterday I went to {place} for a {hobby} weekend{marker}."),
            (b, f"That sounds great, {a}. Did you bring your {pet} along to {place}?"),
            (a, f"No, the {pet} stayed with my sister. The {hobby} class met at 9 am every day."),
            (b, f"I am thinking of trying {hobby} next month, maybe in {_PLACES[(s + 5) % len(_PLACES)]}."),
            (a, f"Do it! I paid {20 + 7 * s} euros for the course and it was worth it."),
            (b, f"Noted. By the way my {_PETS[(s + 2) % len(_PETS)]} learned a new trick last week."),
        ][:turns]
        sessions.append(
            Session(
                id=f"{tag}S{s}",
                date=start + timedelta(days=9 * s, hours=s),
                turns=[Turn(id=f"{tag}D{s}:{i}", speaker=sp, text=tx) for i, (sp, tx) in enumerate(lines, start=1)],
            )
        )
    return Conversation(id=cid, sessions=sessions, speakers=[a, b])


def _rounded(value, digits: int = 5):
    if isinstance(value, float):
        return round(value, digits)
    if isinstance(value, list):
        return [_rounded(v, digits) for v in value]
    if isinstance(value, dict):
        return {k: _rounded(v, digits) for k, v in value.items()}
    return value


def graph_rows(db_path: Path, digits: int | None = 5) -> tuple[list, list, list]:
    """(sessions without timestamps, nodes, edges) of a namespace's SQLite file, sorted.

    Floats (edge weights, topic centroids) are rounded to ``digits``: a vector read back from
    Chroma may differ from the freshly computed one in the last float32 bit.
    """
    con = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        sessions = con.execute(
            "SELECT id, date, status, participants, n_turns, content_hash, builder FROM sessions ORDER BY id"
        ).fetchall()
        nodes = con.execute("SELECT * FROM nodes ORDER BY id").fetchall()
        edges = con.execute("SELECT * FROM edges ORDER BY src, dst, kind, label").fetchall()
    finally:
        con.close()
    if digits is not None:
        nodes = [(*r[:5], json.dumps(_rounded(json.loads(r[5]), digits), sort_keys=True), r[6]) for r in nodes]
        edges = [(*r[:5], round(r[5], digits), *r[6:]) for r in edges]
    return sessions, nodes, edges


def rounded_rows(nodes: list[tuple], edges: list[tuple], digits: int = 5) -> tuple[list, list]:
    """A graph store's ``raw_nodes()`` / ``raw_edges()`` (SQLite's or PostgreSQL's), sorted,
    floats rounded to ``digits`` as in ``graph_rows``: comparable across the two stores."""
    nodes = sorted((*r[:5], json.dumps(_rounded(json.loads(r[5]), digits), sort_keys=True), int(r[6])) for r in nodes)
    edges = sorted((*r[:5], round(r[5], digits), *r[6:]) for r in edges)
    return nodes, edges


def chroma_dump(collection) -> list:
    """Everything a Chroma collection holds, sorted by id (embeddings rounded to 6 digits)."""
    got = collection.get(include=["embeddings", "metadatas", "documents"])
    rows = []
    for i, nid in enumerate(got["ids"]):
        emb = hashlib.sha256(np.round(np.asarray(got["embeddings"][i], dtype=np.float64), 6).tobytes()).hexdigest()
        rows.append((nid, json.dumps(got["metadatas"][i], sort_keys=True), got["documents"][i], emb))
    return sorted(rows)


def digest(obj) -> str:
    return hashlib.sha256(repr(obj).encode("utf-8", "surrogatepass")).hexdigest()


# Imported once by the fork server: a forked test process then starts in milliseconds.
FORKSERVER_PRELOAD = [
    "memgraph_agents.ingest",
    "memgraph_agents.construct.pipeline.sequence",
    "memgraph_agents.storage",
    "memgraph_agents.cli.main",
    "memgraph_agents.navigator.run",
    "chromadb",
    "tests.workloads",
    "tests.test_crash_safety",
    "tests.test_concurrency",
]


def forkserver():
    """The ``forkserver`` multiprocessing context, preloaded (the server is shared by the session).

    Children of the fork server get its environment and sys.path from when it started: pass
    settings to them as arguments.
    """
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(FORKSERVER_PRELOAD)
    return ctx


def assert_same_graph(got: tuple, want: tuple, tol: float = 1e-4) -> None:
    """``graph_rows(...)[1:]`` of two stores hold the same graph: same nodes and edges, floats
    (edge weights, centroids) within ``tol``. A vector read back from a Chroma server may
    differ from the freshly computed one in its last bits, which can move a rounded float."""
    (gn, ge), (wn, we) = got, want
    assert [r[:5] + (r[6],) for r in gn] == [r[:5] + (r[6],) for r in wn], "node rows differ"
    for a, b in zip(gn, wn):
        assert _close(json.loads(a[5]), json.loads(b[5]), tol), f"attrs of {a[0]} differ"
    assert [r[:5] + r[6:] for r in ge] == [r[:5] + r[6:] for r in we], "edge rows differ"
    w1, w2 = np.array([r[5] for r in ge], dtype=float), np.array([r[5] for r in we], dtype=float)
    assert np.allclose(w1, w2, atol=tol), "edge weights differ"


def _close(a, b, tol: float) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, (int, float)) and isinstance(b, (int, float)) and abs(a - b) <= tol
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y, tol) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k], tol) for k in a)
    return a == b


def chat_thread(n_turns: int, cid: str = "thread", *, start: datetime = datetime(2024, 3, 1, 9, 0)) -> Conversation:
    """One chat session of ``n_turns`` varied turns, a minute apart (the first ``k`` turns of a
    longer thread are exactly ``chat_thread(k)``: a thread that grows)."""
    a, b = "Ana", "Ben"
    turns = []
    for i in range(1, n_turns + 1):
        place, hobby, pet = _PLACES[i % len(_PLACES)], _HOBBIES[(5 * i) % len(_HOBBIES)], _PETS[i % len(_PETS)]
        text = [
            f"Turn {i}: I keep thinking about {hobby} in {place}.",
            f"Turn {i}: my {pet} would hate {place}, but {hobby} sounds fun.",
            f"Turn {i}: we paid {10 + i} euros for {hobby} gear in {place}.",
        ][i % 3]
        turns.append(
            Turn(id=f"{cid}-s1:{i}", speaker=a if i % 2 else b, text=text, timestamp=start + timedelta(minutes=i))
        )
    return Conversation(
        id=cid, sessions=[Session(id=f"{cid}-s1", date=start + timedelta(minutes=1), turns=turns)], speakers=[a, b]
    )
