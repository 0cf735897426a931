"""Benchmark options: parsing and validating what the CLI passes (one-line errors)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from memgraph_agents.config import Settings
from memgraph_agents.loaders import DEFAULT_CATEGORIES, LocomoSample

T = TypeVar("T")

DEFAULT_KS: tuple[int, ...] = (3, 5, 10)
BUILDERS = ("offline", "llm")
ALL_CATEGORIES = (1, 2, 3, 4, 5)


def parse_int_list(text: str | Sequence[int], what: str, *, allowed: Sequence[int] | None = None) -> list[int]:
    """``"3,5,10"`` -> ``[3, 5, 10]`` (sorted, unique, positive); one-line ``ValueError`` otherwise."""
    if isinstance(text, str):
        parts = [p.strip() for p in text.split(",") if p.strip()]
        if not parts:
            raise ValueError(f"{what}: expected a comma-separated list of integers, got {text!r}")
        try:
            values = [int(p) for p in parts]
        except ValueError:
            raise ValueError(f"{what}: expected a comma-separated list of integers, got {text!r}") from None
    else:
        values = [int(v) for v in text]
        if not values:
            raise ValueError(f"{what}: the list is empty")
    bad = [v for v in values if v <= 0 or (allowed is not None and v not in allowed)]
    if bad:
        if allowed is not None:
            raise ValueError(
                f"{what}: {', '.join(map(str, bad))} not allowed; choose from {', '.join(map(str, allowed))}"
            )
        raise ValueError(f"{what}: values must be positive integers, got {', '.join(map(str, bad))}")
    return sorted(set(values))


def parse_name_list(text: str | Sequence[str] | None) -> list[str] | None:
    """``"a, b,a"`` -> ``["a", "b"]`` (order kept); ``None`` / empty -> ``None``."""
    if text is None:
        return None
    parts = [p.strip() for p in text.split(",")] if isinstance(text, str) else [str(p).strip() for p in text]
    parts = list(dict.fromkeys(p for p in parts if p))
    return parts or None


@dataclass
class BenchOptions:
    """Validated benchmark options (``check_options`` builds them from raw CLI values)."""

    retrievers: list[str]
    ks: list[int] = field(default_factory=lambda: list(DEFAULT_KS))
    categories: list[int] = field(default_factory=lambda: list(DEFAULT_CATEGORIES))
    conversations: list[str] | None = None
    builder: str = "offline"
    qa: bool = False

    @property
    def retrieve_k(self) -> int:
        """How many items each retriever is asked for."""
        from memgraph_agents.bench.qa import QA_EVIDENCE

        return max(max(self.ks), QA_EVIDENCE if self.qa else 0)


def check_options(
    settings: Settings,
    *,
    retrievers: str | Sequence[str] | None = None,
    ks: str | Sequence[int] = DEFAULT_KS,
    categories: str | Sequence[int] = DEFAULT_CATEGORIES,
    conversations: str | Sequence[str] | None = None,
    builder: str = "offline",
    qa: bool = False,
) -> BenchOptions:
    """Validate everything that can be checked before loading data; one-line ``ValueError``s."""
    from memgraph_agents.presets import DEFAULT_PRESET
    from memgraph_agents.registry import RETRIEVERS, retriever_names

    available = retriever_names()
    # With a preset and no --retrievers: the preset's own retriever (named after the preset).
    default = [settings.preset] if settings.preset != DEFAULT_PRESET else list(RETRIEVERS)
    names = parse_name_list(retrievers) or default
    unknown = [n for n in names if n not in available]
    if unknown:
        raise ValueError(
            f"unknown retriever{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}: "
            f"available: {', '.join(available)}"
        )
    if builder not in BUILDERS:
        raise ValueError(f"--builder: expected one of {', '.join(BUILDERS)}, got {builder!r}")
    if builder == "llm" and settings.offline:
        raise ValueError("--builder llm needs an LLM: set MEMGRAPH_LLM (e.g. openai:gpt-4o-mini) or pass --llm")
    if qa and settings.offline:
        raise ValueError("--qa needs an LLM: set MEMGRAPH_LLM (e.g. openai:gpt-4o-mini) or pass --llm")
    return BenchOptions(
        retrievers=names,
        ks=parse_int_list(ks, "--k"),
        categories=parse_int_list(categories, "--categories", allowed=ALL_CATEGORIES),
        conversations=parse_name_list(conversations),
        builder=builder,
        qa=qa,
    )


def select_by_id(
    items: Sequence[T], conversations: Sequence[str] | None, id_of: Callable[[T], str], source: str = ""
) -> list[T]:
    """The items whose ``id_of`` is named in ``conversations`` (file order), all when ``None``;
    an unknown id is one ``ValueError`` naming it and the ids available."""
    if not conversations:
        return list(items)
    known = [id_of(i) for i in items]
    unknown = [c for c in conversations if c not in known]
    if unknown:
        where = f" in {source}" if source else ""
        raise ValueError(
            f"unknown conversation id{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}{where}: "
            f"available: {', '.join(known)}"
        )
    wanted = set(conversations)
    return [i for i in items if id_of(i) in wanted]


def select_samples(
    samples: Sequence[LocomoSample], conversations: Sequence[str] | None, source: str = ""
) -> list[LocomoSample]:
    """The samples named in ``conversations`` (file order), all when ``None``."""
    return select_by_id(samples, conversations, lambda s: s.sample_id, source)


def namespace_for(sample_id: str, preset: str = "base") -> str:
    """The namespace of a LoCoMo sample: the same as ``memgraph ingest FILE`` picks.

    A preset that builds extra layers gets its own namespace (``conv-26-premem``), so one data
    dir holds every preset's memory side by side; presets without layers share the default's."""
    from memgraph_agents.presets import get_preset
    from memgraph_agents.storage.namespaces import namespace_for_id

    return namespace_for_id(sample_id, preset if get_preset(preset).layers else "")
