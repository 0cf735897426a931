"""The PostgreSQL graph store on a real, throwaway PostgreSQL cluster, with the
vectors on a real Chroma server (workers share no folder).

* The same ingests (new, replace, append, delete) into SQLite and into PostgreSQL give the
  same rows and the same answers.
* Commit protocol: a crash between the vectors and the graph commit leaves a pending write;
  another worker (its own empty data dir) opening the namespace rolls it back.
* Generation: another worker's snapshot reloads after a commit.
* Hard isolation: another store id and another namespace never read each other's rows; every
  read of one scope is tried with the other's ids.
* Schema version: recorded, migrated from nothing, a newer one refused.
* The ingest lock spans workers; `forget`, `stats` and the namespace list use the server.
* Acceptance: `memgraph ingest` from one data dir and `memgraph ask` from another, through the
  servers, give the evidence the embedded default gives.
"""

from __future__ import annotations

import chromadb
import psycopg
import pytest

from memgraph_agents.cli.main import main
from memgraph_agents.config import Settings
from memgraph_agents.ingest import ingest_conversation
from memgraph_agents.registry import retrieve
from memgraph_agents.runtime import forget_store, get_store
from memgraph_agents.storage import MemoryStore, StoreFault, WriterBusyError
from memgraph_agents.storage.pg_schema import SCHEMA_VERSION, SchemaVersionError, close_pools, migrate, pool_for
from tests.chroma_server import ChromaServer, chroma_executable
from tests.pg_server import PostgresServer, unusable
from tests.workloads import chat_thread, conversation

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(unusable() is not None, reason=f"no PostgreSQL: {unusable()}"),
    pytest.mark.skipif(chroma_executable() is None, reason="the `chroma` CLI (installed with chromadb) is missing"),
]


@pytest.fixture(scope="module")
def pg():
    srv = PostgresServer().start()
    yield srv
    close_pools()  # this module's databases (the cluster's and the one a test creates) go with it
    srv.cleanup()


@pytest.fixture(scope="module")
def chroma(tmp_path_factory):
    srv = ChromaServer(tmp_path_factory.mktemp("pg-chroma") / "chroma").start()
    yield srv
    srv.stop()


@pytest.fixture
def worker(tmp_path, pg, chroma):
    """``worker(name, store_id)``: the settings of a worker with its own empty data dir."""

    def make(name: str, store_id: str) -> Settings:
        return Settings(
            data_dir=tmp_path / name,
            embeddings="hash",
            graph_url=pg.url,
            store_id=store_id,
            chroma_host=chroma.host,
            chroma_port=chroma.port,
        )

    return make


def answer(store, q: str = "Where did they go for the weekend?") -> list[tuple[str, float]]:
    return [(e.node_id, round(e.score, 6)) for e in retrieve("ppr", q, store, k=8)]


def rows(store) -> tuple:
    sessions = [{k: v for k, v in s.items() if k != "ingested_at"} for s in store.db.sessions(None)]
    return store.db.raw_nodes(), store.db.raw_edges(), sessions


def test_same_rows_and_answers_as_sqlite(tmp_path, worker):
    lite, srv = Settings(data_dir=tmp_path / "lite", embeddings="hash"), worker("srv", "same")
    conv = conversation("same", 4, turns=5)
    edited = conversation("same", 4, turns=5, tag="edited")
    for s in (lite, srv):
        ingest_conversation(conv, s, namespace="u1")
    a, b = get_store(lite, "u1", create=False), get_store(srv, "u1", create=False)
    assert rows(a) == rows(b) and answer(a) == answer(b)
    for s in (lite, srv):  # replace every session, then grow a chat thread turn by turn (append)
        ingest_conversation(edited, s, namespace="u1", replace=True)
        for n in (3, 4, 5):
            ingest_conversation(chat_thread(n), s, namespace="u1")
    assert rows(a) == rows(b) and answer(a) == answer(b)
    assert sorted(a.vectors.all_ids()) == sorted(b.vectors.all_ids())
    for store in (a, b):
        store.delete_session(edited.sessions[1].id)
    assert rows(a) == rows(b) and answer(a) == answer(b)
    assert a.db.vector_garbage() == b.db.vector_garbage() == []


