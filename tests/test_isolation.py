"""Tenant isolation: many namespaces in one data dir.

* No query returns another namespace's node: every retriever, asked about content that only
  other namespaces hold (and about content with the same node ids but different text in a
  twin namespace), returns nodes, texts, turns and sessions of its own namespace only; the
  Chroma collection answers only with its own vectors.
* Deleting one namespace (API) and another (CLI) leaves every other namespace byte-identical:
  the same files on disk, the same Chroma contents, the same query results.
"""

from __future__ import annotations

import hashlib
from datetime import datetime

import numpy as np
import pytest

from memgraph_agents.cli.main import main
from memgraph_agents.ingest import ingest_conversation
from memgraph_agents.model import Conversation, Session, Turn
from memgraph_agents.registry import RETRIEVERS, retrieve
from memgraph_agents.runtime import forget_store, get_store
from memgraph_agents.storage import NamespaceError, delete_namespace, list_namespaces
from memgraph_agents.storage.identity import store_id
from tests.workloads import chroma_dump, conversation

pytestmark = pytest.mark.slow  # seconds per test: left out of the fast subset (-m "not slow")

TAGGED = [f"n{i}" for i in range(8)]
TWINS = ["twin-a", "twin-b"]  # the same node ids, different words
ALL = TAGGED + TWINS
QUESTIONS = [
    "Who went to Kyoto for a watercolour painting weekend?",
    "How much did the course cost?",
    "Which pet stayed with the sister?",
    "What did the beagle chew?",
    "Where is the parrot from?",
]


def twin(ns: str) -> Conversation:
    pet, town = ("beagle", "Lisbon") if ns == "twin-a" else ("parrot", "Quito")
    turns = [
        Turn(id="D1:1", speaker="Ana", text=f"My {pet} chewed a map of {town} yesterday."),
        Turn(id="D1:2", speaker="Ben", text=f"A {pet} with a taste for {town}, how fitting."),
        Turn(id="D1:3", speaker="Ana", text=f"Next week we fly to {town} together."),
    ]
    return Conversation(id=ns, sessions=[Session(id="S1", date=datetime(2024, 5, 1, 9), turns=turns)])


@pytest.fixture(scope="module")
def memory(tmp_path_factory):
    from memgraph_agents.config import Settings

    settings = Settings(data_dir=tmp_path_factory.mktemp("iso") / "mem", embeddings="hash")
    own: dict[str, dict[str, str]] = {}
    for ns in ALL:
        conv = twin(ns) if ns in TWINS else conversation(ns, 2, tag=ns, turns=4)
        ingest_conversation(conv, settings, namespace=ns)
        own[ns] = {r[0]: r[2] for r in get_store(settings, ns).db.raw_nodes()}  # node id -> text
    return settings, own


def own_turns(own: dict[str, str]) -> set[str]:
    return {nid.removeprefix("turn:") for nid in own if nid.startswith("turn:")}


def results(settings, ns: str, names=None) -> dict:
    store = get_store(settings, ns, create=False)
    out = {}
    for name in names or RETRIEVERS:
        for q in QUESTIONS if name != "navigator" else QUESTIONS[:2]:
            out[(name, q)] = [
                (e.node_id, e.text, round(e.score, 6), tuple(e.turn_ids), tuple(e.session_ids))
                for e in retrieve(name, q, store, k=8)
            ]
    return out


def test_no_query_returns_another_namespaces_node(memory):
    settings, own = memory
    assert list_namespaces(settings.data_dir) == sorted(ALL)
    checked = 0
    for ns in ALL:
        store = get_store(settings, ns, create=False)
        sessions = {s["id"] for s in store.sessions()}
        turns = own_turns(own[ns])
        for (name, q), hits in results(settings, ns).items():
            assert hits or name in ("bm25",), (ns, name, q)
            for node_id, text, _, turn_ids, session_ids in hits:
                assert own[ns].get(node_id) == text, f"{name} in {ns} returned {node_id!r} with foreign text"
                assert set(turn_ids) <= turns and set(session_ids) <= sessions, (ns, name, node_id)
                checked += 1
        # The vector index itself: the nearest vectors to another namespace's words are our own.
        for other in ALL:
            if other == ns:
                continue
            probe = next(t for nid, t in own[other].items() if nid.startswith("turn:"))
            for nid, _score, _doc in store.vectors.query(store.embedder.embed_one(probe), 200):
                assert nid in own[ns], f"Chroma of {ns} answered {nid!r}"
            got = store.vectors.collection.get(
                ids=[n for n in own[other] if n not in own[ns]][:50], include=["documents"]
            )
            assert got["ids"] == []  # ids that exist only elsewhere are not reachable from here
    assert checked > 500
    # Same ids, different tenants: each twin sees its own words behind "turn:D1:1".
    a, b = (get_store(settings, ns).snapshot() for ns in TWINS)
    assert "beagle" in a.text[a.index["turn:D1:1"]] and "parrot" in b.text[b.index["turn:D1:1"]]
    va, vb = (get_store(settings, ns).vectors.get_vectors(["turn:D1:1"])["turn:D1:1"] for ns in TWINS)
    assert not np.allclose(va, vb)
    for e in retrieve("dense", "beagle chewed a map of Lisbon", get_store(settings, "twin-b"), k=3):
        assert "beagle" not in e.text and "Lisbon" not in e.text


def dir_bytes(settings, ns: str) -> dict[str, str]:
    d = settings.data_dir / "namespaces" / ns
    return {
        str(p.relative_to(d)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(d.rglob("*")) if p.is_file()
    }


def test_deleting_one_namespace_leaves_the_others_byte_identical(memory, capsys):
    settings, own = memory
    keep = [ns for ns in ALL if ns not in ("n3", "twin-a")]
    for ns in ALL:  # close every connection: SQLite folds its WAL back into the file
        forget_store(settings, ns)
    # Answers of freshly opened stores (vectors read back from Chroma, as after the deletion).
    answers = {ns: results(settings, ns, ["dense", "ppr", "hybrid"]) for ns in keep}
    vectors = {ns: chroma_dump(get_store(settings, ns).vectors.collection) for ns in keep}
    for ns in ALL:
        forget_store(settings, ns)
    before = {ns: dir_bytes(settings, ns) for ns in keep}
    assert all("graph.sqlite" in files for files in before.values())

    delete_namespace(settings.data_dir, "n3")
    assert main(["--embeddings", "hash", "--data-dir", str(settings.data_dir), "forget", "--namespace", "twin-a"]) == 0
    assert "forgot namespace twin-a" in capsys.readouterr().out

    assert {ns: dir_bytes(settings, ns) for ns in keep} == before  # not one byte changed on disk
    assert list_namespaces(settings.data_dir) == sorted(keep)
    for ns in ("n3", "twin-a"):
        assert not (settings.data_dir / "namespaces" / ns).exists()
        with pytest.raises(NamespaceError):
            get_store(settings, ns, create=False)
    client = get_store(settings, keep[0]).vectors.client
    sid = store_id(settings.data_dir)
    assert {c.name for c in client.list_collections()} == {f"mg-{sid}-{ns}" for ns in keep}
    for ns in keep:
        forget_store(settings, ns)
        assert chroma_dump(get_store(settings, ns).vectors.collection) == vectors[ns]
        assert results(settings, ns, ["dense", "ppr", "hybrid"]) == answers[ns]
