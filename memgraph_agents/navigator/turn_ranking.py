"""The navigator's final ranking, computed by the Responder at the end of a search: the seed
pool and the kept events' turns re-scored by the kept evidence (``retrieval.rank``), the turn
priors, then MMR. It is part of the graph's output (``ranking``, ``kept_ranking``: plain
``Evidence`` dumps), so a run of the graph itself (LangGraph Studio) returns what
``navigate`` and ``Memory.search`` return.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memgraph_agents.model.evidence import Evidence
from memgraph_agents.navigator.config import NavigatorContext
from memgraph_agents.retrieval.evidence import turn_evidence
from memgraph_agents.retrieval.finish import finish
from memgraph_agents.retrieval.validity import annotate
from memgraph_agents.storage.protocols import StoreReader


def ranking(
    store: StoreReader, state: Mapping[str, Any], ctx: NavigatorContext, k: int
) -> tuple[list[Evidence], list[Evidence]]:
    """(every ranked turn, the kept-only part of it), at least ``k`` long when memory allows.

    Turns are the seed pool and the kept events' turns, re-scored by the kept evidence
    (``retrieval.rank``); a turn of a kept event carries that event's path.
    """
    from memgraph_agents.retrieval.event_view import event_view
    from memgraph_agents.retrieval.rank import diversified, rank_turns, with_priors

    snap = store.snapshot()
    view = event_view(snap)
    seed = [(snap.index[f"turn:{t}"], float(s)) for t, s in state.get("one_shot") or [] if f"turn:{t}" in snap.index]
    items = sorted((state.get("kept") or {}).values(), key=lambda it: list(it["order"]))
    kept = [snap.index[it["node"]] for it in items if it["node"] in snap.index]
    paths = {snap.index[it["node"]]: list(it.get("path") or [it["node"]]) for it in items if it["node"] in snap.index}
    out: list[Evidence] = []
    ranked = rank_turns(view, seed, kept, support=ctx.support, cap=ctx.support_cap)
    ranked = with_priors(
        snap,
        ranked,
        state.get("question") or "",
        informative=ctx.informative,
        full=ctx.informative_words,
        typed=ctx.answer_type,
    )
    kept_turns: set[str] = set()
    for r in diversified(snap, ranked, ctx.redundancy, k):
        tid = snap.attrs[r.node]["turn_id"]
        path = [*paths[r.event], f"turn:{tid}"] if r.event is not None else [f"turn:{tid}"]
        item = turn_evidence(snap, tid, r.score, retriever="navigator", path=path)
        if item is None:
            continue
        out.append(item)
        if r.event is not None:
            kept_turns.add(tid)
    # the first k finished as every retriever's k items are (``registry.retrieve``); the rest
    # of the pool follows, marked (finishing the whole pool moved turns from beyond k into it)
    head = finish(state.get("question") or "", store, out[:k])
    shown = {ev.node_id for ev in head}
    out = head + annotate(snap, [ev for ev in out[k:] if ev.node_id not in shown])
    kept_only = [ev for ev in out if ev.turn_ids and ev.turn_ids[0] in kept_turns]
    return out, kept_only
