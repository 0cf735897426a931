"""Concurrency: writers and readers at once on one data directory.

The model (README "Concurrency model"): one writer per namespace at a time — an ingest holds
the namespace's ingest lock (threads, asyncio tasks, processes) from the ``check`` of a
session to its commit — and readers work on immutable snapshots read in one SQLite read
transaction, reloaded when the generation changes. Embedded Chroma is one process per data
dir (a second process gets a clear error); several processes share a data dir through a
Chroma server.

What is checked while the writers run and afterwards:

* no query ever sees half a session: every snapshot's committed sessions have all their
  turns, no node belongs to an uncommitted session, retrieval returns only committed nodes;
* no lost sessions and no duplicates: every session of every conversation is stored once,
  a conversation ingested twice at the same time is stored once;
* serializable: the final graph equals a sequential ingest of the sessions in commit order.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from pathlib import Path

import pytest

from memgraph_agents.config import Settings
from memgraph_agents.ingest import aingest_conversation, ingest_conversation
from memgraph_agents.model.graph import NodeKind
from memgraph_agents.registry import retrieve
from memgraph_agents.runtime import forget_store, get_store
from memgraph_agents.storage import MemoryStore
from tests.chroma_server import ChromaServer, chroma_executable
from tests.workloads import assert_same_graph, conversation, forkserver, graph_rows, rounded_rows

pytestmark = pytest.mark.slow  # seconds per test: left out of the fast subset (-m "not slow")

NS = "shared"
QUESTIONS = [
    "Who went to Kyoto for a pottery weekend?",
    "How much did the course cost?",
    "Which pet learned a new trick?",
]


def convs(prefix: str, n: int, sessions: int = 3) -> list:
    return [conversation(f"{prefix}{i}", sessions, tag=f"{prefix}{i}", turns=4) for i in range(n)]


def expected_turns(conversations) -> dict[str, set[str]]:
    return {s.id: {f"turn:{t.id}" for t in s.turns} for c in conversations for s in c.sessions}


def check_snapshot(snap, turns_of: dict[str, set[str]]) -> int:
    """No half session in ``snap``; returns how many sessions it holds."""
    turn_idx = snap.indices_of(NodeKind.TURN)
    by_session: dict[str, set[str]] = {}
    for i in turn_idx:
        by_session.setdefault(snap.owner[i], set()).add(snap.ids[i])
    for sid in snap.sessions:
        assert by_session.get(sid, set()) == turns_of[sid], f"session {sid} is not whole in a snapshot"
    stray = {o for o in snap.owner if o and o not in snap.sessions}
    assert not stray, f"nodes of uncommitted sessions {stray} are visible"
    return len(snap.sessions)


def check_query(store, question: str, retriever: str) -> None:
    evidence = retrieve(retriever, question, store, k=5)
    later = store.snapshot()  # sessions only get added here: a later snapshot holds all earlier ones
    for ev in evidence:
        assert ev.node_id in later, ev.node_id
        assert set(ev.session_ids) <= set(later.sessions), (ev.node_id, ev.session_ids)


class Readers:
    """Threads that check snapshots and queries until stopped; failures are collected."""

    def __init__(self, stores, turns_of) -> None:
        self.stores, self.turns_of = stores, turns_of
        self.stop = threading.Event()
        self.errors: list[BaseException] = []
        self.snapshots = 0
        self.queries = 0
        self.max_seen = 0
        self.threads = [threading.Thread(target=self._run, args=(k,), daemon=True) for k in range(len(stores))]

    def _run(self, k: int) -> None:
        store = self.stores[k]
        names = ["dense", "ppr", "hybrid", "sentence_hop"]
        i = 0
        try:
            while not self.stop.is_set():
                n = check_snapshot(store.snapshot(), self.turns_of)
                self.snapshots += 1
                self.max_seen = max(self.max_seen, n)
                if n:
                    check_query(store, QUESTIONS[i % len(QUESTIONS)], names[(i + k) % len(names)])
                    self.queries += 1
                i += 1
                time.sleep(0.0005)  # let the writers have the GIL too
        except BaseException as e:  # noqa: BLE001 - reported by the test
            self.errors.append(e)

    def __enter__(self) -> Readers:
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(30)
        if self.errors:
            raise self.errors[0]


def replay_in_commit_order(store: MemoryStore, conversations, data_dir: Path) -> tuple:
    """Graph rows of a sequential ingest of the same sessions in the order they were committed."""
    order = [s["id"] for s in store.db.sessions("committed")]  # by seq
    where = {s.id: (c, s) for c in conversations for s in c.sessions}
    ref = Settings(data_dir=data_dir, embeddings="hash", namespace=NS)
    for sid in order:
        c, s = where[sid]
        ingest_conversation(c.model_copy(update={"sessions": [s]}), ref)
    return graph_rows(data_dir / "namespaces" / NS / "graph.sqlite")[1:]


def test_threads_and_asyncio_tasks_write_and_read_one_namespace(tmp_path, graph_backend):
    """On both graph stores: SQLite (WAL, file locks) and PostgreSQL (advisory locks,
    ``REPEATABLE READ`` snapshots)."""
    threaded = convs("t", 3)
    tasked = convs("a", 2)
    everything = threaded + tasked
    turns_of = expected_turns(everything)
    s = Settings(data_dir=tmp_path / "mem", embeddings="hash", namespace=NS, graph_url=graph_backend.database())
    store = get_store(s)
    other = MemoryStore.open(s, NS)  # a second store object on the same files: its own connections
    reports: list = []
    lock = threading.Lock()

    def write(conv):
        r = ingest_conversation(conv, s)
        with lock:
            reports.append(r)

    async def tasks():
        async def read_loop(stop: asyncio.Event) -> int:
            n = 0
            while not stop.is_set():
                check_snapshot(other.snapshot(), turns_of)
                n += 1
                await asyncio.sleep(0.001)
            return n

        stop = asyncio.Event()
        reader = asyncio.create_task(read_loop(stop))
        got = await asyncio.gather(
            *(aingest_conversation(c, s) for c in tasked), aingest_conversation(tasked[0], s)
        )  # the same conversation twice at once
        stop.set()
        assert await reader > 0
        return got

    t0 = time.perf_counter()
    with Readers([store, other, store], turns_of) as readers:
        writers = [threading.Thread(target=write, args=(c,)) for c in threaded + [threaded[1]]]  # again: a duplicate
        for w in writers:
            w.start()
        task_reports = asyncio.run(tasks())
        for w in writers:
            w.join(60)
    seconds = time.perf_counter() - t0
    assert seconds < 60
    reports += task_reports
    print(f"\n{seconds:.1f}s: {readers.snapshots} snapshots checked, {readers.queries} queries")
    assert readers.snapshots > 20 and readers.queries > 5

    # No lost sessions, no duplicates: every session once; the duplicate runs added nothing.
    stored = [r["id"] for r in store.db.sessions(None)]
    assert sorted(stored) == sorted(turns_of) and len(stored) == len(set(stored))
    assert {r["status"] for r in store.db.sessions(None)} == {"committed"}
    assert sum(r.sessions_new for r in reports) == len(turns_of)
    assert sum(r.sessions_unchanged for r in reports) == 2 * 3
    check_snapshot(store.snapshot(), turns_of)
    turn_rows = [r for r in store.db.raw_nodes() if r[1] == "turn"]
    assert len(turn_rows) == sum(len(t) for t in turns_of.values())
    embedded = {r[0] for r in store.db.raw_nodes() if r[6]}
    assert set(store.vectors.all_ids()) == embedded  # no orphan or missing vector
    # Serializable: the same graph as ingesting the sessions one after another in commit order.
    got = rounded_rows(store.db.raw_nodes(), store.db.raw_edges())
    want = rounded_rows(*replay_in_commit_order(store, everything, tmp_path / "replay"))  # on SQLite
    assert_same_graph(got, want)
    other.close()


# --------------------------------------------------------------------------- processes


def _process_writer(data_dir: str, host: str | None, port: int, prefix: str, n: int, out) -> None:
    """A separate process: ingest ``n`` conversations into the shared namespace and one of its own."""
    try:
        s = Settings(data_dir=Path(data_dir), embeddings="hash", namespace=NS, chroma_host=host, chroma_port=port)
        for c in convs(prefix, n):
            ingest_conversation(c, s)
        ingest_conversation(conversation(f"{prefix}-own", 2, tag=f"{prefix}o", turns=4), s, namespace=f"own-{prefix}")
        out.put(("ok", prefix))
    except BaseException as e:  # noqa: BLE001
        out.put(("error", f"{type(e).__name__}: {e}"))


def _process_reader(data_dir: str, host: str, port: int, turns_of: dict, stop, out) -> None:
    """A separate process: check snapshots and queries of the shared namespace until told to stop."""
    try:
        s = Settings(data_dir=Path(data_dir), embeddings="hash", namespace=NS, chroma_host=host, chroma_port=port)
        store = None
        snapshots = queries = 0
        while not stop.is_set():
            if store is None:
                if not (Path(data_dir) / "namespaces" / NS / "graph.sqlite").exists():
                    time.sleep(0.02)
                    continue
                store = MemoryStore.open(s, NS, create=False)
            n = check_snapshot(store.snapshot(), turns_of)
            snapshots += 1
            if n:
                check_query(store, QUESTIONS[snapshots % 3], ["dense", "ppr", "dwpr"][snapshots % 3])
                queries += 1
        out.put(("ok", snapshots, queries))
    except BaseException as e:  # noqa: BLE001
        out.put(("error", f"{type(e).__name__}: {e}"))


@pytest.fixture(scope="module")
def mp():
    return forkserver()


@pytest.mark.skipif(chroma_executable() is None, reason="the `chroma` executable (chromadb package) is missing")
def test_two_processes_share_one_data_dir_through_a_chroma_server(tmp_path, mp):
    server = ChromaServer(tmp_path / "chroma-server").start()
    try:
        data_dir = tmp_path / "mem"
        plan = {"p": 2, "q": 2}
        everything = [c for prefix, n in plan.items() for c in convs(prefix, n)]
        turns_of = expected_turns(everything)
        out, stop = mp.Queue(), mp.Event()
        writers = [
            mp.Process(target=_process_writer, args=(str(data_dir), server.host, server.port, p, n, out))
            for p, n in plan.items()
        ]
        reader = mp.Process(target=_process_reader, args=(str(data_dir), server.host, server.port, turns_of, stop, out))
        t0 = time.perf_counter()
        for p in [reader, *writers]:
            p.start()
        # This process reads too, through its own store.
        s = Settings(
            data_dir=data_dir, embeddings="hash", namespace=NS, chroma_host=server.host, chroma_port=server.port
        )
        local_checks = 0
        while any(w.is_alive() for w in writers) and time.perf_counter() - t0 < 90:
            if (data_dir / "namespaces" / NS / "graph.sqlite").exists():
                check_snapshot(get_store(s).snapshot(), turns_of)
                local_checks += 1
            time.sleep(0.01)
        for w in writers:
            w.join(30)
        stop.set()
        reader.join(30)
        results = [out.get(timeout=10) for _ in range(3)]
        assert all(r[0] == "ok" for r in results), results
        snapshots, queries = next(r[1:] for r in results if len(r) == 3)
        print(
            f"\n{time.perf_counter() - t0:.1f}s: other process checked {snapshots} snapshots, {queries} queries; "
            f"this one {local_checks}"
        )
        assert snapshots > 5 and local_checks > 5, (snapshots, local_checks)

        forget_store(s, NS)
        store = get_store(s)
        stored = [r["id"] for r in store.db.sessions(None)]
        assert sorted(stored) == sorted(turns_of) and {r["status"] for r in store.db.sessions(None)} == {"committed"}
        assert set(store.vectors.all_ids()) == {r[0] for r in store.db.raw_nodes() if r[6]}
        for p in plan:
            own = get_store(s, f"own-{p}")
            assert len(own.sessions()) == 2 and set(own.vectors.all_ids()) == {r[0] for r in own.db.raw_nodes() if r[6]}
        # Serializable across processes too (the replay is one process, embedded Chroma).
        got = graph_rows(store.db.path)[1:]
        assert_same_graph(got, replay_in_commit_order(store, everything, tmp_path / "replay"))
    finally:
        server.stop()


def _hold_embedded(data_dir: str, ready, release) -> None:
    s = Settings(data_dir=Path(data_dir), embeddings="hash", namespace=NS)
    ingest_conversation(conversation("holder", 1, tag="h", turns=3), s)
    ready.set()
    release.wait(60)


def _cli_in_process(argv: list[str], env: dict[str, str], out) -> None:
    import contextlib
    import io

    from memgraph_agents.cli.main import main

    os.environ.update(env)  # a forkserver child has the server's environment, not the test's

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        from memgraph_agents.cli import output

        output.err_console.file = err
        code = main(argv)
    out.put((code, err.getvalue()))


def test_embedded_chroma_is_one_process_per_data_dir(tmp_path, mp):
    """Found by testing: two processes on one embedded Chroma dir do not see each other's
    writes ("Error finding id"). A second process that writes gets a clear error instead; one
    that only reads needs no Chroma (exact search from the graph rows) and works."""
    data_dir = tmp_path / "mem"
    ready, release, out = mp.Event(), mp.Event(), mp.Queue()
    holder = mp.Process(target=_hold_embedded, args=(str(data_dir), ready, release))
    holder.start()
    try:
        assert ready.wait(60)
        # a read needs no lock (`ask`, `list`, `stats`: exact search from the graph rows) and
        # works next to the holder; a write (`note add`) needs the data dir's embedded Chroma
        base = ["--embeddings", "hash", "--data-dir", str(data_dir)]
        reader = mp.Process(
            target=_cli_in_process,
            args=([*base, "ask", "holder", "--namespace", NS, "--retriever", "dense"], {}, out),
        )
        reader.start()
        reader.join(60)
        code, err = out.get(timeout=10)
        assert code == 0, err
        argv = [*base, "note", "add", "A second process writes.", "--namespace", NS]
        t0 = time.perf_counter()
        second = mp.Process(target=_cli_in_process, args=(argv, {"MEMGRAPH_DATA_DIR_LOCK_TIMEOUT": "0.5"}, out))
        second.start()
        second.join(60)
        code, err = out.get(timeout=10)
        lines = [line for line in err.splitlines() if line.startswith("error:")]
        assert code == 2 and len(lines) == 1, err
        assert f"pid {holder.pid}" in lines[0] and "MEMGRAPH_CHROMA_HOST" in lines[0] and "chroma run" in lines[0]
        assert time.perf_counter() - t0 < 20  # it waited the configured 0.5 s, not forever
    finally:
        release.set()
        holder.join(30)
    # Once the first process is gone, the next one opens the memory normally.
    second = mp.Process(target=_cli_in_process, args=(argv, {}, out))
    second.start()
    second.join(60)
    code, err = out.get(timeout=10)
    assert code == 0, err
