"""A navigator result's trace as a small JSON-able summary (decisions, subgoals, counters), and
the text helpers the trace page shares."""

from __future__ import annotations

from typing import Any


def _flat(text: str, limit: int | None = None) -> str:
    t = " / ".join(line.strip() for line in str(text).splitlines() if line.strip())
    if limit is not None and len(t) > limit:
        return t[: limit - 1] + "…"
    return t


def _short(node_id: str) -> str:
    for prefix in ("event:", "turn:", "topic:", "arg:"):
        if node_id.startswith(prefix):
            return node_id[len(prefix) :] if prefix != "topic:" else "T" + node_id[len(prefix) :]
    return node_id


# --------------------------------------------------------------------------- trace → steps


def trace_summary(result) -> dict[str, Any]:
    """Steps, queries, routes, subgoal satisfaction from a ``NavigationResult``'s trace."""
    steps: list[dict[str, Any]] = []
    queries: list[dict[str, Any]] = []
    routes: list[dict[str, Any]] = []
    notes: list[dict[str, Any]] = []
    localized: dict[int, dict[str, Any]] = {}
    n_goals = len(result.subgoals)
    satisfied_at: list[int | None] = [None] * n_goals
    status = [False] * n_goals
    for e in result.trace:
        t = e.get("type")
        if t == "decision":
            n = len(steps) + 1
            flags = list(e.get("subgoals") or [])
            for j, ok in enumerate(flags[:n_goals]):
                if ok and not status[j]:
                    status[j] = True
                    satisfied_at[j] = n
            steps.append(
                {
                    "n": n,
                    "round": e.get("round", 0),
                    "wave": e.get("wave", 0),
                    "explorer": e.get("explorer"),
                    "node": e.get("node"),
                    "action": e.get("action", ""),
                    "reason": e.get("reason", ""),
                    "source": e.get("source", ""),
                    "scores": {
                        k: round(float(v), 3) for k, v in (e.get("scores") or {}).items() if isinstance(v, (int, float))
                    },
                    "subgoals": flags,
                    "supports": list(e.get("supports") or []),
                    "next": list(e.get("next") or []),
                    "via": e.get("via") or "",
                    "date": e.get("date") or "",
                    "snippet": e.get("snippet") or "",
                }
            )
        elif t == "localize":
            r = e.get("round", 0)
            localized[r] = e
            queries.append(
                {
                    "round": r,
                    "query": e.get("query", ""),
                    "kind": "question" if r == 0 else "refined",
                    "source": e.get("source", ""),
                    "candidates": list(e.get("candidates") or []),
                    "start": list(e.get("start") or []),
                    "scores": dict(e.get("scores") or {}),
                }
            )
        elif t == "refine":
            pass  # its query shows up again in the next round's localize event
        elif t == "route":
            routes.append(
                {"round": e.get("round", 0), "wave": e.get("wave", 0), "to": e.get("to"), "reason": e.get("reason", "")}
            )
        elif t in ("fallback", "note", "budget"):
            notes.append(
                {"type": t, "round": e.get("round", 0), "reason": e.get("reason", ""), "role": e.get("role", "")}
            )
    refines = [e for e in result.trace if e.get("type") == "refine"]
    for e in refines:  # a refinement whose round never localised (budget) still shows
        if e.get("round", 0) not in localized:
            queries.append(
                {
                    "round": e.get("round", 0),
                    "query": e.get("query", ""),
                    "kind": "refined",
                    "source": e.get("source", ""),
                    "candidates": [],
                    "start": [],
                    "scores": {},
                }
            )
    final = list(result.satisfied) if result.satisfied else status
    subgoals = [
        {"n": j + 1, "text": g, "satisfied": bool(final[j]) if j < len(final) else False, "step": satisfied_at[j]}
        for j, g in enumerate(result.subgoals)
    ]
    return {
        "steps": steps,
        "queries": sorted(queries, key=lambda q: q["round"]),
        "routes": routes,
        "notes": notes,
        "subgoals": subgoals,
    }


# --------------------------------------------------------------------------- the graph around it
