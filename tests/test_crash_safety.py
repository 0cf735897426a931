"""Crash safety: SIGKILL a real ingest process at random points, reopen the store.

Each trial forks a process (``multiprocessing`` forkserver, modules preloaded so a trial
costs well under a second) that ingests, deletes or replaces sessions of one namespace, or
appends turns to a stored chat thread, on its own data dir (embedded Chroma + SQLite, hash
embeddings). Replacing an edited conversation and growing a chat thread get 20 kills each:
no kill may lose a stored session (each is its old or its new version, whole). The parent kills it with SIGKILL
after a random delay drawn over the length of that work, then reopens the store (which runs
``recover``) and checks:

* ``PRAGMA integrity_check`` is ``ok`` before and after recovery;
* every session is wholly present or absent: no ``pending``/``deleting`` row or unfinished
  write survives, each committed session has exactly its turns, with their text; a
  replacement or an append leaves the old or the new version, never none; an ingest killed after k
  sessions has exactly the nodes and edges of a clean ingest of those k sessions;
* no orphans: every edge joins two stored nodes, every node and edge belongs to a committed
  session (or to the namespace-level topic layer), Chroma holds exactly the embedded nodes,
  each with the vector of its committed text (document = text);
* the store is usable: ingesting the rest gives the same graph as a clean one-shot ingest.

A note's update (``Memory.update``, the replace path) gets kills of its own: the note is its
old text with one version in its history or its new text with two, never gone.

The trials run on both graph stores (``graph_backend``): SQLite in the data dir, and
PostgreSQL, where a killed writer's transaction dies with its connection and ``recover`` runs
in the next process that opens the namespace. A PostgreSQL trial starts from a copy of a
prepared database (``CREATE DATABASE … TEMPLATE``) beside the copy of the data dir.

Half of the trials widen the window between the Chroma write and the SQLite commit (and
between the Chroma delete and the SQLite delete) with a sleep in the child, so that kills
often land inside it; the kill itself is still SIGKILL at a random time.
"""

from __future__ import annotations

import os
import random
import shutil
import sqlite3
import time
from collections import Counter
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest

from memgraph_agents import Memory
from memgraph_agents.api.sources import note_conversation, note_id
from memgraph_agents.config import Settings
from memgraph_agents.construct.build import session_hash
from memgraph_agents.ingest import ingest_conversation
from memgraph_agents.model import Session, Turn
from memgraph_agents.runtime import forget_store
from memgraph_agents.storage import MemoryStore, SessionRecord, SessionWrite
from memgraph_agents.storage.graph_store import graph_exists, open_graph_store
from tests.workloads import chat_thread, conversation, forkserver, rounded_rows

pytestmark = pytest.mark.slow  # seconds per test: left out of the fast subset (-m "not slow")

NS = "crash"
N_SESSIONS = 3
TRIALS = {"ingest": 6, "delete": 2, "replace": 20, "chat": 20}  # 48 kills
# Seconds of sleep inside the critical windows (between the vector write and the commit, and
# after each vector delete) in "widened" trials, so that kills often land inside them.
WIDEN = {"ingest": 0.04, "delete": 0.04, "replace": 0.25, "chat": 0.1}
CHAT_BASE, CHAT_STEP, CHAT_TURNS = 6, 2, 12  # a stored 6-turn thread grows 2 turns a write to 12
NOTE_OLD, NOTE_NEW = "Ana keeps her spare key under the blue flowerpot.", "Ana keeps her spare key with Ben."
NOTE_WHEN = datetime(2024, 5, 1, 8, 0)
UPDATE_TRIALS = 12


def settings_for(data_dir: Path, url: str | None = None) -> Settings:
    """A trial's memory: its data dir, and its PostgreSQL database when ``url`` is one."""
    return Settings(data_dir=data_dir, embeddings="hash", namespace=NS, graph_url=url)


def changed(conv):
    """The same sessions with new text (``check`` deletes the old version, then rebuilds)."""
    sessions = [
        Session(
            id=s.id,
            date=s.date,
            turns=[Turn(id=t.id, speaker=t.speaker, text=t.text + " Edited later.") for t in s.turns],
        )
        for s in conv.sessions
    ]
    return conv.model_copy(update={"sessions": sessions})


# --------------------------------------------------------------------------- the child


