"""When a namespace has a Chroma index, and building it from the graph rows (docs/architecture.md, "The commit protocol").

Every vector is stored beside its graph row (``storage.vector_rows``), and namespaces up to
``MEMGRAPH_EXACT_SEARCH_NODES`` nodes are searched exactly from the snapshot. Chroma's HNSW
index is only needed above that, so a namespace gets one only when it grows past
``MEMGRAPH_CHROMA_INDEX_NODES`` embedded nodes (default: the exact-search threshold; 0: every
namespace). Below it nothing is written to Chroma: ten thousand small tenants cost a Chroma
server (or an embedded Chroma, which keeps every collection it wrote loaded) nothing.

The meta key ``chroma_index`` records the state: ``off`` (no index; whatever the collection
holds is never read), ``on`` (the collection holds every committed vector: every commit
writes it as in ``storage.commit``'s protocol). The commit that takes a namespace past the
threshold first empties the collection, copies every committed vector into it, then writes
its own vectors, and sets ``on`` in its one transaction; if it dies first, the mark stays
``off`` and the next commit builds again (an index is never half-built and marked ``on``).
A namespace with no mark was written before it existed, when every commit wrote Chroma: ``on``.
Once ``on``, a namespace stays indexed (deleting sessions does not drop it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from memgraph_agents.storage.vector_rows import matching

if TYPE_CHECKING:
    from memgraph_agents.embeddings import EmbeddingModel
    from memgraph_agents.storage.graph_store import GraphStore
    from memgraph_agents.storage.vectors import VectorIndex

INDEX_META = "chroma_index"
ON, OFF = "on", "off"


def is_on(state: str | None) -> bool:
    """A recorded state; none recorded: a namespace from before the mark (always written to Chroma)."""
    return state != OFF


def threshold(exact_search_nodes: int, chroma_index_nodes: int | None) -> int:
    """The embedded nodes past which a namespace is indexed: ``chroma_index_nodes``, by default
    the exact-search threshold (below it a dense query never asks Chroma anyway)."""
    return exact_search_nodes if chroma_index_nodes is None else chroma_index_nodes


def needs_build(embedded_after: int, threshold: int) -> bool:
    """Whether a commit leaving ``embedded_after`` embedded nodes must build the index."""
    return embedded_after > threshold


def build_index(db: GraphStore, vectors: VectorIndex, embedder: EmbeddingModel) -> int:
    """Empty the collection, then copy every committed node's vector into it (from the graph
    rows; a vector missing there is computed again from the committed text). Returns the
    number of vectors written. The collection is emptied, not dropped: another worker may
    hold a handle on it."""
    stale = vectors.all_ids()
    if stale:
        vectors.delete(stale)
    nodes = [r for r in db.raw_nodes() if r[6]]  # (id, kind, text, session_id, ..., embed)
    if not nodes:
        return 0
    text = {r[0]: r[2] for r in nodes}
    got = matching(db.node_vectors(list(text)), text)
    missing = [i for i in text if i not in got]
    if missing:
        for i, v in zip(missing, embedder.embed([text[i] for i in missing])):
            got[i] = np.asarray(v, dtype=np.float32)
    upsert_rows(vectors, nodes, got)
    return len(nodes)


def upsert_rows(vectors: VectorIndex, nodes: list[tuple], got: Mapping[str, np.ndarray]) -> None:
    """Upsert the vectors ``got`` of the embedded node rows ``nodes`` (``(id, kind, text,
    primary owner, ...)``), with the metadata a commit records (kind, owner session, text)."""
    if nodes:
        vectors.upsert(
            [r[0] for r in nodes],
            np.stack([got[r[0]] for r in nodes]),
            [r[1] for r in nodes],
            [r[3] for r in nodes],
            [r[2] for r in nodes],
        )
