"""Start-up imports only what the path needs: a first answer offline loads no torch, no openai.

Run in fresh subprocesses (``sys.modules`` of this test process holds everything), on a
namespace built with the real default model (int8 ONNX MiniLM).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # seconds per test: left out of the fast subset (-m "not slow")

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "conversation.json"
# Never on the offline default path; chromadb only for namespaces with a Chroma index; the
# extras' packages never. The LangGraph runtime (and the LangSmith client its LangChain
# runnables import) is the default's: the default retriever is the compiled navigator graph;
# a retriever that is not a graph (``oneshot``) loads neither.
GRAPH_RUNTIME = ("langgraph", "langsmith")
FORBIDDEN = (
    "torch",
    "transformers",
    "sentence_transformers",
    "openai",
    "langchain_openai",
    "chromadb",
    "matplotlib",  # the [draw] / [bench] extras
    "nltk",
    "networkx",
)
REPORT = "loaded = sorted({m.split('.')[0] for m in sys.modules} & set(FORBIDDEN)); print('LOADED', loaded)\n"


@pytest.fixture(scope="module")
def memory(tmp_path_factory):
    """Built by another process: embedded Chroma's data dir is one process's at a time."""
    data = tmp_path_factory.mktemp("startup") / "mem"
    run(
        f"from memgraph_agents.cli.main import main\nassert main(['ingest', {str(EXAMPLE)!r}, '--namespace', 's']) == 0\n",
        data,
    )
    return data


def run(code: str, data: Path) -> str:
    env = {
        **os.environ,
        "MEMGRAPH_DATA_DIR": str(data),
        "MEMGRAPH_EMBEDDINGS": "minilm",
        "MEMGRAPH_LLM": "none",
        "MEMGRAPH_CHROMA_INDEX_NODES": "100000",  # a small namespace: no Chroma index (the default)
    }
    out = subprocess.run(
        [sys.executable, "-c", f"import sys\nFORBIDDEN = {FORBIDDEN!r}\n{code}{REPORT}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def test_memgraph_ask_offline_imports_no_torch_openai_or_chroma(memory):
    out = run(
        "from memgraph_agents.cli.main import main\n"
        "assert main(['ask', 'When did Jonas adopt Pixel?', '--namespace', 's']) == 0\n",
        memory,
    )
    assert "1. [" in out and "LOADED []" in out, out


def test_a_search_with_a_retriever_that_is_no_graph_loads_no_graph_runtime(memory):
    out = run(
        "from memgraph_agents import Memory\n"
        f"hits = Memory({str(memory)!r}, namespace='s').search('When did Jonas adopt Pixel?', k=3, retriever='oneshot')\n"
        "assert len(hits) == 3, hits\n"
        f"print('GRAPH', sorted({{m.split('.')[0] for m in sys.modules}} & set({GRAPH_RUNTIME!r})))\n",
        memory,
    )
    assert "LOADED []" in out and "GRAPH []" in out, out


def test_memory_and_one_search_import_no_torch_openai_or_chroma(memory):
    out = run(
        "from memgraph_agents import Memory\n"
        f"hits = Memory({str(memory)!r}, namespace='s').search('When did Jonas adopt Pixel?', k=3)\n"
        "assert len(hits) == 3, hits\n",
        memory,
    )
    assert "LOADED []" in out, out


def test_an_unknown_retriever_is_reported_before_any_model_loads(memory):
    out = run(
        "import time\nfrom memgraph_agents.cli.main import main\n"
        "t = time.process_time()\n"
        "assert main(['ask', 'Where?', '--namespace', 's', '--retriever', 'nope']) == 2\n"
        "print('CPU', time.process_time() - t)\n"
        "assert 'onnxruntime' not in sys.modules\n",
        memory,
    )
    assert "LOADED []" in out, out
