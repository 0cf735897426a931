"""The trace page's layouts, computed here so they are deterministic: a force-directed one
(networkx spring layout, path edges pulled tighter) and a timeline (x = session date, y = topic
lane), written into each node's dict."""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

from memgraph_agents.extras import require


def _layouts(snap, nodes: list[dict[str, Any]], edges: list[dict[str, Any]]) -> None:
    """Add ``x, y`` (force) and ``tx, ty`` (timeline) to every node, in a 0..1000 box."""

    nx = require("networkx", "draw", "the trace page's graph layout")
    g = nx.Graph()
    for n in nodes:
        g.add_node(n["id"])
    weight = {"path": 3.0, "relation": 1.5, "evidence": 2.0, "member": 1.2, "similar": 0.5, "shares": 0.15}
    for e in edges:
        w = weight.get(e["kind"], 1.0)
        if g.has_edge(e["s"], e["t"]):
            g[e["s"]][e["t"]]["weight"] = max(g[e["s"]][e["t"]]["weight"], w)
        else:
            g.add_edge(e["s"], e["t"], weight=w)
    n = max(1, g.number_of_nodes())
    pos = (
        nx.spring_layout(g, seed=7, k=1.6 / math.sqrt(n), iterations=200 if n < 400 else 100, weight="weight")
        if n > 1
        else {nodes[0]["id"]: (0.0, 0.0)}
        if nodes
        else {}
    )
    xs = [p[0] for p in pos.values()] or [0.0]
    ys = [p[1] for p in pos.values()] or [0.0]
    span = max(max(xs) - min(xs), max(ys) - min(ys), 1e-9)
    for node in nodes:
        x, y = pos.get(node["id"], (0.0, 0.0))
        node["x"] = round(40 + 920 * (x - min(xs)) / span, 1)
        node["y"] = round(40 + 920 * (y - min(ys)) / span, 1)

    # Timeline: sessions left to right by date, events of a topic in one lane.
    sessions = sorted({n["session"] for n in nodes if n["kind"] == "event"}, key=lambda s: (snap.session_date(s), s))
    col = {s: i for i, s in enumerate(sessions)}
    topic_order: list[str] = []
    for node in sorted((n for n in nodes if n["kind"] == "event"), key=lambda n: (col.get(n["session"], 0), n["id"])):
        if node["topic"] and node["topic"] not in topic_order:
            topic_order.append(node["topic"])
    lanes = {t: i for i, t in enumerate(topic_order)}
    n_lanes = max(1, len(lanes) + 1)
    per_cell: dict[tuple[int | str, int | str], int] = defaultdict(int)  # (column, lane) or ("turn", session)
    width = max(1, len(sessions))
    pos_t: dict[str, tuple[float, float]] = {}
    for node in nodes:
        if node["kind"] != "event":
            continue
        c = col.get(node["session"], 0)
        lane = lanes.get(node["topic"], n_lanes - 1)
        k = per_cell[(c, lane)]
        per_cell[(c, lane)] += 1
        x = 120 + (c + 0.5) * (840 / width) + (k % 3 - 1) * min(18, 280 / width)
        y = 60 + (lane + 0.5) * (900 / n_lanes) + (k // 3) * 16 - 8
        pos_t[node["id"]] = (x, y)
    for node in nodes:
        if node["kind"] == "topic":
            lane = lanes.get(node["id"], n_lanes - 1)
            pos_t[node["id"]] = (50.0, 60 + (lane + 0.5) * (900 / n_lanes))
    owners: dict[str, list[str]] = defaultdict(list)
    for e in edges:
        if e["kind"] == "evidence":
            owners[e["t"] if e["t"].startswith("turn:") else e["s"]].append(
                e["s"] if e["t"].startswith("turn:") else e["t"]
            )
    for node in nodes:
        if node["kind"] == "turn":
            anchors = [pos_t[o] for o in owners.get(node["id"], []) if o in pos_t]
            ax, ay = anchors[0] if anchors else (960.0, 960.0)
            k = per_cell[("turn", node["session"])]
            per_cell[("turn", node["session"])] += 1
            angle = 2.4 * k
            pos_t[node["id"]] = (ax + 30 * math.cos(angle), ay + 30 * math.sin(angle))
    for node in nodes:
        tx, ty = pos_t.get(node["id"], (node["x"], node["y"]))
        node["tx"], node["ty"] = round(tx, 1), round(ty, 1)


# --------------------------------------------------------------------------- the page
