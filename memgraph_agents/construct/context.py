"""What every construction step may read besides the session: memory so far, models, params."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from memgraph_agents.config import IngestParams
from memgraph_agents.embeddings import EmbeddingModel
from memgraph_agents.llm.limits import CallSlot
from memgraph_agents.model.graph import NodeKind
from memgraph_agents.storage.snapshot import GraphSnapshot


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
    _kind_vectors: dict = field(default_factory=dict)

    def existing(self, kind: NodeKind) -> tuple[np.ndarray, np.ndarray]:
        """Indices and vectors of committed nodes of ``kind`` (cached for the session)."""
        if kind not in self._kind_vectors:
            idx = self.snapshot.indices_of(kind)
            vecs = self.snapshot.vectors()[idx] if len(idx) else np.zeros((0, self.embedder.dim), np.float32)
            self._kind_vectors[kind] = (idx, vecs)
        return self._kind_vectors[kind]
