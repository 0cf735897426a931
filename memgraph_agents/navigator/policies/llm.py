"""LLM policy: one structured call per role, async, counted, within an allowance.

Every call goes through ``ainvoke_json`` (strict parsing, at most one repair turn) with
``max_calls = allowance``: the coordinator hands each call its allowance from the question's
budget, and every request counts against it (transient retries too), so the hard cap holds
even for explorers running concurrently.

An explorer decides its whole frontier in one call. Its reply is checked against the
frontier: decisions about unknown nodes are dropped, next nodes that are not neighbours of
the deciding node are dropped, subgoal numbers out of range are dropped; a reply naming no
frontier node at all is an error (repair turn). Frontier nodes the model left out are
decided by the offline policy (marked ``fallback`` in the trace).
"""

from __future__ import annotations

from memgraph_agents.llm.limits import CallSlot
from memgraph_agents.llm.structured import ainvoke_json
from memgraph_agents.llm.usage import LLMUsage
from memgraph_agents.navigator.config import NavigatorContext
from memgraph_agents.navigator.policies import offline
from memgraph_agents.navigator.schemas import ExplorerStep, NavAnswer, Plan, RefinedQuery, StartSelection
from memgraph_agents.navigator.search import Decision, Search
from memgraph_agents.navigator.state import KeptItem, QueueEntry
from memgraph_agents.prompts import render_prompt


def _limits(allowance: int, usage: LLMUsage, timeout: float, slot: CallSlot | None = None) -> dict:
    """A role's call options: ``allowance`` caps every request it sends (transient retries
    included, not only repair turns), so the question's hard cap holds; ``slot`` is the run's
    bound on concurrent calls (its settings' ``llm_max_concurrency``)."""
    return {"usage": usage, "retries": allowance - 1, "max_calls": allowance, "timeout": timeout, "semaphore": slot}


def _speakers(search: Search) -> str:
    names = search.speakers()
    return " and ".join(names) if names else "two people"


def subgoal_lines(subgoals: list[str], satisfied: list[bool] | None = None) -> str:
    sat = satisfied or [False] * len(subgoals)
    return "\n".join(f"S{i + 1} [{'done' if ok else 'open'}] {g}" for i, (g, ok) in enumerate(zip(subgoals, sat)))


def kept_lines(search: Search, kept: dict[str, KeptItem]) -> str:
    items = sorted(kept.values(), key=lambda k: list(k["order"]))
    lines = []
    for k in items:
        i = search.idx(k["node"])
        if i is not None:
            sup = ",".join(f"S{j + 1}" for j in k.get("supports", [])) or "-"
            lines.append(f"[{k['node']}] ({search.date(i)}; supports {sup}) {search.text(i, 300)}")
    return "\n".join(lines) or "(nothing yet)"


