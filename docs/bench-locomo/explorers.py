"""What an offline Explorer could add to the seed: for each question, the turns one graph hop
from the seed's best events (typed relations, ``similar`` edges, shared arguments: the
neighbours an Explorer is shown) and the replies to the seed's asking turns, outside the seed's
top 10; each candidate signal picks its best such turn, and we count how often that turn is a
gold turn, against how often the turn it would push out of the top 10 (the seed's 10th) is.

    python docs/bench-locomo/explorers.py --data-dir MEM [--tune conv-26,conv-30,conv-41] \\
        [--options '{"kind": 0.5}']

Signals (each picks the candidate with the highest value; no pick when none qualifies):

* ``dense``       — the candidate's relevance (the question's cosine to its best sentence): what
                    the offline policy keeps by today;
* ``typed``       — relevance among the candidates carrying the value the question asks for
                    (``retrieval.answer_kind``; only questions that ask for a kind);
* ``shared``      — relevance among candidates of events sharing a date or entity argument with
                    a seed event (the event graph's argument links);
* ``reply``       — relevance among replies to the seed's asking turns.

"Unmet" questions are those whose seed does not meet every Planner subgoal
(``navigator.localize.seed_meets`` at the default 0.95): the ones the Explorers search for.
An Explorer signal earns a slot when its pick is gold more often than the 10th seed turn.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict

import numpy as np

from memgraph_agents.bench.options import namespace_for
from memgraph_agents.config import Settings
from memgraph_agents.loaders.locomo import iter_locomo_questions, load_locomo
from memgraph_agents.model.depth import FINISH_HEAD
from memgraph_agents.model.evidence import flatten_turns
from memgraph_agents.navigator.config import NavigatorContext
from memgraph_agents.navigator.localize import seed_meets
from memgraph_agents.navigator.policies.offline import plan
from memgraph_agents.registry import retrieve
from memgraph_agents.retrieval.answer_aware import speakers_of
from memgraph_agents.retrieval.answer_kind import asked_kind, carries
from memgraph_agents.retrieval.event_view import event_view
from memgraph_agents.retrieval.evidence import turn_evidence
from memgraph_agents.retrieval.relevance import question_vector, relevance_of
from memgraph_agents.retrieval.reply_gain import asks, reply_of
from memgraph_agents.retrieval.seeds import query_vectors
from memgraph_agents.runtime import get_store

SIGNALS = ("dense", "typed", "shared", "reply")
SEED_EVENTS = 5  # the seed turns whose events the Explorers start from (``events_k``)


def picks(question: str, store, top: list[str]) -> dict[str, str | None]:
    """Per signal, the candidate turn id it picks (module doc), or None."""
    snap = store.snapshot()
    view = event_view(snap)
    rel = relevance_of(snap, question_vector(store, question))
    top_nodes = [snap.index[f"turn:{t}"] for t in top if f"turn:{t}" in snap.index]
    starts = list(dict.fromkeys(e for t in top_nodes[:SEED_EVENTS] for e in view.events_of_turn.get(t, [])))
    hop: dict[int, str] = {}
    for e in starts:
        for n in view.neighbours.get(e, []):
            for t in view.turns.get(n.node, []):
                hop.setdefault(t, n.relation)
    replies = {j for i in top_nodes if asks(snap.text[i], snap.attrs[i].get("speaker")) and (j := reply_of(snap, i))}
    cands = sorted((set(hop) | replies) - set(top_nodes))
    kind, speakers = asked_kind(question), speakers_of(snap)

    def score(t: int) -> float:
        ev = turn_evidence(snap, snap.attrs[t]["turn_id"], 0.0, retriever="explorers")
        return rel(ev) if ev is not None else 0.0

    def best(pool: list[int]) -> str | None:
        if not pool:
            return None
        scored = sorted(((score(t), -t) for t in pool), reverse=True)
        return snap.attrs[-scored[0][1]]["turn_id"]

    shared = [t for t in cands if hop.get(t, "").startswith("shares")]
    return {
        "dense": best(cands),
        "typed": best([t for t in cands if carries(snap.text[t], snap.attrs[t], kind, speakers)]) if kind else None,
        "shared": best(shared),
        "reply": best([t for t in cands if t in replies]),
    }


def unmet(question: str, store, top: list[str]) -> bool:
    snap = store.snapshot()
    goals = plan(question)
    vecs = query_vectors(store.embedder, goals)
    seed = [snap.index[f"turn:{t}"] for t in top if f"turn:{t}" in snap.index]
    return not all(seed_meets(snap, vecs, seed, FINISH_HEAD, NavigatorContext().seed_meets))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--data", default="../shared/data/locomo/locomo_dev.json")
    ap.add_argument("--tune", default="", help="conversations tuned on (reported apart)")
    ap.add_argument("--options", default="{}", help="JSON options of the seed (oneshot)")
    args = ap.parse_args()
    tune = set(filter(None, args.tune.split(",")))
    settings = Settings(data_dir=args.data_dir, llm="none")
    samples = load_locomo(args.data)
    stores = {s.sample_id: get_store(settings, namespace_for(s.sample_id), create=False) for s in samples}
    # part -> group -> signal -> [picked, gold picks]; "tenth": [questions, gold at rank 10]
    tally: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(lambda: [0, 0])))
    for s, q in iter_locomo_questions(samples, (1, 2, 3, 4)):
        if not q.evidence:
            continue
        store = stores[s.sample_id]
        top = flatten_turns(retrieve("oneshot", q.question, store, k=10, **json.loads(args.options)))[:10]
        gold = set(q.evidence)
        part = "tuned on" if s.sample_id in tune else ("checked on" if tune else "all")
        groups = ["all", "unmet"] if unmet(q.question, store, top) else ["all"]
        got = picks(q.question, store, top)
        for g in groups:
            t = tally[part][g]
            t["tenth"][0] += 1
            t["tenth"][1] += int(len(top) >= 10 and top[9] in gold)
            for name in SIGNALS:
                if got[name] is not None:
                    t[name][0] += 1
                    t[name][1] += int(got[name] in gold)
    print("part | questions | seed's 10th turn gold | " + " | ".join(f"{n}: picks, gold share" for n in SIGNALS))
    for part, groups in sorted(tally.items()):
        for g, t in groups.items():
            n, hit = t["tenth"]
            cells = [f"{t[x][0]}, {t[x][1] / t[x][0]:.3f}" if t[x][0] else "0, -" for x in SIGNALS]
            print(f"{part} ({g}) | {n} | {hit / n:.3f} | " + " | ".join(cells), flush=True)


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