def _child(data_dir: str, url: str | None, mode: str, widen: float, ready, done) -> None:
    """Runs in a forked process: the work that gets killed."""
    from memgraph_agents.runtime import get_store

    settings = settings_for(Path(data_dir), url)
    conv = conversation("crash", N_SESSIONS)
    store = get_store(settings)
    if widen:
        store.fault_hook = lambda stage: time.sleep(widen)
        delete_vectors = store.vectors.delete

        def slow_delete(ids):
            delete_vectors(ids)
            time.sleep(widen)

        store.vectors.delete = slow_delete
    ready.set()  # the kill timer starts here
    if mode in ("ingest", "prepare"):
        ingest_conversation(conv, settings)
    elif mode == "prepare-chat":
        ingest_conversation(thread_prefix(CHAT_BASE), settings)
    elif mode == "delete":
        for s in reversed(conv.sessions):
            store.delete_session(s.id)
    elif mode == "replace":
        ingest_conversation(changed(conv), settings, replace=True)
    elif mode == "prepare-note":
        Memory(settings=settings).add(NOTE_OLD, when=NOTE_WHEN, speaker="Ana")
    elif mode == "update":  # a note corrected: the replace path of the commit protocol
        Memory(settings=settings).update(note_id(NOTE_OLD, NOTE_WHEN), NOTE_NEW)
    else:  # chat: the stored thread grows, a write per new pair of turns
        for n in range(CHAT_BASE + CHAT_STEP, CHAT_TURNS + 1, CHAT_STEP):
            ingest_conversation(thread_prefix(n), settings)
    done.set()


def note_sessions() -> tuple[Session, Session]:
    """The note as added and as updated (same id, date, speaker and turn id; new text)."""
    old = note_conversation(NOTE_OLD, speaker="Ana", when=NOTE_WHEN).sessions[0]
    turn = old.turns[0].model_copy(update={"text": NOTE_NEW})
    return old, old.model_copy(update={"turns": [turn]})


def thread_prefix(n: int):
    return chat_thread(n, "chat")


@pytest.fixture(scope="module")
def mp():
    return forkserver()  # heavy modules imported once in the fork server: every trial forks from it


def run_child(
    mp, memory: Settings, mode: str, widen: float, kill_after: float | None, base: Settings | None = None
) -> tuple[float, bool]:
    """Start the child on ``memory``; SIGKILL it ``kill_after`` seconds after it is ready (None:
    let it finish). ``base``: a memory (not open anywhere) whose data dir is copied to
    ``memory``'s first (its database was made from ``base``'s as a template).

    Returns (seconds from ready to done or to the kill, whether it finished first)."""
    data_dir = memory.data_dir
    if base is not None:
        shutil.copytree(base.data_dir, data_dir, ignore=shutil.ignore_patterns("memgraph-process.lock"))
    ready, done = mp.Event(), mp.Event()
    p = mp.Process(target=_child, args=(str(data_dir), memory.graph_url, mode, widen, ready, done), daemon=True)
    p.start()
    try:
        assert ready.wait(60), "child did not get ready"
        t0 = time.perf_counter()
        if kill_after is None:
            assert done.wait(120), "child did not finish"
            p.join(30)
            assert p.exitcode == 0
            return time.perf_counter() - t0, True
        finished = done.wait(kill_after)
        p.kill()  # SIGKILL
        p.join(30)
        return time.perf_counter() - t0, finished
    finally:
        if p.is_alive():
            p.kill()
            p.join(10)


# --------------------------------------------------------------------------- checks


def integrity(memory: Settings) -> str:
    """SQLite's ``integrity_check`` of the namespace's file; PostgreSQL checks itself ("ok")."""
    if memory.graph_url is not None:
        return "ok"
    con = sqlite3.connect(str(memory.data_dir / "namespaces" / NS / "graph.sqlite"))
    try:
        return con.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        con.close()


def peek(memory: Settings) -> tuple[Counter[str], bool]:
    """As the kill left it, before any recovery: session rows by status, and whether an
    unfinished write is recorded."""
    db = open_graph_store(memory.data_dir, NS, memory.graph_url, memory.store_id)
    try:
        return Counter(s["status"] for s in db.sessions(None)), bool(db.pending_writes())
    finally:
        db.close()


def rows(memory: Settings) -> tuple[list, list]:
    """The namespace's (nodes, edges), sorted and rounded: the same on either graph store."""
    db = open_graph_store(memory.data_dir, NS, memory.graph_url, memory.store_id)
    try:
        return rounded_rows(db.raw_nodes(), db.raw_edges())
    finally:
        db.close()


