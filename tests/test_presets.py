"""Presets: `memgraph ingest --preset P` builds the kinds P needs, read back through
`memgraph stats`; a preset's name runs its retriever.

One scripted fake model answers every prompt of an LLM ingest (events, relations, fusion and
each layer's prompts), built from the prompt's actual turns.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from memgraph_agents.cli.main import main
from memgraph_agents.presets import PRESETS, get_preset
from memgraph_agents.registry import get_retriever, retriever_names
from memgraph_agents.runtime import register_chat_model
from tests.fakes import ScriptedChatModel, ingest_routes, route_responder
from tests.fakes_memorai import ENTITIES_MARKER, SEGMENTS_MARKER, entities_responder, segments_responder
from tests.fakes_premem import (
    FRAGMENTS_MARKER,
    REASONING_MARKER,
    realistic_fragment_responder,
    realistic_reasoning_responder,
)
from tests.fakes_sgmem import SGMEM_MARKER, realistic_sgmem_responder

pytestmark = pytest.mark.slow  # seconds per test: left out of the fast subset (-m "not slow")

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "conversation.json"
SPEC = "fake:presets"

# What each preset must build beyond the always-built core (node kinds, edge kinds).
NEEDS: dict[str, tuple[set[str], set[str]]] = {
    "base": ({"turn", "sentence", "event", "argument", "topic"}, {"evidence", "relation", "role", "member"}),
    "compassmem": ({"event", "topic"}, {"relation", "member"}),
    "emem": ({"event", "argument"}, {"role"}),
    "emem-g": ({"event", "argument"}, {"role"}),
    "sgmem": ({"sentence", "summary", "fact", "insight"}, {"similar", "derived"}),
    "memorai": ({"segment", "argument"}, {"mentions", "triple"}),
    "premem": ({"fragment", "cluster", "reasoning"}, {"derived"}),
}
LAYER_KINDS = {"summary", "fact", "insight", "segment", "fragment", "cluster", "reasoning"}


def every_prompt() -> ScriptedChatModel:
    return ScriptedChatModel(
        responder=route_responder(
            {
                **ingest_routes(),
                SGMEM_MARKER: realistic_sgmem_responder(),
                SEGMENTS_MARKER: segments_responder(),
                ENTITIES_MARKER: entities_responder(),
                FRAGMENTS_MARKER: realistic_fragment_responder(),
                REASONING_MARKER: realistic_reasoning_responder(),
            }
        )
    )


def stats_counts(out: str) -> dict[str, int]:
    """``{kind: count}`` from the one-namespace `memgraph stats` tables (kinds as rows)."""
    counts = {}
    for line in out.splitlines():
        m = re.match(r"^\W*([a-z_]+)\s*\W\s*(\d+)\s*\W*$", line)
        if m:
            counts[m.group(1)] = int(m.group(2))
    return counts


def ingest_and_stats(tmp_path, capsys, preset: str, *extra: str) -> dict[str, int]:
    base = ["--data-dir", str(tmp_path / "mem"), "--embeddings", "hash"]
    assert main([*base, "ingest", str(EXAMPLE), "--namespace", "p", "--preset", preset, *extra]) == 0
    capsys.readouterr()
    assert main([*base, "stats", "--namespace", "p"]) == 0
    out = capsys.readouterr().out
    assert preset in out  # the namespace table names the preset it was built with
    return stats_counts(out)


@pytest.mark.parametrize("preset", list(PRESETS))
def test_llm_ingest_with_each_preset_builds_its_kinds(tmp_path, capsys, preset):
    model = every_prompt()
    register_chat_model(SPEC, model)
    counts = ingest_and_stats(tmp_path, capsys, preset, "--llm", SPEC)
    nodes, edges = NEEDS[preset]
    missing = sorted(k for k in nodes | edges if not counts.get(k))
    assert not missing, f"{preset}: no {missing} in stats {counts}"
    # Layers of other presets are not built.
    others = LAYER_KINDS - nodes
    assert not [k for k in others if counts.get(k)], counts
    # The layer prompts were really sent (and only the preset's own).
    prompts = "\n".join(model.prompts)
    layer_markers = {
        "sgmem": [SGMEM_MARKER],
        "memorai": [SEGMENTS_MARKER, ENTITIES_MARKER],
        "premem": [FRAGMENTS_MARKER, REASONING_MARKER],
    }
    for layer, markers in layer_markers.items():
        for marker in markers:
            assert (marker in prompts) == (layer in get_preset(preset).layers), (preset, marker)


@pytest.mark.parametrize(
    "preset, kinds",
    [("premem", {"fragment", "cluster"}), ("memorai", {"segment", "mentions"}), ("sgmem", {"summary", "fact"})],
)
def test_offline_presets_build_their_layers_without_an_llm(tmp_path, capsys, preset, kinds):
    counts = ingest_and_stats(tmp_path, capsys, preset)
    assert all(counts.get(k) for k in kinds), counts
    assert not counts.get("reasoning") and not counts.get("insight")  # generated text needs an LLM


def test_switching_preset_rebuilds_the_sessions_with_the_new_layers(tmp_path, capsys):
    first = ingest_and_stats(tmp_path, capsys, "base")
    assert not first.get("fragment")
    again = ingest_and_stats(tmp_path, capsys, "premem")
    assert again.get("fragment") and again["session"] == first["session"] and again["turn"] == first["turn"]


def test_preset_names_are_retrievers_and_bad_names_are_clear():
    names = retriever_names()
    for name in PRESETS:
        if name != "base":
            assert name in names
            get_retriever(name)
    with pytest.raises(ValueError, match="unknown preset 'hipporag'.*premem"):
        get_preset("hipporag")
    with pytest.raises(ValueError, match="unknown retriever 'hipporag'"):
        get_retriever("hipporag")


def test_cli_rejects_an_unknown_preset_in_one_line(tmp_path, capsys):
    assert main(["--data-dir", str(tmp_path / "mem"), "ingest", str(EXAMPLE), "--preset", "nope"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "nope" in err and "premem" in err
    assert not (tmp_path / "mem").exists()


def test_bench_with_a_preset_reports_llm_calls_and_tokens_per_session(tmp_path, monkeypatch):
    """`bench locomo --builder llm --preset sgmem`: own namespaces, the preset's retriever, and
    the ingest's LLM calls and tokens per built session in results.json / results.md."""
    import json

    from tests.test_bench import locomo_fixture

    monkeypatch.delenv("MEMGRAPH_LLM", raising=False)
    data = tmp_path / "locomo.json"
    data.write_text(json.dumps(locomo_fixture()), encoding="utf-8")
    model = every_prompt()
    register_chat_model(SPEC, model)
    out = tmp_path / "out"
    assert (
        main(
            [
                "--data-dir",
                str(tmp_path / "mem"),
                "--embeddings",
                "hash",
                "bench",
                "locomo",
                "--data",
                str(data),
                "--builder",
                "llm",
                "--llm",
                SPEC,
                "--preset",
                "sgmem",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    r = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert r["preset"] == "sgmem" and list(r["retrievers"]) == ["sgmem"]
    ing = r["ingest"]
    assert {p["namespace"] for p in ing["per_conversation"].values()} == {"conv-t1-sgmem", "conv-t2-sgmem"}
    sessions = sum(p["sessions_new"] for p in ing["per_conversation"].values())
    per = ing["llm_per_session"]
    assert per["calls"] == pytest.approx(ing["llm_usage"]["calls"] / sessions, abs=0.01)
    assert per["calls"] >= 2  # at least the events call and the session-memory call per session
    assert per["input_tokens"] > 0 and per["output_tokens"] > 0
    assert any(SGMEM_MARKER in p for p in model.prompts)
    assert "per newly built session" in (out / "results.md").read_text(encoding="utf-8")