def test_crash_mid_commit_is_rolled_back_by_another_worker(worker):
    s = worker("crash-a", "crash")
    conv = conversation("crash", 2, turns=4)
    ingest_conversation(conv.model_copy(update={"sessions": conv.sessions[:1]}), s, namespace="c")
    store = get_store(s, "c", create=False)
    before = rows(store), sorted(store.vectors.all_ids())

    def crash(stage: str) -> None:
        raise StoreFault(stage)

    store.fault_hook = crash
    with pytest.raises(StoreFault):
        ingest_conversation(conv, s, namespace="c")
    assert [x["status"] for x in store.db.sessions(None)] == ["committed", "pending"]
    assert len(store.vectors.all_ids()) > len(before[1])  # the vectors were written
    other = MemoryStore.open(worker("crash-b", "crash"), "c", create=False)  # no shared folder
    assert (rows(other), sorted(other.vectors.all_ids())) == before
    store.fault_hook = None
    ingest_conversation(conv, s, namespace="c")  # the same worker, store still open: writes it again
    assert [x["id"] for x in other.sessions()] == [x.id for x in conv.sessions]


def test_generation_tells_another_worker_to_reload(worker):
    conv = conversation("gen", 2, turns=4)
    a_set = worker("gen-a", "gen")
    ingest_conversation(conv.model_copy(update={"sessions": conv.sessions[:1]}), a_set, namespace="g")
    b = MemoryStore.open(worker("gen-b", "gen"), "g", create=False)
    first = b.snapshot()
    assert len(first.sessions) == 1 and b.snapshot() is first  # nothing changed: no reload
    ingest_conversation(conv, a_set, namespace="g")
    again = b.snapshot()
    assert again.generation > first.generation and len(again.sessions) == 2
    assert again.ids.tolist() == get_store(a_set, "g", create=False).snapshot().ids.tolist()
    assert answer(b) == answer(get_store(a_set, "g", create=False))


def test_namespaces_and_stores_are_isolated(worker, pg):
    specs = {"a": ("store-a", "shared", "x"), "b": ("store-b", "shared", "y"), "c": ("store-a", "other", "z")}
    stores = {}
    for name, (sid, ns, tag) in specs.items():
        ingest_conversation(conversation(tag, 2, tag=tag, turns=4), worker(f"iso-{name}", sid), namespace=ns)
        stores[name] = get_store(worker(f"iso-{name}", sid), ns, create=False)
    for name, store in stores.items():
        own = specs[name][2]
        texts = " ".join(r[2] for r in store.db.raw_nodes())
        assert f"({own})" in texts and not any(f"({specs[o][2]})" in texts for o in specs if o != name)
        hits = retrieve("ppr", "Yesterday I went to Kyoto", store, k=20)
        assert hits and all(h.node_id in store.snapshot() for h in hits)
        # Try to read across: every other scope's ids, through every read that takes ids.
        for other_name, other in stores.items():
            if other_name == name:
                continue
            foreign = [r[0] for r in other.db.raw_nodes()]
            mine = {r[0] for r in store.db.raw_nodes()}
            only_theirs = [i for i in foreign if i not in mine]
            assert only_theirs, "the workloads must differ"
            assert store.db.node_texts(only_theirs) == {} and store.db.node_ids(only_theirs) == set()
            assert store.db.node_kinds(only_theirs) == {}
            for s in other.db.sessions(None):
                assert store.db.session(s["id"]) is None or specs[name][2] in s["id"]
                assert store.db.session_turns(s["id"]) == [] or specs[name][2] in s["id"]
    # Reading across by hand: one table holds every scope; each store counts only its own.
    with psycopg.connect(pg.url) as conn:
        per_scope = {
            (r[0], r[1]): r[2]
            for r in conn.execute("SELECT store_id, namespace, COUNT(*) FROM mg_nodes GROUP BY 1, 2").fetchall()
        }
    for name, (sid, ns, _) in specs.items():
        assert per_scope[(sid, ns)] == len(stores[name].db.raw_nodes())
    with pytest.raises(Exception, match="does not exist"):
        MemoryStore.open(worker("iso-d", "store-b"), "other", create=False)


