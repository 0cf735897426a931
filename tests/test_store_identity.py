"""The data dir's store id scopes its Chroma collections, and data dirs made
before store ids (schema 1, legacy collection names) keep working unchanged."""

from __future__ import annotations

import re
import sqlite3

import pytest

from memgraph_agents.errors import StorageError
from memgraph_agents.ingest import ingest_conversation
from memgraph_agents.registry import retrieve
from memgraph_agents.runtime import forget_store, get_store
from memgraph_agents.storage import delete_namespace
from memgraph_agents.storage.identity import STORE_ID_FILE, store_id
from memgraph_agents.storage.vectors import chroma_client
from tests.conftest import make_conversation
from tests.workloads import chroma_dump, graph_rows

CHROMA_NAME = re.compile(r"^[a-zA-Z0-9][a-zA-Z0-9._-]{1,510}[a-zA-Z0-9]$")


def test_store_id_is_written_once_and_scopes_collection_names(tmp_path, settings):
    a, b = store_id(tmp_path / "a"), store_id(tmp_path / "b")
    assert a != b and store_id(tmp_path / "a") == a
    assert (tmp_path / "a" / STORE_ID_FILE).read_text().strip() == a
    ingest_conversation(make_conversation(n_sessions=1), settings)
    name = get_store(settings).vectors.name
    assert name == f"mg-{store_id(settings.data_dir)}-{settings.namespace}" and CHROMA_NAME.match(name)
    long_ns = "n" * 64  # the longest namespace still gives a valid collection name
    assert CHROMA_NAME.match(f"mg-{a}-{long_ns}")
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / STORE_ID_FILE).write_text("not an id\n")
    with pytest.raises(StorageError, match="store id"):
        store_id(tmp_path / "c")


def _downgrade_to_schema_1(settings) -> None:
    """Make a data dir look as one written before store ids and exact ownership."""
    store = get_store(settings)
    ns = settings.namespace
    store.vectors.collection.modify(name=f"mg-{ns}")
    forget_store(settings, ns)
    con = sqlite3.connect(str(settings.data_dir / "namespaces" / ns / "graph.sqlite"))
    con.executescript("""
        DROP TABLE node_owners; DROP TABLE turns; DROP TABLE writes; DROP TABLE vector_garbage;
        CREATE TABLE edges_v1 (
            src TEXT NOT NULL, dst TEXT NOT NULL, kind TEXT NOT NULL, label TEXT NOT NULL,
            session_id TEXT NOT NULL, weight REAL NOT NULL, turn_ids TEXT NOT NULL, attrs TEXT NOT NULL,
            PRIMARY KEY (src, dst, kind, label));
        INSERT OR IGNORE INTO edges_v1 SELECT * FROM edges ORDER BY rowid;
        DROP TABLE edges; ALTER TABLE edges_v1 RENAME TO edges;
        DELETE FROM meta WHERE key IN ('schema', 'collection');
    """)
    con.commit()
    con.close()
    (settings.data_dir / STORE_ID_FILE).unlink()


@pytest.mark.slow
def test_a_legacy_data_dir_keeps_its_collection_and_gets_exact_ownership(settings):
    conv = make_conversation()
    ingest_conversation(conv, settings)
    ns = settings.namespace
    _downgrade_to_schema_1(settings)
    legacy = chroma_client(settings.data_dir).get_collection(f"mg-{ns}")
    vectors_before = chroma_dump(legacy)

    store = get_store(settings)  # opens and migrates
    assert store.vectors.name == f"mg-{ns}"  # legacy name kept: nothing moved or copied
    assert chroma_dump(store.vectors.collection) == vectors_before
    assert (settings.data_dir / STORE_ID_FILE).exists()
    owners = store.db.conn.execute("SELECT COUNT(*) FROM node_owners").fetchone()[0]
    assert owners >= len(store.db.raw_nodes()) - len(store.db.nodes("WHERE kind='topic'"))
    hits = retrieve("dense", "What is the name of Ana's puppy?", store, k=3)
    assert hits and hits[0].turn_ids
    # Re-ingesting the same conversation is a no-op (sessions stored before identities match).
    assert ingest_conversation(conv, settings).sessions_unchanged == 3
    # A new namespace in the same data dir gets a scoped collection.
    other = settings.model_copy(update={"namespace": "other"})
    ingest_conversation(make_conversation(n_sessions=1), other)
    assert get_store(other).vectors.name == f"mg-{store_id(settings.data_dir)}-other"
    # Exact deletion works on migrated rows; forgetting the namespace drops the legacy collection.
    store.delete_session("S1")
    assert set(store.vectors.all_ids()) == {r[0] for r in store.db.raw_nodes() if r[6]}
    rows_other = graph_rows(get_store(other).db.path), chroma_dump(get_store(other).vectors.collection)
    forget_store(settings, ns)
    delete_namespace(settings.data_dir, ns)
    names = {c.name for c in chroma_client(settings.data_dir).list_collections()}
    assert f"mg-{ns}" not in names and get_store(other).vectors.name in names
    assert (graph_rows(get_store(other).db.path), chroma_dump(get_store(other).vectors.collection)) == rows_other
