"""``memgraph ui`` over HTTP (Starlette's test client on the real app, real SQLite, hash
embeddings): every view, the clean error pages, the confirmation step of writes, the cross-site
and token checks, escaping of untrusted text. The real browser drives it in test_ui_browser.py."""

from __future__ import annotations

import json
import re

import pytest
from starlette.testclient import TestClient

from memgraph_agents import Memory
from memgraph_agents.cli.main import main
from memgraph_agents.ui.app import build_app
from memgraph_agents.ui.security import COOKIE, Access
from tests.conftest import make_conversation

BASE = "http://127.0.0.1:8750"
EVIL = "<script>alert('x')</script> & <b>bold</b>"


@pytest.fixture
def mem(tmp_path) -> Memory:
    m = Memory(tmp_path / "mem", embeddings="hash", llm="none")
    m.add(make_conversation("ana-ben"), namespace="ana")
    m.add("Ben's locker code is 4711", namespace="ana", speaker="Ben")
    m.add(EVIL, namespace="ana")
    m.add("Bob collects stamps", namespace="bob")
    return m


def client(mem: Memory, **access) -> TestClient:
    return TestClient(build_app(mem, Access(**access)), base_url=BASE, follow_redirects=False)


def text(response) -> str:
    body = re.sub(r"<(script|style)[^>]*>.*?</\1>", "", response.text, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", body))


def note_ids(mem: Memory, ns: str = "ana") -> list[str]:
    return [i.id for i in mem.list(ns, kind="note").items]


def csrf(page: str) -> str:
    return re.search(r'name="csrf" value="([0-9a-f]+)"', page).group(1)


def test_home_lists_namespaces_with_their_figures(mem):
    r = client(mem).get("/")
    assert r.status_code == 200 and r.headers["content-security-policy"].startswith("default-src 'none'")
    rows = dict(re.findall(r'<a href="/ns/(\w+)">\1</a></td><td>(\d+)</td>', r.text))
    assert rows == {"ana": "3", "bob": "0"}  # sessions (notes apart)
    assert "hash-64" in r.text and "2 " in text(r)  # the embedding model; ana's two notes


def test_timeline_is_newest_first_filters_and_pages(mem):
    c = client(mem)
    r = c.get("/ns/ana")
    ids = re.findall(r'class="id">([^<]+)</a>', r.text)
    assert ids[:2] == note_ids(mem)[:2] and ids[-3:] == ["S3", "S2", "S1"]
    r = c.get("/ns/ana", params={"kind": "session", "since": "2024-06-01", "limit": "1"})
    assert re.findall(r'class="id">([^<]+)</a>', r.text) == ["S3"]
    nxt = re.search(r'href="([^"]+)" rel="next"', r.text).group(1).replace("&amp;", "&")
    assert "cursor=" in nxt and "since=2024-06-01" in nxt
    assert re.findall(r'class="id">([^<]+)</a>', c.get(nxt).text) == ["S2"]
    assert "End of the timeline" in c.get("/ns/ana", params={"kind": "note", "speaker": "Ben"}).text
    assert c.get("/ns/ana", params={"kind": "thing"}).status_code == 400


def test_session_page_shows_turns_events_arguments_and_topics(mem):
    r = client(mem).get("/ns/ana/session/S1")
    assert r.status_code == 200
    page = text(r)
    assert "D1:1" in page and "a beagle called Pixel" in page and "Built from these turns" in page
    assert re.search(r'href="/ns/ana/item/event:S1:\d+"', r.text)
    assert re.search(r'href="/ns/ana/item/arg:[^"]+"', r.text) and re.search(r'href="/ns/ana/item/topic:', r.text)


def test_search_shows_evidence_with_turn_ids_dates_and_the_path(mem):
    r = client(mem).get("/ns/ana/search", params={"q": "When did Ana adopt Pixel?", "k": "3"})
    assert r.status_code == 200
    evidence = r.text[r.text.index("<h2>Evidence</h2>") : r.text.index("How this run reached it")]
    assert len(re.findall(r"<li>", evidence)) == 3
    assert re.search(r'href="/ns/ana/item/D1:1"', evidence) and "2024-03-10" in evidence and "match 0." in evidence
    reached = r.text[r.text.index("How this run reached it") :]
    assert re.search(r"(turn:D|event:S)\d", reached)  # the run's trace lines: the nodes it answered from
    # framed, or linked from the seed ranking when the run stopped after localize (test_ui_path_panel)
    src = re.search(r'(?:src|href)="(/ns/ana/trace\?q=When\+did\+Ana\+adopt\+Pixel%3F&amp;k=3&amp;run=[\w-]+)"', r.text)
    assert src, "the drawing is of this very run"
    c = client(mem)
    run_url = src.group(1).replace("&amp;", "&")
    r = c.get("/ns/ana/search", params={"q": "When did Ana adopt Pixel?", "k": "3"})
    drawn = c.get(re.search(r'(?:src|href)="(/ns/ana/trace[^"]+)"', r.text).group(1).replace("&amp;", "&"))
    assert drawn.status_code == 200 and "memgraph trace" in drawn.text
    # a bookmarked link: a fresh run
    fresh = c.get("/ns/ana/trace", params={"q": "When did Ana adopt Pixel?", "k": "3"})
    assert fresh.status_code == 200 and "memgraph trace" in fresh.text
    # another app instance holds no such run, and another namespace may not draw it: a clean 400
    assert client(mem).get(run_url).status_code == 400
    assert c.get(run_url.replace("/ns/ana/", "/ns/bob/")).status_code == 400
    assert "frame-ancestors 'self'" in drawn.headers["content-security-policy"]


@pytest.mark.parametrize(
    "url, status",
    [
        ("/ns/nobody", 404),
        ("/ns/nobody/search?q=x", 404),
        ("/ns/ana/item/S99", 404),
        ("/ns/ana/session/S99", 404),
        ("/ns/ana/item/note-nothere", 404),
        ("/ns/ana/search?q=x&k=many", 400),
        ("/ns/ana/search?q=x&k=0", 400),
        ("/ns/ana/search?q=x&as_of=someday", 400),
        ("/ns/ana/search?q=x&retriever=nonexistent", 400),
        ("/ns/ana/search?q=x&filter=nokey", 400),
        ("/ns/ana/trace", 400),
        ("/nothing/here", 404),
    ],
)
def test_bad_ids_and_arguments_are_a_clean_page(mem, url, status):
    r = client(mem).get(url)
    assert r.status_code == status, r.text[:300]
    assert r.text.startswith("<!doctype html>") and "Traceback" not in r.text
    assert re.search(r'<p class="problem">[^<]+</p>', r.text)
    assert "existing:" not in r.text and str(mem.settings.data_dir) not in r.text  # nothing of others


def test_untrusted_text_is_escaped_everywhere(mem):
    c = client(mem)
    evil_id = next(i.id for i in mem.list("ana", kind="note").items if "script" in i.text)
    for url in ("/ns/ana", f"/ns/ana/item/{evil_id}", "/ns/ana/search?q=alert+bold"):
        r = c.get(url)
        assert "<script>alert" not in r.text and "<b>bold" not in r.text, url
        assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;" in r.text, url
    r = c.get("/ns/ana/search", params={"q": '"><script>x()</script>'})
    assert "<script>x()" not in r.text


def test_update_and_forget_a_note_need_the_confirmation_step(mem):
    c = client(mem)
    note = next(i.id for i in mem.list("ana", kind="note").items if "locker" in i.text)
    page = c.get(f"/ns/ana/item/{note}").text
    token = csrf(page)
    review = c.post(f"/ns/ana/item/{note}", data={"csrf": token, "action": "update", "text": "Ben's code is 1234"})
    assert review.status_code == 200 and "Confirm: update" in review.text
    assert mem.get(note, namespace="ana").text == "Ben's locker code is 4711"  # nothing changed yet
    done = c.post(
        f"/ns/ana/item/{note}", data={"csrf": token, "action": "update", "text": "Ben's code is 1234", "confirm": "yes"}
    )
    assert done.status_code == 303 and mem.get(note, namespace="ana").text == "Ben's code is 1234"
    history = c.get(done.headers["location"]).text
    assert "The note was updated." in history and "4711" in history and "1234" in history  # both versions
    assert c.post(f"/ns/ana/item/{note}", data={"csrf": token, "action": "forget"}).status_code == 200
    assert note in note_ids(mem)
    gone = c.post(f"/ns/ana/item/{note}", data={"csrf": token, "action": "forget", "confirm": "yes"})
    assert gone.status_code == 303 and note not in note_ids(mem)
    assert "Forgot " in c.get(gone.headers["location"]).text
    assert c.get(f"/ns/ana/item/{note}").status_code == 404


def test_writes_refuse_cross_site_requests_and_missing_tokens(mem):
    c = client(mem)
    note = note_ids(mem)[0]
    token = csrf(c.get(f"/ns/ana/item/{note}").text)
    form = {"csrf": token, "action": "forget", "confirm": "yes"}
    refused = [
        c.post(f"/ns/ana/item/{note}", data={**form, "csrf": ""}),
        c.post(f"/ns/ana/item/{note}", data={**form, "csrf": "0" * 64}),
        c.post(f"/ns/ana/item/{note}", data=form, headers={"Origin": "http://evil.example"}),
        c.post(f"/ns/ana/item/{note}", data=form, headers={"Sec-Fetch-Site": "cross-site"}),
        c.post(f"/ns/ana/item/{note}", data=form, headers={"Host": "evil.example"}),  # DNS rebinding
    ]
    assert [r.status_code for r in refused] == [403] * 5
    assert note in note_ids(mem)
    ok = c.post(f"/ns/ana/item/{note}", data=form, headers={"Origin": BASE, "Sec-Fetch-Site": "same-origin"})
    assert ok.status_code == 303 and note not in note_ids(mem)


def test_read_only_has_no_write_controls_and_refuses_writes(mem):
    c = client(mem, read_only=True)
    note = note_ids(mem)[0]
    page = c.get(f"/ns/ana/item/{note}").text
    assert '<form method="post"' not in page and 'name="csrf"' not in page
    r = c.post(f"/ns/ana/item/{note}", data={"csrf": "0" * 64, "action": "forget", "confirm": "yes"})
    assert r.status_code == 403 and "read-only" in r.text and note in note_ids(mem)


def test_namespace_option_serves_one_namespace(mem):
    c = client(mem, only="bob")
    assert c.get("/").headers["location"] == "/ns/bob"
    assert c.get("/ns/ana").status_code == 404 and c.get("/ns/bob").status_code == 200


def test_tokens_sign_in_and_see_their_own_namespace_only(mem, tmp_path):
    c = client(mem, tokens={"tok-ana": "ana", "tok-bob": "bob"})
    for url in ("/", "/ns/ana", "/ns/ana/item/S1"):
        r = c.get(url)
        assert r.status_code == 401 and 'name="token"' in r.text and "Stamps" not in r.text
    assert c.post("/login", data={"token": "wrong"}).status_code == 401
    assert c.post("/login", data={"token": "tok-bob"}, headers={"Origin": "http://evil.example"}).status_code == 403
    signed = c.post("/login", data={"token": "tok-bob"})
    assert signed.status_code == 303 and "httponly" in signed.headers["set-cookie"].lower()
    assert "samesite=strict" in signed.headers["set-cookie"].lower()
    home = c.get("/").text
    assert 'href="/ns/bob"' in home and 'href="/ns/ana"' not in home
    assert c.get("/ns/bob").status_code == 200
    assert c.get("/ns/ana").text == c.get("/ns/nobody").text.replace("nobody", "ana")  # not told apart
    assert c.get("/ns/ana").status_code == 404
    bearer = client(mem, tokens={"tok-ana": "ana"})
    assert bearer.get("/ns/ana", headers={"Authorization": "Bearer tok-ana"}).status_code == 200
    # With tokens the Host check is off (a real host name serves other machines)
    assert bearer.get("/ns/ana", headers={"Authorization": "Bearer tok-ana", "Host": "mem.example"}).status_code == 200
    assert COOKIE in signed.headers["set-cookie"]


def test_ui_refuses_a_public_address_without_tokens(tmp_path, capsys):
    code = main(["--data-dir", str(tmp_path / "mem"), "ui", "--host", "0.0.0.0", "--port", "8799"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("error: refusing to serve memory"), err
    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps({"": "ana"}))
    code = main(["--data-dir", str(tmp_path / "mem"), "ui", "--host", "0.0.0.0", "--tokens", str(tokens)])
    assert code == 2 and "error: token file" in capsys.readouterr().err
    assert not (tmp_path / "mem").exists()  # refused before anything was opened


def test_an_unfiltered_list_page_reads_no_snapshot_and_equals_the_snapshot_page(mem, monkeypatch):
    """The timeline's first page comes from the session records and their heads (no snapshot
    load: a 10,000-turn namespace opens fast); it equals the page the snapshot gives, page by page."""
    from memgraph_agents.runtime import get_store

    filtered = {"since": "1900-01-01"}  # every turn passes, through the snapshot
    pages = [(mem.list("ana", limit=2), mem.list("ana", limit=2, **filtered))]
    while pages[-1][0].cursor:
        a, b = pages[-1]
        assert b.cursor and a.cursor != b.cursor  # a cursor is bound to its listing's filter
        pages.append((mem.list("ana", limit=2, cursor=a.cursor), mem.list("ana", limit=2, cursor=b.cursor, **filtered)))
    assert pages[-1][1].cursor is None
    for a, b in pages:
        assert a.model_dump(exclude={"cursor"}) == b.model_dump(exclude={"cursor"})
    assert sum(len(a.items) for a, _ in pages) == 5
    store = get_store(mem.settings, "ana", create=False)
    monkeypatch.setattr(type(store), "snapshot", lambda self: (_ for _ in ()).throw(AssertionError("snapshot")))
    assert [i.kind for i in mem.list("ana", kind="note").items] == ["note", "note"]  # no snapshot read
    with pytest.raises(AssertionError, match="snapshot"):  # the filtered path does read it
        mem.list("ana", kind="note", since="1900-01-01")
