"""The navigator trace as one self-contained HTML page (``memgraph trace``).

The page shows the event graph around a question and the path the navigator took through
it: every decision numbered in search order, nodes coloured SKIP / EXPAND / ANSWER, the
subgoals and which step satisfied each, the scores, the refined queries, the answer and the
evidence turns. Everything it needs is inlined (data as JSON, a small dependency-free
script and stylesheet shipped in ``assets/``): it opens offline, from a file, behind any
firewall.

Layouts are computed here (deterministic): a force-directed one (networkx spring layout,
path edges pulled tighter) and a timeline (x = session date, y = topic lane). The script
draws SVG with pan / zoom, hover cards, node dragging, a step slider and a layout switch.
"""

from __future__ import annotations

import html
import json
import re
from collections import defaultdict
from datetime import UTC, datetime
from importlib import resources
from typing import Any

from memgraph_agents.debug.trace_layout import _layouts
from memgraph_agents.debug.trace_summary import _flat, _short, trace_summary
from memgraph_agents.model.graph import NodeKind
from memgraph_agents.retrieval.event_view import event_view

MAX_NODES = 300
TURNS_PER_EVENT = 6


def _asset(name: str) -> str:
    return resources.files("memgraph_agents.debug").joinpath("assets", name).read_text(encoding="utf-8")


def _neighbourhood(snap, view, core: list[int], max_nodes: int) -> list[int]:
    """Events: the core first, then BFS over the navigator's event neighbours."""
    events = [int(e) for e in view.events]
    if len(events) <= max_nodes:
        ordered = list(dict.fromkeys(core + events))
        return ordered
    seen = list(dict.fromkeys(core))
    have = set(seen)
    frontier = list(seen)
    while frontier and len(seen) < max_nodes:
        nxt = []
        for e in frontier:
            for nb in view.neighbours.get(e, []):
                if nb.node not in have:
                    have.add(nb.node)
                    seen.append(nb.node)
                    nxt.append(nb.node)
                    if len(seen) >= max_nodes:
                        break
            if len(seen) >= max_nodes:
                break
        frontier = nxt
    return seen


