"""The extras: the default path runs without them, and a command that needs one says which.

Each case runs in a fresh process where the extra's packages cannot be imported (a ``None``
entry in ``sys.modules`` makes ``import x`` raise ``ImportError``, as an uninstalled package does).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXTRA_PACKAGES = ("matplotlib", "nltk", "networkx", "langchain_openai", "openai")
EXAMPLE = ROOT / "examples" / "conversation.json"


def run_without(blocked: tuple[str, ...], args: list[str], data: Path) -> subprocess.CompletedProcess:
    code = (
        "import sys\n"
        f"for name in {blocked!r}:\n"
        "    sys.modules[name] = None\n"
        "from memgraph_agents.cli.main import main\n"
        f"sys.exit(main({args!r}))\n"
    )
    env = {**os.environ, "MEMGRAPH_DATA_DIR": str(data), "MEMGRAPH_LLM": "none"}
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


@pytest.mark.slow
@pytest.mark.integration
def test_the_demo_runs_without_any_extra(tmp_path):
    out = run_without(EXTRA_PACKAGES, ["demo"], tmp_path / "mem")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "answer visible" in out.stdout


@pytest.mark.slow  # a fresh process
def test_drawing_without_the_draw_extra_names_its_install_command(tmp_path):
    target = tmp_path / "navigator.png"
    out = run_without(("matplotlib",), ["draw", "navigator", "--out", str(target)], tmp_path / "mem")
    assert out.returncode == 2 and not target.exists()
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and 'pip install "memgraph-agents[draw]"' in lines[0], out.stderr
    assert "matplotlib" in lines[0]


@pytest.mark.slow  # a fresh process
def test_a_benchmark_without_the_bench_extra_stops_before_it_starts(tmp_path):
    out_dir = tmp_path / "bench"
    out = run_without(("nltk",), ["bench", "chat", "--turns", "4", "--out", str(out_dir)], tmp_path / "mem")
    assert out.returncode == 2 and not out_dir.exists() and not (tmp_path / "mem").exists()
    assert 'pip install "memgraph-agents[bench]"' in out.stderr and "nltk" in out.stderr


@pytest.mark.slow  # a fresh process
def test_an_openai_llm_without_the_openai_extra_stops_before_anything_is_stored(tmp_path):
    data = tmp_path / "mem"
    args = ["ingest", str(EXAMPLE), "--llm", "openai:gpt-4o-mini", "--namespace", "n"]
    out = run_without(("langchain_openai", "openai"), args, data)
    assert out.returncode == 2 and not data.exists(), out.stdout + out.stderr
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and 'pip install "memgraph-agents[openai]"' in lines[0], out.stderr
    assert "openai:gpt-4o-mini" in lines[0] and "OpenAI-compatible chat model" in lines[0]


@pytest.mark.slow  # a fresh process
def test_memory_with_an_openai_llm_without_the_extra_fails_when_made(tmp_path):
    code = (
        "import sys\n"
        "sys.modules['langchain_openai'] = sys.modules['openai'] = None\n"
        "from memgraph_agents import Memory\n"
        "from memgraph_agents.errors import ConfigError\n"
        "try:\n"
        f"    Memory({str(tmp_path / 'mem')!r}, llm='openai:gpt-4o-mini')\n"
        "except ConfigError as e:\n"
        "    print('ERROR', e)\n"
        f"Memory({str(tmp_path / 'offline')!r}, llm='none')\n"  # offline needs no extra
    )
    env = {**os.environ, "MEMGRAPH_LLM": "none"}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "ERROR invalid setting llm='openai:gpt-4o-mini'" in out.stdout, out.stdout
    assert 'pip install "memgraph-agents[openai]"' in out.stdout and not (tmp_path / "mem").exists()


def test_installed_finds_a_package_without_importing_it(monkeypatch):
    from memgraph_agents.extras import installed

    monkeypatch.delitem(sys.modules, "tabnanny", raising=False)
    assert installed("tabnanny") and "tabnanny" not in sys.modules
    assert not installed("no_such_pkg") and not installed("no_such_pkg.sub")
    monkeypatch.setitem(sys.modules, "tabnanny", None)  # blocked, as the subprocess tests block an extra
    assert not installed("tabnanny")


def test_require_returns_the_module_or_names_the_extra():
    from memgraph_agents.errors import ConfigError
    from memgraph_agents.extras import require

    assert require("json", "draw", "x").dumps([1]) == "[1]"
    with pytest.raises(
        ConfigError, match=r'drawing needs no_such_pkg \(the \[draw\] extra\): pip install "memgraph-agents\[draw\]"'
    ):
        require("no_such_pkg.sub", "draw", "drawing")
