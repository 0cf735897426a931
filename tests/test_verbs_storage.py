"""The verbs' storage on both graph stores: session metadata and note versions in SQLite and in
PostgreSQL (a real throwaway cluster and Chroma server), the same answers from both, the
schema migrations that add them, and history deleted with its note."""

from __future__ import annotations

import sqlite3
from datetime import datetime

import psycopg
import pytest

from memgraph_agents import Memory
from memgraph_agents.config import Settings
from memgraph_agents.storage.graph_db import GraphDB
from memgraph_agents.storage.pg_schema import MIGRATIONS, SCHEMA_VERSION, close_pools, migrate, pool_for
from memgraph_agents.storage.sqlite_schema import SCHEMA_VERSION as SQLITE_VERSION
from tests.chroma_server import ChromaServer, chroma_executable
from tests.pg_server import PostgresServer, unusable

pytestmark = pytest.mark.slow  # seconds per test: left out of the fast subset (-m "not slow")

CHAT = {
    "id": "ana-chat",
    "sessions": [
        {
            "id": "S1",
            "date": "2024-03-01T18:30:00",
            "metadata": {"topic": "pets", "year": 2024},
            "turns": [
                {"speaker": "Ana", "text": "I adopted a beagle puppy called Pixel yesterday."},
                {"speaker": "Ben", "text": "Congratulations! Beagles love long walks."},
            ],
        },
        {
            "id": "S2",
            "date": "2024-06-10T09:00:00",
            "metadata": {"topic": "sport", "year": 2024},
            "turns": [{"speaker": "Ben", "text": "I ran the river half marathon in 1 hour 52 minutes."}],
        },
    ],
}


def exercise(mem: Memory) -> dict:
    """The verbs on one store; what they returned, for comparing two stores."""
    mem.add(CHAT, metadata={"source": "test"})
    nid = mem.add("Ana drinks green tea", when=datetime(2024, 4, 2), speaker="Ana", metadata={"kind": "habit"})
    note = nid.note_ids[0]
    mem.update(note, "Ana drinks jasmine tea", metadata={"kind": "habit", "v": 2})
    out = {
        "list": [(i.id, i.metadata) for i in mem.list().items],
        "get": mem.get(note).model_dump(exclude={"ingested_at"}),
        "history": [(v.version, v.text, v.metadata) for v in mem.history(note).versions],
        "pets": [
            (ev.node_id, ev.metadata) for ev in mem.search("beagle", k=5, retriever="bm25", filter={"topic": "pets"})
        ],
        "window": [
            ev.node_id for ev in mem.search("tea", k=5, retriever="dense", since="2024-04-01", until="2024-05-01")
        ],
        "ben": [ev.node_id for ev in mem.search("walks river", k=5, retriever="bm25", speaker="Ben")],
    }
    mem.forget(note=note)
    out["after"] = [i.id for i in mem.list().items]
    return out


def test_sqlite_file_of_schema_3_gains_metadata_and_versions(tmp_path):
    mem = Memory(tmp_path / "mem", embeddings="hash", namespace="old")
    mem.add(CHAT)
    db = tmp_path / "mem" / "namespaces" / "old" / "graph.sqlite"
    from memgraph_agents.runtime import forget_store

    forget_store(mem.settings, "old")
    con = sqlite3.connect(db)  # what a version 3 file looks like: no metadata column, no versions
    con.execute("ALTER TABLE sessions DROP COLUMN metadata")
    con.execute("DROP TABLE note_versions")
    con.execute("UPDATE meta SET value='3' WHERE key='schema'")
    con.commit()
    con.close()
    GraphDB(db).close()  # opening migrates
    con = sqlite3.connect(db)
    assert "metadata" in {r[1] for r in con.execute("PRAGMA table_info(sessions)")}
    assert con.execute("SELECT value FROM meta WHERE key='schema'").fetchone()[0] == SQLITE_VERSION
    con.close()
    assert mem.get("S1").metadata == {}  # a session stored before metadata has none
    nid = mem.add("a note after the migration", when=datetime(2024, 9, 9)).note_ids[0]
    assert [v.version for v in mem.history(nid).versions] == [1]


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    if unusable() is not None or chroma_executable() is None:
        pytest.skip("no PostgreSQL or no chroma CLI")
    pg = PostgresServer().start()
    chroma = ChromaServer(tmp_path_factory.mktemp("verbs-chroma") / "chroma").start()
    yield pg, chroma
    close_pools()
    chroma.stop()
    pg.cleanup()


def test_the_verbs_give_the_same_answers_on_postgresql_as_on_sqlite(tmp_path, servers):
    pg, chroma = servers
    lite = Memory(tmp_path / "lite", embeddings="hash", namespace="ana")
    srv = Memory(
        settings=Settings(
            data_dir=tmp_path / "srv",
            embeddings="hash",
            graph_url=pg.url,
            store_id="verbs",
            chroma_host=chroma.host,
            chroma_port=chroma.port,
        ),
        namespace="ana",
    )
    a, b = exercise(lite), exercise(srv)
    assert a == b
    assert a["history"] == [
        (1, "Ana drinks green tea", {"kind": "habit"}),
        (2, "Ana drinks jasmine tea", {"kind": "habit", "v": 2}),
    ]
    assert a["list"][0][1] == {"source": "test", "topic": "sport", "year": 2024}
    assert a["pets"] and all(m == {"source": "test", "topic": "pets", "year": 2024} for _, m in a["pets"])
    assert a["after"] == ["S2", "S1"]
    with psycopg.connect(pg.url) as conn:  # forgetting the note took its history with it
        assert conn.execute("SELECT COUNT(*) FROM mg_note_versions WHERE store_id='verbs'").fetchone()[0] == 0


def test_postgresql_schema_2_is_migrated_to_the_current_version(servers):
    pg, _ = servers
    with psycopg.connect(pg.url, autocommit=True) as conn:
        conn.execute("CREATE DATABASE mg_v2")
    url = pg.url.rsplit("/", 1)[0] + "/mg_v2"
    with psycopg.connect(url) as conn, conn.transaction():  # a database written by the previous version
        conn.execute("CREATE TABLE mg_schema (version INTEGER NOT NULL)")
        for v in (1, 2):
            for stmt in MIGRATIONS[v]:
                conn.execute(stmt)
            conn.execute("INSERT INTO mg_schema VALUES (%s)", (v,))
        conn.execute(
            "INSERT INTO mg_sessions VALUES ('s', 'n', 'S1', '2024-01-01T00:00:00', 'committed', 1, '[]', 1, 'h', "
            "'offline', '2024-01-01T00:00:00', '{}')"
        )
    assert migrate(pool_for(url)) == SCHEMA_VERSION  # pool_for migrated it: nothing left to do
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT MAX(version) FROM mg_schema").fetchone()[0] == SCHEMA_VERSION == 4
        index = "SELECT 1 FROM pg_indexes WHERE indexname = 'mg_node_vectors_digest'"
        assert conn.execute(index).fetchone() is not None  # version 4: vectors found by their text's digest
        assert conn.execute("SELECT metadata FROM mg_sessions WHERE id='S1'").fetchone()[0] == "{}"
        assert conn.execute("SELECT COUNT(*) FROM mg_note_versions").fetchone()[0] == 0
