"""Retrievers by name: one table from a name to ``"module:function"`` and its options, importing
nothing until a retriever runs.

Every retriever is ``fn(query, store, *, k, options) -> list[Evidence]``, best first
(``protocols.Retriever``); ``options`` is its typed parameters (``protocols.RetrieverOptions``,
declared beside it). An entry names both as import paths, so looking a name up, listing the
names or validating a setting costs no import of numpy, scipy or the navigator; the module is
imported the first time the retriever runs or its options are checked. The table is data, like
``presets``: it sits at the bottom of the layers, so the settings validate a retriever name and
the navigator looks its seed retrievers up here, while the code it names lives in
``retrieval/`` and ``navigator/``.

A preset's name (``compassmem``, ``emem``, ``premem``…) also names a retriever: the preset's
retriever with the preset's options (``memgraph_agents.presets``), validated like any caller's.

To add a retriever: write ``fn`` and its options model in a module of ``retrieval/``, then add
one ``RetrieverSpec`` line to ``RETRIEVERS`` below. An application registers its own once per
process (``register_retriever(name, fn)``, ``fn(query, store, *, k) -> list[Evidence]``): its
name then works wherever a retriever name does (``Settings.retriever``, ``Settings.localize``,
the navigator's ``seed_retriever``, ``Memory.search(retriever=...)``).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from memgraph_agents.errors import ConfigError
from memgraph_agents.model.depth import RANK_DEPTH
from memgraph_agents.model.evidence import Evidence
from memgraph_agents.presets import PRESETS, Preset

LLM_ARGS = ("llm", "usage", "llm_timeout", "notes")  # what ``retrieve`` can hand an LLM-aware retriever


@dataclass(frozen=True)
class RetrieverSpec:
    """Where a retriever lives and what it takes, as import paths (nothing is imported here)."""

    target: str  # "package.module:function"
    options: str  # "package.module:Options": the typed parameters ``target`` takes as ``options=``
    llm_args: tuple[str, ...] = ()  # which of ``LLM_ARGS`` it takes (its optional LLM steps)
    summary: str = ""


_R = "memgraph_agents.retrieval"
# Listing order (``retriever_names()``, the bench, the retrieval graph): the README's table.
RETRIEVERS: dict[str, RetrieverSpec] = {
    "dense": RetrieverSpec(
        f"{_R}.dense:dense", f"{_R}.dense:DenseOptions", ("llm", "usage", "llm_timeout"), "dense top-k over turns"
    ),
    "bm25": RetrieverSpec(f"{_R}.lexical:bm25", f"{_R}.lexical:BM25Options", (), "BM25 over turns"),
    "hybrid": RetrieverSpec(f"{_R}.lexical:hybrid", f"{_R}.lexical:HybridOptions", (), "dense + BM25, RRF"),
    "ppr": RetrieverSpec(f"{_R}.ppr_retriever:ppr", f"{_R}.ppr_retriever:PPROptions", LLM_ARGS, "EMem-G's PPR"),
    "sentence_hop": RetrieverSpec(
        f"{_R}.sentence_hop_retriever:sentence_hop",
        f"{_R}.sentence_hop_retriever:SentenceHopOptions",
        (),
        "SGMem's sentence hops",
    ),
    "dwpr": RetrieverSpec(f"{_R}.dwpr_retriever:dwpr", f"{_R}.dwpr_retriever:DWPROptions", (), "MemORAI's DW-PR"),
    "fusion": RetrieverSpec(
        f"{_R}.fusion_retriever:fusion", f"{_R}.fusion_retriever:FusionOptions", (), "RRF of ppr and dwpr"
    ),
    "oneshot": RetrieverSpec(
        "memgraph_agents.retrieval.oneshot:oneshot",
        "memgraph_agents.retrieval.oneshot:OneshotOptions",
        (),
        "the navigator's ranking without its search (the default)",
    ),
    "navigator": RetrieverSpec(
        "memgraph_agents.navigator.run:navigator",
        "memgraph_agents.navigator.config:NavigatorContext",
        ("llm",),
        "CompassMem-style navigation",
    ),
}
# The last step of every ranking a caller gets (``retrieve``): statements later ones replaced
# marked and ordered by the question's time, every item's relevance set. ``get_retriever``'s
# functions stay raw: the navigator seeds its search with one.
FINISH = "memgraph_agents.retrieval.finish:finish"


# Retrievers an application registered in this process (``register_retriever``): name -> function.
REGISTERED: dict[str, Any] = {}
REGISTERED_SPEC = RetrieverSpec("", "memgraph_agents.retrieval.protocols:RetrieverOptions", (), "registered")


def register_retriever(name: str, fn: Any) -> None:
    """Make ``fn`` (``(query, store, *, k) -> list[Evidence]``, best first) the retriever
    ``name`` for this process: a name every door, the settings and the navigator's localize node
    accept. A built-in or preset name cannot be taken (``ConfigError``); registering a name
    again replaces its function."""
    if not isinstance(name, str) or not name.strip() or "+" in name:
        raise ConfigError(f"register_retriever: invalid name {name!r} (a non-empty string without '+')")
    if name in RETRIEVERS or name in PRESETS:
        raise ConfigError(f"register_retriever: {name!r} is a built-in retriever or preset")
    if not callable(fn):
        raise ConfigError(f"register_retriever: {name!r} needs a callable (query, store, *, k), not {fn!r}")
    REGISTERED[name] = fn


def _load(path: str) -> Any:
    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)


def _unknown(name: Any) -> ValueError:
    presets = ", ".join(p for p, preset in PRESETS.items() if preset.retriever)
    return ValueError(f"unknown retriever {name!r}: choose from {', '.join(RETRIEVERS)} or a preset ({presets})")


def _preset(name: str) -> Preset | None:
    """The preset called ``name`` when it names a retriever (``base`` does not: it has none)."""
    preset = PRESETS.get(name)
    return preset if preset is not None and preset.retriever else None


def is_retriever(name: Any) -> bool:
    """Whether ``name`` is a retriever, a registered one or a preset with one (nothing is imported)."""
    return isinstance(name, str) and (name in RETRIEVERS or name in REGISTERED or _preset(name) is not None)


def resolve(name: str) -> tuple[str, dict[str, Any]]:
    """``(retriever, preset options)`` for a name: itself with none, or a preset's retriever and
    its ``retriever_params``; ``ValueError`` listing the names for an unknown one."""
    if name in RETRIEVERS or name in REGISTERED:
        return name, {}
    preset = _preset(name)
    if preset is None or preset.retriever not in RETRIEVERS:
        raise _unknown(name)
    return preset.retriever, dict(preset.retriever_params)


def is_navigator(name: str) -> bool:
    """Whether ``name`` runs the navigator (itself, or a preset whose retriever it is)."""
    try:
        return resolve(name)[0] == "navigator"
    except ValueError:
        return False


def retriever_names() -> list[str]:
    """Every name ``get_retriever`` accepts: retrievers, registered ones, then presets."""
    presets = [p for p in PRESETS if _preset(p) is not None and p not in RETRIEVERS]
    return [*RETRIEVERS, *REGISTERED, *presets]


def options_for(name: str, **params: Any) -> Any:
    """The options of retriever ``name`` (a preset's over its retriever's defaults, then ``params``),
    validated: an unknown or ill-typed parameter is a ``ConfigError`` naming it."""
    base, preset_params = resolve(name)
    cls = _load(RETRIEVERS[base].options)
    try:
        return cls(**{**preset_params, **params})
    except ValidationError as exc:
        detail = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise ConfigError(f"retriever {name!r}: invalid options ({detail})") from None
    except TypeError as exc:  # a dataclass's options (the navigator's context) name the field
        raise ConfigError(f"retriever {name!r}: invalid options ({exc})") from None


@dataclass
class BoundRetriever:
    """A retriever looked up by name: its function (imported at the first call) and options."""

    name: str
    spec: RetrieverSpec
    params: dict[str, Any] = field(default_factory=dict)

    def __call__(
        self,
        query: str,
        store: Any,  # a storage.protocols.StoreReader (the storage layer sits above this table)
        *,
        k: int = 10,
        llm: Any = None,
        usage: Any = None,
        llm_timeout: float | None = None,
        notes: list[str] | None = None,
        **params: Any,
    ) -> list[Evidence]:
        if self.name in REGISTERED:  # an application's own: it takes the query, the store and k
            return list(REGISTERED[self.name](query, store, k=k))
        fn = _load(self.spec.target)
        options = options_for(self.name, **{**self.params, **params})
        extra: dict[str, Any] = {}
        if llm is not None:  # offline, a retriever runs exactly as without its LLM steps
            given = {"llm": llm, "usage": usage, "llm_timeout": llm_timeout, "notes": notes}
            extra = {a: given[a] for a in self.spec.llm_args if given[a] is not None}
        return fn(query, store, k=k, options=options, **extra)


def get_retriever(name: str, **params: Any) -> BoundRetriever:
    """The retriever called ``name`` (a retriever or a preset), with ``params`` over its options;
    ``ValueError`` listing the names for an unknown one. Nothing is imported until it runs."""
    if not isinstance(name, str):
        raise _unknown(name)
    base, _ = resolve(name)
    return BoundRetriever(name, REGISTERED_SPEC if base in REGISTERED else RETRIEVERS[base], dict(params))


def retrieve(
    name: str,
    query: str,
    store: Any,  # a storage.protocols.StoreReader (the storage layer sits above this table)
    *,
    k: int = 10,
    llm: Any = None,
    usage: Any = None,
    llm_timeout: float | None = None,
    notes: list[str] | None = None,
    **params: Any,
) -> list[Evidence]:
    """Run retriever ``name`` on ``store`` (``ValueError`` for an empty question or an unknown name).

    ``llm`` (a chat model), ``usage`` (an ``LLMUsage``), ``llm_timeout`` and ``notes`` (a list
    receiving the LLM steps' fallbacks) reach the retrievers whose entry declares them
    (``RetrieverSpec.llm_args``); the others run as without. ``params`` are options. The
    ranking comes finished (``FINISH``: ``retrieval.finish``), alike for every retriever, and
    prefix-stable in ``k``: each retriever ranks ``max(k, RANK_DEPTH)`` deep and the finishing
    step re-orders only the first ``RANK_DEPTH`` (``model.depth``), so the first k items of a request for k are
    the first k of a request for more.
    """
    if not query or not query.strip():
        raise ValueError("the question is empty")
    # ranked at least RANK_DEPTH deep, whatever k: the first k are the first k of a longer request
    ranked = get_retriever(name)(
        query, store, k=max(k, RANK_DEPTH), llm=llm, usage=usage, llm_timeout=llm_timeout, notes=notes, **params
    )
    return _load(FINISH)(query, store, list(ranked), k=k)
