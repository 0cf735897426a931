"""A document of several lines (an event: its turns) is the length-weighted mean of its lines' vectors.

So an event costs no model time once its turns are embedded, and a chat write that appends a
turn to an event embeds only that turn (``EmbeddingModel.embed``)."""

from __future__ import annotations

import numpy as np

from memgraph_agents.embeddings import EmbeddingModel, HashEmbeddings
from memgraph_agents.embeddings.cache import half


class Counting(HashEmbeddings):
    """The hash model, recording every text it computes."""

    def __init__(self) -> None:
        super().__init__(64)
        self.seen: list[str] = []

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.seen.extend(texts)
        return super().embed_documents(texts)


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)


def test_a_multi_line_document_is_the_mean_of_its_lines_and_one_line_texts_are_unchanged():
    model = EmbeddingModel(Counting(), "hash-64")
    lines = ["Ines: I planted beans by the fence.", "Bot: Which variety?", "Ines: Runner beans, red flowers."]
    alone = model.embed(lines)
    event = "\n".join(lines)
    got = model.embed([event, lines[1], "  \n" + event + "\n\n"])  # blank lines and margins ignored
    words = np.array([len(line.split()) + 2 for line in lines], dtype=np.float64)
    expected = half(_unit(words @ alone.astype(np.float64)))  # stored at float16 precision
    np.testing.assert_allclose(got[0], expected, atol=1e-6)
    assert np.array_equal(got[0], got[2]) and np.isclose(np.linalg.norm(got[0]), 1.0, atol=1e-3)
    assert np.array_equal(got[1], alone[1])  # a one-line text in a mixed call: bit for bit its own vector
    fresh = EmbeddingModel(HashEmbeddings(64), "hash-64")
    assert np.array_equal(fresh.embed([lines[0] + "\n"])[0], fresh.embed([lines[0] + "\n"])[0])
    assert not np.array_equal(got[0], alone[0])


def test_an_event_that_grows_by_a_turn_embeds_only_that_turn():
    inner = Counting()
    model = EmbeddingModel(inner, "hash-64")
    turns = ["Ines: The ferry was late again.", "Bot: How late?", "Ines: Forty minutes, in the rain."]
    model.embed(turns[:2])
    model.embed(["\n".join(turns[:2])])
    assert inner.seen == turns[:2]  # the event's lines were embedded already: no model call
    model.embed([turns[2], "\n".join(turns)])
    assert inner.seen == turns  # the appended turn once; the grown event costs nothing more
