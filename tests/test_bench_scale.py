"""``memgraph bench scale`` (issue 6.7) at a tiny size: it writes its files, and the synthetic
graph is shaped like an ingest (the full 1e3..1e6 run is recorded in BENCHMARKS.md)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from memgraph_agents.bench.scale import RETRIEVERS, parse_sizes
from memgraph_agents.bench.synthetic import synthetic_graph
from memgraph_agents.cli.main import main


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
        (["--tenants", "2", "--tenant-backends", "postgres"], "PostgreSQL backend not available in this build"),
        (["--tenants", "2", "--tenant-backends", "mysql"], "unknown backend 'mysql'"),
        (["--tenants", "2", "--cache-namespaces", "0"], "at least 1"),
        (["--growth", "50"], "at least 100 turns"),
    ],
)
def test_tenants_and_growth_refuse_bad_options(tmp_path, capsys, args, message):
    assert main(["bench", "scale", *args, "--out", str(tmp_path / "out")]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out" / "tenants.json").exists()


def test_bench_growth_records_each_session(tmp_path):
    out = tmp_path / "growth"
    assert main(["bench", "scale", "--growth", "110", "--out", str(out)]) == 0
    doc = json.loads((out / "growth.json").read_text())
    assert [r["stored_turns"] for r in doc["sessions"]] == [0, 22, 44, 66, 88]
    assert all(r["seconds"] > 0 for r in doc["sessions"]) and (out / "growth.png").stat().st_size > 1000
    assert doc["summary"]["total_seconds"] > 0
