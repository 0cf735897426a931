"""What runs behind each door, as docs/architecture.md's table says: every write door reaches the
one ingest runner (``construct/pipeline/sequence.run_steps``), and the table lists every exported
graph. (Questions: ``tests/test_navigator_graph_runs.py`` checks every door runs the compiled
navigator graph.)"""

from __future__ import annotations

import asyncio
import re

import pytest

from memgraph_agents.api import Memory
from memgraph_agents.config import Settings
from memgraph_agents.construct.pipeline import sequence
from memgraph_agents.debug.graphs import EXPORTED, load_graph
from memgraph_agents.runtime import MemoryContext
from tests.paths import REPO

DOC = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
ROWS = {
    cells[0]: cells[1:]
    for line in DOC.splitlines()
    if line.startswith("| ")
    and len(cells := [c.strip() for c in line.strip("|").split("|")]) == 4
    and cells[0] != "door"
}


@pytest.fixture
def runs(monkeypatch) -> list[str]:
    """The namespace of every run of the ingest runner from now on."""
    seen: list[str] = []
    real = sequence.run_steps

    async def spy(inputs, context: MemoryContext):
        seen.append(context.namespace)
        return await real(inputs, context)

    monkeypatch.setattr(sequence, "run_steps", spy)
    return seen


def test_the_table_lists_every_exported_graph_and_each_runtime_is_one_of_two():
    for name in EXPORTED:
        assert f"Studio graph `{name}`" in ROWS, f"docs/architecture.md does not say what the graph {name!r} runs"
    runtimes = {cell for write, ask in (r[1:] for r in ROWS.values()) for cell in (write, ask)}
    assert runtimes == {"ingest sequence", "navigator graph", "—"}


def test_the_documented_write_doors_run_the_ingest_sequence(tmp_path, runs):
    settings = Settings(data_dir=tmp_path / "m", embeddings="hash", namespace="doors")
    mem = Memory(settings=settings)
    try:
        mem.add("Nora keeps her bicycle in the shed.")
    finally:
        mem.close()
    assert runs == ["doors"] and ROWS["`Memory` (`add`, `search`, `ask`, …)"][1] == "ingest sequence"

    from memgraph_agents.integrations import MemgraphStore

    store = MemgraphStore(settings=settings)
    store.put(("people", "nora"), "bike", {"text": "Nora rides to the market on Saturdays."})
    assert len(runs) == 2 and ROWS["LangGraph `BaseStore`"][1] == "ingest sequence"

    from memgraph_agents.integrations.mcp_server import build_server

    async def remember_over_mcp():
        return await build_server(settings).call_tool("remember", {"text": "Nora's shed key is blue."})

    asyncio.run(remember_over_mcp())
    assert runs[-1] == "doors" and len(runs) == 3 and ROWS["MCP server"][1] == "ingest sequence"


def test_studios_ingest_graph_runs_the_ingest_sequence(tmp_path, runs):
    context = MemoryContext(namespace="studio", data_dir=str(tmp_path / "m"), embeddings="hash")
    session = {
        "id": "s1",
        "date": "2024-05-01",
        "turns": [{"id": "s1:1", "speaker": "Ola", "text": "I adopted a cat."}],
    }
    out = asyncio.run(load_graph("ingest").ainvoke({"session": session}, context=context))
    assert out["report"]["turns"] == 1 and runs == ["studio"]
    assert ROWS["Studio graph `ingest`"][1] == "ingest sequence"


def test_no_compiled_copy_of_the_pipeline():
    package = REPO / "memgraph_agents" / "construct"
    compiled = [p for p in package.rglob("*.py") if re.search(r"StateGraph\(", p.read_text(encoding="utf-8"))]
    assert compiled == [], "the ingest steps run in one runner: no graph copy of them"
