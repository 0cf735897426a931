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
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping

import numpy as np

# meta key and value of a namespace whose vectors are all in the graph rows
VECTORS_META = ("vectors", "rows")


def text_digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def vector_rows(vectors: Mapping[str, np.ndarray], texts: Mapping[str, str]) -> list[tuple[str, bytes, bytes]]:
    """``(id, text digest, float32 bytes)`` per vector, in id order."""
    return [
        (i, text_digest(texts[i]), np.ascontiguousarray(vectors[i], dtype=np.float32).tobytes())
        for i in sorted(vectors)
    ]


def matching(rows: Iterable[tuple[str, bytes, bytes]], texts: Mapping[str, str]) -> dict[str, np.ndarray]:
    """The vectors among ``rows`` stored for the text ``texts`` gives their id."""
    out: dict[str, np.ndarray] = {}
    for i, digest, blob in rows:
        text = texts.get(i)
        if text is not None and bytes(digest) == text_digest(text):
            out[i] = np.frombuffer(bytes(blob), dtype=np.float32).copy()
    return out
