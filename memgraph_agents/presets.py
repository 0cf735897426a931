"""Presets: each seed paper's system as a configuration of this project.

A preset picks the *layers* of generated memory built on top of the event graph at ingest
and the retriever (with parameters) that answers from it, so ``--preset sgmem`` runs "the
SGMem system" on the same data as the others. The core layers of the event graph (turns, events,
relations, arguments, topics, sentences) are always built: every retriever can run on every
memory, and presets differ only in what they add and how they read it.

``base`` (the default) adds nothing and names no retriever: a run reads with
``Settings.retriever`` (``MEMGRAPH_RETRIEVER``, ``navigator`` by default). Every other preset
names its retriever, which a run uses unless the caller names one: *the preset's retriever,
else ``Settings.retriever``* (``Settings.default_retriever``). ``default``, this preset's old name, is
still read (sessions stored under it, old configurations) as ``base``.

Layers (``construct/<layer>/``), each with an LLM and an offline implementation:

* ``premem``  — PREMem fragments, per-session clusters, cross-session links, reasoning;
* ``memorai`` — MemORAI segments, selective gate, summaries, entities, triples;
* ``sgmem``   — SGMem session summaries, facts and insights.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class Preset(BaseModel):
    name: str
    paper: str
    summary: str
    layers: tuple[str, ...] = ()
    retriever: str | None = None  # None: the settings' retriever
    retriever_params: dict[str, Any] = Field(default_factory=dict)  # its options (validated by the registry)


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in [
        Preset(
            name="base",
            paper="this project",
            summary="the event graph (events, arguments, topics, sentences), read by the settings' retriever",
        ),
        Preset(
            name="compassmem",
            paper="CompassMem",
            retriever="navigator",
            summary="event graph with typed relations and topics, navigated by Planner / Explorers / Responder",
        ),
        Preset(
            name="emem",
            paper="EMem",
            retriever="dense",
            retriever_params={"kinds": ("event",)},
            summary="EDU-style events with role–argument pairs, dense retrieval over events",
        ),
        Preset(
            name="emem-g",
            paper="EMem-G",
            retriever="ppr",
            summary="EMem's events and arguments, Personalized PageRank from event and argument seeds",
        ),
        Preset(
            name="sgmem",
            paper="SGMem",
            layers=("sgmem",),
            retriever="sentence_hop",
            retriever_params={"generated": 3},
            summary="sentence kNN graph plus session summaries, facts and insights, sentence-hop retrieval",
        ),
        Preset(
            name="memorai",
            paper="MemORAI",
            layers=("memorai",),
            retriever="dwpr",
            summary="topic segments, selective gate, entities and triples, dynamic weighted PageRank",
        ),
        Preset(
            name="premem",
            paper="PREMem",
            layers=("premem",),
            retriever="dense",
            retriever_params={"kinds": ("fragment", "reasoning")},
            summary="categorised memory fragments, cross-session cluster links and reasoning fragments, dense",
        ),
    ]
}
DEFAULT_PRESET = "base"
RENAMED = {"default": "base"}  # old name -> name: still read (stored sessions, old configurations)
# The node kinds whose presence shows that a namespace has a layer (a retriever that reads the
# layer has nothing to read without them).
LAYER_KINDS: dict[str, tuple[str, ...]] = {
    "premem": ("fragment",),
    "memorai": ("segment",),
    "sgmem": ("summary", "fact"),
}


def get_preset(name: str | None) -> Preset:
    """The preset called ``name`` (``None``/empty: the default; an old name: its new one);
    ``ValueError`` listing the names."""
    key = (name or DEFAULT_PRESET).strip().lower()
    try:
        return PRESETS[RENAMED.get(key, key)]
    except KeyError:
        raise ValueError(f"unknown preset {name!r}: choose from {', '.join(PRESETS)}") from None
