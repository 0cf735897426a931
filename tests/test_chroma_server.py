"""Chroma server mode: a real ``chroma run`` on 127.0.0.1, chosen by configuration.

Ingest and query through the server, restart it on the same directory and port, and get the
same results; the data dir then holds only the SQLite graph, no embedded Chroma.
"""

from __future__ import annotations

import chromadb
import pytest

from memgraph_agents.cli.main import main
from memgraph_agents.config import Settings
from memgraph_agents.ingest import ingest_conversation
from memgraph_agents.registry import retrieve
from memgraph_agents.runtime import forget_store, get_store
from memgraph_agents.storage import MemoryStore
from memgraph_agents.storage.identity import collection_name
from memgraph_agents.storage.vectors import ChromaUnavailableError
from tests.chroma_server import ChromaServer, chroma_executable
from tests.conftest import make_conversation

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        chroma_executable() is None, reason="the `chroma` executable (installed with the chromadb package) is missing"
    ),
]

QUESTIONS = ["Where did Ben run a half marathon?", "What is the name of Ana's puppy?", "Where does Ana work now?"]
RETRIEVERS = ["dense", "bm25", "hybrid", "ppr", "sentence_hop", "dwpr"]


@pytest.fixture
def server(tmp_path):
    srv = ChromaServer(tmp_path / "chroma-server").start()
    yield srv
    srv.stop()


def answers(store) -> dict:
    return {
        (r, q): [(e.node_id, round(e.score, 5), tuple(e.turn_ids)) for e in retrieve(r, q, store, k=5)]
        for r in RETRIEVERS
        for q in QUESTIONS
    }


