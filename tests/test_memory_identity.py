"""A memory is (graph URL, store id, namespace): two store ids in one PostgreSQL database and an
embedded memory, all named ``shared``, all served from ONE data dir with ONE Chroma server
(every namespace indexed in Chroma), never reach each other. Every write, note, forget and
migrate of one leaves the others' rows (PostgreSQL), vectors (Chroma) and files (the data
dir) byte-identical. Against a real PostgreSQL cluster and a real ``chroma run`` server.
"""

from __future__ import annotations

import gc
import hashlib
import sqlite3
from pathlib import Path

import chromadb
import psycopg
import pytest

from memgraph_agents.api import Memory
from memgraph_agents.cli.main import main
from memgraph_agents.config import Settings
from memgraph_agents.ingest import ingest_conversation
from memgraph_agents.runtime import forget_store
from memgraph_agents.storage.identity import memory_dir
from memgraph_agents.storage.pg_graph import PgGraphDB
from memgraph_agents.storage.pg_schema import close_pools
from tests.chroma_server import ChromaServer, chroma_executable
from tests.pg_server import PostgresServer, unusable
from tests.workloads import chat_thread, conversation

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(unusable() is not None, reason=f"no PostgreSQL: {unusable()}"),
    pytest.mark.skipif(chroma_executable() is None, reason="the `chroma` CLI (installed with chromadb) is missing"),
]

NS = "shared"


@pytest.fixture(scope="module")
def pg():
    srv = PostgresServer().start()
    yield srv
    close_pools()
    srv.cleanup()


@pytest.fixture(scope="module")
def chroma(tmp_path_factory):
    srv = ChromaServer(tmp_path_factory.mktemp("identity-chroma") / "chroma").start()
    yield srv
    srv.stop()


class Memories:
    """The memories under test, and what each one owns (rows, vectors, files)."""

    def __init__(self, data_dir: Path, pg: PostgresServer, chroma: ChromaServer) -> None:
        self.data_dir, self.pg, self.chroma = data_dir, pg, chroma
        common = dict(data_dir=data_dir, embeddings="hash", chroma_host=chroma.host, chroma_port=chroma.port)
        common["chroma_index_nodes"] = 0  # every namespace keeps its vectors in Chroma too
        self.settings = {
            "embedded": Settings(**common),
            "prod": Settings(**common, graph_url=pg.url, store_id="prod"),
            "staging": Settings(**common, graph_url=pg.url, store_id="staging"),
            "moved": Settings(**common, graph_url=pg.url, store_id="moved"),
        }
        self.client = chromadb.HttpClient(host=chroma.host, port=chroma.port)

    def close_all(self) -> None:
        """Close every cached store (SQLite folds its WAL back: the files are at rest), and the
        stores of Memory objects the test dropped unclosed (collected: their connections close)."""
        forget_store(self.settings["embedded"], NS)
        gc.collect()

    def collection(self, name: str) -> str | None:
        s = self.settings[name]
        if s.graph_url is None:  # immutable: a read that leaves no -shm file behind
            path = memory_dir(self.data_dir, NS) / "graph.sqlite"
            if not path.exists():
                return None
            con = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
            try:
                return con.execute("SELECT value FROM meta WHERE key='collection'").fetchone()[0]
            finally:
                con.close()
        return PgGraphDB.read_meta(str(s.graph_url), s.store_id, NS, "collection")

    def state(self, name: str) -> dict:
        s = self.settings[name]
        folder = memory_dir(self.data_dir, NS, s.graph_url, s.store_id)
        files = {
            str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*"))
            if p.is_file()
        }
        rows = {}
        if s.graph_url is not None:
            with psycopg.connect(self.pg.url) as con:
                tables = [
                    r[0]
                    for r in con.execute(
                        "SELECT table_name FROM information_schema.columns "
                        "WHERE column_name='store_id' AND table_name LIKE 'mg\\_%' ORDER BY table_name"
                    )
                ]
                for t in tables:
                    got = con.execute(f"SELECT * FROM {t} WHERE store_id=%s AND namespace=%s", (s.store_id, NS))
                    rows[t] = sorted(repr(r) for r in got)
        vectors = None
        coll = self.collection(name)
        if coll is not None and coll in {c.name for c in self.client.list_collections()}:
            got = self.client.get_collection(coll).get(include=["embeddings", "documents", "metadatas"])
            vectors = sorted(
                (i, d, repr(sorted((m or {}).items())), hashlib.sha256(bytes(memoryview(e))).hexdigest())
                for i, d, m, e in zip(got["ids"], got["documents"], got["metadatas"], got["embeddings"])
            )
        return {"files": files, "rows": rows, "collection": coll, "vectors": vectors}

    def unchanged_by(self, actor: str, action, others: list[str]) -> None:
        self.close_all()
        before = {o: self.state(o) for o in others}
        assert all(before[o]["files"] for o in others if o == "embedded")
        action()
        self.close_all()
        for o in others:
            assert self.state(o) == before[o], f"{actor}'s operation changed {o}'s memory"


