"""Run context shared by every graph, and the live objects it resolves to.

``MemoryContext`` is plain data (a graph's ``context_schema``: LangGraph Studio can edit it
per run). Nodes turn it into live objects — the namespace's ``MemoryStore``, its embedding
model and the chat model — through process-wide caches, so a graph opens each store once.

Models chosen as objects (any LangChain ``Embeddings``, any LangChain chat model) stay plain
data in settings too: the object goes into this module's registry under a ``custom:NAME`` spec
of its own (``embeddings_spec`` / ``chat_model_spec``: one spec per object, so two ``Memory``
objects never share one), and every door resolves that spec here. A ``Memory`` given objects
holds them (``hold_models``) until it is closed or collected (``release_models``): then they
are forgotten here, with the stores opened with them.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

from memgraph_agents.config import IngestParams, Settings
from memgraph_agents.errors import ConfigError
from memgraph_agents.registry import RETRIEVERS
from memgraph_agents.storage.cache import StoreCache

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
_CHAT: dict[str, Any] = {}
_EMBEDDINGS: dict[str, tuple[Any, str]] = {}  # "custom:NAME[#n]" -> (a LangChain Embeddings object, its identity)
_LEASES: dict[str, int] = {}  # custom spec -> how many ``Memory`` objects hold it (``hold_models``)
_EMBEDDING_MODELS: dict[str, EmbeddingModel] = {}  # a registered object's spec -> its model
_LOCK = threading.Lock()
CUSTOM = "custom:"


def _store_key(settings: Settings, namespace: str) -> tuple:
    return (
        str(Path(settings.data_dir).resolve()),
        namespace,
        settings.embeddings,
        settings.chroma_host,
        settings.chroma_port,
        settings.graph_url,
        settings.store_id,
    )


def get_store(settings: Settings, namespace: str | None = None, *, create: bool = True) -> MemoryStore:
    """The namespace's ``MemoryStore``, from a process-wide LRU of at most
    ``settings.cache_namespaces`` open stores (an evicted one is closed once no call uses it)."""
    from memgraph_agents.storage import MemoryStore

    ns = settings.namespace if namespace is None else namespace  # "" is refused by the store, not defaulted
    store = _STORES.get_or_open(
        _store_key(settings, ns),
        lambda: MemoryStore.open(settings, ns, create=create, embedder=get_embedding_model(settings)),
        valid=lambda s: s.exists(),
        capacity=settings.cache_namespaces,
    )
    # tunables, not part of the store's identity
    store.exact_search_nodes, store.chroma_index_nodes = settings.exact_search_nodes, settings.chroma_index_nodes
    return store


def cached_stores() -> int:
    """How many namespace stores this process holds open."""
    return len(_STORES)


def forget_store(settings: Settings, namespace: str) -> None:
    """Drop a cached store (after its namespace was deleted)."""
    root = str(Path(settings.data_dir).resolve())
    for store in _STORES.pop_where(lambda k: isinstance(k, tuple) and k[1] == namespace and k[0] == root):
        store.retire()


def _object_name(model: Any) -> str:
    """``Class:model`` for a model object: its class and the model it names, if it says."""
    named = next(
        (getattr(model, a) for a in ("model", "model_name", "model_id") if isinstance(getattr(model, a, None), str)),
        "",
    )
    return f"{type(model).__name__}:{named}" if named else type(model).__name__


def register_embeddings(model: Any, name: str | None = None) -> str:
    """Make a LangChain ``Embeddings`` object usable wherever a spec is: returns its spec
    ``custom:NAME`` (``Settings(embeddings=...)``, a run context, ``MEMGRAPH_EMBEDDINGS`` in this
    process). ``NAME`` (default: the class and its ``model`` / ``model_name``, e.g.
    ``OpenAIEmbeddings:text-embedding-3-small``) is also the identity namespaces record of the
    vectors it made: name it yourself when two configurations share a class and model name.
    Registering another object under a name replaces the first."""
    if not (callable(getattr(model, "embed_documents", None)) and callable(getattr(model, "embed_query", None))):
        raise ConfigError(
            f"embeddings={type(model).__name__}: expected a spec string or a LangChain Embeddings "
            "(embed_documents and embed_query)"
        )
    label = (name if name is not None else _object_name(model)).strip()
    if not label:
        raise ConfigError("register_embeddings: the name is empty")
    spec = CUSTOM + label
    with _LOCK:
        replaced = spec in _EMBEDDINGS and _EMBEDDINGS[spec][0] is not model
        _EMBEDDINGS[spec] = (model, label)
    if replaced:  # the old object's wrappers, and the stores opened with them
        _drop_spec(spec, keep=True)
    return spec


def embeddings_spec(model: Any) -> str:
    """A spec resolving to ``model`` and no other object: ``custom:NAME`` (NAME as
    ``register_embeddings`` names it, the identity its vectors record), or ``custom:NAME#2``,
    ``#3``… for another object of the same name, so one ``Memory``'s model never switches to
    another's. Registered once per object."""
    if not (callable(getattr(model, "embed_documents", None)) and callable(getattr(model, "embed_query", None))):
        raise ConfigError(
            f"embeddings={type(model).__name__}: expected a spec string or a LangChain Embeddings "
            "(embed_documents and embed_query)"
        )
    label = _object_name(model)
    with _LOCK:
        for spec, (known, _) in _EMBEDDINGS.items():
            if known is model:
                return spec
        spec, n = CUSTOM + label, 1
        while spec in _EMBEDDINGS:
            n += 1
            spec = f"{CUSTOM}{label}#{n}"
        _EMBEDDINGS[spec] = (model, label)
    return spec