def build_trace_data(result, store, *, max_nodes: int = MAX_NODES, namespace: str = "") -> dict[str, Any]:
    """Everything the page shows, as JSON-able data (nodes with both layouts precomputed)."""

    snap = store.snapshot()
    view = event_view(snap)
    summary = trace_summary(result)
    steps = summary["steps"]
    index = snap.index

    # Which nodes the search touched, and how.
    node_steps: dict[str, list[int]] = defaultdict(list)
    for s in steps:
        node_steps[s["node"]].append(s["n"])
    candidates: set[str] = set()
    starts: set[str] = set()
    loc_score: dict[str, float] = {}
    for q in summary["queries"]:
        candidates.update(q["candidates"])
        starts.update(q["start"])
        for k, v in q["scores"].items():
            loc_score[k] = max(loc_score.get(k, 0.0), float(v))
    queued = {n for s in steps for n in s["next"]}
    kept = {ev.node_id: ev for ev in result.evidence}
    core_ids = list(
        dict.fromkeys(
            [s["node"] for s in steps]
            + sorted(starts)
            + sorted(candidates)
            + sorted(queued)
            + [n for ev in result.evidence for n in ev.path]
            + list(kept)
        )
    )
    core = [index[n] for n in core_ids if n in index and snap.kind_of(index[n]) == NodeKind.EVENT.value]
    events = _neighbourhood(snap, view, core, max_nodes)
    event_set = set(events)

    # Turns: the returned evidence turns and the kept events' best turns.
    turn_ids: list[str] = []
    for ev in result.ranking[: max(len(result.evidence), 5) * 2]:
        turn_ids.extend(ev.turn_ids[:1])
    for ev in result.evidence:
        turn_ids.extend(ev.turn_ids[:TURNS_PER_EVENT])
    turn_ids = [t for t in dict.fromkeys(turn_ids) if f"turn:{t}" in index]
    returned = {t for ev in result.ranking[:10] for t in ev.turn_ids[:1]}
    topics = sorted({view.topic[e] for e in events if e in view.topic})

    def date_of(i: int) -> str:
        a = snap.attrs[i]
        return str(a.get("time") or snap.session_date(snap.owner[i]) or "")[:10]

    nodes: list[dict[str, Any]] = []
    for e in events:
        nid = snap.ids[e]
        acts = [s["action"] for s in steps if s["node"] == nid]
        nodes.append(
            {
                "id": nid,
                "kind": "event",
                "label": _short(nid),
                "text": _flat(snap.text[e], 900),
                "date": date_of(e),
                "session": snap.owner[e],
                "topic": snap.ids[view.topic[e]] if e in view.topic else "",
                "steps": node_steps.get(nid, []),
                "action": acts[-1] if acts else "",
                "candidate": nid in candidates,
                "start": nid in starts,
                "queued": nid in queued,
                "kept": nid in kept,
                "score": round(loc_score.get(nid, 0.0), 3),
                "turns": [snap.attrs[t]["turn_id"] for t in view.turns.get(e, [])],
            }
        )
    for t in turn_ids:
        i = index[f"turn:{t}"]
        nodes.append(
            {
                "id": f"turn:{t}",
                "kind": "turn",
                "label": t,
                "text": _flat(snap.text[i], 600),
                "date": snap.session_date(snap.owner[i]),
                "session": snap.owner[i],
                "topic": "",
                "steps": [],
                "action": "",
                "candidate": False,
                "start": False,
                "queued": False,
                "kept": False,
                "returned": t in returned,
                "score": 0.0,
                "turns": [t],
            }
        )
    for tp in topics:
        nodes.append(
            {
                "id": snap.ids[tp],
                "kind": "topic",
                "label": _short(snap.ids[tp]),
                "text": _flat(snap.text[tp], 300),
                "date": "",
                "session": "",
                "topic": snap.ids[tp],
                "steps": [],
                "action": "",
                "candidate": False,
                "start": False,
                "queued": False,
                "kept": False,
                "score": 0.0,
                "turns": [],
            }
        )
    present = {n["id"] for n in nodes}

    # Edges: event neighbours (as the explorers saw them), evidence, topic membership, the path.
    edges: dict[tuple[str, str], dict[str, Any]] = {}

    def add(a: str, b: str, kind: str, label: str) -> None:
        if a == b or a not in present or b not in present:
            return
        key = (a, b) if (b, a) not in edges else (b, a)
        if key not in edges:
            edges[key] = {"s": key[0], "t": key[1], "kind": kind, "label": label, "path": False}

    for e in events:
        for nb in view.neighbours.get(e, []):
            if nb.node in event_set:
                kind = (
                    "similar"
                    if nb.relation == "similar"
                    else "shares"
                    if nb.relation.startswith("shares")
                    else "relation"
                )
                add(snap.ids[e], snap.ids[nb.node], kind, nb.relation)
    for e in events:
        for turn in view.turns.get(e, []):
            add(snap.ids[e], snap.ids[turn], "evidence", "evidence")
        if e in view.topic:
            add(snap.ids[view.topic[e]], snap.ids[e], "member", "topic")
    path_edges: list[dict[str, Any]] = []
    seen_path: set[tuple[str, str]] = set()
    first_step = {nid: min(ns) for nid, ns in node_steps.items()}
    for s in steps:  # "next" proposals of kept nodes: the explorer's path through the graph
        for nxt in s["next"]:
            if (s["node"], nxt) not in seen_path and s["node"] in present and nxt in present:
                seen_path.add((s["node"], nxt))
                path_edges.append(
                    {
                        "s": s["node"],
                        "t": nxt,
                        "kind": "path",
                        "label": "next",
                        "path": True,
                        "step": s["n"],
                        "taken": nxt in first_step,
                    }
                )
    for ev in result.evidence:
        for a, b in zip(ev.path, ev.path[1:]):
            if (a, b) not in seen_path and a in present and b in present:
                seen_path.add((a, b))
                path_edges.append(
                    {
                        "s": a,
                        "t": b,
                        "kind": "path",
                        "label": "path",
                        "path": True,
                        "step": first_step.get(b),
                        "taken": True,
                    }
                )

    _layouts(snap, nodes, list(edges.values()) + path_edges)
    sessions = sorted({n["session"] for n in nodes if n["session"]}, key=lambda s: (snap.session_date(s), s))
    evidence = [
        {
            "node": ev.node_id,
            "kind": ev.kind,
            "cite": _flat(ev.cite(max_chars=1000)),  # the text is cut, never the mark after it
            "turn_ids": ev.turn_ids,
            "dates": sorted(set(ev.session_dates)),
            "score": round(ev.score, 3),
            "path": ev.path,
        }
        for ev in result.evidence
    ]
    turns = [
        {
            "turn": ev.turn_ids[0] if ev.turn_ids else ev.node_id,
            "cite": _flat(ev.cite(max_chars=450)),
            "score": round(ev.score, 3),
        }
        for ev in result.ranking[:10]
    ]
    counters = {k: (round(v, 1) if isinstance(v, float) else v) for k, v in (result.counters or {}).items()}
    return {
        "question": result.question,
        "answer": result.answer,
        "policy": result.policy,
        "namespace": namespace or getattr(store, "namespace", ""),
        "counters": counters,
        "generated": datetime.now(UTC).isoformat(timespec="seconds"),
        **summary,
        "nodes": nodes,
        "edges": list(edges.values()),
        "path_edges": path_edges,
        "sessions": [{"id": s, "date": snap.session_date(s)} for s in sessions],
        "evidence": evidence,
        "turns": turns,
        "stats": {
            "events_total": int(len(view.events)),
            "events_shown": len(events),
            "turns_shown": len(turn_ids),
            "topics_shown": len(topics),
        },
    }


def _json_for_script(data: Any) -> str:
    """JSON safe inside ``<script>``: no ``</script>``, no HTML comment or CDATA openers."""
    text = json.dumps(data, ensure_ascii=False, default=str)
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def render_page(data: dict[str, Any]) -> str:
    """The self-contained HTML page for ``build_trace_data`` output."""

    title = f"memgraph trace — {_flat(data.get('question', ''), 80)}"
    parts = {
        "TITLE": html.escape(title),
        "CSS": _asset("trace.css"),
        "JS": _asset("trace.js"),
        "DATA": _json_for_script(data),
    }
    # one pass, so text inside the data can never be mistaken for a placeholder
    return re.sub(
        r"/\*\{\{(CSS|JS)\}\}\*/|\{\{(TITLE|DATA)\}\}", lambda m: parts[m.group(1) or m.group(2)], _asset("trace.html")
    )


def trace_page(result, store, *, max_nodes: int = MAX_NODES, namespace: str = "") -> str:
    return render_page(build_trace_data(result, store, max_nodes=max_nodes, namespace=namespace))
