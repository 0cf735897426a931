"""The MemORAI structures of a snapshot, as DW-PR reads them (built once per snapshot).

What the ``memorai`` layer stored (``construct.memorai.write``): MENTIONS edges entity ->
turn, TRIPLE edges entity -> entity (label = predicate), MEMBER edges segment -> turn, and
``attrs["description"]`` on arguments. DW-PR needs vectors for the entity descriptions and
the triple descriptions, which are not node texts (the argument's vector is its name, a
triple is an edge). They are embedded here with the store's embedder, once per snapshot;
the ingest layer embedded the same texts, so these are (model, text) cache hits, not model
calls. A triple's description is rebuilt from the snapshot as ``"<subject text> <predicate>
<object text>"`` (``model.memorai_rows.triple_text``, the text the layer embedded).

``None`` when the snapshot holds no MemORAI structure: DW-PR then runs as before.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from memgraph_agents.model.graph import NodeKind
from memgraph_agents.model.memorai_rows import SEGMENT_EDGE, triple_text
from memgraph_agents.model.ranking import ranks_of
from memgraph_agents.storage.snapshot import EDGE_CODE, KIND_CODE, GraphSnapshot


@dataclass(frozen=True)
class MemoraiGraph:
    mention_src: np.ndarray  # argument node index, per MENTIONS edge
    mention_dst: np.ndarray  # turn node index
    segment: np.ndarray  # segment node index, per segment -> turn edge
    segment_turn: np.ndarray  # its turn node index
    triple_src: np.ndarray  # subject argument index, per TRIPLE edge
    triple_dst: np.ndarray  # object argument index
    triple_texts: list[str]
    triple_vectors: np.ndarray  # (n_triples, dim)
    triple_turns: list[list[str]]  # source turn ids per triple
    described: np.ndarray  # argument indices with a description
    description_vectors: np.ndarray  # (len(described), dim)
    structured_turn: np.ndarray  # bool per node: a turn of a session built with the memorai layer
    triples_by_turn: dict[str, list[int]]  # turn id -> the triples citing it
    triple_rank: np.ndarray  # tiebreak: each triple's rank by (subject id, label, object id)

    def triples_citing(self, turn_id: str) -> list[int]:
        return self.triples_by_turn.get(turn_id, [])


def _edges_of(snap: GraphSnapshot, kind: str) -> np.ndarray:
    return np.flatnonzero(snap.ekind == EDGE_CODE[kind])


def memorai_graph(snap: GraphSnapshot, embedder) -> MemoraiGraph | None:
    """The snapshot's MemORAI structures with their description vectors (module doc)."""

    def build() -> MemoraiGraph | None:
        mentions, triples = _edges_of(snap, "mentions"), _edges_of(snap, "triple")
        seg = _edges_of(snap, SEGMENT_EDGE.value)
        seg = seg[snap.kind[snap.src[seg]] == KIND_CODE["segment"]]
        if not (len(mentions) or len(triples) or len(seg)):
            return None
        args = snap.indices_of(NodeKind.ARGUMENT)
        described = np.array([i for i in args if snap.attrs[i].get("description")], dtype=np.int64)
        texts = [str(snap.attrs[i]["description"]) for i in described]
        t_src, t_dst = snap.src[triples].astype(np.int64), snap.dst[triples].astype(np.int64)
        t_texts = [triple_text(snap.text[s], snap.elabel[j], snap.text[d]) for s, d, j in zip(t_src, t_dst, triples)]
        vecs = embedder.embed(texts + t_texts) if texts or t_texts else np.zeros((0, embedder.dim), np.float32)
        structured = np.zeros(len(snap.ids), dtype=bool)
        structured[snap.dst[seg]] = True
        turns = [list(snap.eturns[j]) for j in triples]
        by_turn: dict[str, list[int]] = {}
        for k, cited in enumerate(turns):
            for t in cited:
                by_turn.setdefault(t, []).append(k)
        return MemoraiGraph(
            mention_src=snap.src[mentions].astype(np.int64),
            mention_dst=snap.dst[mentions].astype(np.int64),
            segment=snap.src[seg].astype(np.int64),
            segment_turn=snap.dst[seg].astype(np.int64),
            triple_src=t_src,
            triple_dst=t_dst,
            triple_texts=t_texts,
            triple_vectors=vecs[len(texts) :],
            triple_turns=turns,
            described=described,
            description_vectors=vecs[: len(texts)],
            structured_turn=structured,
            triples_by_turn=by_turn,
            triple_rank=ranks_of(
                [f"{snap.ids[s]}\t{snap.elabel[j]}\t{snap.ids[d]}" for s, d, j in zip(t_src, t_dst, triples)]
            ),
        )

    return snap.derived(("memorai_graph", getattr(embedder, "name", "")), build)
