"""Vectors know their model: a namespace refuses another model's, and ``memgraph reembed`` moves it.

Hash embeddings of two sizes stand in for two models (their vectors cannot even be compared),
so a mixed namespace could not hide. The crash test SIGKILLs a real re-embedding process at
random points and checks that the namespace is wholly the old model's or wholly the new one's.
"""

from __future__ import annotations

import random
import shutil
import sqlite3
import time
from pathlib import Path

import numpy as np
import pytest

from memgraph_agents.api import ops
from memgraph_agents.cli.main import main
from memgraph_agents.config import Settings
from memgraph_agents.ingest import ingest_conversation
from memgraph_agents.runtime import forget_store, get_store
from memgraph_agents.storage import MemoryStore
from memgraph_agents.storage.embedding_mark import MODEL_META, EmbeddingMismatchError
from memgraph_agents.storage.vector_rows import decode_vector
from tests.workloads import conversation, forkserver

NS = "re"


def settings(data_dir: Path, embeddings: str, **extra) -> Settings:
    return Settings(data_dir=data_dir, embeddings=embeddings, namespace=NS, **extra)


def vectors(data_dir: Path) -> dict[str, np.ndarray]:
    """The vectors stored beside the graph rows, read from the file (no store opened)."""
    con = sqlite3.connect(str(data_dir / "namespaces" / NS / "graph.sqlite"))
    try:
        return {i: decode_vector(v) for i, v in con.execute("SELECT id, vec FROM node_vectors")}
    finally:
        con.close()


def mark(data_dir: Path) -> str:
    con = sqlite3.connect(str(data_dir / "namespaces" / NS / "graph.sqlite"))
    try:
        return con.execute("SELECT value FROM meta WHERE key=?", (MODEL_META,)).fetchone()[0]
    finally:
        con.close()


def embedded_ids(data_dir: Path) -> set[str]:
    con = sqlite3.connect(str(data_dir / "namespaces" / NS / "graph.sqlite"))
    try:
        return {r[0] for r in con.execute("SELECT id FROM nodes WHERE embed=1")}
    finally:
        con.close()


