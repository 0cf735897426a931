"""``memgraph ui`` as a place to manage memory (Starlette's test client on the real app, real
SQLite, hash embeddings): add a note from the timeline, export what it lists as a file that
``Memory.add`` / ``memgraph ingest`` reads back, forget in bulk after a confirmation page that
counts what goes; the same write checks as every write; nothing of it under ``--read-only``;
user namespaces shown by the user id they were made for, and only to who may see them. The
real browser drives the same steps in test_ui_browser.py."""

from __future__ import annotations

import re

import pytest

from memgraph_agents import Memory
from tests.conftest import make_conversation
from tests.test_ui import EVIL, client, csrf, text


@pytest.fixture
def mem(tmp_path) -> Memory:
    """test_ui's memory: a conversation and two notes in ``ana``, one note in ``bob``."""
    m = Memory(tmp_path / "mem", embeddings="hash", llm="none")
    m.add(make_conversation("ana-ben"), namespace="ana")
    m.add("Ben's locker code is 4711", namespace="ana", speaker="Ben")
    m.add(EVIL, namespace="ana")
    m.add("Bob collects stamps", namespace="bob")
    return m


def _ids(page: str) -> list[str]:
    return re.findall(r'class="id">([^<]+)</a>', page)


def test_add_a_note_from_the_timeline(mem):
    c = client(mem)
    page = c.get("/ns/ana").text
    assert 'action="/ns/ana/add"' in page and 'for="f-note"' in page
    r = c.post("/ns/ana/add", data={"csrf": csrf(page), "text": "Ben's bike lock code is 5521", "speaker": "Ben"})
    assert r.status_code == 303
    shown = c.get(r.headers["location"])
    [note] = re.findall(r"Added (note-[^.\s]+)\.", text(shown))
    assert _ids(shown.text)[0] == note  # newest first
    item = mem.get(note, namespace="ana")
    assert (item.text, item.speaker) == ("Ben's bike lock code is 5521", "Ben")
    assert c.post("/ns/ana/add", data={"csrf": csrf(page), "text": "  "}).status_code == 400


def test_add_and_bulk_forget_refuse_what_other_writes_refuse(mem):
    c = client(mem)
    token = csrf(c.get("/ns/ana").text)
    before = mem.stats("ana")["sessions"]
    for path, form in (("/ns/ana/add", {"text": "x"}), ("/ns/ana/forget", {"confirm": "yes"})):
        refused = [
            c.post(path, data={**form, "csrf": ""}),
            c.post(path, data={**form, "csrf": token}, headers={"Origin": "http://evil.example"}),
            c.post(path, data={**form, "csrf": token}, headers={"Sec-Fetch-Site": "cross-site"}),
            c.post(path, data={**form, "csrf": token}, headers={"Host": "evil.example"}),
        ]
        assert [r.status_code for r in refused] == [403] * 4, path
    assert mem.stats("ana")["sessions"] == before
    ro = client(mem, read_only=True)
    page = ro.get("/ns/ana").text
    assert 'action="/ns/ana/add"' not in page and 'action="/ns/ana/forget"' not in page and 'name="csrf"' not in page
    assert 'href="/ns/ana/export"' in page  # reading is not writing
    r = ro.post("/ns/ana/add", data={"csrf": token, "text": "x"})
    assert r.status_code == 403 and "read-only" in r.text and mem.stats("ana")["sessions"] == before