def frontier_block(search: Search, entries: list[QueueEntry], visited: set[str]) -> tuple[str, dict[str, set[str]]]:
    """The frontier as prompt text, and the neighbour ids each node may name as next."""
    blocks: list[str] = []
    allowed: dict[str, set[str]] = {}
    for e in entries:
        i = search.idx(e["node"])
        if i is None:
            continue
        lines = [f"[{e['node']}] ({search.date(i)}) {search.text(i)}"]
        allowed[e["node"]] = set()
        for n in search.view.neighbours.get(i, []):
            nid = search.snap.ids[n.node]
            if nid in visited:
                continue
            allowed[e["node"]].add(nid)
            arrow = "->" if n.outgoing else "<-"
            lines.append(f"    {arrow} {n.relation} [{nid}] ({search.date(n.node)}) {search.text(n.node, 160)}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks), allowed


async def plan(
    search: Search, *, model, allowance: int, usage: LLMUsage, timeout: float, slot: CallSlot | None = None
) -> list[str]:
    prompt = render_prompt("nav_plan", speakers=_speakers(search), question=search.question)
    got = await ainvoke_json(model, prompt, Plan, **_limits(allowance, usage, timeout, slot), run_name="navigator:plan")
    return got.subgoals


async def select_start(
    search: Search,
    cands: list[int],
    *,
    satisfied: list[bool],
    max_start: int,
    model,
    allowance: int,
    usage: LLMUsage,
    timeout: float,
    slot: CallSlot | None = None,
) -> list[int]:
    ids = {search.snap.ids[c]: c for c in cands}
    text = "\n".join(f"[{search.snap.ids[c]}] ({search.date(c)}) {search.text(c, 400)}" for c in cands)
    prompt = render_prompt(
        "nav_start",
        question=search.question,
        subgoals=subgoal_lines(search.subgoals, satisfied),
        candidates=text,
        max_start=max_start,
    )

    def check(sel: StartSelection) -> StartSelection:
        if not any(n in ids for n in sel.node_ids):
            raise ValueError(f"node_ids must be ids of the candidates, e.g. {', '.join(list(ids)[:3])}")
        return sel

    got = await ainvoke_json(
        model,
        prompt,
        StartSelection,
        **_limits(allowance, usage, timeout, slot),
        check=check,
        run_name="navigator:start",
    )
    return [ids[n] for n in dict.fromkeys(got.node_ids) if n in ids][:max_start]


async def explore(
    search: Search,
    entries: list[QueueEntry],
    *,
    satisfied: list[bool],
    kept: dict[str, KeptItem],
    visited: set[str],
    ctx: NavigatorContext,
    model,
    allowance: int,
    usage: LLMUsage,
    timeout: float,
    slot: CallSlot | None = None,
) -> tuple[list[Decision], list[str]]:
    """(decisions in frontier order, notes on what was dropped from the reply)."""
    block, allowed = frontier_block(search, entries, visited)
    prompt = render_prompt(
        "nav_explore",
        speakers=_speakers(search),
        question=search.question,
        subgoals=subgoal_lines(search.subgoals, satisfied),
        kept=kept_lines(search, kept),
        frontier=block,
    )
    frontier_ids = [e["node"] for e in entries]

    def check(step: ExplorerStep) -> ExplorerStep:
        if not any(d.node_id in allowed for d in step.decisions):
            raise ValueError(f"decisions must name frontier node ids: {', '.join(frontier_ids)}")
        return step

    got = await ainvoke_json(
        model,
        prompt,
        ExplorerStep,
        **_limits(allowance, usage, timeout, slot),
        check=check,
        run_name="navigator:explore",
    )
    notes: list[str] = []
    by_node: dict[str, Decision] = {}
    m = len(search.subgoals)
    for d in got.decisions:
        if d.node_id not in allowed:
            notes.append(f"dropped a decision about unknown node {d.node_id!r}")
            continue
        if d.node_id in by_node:
            continue
        nxt = [n for n in dict.fromkeys(d.next_nodes) if n in allowed[d.node_id]]
        if len(nxt) < len(set(d.next_nodes)):
            notes.append(f"dropped next nodes of {d.node_id} that are not its unvisited neighbours")
        supports = sorted({j - 1 for j in d.satisfied_subgoals if 1 <= j <= m}) if d.action != "SKIP" else []
        by_node[d.node_id] = Decision(
            d.node_id, d.action, nxt if d.action == "EXPAND" else [], supports, d.reason, "llm", {}
        )
    missing = [e for e in entries if e["node"] not in by_node]
    if missing:
        notes.append(f"no decision for {', '.join(e['node'] for e in missing)}: offline policy decides")
        for dec in offline.decide(search, missing, satisfied, ctx, visited, source="fallback"):
            by_node[dec.node] = dec
    return [by_node[n] for n in frontier_ids], notes


async def refine(
    search: Search,
    *,
    query: str,
    satisfied: list[bool],
    kept: dict[str, KeptItem],
    model,
    allowance: int,
    usage: LLMUsage,
    timeout: float,
    slot: CallSlot | None = None,
) -> str:
    prompt = render_prompt(
        "nav_refine",
        question=search.question,
        query=query,
        subgoals=subgoal_lines(search.subgoals, satisfied),
        kept=kept_lines(search, kept),
    )
    got = await ainvoke_json(
        model, prompt, RefinedQuery, **_limits(allowance, usage, timeout, slot), run_name="navigator:refine"
    )
    return " ".join(got.query.split())


async def answer(
    search: Search,
    evidence_text: str,
    *,
    model,
    allowance: int,
    usage: LLMUsage,
    timeout: float,
    slot: CallSlot | None = None,
    prompt_name: str = "nav_answer",
) -> NavAnswer:
    prompt = render_prompt(prompt_name, speakers=_speakers(search), question=search.question, evidence=evidence_text)
    return await ainvoke_json(
        model, prompt, NavAnswer, **_limits(allowance, usage, timeout, slot), run_name="navigator:answer"
    )
