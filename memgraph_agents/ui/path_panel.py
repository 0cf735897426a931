"""The search page's path panel when the navigator stopped after localize.

Most questions end there: the seed ranking met every subgoal and the graph routed straight to
respond, with no explorer decision to draw. The drawing of such a run is an empty frame, so
the panel shows what the run did answer with instead: the seed turns in order with their seed
scores (and each turn's relevance when the ranking carries it), and the reason the router
gave for stopping.
"""

from __future__ import annotations

from typing import Any

from memgraph_agents.api.results import AskResult
from memgraph_agents.ui.html import Markup, join, link, path, table, tag

SHOWN = 10


def stopped_after_localize(nav: Any) -> bool:
    """No explorer decision in the run: it went from localize to respond."""
    trace = getattr(nav, "trace", None) or []
    return any(e.get("type") == "localize" for e in trace) and not any(e.get("type") == "decision" for e in trace)


def _why(trace: list[dict[str, Any]]) -> str:
    reasons = [str(e.get("reason", "")) for e in trace if e.get("type") == "route" and e.get("to") == "respond"]
    return reasons[-1] if reasons else "the router sent the seed ranking to respond"


def seed_ranking(ns: str, result: AskResult) -> Markup | None:
    """The panel (``None`` when the run explored: then its drawing is worth a look)."""
    nav = result.navigation
    if nav is None or not stopped_after_localize(nav):
        return None
    seeds = [e for e in nav.trace if e.get("type") == "localize"]
    scores: dict[str, float] = {}
    for e in seeds:  # one localize a subgoal: the best score a turn got in any
        for nid, score in (e.get("scores") or {}).items():
            scores[nid] = max(score, scores.get(nid, score))
    ranked = [ev for ev in nav.ranking if ev.node_id in scores] or list(nav.ranking)
    rows = []
    for i, ev in enumerate(ranked[:SHOWN], start=1):
        tid = ev.turn_ids[0] if ev.turn_ids else ev.node_id.removeprefix("turn:")
        seed = scores.get(ev.node_id)
        rows.append(
            [
                str(i),
                link(path("ns", ns, "item", tid), tid, class_="id"),
                f"{seed:.3f}" if seed is not None else "",
                f"{ev.relevance:.2f}" if ev.relevance is not None else "",
                " ".join(ev.text.split())[:140],
            ]
        )
    sources = sorted({str(e.get("source", "")) for e in seeds if e.get("source")})
    head = tag(
        "p",
        f"The navigator stopped after localize ({', '.join(sources) or 'seed'}): {_why(nav.trace)}. "
        "It answered with this ranking; no explorer step ran, so there is no path to draw.",
        class_="stopped",
    )
    ranking = table(
        ["rank", "turn", "seed score", "relevance", "text"], rows, caption="The seed ranking it answered with"
    )
    return tag("div", join([head, ranking]), class_="seed-ranking")