def test_schema_version_recorded_migrated_and_newer_refused(pg):
    pool = pool_for(pg.url)
    assert migrate(pool) == SCHEMA_VERSION  # already current: nothing to do
    with psycopg.connect(pg.url, autocommit=True) as conn:
        conn.execute("CREATE DATABASE mg_fresh")
    fresh = pg.url.rsplit("/", 1)[0] + "/mg_fresh"
    assert migrate(pool_for(fresh)) == SCHEMA_VERSION  # pool_for migrated it from nothing already
    with psycopg.connect(fresh) as conn:
        assert conn.execute("SELECT MAX(version) FROM mg_schema").fetchone()[0] == SCHEMA_VERSION
    with psycopg.connect(pg.url, autocommit=True) as conn:
        conn.execute("INSERT INTO mg_schema VALUES (%s)", (SCHEMA_VERSION + 1,))
        try:
            with pytest.raises(SchemaVersionError, match="newer than this memgraph-agents"):
                migrate(pool)
        finally:
            conn.execute("DELETE FROM mg_schema WHERE version > %s", (SCHEMA_VERSION,))


def test_ingest_lock_spans_workers_without_a_shared_folder(worker):
    a = MemoryStore.open(worker("lock-a", "lock"), "n")
    b = MemoryStore.open(worker("lock-b", "lock"), "n")  # another data dir: only the server is shared
    other = MemoryStore.open(worker("lock-c", "lock"), "m")
    with a.ingest_lock.hold(timeout=5):
        with pytest.raises(WriterBusyError):
            with b.ingest_lock.hold(timeout=0.3):
                pass
        with other.ingest_lock.hold(timeout=5):  # another namespace is free
            pass
    with b.ingest_lock.hold(timeout=5):  # released
        pass


def test_forget_stats_and_list_use_the_server(worker, monkeypatch, capsys):
    s = worker("ops-a", "ops")
    ingest_conversation(conversation("ops", 2, turns=4), s, namespace="gone")
    ingest_conversation(conversation("ops", 1, turns=4), s, namespace="kept")
    view = worker("ops-b", "ops")  # an empty data dir sees both
    for k, v in (("GRAPH_URL", view.graph_url), ("STORE_ID", "ops"), ("CHROMA_HOST", view.chroma_host)):
        monkeypatch.setenv(f"MEMGRAPH_{k}", str(v))
    monkeypatch.setenv("MEMGRAPH_CHROMA_PORT", str(view.chroma_port))
    argv = ["--embeddings", "hash", "--data-dir", str(view.data_dir)]
    assert main([*argv, "stats"]) == 0
    out = capsys.readouterr().out
    assert "gone" in out and "kept" in out
    from memgraph_agents.storage.stats import namespace_stats

    kept = namespace_stats(view.data_dir, "kept", view.graph_url, "ops")
    assert kept["sessions"] == 1 and kept["vectors"] > 0 and kept["graph_bytes"] > 0  # the rows' size in the database
    assert main([*argv, "forget", "--namespace", "gone"]) == 0
    capsys.readouterr()
    forget_store(s, "gone")
    assert [x["id"] for x in get_store(s, "kept", create=False).sessions()] == ["S1"]
    with pytest.raises(Exception, match="does not exist"):
        MemoryStore.open(s, "gone", create=False)


def test_cli_ingest_on_one_worker_ask_on_another_same_evidence_as_embedded(tmp_path, worker, monkeypatch, capsys):
    from importlib import resources

    example = str(resources.files("memgraph_agents.examples") / "conversation.json")
    question = "Where did Jonas travel?"
    ask = ["ask", question, "--namespace", "demo", "--retriever", "ppr", "-k", "5"]

    def run(data_dir, *cmd: str) -> str:
        assert main(["--embeddings", "hash", "--data-dir", str(data_dir), *cmd]) == 0
        return capsys.readouterr().out

    run(tmp_path / "embedded", "ingest", example, "--namespace", "demo")
    embedded = run(tmp_path / "embedded", *ask)
    srv = worker("unused", "accept")
    monkeypatch.setenv("MEMGRAPH_GRAPH_URL", str(srv.graph_url))
    monkeypatch.setenv("MEMGRAPH_STORE_ID", "accept")
    monkeypatch.setenv("MEMGRAPH_CHROMA_HOST", str(srv.chroma_host))
    monkeypatch.setenv("MEMGRAPH_CHROMA_PORT", str(srv.chroma_port))
    run(tmp_path / "machine-a", "ingest", example, "--namespace", "demo")
    served = run(tmp_path / "machine-b", *ask)

    def evidence(out: str) -> list[str]:
        return [line for line in out.splitlines() if line.lstrip()[:1].isdigit() or line.lstrip().startswith("[")]

    assert evidence(embedded) and evidence(served) == evidence(embedded)


