"""``MemgraphStore.search(filter=...)`` behaves as LangGraph's ``InMemoryStore``: the same items
for the same puts and filters — equality, nested objects, lists, operators, missing keys — with
and without a query. Where ``InMemoryStore`` raises (``$in`` is not one of its operators; ``$gt``
on a missing value fails) the project's one filter language (``model.metadata``) answers: an
item whose value cannot be compared does not match, ``$in`` is "equals one of"."""

from __future__ import annotations

import pytest
from langgraph.store.memory import InMemoryStore

from memgraph_agents.config import Settings
from memgraph_agents.integrations import MemgraphStore

NS = ("team", "notes")
VALUES = {
    "kiwi": {"content": "Lior grows kiwis on the balcony.", "kind": "plant", "year": 2024, "tags": ["a", "b"]},
    "fern": {"content": "Lior's fern needs shade.", "kind": "plant", "year": 2023, "nested": {"a": 1, "b": "x"}},
    "cat": {"content": "Noa's cat is called Miso.", "kind": "pet", "year": 2024, "nested": {"a": 2, "deep": {"x": 3}}},
    "note": {"content": "Buy soil for the kiwis.", "kind": None, "tags": ["a"]},
}
FILTERS = [
    {"kind": "plant"},
    {"kind": "plant", "year": 2024},
    {"kind": None},  # also every item without the key: None == missing
    {"missing": None},
    {"missing": "x"},
    {"tags": ["a", "b"]},
    {"tags": ["a"]},
    {"tags": "a"},
    {"nested": {"a": 1}},
    {"nested": {"a": 1, "b": "x"}},
    {"nested": {"deep": {"x": 3}}},
    {"nested": {"deep": {"x": {"$gt": 2}}}},
    {"year": {"$eq": 2024}},
    {"year": {"$ne": 2024}},
    {"year": {"$gte": 2024}},  # "note" has no year: InMemoryStore raises
    {"kind": {"$in": ["pet", "plant"]}},  # not an InMemoryStore operator: it raises
    {"year": {"$gte": 2023, "$lt": 2024}, "kind": "plant"},
]


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    pair = [
        InMemoryStore(),
        MemgraphStore(settings=Settings(data_dir=tmp_path_factory.mktemp("sf"), embeddings="hash")),
    ]
    for store in pair:
        for key, value in VALUES.items():
            store.put(NS, key, value)
    return pair


def outcome(store, **search) -> tuple:
    """The keys found (sorted when a query ranks them: InMemoryStore without an index does
    not rank), or the error raised."""
    try:
        found = [i.key for i in store.search(("team",), limit=50, **search)]
    except Exception as exc:  # noqa: BLE001 - the kind of error is what is compared
        return ("raises", type(exc).__name__)
    return ("keys", tuple(sorted(found) if "query" in search else found))


@pytest.mark.parametrize("flt", FILTERS, ids=[str(f) for f in FILTERS])
def test_filter_parity(stores, flt):
    from memgraph_agents.model.metadata import matches

    memory, graph = stores
    expected = outcome(memory, filter=flt)
    if expected[0] == "raises":  # the project's total rule where InMemoryStore has none
        expected = ("keys", tuple(k for k, v in VALUES.items() if matches(v, flt)))
    assert outcome(graph, filter=flt) == expected
    ranked = outcome(graph, filter=flt, query="kiwis on the balcony")
    assert ranked == (expected[0], tuple(sorted(expected[1])))


def test_the_cases_are_not_trivial(stores):
    """The filters above select different sets, and some raise: the parity says something."""
    memory, _ = stores
    seen = {outcome(memory, filter=f) for f in FILTERS}
    assert ("raises", "ValueError") in seen and ("raises", "TypeError") in seen
    assert len(seen) >= 8
