"""``memgraph bench scale`` at a tiny size: it writes its files, and the synthetic
graph is shaped like an ingest (the full 1e3..1e6 run is recorded in BENCHMARKS.md)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from memgraph_agents.bench.scale import RETRIEVERS, parse_sizes
from memgraph_agents.bench.synthetic import synthetic_graph
from memgraph_agents.cli.main import main
from tests.chroma_server import ChromaServer, chroma_executable
from tests.pg_server import PostgresServer, unusable

pytestmark = pytest.mark.slow  # seconds per test: left out of the fast subset (-m "not slow")


def test_synthetic_graph_has_every_kind_skewed_degrees_and_unit_vectors():
    g = synthetic_graph(3000, dim=32, seed=1, n_questions=5)
    kinds = {r[1] for r in g.node_rows}
    assert kinds == {"session", "turn", "sentence", "event", "argument", "topic"}
    assert 2500 <= len(g.node_rows) <= 3300
    ids = [r[0] for r in g.node_rows]
    assert len(set(ids)) == len(ids)
    index = set(ids)
    assert all(e[0] in index and e[1] in index for e in g.edge_rows)
    assert {e[2] for e in g.edge_rows} >= {"contains", "next", "evidence", "role", "similar", "member", "relation"}
    deg: dict[str, int] = {}
    for e in g.edge_rows:
        if e[2] == "role":
            deg[e[1]] = deg.get(e[1], 0) + 1
    d = np.array(sorted(deg.values()))
    assert d[-1] >= 10 * np.median(d)  # hubs: a Zipf law, not a uniform one
    assert np.allclose(np.linalg.norm(g.vectors, axis=1), 1.0, atol=1e-4)
    assert len(g.questions) == 5 and all(q.startswith("When did ") for q, _ in g.questions)


def test_bench_scale_writes_json_and_plot(tmp_path, capsys):
    out = tmp_path / "scale"
    assert (
        main(
            [
                "bench",
                "scale",
                "--nodes",
                "600",
                "--out",
                str(out),
                "--queries",
                "3",
                "--nav-queries",
                "2",
                "--baseline-queries",
                "2",
                "--dim",
                "32",
            ]
        )
        == 0
    )
    doc = json.loads((out / "scale.json").read_text())
    assert (out / "scale.png").stat().st_size > 1000
    (size,) = doc["sizes"]
    assert size["nodes"] > 300 and size["edges"] > size["nodes"] and size["peak_rss_mb"] > 0
    assert size["build_seconds"] >= size["load_seconds"] >= 0
    for name in RETRIEVERS:
        lat = size["latency"][name]
        assert 0 < lat["p50_ms"] <= lat["p95_ms"]
    base = size["baselines"]
    assert base["networkx_max_abs_diff"] < 1e-4 and base["speedup_vs_networkx"] > 0
    assert "igraph_ms" in base or base["igraph"].startswith("not installed")
    assert "wrote" in capsys.readouterr().out


@pytest.mark.parametrize("bad,message", [("1e3,x", "not a number"), ("10", "between 100"), (",", "at least one")])
def test_bad_sizes_are_clear_errors(tmp_path, capsys, bad, message):
    with pytest.raises(ValueError, match=message):
        parse_sizes(bad)
    assert main(["bench", "scale", "--nodes", bad, "--out", str(tmp_path)]) == 2
    assert message in capsys.readouterr().err


def test_synthetic_store_search_is_exact_cosine_over_the_asked_kinds():
    from memgraph_agents.bench.synthetic import SyntheticEmbedder, SyntheticStore
    from memgraph_agents.storage.snapshot import GraphSnapshot

    g = synthetic_graph(600, dim=16, seed=2, n_questions=2)
    snap = GraphSnapshot.from_rows(1, g.node_rows, g.edge_rows, g.sessions)
    snap._vectors = g.vectors  # what bench scale installs: the synthetic vectors, no Chroma
    store = SyntheticStore(snap, SyntheticEmbedder(16, dict(g.questions), g.vectors, g.arg_index))
    qv = g.questions[0][1]
    hits = store.search(qv, 5, ["turn"])
    assert len(hits) == 5 and all(snap.kind_of(snap.index[n]) == "turn" for n, _ in hits)
    cos = {snap.ids[i]: float(g.vectors[i] @ qv) for i in snap.indices_of("turn")}
    assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)
    assert all(abs(s - cos[n]) < 1e-6 for n, s in hits)
    assert min(s for _, s in hits) >= max(s for n, s in cos.items() if n not in dict(hits))
    assert store.search(qv, 0) == []


@pytest.mark.parametrize(
    "args,message",
    [
        (["--tenants", "2", "--tenant-backends", "postgres"], "needs a running PostgreSQL and Chroma server"),
        (["--real-stores", "--tenant-backends", "postgres"], "needs a running PostgreSQL and Chroma server"),
        (["--tenants", "2", "--tenant-backends", "mysql"], "unknown backend 'mysql'"),
        (["--real-stores", "--tenant-backends", ","], "name at least one backend"),
        (["--tenants", "2", "--cache-namespaces", "0"], "at least 1"),
        (["--growth", "50"], "at least 100 turns"),
    ],
)
def test_tenants_and_growth_refuse_bad_options(tmp_path, capsys, monkeypatch, args, message):
    monkeypatch.delenv("MEMGRAPH_GRAPH_URL", raising=False)
    monkeypatch.delenv("MEMGRAPH_CHROMA_HOST", raising=False)
    assert main(["bench", "scale", *args, "--out", str(tmp_path / "out")]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out" / "tenants.json").exists()
    assert not (tmp_path / "out" / "real_stores.json").exists()


def test_bench_growth_records_each_session(tmp_path):
    out = tmp_path / "growth"
    assert main(["bench", "scale", "--growth", "110", "--out", str(out)]) == 0
    doc = json.loads((out / "growth.json").read_text())
    assert [r["stored_turns"] for r in doc["sessions"]] == [0, 22, 44, 66, 88]
    assert all(r["cpu_seconds"] > 0 for r in doc["sessions"]) and doc["summary"]["cpu_ratio"]
    assert all(r["seconds"] > 0 for r in doc["sessions"]) and (out / "growth.png").stat().st_size > 1000
    assert doc["summary"]["total_seconds"] > 0


# --------------------------------------------------------------------------- real servers

NO_SERVERS = unusable() or (None if chroma_executable() else "the `chroma` CLI (installed with chromadb) is missing")


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    """One throwaway PostgreSQL cluster and one ``chroma run`` server, started here as an operator
    would; the bench itself only reads MEMGRAPH_GRAPH_URL / MEMGRAPH_CHROMA_HOST."""
    pg = PostgresServer().start()
    chroma = ChromaServer(tmp_path_factory.mktemp("chroma")).start()
    try:
        yield pg, chroma
    finally:
        chroma.stop()
        pg.cleanup()


def _backend_env(request, monkeypatch, backend: str) -> None:
    monkeypatch.delenv("MEMGRAPH_GRAPH_URL", raising=False)
    monkeypatch.delenv("MEMGRAPH_CHROMA_HOST", raising=False)
    if backend == "postgres":
        if NO_SERVERS:
            pytest.skip(f"no servers for the postgres backend: {NO_SERVERS}")
        pg, chroma = request.getfixturevalue("servers")
        monkeypatch.setenv("MEMGRAPH_GRAPH_URL", pg.url)
        monkeypatch.setenv("MEMGRAPH_CHROMA_HOST", chroma.host)
        monkeypatch.setenv("MEMGRAPH_CHROMA_PORT", str(chroma.port))


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_bench_tenants_writes_one_object_per_backend(tmp_path, request, monkeypatch, backend):
    _backend_env(request, monkeypatch, backend)
    out = tmp_path / "out"
    args = ["bench", "scale", "--tenants", "3", "--cache-namespaces", "2", "--tenant-backends", backend]
    assert main([*args, "--out", str(out)]) == 0
    (r,) = json.loads((out / "tenants.json").read_text())
    assert r["backend"] == backend and r["tenants"] == 3 and r["embeddings"] == "hash"
    assert r["graph"] == ("postgresql" if backend == "postgres" else "sqlite")
    assert r["rss_mb_end"] > 0 and r["rss_mb_start"] > 0 and r["cached_stores_end"] == 2
    assert 0 < r["warm_query_ms"]["p50"] and 0 < r["cold_query_ms"]["p50"] <= r["cold_query_ms"]["p95"]
    assert r["disk_bytes_per_namespace"] > 1000  # a namespace's rows (postgres: in the database)
    if backend == "postgres":
        assert r["pg_rows_per_namespace"] > 10 and "pg_total_relation_size" in r["disk_how"]
        assert r["open_fds_end"] - r["open_fds_start"] < 10  # no file per namespace


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_bench_real_stores_ingests_and_loads_cold(tmp_path, request, monkeypatch, backend):
    _backend_env(request, monkeypatch, backend)
    out = tmp_path / "out"
    args = ["bench", "scale", "--real-stores", "--nodes", "300", "--queries", "3", "--tenant-backends", backend]
    assert main([*args, "--out", str(out)]) == 0
    doc = json.loads((out / "real_stores.json").read_text())
    assert doc["embeddings"] == "hash" and doc["namespace"] == "scale"
    (r,) = doc["runs"]
    assert r["backend"] == backend and r["nodes"] > 150 and r["edges"] > r["nodes"] and r["sessions"] >= 2
    assert r["ingest_seconds"] > 0 and r["nodes_per_second"] > 0
    assert r["vectors_loaded"] >= 0.9 * r["nodes"]  # the vectors came back from Chroma, cold (a few are 0)
    assert r["cold_load_seconds"] >= r["snapshot_rows_seconds"] > 0
    assert r["first_query_ms"] > 0 and r["warm_query_ms"]["queries"] == 3
    assert r["rss_mb"]["end"] > 0 and r["peak_rss_mb"] >= r["rss_mb"]["end"]
    assert (r.get("pg_bytes") if backend == "postgres" else r.get("disk_bytes")) > 10_000