def test_a_dead_writers_leftover_is_rolled_back_by_the_next_write_of_the_session(tmp_path, worker):
    """No reopen, no ``recover``: the next commit of the session (same process, store open)
    undoes the unfinished write first, and the result is what a clean ingest gives."""
    s, clean = worker("left-a", "left"), worker("left-b", "left-clean")
    conv = conversation("left", 3, turns=4)
    ingest_conversation(conv.model_copy(update={"sessions": conv.sessions[:2]}), s, namespace="l")
    store = get_store(s, "l", create=False)
    edited = conversation("left", 3, turns=4, tag="e")
    edited = edited.model_copy(
        update={"sessions": [x.model_copy(update={"id": y.id}) for x, y in zip(edited.sessions, conv.sessions)]}
    )

    def crash(stage: str) -> None:
        raise StoreFault(stage)

    store.fault_hook = crash
    with pytest.raises(StoreFault):  # a replacement dies after its vectors
        ingest_conversation(
            edited.model_copy(update={"sessions": edited.sessions[1:2]}), s, namespace="l", replace=True
        )
    with pytest.raises(StoreFault):  # and a new session too
        ingest_conversation(conv, s, namespace="l")
    assert [w[1] for w in store.db.pending_writes()] == ["replace", "new"]
    store.fault_hook = None
    last, second = (
        conv.model_copy(update={"sessions": conv.sessions[2:]}),
        edited.model_copy(update={"sessions": edited.sessions[1:2]}),
    )
    ingest_conversation(second, s, namespace="l", replace=True)
    ingest_conversation(last, s, namespace="l")
    ingest_conversation(conv.model_copy(update={"sessions": conv.sessions[:2]}), clean, namespace="l")
    ingest_conversation(second, clean, namespace="l", replace=True)
    ingest_conversation(last, clean, namespace="l")
    other = get_store(clean, "l", create=False)
    assert store.db.pending_writes() == [] and rows(store) == rows(other)
    assert sorted(store.vectors.all_ids()) == sorted(other.vectors.all_ids())
    assert answer(store) == answer(other)


def test_more_concurrent_ingests_than_pooled_connections(worker):
    """Each ingest holds an ingest lock, then a writer lock, then a query connection: with
    more ingests at once than any pool's size, none may starve (one pool per purpose)."""
    from concurrent.futures import ThreadPoolExecutor

    from memgraph_agents.storage.pg_schema import POOL_MAX

    n = max(POOL_MAX.values()) + 4
    s = worker("many-ns", "many-ns")
    conv = conversation("pool", 2, turns=3)
    with ThreadPoolExecutor(n) as ex:
        reports = list(ex.map(lambda i: ingest_conversation(conv, s, namespace=f"t{i}"), range(n), timeout=240))
    assert [r.sessions_new for r in reports] == [2] * n


