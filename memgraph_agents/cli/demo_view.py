"""``memgraph demo``'s view of one question: the best-matching sentences of each evidence item
(with its date and turn ids) and whether the expected answer is among them."""

from __future__ import annotations

from memgraph_agents.cli.evidence_view import answer_visible, select
from memgraph_agents.cli.output import console
from memgraph_agents.model.evidence import Evidence

SENTENCES_PER_ITEM = 3  # a chat turn rarely has more: most items are shown whole


def turn_texts(store, evidence: list[Evidence]) -> dict[str, str]:
    snap = store.snapshot()
    out: dict[str, str] = {}
    for ev in evidence:
        for t in ev.turn_ids:
            i = snap.index.get(f"turn:{t}")
            if i is not None:
                out[t] = snap.text[i]
    return out


def show_question(q: dict, store, evidence: list[Evidence], name: str, ms: float) -> bool:
    """Print question ``q``'s evidence (found by ``name`` in ``ms``); ``True`` when its expected
    answer is visible in it."""
    chosen = select(q["question"], evidence, turn_texts(store, evidence), store.embedder, SENTENCES_PER_ITEM)
    shown = []
    console.print(f"\n[bold]Q: {q['question']}[/bold]  ({name}, {ms:.0f} ms)")
    for rank, (ev, lines) in enumerate(zip(evidence, chosen), start=1):
        dates = ",".join(sorted(set(ev.session_dates)))
        turns = ",".join(ev.turn_ids[:4]) + ("…" if len(ev.turn_ids) > 4 else "")
        mark = f" {ev.mark()}" if ev.mark() else ""
        console.print(f"  {rank}. [{dates} | {turns}] ({ev.kind}, {ev.score:.3f}){mark}", markup=False, soft_wrap=True)
        shown.append(dates)  # the printed date is evidence too ("last Sunday" + the session date)
        if ev.context is not None:  # the question a short reply answers, shown with it
            console.print(f"       {ev.context_note()}", markup=False, soft_wrap=True)
            shown.append(ev.context_note())
        for ln in lines:
            console.print(f"       {ln.turn_id}: {' '.join(ln.text.split())}", markup=False)
            shown.append(ln.text)
    ok = answer_visible(q["answer"], " ".join(shown))
    mark = "[green]answer visible[/green]" if ok else "[red]answer not in the shown evidence[/red]"
    console.print(f"  expected: {q['answer']}  -> {mark}")
    return ok