def check_consistent(store: MemoryStore, versions: dict[str, dict[str, Session]]) -> dict[str, str]:
    """Every session whole or absent, no orphans. ``versions[id][hash]`` = the session with that
    content; returns committed session id -> content hash."""
    db = store.db
    all_sessions = db.sessions(None)
    assert {s["status"] for s in all_sessions} <= {"committed"}, all_sessions
    assert db.pending_writes() == [] and db.vector_garbage() == []
    committed = {s["id"]: s["content_hash"] for s in all_sessions}
    owners = set(committed) | {""}  # "" = namespace-level derived rows (topics)
    nodes = {r[0]: r for r in db.raw_nodes()}
    edges = db.raw_edges()
    for sid, h in committed.items():
        session = versions[sid][h]
        turns = {nid: r for nid, r in nodes.items() if r[1] == "turn" and r[3] == sid}
        assert set(turns) == {f"turn:{t.id}" for t in session.turns}, sid
        for t in session.turns:  # this version's text (relative dates get resolved, the end stays)
            text = turns[f"turn:{t.id}"][2]
            assert text.startswith(f"{t.speaker}: ") and text.endswith(" ".join(t.text.split()[-3:])), (text, t.text)
        assert f"session:{sid}" in nodes
    for nid, r in nodes.items():
        assert r[3] in owners, f"node {nid} of uncommitted session {r[3]!r}"
    for e in edges:
        assert e[0] in nodes and e[1] in nodes, f"orphan edge {e[:4]}"
        assert e[4] in owners, f"edge {e[:4]} of uncommitted session {e[4]!r}"
    embedded = {nid for nid, r in nodes.items() if r[6]}
    got = store.vectors.collection.get(include=["documents", "embeddings"])
    assert set(got["ids"]) == embedded, set(got["ids"]) ^ embedded
    for nid, doc, vec in zip(got["ids"], got["documents"], got["embeddings"]):
        assert doc == nodes[nid][2], nid  # the vector of the committed text
        assert np.allclose(vec, store.embedder.embed([doc])[0], atol=1e-5), nid
    snap = store.snapshot()  # what readers see: the same committed sessions
    assert set(snap.sessions) == set(committed) and len(snap) == len(nodes)
    return committed


# --------------------------------------------------------------------------- the test


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """Graph rows (nodes, edges) after each session of a clean ingest into SQLite (k -> rows);
    PostgreSQL stores the same rows (``tests/test_pg_store.py``)."""
    conv = conversation("crash", N_SESSIONS)
    s = settings_for(tmp_path_factory.mktemp("reference"))
    by_k: dict[int, tuple[list, list]] = {0: ([], [])}
    ingest_conversation(conv, s, progress=lambda sid, done, total: by_k.__setitem__(done, rows(s)))
    return by_k


