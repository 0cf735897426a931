"""``memgraph ui`` as a place to manage memory, in a real browser: headless Chromium over the
DevTools protocol on the demo memory (real model, real SQLite, the real ``memgraph ui``
process). It adds a note through the timeline's form, finds it in the timeline and in a search,
downloads the namespace's export, ingests the download into a fresh data dir (the same
sessions and turns), and forgets a session in bulk after the confirmation page that counts it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.cdp import CHROMIUM, Browser
from tests.helpers import stop_server
from tests.test_ui_browser import UNLABELLED, _cli, _free_port

pytestmark = [
    pytest.mark.slow,
    pytest.mark.integration,
    pytest.mark.skipif(
        CHROMIUM is None, reason="needs Debian's `chromium` (apt-get install chromium; .ci/run installs it)"
    ),
]

NOTE = "The spare key to the allotment shed hangs behind the blue watering can."
QUESTION = "Where is the spare key to the allotment shed?"


@pytest.fixture
def served(tmp_path):
    """A demo memory served by ``memgraph ui`` on a free port: (base URL, data dir)."""
    data_dir = tmp_path / "mem"
    _cli(data_dir, "demo")
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
    yield base, data_dir
    stop_server(server)


def _exported(data_dir: Path) -> dict:
    return json.loads(_cli(data_dir, "export", "--namespace", "demo"))


def _shape(conversation: dict) -> list[tuple]:
    return [
        (s["id"], s["date"], [(t["id"], t["speaker"], t["text"]) for t in s["turns"]]) for s in conversation["sessions"]
    ]


def test_add_find_export_import_and_bulk_forget_in_chromium(served, tmp_path):
    base, data_dir = served
    b = Browser(tmp_path / "profile")
    try:
        downloads = tmp_path / "downloads"
        downloads.mkdir()
        b.send("Browser.setDownloadBehavior", behavior="allow", downloadPath=str(downloads))

        # add a note through the timeline's form
        b.open(base + "/ns/demo")
        assert b.eval(UNLABELLED) == [] and "5 sessions, 0 notes" in b.text()
        b.eval("document.getElementById('f-note').focus()")
        b.type(NOTE)
        b.eval("document.getElementById('f-note-speaker').select()")
        b.type("Maya")
        b.follow("document.querySelector('form.add-note button').click()")
        page = b.text()
        assert "Added note-" in page and "5 sessions, 1 notes" in page
        note_id = re.search(r"Added (note-[\w-]+)\.", page).group(1)
        first_row = b.eval("document.querySelector('table tbody tr').innerText")
        assert first_row.startswith("note-") and "Maya" in first_row and "allotment shed" in first_row

        # find it in a search
        b.eval("document.getElementById('f-q').focus()")
        b.type(QUESTION)
        b.follow("document.querySelector('form.search').submit()")
        top = b.eval("[...document.querySelectorAll('ol.evidence li')].slice(0, 3).map(li => li.innerText)")
        assert any(f"{note_id}:1" in item and "blue watering can" in item for item in top), top

        # export: the timeline's link downloads the namespace
        b.open(base + "/ns/demo")
        b.eval("document.querySelector('p.export a').click()")
        target = downloads / "demo.json"
        deadline = time.monotonic() + 60
        while not (target.exists() and target.stat().st_size > 0):
            assert time.monotonic() < deadline, list(downloads.iterdir())
            time.sleep(0.1)
        time.sleep(0.3)  # the download's last write
        downloaded = json.loads(target.read_text(encoding="utf-8"))
        assert downloaded == _exported(data_dir)
        assert [s["id"] for s in downloaded["sessions"]][:5] == ["S1", "S2", "S3", "S4", "S5"]
        assert any(s["id"].startswith("note-") and s["turns"][0]["text"] == NOTE for s in downloaded["sessions"])

        # import the download into a fresh data dir: the same sessions and turns
        fresh = tmp_path / "fresh"
        _cli(fresh, "ingest", str(target))
        assert _shape(_exported(fresh)) == _shape(downloaded)

        # forget a session in bulk: filter the timeline to it, review the count, confirm
        b.eval("document.getElementById('f-kind').value = 'session'")
        b.eval("document.getElementById('f-since').value = '2024-05-20'")
        b.follow("document.querySelector('form.filters').submit()")
        assert b.eval("[...document.querySelectorAll('table a.id')].map(a => a.textContent)") == ["S5"]
        b.follow("document.querySelector('form.bulk-forget button').click()")
        confirm = b.text()
        assert "Forget 1 session(s) and 0 note(s), 9 turn(s) matching kind session, since 2024-05-20" in confirm
        assert "session S5" in confirm and "cannot be undone" in confirm
        assert _shape(_exported(data_dir)) == _shape(downloaded)  # nothing gone before the confirmation
        assert b.eval("document.activeElement.textContent") == "Confirm: forget 1 item(s)"
        b.follow("document.activeElement.click()")
        assert b.eval("location.pathname") == "/ns/demo" and "Forgot 1 item(s)." in b.text()
        b.open(base + "/ns/demo")
        assert "4 sessions, 1 notes" in b.text()
        assert [s["id"] for s in _exported(data_dir)["sessions"]][:4] == ["S1", "S2", "S3", "S4"]
        assert "S5" not in [s["id"] for s in _exported(data_dir)["sessions"]]
    finally:
        b.close()
