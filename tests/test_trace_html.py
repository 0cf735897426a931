"""The offline trace page: data, self-containment, the CLI, and a real render in headless Chromium."""

from __future__ import annotations

import html
import re
import shutil
import subprocess

import pytest

from memgraph_agents.cli.main import main
from memgraph_agents.config import Settings
from memgraph_agents.debug.trace_html import build_trace_data, render_page
from memgraph_agents.ingest import ingest_conversation
from memgraph_agents.navigator import NavigatorContext, navigate
from memgraph_agents.runtime import get_store
from tests.conftest import make_conversation
from tests.fakes import ScriptedChatModel, careful_navigator_responder

QUESTION = "When did Ana adopt the beagle puppy Pixel?"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    s = Settings(data_dir=tmp_path_factory.mktemp("trace") / "mem", embeddings="hash", namespace="demo")
    ingest_conversation(make_conversation(), s)
    return get_store(s)


@pytest.fixture(scope="module")
def llm_result(store):
    """An LLM-policy navigation (scripted model): subgoals, refinement and an answer."""
    model = ScriptedChatModel(responder=careful_navigator_responder())
    # seed_meets > 1: the seed meets no subgoal, so the explorers search and there is a path to draw
    ctx = NavigatorContext(
        data_dir=str(store.data_dir), namespace="demo", embeddings="hash", policy="llm", seed_meets=2.0
    )
    return navigate(QUESTION, store, context=ctx, llm=model, k=5)


def test_trace_data_has_the_path_subgoals_queries_and_answer(store, llm_result):
    data = build_trace_data(llm_result, store)
    steps = data["steps"]
    decisions = [e for e in llm_result.trace if e["type"] == "decision"]
    assert [s["node"] for s in steps] == [e["node"] for e in decisions]
    assert [s["n"] for s in steps] == list(range(1, len(steps) + 1))
    assert {s["action"] for s in steps} <= {"SKIP", "EXPAND", "ANSWER"}
    assert [g["text"] for g in data["subgoals"]] == llm_result.subgoals
    assert all(g["step"] is None or 1 <= g["step"] <= len(steps) for g in data["subgoals"])
    assert data["queries"][0]["kind"] == "question" and data["queries"][0]["query"] == QUESTION
    assert data["answer"] == llm_result.answer and data["answer"]
    ids = {n["id"] for n in data["nodes"]}
    assert {s["node"] for s in steps} <= ids and {ev.node_id for ev in llm_result.evidence} <= ids
    for n in data["nodes"]:  # both layouts inside the 0..1000 box
        assert 0 <= n["x"] <= 1000 and 0 <= n["y"] <= 1000 and -50 <= n["tx"] <= 1050 and -50 <= n["ty"] <= 1050
    visited = {n["id"]: n for n in data["nodes"] if n["steps"]}
    assert all(visited[s["node"]]["action"] in ("SKIP", "EXPAND", "ANSWER") for s in steps)
    assert data["evidence"] and all(e["cite"].startswith("[20") for e in data["evidence"])


def test_page_is_self_contained_and_escapes_data(store, llm_result):
    result = llm_result.model_copy(update={"question": "Pixel </script><script>alert(1)</script> & co?"})
    page = render_page(build_trace_data(result, store))
    assert page.count("<script") == 2  # the data block and the inline viewer, nothing else
    assert "</script><script>alert(1)" not in page
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page), "no network resource"
    assert "<link" not in page and "@import" not in page
    assert not re.search(r"""url\(\s*["']?(https?:)?//""", page)
    assert "{{" not in page.split('<script id="trace-data"')[0]  # every placeholder filled


def test_memgraph_trace_cli_offline(tmp_path, capsys):
    data_dir = tmp_path / "mem"
    ingest_conversation(make_conversation(), Settings(data_dir=data_dir, embeddings="hash"), namespace="cli")
    out = tmp_path / "trace.html"
    rc = main(
        [
            "--data-dir",
            str(data_dir),
            "--embeddings",
            "hash",
            "trace",
            QUESTION,
            "--namespace",
            "cli",
            "--out",
            str(out),
            "--llm",
            "none",
        ]
    )
    assert rc == 0
    printed = capsys.readouterr().out
    assert "path:" in printed and str(out) in printed  # an easy question: "(no step)" past localize
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!doctype html>") and "memgraph trace" in page
    assert main(["--data-dir", str(data_dir), "trace", "x", "--namespace", "nobody", "--out", str(out)]) == 2


def _chromium(*args: str, url: str, profile) -> subprocess.CompletedProcess:
    cmd = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
        "--disable-sync",
        f"--user-data-dir={profile}",
        "--hide-scrollbars",
        "--window-size=1400,900",
        "--virtual-time-budget=5000",
        *args,
        url,
    ]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=90)