def test_sigkill_at_random_points_leaves_whole_sessions_only(tmp_path, mp, reference, graph_backend):
    rng = random.Random(int(os.environ.get("MEMGRAPH_CRASH_SEED", "6")))
    conv = conversation("crash", N_SESSIONS)
    new = changed(conv)
    versions = {s.id: {session_hash(s): s, session_hash(n): n} for s, n in zip(conv.sessions, new.sessions)}
    thread = {n: thread_prefix(n).sessions[0] for n in range(CHAT_BASE, CHAT_TURNS + 1, CHAT_STEP)}
    versions[thread[CHAT_BASE].id] = {session_hash(s): s for s in thread.values()}

    def memory(name: str, base: Settings | None = None) -> Settings:
        return settings_for(tmp_path / name, graph_backend.database(base.graph_url if base else None))

    # Whole ingests, made by a process that has exited: the other trials start from copies.
    bases = {"conv": memory("base"), "chat": memory("base-chat")}
    assert run_child(mp, bases["conv"], "prepare", 0.0, None)[1]
    assert run_child(mp, bases["chat"], "prepare-chat", 0.0, None)[1]
    base_of = {"ingest": None, "delete": bases["conv"], "replace": bases["conv"], "chat": bases["chat"]}
    # Calibrate: how long each kind of work takes uninterrupted here (the kill window).
    length = {}
    for mode in TRIALS:
        m = memory(f"calibrate-{mode}", base_of[mode])
        length[mode], finished = run_child(mp, m, mode, 0.0, None, base_of[mode])
        assert finished
        store = MemoryStore.open(m, NS)
        check_consistent(store, versions)
        store.close()
        graph_backend.forget(m.graph_url)

    outcomes: Counter[str] = Counter()
    trial = 0
    for mode, n in TRIALS.items():
        for i in range(n):
            trial += 1
            widen = WIDEN[mode] if i % 2 else 0.0
            writes = (CHAT_TURNS - CHAT_BASE) // CHAT_STEP if mode == "chat" else N_SESSIONS
            span = length[mode] + writes * widen * 2
            m = memory(f"trial-{trial:02d}-{mode}", base_of[mode])
            _, finished = run_child(mp, m, mode, widen, rng.uniform(0.0, span), base_of[mode])
            if not graph_exists(m.data_dir, NS, m.graph_url, m.store_id):  # killed before the namespace was created
                outcomes[f"{mode}: before any write"] += 1
                continue
            assert integrity(m) == "ok"
            raw_status, unfinished = peek(m)
            caught = [st for st in ("pending", "deleting") if raw_status.get(st)] + (["write"] if unfinished else [])
            outcomes[
                f"{mode}: " + ("finished" if finished else ("mid-" + "/".join(caught) if caught else "between"))
            ] += 1

            forget_store(m, NS)
            store = MemoryStore.open(m, NS)  # runs recover()
            assert integrity(m) == "ok"
            committed = check_consistent(store, versions)
            ids = [s.id for s in conv.sessions]
            if mode == "ingest":
                k = len(committed)
                assert list(committed) == ids[:k] or sorted(committed) == sorted(ids[:k])
                assert rows(m) == reference[k], f"trial {trial}: graph after {k} sessions differs"
                # Usable: finishing the ingest gives the graph of a clean one-shot ingest.
                report = ingest_conversation(conv, m)
                assert report.sessions_new == N_SESSIONS - k
                assert rows(m) == reference[N_SESSIONS]
                check_consistent(store, versions)
            elif mode == "delete":
                assert sorted(committed) == sorted(ids[: len(committed)])  # deleted from the end
                assert all(h == session_hash(s) for s, h in zip(conv.sessions, committed.values()))
            elif mode == "replace":  # no loss: each session is its old or its new version
                assert sorted(committed) == sorted(ids), f"trial {trial}: a session was lost"
                report = ingest_conversation(new, m, replace=True)
                assert report.sessions_new + report.sessions_unchanged == N_SESSIONS
                final = check_consistent(store, versions)
                assert final == {s.id: session_hash(s) for s in new.sessions}
            else:  # chat: the thread is there with all its stored turns (a prefix of the final one)
                sid = thread[CHAT_BASE].id
                assert list(committed) == [sid], f"trial {trial}: the thread was lost"
                assert committed[sid] in versions[sid]
                report = ingest_conversation(thread_prefix(CHAT_TURNS), m)
                assert report.sessions_replaced == 0 and report.sessions_unchanged + report.sessions_appended == 1
                final = check_consistent(store, versions)
                assert final == {sid: session_hash(thread[CHAT_TURNS])}
            store.close()
            forget_store(m, NS)
            graph_backend.forget(m.graph_url)
    print(f"\ncrash trials ({graph_backend.name}):", dict(sorted(outcomes.items())))
    assert trial >= 48
    # The kills landed both inside the two-store windows and outside them.
    for mode in ("replace", "chat"):
        assert sum(v for k, v in outcomes.items() if k.startswith(mode) and "mid-" in k) >= 2, outcomes
        assert sum(v for k, v in outcomes.items() if k.startswith(mode) and "mid-" not in k) >= 2, outcomes


