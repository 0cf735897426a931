"""Trace events: every decision the navigator takes, kept in state and streamed live.

An event is a plain dict (JSON-able, so it streams through ``langgraph dev`` unchanged)::

    {"type": "decision", "round": 0, "wave": 1, "explorer": 2, "rank": 4,
     "node": "event:S3:1", "action": "EXPAND", "reason": "...", "scores": {...},
     "subgoals": [true, false], "next": ["event:S3:2"]}

Types: plan, localize, start, schedule, decision, fallback, route, refine, answer, budget.
Nodes return their events in the ``trace`` key (``updates`` stream) and also write each
one to the ``custom`` stream as it is produced, so a caller can watch the search live.
"""

from __future__ import annotations

from typing import Any

ACTION_MARK = {"SKIP": "·", "EXPAND": "+", "ANSWER": "✓"}


# Sort phase within (round, wave): what led to the wave, the wave's decisions, what followed.
PHASE = {
    "plan": 0,
    "refine": 0,
    "localize": 0,
    "schedule": 0,
    "decision": 1,
    "note": 1,
    "route": 2,
    "budget": 3,
    "answer": 3,
}


def event(type_: str, *, round_: int = 0, wave: int = 0, explorer: int | None = None, **fields: Any) -> dict[str, Any]:
    """A trace event; ``round``/``wave``/``phase``/``explorer``/``rank`` order it (``sort_key``)."""
    phase = PHASE.get(type_, 1 if explorer is not None else 2)
    if type_ == "fallback" and explorer is None:
        phase = 3 if fields.get("role") == "responder" else 0
    out: dict[str, Any] = {"type": type_, "round": round_, "wave": wave, "phase": phase}
    if explorer is not None:
        out["explorer"] = explorer
    out.update({k: v for k, v in fields.items() if v is not None})
    return out


def emit(runtime, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Write ``events`` to the custom stream (a no-op when nobody streams it); return them."""
    writer = getattr(runtime, "stream_writer", None)
    if writer is not None:
        for e in events:
            writer({"navigator": e})
    return events


def sort_key(e: dict[str, Any]) -> tuple:
    return (e.get("round", 0), e.get("wave", 0), e.get("phase", 0), e.get("explorer", -1), e.get("rank", -1))


def _status(flags: list[bool] | None) -> str:
    return "".join("■" if f else "□" for f in flags or [])


def format_trace(trace: list[dict[str, Any]], *, width: int = 120) -> list[str]:
    """Readable lines in search order; a decision takes two (what was decided, and why)."""
    lines: list[str] = []

    def cut(s: str, n: int = width) -> str:
        s = " ".join(str(s).split())
        return s if len(s) <= n else s[: n - 1] + "…"

    for e in trace:
        t = e["type"]
        head = f"r{e.get('round', 0)}"
        if t == "plan":
            goals = " | ".join(f"S{i + 1} {s}" for i, s in enumerate(e.get("subgoals", [])))
            lines.append(cut(f"{head} plan ({e.get('source', '')}): {goals}"))
        elif t == "localize" and e.get("source") == "seed":
            lines.append(cut(f"{head} localize (seed) {e.get('query', '')!r}: {', '.join(e.get('candidates', []))}"))
        elif t == "localize":
            lines.append(
                cut(
                    f"{head} localize ({e.get('source', '')}) {e.get('query', '')!r}: "
                    f"{len(e.get('candidates', []))} candidates → start {', '.join(e.get('start', []))}"
                )
            )
        elif t == "schedule":
            fr = "; ".join(f"E{a['explorer']}: {', '.join(a['nodes'])}" for a in e.get("frontiers", []))
            lines.append(cut(f"{head} wave {e.get('wave')}: {fr}"))
        elif t == "decision":
            mark = ACTION_MARK.get(e.get("action", ""), "?")
            sc = " ".join(f"{k}={v:.2f}" for k, v in (e.get("scores") or {}).items() if isinstance(v, (int, float)))
            lines.append(
                cut(
                    f"{head}.w{e.get('wave')} E{e.get('explorer')} {mark} {e.get('action', ''):6} "
                    f"{e.get('node')} [{_status(e.get('subgoals'))}] {sc}  {e.get('date', '')} "
                    f'"{e.get("snippet", "")}"'
                )
            )
            nxt = f"; next → {', '.join(e['next'])}" if e.get("next") else ""
            via = f"via {e['via']}: " if e.get("via") and e.get("via") != "start" else ""
            lines.append("      " + cut(f"{via}{e.get('reason', '')}{nxt}", width - 6))
        elif t == "route":
            lines.append(cut(f"{head} route → {e.get('to')}: {e.get('reason', '')}"))
        elif t == "refine":
            lines.append(cut(f"{head} refine ({e.get('source', '')}): {e.get('query', '')!r}"))
        elif t == "answer":
            answer = f"{e.get('answer')!r} from {e.get('kept', 0)} kept"
            lines.append(cut(f"{head} answer ({e.get('source', '')}): {answer}"))
        else:
            lines.append(cut(f"{head} {t}{' ' + e['role'] if e.get('role') else ''}: {e.get('reason', '')}"))
    return lines
