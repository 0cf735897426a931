"""Metadata filters select as LangGraph's ``InMemoryStore`` does (its own ``search`` is the
reference), plus ``$in``; bad filters and metadata are one clear error."""

from __future__ import annotations

from datetime import datetime

import pytest
from langgraph.store.memory import InMemoryStore

from memgraph_agents.errors import InputError
from memgraph_agents.model.filters import MemoryFilter, TimeWindow
from memgraph_agents.model.metadata import check_filter, check_metadata, matches, metadata_bytes

ITEMS = {
    "a": {"kind": "habit", "n": 1, "tags": ["x", "y"], "who": {"name": "Ana", "age": 31}, "ok": True},
    "b": {"kind": "fact", "n": 2.5, "tags": ["y"], "who": {"name": "Ben"}, "ok": False},
    "c": {"kind": "habit", "n": 3, "tags": ["x", "y"], "who": {"name": "Ana", "age": 40}, "ok": None},
    "d": {"kind": "hobby", "n": 10, "tags": [], "who": "Ana", "extra": {"deep": {"er": 1}}},
    "e": {"n": 0},
}
FILTERS = [
    {},
    {"kind": "habit"},
    {"kind": "habit", "n": 3},
    {"kind": "nothing"},
    {"missing": None},
    {"ok": True},
    {"ok": None},
    {"tags": ["x", "y"]},
    {"tags": ["y", "x"]},
    {"tags": []},
    {"who": {"name": "Ana"}},
    {"who": {"name": "Ana", "age": 40}},
    {"who": "Ana"},
    {"extra": {"deep": {"er": 1}}},
    {"n": {"$gt": 2}},
    {"n": {"$gte": 2.5, "$lt": 10}},
    {"n": {"$lte": 1}},
    {"n": {"$eq": 3}},
    {"n": {"$ne": 3}},
    {"kind": {"$ne": "habit"}},
    {"kind": {"$eq": "habit"}, "n": {"$gt": 1}},
]


@pytest.mark.parametrize("flt", FILTERS, ids=[str(f) for f in FILTERS])
def test_same_items_as_langgraphs_in_memory_store(flt):
    store = InMemoryStore()
    for key, value in ITEMS.items():
        store.put(("m",), key, value)
    expected = {item.key for item in store.search(("m",), filter=flt, limit=100)}
    got = {key for key, value in ITEMS.items() if matches(value, check_filter(flt))}
    assert got == expected


def test_in_and_comparisons_on_missing_or_text_values():
    assert matches({"kind": "fact"}, {"kind": {"$in": ["habit", "fact"]}})
    assert not matches({"kind": "fact"}, {"kind": {"$in": ["habit"]}})
    assert not matches({}, {"kind": {"$in": ["habit"]}})
    assert matches({}, {"kind": {"$in": [None]}})
    assert not matches({}, {"n": {"$gt": 1}})  # InMemoryStore raises here; an item without n does not match
    assert not matches({"n": "many"}, {"n": {"$gt": 1}})
    assert matches({"n": "3"}, {"n": {"$gt": 1}})  # as InMemoryStore: compared as floats


@pytest.mark.parametrize(
    "flt, match",
    [
        ({"n": {"$regex": "a"}}, "unknown operator"),
        ({"n": {"$gt": "1"}}, "takes a number"),
        ({"n": {"$gt": True}}, "takes a number"),
        ({"n": {"$in": "abc"}}, "takes a list"),
        ({"$or": []}, "invalid key"),
        ({"k": float("inf")}, "not a JSON number"),
        (["kind"], "must be an object"),
    ],
)
def test_bad_filters_are_refused(flt, match):
    with pytest.raises(InputError, match=match):
        check_filter(flt)


def test_metadata_checks_and_size():
    assert check_metadata(None) == {}
    assert check_metadata({"a.b-c_1": [1, 2.5, "x", None, True, {"k": "v"}]}) == {
        "a.b-c_1": [1, 2.5, "x", None, True, {"k": "v"}]
    }
    assert check_metadata({"t": (1, 2)}) == {"t": [1, 2]}  # as JSON stores it
    for bad in ({"-a": 1}, {".a": 1}, {"a" * 65: 1}, {1: "x"}, {"a b": 1}):
        with pytest.raises(InputError, match="invalid key"):
            check_metadata(bad)
    with pytest.raises(InputError, match="key 1 is not a string"):
        check_metadata({"a": {1: "x"}})
    assert metadata_bytes({"é": "ü"}) == len('{"é":"ü"}'.encode())


def test_memory_filter_window_and_key():
    window = TimeWindow(since=datetime(2024, 1, 1), until=datetime(2024, 2, 1))
    assert window.contains(datetime(2024, 1, 1)) and not window.contains(datetime(2024, 2, 1))
    assert TimeWindow().open and TimeWindow().contains(datetime(1900, 1, 1))
    with pytest.raises(ValueError, match="must be before until"):
        TimeWindow(since=datetime(2024, 2, 1), until=datetime(2024, 2, 1))
    a = MemoryFilter(speakers=("Ana ", "ben"), metadata={"b": 1, "a": 2})
    b = MemoryFilter(speakers=("BEN", "ana"), metadata={"a": 2, "b": 1})
    assert a.key() == b.key() and a.admits_speaker("ANA") and not a.admits_speaker("Cy")
    assert MemoryFilter().empty and not a.empty