def hold(owner: object, specs: list[str]) -> Callable[[], None]:
    """``owner`` holds these specs' model objects until the returned function is called or
    ``owner`` is collected, whichever comes first (``weakref.finalize``: released once)."""
    hold_models(specs)
    return weakref.finalize(owner, release_models, list(specs))


def hold_models(specs: list[str]) -> None:
    """A ``Memory`` holds the model objects of these specs (``custom:`` ones) until it
    ``release_models`` them: closed, or collected."""
    with _LOCK:
        for spec in specs:
            if spec.startswith(CUSTOM):
                _LEASES[spec] = _LEASES.get(spec, 0) + 1


def release_models(specs: list[str]) -> None:
    """The holder of these specs is gone: a model object no ``Memory`` holds any more is
    forgotten here (its registry entry, its cached wrapper and the stores opened with it), so
    it can be collected; its spec then names nothing (a clear ``ConfigError`` if used)."""
    gone = []
    with _LOCK:
        for spec in specs:
            if spec in _LEASES:
                _LEASES[spec] -= 1
                if _LEASES[spec] <= 0:
                    del _LEASES[spec]
                    gone.append(spec)
    for spec in gone:
        _drop_spec(spec)


def _drop_spec(spec: str, keep: bool = False) -> None:
    """Forget what was made for ``spec``; ``keep``: its registry entry stays (re-registered)."""
    with _LOCK:
        _EMBEDDING_MODELS.pop(spec, None)
        if not keep:
            _EMBEDDINGS.pop(spec, None)
            _CHAT.pop(spec, None)
    for store in _STORES.pop_where(lambda k: isinstance(k, tuple) and k[2] == spec):
        store.retire()


def get_embedding_model(settings: Settings) -> EmbeddingModel:
    """The embedding model of ``settings.embeddings``: a built-in spec's
    (``embeddings.make_embedding_model``) or a registered object's (``register_embeddings``)."""
    from memgraph_agents.datadir import check_data_dir
    from memgraph_agents.embeddings import EmbeddingModel, make_embedding_model

    check_data_dir(Path(settings.data_dir))  # a file, under a file, read-only: said so, before a model
    spec = settings.embeddings
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
    """Make ``spec`` (e.g. ``"fake:scripted"``) resolve to ``model``: tests and custom models."""
    with _LOCK:
        _CHAT[spec] = model
    _name_limiter(spec, model)


def _name_limiter(spec: str, model: Any) -> None:
    from memgraph_agents.llm import loops

    if loops.info_of(model) is None:  # the spec names its limiter and breaker
        loops.register(model, loops.ModelInfo(key=spec, provider=""))


def chat_model_spec(model: Any) -> str:
    """A spec (``custom:Class:model``) resolving to a LangChain chat model object, registered
    here once per object (another object of the same name gets ``#2``, ``#3``…)."""
    if not callable(getattr(model, "invoke", None)):
        raise ConfigError(f"llm={type(model).__name__}: expected a spec string or a LangChain chat model")
    base = CUSTOM + _object_name(model)
    with _LOCK:
        for spec, known in _CHAT.items():
            if known is model:
                return spec
        spec, n = base, 1
        while spec in _CHAT:
            n += 1
            spec = f"{base}#{n}"
        _CHAT[spec] = model
    _name_limiter(spec, model)
    return spec


def model_specs(embeddings: Any = None, llm: Any = None) -> dict[str, str]:
    """Settings overrides for models given as specs or objects (objects registered here)."""
    out: dict[str, str] = {}
    if embeddings is not None:
        out["embeddings"] = embeddings if isinstance(embeddings, str) else embeddings_spec(embeddings)
    if llm is not None:
        out["llm"] = llm if isinstance(llm, str) else chat_model_spec(llm)
    return out


def get_chat_model(settings: Settings):
    """The configured chat model, or ``None`` in offline mode."""
    if settings.offline:
        return None
    with _LOCK:
        if settings.llm not in _CHAT:
            if settings.llm.startswith(CUSTOM):
                raise ConfigError(
                    f"llm {settings.llm!r} names no chat model registered in this process: pass the object "
                    "(Memory(llm=model))"
                )
            from memgraph_agents.llm.chat import make_chat_model

            _CHAT[settings.llm] = make_chat_model(
                settings.llm, base_url=os.environ.get("MEMGRAPH_LLM_BASE_URL"), timeout=settings.llm_timeout
            )
        return _CHAT[settings.llm]


def chat_limiter(settings: Settings, llm: Any):
    """The process-wide bound on ``llm``'s calls (one per chat model, whoever calls), or None offline."""
    if llm is None:
        return None
    from memgraph_agents.llm.limits import call_limiter
    from memgraph_agents.llm.loops import model_key

    return call_limiter(model_key(llm), settings.llm_max_concurrency)


def ingest_params(settings: Settings) -> IngestParams:
    return settings.ingest