def _tags(dom: str, tag: str) -> list[dict[str, str]]:
    return [dict(re.findall(r'([\w-]+)="([^"]*)"', m)) for m in re.findall(rf"<{tag}\b([^>]*)>", dom)]


@pytest.mark.skipif(
    CHROMIUM is None, reason="needs Debian's `chromium` (apt-get install chromium; .ci/run installs it)"
)
@pytest.mark.slow
def test_trace_page_renders_in_headless_chromium(store, llm_result, tmp_path):
    page = tmp_path / "trace.html"
    page.write_text(render_page(build_trace_data(llm_result, store)), encoding="utf-8")
    url = page.as_uri()
    shot = tmp_path / "trace.png"
    r = _chromium(f"--screenshot={shot}", url=url, profile=tmp_path / "profile-shot")
    assert shot.exists() and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", r.stderr[-2000:]
    assert shot.stat().st_size > 30_000  # a drawn page, not a blank one

    r = _chromium("--dump-dom", url=url, profile=tmp_path / "profile-dom")
    dom = r.stdout
    assert 'data-rendered="1"' in dom, f"the viewer script did not finish: {r.stderr[-2000:]}"
    # every node of the path is drawn, numbered by its steps and coloured by its action
    drawn = {g["data-id"]: g for g in _tags(dom, "g") if "data-id" in g}
    decisions = [e for e in llm_result.trace if e["type"] == "decision"]
    assert decisions
    for n, e in enumerate(decisions, start=1):
        g = drawn[e["node"]]
        assert str(n) in g.get("data-steps", "").split(","), (e["node"], g)
    last = {e["node"]: e["action"] for e in decisions}
    for node, action in last.items():
        assert drawn[node]["data-action"] == action
    fills = {g.get("fill") for g in _tags(dom, "circle") if g.get("class") == "shape"}
    assert fills & {"#2f7ee6", "#f2a900", "#9aa3ad"}  # EXPAND / ANSWER / SKIP colours on the page
    # the answer and the step table are on the page
    answer = re.search(r'<div id="answer"[^>]*>(.*?)</div>', dom, re.S).group(1)
    assert html.unescape(answer).strip() == llm_result.answer
    rows = re.findall(r'<tr class="step[^"]*" data-step="(\d+)"', dom)
    assert [int(x) for x in rows] == list(range(1, len(decisions) + 1))
    assert "Subgoals" in dom and html.escape(llm_result.subgoals[0], quote=False) in dom


def test_neighbourhood_is_bounded_and_keeps_the_path(store, llm_result):
    data = build_trace_data(llm_result, store, max_nodes=2)
    events = {n["id"] for n in data["nodes"] if n["kind"] == "event"}
    assert {e["node"] for e in llm_result.trace if e["type"] == "decision"} <= events  # the path is never cut
    full = build_trace_data(llm_result, store)
    assert len(events) <= len({n["id"] for n in full["nodes"] if n["kind"] == "event"})


@pytest.mark.skipif(
    CHROMIUM is None, reason="needs Debian's `chromium` (apt-get install chromium; .ci/run installs it)"
)
@pytest.mark.slow
def test_trace_page_draws_a_few_hundred_nodes(store, llm_result, tmp_path):
    """The viewer at scale: 400 more events and 600 edges around the real path."""
    import random

    data = build_trace_data(llm_result, store)
    rnd = random.Random(3)
    extra = [
        {
            "id": f"event:X{i}",
            "kind": "event",
            "label": f"X{i}",
            "text": f"synthetic event {i}",
            "date": "2024-01-01",
            "session": f"X{i % 20}",
            "topic": "",
            "steps": [],
            "action": "",
            "candidate": False,
            "start": False,
            "queued": False,
            "kept": False,
            "score": 0.0,
            "turns": [],
            "x": rnd.uniform(0, 1000),
            "y": rnd.uniform(0, 1000),
            "tx": rnd.uniform(0, 1000),
            "ty": rnd.uniform(0, 1000),
        }
        for i in range(400)
    ]
    ids = [n["id"] for n in data["nodes"]] + [n["id"] for n in extra]
    data["nodes"] += extra
    data["edges"] += [
        {"s": rnd.choice(ids), "t": rnd.choice(ids), "kind": "similar", "label": "similar", "path": False}
        for _ in range(600)
    ]
    page = tmp_path / "big.html"
    page.write_text(render_page(data), encoding="utf-8")
    r = _chromium("--dump-dom", url=page.as_uri(), profile=tmp_path / "profile")
    assert 'data-rendered="1"' in r.stdout, r.stderr[-2000:]
    drawn = [g for g in _tags(r.stdout, "g") if g.get("data-kind") == "event"]
    assert len(drawn) == len([n for n in data["nodes"] if n["kind"] == "event"]) >= 400
    assert all(f'data-id="{e["node"]}"' in r.stdout for e in llm_result.trace if e["type"] == "decision")
