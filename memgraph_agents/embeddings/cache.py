"""The embedding model every spec is wrapped in: batched, normalised, with vectors kept once.

A document vector is computed once: it is then served from a small in-memory LRU, or from
the vectors the namespace being written already stores beside its graph rows (looked up by
the digest of the text, ``known_vectors``), never from a second copy on disk. Re-ingesting a
session, appending to an event or meeting a stored argument again costs no model time; a
text no stored node has (a fresh namespace) is computed.
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Protocol

import numpy as np
from langchain_core.embeddings import Embeddings

_QUERY_LRU = 4096
# Document vectors computed or read lately, kept in memory: a chat write asks for its new
# texts several times (each construction step, then the commit).
_HOT_LRU = 2048


class KnownVectors(Protocol):
    """Stored document vectors by the digest of their text (``text_key``); absent keys are left out."""

    def __call__(self, keys: list[bytes]) -> dict[bytes, np.ndarray]: ...


_KNOWN: ContextVar[KnownVectors | None] = ContextVar("memgraph_known_vectors", default=None)


@contextlib.contextmanager
def known_vectors(lookup: KnownVectors) -> Iterator[None]:
    """Within the block (this thread or task, and what it starts), documents are looked up in
    ``lookup`` before the model is asked: a namespace's build reads its own stored vectors.
    ``lookup`` must hold vectors of this model only (a namespace records its model)."""
    token = _KNOWN.set(lookup)
    try:
        yield
    finally:
        _KNOWN.reset(token)


def half(vectors: np.ndarray) -> np.ndarray:
    """``vectors`` rounded to float16 precision, as float32: how document vectors are stored
    (``storage.vector_rows``), so the stored vector is exactly the computed one."""
    return np.asarray(vectors, dtype=np.float32).astype(np.float16).astype(np.float32)


def _lines(text: str) -> list[str]:
    """The lines a document is embedded by: its non-blank lines, stripped; ``[text]`` itself
    when it has at most one (a one-line text is embedded exactly as given)."""
    lines = [line.strip() for line in text.split("\n") if line.strip()]
    return lines if len(lines) > 1 else [text]


def text_key(text: str) -> bytes:
    """The digest a document vector is found by (the graph rows' text digest)."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


class EmbeddingModel:
    """Numpy-facing embedder: batched, L2-normalised float32 rows; documents at float16 precision.

    ``name`` identifies the model in the namespaces it wrote and in Chroma's collection metadata.
    """

    def __init__(self, inner: Embeddings, name: str) -> None:
        self.inner = inner
        self.name = name
        self._lock = threading.Lock()
        self._dim: int | None = getattr(inner, "dim", None)
        self.hits = 0
        self.misses = 0
        self.query_calls = 0  # model calls made for query-side texts
        self._recent: OrderedDict[str, np.ndarray] = OrderedDict()
        self._hot: OrderedDict[bytes, np.ndarray] = OrderedDict()

    def load(self) -> float:
        """Load the model now if it loads lazily (MiniLM); the seconds it took (0 if nothing to
        load). Lets a caller report one-time model loading apart from query latency."""
        loader = getattr(self.inner, "_load", None)
        if loader is None:
            return 0.0
        t0 = time.perf_counter()
        loader()
        return time.perf_counter() - t0

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = len(self.inner.embed_query("dimension probe"))
        return self._dim

    @staticmethod
    def _lookup(keys: list[bytes]) -> dict[bytes, np.ndarray]:
        """The stored vectors of ``keys`` in the namespace being written (``known_vectors``)."""
        lookup = _KNOWN.get()
        if lookup is None or not keys:
            return {}
        return {k: half(v) for k, v in lookup(keys).items()}

    def _compute(self, texts: list[str]) -> np.ndarray:
        """The model's vectors for ``texts``, as an array (``embed_array`` when the model has one:
        no round trip through lists of floats)."""
        direct = getattr(self.inner, "embed_array", None)
        if callable(direct):
            return np.asarray(direct(texts), dtype=np.float32)
        return np.asarray(self.inner.embed_documents(texts), dtype=np.float32)

    def embed(self, texts: list[str]) -> np.ndarray:
        """Embed documents ``texts`` -> ``(n, dim)`` float32, normalised, each component rounded
        to float16 (``half``: the precision they are stored at); computed once per text.

        A document of several lines (an event: its turns, one a line) is the normalised,
        length-weighted mean of its lines' vectors, each line embedded (and cached) as a
        document of its own::

            v(d) = m / ||m||,    m = sum_l w_l v(line_l) / sum_l w_l,    w_l = words(line_l) + 2

        Mean pooling over the whole text averages every token's state, so each line weighs by
        its length (its words plus the two special tokens each input has); the lines are
        embedded apart, so a line's context is its own (Reimers & Gurevych 2019, Sentence-BERT's
        mean pooling; the mean of sentence vectors as a document's, Arora, Liang & Ma 2017).
        An event then costs no model time once its turns are embedded: appending a turn to it
        does not embed it again, and its tail is not cut at the model's 256 tokens."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = [_lines(t) for t in texts]
        if all(len(p) == 1 for p in parts):
            return self._embed_lines(texts)
        flat = list(dict.fromkeys(line for p in parts for line in p))
        vecs = self._embed_lines(flat)
        row = {line: i for i, line in enumerate(flat)}
        out = np.empty((len(texts), vecs.shape[1]), dtype=np.float32)
        for i, p in enumerate(parts):
            if len(p) == 1:  # a one-line text: its own vector, bit for bit (not renormalised)
                out[i] = vecs[row[p[0]]]
                continue
            w = np.array([len(line.split()) + 2 for line in p], dtype=np.float64)  # words, plus [CLS]/[SEP]
            m = w @ vecs[[row[line] for line in p]].astype(np.float64) / w.sum()
            out[i] = m / max(float(np.linalg.norm(m)), 1e-12)
        return half(out)

    def _embed_lines(self, texts: list[str]) -> np.ndarray:
        """The model's vectors of ``texts`` as they are (one text, one model input), at half precision."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        keys = [text_key(t) for t in texts]
        with self._lock:
            found = {k: v for k in set(keys) if (v := self._hot.get(k)) is not None}
        if len(found) < len(set(keys)):
            found.update(self._lookup([k for k in set(keys) if k not in found]))
        missing = list(dict.fromkeys(t for t, k in zip(texts, keys) if k not in found))
        self.hits += len(texts) - len(missing)
        self.misses += len(missing)
        if missing:
            vecs: np.ndarray = self._compute(missing)
            norms = np.linalg.norm(vecs, axis=1, keepdims=True)
            vecs = half(vecs / np.where(norms == 0, 1.0, norms))
            if self._dim is None:
                self._dim = vecs.shape[1]
            found.update((text_key(t), v) for t, v in zip(missing, vecs))
        with self._lock:
            for k in keys:
                self._hot[k] = found[k]
                self._hot.move_to_end(k)
            while len(self._hot) > _HOT_LRU:
                self._hot.popitem(last=False)
        return np.stack([found[k] for k in keys]).astype(np.float32, copy=False)

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        """Query-side vectors (questions, mentions, subgoals): ``(n, dim)``, normalised.

        Queries are never stored and keep full float32 precision; a small in-memory LRU
        serves texts already embedded in this process. Everything missing goes to the model in
        ONE call (``embed_queries`` of the inner model when it has one: single-threaded for
        MiniLM), so the texts of one question cost one model call, not one per text.
        """
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            found = {t: self._recent[t] for t in dict.fromkeys(texts) if t in self._recent}
            for t in found:
                self._recent.move_to_end(t)
        missing = [t for t in dict.fromkeys(texts) if t not in found]
        if missing:
            batch = getattr(self.inner, "embed_queries", None)
            vecs = np.asarray(batch(missing), dtype=np.float32) if callable(batch) else self._compute(missing)
            norms = np.linalg.norm(vecs, axis=1, keepdims=True)
            vecs = (vecs / np.where(norms == 0, 1.0, norms)).astype(np.float32)
            if self._dim is None:
                self._dim = vecs.shape[1]
            self.query_calls += 1
            with self._lock:
                for t, v in zip(missing, vecs):
                    found[t] = v
                    self._recent[t] = v
                while len(self._recent) > _QUERY_LRU:
                    self._recent.popitem(last=False)
        return np.stack([found[t] for t in texts]).astype(np.float32, copy=False)

    def embed_one(self, text: str) -> np.ndarray:
        """One query vector (``embed_queries`` of one text)."""
        return self.embed_queries([text])[0]

    def forget_queries(self) -> None:
        """Drop the in-memory query vectors: the next query is embedded afresh (benchmarks)."""
        with self._lock:
            self._recent.clear()

    def forget(self) -> None:
        """Drop every vector held in memory, documents and queries (the model stays loaded):
        what is embedded next is computed again, as in a fresh process (benchmarks)."""
        with self._lock:
            self._recent.clear()
            self._hot.clear()

    def close(self) -> None:
        """Release what this wrapper holds (its vectors in memory); the model stays loaded."""
        self.forget()
