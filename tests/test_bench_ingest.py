"""``memgraph bench ingest``: memgraph's bulk ingest and a plain Chroma collection, one command."""

from __future__ import annotations

import json

import pytest

from memgraph_agents.cli.main import main

pytestmark = pytest.mark.slow  # two fresh processes per side: left out of the fast subset (-m "not slow")


def _conversation(path, sessions: int = 3, turns: int = 6, conversation_id: str = "bench-chat") -> None:
    facts = ["planted beans by the fence", "the ferry to the island was late", "bought a second-hand cello"]
    doc = {
        "id": conversation_id,
        "sessions": [
            {
                "id": f"S{s + 1}",
                "date": f"2024-03-0{s + 1}T18:30:00",
                "turns": [
                    {
                        "speaker": "Ines" if t % 2 == 0 else "Bot",
                        "text": f"Today I {facts[(s + t) % 3]} (note {s}.{t}).",
                    }
                    for t in range(turns)
                ],
            }
            for s in range(sessions)
        ],
    }
    path.write_text(json.dumps(doc))


def test_bench_ingest_runs_both_sides_alternately_and_reports_ratios(tmp_path, capsys):
    data, out = tmp_path / "conv.json", tmp_path / "out"
    _conversation(data)
    code = main(["--embeddings", "hash", "bench", "ingest", "--data", str(data), "--repeat", "2", "--out", str(out)])
    assert code == 0
    doc = json.loads((out / "ingest.json").read_text())
    assert doc["turns"] == 18 and doc["repeat"] == 2 and doc["embeddings"] == "hash"
    for side in ("memgraph", "chroma"):
        assert len(doc["runs"][side]) == 2
        assert all(r["cpu_seconds"] > 0 and r["peak_rss_mb"] > 0 and r["disk_bytes"] > 0 for r in doc["runs"][side])
    # the ratios come from the unrounded medians, the reported seconds are rounded to 3 places
    assert doc["cpu_ratio"] == pytest.approx(doc["memgraph_cpu_seconds"] / doc["chroma_cpu_seconds"], abs=0.011)
    assert doc["disk_ratio"] == pytest.approx(doc["memgraph_disk_bytes"] / doc["chroma_disk_bytes"], abs=0.011)
    assert list((out / "memgraph-1" / "namespaces").iterdir())  # memgraph's graph, one namespace
    assert (out / "chroma-2" / "chroma" / "chroma.sqlite3").is_file()  # the plain collection
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    plain = chromadb.PersistentClient(str(out / "chroma-2" / "chroma"), ChromaSettings(anonymized_telemetry=False))
    (only,) = plain.list_collections()  # what a user writes: one collection, ids and documents, nothing else
    got = plain.get_collection(only.name).get(include=["metadatas", "documents"])
    assert (
        len(got["ids"]) == 18 and all(m is None for m in got["metadatas"]) and got["documents"][0].startswith("Ines: ")
    )
    printed = capsys.readouterr().out
    assert "run 2/2 chroma" in printed and "CPU x" in printed and "disk x" in printed


def test_bench_ingest_refuses_missing_arguments_and_unknown_conversations(tmp_path, capsys):
    data = tmp_path / "conv.json"
    _conversation(data, sessions=1, turns=2)
    assert main(["bench", "ingest", "--out", str(tmp_path / "o")]) == 2
    assert main(["bench", "ingest", "--data", str(data), "--out", str(tmp_path / "o"), "--repeat", "0"]) == 2
    code = main(
        ["--embeddings", "hash", "bench", "ingest", "--data", str(data), "--conversations", "nope"]
        + ["--out", str(tmp_path / "o")]
    )
    assert code != 0
    err = capsys.readouterr().err
    assert "usage: memgraph bench ingest" in err and "--repeat must be at least 1" in err and "nope" in err


def test_bench_ingest_takes_any_conversation_id(tmp_path, capsys):
    """An id Chroma would not take as a collection name (under 3 characters): measured, no traceback."""
    data, out = tmp_path / "conv.json", tmp_path / "out"
    _conversation(data, sessions=1, turns=2, conversation_id="ab")
    assert main(["--embeddings", "hash", "bench", "ingest", "--data", str(data), "--out", str(out)]) == 0
    assert json.loads((out / "ingest.json").read_text())["turns"] == 2
    assert "Traceback" not in capsys.readouterr().err