def test_ingest_query_restart_query_gives_the_same_results(tmp_path, server, monkeypatch, capsys):
    settings = Settings(
        data_dir=tmp_path / "mem", embeddings="hash", namespace="srv", chroma_host=server.host, chroma_port=server.port
    )
    conv = make_conversation()
    two = conv.model_copy(update={"sessions": conv.sessions[:2]})
    assert ingest_conversation(two, settings).sessions_new == 2
    store = get_store(settings)
    assert (
        isinstance(store.vectors.client, chromadb.api.client.Client)
        and store.vectors.client.get_settings().chroma_server_host == server.host
    )
    assert not (settings.data_dir / "chroma").exists()  # nothing embedded: the vectors are on the server
    embedded = {r[0] for r in store.db.raw_nodes() if r[6]}
    remote = chromadb.HttpClient(host=server.host, port=server.port).get_collection(
        collection_name(settings.data_dir, "srv")
    )
    assert set(remote.get(include=[])["ids"]) == embedded

    before = answers(store)
    assert all(before[("dense", q)] for q in QUESTIONS)

    server.restart()
    assert server.starts == 2
    # The cached client reconnects by itself.
    assert answers(store) == before
    # So does a store opened from scratch (as a new process would), vectors reloaded from the server.
    forget_store(settings, "srv")
    fresh = MemoryStore.open(settings, "srv")
    assert answers(fresh) == before
    fresh.close()

    # The memory keeps growing through the restarted server, and re-ingest stays idempotent.
    report = ingest_conversation(conv, settings)
    assert (report.sessions_new, report.sessions_unchanged) == (1, 2)
    store = get_store(settings)
    assert set(remote.get(include=[])["ids"]) == {r[0] for r in store.db.raw_nodes() if r[6]}
    # the new session is searchable through the restarted server (hash vectors: a shared word)
    assert any(e.node_id.startswith("turn:D3:") for e in retrieve("dense", "the Riverside Library", store, k=5))

    # The CLI reaches the same server through the environment alone.
    monkeypatch.setenv("MEMGRAPH_CHROMA_HOST", server.host)
    monkeypatch.setenv("MEMGRAPH_CHROMA_PORT", str(server.port))
    assert main(["--embeddings", "hash", "--data-dir", str(settings.data_dir), "stats", "--namespace", "srv"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("│ srv"))
    assert f"│ {store.vectors.count()} " in row or f" {store.vectors.count()} │" in row
    assert (
        main(
            [
                "--embeddings",
                "hash",
                "--data-dir",
                str(settings.data_dir),
                "ask",
                QUESTIONS[0],
                "--namespace",
                "srv",
                "--retriever",
                "dense",
                "-k",
                "3",
            ]
        )
        == 0
    )
    assert "1. [" in capsys.readouterr().out


def test_server_down_is_a_clear_error_and_nothing_is_written(tmp_path, server, capsys):
    settings = Settings(
        data_dir=tmp_path / "mem", embeddings="hash", namespace="down", chroma_host=server.host, chroma_port=server.port
    )
    conv = make_conversation()
    ingest_conversation(conv.model_copy(update={"sessions": conv.sessions[:1]}), settings)
    store = get_store(settings)
    rows = sorted(store.db.raw_nodes()), sorted(store.db.raw_edges())
    server.stop()
    with pytest.raises(ChromaUnavailableError, match=f"Chroma server at {server.host}:{server.port} is unreachable"):
        ingest_conversation(conv, settings)
    # The failed session left nothing behind: no pending row, the graph is unchanged.
    assert [s["id"] for s in store.db.sessions(None)] == ["S1"]
    assert (sorted(store.db.raw_nodes()), sorted(store.db.raw_edges())) == rows
    # The CLI says so in one line (exit 2), whether the store is new to the process or not,
    # when a query needs Chroma's index (a namespace above MEMGRAPH_EXACT_SEARCH_NODES); a small
    # one answers dense queries from the vectors beside its graph rows, and `stats` reads the
    # SQLite graph only: both still work while the vector server is away.
    forget_store(settings, "down")
    argv = ["--embeddings", "hash", "--data-dir", str(settings.data_dir)]
    ask = ["ask", "Where is Pixel?", "--namespace", "down", "--retriever", "dense"]
    for cmd, code, exact in ((ask, 2, "0"), (ask, 0, "10000"), (["stats"], 0, "0")):
        forget_store(settings, "down")  # each with the store opened under its own settings
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("MEMGRAPH_CHROMA_HOST", server.host)
            mp.setenv("MEMGRAPH_CHROMA_PORT", str(server.port))
            mp.setenv("MEMGRAPH_EXACT_SEARCH_NODES", exact)
            assert main(argv + cmd) == code
        err = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error:")]
        if code:
            assert len(err) == 1 and ("unreachable" in err[0] or "Could not connect" in err[0]), err
        else:
            assert not err, err
    server.start()
    assert ingest_conversation(conv, settings).sessions_new == 2


def dump(store) -> tuple:
    """Everything a data dir holds for a namespace: rows, vectors (by id), retrieval answers."""
    from tests.workloads import chroma_dump, graph_rows

    return graph_rows(store.db.path), chroma_dump(store.vectors.collection), answers(store)


def test_two_data_dirs_on_one_server_never_touch_each_other(tmp_path, server, monkeypatch):
    """Collections carry the data dir's store id. Forget a session, forget the
    namespace and re-ingest in one data dir: the other one is byte-identical."""
    conv = make_conversation()
    x, y = (
        Settings(
            data_dir=tmp_path / name,
            embeddings="hash",
            namespace="shared",
            chroma_host=server.host,
            chroma_port=server.port,
        )
        for name in ("x", "y")
    )
    for s in (x, y):
        ingest_conversation(conv, s)
    store_x = get_store(x)
    before = dump(store_x)
    assert store_x.vectors.name != get_store(y).vectors.name  # same namespace, two collections

    monkeypatch.setenv("MEMGRAPH_CHROMA_HOST", server.host)
    monkeypatch.setenv("MEMGRAPH_CHROMA_PORT", str(server.port))
    argv = ["--embeddings", "hash", "--data-dir", str(y.data_dir), "forget", "--namespace", "shared"]
    assert main(argv + ["--session", "S2"]) == 0
    assert dump(store_x) == before
    assert main(argv) == 0
    assert dump(store_x) == before
    assert ingest_conversation(conv, y).sessions_new == 3
    forget_store(x, "shared")
    assert dump(MemoryStore.open(x, "shared")) == before  # reopened from scratch: the same