def test_sigkill_mid_update_leaves_the_old_note_or_the_new_one_with_its_history(tmp_path, mp, graph_backend):
    """A note's update killed at random points: after recovery the note is its old text with one
    version in its history, or its new text with two; never gone, never both, never a version
    without its text. Half of the kills land in a widened window inside the commit."""
    rng = random.Random(int(os.environ.get("MEMGRAPH_CRASH_SEED", "6")))
    old, new = note_sessions()
    versions = {old.id: {session_hash(old): old, session_hash(new): new}}

    def memory(name: str, base: Settings | None = None) -> Settings:
        return settings_for(tmp_path / name, graph_backend.database(base.graph_url if base else None))

    base = memory("base-note")
    assert run_child(mp, base, "prepare-note", 0.0, None)[1]
    length, finished = run_child(mp, memory("calibrate-update", base), "update", 0.0, None, base)
    assert finished
    outcomes: Counter[str] = Counter()
    for trial in range(UPDATE_TRIALS):
        widen = WIDEN["replace"] if trial % 2 else 0.0
        m = memory(f"update-{trial:02d}", base)
        _, finished = run_child(mp, m, "update", widen, rng.uniform(0.0, length + 2 * widen), base)
        assert integrity(m) == "ok"
        mid = peek(m)[1]  # killed inside the write
        forget_store(m, NS)
        store = MemoryStore.open(m, NS)  # runs recover()
        committed = check_consistent(store, versions)
        assert list(committed) == [old.id], f"trial {trial}: the note was lost"
        texts = [v["text"] for v in store.note_versions(old.id)]
        is_new = committed[old.id] == session_hash(new)
        assert texts == ([NOTE_OLD, NOTE_NEW] if is_new else [NOTE_OLD]), (trial, texts)
        outcomes[f"{'new' if is_new else 'old'}{' (finished)' if finished else ''}{' mid-write' if mid else ''}"] += 1
        store.close()
        mem = Memory(settings=m)  # usable: the update can be made (again)
        assert mem.update(old.id, NOTE_NEW).text == NOTE_NEW
        assert [v.text for v in mem.history(old.id).versions] == [NOTE_OLD, NOTE_NEW]
        forget_store(m, NS)
        graph_backend.forget(m.graph_url)
    print(f"\nupdate kills ({graph_backend.name}):", dict(sorted(outcomes.items())))
    assert sum(v for k, v in outcomes.items() if k.startswith("old")) >= 1, outcomes
    assert sum(v for k, v in outcomes.items() if k.startswith("new")) >= 1, outcomes
    assert sum(v for k, v in outcomes.items() if k.endswith("mid-write")) >= 1, outcomes


def test_survivable_failure_mid_commit_is_rolled_back_at_once(tmp_path, graph_backend):
    """A Chroma error (not a crash) inside ``commit_session`` undoes the pending row at once."""
    settings = settings_for(tmp_path / "mem", graph_backend.database())
    conv = conversation("crash", 2)
    ingest_conversation(conv.model_copy(update={"sessions": conv.sessions[:1]}), settings)
    store = MemoryStore.open(settings)
    before = rows(settings), sorted(store.vectors.all_ids())
    turn = conv.sessions[1].turns[0]
    from memgraph_agents.model.graph import Node, NodeKind

    node = Node(id=f"turn:{turn.id}", kind=NodeKind.TURN, text=turn.text, session_id="S2", turn_ids=[turn.id])
    bad = SessionWrite(
        record=SessionRecord(id="S2", date="2024-02-01T00:00:00"),
        nodes=[node],
        edges=[],
        vectors={node.id: np.ones(7, dtype=np.float32)},
    )  # wrong dimension: Chroma refuses it
    with pytest.raises(Exception, match="(?i)dimension"):
        store.commit_session(bad)
    assert [s["id"] for s in store.db.sessions(None)] == ["S1"]  # no pending row left for recover()
    assert (rows(settings), sorted(store.vectors.all_ids())) == before
    other = open_graph_store(settings.data_dir, NS, settings.graph_url, settings.store_id)  # another reader
    assert other.generation() == store.db.generation()
    other.close()


def test_deleting_a_session_keeps_the_vectors_of_arguments_it_shared(tmp_path, graph_backend):
    """Found by the replace trials: deleting a session dropped, from Chroma, the vectors of the
    arguments it owned but other sessions still used (their owner changed only in SQLite)."""
    settings = settings_for(tmp_path / "mem", graph_backend.database())
    conv = conversation("crash", 3)
    ingest_conversation(conv, settings)
    store = MemoryStore.open(settings)
    shared = {r[0] for r in store.db.raw_nodes() if r[1] == "argument" and r[3] == "S1"}
    store.delete_session("S1")
    nodes = {r[0]: r for r in store.db.raw_nodes()}
    kept = shared & set(nodes)
    assert kept, "expected arguments of S1 that S2/S3 use too"
    got = store.vectors.collection.get(ids=sorted(kept), include=["documents"])
    assert sorted(got["ids"]) == sorted(kept)
    assert all(doc == nodes[i][2] and nodes[i][3] != "S1" for i, doc in zip(got["ids"], got["documents"]))
    assert set(store.vectors.all_ids()) == {i for i, r in nodes.items() if r[6]}
