"""``SearchRequest``: one search, typed and validated once, as every door hands it to the engine."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from memgraph_agents.api.request import SearchRequest, search_request
from memgraph_agents.errors import InputError


def test_a_request_is_frozen_and_names_its_retriever():
    req = search_request(query="Where does Ana work?", namespaces=("a", "b"), k=5, retriever="ppr")
    assert req.namespace == "a" and req.at("b").namespaces == ("b",) and req.retriever_name == "ppr"
    with pytest.raises(ValidationError, match="frozen"):
        req.k = 6  # type: ignore[misc]

    def mine(query, store, *, k=10):
        return []

    assert search_request(query="q", namespaces=("a",), k=1, retriever=mine).retriever_name == "mine"


@pytest.mark.parametrize(
    "fields,named",
    [
        ({"query": "   "}, "query"),
        ({"k": 0}, "k"),
        ({"k": 201}, "k"),
        ({"min_score": 1.5}, "min_score"),
        ({"namespaces": ()}, "namespaces"),
        ({"retriever": 3}, "retriever"),
        ({"top_k": 3}, "top_k"),
    ],
)
def test_a_bad_field_is_an_input_error_naming_it(fields, named):
    base = {"query": "q", "namespaces": ("a",), "k": 3, "retriever": "oneshot"}
    with pytest.raises(InputError, match=rf"invalid search request \({named}"):
        search_request(**{**base, **fields})
    assert SearchRequest(**base).k == 3