def test_server_down_is_one_clear_error(tmp_path, chroma, monkeypatch, capsys):
    monkeypatch.setattr("memgraph_agents.storage.pg_schema.POOL_WAIT", 2.0)  # the pools made here wait 2 s
    own = PostgresServer().start()
    try:
        s = Settings(
            data_dir=tmp_path / "down",
            embeddings="hash",
            graph_url=own.url,
            store_id="down",
            chroma_host=chroma.host,
            chroma_port=chroma.port,
        )
        ingest_conversation(conversation("down", 1, turns=3), s, namespace="d")
        own.stop("immediate")
        monkeypatch.setenv("MEMGRAPH_GRAPH_URL", own.url)
        monkeypatch.setenv("MEMGRAPH_STORE_ID", "down")
        monkeypatch.setenv("MEMGRAPH_CHROMA_HOST", chroma.host)
        monkeypatch.setenv("MEMGRAPH_CHROMA_PORT", str(chroma.port))
        forget_store(s, "d")
        ask = ["ask", "Where did they go for the weekend?", "--namespace", "d", "--retriever", "dense"]
        argv = ["--embeddings", "hash", "--data-dir", str(tmp_path / "other"), *ask]
        assert main(argv) == 2
        err = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error:")]
        assert len(err) == 1 and "PostgreSQL graph store" in err[0] and "is the server up?" in err[0], err
        own.start()
        assert main(argv) == 0  # the pool reconnects by itself
    finally:
        close_pools(own.url)
        own.cleanup()


def test_migrate_an_embedded_data_dir_to_the_servers_exactly(tmp_path, worker, monkeypatch, capsys):
    """``memgraph migrate --to``: the copy has the same rows in the same order, the same vectors
    and the same answers, read by a worker with another (empty) data dir; nothing is rebuilt."""
    lite = Settings(data_dir=tmp_path / "lite", embeddings="hash")
    conv = conversation("move", 3, turns=4)
    ingest_conversation(conv, lite, namespace="m1")
    ingest_conversation(chat_thread(4), lite, namespace="m2")
    get_store(lite, "m1").delete_session(conv.sessions[0].id)  # gaps and reassigned owners copy too
    before = {ns: get_store(lite, ns, create=False) for ns in ("m1", "m2")}
    srv = worker("unused", "moved")
    monkeypatch.setenv("MEMGRAPH_CHROMA_HOST", str(srv.chroma_host))
    monkeypatch.setenv("MEMGRAPH_CHROMA_PORT", str(srv.chroma_port))
    for ns in before:
        forget_store(lite, ns)  # the CLI opens the source itself (as another process would)
    argv = ["--embeddings", "hash", "--data-dir", str(lite.data_dir), "migrate", "--to", str(srv.graph_url)]
    assert main([*argv, "--store-id", "moved"]) == 0
    out = capsys.readouterr().out
    assert "m1: 2 sessions" in out and "m2: 1 sessions" in out
    assert main([*argv, "--store-id", "moved"]) == 0  # a re-run: never over a namespace that holds sessions
    assert capsys.readouterr().out.count("already holds sessions in the target, skipped") == 2
    for ns, old in before.items():
        new = MemoryStore.open(worker(f"reader-{ns}", "moved"), ns, create=False)
        assert rows(new) == rows(old) and new.db.raw_owners() == old.db.raw_owners()
        assert sorted(new.vectors.all_ids()) == sorted(old.vectors.all_ids())
        assert answer(new) == answer(old)
        assert new.db.get_meta("conversations") == old.db.get_meta("conversations")


def test_every_statement_is_scoped_by_store_and_namespace(worker, pg, monkeypatch):
    """Every statement the store runs on a data table binds this store id and namespace, and
    names ``store_id`` once per table it reads or changes (joins and subqueries included)."""
    import re

    pool_for(pg.url)  # the schema exists before statements are watched
    seen: list[tuple[str, object]] = []
    for name in ("execute", "executemany"):
        real = getattr(psycopg.Cursor, name)

        def spy(self, query, params=None, *a, _real=real, **kw):
            seen.append((str(query), params))
            return _real(self, query, params, *a, **kw)

        monkeypatch.setattr(psycopg.Cursor, name, spy)
    s = worker("scoped", "scoped-store")
    conv = conversation("scoped", 3, turns=4)
    ingest_conversation(conv, s, namespace="sc")
    ingest_conversation(chat_thread(3), s, namespace="sc")
    ingest_conversation(chat_thread(4), s, namespace="sc")  # an append
    edited = conversation("scoped", 3, turns=4, tag="e").sessions[1].model_copy(update={"id": conv.sessions[1].id})
    ingest_conversation(conv.model_copy(update={"sessions": [edited]}), s, namespace="sc", replace=True)
    store = get_store(s, "sc", create=False)
    store.delete_session(conv.sessions[0].id)
    answer(store)
    table = re.compile(r"\bmg_(?!schema\b)[a-z_]+\b")
    checked = 0
    for query, params in seen:
        tables = table.findall(query)
        if not tables or "pg_advisory" in query:
            continue
        rows = params if isinstance(params, list) else [params]
        for p in rows:
            values = list(p or ())
            assert "scoped-store" in values, query
            if not query.lstrip().startswith("SELECT namespace FROM mg_meta WHERE store_id=%s AND key"):
                assert "sc" in values, query
        if not re.match(r"\s*INSERT INTO mg_\w+ (\(store_id, namespace|VALUES)", query):
            assert query.count("store_id") >= len(tables), query
        checked += 1
    assert checked > 50


