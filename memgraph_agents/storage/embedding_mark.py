"""Which embedding model made a namespace's vectors: the meta key ``embedding_model``.

Every namespace records, at its creation, the identity of the model that embeds it
(``EmbeddingModel.name``: the model and its numerics, e.g. ``all-MiniLM-L6-v2/onnx-int8``).
A store opened with another model refuses, naming both and the command that re-embeds the
namespace (``memgraph reembed``, ``storage.reembed``): vectors of two models are never mixed
in one namespace (their cosines mean nothing to each other).

Every version has written the mark. Namespaces from before the ONNX default record plain
``all-MiniLM-L6-v2``: the fp32 sentence-transformers model on torch (spec ``minilm-torch``, the
``[torch]`` extra), whose vectors they hold. A namespace whose mark is missing altogether
(written by hand, or a foreign file) is read the same way when it holds embedded nodes: its
vectors can only be that model's.

Beside the mark, a namespace embedded by a model other than the reference MiniLM records the
model's calibration (``CALIBRATION_META``: ``embeddings.calibration``), written once, at first
use: every similarity threshold of the namespace is read through it, so its graph is built and
searched in the scale it was built with even if a later release calibrates afresh.
"""

from __future__ import annotations

from memgraph_agents.embeddings import TORCH_MINILM_ID, spec_for
from memgraph_agents.embeddings.calibration import Calibration, Embedder, calibrate, identity_for, is_reference
from memgraph_agents.errors import ConfigError
from memgraph_agents.storage.graph_store import GraphStore

MODEL_META = "embedding_model"
CALIBRATION_META = "embedding_calibration"
TORCH_SPECS = ("minilm-torch", "sentence-transformers:")


class EmbeddingMismatchError(ConfigError):
    """A namespace's vectors were made by another embedding model than the one configured."""


def recorded_model(db: GraphStore, current: str) -> str:
    """The model recorded for the namespace; a new namespace records ``current`` (the first of
    several workers creating it at once wins: ``init_meta``)."""
    stored = db.get_meta(MODEL_META)
    if stored is not None:
        return stored
    if db.embedded_count():  # vectors with no mark: only the first model ever wrote such namespaces
        return db.init_meta(MODEL_META, TORCH_MINILM_ID)
    return db.init_meta(MODEL_META, current)


def recorded_calibration(db: GraphStore, embedder: Embedder) -> Calibration:
    """The calibration of the namespace's model: the identity for the reference models; else the
    one recorded for this model, or computed now and recorded (the first writer's wins)."""
    if is_reference(embedder.name):
        return identity_for(embedder.name)
    stored = db.get_meta(CALIBRATION_META)
    if stored is not None:
        cal = _parse(stored)
        if cal.model == embedder.name:
            return cal
    fresh = calibrate(embedder)
    if stored is None:
        return _parse(db.init_meta(CALIBRATION_META, fresh.to_json()))
    return fresh  # another model's (a re-embed in progress): never written over here


def _parse(text: str) -> Calibration:
    try:
        return Calibration.from_json(text)
    except (ValueError, KeyError, TypeError) as e:
        raise ConfigError(
            f"the namespace's {CALIBRATION_META} is unreadable ({e}): re-embed it (`memgraph reembed`)"
        ) from None


def mismatch(namespace: str, stored: str, current: str, spec: str) -> EmbeddingMismatchError:
    """The error for opening ``namespace`` (vectors of ``stored``) with ``current`` (from ``spec``)."""
    how = f"`memgraph reembed --namespace {namespace}`"
    if spec.startswith("custom:"):
        how = f"Memory(embeddings=...).reembed(namespace={namespace!r})"
    old_spec = spec_for(stored)
    keep = ""
    if old_spec is not None:
        keep = f"; or keep its vectors by opening it with MEMGRAPH_EMBEDDINGS={old_spec}"
        if old_spec.startswith(TORCH_SPECS):
            keep += " (the [torch] extra: pip install 'memgraph-agents[torch]')"
    return EmbeddingMismatchError(
        f"namespace {namespace!r} holds vectors of the embedding model {stored!r}, not {current!r} "
        f"(embeddings {spec!r}): vectors of two models never mix. Re-embed it with the current model: {how}{keep}"
    )