def test_another_model_is_refused_naming_both_and_the_command(tmp_path, capsys):
    ingest_conversation(conversation("c", 2), settings(tmp_path, "hash-64"))
    forget_store(settings(tmp_path, "hash-64"), NS)
    with pytest.raises(EmbeddingMismatchError) as e:
        MemoryStore.open(settings(tmp_path, "hash-32"))
    msg = str(e.value)
    assert "'hash-64', not 'hash-32'" in msg and f"memgraph reembed --namespace {NS}" in msg
    assert "MEMGRAPH_EMBEDDINGS=hash-64" in msg
    argv = ["--data-dir", str(tmp_path), "--embeddings", "hash-32"]
    assert main([*argv, "ask", "Where is Pixel?", "--namespace", NS, "--retriever", "dense"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: namespace 're' holds vectors of") and "reembed" in err[0]
    assert mark(tmp_path) == "hash-64"  # nothing changed


def test_a_namespace_of_earlier_versions_names_the_torch_extra(tmp_path):
    s = settings(tmp_path, "hash")
    ingest_conversation(conversation("c", 1), s)
    store = get_store(s)
    with store.db.write() as t:  # what every namespace before the ONNX default records
        t.set_meta(MODEL_META, "all-MiniLM-L6-v2")
    forget_store(s, NS)
    with pytest.raises(EmbeddingMismatchError, match=r"MEMGRAPH_EMBEDDINGS=minilm-torch \(the \[torch\] extra"):
        MemoryStore.open(s)


def test_a_writer_of_the_old_model_stops_once_another_process_re_embedded(tmp_path):
    old = settings(tmp_path, "hash-64")
    conv = conversation("c", 3)
    ingest_conversation(conv.model_copy(update={"sessions": conv.sessions[:2]}), old)
    store = get_store(old)  # held open, as a long-running server would
    assert main(["--data-dir", str(tmp_path), "--embeddings", "hash-32", "reembed", "--namespace", NS]) == 0
    with pytest.raises(EmbeddingMismatchError):
        store.snapshot()
    with pytest.raises(EmbeddingMismatchError):
        ingest_conversation(conv, old)
    assert {v.shape for v in vectors(tmp_path).values()} == {(32,)}


def index_limit(indexed: bool) -> dict:
    """Every namespace indexed (0), or none this small (the suite's default is 0: conftest)."""
    return {"chroma_index_nodes": 0 if indexed else 100_000}


@pytest.mark.parametrize("indexed", [False, True])
@pytest.mark.slow
def test_reembed_replaces_every_vector_and_the_chroma_index(tmp_path, indexed, capsys, monkeypatch):
    extra = index_limit(indexed)
    monkeypatch.setenv("MEMGRAPH_CHROMA_INDEX_NODES", str(extra["chroma_index_nodes"]))
    ingest_conversation(conversation("c", 3), settings(tmp_path, "hash-64", **extra))
    forget_store(settings(tmp_path, "hash-64"), NS)
    before = vectors(tmp_path)
    argv = ["--data-dir", str(tmp_path), "--embeddings", "hash-32"]
    assert main([*argv, "reembed"]) == 0  # every namespace: here, one
    out = capsys.readouterr().err
    assert f"{NS}: hash-64 -> hash-32, {len(before)} vectors" in out
    assert ("Chroma index rebuilt" in out) == indexed
    after = vectors(tmp_path)
    assert set(after) == set(before) == embedded_ids(tmp_path) and mark(tmp_path) == "hash-32"
    assert {v.shape for v in after.values()} == {(32,)}
    store = get_store(settings(tmp_path, "hash-32", **extra))
    assert store.indexed() == indexed
    assert len(store.search(store.embedder.embed_one("Pixel"), 3)) == 3
    if indexed:  # Chroma holds exactly the new vectors, and records the new model
        got = store.vectors.collection.get(include=["embeddings"])
        assert set(got["ids"]) == set(after)
        assert all(len(v) == 32 for v in got["embeddings"])
        assert store.vectors.collection.metadata["embedding_model"] == "hash-32"
    assert main([*argv, "reembed", "--namespace", NS]) == 0  # again: nothing to do
    assert f"{NS}: already hash-32" in capsys.readouterr().err


def test_reembed_of_a_missing_namespace_is_one_error(tmp_path, capsys):
    assert main(["--data-dir", str(tmp_path), "--embeddings", "hash", "reembed", "--namespace", "nope"]) == 2
    assert "nope" in capsys.readouterr().err


# --------------------------------------------------------------------------- crash safety


def _child(data_dir: str, indexed: bool, ready, done) -> None:
    """Re-embeds in a forked process (small chunks, a pause after each: many kill points)."""
    from memgraph_agents.storage import reembed

    reembed.CHUNK = 4
    real = reembed._replace_vectors

    def slow(store, model, progress, fault):
        return real(store, model, progress, lambda step: time.sleep(0.01))

    reembed._replace_vectors = slow
    s = settings(Path(data_dir), "hash-32", **index_limit(indexed))
    ready.set()
    ops.reembed(s, NS)
    done.set()


def run_reembed(mp, base: Path, data: Path, indexed: bool, kill_after: float | None) -> tuple[float, bool]:
    """Re-embed a copy of ``base`` in a child; SIGKILL it ``kill_after`` s after it is ready
    (None: let it finish). Returns (seconds from ready to done or to the kill, whether it finished)."""
    shutil.copytree(base, data, ignore=shutil.ignore_patterns("memgraph-process.lock"))
    ready, done = mp.Event(), mp.Event()
    p = mp.Process(target=_child, args=(str(data), indexed, ready, done), daemon=True)
    p.start()
    try:
        assert ready.wait(60), "child did not get ready"
        t0 = time.perf_counter()
        finished = done.wait(120 if kill_after is None else kill_after)
        if kill_after is None:
            assert finished, "child did not finish"
        return time.perf_counter() - t0, finished
    finally:
        p.kill()
        p.join(30)


def check_whole(data_dir: Path, indexed: bool) -> str:
    """The namespace is wholly one model's: every embedded node has a vector of the marked size."""
    model = mark(data_dir)
    dim = {"hash-64": 64, "hash-32": 32}[model]
    vecs = vectors(data_dir)
    assert set(vecs) == embedded_ids(data_dir)
    assert {v.shape for v in vecs.values()} == {(dim,)}, model
    return model


@pytest.mark.parametrize("indexed", [False, True])
@pytest.mark.slow
def test_a_killed_reembed_leaves_one_model_and_finishes_when_run_again(tmp_path, indexed):
    mp = forkserver()
    extra = index_limit(indexed)
    base = tmp_path / "base"
    ingest_conversation(conversation("c", 4), settings(base, "hash-64", **extra))
    forget_store(settings(base, "hash-64"), NS)
    rng = random.Random(23 if indexed else 5)
    # How long an unkilled re-embedding takes here (the machine's load moves it): kills are
    # drawn over that length, so most land before the commit at its end, whatever the load.
    length = run_reembed(mp, base, tmp_path / "timed", indexed, None)[0]
    seen = set()
    for trial in range(6):
        data = tmp_path / f"t{trial}"
        # The first kill early (a tenth of the way: long before the commit at the end), the rest anywhere.
        when = 0.1 * length if trial == 0 else rng.uniform(0.0, length)
        finished = run_reembed(mp, base, data, indexed, when)[1]
        seen.add(finished)
        seen.add(check_whole(data, indexed))
        # Run again to the end: the new model's, every vector the same as a clean re-embedding's.
        s = settings(data, "hash-32", **extra)
        ops.reembed(s, NS)
        assert check_whole(data, indexed) == "hash-32"
        store = get_store(s)
        want = store.embedder.embed([store.snapshot().text[store.snapshot().index[i]] for i in sorted(vectors(data))])
        assert np.allclose(np.stack([vectors(data)[i] for i in sorted(vectors(data))]), want)
        if indexed:
            assert store.indexed() and set(store.vectors.collection.get(include=[])["ids"]) == set(vectors(data))
        forget_store(s, NS)
    assert "hash-64" in seen  # the early kill at least landed before the commit
