"""``ppr``: Personalized PageRank over the event graph (EMem-G, Zhou & Han 2025, §3.3;
seeding after HippoRAG 2, Gutiérrez et al. 2025).

Seed vector ``s`` (each part normalised to sum 1, then weighted):

* events: the dense top-Ke, ``s_e = max(cos(q, e), 0) / sessions(e)`` (node specificity:
  an event recurring in many sessions says less), weight ``event_weight``;
* turns: the RRF fusion of dense, BM25 and best-sentence turn rankings (``seeds.turn_seeds``),
  which keeps the lexical signal the graph alone would lose, weight ``turn_weight``;
* arguments: per query mention the top-Ka arguments by cosine (≤ 30), weight ``arg_weight``.

Walk: PPR on the undirected graph of turn, event and argument nodes (edges: evidence, role,
synonym, next, relation, similar), damping d = 0.5::

    p = (1 − d)·s + d·Pᵀp,   P = D⁻¹A

Turns are ranked by ``p`` times the speaker prior (``seeds.speaker_weights``): a turn is the
unit of provenance, while events flatten to several turns and would spend k.

With a chat model (``llm=``) EMem's optional LLM steps choose the seeds (``llm_steps``): the
query's mentions come from the LLM instead of the offline extractor, each pulls its top-Ka
arguments by cosine (≥ ``LLM_MENTION_FLOOR``), and one recall-oriented filter call keeps the
events of the dense top-Ke and the arguments that could help; kept arguments are capped at 30
by cosine. Two calls per query (mentions, then the filter), counted in ``usage``; a failing
call falls back to the offline mentions / the unfiltered candidates. Without ``llm`` nothing
changes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from memgraph_agents.llm.usage import LLMUsage
from memgraph_agents.model.evidence import Evidence
from memgraph_agents.model.graph import NodeKind
from memgraph_agents.retrieval.algorithms.ppr import (
    ppr_prepared,
    ppr_seed_weights,
    prepare_transition,
)
from memgraph_agents.retrieval.evidence import session_counts, to_evidence, top_indices
from memgraph_agents.retrieval.llm_steps import DEFAULT_TIMEOUT, Candidate, detect_mentions, mention_key, recall_filter
from memgraph_agents.retrieval.protocols import RetrieverOptions
from memgraph_agents.retrieval.seeds import (
    OTHER_SPEAKER,
    argument_matches,
    by_score,
    mention_seeds,
    node_similarities,
    participant_keys,
    query_texts,
    query_vectors,
    speaker_weights,
    turn_seeds,
)
from memgraph_agents.storage.protocols import StoreReader
from memgraph_agents.storage.snapshot import KIND_CODE

GRAPH_EDGES = ("evidence", "role", "synonym", "next", "relation", "similar")
DAMPING = 0.5
WALK_KINDS = ("turn", "event", "argument")  # sentences, sessions and topics stay out of the walk
MENTION_FLOOR = 0.8  # offline: only near-identical arguments, no filter judges what passes
# With an LLM the recall filter judges every argument candidate, so the cosine floor can be
# loose enough to let near-synonyms through ("pet" ~ "puppy"); it still bounds the fallback
# (unfiltered candidates) when the filter fails.
LLM_MENTION_FLOOR = 0.5


def walk_graph(snap):
    """``(walk node indices, transition over those nodes only)``, built once per snapshot.

    Sentences, sessions and topics are not in the walk; leaving them out of the matrix (not
    just out of its edges) keeps every iteration's vectors a third as long (bench scale)."""

    def build():
        nodes = np.flatnonzero(np.isin(snap.kind, [KIND_CODE[k] for k in WALK_KINDS]))
        adj = snap.adjacency(GRAPH_EDGES, undirected=True)[nodes][:, nodes]
        return nodes, prepare_transition(adj, symmetric=True)

    return snap.derived(("ppr-walk", GRAPH_EDGES), build)


def _add(seed: np.ndarray, part: dict[int, float], weight: float) -> None:
    """``seed[i] += weight · part[i] / Σ part`` (one normalised seed component)."""
    if part:
        total = sum(part.values())
        idx = np.fromiter(part.keys(), dtype=np.int64, count=len(part))
        val = np.fromiter(part.values(), dtype=np.float64, count=len(part))
        seed[idx] += weight * val / total


@dataclass
class Seeds:
    """The seed components of one query (node indices into the snapshot).

    ``events`` / ``event_weights``: the event seeds and their weights (before normalising);
    ``turns`` and ``arguments``: ``{node index: weight}``; ``notes``: LLM fallbacks taken.
    """

    events: np.ndarray
    event_weights: np.ndarray
    turns: dict[int, float]
    arguments: dict[int, float]
    mentions: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _event_candidates(snap, sims: np.ndarray, ke: int) -> np.ndarray:
    events = snap.indices_of(NodeKind.EVENT)
    return events[top_indices(sims[events], ke, tiebreak=snap.id_rank[events])]


def _llm_seeds(query, store, snap, top_events, *, ka, max_arg_seeds, arg_floor, llm, usage, timeout, notes):
    """EMem-G's LLM seeding: mentions -> top-Ka arguments each -> one recall filter over those
    arguments and the dense top-Ke events. Returns ``(kept events, argument seeds, mentions)``."""
    speakers = participant_keys(snap)
    mentions = [
        m
        for m in detect_mentions(query, llm, usage=usage, timeout=timeout, notes=notes)
        if mention_key(m) not in speakers
    ]  # participants are hubs: see seeds.mention_seeds
    arg_cands = argument_matches(snap, query_vectors(store.embedder, mentions) if mentions else [], ka, arg_floor)
    cands = [
        Candidate(snap.ids[i], "event", snap.text[i], str(snap.attrs[i].get("time") or "")) for i in top_events.tolist()
    ]
    cands += [Candidate(snap.ids[i], "argument", snap.text[i]) for i in arg_cands]
    kept = set(recall_filter(query, cands, llm, usage=usage, timeout=timeout, notes=notes))
    events = np.array([i for i in top_events.tolist() if snap.ids[i] in kept], dtype=np.int64)
    args = {i: s for i, s in arg_cands.items() if snap.ids[i] in kept}
    return events, by_score(snap, args, max_arg_seeds), mentions


