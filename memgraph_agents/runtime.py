"""Run context shared by every graph, and the live objects it resolves to.

``MemoryContext`` is plain data (a graph's ``context_schema``: LangGraph Studio can edit it
per run). Nodes turn it into live objects — the namespace's ``MemoryStore``, its embedding
model and the chat model — through process-wide caches, so a graph opens each store once.

Models chosen as objects (any LangChain ``Embeddings``, any LangChain chat model) are held by
the ``Memory`` given them (``memgraph_agents.resources``): its settings name them
``custom:NAME`` and carry them, with that Memory's own store cache, so every door resolves
them from the settings it was handed. Settings that carry none (a run context from the
environment, Studio) use this module's process-wide caches; ``register_embeddings`` /
``register_chat_model`` name objects there explicitly, for the life of the process.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

from memgraph_agents.config import Settings
from memgraph_agents.datadir import check_data_dir
from memgraph_agents.errors import ConfigError
from memgraph_agents.llm.limits import call_limiter
from memgraph_agents.registry import RETRIEVERS
from memgraph_agents.resources import (
    CUSTOM,
    Resources,
    check_embeddings,
    object_name,
    resources_for,
    resources_of,
)
from memgraph_agents.storage.cache import StoreCache
from memgraph_agents.storage.vectors import release_collected

if TYPE_CHECKING:  # imported when called: opening a store loads Chroma
    from memgraph_agents.embeddings import EmbeddingModel
    from memgraph_agents.storage import MemoryStore

# The run-context fields that are ``Settings`` fields; "" / 0 means "from the base settings".
CONTEXT_FIELDS = (
    "data_dir",
    "namespace",
    "embeddings",
    "llm",
    "chroma_host",
    "chroma_port",
    "top_k",
    "retriever",
    "preset",
)


@dataclass
class MemoryContext:
    """Which memory a run reads or writes, and with which models. Empty means: from env.

    ``extra["settings"]`` carries the other ``Settings`` fields (timeouts, ingest parameters)
    as plain data, so ``from_settings(s).settings() == s``: one validated path both ways.
    """

    data_dir: Annotated[str, Field(description="Memory directory (empty: MEMGRAPH_DATA_DIR, default ~/.memgraph)")] = ""
    namespace: Annotated[
        str, Field(description="Whose memory: the namespace read or written (empty: MEMGRAPH_NAMESPACE)")
    ] = ""
    embeddings: Annotated[
        str,
        Field(
            description="Embedding model: 'minilm' (offline default), 'minilm-torch', "
            "'sentence-transformers:NAME', a registered 'custom:NAME', or 'hash' (tests)"
        ),
    ] = ""
    llm: Annotated[
        str, Field(description="Chat model 'provider:model', or 'none' for offline (empty: MEMGRAPH_LLM)")
    ] = ""
    chroma_host: Annotated[str, Field(description="Chroma server host (empty: embedded Chroma in data_dir)")] = ""
    chroma_port: Annotated[int, Field(description="Chroma server port (0: MEMGRAPH_CHROMA_PORT, default 8000)")] = 0
    top_k: Annotated[int, Field(description="Evidence items to return (0: MEMGRAPH_TOP_K)")] = 0
    retriever: Annotated[
        str,
        Field(description=f"Retriever: {', '.join(RETRIEVERS)} or a preset (empty: MEMGRAPH_RETRIEVER)"),
    ] = ""
    preset: Annotated[
        str, Field(description="A seed paper's system (layers built at ingest + retriever); empty: MEMGRAPH_PRESET")
    ] = ""
    extra: Annotated[dict[str, Any], Field(description="Advanced: extra settings passed through as plain data")] = (
        field(default_factory=dict)
    )

    def overrides(self) -> dict[str, Any]:
        """The settings this context sets: ``extra["settings"]``, then the non-empty fields."""
        out: dict[str, Any] = dict((self.extra or {}).get("settings") or {})
        for name in CONTEXT_FIELDS:
            value = getattr(self, name, None)
            if value not in ("", 0, None):
                out[name] = value
        return out

    def settings(self, base: Settings | None = None) -> Settings:
        """``base`` (default: the environment) with this context's settings, validated
        (``ConfigError`` naming the field for a bad value such as ``top_k=-5``)."""
        # A context made by ``from_settings`` starts from those settings: every field is in it,
        # so the environment would change nothing (and reading it costs more than a chat write).
        return (base or getattr(self, "_origin", None) or Settings.load()).override(**self.overrides())

    @classmethod
    def fields_from(cls, s: Settings, *, skip: tuple[str, ...] = ()) -> dict[str, Any]:
        """The context fields of ``s`` plus ``extra["settings"]`` with everything else."""
        out: dict[str, Any] = {n: getattr(s, n) for n in CONTEXT_FIELDS if n not in skip}
        out["data_dir"] = str(s.data_dir)
        if "chroma_host" in out:
            out["chroma_host"] = s.chroma_host or ""
        rest = s.model_dump(mode="json", exclude=set(CONTEXT_FIELDS))
        out["extra"] = {"settings": rest}
        return out

    @classmethod
    def from_settings(cls, s: Settings, **extra: Any) -> MemoryContext:
        fields_ = cls.fields_from(s)
        fields_["extra"] = {**fields_["extra"], **extra}
        ctx = cls(**fields_)
        ctx._origin = s  # type: ignore[attr-defined]  # not a field: Studio's form never shows it
        return ctx


def context_overrides(context: Any) -> dict[str, Any]:
    """The settings a run context sets. A ``MemoryContext`` (or a subclass: the chatbot's,
    the navigator's) gives ``overrides()``; any other object or dict — an application's own
    ``context_schema`` — gives its attributes or keys named like ``MemoryContext``'s fields."""
    if context is None:
        return {}
    if isinstance(context, MemoryContext):
        return context.overrides()

    def get(name: str) -> Any:
        return context.get(name) if isinstance(context, dict) else getattr(context, name, None)

    extra = get("extra")
    out: dict[str, Any] = dict((extra.get("settings") or {}) if isinstance(extra, dict) else {})
    for name in CONTEXT_FIELDS:
        value = get(name)
        if value not in ("", 0, None):
            out[name] = value
    return out


def settings_for(context: Any, base: Settings | None = None) -> Settings:
    """A run's settings: ``base`` (default: the environment) with what the run context sets,
    validated (``ConfigError`` naming the field). The one place a run context becomes
    ``Settings``: the agent tools, the turn writer, ``MemoryRetriever`` and the graphs use it,
    so a field set in the context (``preset``, ``top_k``, ``retriever``…) reaches every door."""
    if isinstance(context, MemoryContext):
        return context.settings(base)
    overrides = context_overrides(context)
    base = base or Settings.load()
    return base.override(**overrides) if overrides else base


def run_retriever(context: Any, settings: Settings, chosen: Any = None) -> Any:
    """The retriever of a run, the rule of every door: one the run context names (its
    ``retriever`` field), else ``chosen`` (a call's or a door's own: a name or a callable),
    else ``settings.default_retriever`` (the preset's, else ``Settings.retriever``)."""
    named = context_overrides(context).get("retriever")
    return named or chosen or settings.default_retriever


_STORES: StoreCache[MemoryStore] = StoreCache(Settings.model_fields["cache_namespaces"].default)
_CHAT: dict[str, Any] = {}  # spec -> a chat model made from it, or one ``register_chat_model`` named
_EMBEDDINGS: dict[str, tuple[Any, str]] = {}  # "custom:NAME" -> (an object ``register_embeddings`` named, NAME)
_EMBEDDING_MODELS: dict[str, EmbeddingModel] = {}  # a registered object's spec -> its model
_LOCK = threading.Lock()


def _store_key(settings: Settings, namespace: str, embedder: object) -> tuple:
    # The embedding model object itself, not its spec: a spec names one object per Memory
    # (``resources``) or per registration, and two of them never share a store.
    return (
        str(Path(settings.data_dir).resolve()),
        namespace,
        embedder,
        settings.chroma_host,
        settings.chroma_port,
        settings.graph_url,
        settings.store_id,
    )


def _cache_of(settings: Settings) -> StoreCache[MemoryStore]:
    res = resources_of(settings)
    if res is None:
        return _STORES
    res.check_open()
    return res.stores


def get_store(settings: Settings, namespace: str | None = None, *, create: bool = True) -> MemoryStore:
    """The namespace's ``MemoryStore``: from the cache of the ``Memory`` the settings come from
    (``resources``), else from a process-wide one; each an LRU of at most
    ``settings.cache_namespaces`` open stores (an evicted one is closed once no call uses it)."""
    # lazy: MemoryStore pulls the embedding stack (LangChain): `memgraph stats` and `list` never need it
    from memgraph_agents.storage import MemoryStore

    release_collected()  # Chroma clients of stores collected unclosed (their GC callback only queued them)
    ns = settings.namespace if namespace is None else namespace  # "" is refused by the store, not defaulted
    cache = _cache_of(settings)
    embedder = get_embedding_model(settings)
    store = cache.get_or_open(
        _store_key(settings, ns, embedder),
        lambda: MemoryStore.open(settings, ns, create=create, embedder=embedder),
        valid=lambda s: s.exists(),
        capacity=settings.cache_namespaces,
    )
    # tunables, not part of the store's identity
    store.exact_search_nodes, store.chroma_index_nodes = settings.exact_search_nodes, settings.chroma_index_nodes
    return store


def cached_stores() -> int:
    """How many namespace stores this process's shared cache holds open."""
    return len(_STORES)


def forget_store(settings: Settings, namespace: str) -> None:
    """Drop a cached store (after its namespace was deleted), here and in the settings' Memory."""
    root = str(Path(settings.data_dir).resolve())
    caches = [_STORES] + [r.stores for r in [resources_of(settings)] if r is not None]
    for cache in caches:
        for store in cache.pop_where(lambda k: isinstance(k, tuple) and k[1] == namespace and k[0] == root):
            store.retire()


def register_embeddings(model: Any, name: str | None = None) -> str:
    """Make a LangChain ``Embeddings`` object usable wherever a spec is, for the life of the
    process: returns its spec ``custom:NAME`` (``Settings(embeddings=...)``, a run context,
    ``MEMGRAPH_EMBEDDINGS`` in this process). ``NAME`` (default: the class and its ``model`` /
    ``model_name``, e.g. ``OpenAIEmbeddings:text-embedding-3-small``) is also the identity
    namespaces record of the vectors it made: name it yourself when two configurations share a
    class and model name. Registering another object under a name replaces the first. (An
    object given to ``Memory(embeddings=obj)`` is that Memory's alone: nothing registers it.)"""
    check_embeddings(model)
    label = (name if name is not None else object_name(model)).strip()
    if not label:
        raise ConfigError("register_embeddings: the name is empty")
    spec = CUSTOM + label
    with _LOCK:
        replaced = spec in _EMBEDDINGS and _EMBEDDINGS[spec][0] is not model
        _EMBEDDINGS[spec] = (model, label)
        if replaced:  # the old object's wrappers (their stores are keyed by them: dropped below)
            old = [_EMBEDDING_MODELS.pop(spec)] if spec in _EMBEDDING_MODELS else []
    if replaced:
        gone = {id(m) for m in old}
        for store in _STORES.pop_where(lambda k: isinstance(k, tuple) and id(k[2]) in gone):
            store.retire()
    return spec


def get_embedding_model(settings: Settings) -> EmbeddingModel:
    """The embedding model of ``settings.embeddings``: the object of the ``Memory`` the settings
    come from (``resources``), a built-in spec's (``embeddings.make_embedding_model``, one per
    process) or a registered object's (``register_embeddings``)."""

    check_data_dir(Path(settings.data_dir))  # a file, under a file, read-only: said so, before a model
    spec = settings.embeddings
    res = resources_of(settings)
    if res is not None and spec == res.embeddings_spec:
        return res.embedder()
    return _process_model(spec)


def _process_model(spec: str) -> EmbeddingModel:
    """A built-in spec's model (``embeddings.make_embedding_model``) or a registered object's,
    made once per process."""
    # lazy: the embedding stack (LangChain, the model adapters): only when a model is made
    from memgraph_agents.embeddings import EmbeddingModel, make_embedding_model

    if not spec.startswith(CUSTOM):
        return make_embedding_model(spec)
    with _LOCK:
        entry = _EMBEDDINGS.get(spec)
        if entry is None:
            raise ConfigError(
                f"embeddings {spec!r} name no object registered in this process: pass the object "
                "(Memory(embeddings=obj)) or call memgraph_agents.runtime.register_embeddings(obj) first"
            )
        model, identity = entry
        if spec not in _EMBEDDING_MODELS:
            _EMBEDDING_MODELS[spec] = EmbeddingModel(model, identity)
        return _EMBEDDING_MODELS[spec]


def register_chat_model(spec: str, model: Any) -> None:
    """Make ``spec`` (e.g. ``"fake:scripted"``) resolve to ``model`` for the life of the
    process: tests and custom models (``Memory(llm=model)`` needs no registration)."""
    with _LOCK:
        _CHAT[spec] = model
    name_limiter(spec, model)


def name_limiter(spec: str, model: Any) -> None:
    """Name ``model``'s call limiter and breaker after ``spec`` (unless it has its own)."""
    # lazy: llm.loops imports LangChain's chat models: only with a chat model
    from memgraph_agents.llm import loops

    if loops.info_of(model) is None:  # the spec names its limiter and breaker
        loops.register(model, loops.ModelInfo(key=spec, provider=""))


def memory_resources(settings: Settings | None, embeddings: Any = None, llm: Any = None) -> tuple[Resources, bool]:
    """The resources of a new ``Memory`` and whether it owns them (``resources.resources_for``)."""
    res, owned = resources_for(settings, embeddings, llm)
    if owned and res.llm is not None:
        name_limiter(str(res.llm_spec), res.llm)
    return res, owned


def get_chat_model(settings: Settings):
    """The configured chat model, or ``None`` in offline mode: the object of the ``Memory`` the
    settings come from when they name it, else one made from the spec (or registered)."""
    if settings.offline:
        return None
    res = resources_of(settings)
    own = res.chat_model(settings) if res is not None else None
    if own is not None:
        return own
    with _LOCK:
        if settings.llm not in _CHAT:
            if settings.llm.startswith(CUSTOM):
                raise ConfigError(
                    f"llm {settings.llm!r} names no chat model registered in this process: pass the object "
                    "(Memory(llm=model))"
                )
            # lazy: the chat model builder (LangChain): only with a chat model
            from memgraph_agents.llm.chat import make_chat_model

            _CHAT[settings.llm] = make_chat_model(
                settings.llm, base_url=settings.llm_base_url, timeout=settings.llm_timeout
            )
        return _CHAT[settings.llm]


def chat_limiter(settings: Settings, llm: Any):
    """The process-wide bound on ``llm``'s calls (one per chat model, whoever calls), or None offline."""
    if llm is None:
        return None
    # lazy: llm.loops imports LangChain's chat models: only with a chat model
    from memgraph_agents.llm.loops import model_key

    return call_limiter(model_key(llm), settings.llm_max_concurrency)
