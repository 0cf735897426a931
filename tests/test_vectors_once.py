"""Vectors stored once, at half precision (``storage.vector_rows``, ``embeddings.cache``).

* a row is one format byte and float16 components; a float32 row of an older version still
  reads, and a damaged one is an error;
* a data dir holds no second copy of its vectors (no embedding-cache file), and what a reader
  process loads is bit for bit what the writer ranked with;
* a build reuses the vectors its namespace stores: a replaced session costs the model only its
  changed texts, in a process that never embedded the rest;
* a graph file written by a newer version is refused, not downgraded.
"""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from memgraph_agents.embeddings import HashEmbeddings
from memgraph_agents.embeddings.cache import half
from memgraph_agents.errors import StorageError
from memgraph_agents.ingest import ingest_conversation
from memgraph_agents.runtime import forget_store, get_embedding_model, get_store
from memgraph_agents.storage.graph_db import GraphDB
from memgraph_agents.storage.vector_rows import HALF, decode_vector, encode_vector, matching
from tests.workloads import conversation


def test_a_row_is_half_the_bytes_and_older_float32_rows_still_read():
    v = np.linspace(-1, 1, 384, dtype=np.float32)
    row = encode_vector(v)
    assert row[:1] == HALF and len(row) == 1 + 2 * 384  # float32 took 4 * 384
    np.testing.assert_array_equal(decode_vector(row), half(v))
    old = v.tobytes()  # what earlier versions wrote
    np.testing.assert_array_equal(decode_vector(old), v)
    with pytest.raises(StorageError, match="unknown format"):
        decode_vector(b"\x07" + row[1:])
    with pytest.raises(StorageError, match="damaged"):
        decode_vector(old[:-2])


def test_the_data_dir_holds_each_vector_once_and_a_reader_loads_the_writers_vectors(settings):
    ingest_conversation(conversation(n_sessions=3), settings)
    store = get_store(settings)
    writer = store.snapshot().vectors().copy()
    assert not list(settings.data_dir.rglob("embeddings.sqlite*"))  # no second copy beside the graph
    text = {r[0]: r[2] for r in store.db.raw_nodes() if r[6]}
    blobs = dict((i, b) for i, _, b in store.db.node_vectors(list(text)))
    assert set(blobs) == set(text) and all(len(b) == 1 + 2 * store.embedder.dim for b in blobs.values())
    forget_store(settings, settings.namespace)  # another process's view: the snapshot read back from the rows
    reader = get_store(settings).snapshot()
    np.testing.assert_array_equal(reader.vectors(), writer)
    rows = matching(get_store(settings).db.node_vectors(list(text)), text)
    for i, t in text.items():
        np.testing.assert_array_equal(rows[i], store.embedder.embed([t])[0])


class _Counting(HashEmbeddings):
    def __init__(self) -> None:
        super().__init__(64)
        self.seen: list[str] = []

    def embed_documents(self, texts):
        self.seen.extend(texts)
        return super().embed_documents(texts)


def test_a_replaced_session_embeds_only_its_changed_texts(settings):
    from memgraph_agents.runtime import register_embeddings

    inner = _Counting()
    spec = register_embeddings(inner, name="counting-once")
    run = settings.model_copy(update={"embeddings": spec})
    conv = conversation(n_sessions=2)
    ingest_conversation(conv, run)
    first = list(inner.seen)
    assert first  # the model made every vector once
    get_embedding_model(run).close()  # a new process: nothing held in memory
    inner.seen.clear()
    second = conv.sessions[1]
    turns = list(second.turns)
    turns[2] = turns[2].model_copy(update={"text": turns[2].text + " It rained all week."})
    edited = conv.model_copy(update={"sessions": [conv.sessions[0], second.model_copy(update={"turns": turns})]})
    ingest_conversation(edited, run, replace=True)
    assert inner.seen  # the edited turn (and its sentences) are new texts
    assert all("rained" in t for t in inner.seen), inner.seen  # nothing stored was embedded again


def test_a_graph_written_by_a_newer_version_is_refused(settings):
    ingest_conversation(conversation(n_sessions=1), settings)
    db = settings.data_dir / "namespaces" / settings.namespace / "graph.sqlite"
    forget_store(settings, settings.namespace)
    con = sqlite3.connect(db)
    con.execute("UPDATE meta SET value='99' WHERE key='schema'")
    con.commit()
    con.close()
    with pytest.raises(StorageError, match="newer than this memgraph-agents"):
        GraphDB(db)
    con = sqlite3.connect(db)
    assert con.execute("SELECT value FROM meta WHERE key='schema'").fetchone()[0] == "99"  # left as it was
    con.close()