def test_export_downloads_the_namespace_that_add_reads_back(mem, tmp_path):
    c = client(mem)
    r = c.get("/ns/ana/export")
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
    assert r.headers["content-disposition"] == 'attachment; filename="ana.json"'
    data = r.json()
    assert data["id"] == "ana" and [s["id"] for s in data["sessions"]][:3] == ["S1", "S2", "S3"]
    assert data == mem.export("ana")
    path = tmp_path / "ana.json"
    path.write_text(r.text, encoding="utf-8")
    assert mem.add(path, namespace="ana").sessions_unchanged == len(data["sessions"])  # the same content
    fresh = Memory(tmp_path / "fresh", embeddings="hash", llm="none")
    report = fresh.add(path, namespace="ana")
    assert report.sessions_added == len(data["sessions"]) == mem.stats("ana")["sessions"]
    assert fresh.export("ana") == data
    for sid in ("S1", "S2"):
        old, new = mem.get(sid, namespace="ana"), fresh.get(sid, namespace="ana")
        assert (new.date, new.metadata, new.turns) == (old.date, old.metadata, old.turns)
    # the page's filter is the export's
    since = c.get("/ns/ana/export", params={"kind": "session", "since": "2024-06-01"}).json()
    assert [s["id"] for s in since["sessions"]] == ["S2", "S3"]


def test_bulk_forget_confirms_with_a_count_and_forgets_exactly_what_it_listed(mem):
    c = client(mem)
    filt = {"kind": "session", "since": "2024-06-01"}
    page = c.get("/ns/ana", params=filt).text
    assert 'action="/ns/ana/forget"' in page and 'name="since" value="2024-06-01"' in page
    turns = sum(mem.get(s, namespace="ana").n_turns for s in ("S2", "S3"))
    confirm = c.post("/ns/ana/forget", data={"csrf": csrf(page), **filt})
    assert confirm.status_code == 200 and mem.stats("ana")["sessions"] == 5  # nothing gone yet
    assert f"Forget 2 session(s) and 0 note(s), {turns} turn(s) matching kind session, since 2024-06-01" in text(
        confirm
    )
    ids = re.findall(r'name="id" value="([^"]+)"', confirm.text)
    assert sorted(ids) == ["S2", "S3"]
    # a form whose ids are not what the filter lists now is shown again, never acted on
    again = c.post("/ns/ana/forget", data={"csrf": csrf(page), **filt, "confirm": "yes", "id": ["S2"]})
    assert again.status_code == 200 and "changed since you looked" in again.text
    assert mem.stats("ana")["sessions"] == 5
    done = c.post("/ns/ana/forget", data={"csrf": csrf(page), **filt, "confirm": "yes", "id": ids})
    assert done.status_code == 303 and "Forgot 2 item(s)." in text(c.get(done.headers["location"]))
    assert [i.id for i in mem.list("ana", kind="session").items] == ["S1"]
    assert len(mem.list("ana", kind="note").items) == 2  # the notes were not listed: they stay


def test_a_user_namespace_is_shown_by_its_user_id_to_who_may_see_it(mem):
    mem.add("Cleo waters the ferns on Fridays", user_id="cleo@example.com")
    mem.user("dan").add("Dan plays the oboe")
    cleo, dan = Memory.namespace_for_user("cleo@example.com"), Memory.namespace_for_user("dan")
    home = client(mem).get("/").text
    assert f'<a href="/ns/{cleo}" class="user">cleo@example.com</a>' in home
    assert f'<a href="/ns/{dan}" class="user">dan</a>' in home
    assert "cleo@example.com (user)" in text(client(mem).get(f"/ns/{cleo}"))
    # under --tokens a token sees its own user's id, never another's
    c = client(mem, tokens={"tok-dan": dan, "tok-ana": "ana"})
    c.post("/login", data={"token": "tok-dan"})
    seen = c.get("/").text + c.get(f"/ns/{dan}").text + c.get(f"/ns/{cleo}").text + c.get(f"/ns/{cleo}/export").text
    assert "dan (user)" in seen and "cleo" not in seen and "ferns" not in seen
    assert c.get(f"/ns/{cleo}/export").status_code == 404


@pytest.mark.parametrize("bad", [{"kind": "thing"}, {"since": "yesterday"}])
def test_bad_export_arguments_are_a_clean_page(mem, bad):
    r = client(mem).get("/ns/ana/export", params=bad)
    assert r.status_code == 400 and "Traceback" not in r.text
