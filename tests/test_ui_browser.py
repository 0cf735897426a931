"""``memgraph ui`` in a real browser: headless Chromium over the DevTools protocol drives the demo
memory (real model, real SQLite, the real ``memgraph ui`` process): open → search → item →
update a note → its history → forget it, checking what is on each page (turn ids, dates,
supersession marks), that every control is labelled and reachable by keyboard, and that a
screenshot is not blank."""

from __future__ import annotations

import io
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.cdp import CHROMIUM, Browser
from tests.helpers import stop_server

pytestmark = [
    pytest.mark.slow,
    pytest.mark.integration,
    pytest.mark.skipif(
        CHROMIUM is None, reason="needs Debian's `chromium` (apt-get install chromium; .ci/run installs it)"
    ),
]

QUESTION = "Where will Lena's wedding take place now?"
NOTE = "Maya's race number for the half marathon is 1187."


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _cli(data_dir: Path, *argv: str) -> str:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False", "MEMGRAPH_LLM": "none"}
    env.pop("MEMGRAPH_EMBEDDINGS", None)
    cmd = [sys.executable, "-m", "memgraph_agents.cli.main", "--data-dir", str(data_dir), *argv]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, check=True, timeout=300).stdout


@pytest.fixture(scope="module")
def ui(tmp_path_factory):
    """The demo memory plus one note, served by ``memgraph ui`` on a free port."""
    data_dir = tmp_path_factory.mktemp("ui") / "mem"
    _cli(data_dir, "demo")
    _cli(data_dir, "note", "add", NOTE, "--namespace", "demo", "--speaker", "Maya")
    port = _free_port()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False", "MEMGRAPH_LLM": "none"}
    env.pop("MEMGRAPH_EMBEDDINGS", None)
    server = subprocess.Popen(
        [sys.executable, "-m", "memgraph_agents.cli.main", "--data-dir", str(data_dir), "ui", "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        try:
            if httpx.get(base + "/", timeout=5).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        if server.poll() is not None or time.monotonic() > deadline:
            stop_server(server)
            pytest.fail(f"memgraph ui did not start: {server.stdout.read().decode() if server.stdout else ''}")
        time.sleep(0.2)
    yield base
    stop_server(server)


@pytest.fixture
def browser(tmp_path):
    b = Browser(tmp_path / "profile")
    yield b
    b.close()


UNLABELLED = """[...document.querySelectorAll('input:not([type=hidden]), textarea, select, button')]
  .filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label') && !e.textContent.trim())
  .map(e => e.outerHTML)"""


def _not_blank(png: bytes) -> None:
    from PIL import Image

    img = Image.open(io.BytesIO(png)).convert("RGB")
    assert img.size[0] >= 800 and img.size[1] >= 600
    colours = img.getcolors(maxcolors=1 << 20) or []
    background = max(colours)[0] / (img.size[0] * img.size[1])
    assert len(colours) > 50 and background < 0.97, (len(colours), background)  # drawn text, not one colour


def test_open_search_item_update_history_forget_in_chromium(ui, browser, tmp_path):
    b = browser
    # open: the namespaces, then the demo's timeline with its five sessions and the note
    b.open(ui + "/")
    assert "demo" in b.text() and b.eval(UNLABELLED) == []
    b.follow("document.querySelector('a[href=\"/ns/demo\"]').click()")
    timeline = b.text()
    assert all(f"S{i}" in timeline for i in range(1, 6)) and "5 sessions, 1 notes, 61 turns" in timeline
    assert b.eval(UNLABELLED) == []

    # search, by keyboard: Tab to the question box, type, Enter
    reached = [b.tab() for _ in range(12)]
    assert "f-q" in reached, reached
    while b.eval("document.activeElement.id") != "f-q":
        b.tab()
    b.type(QUESTION)
    before = b.eval("location.href")
    b.key("Enter", "Enter", 13, "\r")
    b.wait_for(f"location.href !== {json.dumps(before)} && document.readyState === 'complete'", 120)
    assert b.eval("location.pathname") == "/ns/demo/search"
    evidence = b.eval("document.querySelector('ol.evidence').innerText")
    assert "S4:6" in evidence and "2024-04-27" in evidence and "converted barn" in evidence
    assert "superseded on 2024-04-27 by S4:6" in evidence  # S1:11, the vineyard, replaced
    assert b.eval("document.querySelector('ul.trace').children.length") >= 3  # the run's path
    # the run stopped after localize: the panel shows the seed ranking it answered with, not an
    # empty drawing, and links the drawing of the graph around those turns
    seeds = b.eval("document.querySelector('.seed-ranking').innerText")
    assert "stopped after localize" in seeds and "S4:6" in seeds and "seed score" in seeds
    shot = b.screenshot()
    _not_blank(shot)
    (tmp_path / "search.png").write_bytes(shot)
    search_url = b.eval("location.href")
    b.follow("[...document.querySelectorAll('a')].find(a => a.textContent.startsWith('Open the graph')).click()")
    b.wait_for("document.querySelectorAll('svg circle, svg g').length > 5")
    b.open(search_url)

    # item: follow the evidence's turn id link
    b.follow("[...document.querySelectorAll('ol.evidence a')].find(a => a.textContent === 'S1:11').click()")
    item = b.text()
    assert b.eval("location.pathname") == "/ns/demo/item/S1:11"
    assert "Provenance" in item and "supersedes" in item and "turn:S4:6" in item and "vineyard" in item

    # the note: update with the confirmation step, then its history
    b.open(ui + "/ns/demo?kind=note")
    b.follow("document.querySelector('table a.id').click()")
    note_url = b.eval("location.href")
    assert NOTE in b.text() and b.eval(UNLABELLED) == []
    b.eval("document.getElementById('f-text').focus()")
    b.eval("document.getElementById('f-text').select()")
    b.type("Maya's race number is 2264.")
    b.follow("document.querySelector('form.write button').click()")
    assert "Confirm: update" in b.text() and "2264" in b.text()
    assert b.eval("document.activeElement.textContent") == "Confirm: update"  # Enter confirms
    b.follow("document.activeElement.click()")
    page = b.text()
    assert "The note was updated." in page and "Maya's race number is 2264." in page
    history = b.eval(
        "[...document.querySelectorAll('table')].find(t => t.caption.innerText.startsWith('History')).innerText"
    )
    assert NOTE in history and "Maya's race number is 2264." in history

    # forget it, confirmed; the timeline says so and no longer lists it
    b.follow(
        "[...document.querySelectorAll('form.write button')].find(x => x.textContent.startsWith('Forget')).click()"
    )
    assert "cannot be undone" in b.text()
    b.follow("document.activeElement.click()")
    assert b.eval("location.pathname") == "/ns/demo" and "Forgot note-" in b.text()
    assert "2264" not in b.text()
    b.open(note_url)
    assert "Not found" in b.text()
