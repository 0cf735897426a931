"""The last step of every ranking: what is current, and how relevant each item is.

``finish`` runs on the output of every retriever (``memgraph_agents.registry.retrieve``) and on the
navigator's ranking: it marks statements later ones replaced and re-ranks by the question's
time (``retrieval.validity``), puts the turns that are not evidence (the agent's own words, the
user's questions to it: ``retrieval.asking``) after the statements, sets each item's ``relevance``
(``retrieval.relevance``) and, on a reply that needs it, the question it answers (``context``,
``retrieval.reply_context``).
It is idempotent, so a ranking finished twice is finished once.
"""

from __future__ import annotations

from memgraph_agents.model.depth import FINISH_HEAD, GENERATED_KINDS, RANK_DEPTH
from memgraph_agents.model.evidence import Evidence
from memgraph_agents.retrieval.asking import statements_first
from memgraph_agents.retrieval.evidence import turn_evidence
from memgraph_agents.retrieval.relevance import question_vector, relevance_of
from memgraph_agents.retrieval.reply_context import with_context
from memgraph_agents.retrieval.validity import annotate, implied_links, order, question_time
from memgraph_agents.storage.protocols import StoreReader


def finish(query: str, store: StoreReader, evidence: list[Evidence], *, k: int | None = None) -> list[Evidence]:
    """``evidence`` annotated, the turns of its first ``RANK_DEPTH`` items that are not evidence
    moved after that window's statements (``asking.statements_first``), its first
    ``FINISH_HEAD`` items then ordered by the question's time, with ``relevance`` and ``context``
    set: at most ``k`` ranked items (default as many as given), then the generated items a
    preset appends (``GENERATED_KINDS``)."""
    if not evidence:
        return evidence
    snap = store.snapshot()
    rel = relevance_of(snap, question_vector(store, query))
    name = evidence[0].retriever

    def fetch(turn_id: str) -> Evidence | None:
        return turn_evidence(snap, turn_id, 0.0, retriever=name, path=[f"turn:{turn_id}"])

    ranked = statements_first(snap, query, [ev for ev in evidence if ev.kind not in GENERATED_KINDS], RANK_DEPTH)
    generated = [ev for ev in evidence if ev.kind in GENERATED_KINDS]
    head = ranked[:FINISH_HEAD]
    focus = question_time(query)
    implied = implied_links(snap, head, rel) if focus.kind != "none" else []
    ordered = order(snap, annotate(snap, head), focus, fetch=fetch, relevance=rel, implied=implied)
    shown = {ev.node_id for ev in ordered}
    ordered += annotate(snap, [ev for ev in ranked[FINISH_HEAD:] if ev.node_id not in shown])
    out = ordered[: len(ranked) if k is None else k] + annotate(snap, generated)
    return [ev.model_copy(update={"relevance": rel(ev)}) for ev in with_context(snap, out)]


def finished_turns(store: StoreReader, turn_ids: list[str]) -> list[Evidence]:
    """The stored turns of ``turn_ids`` as evidence, marked and with their context as
    ``finish`` marks a ranking (no question: no order, no relevance); for a door that shows
    turns, not a ranking (``memgraph show``)."""
    snap = store.snapshot()
    found = [turn_evidence(snap, t, 0.0, retriever="", path=[f"turn:{t}"]) for t in turn_ids]
    return with_context(snap, annotate(snap, [ev for ev in found if ev is not None]))