def _cli(mem: Memories, name: str, monkeypatch, *argv: str) -> int:
    s = mem.settings[name]
    with monkeypatch.context() as m:
        for key in ("chroma_host", "chroma_port", "graph_url", "store_id", "chroma_index_nodes"):
            value = getattr(s, key)
            if value is not None:
                m.setenv(f"MEMGRAPH_{key.upper()}", str(value))
            else:
                m.delenv(f"MEMGRAPH_{key.upper()}", raising=False)
        return main(["--embeddings", "hash", "--data-dir", str(mem.data_dir), *argv])


def test_memories_sharing_a_data_dir_and_servers_never_touch_each_other(tmp_path, pg, chroma, monkeypatch, capsys):
    mem = Memories(tmp_path / "worker", pg, chroma)
    names = ["embedded", "prod", "staging"]
    conv = conversation("same", 2, turns=4)  # the same conversation everywhere: the same node ids
    for name in names:
        ingest_conversation(conv, mem.settings[name], namespace=NS)
    mem.close_all()
    colls = {n: mem.collection(n) for n in names}
    assert None not in colls.values() and len(set(colls.values())) == 3, colls  # one collection each
    folders = {memory_dir(mem.data_dir, NS, mem.settings[n].graph_url, mem.settings[n].store_id) for n in names}
    assert len(folders) == 3
    assert all(mem.state(n)["vectors"] for n in names)

    for name in names:  # writes: another conversation, then a note
        others = [n for n in names if n != name]
        mem.unchanged_by(
            name, lambda n=name: ingest_conversation(chat_thread(3, f"more-{n}"), mem.settings[n], namespace=NS), others
        )
        mem.unchanged_by(
            name, lambda n=name: Memory(settings=mem.settings[n]).add(f"{n} keeps a note", namespace=NS), others
        )

    # migrate the embedded memory into a fourth one (store id "moved") from the same data dir
    args = ["migrate", "--to", str(pg.url), "--store-id", "moved", "--namespace", NS]
    mem.unchanged_by(
        "migrate",
        lambda: _cli(mem, "moved", monkeypatch, *args, "--from-chroma", f"{chroma.host}:{chroma.port}"),
        ["prod", "staging"],
    )
    capsys.readouterr()
    assert mem.collection("moved") not in set(colls.values())

    left = ["embedded", "prod", "staging", "moved"]
    for name in ["staging", "prod", "moved"]:  # forget each server memory, then the embedded one
        left.remove(name)
        mem.unchanged_by(name, lambda n=name: _assert_ok(_cli(mem, n, monkeypatch, "forget", "--namespace", NS)), left)
        assert mem.collection(name) is None
    assert mem.state("embedded")["vectors"]
    assert _cli(mem, "embedded", monkeypatch, "forget", "--namespace", NS) == 0
    assert not memory_dir(mem.data_dir, NS).exists()


def _assert_ok(code: int) -> None:
    assert code == 0


def test_forgetting_an_earlier_versions_server_namespace_leaves_its_shared_collection(
    tmp_path, pg, chroma, monkeypatch
):
    """A PostgreSQL namespace written by an earlier version recorded a collection named after the
    data dir, shared with the embedded namespace of that name: it keeps reading it, and
    ``forget`` drops its rows but never that collection."""
    mem = Memories(tmp_path / "old-worker", pg, chroma)
    conv = conversation("legacy", 2, turns=3)
    for name in ("embedded", "prod"):
        ingest_conversation(conv, mem.settings[name], namespace=NS)
    mem.close_all()
    shared = mem.collection("embedded")
    s = mem.settings["prod"]
    db = PgGraphDB(str(s.graph_url), s.store_id, NS)
    db.set_meta("collection", shared)  # what the earlier version recorded
    db.close()
    assert mem.collection("prod") == shared
    mem.unchanged_by(
        "prod", lambda: _assert_ok(_cli(mem, "prod", monkeypatch, "forget", "--namespace", NS)), ["embedded"]
    )
    assert mem.collection("prod") is None and mem.state("embedded")["vectors"]
