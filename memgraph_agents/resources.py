"""What one ``Memory`` holds: its model objects and its open stores.

A ``Memory`` given model objects (any LangChain ``Embeddings``, any LangChain chat model)
keeps them here, on itself, never in a process-wide registry: its settings name them
``custom:NAME`` (the identity its vectors record) and carry this object
(``Settings._resources``, kept by every settings derived from them), so whatever a call
derives from a Memory's settings resolves that Memory's objects; another Memory's object of
the same name is never confused with it.

The stores it opens are cached here (keyed by what identifies one: data dir, namespace, the
embedding model object, Chroma target, graph store). ``close()`` frees them all; a ``Memory`` collected without ``close()`` takes
them with it (garbage: SQLite closes a connection nobody references). Nothing here runs from
a finalizer or a GC callback, so nothing here can wait for a lock its own thread holds.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from memgraph_agents.config import Settings
from memgraph_agents.errors import ConfigError, StorageError
from memgraph_agents.storage.cache import StoreCache

if TYPE_CHECKING:
    from memgraph_agents.embeddings import EmbeddingModel
    from memgraph_agents.storage import MemoryStore

CUSTOM = "custom:"


class MemoryClosedError(StorageError):
    """A ``Memory`` (or what shares its stores) was used after ``close()``."""


def object_name(model: Any) -> str:
    """``Class:model`` for a model object: its class and the model it names, if it says."""
    named = next(
        (getattr(model, a) for a in ("model", "model_name", "model_id") if isinstance(getattr(model, a, None), str)),
        "",
    )
    return f"{type(model).__name__}:{named}" if named else type(model).__name__


def check_embeddings(model: Any) -> None:
    if not (callable(getattr(model, "embed_documents", None)) and callable(getattr(model, "embed_query", None))):
        raise ConfigError(
            f"embeddings={type(model).__name__}: expected a spec string or a LangChain Embeddings "
            "(embed_documents and embed_query)"
        )


def check_chat_model(model: Any) -> None:
    if not callable(getattr(model, "invoke", None)):
        raise ConfigError(f"llm={type(model).__name__}: expected a spec string or a LangChain chat model")


class Resources:
    """The model objects and open stores of one ``Memory`` (see the module docstring)."""

    def __init__(self, embeddings: Any = None, llm: Any = None, capacity: int = 64) -> None:
        if embeddings is not None:
            check_embeddings(embeddings)
        if llm is not None:
            check_chat_model(llm)
        self.embeddings = embeddings
        self.embeddings_spec = CUSTOM + object_name(embeddings) if embeddings is not None else None
        self.llm = llm
        self.llm_spec = CUSTOM + object_name(llm) if llm is not None else None
        self.stores: StoreCache[MemoryStore] = StoreCache(capacity)
        self._embedder: EmbeddingModel | None = None
        self._lock = threading.Lock()  # only around this object's dict: nothing is opened under it
        self.closed = False

    def __reduce__(self) -> tuple:
        # Settings sent to another process (pickled) arrive without this Memory's live objects:
        # there a built-in model is made again and an object's spec fails closed (ConfigError).
        return (_absent, ())

    def check_open(self) -> None:
        if self.closed:
            raise MemoryClosedError("this Memory is closed: make a new Memory to use its data dir again")

    def chat_model(self, settings: Settings) -> Any | None:
        """This Memory's chat model object when ``settings.llm`` names it, else None."""
        return self.llm if self.llm is not None and settings.llm == self.llm_spec else None

    def embedder(self) -> EmbeddingModel:
        """The embedding model of this Memory's own object, made once, owned here (closed by
        ``close``). A built-in spec's model is the process's (``embeddings.make_embedding_model``)."""
        # lazy: the embeddings package imports LangChain: only when a Memory holds its own model
        from memgraph_agents.embeddings import EmbeddingModel

        self.check_open()
        if self.embeddings is None or self.embeddings_spec is None:
            raise ConfigError("this Memory holds no embeddings object")
        with self._lock:
            if self._embedder is None:
                self._embedder = EmbeddingModel(self.embeddings, self.embeddings_spec[len(CUSTOM) :])
            return self._embedder

    def close(self) -> None:
        """Free every store (now, or when its running call returns) and this Memory's model wrapper."""
        with self._lock:
            self.closed = True
            embedder, self._embedder = self._embedder, None
        self.stores.close()
        if embedder is not None:
            embedder.close()


def _absent() -> None:
    return None


def resources_of(settings: Settings | None) -> Resources | None:
    return None if settings is None else settings._resources


def bind(settings: Settings, resources: Resources | None) -> Settings:
    """A copy of ``settings`` carrying ``resources`` (the same settings when it already does)."""
    if settings._resources is resources:
        return settings
    out = settings.model_copy()
    out._resources = resources
    return out


def model_overrides(embeddings: Any, llm: Any, resources: Resources) -> dict[str, str]:
    """Settings overrides for models given as specs (kept) or objects (``resources``' specs)."""
    out: dict[str, str] = {}
    if embeddings is not None:
        out["embeddings"] = embeddings if isinstance(embeddings, str) else str(resources.embeddings_spec)
    if llm is not None:
        out["llm"] = llm if isinstance(llm, str) else str(resources.llm_spec)
    return out


def resources_for(settings: Settings | None, embeddings: Any = None, llm: Any = None) -> tuple[Resources, bool]:
    """The resources of a new ``Memory``, and whether it owns them (closes them): those of
    ``settings`` when they carry some and no model object is given (a view of that Memory:
    ``Memory.user``, a tool's per-call Memory), else new ones holding the given objects (and
    the other of ``settings``' objects, when it still names it)."""
    parent = resources_of(settings)
    emb_obj = embeddings if embeddings is not None and not isinstance(embeddings, str) else None
    llm_obj = llm if llm is not None and not isinstance(llm, str) else None
    if parent is not None and emb_obj is None and llm_obj is None:
        parent.check_open()
        return parent, False
    if parent is not None and embeddings is None:
        emb_obj = parent.embeddings
    if parent is not None and llm is None:
        llm_obj = parent.llm
    return Resources(emb_obj, llm_obj), True