def test_vectors_beside_the_rows_as_in_sqlite_and_reads_without_chroma(tmp_path, worker, pg):
    import numpy as np

    from memgraph_agents.storage.vector_rows import matching

    lite, srv = Settings(data_dir=tmp_path / "lite-v", embeddings="hash"), worker("srv-v", "vec")
    conv, edited = conversation("vec", 3, turns=4), conversation("vec", 3, turns=4, tag="edited")

    def stored(store) -> dict:
        text = {r[0]: r[2] for r in store.db.raw_nodes() if r[6]}
        got = matching(store.db.node_vectors(list(text)), text)
        assert set(got) == set(text)  # every embedded node has its vector beside its row
        return got

    for s in (lite, srv):
        ingest_conversation(conv, s, namespace="v")
        ingest_conversation(edited, s, namespace="v", replace=True)
        get_store(s, "v", create=False).delete_session(edited.sessions[1].id)
    a, b = stored(get_store(lite, "v", create=False)), stored(get_store(srv, "v", create=False))
    assert sorted(a) == sorted(b) and all(np.array_equal(a[i], b[i]) for i in a)
    fresh = MemoryStore.open(srv, "v")  # a read-only query: served from the rows, Chroma never opened
    for name in ("ppr", "dense"):
        assert retrieve(name, "Where did they go for the weekend?", fresh, k=5)
    assert not fresh.vectors.opened
    # A store from before mg_node_vectors: its vectors are copied from Chroma on open.
    with psycopg.connect(pg.url, autocommit=True) as c:
        c.execute("DELETE FROM mg_node_vectors WHERE store_id='vec' AND namespace='v'")
        c.execute("DELETE FROM mg_meta WHERE store_id='vec' AND namespace='v' AND key='vectors'")
    again = stored(MemoryStore.open(srv, "v"))
    assert sorted(again) == sorted(b) and all(np.allclose(again[i], b[i], atol=1e-6) for i in b)


def test_small_namespaces_write_nothing_to_the_chroma_server_until_they_cross(monkeypatch, worker, chroma):
    """``storage.chroma_index`` on the servers: below the threshold PostgreSQL alone holds the
    memory; the commit past it builds the server's collection from the rows, and another
    worker then writes it too."""
    monkeypatch.delenv("MEMGRAPH_CHROMA_INDEX_NODES", raising=False)
    a = worker("a", "lazy").model_copy(update={"chroma_index_nodes": 60})
    b = worker("b", "lazy").model_copy(update={"chroma_index_nodes": 60})
    conv = conversation("lazy", 6, turns=5)
    server = chromadb.HttpClient(host=chroma.host, port=chroma.port)
    ingest_conversation(conv.model_copy(update={"sessions": conv.sessions[:2]}), a, namespace="u")
    sa = get_store(a, "u", create=False)
    assert not sa.indexed() and sa.vectors.name not in {c.name for c in server.list_collections()}
    for n in range(3, 7):  # the two workers take turns; one of these commits crosses 60
        ingest_conversation(conv.model_copy(update={"sessions": conv.sessions[:n]}), b if n % 2 else a, namespace="u")
    sb = get_store(b, "u", create=False)
    assert sa.indexed() and sb.indexed() and sa.db.embedded_count() > 60
    text = {r[0]: r[2] for r in sa.db.raw_nodes() if r[6]}
    got = server.get_collection(sa.vectors.name).get(include=["documents"])
    assert dict(zip(got["ids"], got["documents"])) == text  # every committed vector, for its text
    assert answer(sa) == answer(sb)
