"""Vectors kept beside the graph rows (reads never open Chroma): the encoding both graph stores share.

Every embedded node's vector is written into the graph store (``node_vectors`` in SQLite,
``mg_node_vectors`` in PostgreSQL) in the same transaction as its row, with a digest of the
text it embeds. A snapshot then loads its vectors from the graph store, never from Chroma:
a read-only query on a namespace does not open its Chroma collection (embedded Chroma keeps
every collection it opened loaded, and no store cache can close it). A vector is used only
when its digest is that of the committed node's text, the rule Chroma's documents enforce.
Chroma is only the ANN index of namespaces past ``MEMGRAPH_CHROMA_INDEX_NODES`` (``storage.chroma_index``).

Namespaces written before this table hold their vectors only in Chroma: ``MemoryStore``
copies them into the rows once (meta ``vectors`` = ``rows`` marks a namespace whose every
vector is in the rows).

**Encoding.** A vector is stored at half precision: one format byte (``HALF``) then the
little-endian float16 components, ``1 + 2 * dim`` bytes, half of float32's ``4 * dim``. Document
vectors are already rounded to float16 by ``EmbeddingModel.embed``, so the row holds them
exactly: a vector read back is bit for bit the one the writer used (a reader process ranks as
the writer did). Rows written before hold bare float32 (``4 * dim`` bytes, always an even
length; a half row's is odd), so both decode and an older data dir needs no migration; a
blob of any other shape is an error, never a guess.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Protocol

import numpy as np

from memgraph_agents.errors import StorageError


class HasVectorsByDigest(Protocol):
    def vectors_by_digest(self, digests: Iterable[bytes]) -> list[tuple[bytes, bytes]]: ...


# meta key and value of a namespace whose vectors are all in the graph rows
VECTORS_META = ("vectors", "rows")


def text_digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


# format byte of a half-precision row (a bare float32 row has no header)
HALF = b"\x10"
_F16 = np.dtype("<f2")
_F32 = np.dtype("<f4")


def encode_vector(vector: np.ndarray) -> bytes:
    """``HALF`` + the float16 components (``vector`` rounded to the nearest half)."""
    return HALF + np.ascontiguousarray(vector, dtype=_F16).tobytes()


def decode_vector(blob: bytes) -> np.ndarray:
    """A stored vector as float32: a ``HALF`` row, or a bare float32 row of an older version."""
    blob = bytes(blob)
    if len(blob) % 2 == 1:
        if blob[:1] != HALF:
            raise StorageError(
                f"a stored vector has an unknown format (byte {blob[:1]!r}): written by a newer version?"
            )
        return np.frombuffer(blob, dtype=_F16, offset=1).astype(np.float32)
    if len(blob) % 4:
        raise StorageError(f"a stored vector of {len(blob)} bytes is neither float16 nor float32: the row is damaged")
    return np.frombuffer(blob, dtype=_F32).astype(np.float32)


def vector_rows(vectors: Mapping[str, np.ndarray], texts: Mapping[str, str]) -> list[tuple[str, bytes, bytes]]:
    """``(id, text digest, encoded vector)`` per vector, in id order."""
    return [(i, text_digest(texts[i]), encode_vector(vectors[i])) for i in sorted(vectors)]


def matching(rows: Iterable[tuple[str, bytes, bytes]], texts: Mapping[str, str]) -> dict[str, np.ndarray]:
    """The vectors among ``rows`` stored for the text ``texts`` gives their id."""
    out: dict[str, np.ndarray] = {}
    for i, digest, blob in rows:
        text = texts.get(i)
        if text is not None and bytes(digest) == text_digest(text):
            out[i] = decode_vector(blob)
    return out


class StoredVectors:
    """The vectors a graph store holds, by the digest of their text (an ``embeddings.KnownVectors``):
    a build of the namespace reuses them instead of asking the model again. Every row of a
    namespace is of its one recorded model, and a row whose digest is a text's is that text's."""

    def __init__(self, db: HasVectorsByDigest) -> None:
        self._db = db

    def __call__(self, keys: list[bytes]) -> dict[bytes, np.ndarray]:
        return {bytes(d): decode_vector(blob) for d, blob in self._db.vectors_by_digest(keys)}