def ppr_seeds(
    query: str,
    store: StoreReader,
    snap,
    sims: np.ndarray,
    *,
    ke: int = 30,
    ka: int = 10,
    max_arg_seeds: int = 30,
    pool: int = 50,
    arg_floor: float = MENTION_FLOOR,
    llm_arg_floor: float = LLM_MENTION_FLOOR,
    llm=None,
    usage: LLMUsage | None = None,
    llm_timeout: float = DEFAULT_TIMEOUT,
) -> Seeds:
    """The query's event, turn and argument seeds; with ``llm``, EMem's LLM steps choose the
    argument mentions and filter events and arguments (see the module docstring)."""
    top = _event_candidates(snap, sims, ke)
    notes: list[str] = []
    mentions: list[str] = []
    if llm is None:
        args = mention_seeds(query, snap, store.embedder.embed_one, ka, max_arg_seeds, arg_floor)
    else:
        top, args, mentions = _llm_seeds(
            query,
            store,
            snap,
            top,
            ka=ka,
            max_arg_seeds=max_arg_seeds,
            arg_floor=llm_arg_floor,
            llm=llm,
            usage=usage or LLMUsage(),
            timeout=llm_timeout,
            notes=notes,
        )
    weights = ppr_seed_weights(sims[top], session_counts(snap)[top]) if len(top) else np.zeros(0)
    return Seeds(top, weights, turn_seeds(query, snap, sims, pool), args, mentions, notes)


def seed_vector(
    query: str,
    store: StoreReader,
    snap,
    sims: np.ndarray,
    *,
    ke: int = 30,
    ka: int = 10,
    max_arg_seeds: int = 30,
    turn_weight: float = 1.0,
    event_weight: float = 1.0,
    arg_weight: float = 0.5,
    pool: int = 50,
    llm=None,
    usage: LLMUsage | None = None,
    llm_timeout: float = DEFAULT_TIMEOUT,
    notes: list[str] | None = None,
) -> np.ndarray:
    """The personalization vector ``s`` over every node of ``snap`` (zero when nothing seeds);
    the LLM steps' fallbacks are appended to ``notes``."""
    seeds = ppr_seeds(
        query,
        store,
        snap,
        sims,
        ke=ke,
        ka=ka,
        max_arg_seeds=max_arg_seeds,
        pool=pool,
        llm=llm,
        usage=usage,
        llm_timeout=llm_timeout,
    )
    if notes is not None:
        notes.extend(seeds.notes)
    seed = np.zeros(len(snap.ids))
    w = seeds.event_weights
    if w.sum() > 0:
        seed[seeds.events] += event_weight * w / w.sum()
    _add(seed, seeds.turns, turn_weight)
    _add(seed, seeds.arguments, arg_weight)
    return seed


class PPROptions(RetrieverOptions):
    ke: int = 30  # event seeds: the dense top-Ke
    ka: int = 10  # argument seeds per query mention
    max_arg_seeds: int = 30
    damping: float = DAMPING
    turn_weight: float = 1.0
    event_weight: float = 1.0
    arg_weight: float = 0.5
    pool: int = 50  # fused turn seeds
    other_speaker: float = OTHER_SPEAKER  # the speaker prior (1.0: off)


def ppr(
    query: str,
    store: StoreReader,
    *,
    k: int = 10,
    options: PPROptions | None = None,
    llm=None,
    usage: LLMUsage | None = None,
    llm_timeout: float = DEFAULT_TIMEOUT,
    notes: list[str] | None = None,
) -> list[Evidence]:
    """The top-k turns by Personalized PageRank from the query's seeds (see the module docstring);
    ``notes`` receives the LLM steps' fallbacks, so the caller can report them."""
    o = options or PPROptions()
    snap = store.snapshot()
    if k <= 0 or not len(snap.ids):
        return []
    # the question and its mentions in one model call (the seeds then find them in the LRU)
    qv = query_vectors(store.embedder, query_texts(query, snap) if llm is None else [query])[0]
    sims = node_similarities(snap, qv)
    seed = seed_vector(
        query,
        store,
        snap,
        sims,
        ke=o.ke,
        ka=o.ka,
        max_arg_seeds=o.max_arg_seeds,
        turn_weight=o.turn_weight,
        event_weight=o.event_weight,
        arg_weight=o.arg_weight,
        pool=o.pool,
        llm=llm,
        usage=usage,
        llm_timeout=llm_timeout,
        notes=notes,
    )
    if seed.sum() == 0:
        return []
    nodes, prepared = walk_graph(snap)
    scores = np.zeros(len(snap.ids))  # nodes outside the walk score 0, as they would inside it
    scores[nodes] = ppr_prepared(prepared, seed[nodes], damping=o.damping)
    sw = speaker_weights(query, snap, o.other_speaker) if o.other_speaker < 1 else None
    if sw is not None:
        scores = scores * sw
    mask = snap.kind == KIND_CODE["turn"]
    return [to_evidence(snap, int(i), scores[i], retriever="ppr") for i in top_indices(scores, k, mask, snap.id_rank)]
