"""What every construction step may read besides the session: memory so far, models, params."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from memgraph_agents.config import IngestParams
from memgraph_agents.construct.sentences import turn_sentences
from memgraph_agents.embeddings import EmbeddingModel
from memgraph_agents.llm.limits import CallSlot
from memgraph_agents.model.graph import NodeKind
from memgraph_agents.storage.snapshot import GraphSnapshot

# Builds up to this many texts (a chat write) are embedded in one call (``embed_with_build``).
PREFETCH_MAX = 32


@dataclass
class BuildContext:
    snapshot: GraphSnapshot  # committed memory before this session
    embedder: EmbeddingModel
    params: IngestParams
    speakers: list[str]
    seq: int  # 1-based position of this session in the namespace's ingest order
    llm: Any = None  # a LangChain chat model, or None for offline
    usage: Any = None  # LLMUsage when llm is set
    llm_timeout: float = 60.0
    semaphore: CallSlot | None = None
    # Rebuilding a stored session (replace / append): its rows that this build supersedes are
    # not "existing memory" (``exclude``), and fusion / cross-session links skip the session's
    # own events (as when it is ingested at once).
    session_id: str = ""
    exclude: frozenset[str] = frozenset()
    first_event: int = 1  # number of the first event this build creates (appends continue)
    append: bool = False  # an append: the topic layer assigns online, never re-clusters
    context_turns: list = field(default_factory=list)  # earlier turns shown to the LLM (appends)
    _kind_vectors: dict = field(default_factory=dict)

    def embed_with_build(self, texts: list[str], b: Any) -> np.ndarray:
        """Vectors of ``texts``; for a small build, computed in ONE model call together with every
        embedded node of ``b`` (cached for the later steps and the commit): a chat write then
        costs one small model call, not one per step (each call has a fixed cost of its own)."""
        rest = [n.text for n in b.nodes if n.embed]
        turns = [n for n in b.nodes if n.kind == NodeKind.TURN]
        # A large build (each turn has at least one sentence): calls are few anyway, and mixing
        # short and long texts in one batch pads the short ones. Checked before splitting sentences.
        if len(texts) + len(rest) + len(turns) > PREFETCH_MAX:
            return self.embedder.embed(list(texts))
        # The sentence layer comes later; its texts are known from the turns already.
        rest += [s for n in turns for s in turn_sentences(n.attrs["speaker"], n.text)]
        if len(texts) + len(rest) > PREFETCH_MAX:
            return self.embedder.embed(list(texts))
        return self.embedder.embed(list(texts) + rest)[: len(texts)]

    def cut(self, threshold: float) -> float:
        """The embedding model's cosine for ``threshold``, a level of the reference scale (the
        thresholds of ``IngestParams`` and the steps are written in it: ``embeddings.calibration``)."""
        return self.snapshot.calibration.doc.cut(threshold)

    def scaled(self, cosine: float) -> float:
        """A document–document cosine in the reference scale (what an edge weight records)."""
        return float(self.snapshot.calibration.doc.to_reference(float(cosine)))

    def existing(self, kind: NodeKind, other_sessions: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Indices and vectors of committed nodes of ``kind`` (cached for the session);
        ``other_sessions``: only nodes owned by other sessions."""
        key = (kind, other_sessions)
        if key not in self._kind_vectors:
            snap = self.snapshot
            idx, vecs = snap.kind_vectors(kind)  # shared and read-only; carried from session to session
            keep = None
            if other_sessions and not self.exclude and len(idx):
                # C-speed filter: a fancy index of the owner column (a Python pass over every
                # stored event per session was O(n), and so was unpacking ``idx`` into a call)
                keep = snap.owner[idx] != self.session_id
            elif self.exclude or other_sessions:
                keep = np.array(
                    [
                        snap.ids[i] not in self.exclude and not (other_sessions and snap.owner[i] == self.session_id)
                        for i in idx
                    ],
                    dtype=bool,
                )
            if keep is not None and not keep.all():
                idx, vecs = idx[keep], vecs[keep]
            idx = np.asarray(idx, dtype=np.int64)
            if not len(idx):
                vecs = np.zeros((0, self.embedder.dim), np.float32)
            self._kind_vectors[key] = (idx, vecs)
        return self._kind_vectors[key]
