"""A store's own commit updates its cached snapshot in memory: the next
``snapshot()`` reads only what the commit changed, not the namespace. The delta-updated
snapshot must equal a full reload column by column, in the same order, after every write of
randomized workloads; another process's commit still forces a full reload."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from memgraph_agents.ingest import ingest_conversation
from memgraph_agents.model import Conversation, Session, Turn
from memgraph_agents.runtime import get_store
from memgraph_agents.storage import vector_plan
from memgraph_agents.storage.memory_store import MemoryStore
from memgraph_agents.storage.snapshot import GraphSnapshot
from tests.workloads import chat_thread, conversation

pytestmark = pytest.mark.slow  # seconds per test: left out of the fast subset (-m "not slow")


def assert_same_snapshot(got: GraphSnapshot, want: GraphSnapshot) -> None:
    assert got.generation == want.generation
    assert got.ids.tolist() == want.ids.tolist()
    assert got.kind.tolist() == want.kind.tolist()
    assert got.text.tolist() == want.text.tolist()
    assert got.owner.tolist() == want.owner.tolist()
    assert got.turn_ids.tolist() == want.turn_ids.tolist()
    assert got.attrs.tolist() == want.attrs.tolist()
    assert got.sessions == want.sessions

    def edges(s: GraphSnapshot) -> list:
        return [
            (s.ids[a], s.ids[b], int(k), lab, float(w), tuple(t))
            for a, b, k, lab, w, t in zip(s.src, s.dst, s.ekind, s.elabel, s.eweight, s.eturns)
        ]

    assert Counter(edges(got)) == Counter(edges(want))
    assert edges(got) == edges(want)  # and in reload order
    gv, wv = peek_vectors(got), want.vectors()
    assert gv.shape == wv.shape
    assert np.array_equal(gv, wv)
    for code, rows in got._kind_rows.items():  # per-kind vectors, carried by the delta
        want_idx = np.flatnonzero(want.kind == code)
        assert rows.idx.tolist() == want_idx.tolist()
        assert np.array_equal(rows.vecs, wv[want_idx])
    assert got.id_rank.tolist() == want.id_rank.tolist()  # carried by the delta when it was computed
    assert got.index == want.index  # id -> position, updated by the delta


def peek_vectors(s: GraphSnapshot) -> np.ndarray:
    """``s.vectors()`` without keeping the matrix on ``s``: a delta's plan stays a plan, and
    the next delta extends it (as when nobody reads the whole matrix between writes)."""
    if s._vectors is None and s._vector_plan is not None:
        return s._vector_plan.materialize()
    return s.vectors()


class Checker:
    """Wraps a store's writes: after each, the cached snapshot vs a full reload. ``reader``:
    what was read of the snapshot before each write: the whole vectors matrix (``matrix``)
    or, as an ingest reads it, only the vectors of the kinds it compares with (``kinds``)."""

    def __init__(self, store: MemoryStore, monkeypatch, reader: str = "matrix") -> None:
        self.store, self.writes, self.deltas = store, 0, 0
        self.carried = self.chained = 0  # snapshots with per-kind vectors carried; with a plan of 2+ commits
        commit, install = store.commit_session, store._install

        def checked_commit(w):
            snap = store.snapshot()
            if reader == "matrix":
                snap.vectors()  # a reader had the snapshot and its matrix
            else:
                for kind in ("event", "argument", "sentence"):
                    snap.kind_vectors(kind)
            commit(w)
            self.check()

        def counted_install(base, result):
            install(base, result)
            self.deltas += result is not None

        monkeypatch.setattr(store, "commit_session", checked_commit)
        monkeypatch.setattr(store, "_install", counted_install)

    def check(self) -> None:
        self.writes += 1
        s = self.store
        cached = s.snapshot()
        self.carried += bool(cached._kind_rows)
        self.chained += cached._vector_plan is not None and len(cached._vector_plan.fresh) > 1
        fresh = GraphSnapshot.from_rows(*s.db.read_graph(), s._load_vectors)
        assert_same_snapshot(cached, fresh)


def note(i: int, rng: random.Random) -> Conversation:
    from datetime import datetime, timedelta

    when = datetime(2024, 6, 1, 8, 0) + timedelta(days=i)
    text = rng.choice(["Remember: Ana's beagle is called Bolt.", "Note: the kayak club meets on Fridays in Porto."])
    turn = Turn(id=f"note{i}:1", speaker="Ana", text=f"{text} ({i})", timestamp=when)
    return Conversation(id=f"note{i}", sessions=[Session(id=f"note{i}", date=when, turns=[turn])], speakers=["Ana"])


def edited(session: Session, n: int) -> Session:
    turns = list(session.turns)
    k = n % len(turns)
    turns[k] = turns[k].model_copy(update={"text": f"Edited {n}: we moved the {['chess', 'pottery'][n % 2]} meetup."})
    return session.model_copy(update={"turns": turns})


@pytest.mark.parametrize(
    ("seed", "reader"), [(1, "matrix"), (2, "matrix"), (3, "matrix"), (4, "kinds"), (5, "kinds"), (6, "kinds")]
)
def test_delta_snapshot_equals_a_full_reload(settings, monkeypatch, seed, reader):
    rng = random.Random(seed)
    settings = settings.model_copy(update={"topic_recluster_every": 2})
    ns = f"delta{seed}"
    monkeypatch.setattr(vector_plan, "MAX_STEPS", 3)  # plans chained, and materialized now and then
    store = get_store(settings, ns)
    checker = Checker(store, monkeypatch, reader)
    stored: dict[str, tuple[Conversation, Session]] = {}
    thread_len, n = 0, 0
    for _ in range(26):
        op = rng.choice(["new", "new", "append", "append", "replace", "delete", "note"])
        n += 1
        if op == "new" or not stored:
            conv = conversation(f"c{n}", 1, tag=f"t{n}", turns=rng.randint(2, 6))
            conv = conv.model_copy(update={"sessions": [conv.sessions[0].model_copy(update={"id": f"c{n}-S1"})]})
            ingest_conversation(conv, settings, namespace=ns)
            stored[conv.sessions[0].id] = (conv, conv.sessions[0])
        elif op == "append":
            thread_len += rng.randint(1, 3)
            ingest_conversation(chat_thread(thread_len), settings, namespace=ns)
            t = chat_thread(thread_len)
            stored[t.sessions[0].id] = (t, t.sessions[0])
        elif op == "replace" and set(stored) - {"thread-s1"}:
            sid = rng.choice(sorted(set(stored) - {"thread-s1"}))  # an edited thread no longer appends
            conv, session = stored[sid]
            new = edited(session, n)
            ingest_conversation(conv.model_copy(update={"sessions": [new]}), settings, namespace=ns, replace=True)
            stored[sid] = (conv, new)
        elif op == "delete":
            sid = rng.choice(sorted(stored))
            store.delete_session(sid)
            del stored[sid]
            if sid == "thread-s1":
                thread_len = 0
            checker.check()
        elif op == "note":
            ingest_conversation(note(n, rng), settings, namespace=ns)
    print(f"seed {seed}: {checker.writes} writes checked, {checker.deltas} by delta", checker.carried, checker.chained)
    assert checker.writes >= 15
    if reader == "kinds":
        assert checker.carried >= checker.writes // 3 and checker.chained >= 1, (checker.carried, checker.chained)
    assert checker.deltas >= checker.writes // 2, (checker.deltas, checker.writes)


def test_a_commit_by_someone_else_forces_a_full_reload(settings):
    store = get_store(settings, "other")
    ingest_conversation(conversation("a", 2, tag="a"), settings, namespace="other")
    before = store.snapshot()
    before.vectors()
    # A second store object of the namespace writes, as another process would.
    other = MemoryStore(settings.data_dir, "other", store.embedder)
    try:
        gen = other.db.generation()
        with other.db.write() as t:
            t.set_meta("probe", "1")
        snap = store.snapshot()
        assert snap is not before and snap.generation == gen + 1
        # Someone else's write between our snapshot and our commit: no delta, a full reload.
        calls: list = []
        original = store._install
        store._install = lambda *a: calls.append(a) or original(*a)  # type: ignore[method-assign]

        def foreign_write(stage: str) -> None:
            with other.db.write() as t:
                t.set_meta("probe", stage)

        store.fault_hook = foreign_write  # runs between our vectors and our graph commit
        ingest_conversation(conversation("b", 1, tag="b"), settings, namespace="other")
        assert calls == []
        assert_same_snapshot(store.snapshot(), GraphSnapshot.from_rows(*store.db.read_graph(), store._load_vectors))
        store.fault_hook = None
        ingest_conversation(conversation("c", 1, tag="c"), settings, namespace="other")
        assert len(calls) == 1  # our own commit alone: the delta
        assert_same_snapshot(store.snapshot(), GraphSnapshot.from_rows(*store.db.read_graph(), store._load_vectors))
    finally:
        other.close()
