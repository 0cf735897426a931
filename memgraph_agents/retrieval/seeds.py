"""Query-side signals shared by the graph retrievers: similarities, seeds and the speaker prior.

* ``node_similarities``: cos(q, v) for every node (0 for nodes without a vector).
* ``turn_seeds``: reciprocal rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009) of three
  turn rankings — dense cosine, BM25, and best-sentence cosine —
  ``RRF(t) = Σ_r 1 / (k + rank_r(t))`` with a sharp ``k = 10`` so random-walk seeds are not flat.
* ``mention_seeds``: EMem-G's argument seeds (Zhou & Han 2025, §3.3): per query mention the
  top-Ka arguments by cosine (≥ ``floor``, ``argument_matches``), at most 30 in all, each
  weighted by its best cosine. Offline mentions; ``ppr`` brings LLM-detected ones itself.
* ``speaker_weights``: a multiplicative prior ``w(t) = 1`` for turns by a participant the query
  names, ``other`` (< 1) for the other turns, ``1`` for non-turn nodes.

Everything that does not depend on the query (sentence→turn map, argument vectors, speaker
codes, name patterns) is computed once per snapshot with ``snap.derived``; per query the work
is vectorised numpy over the node arrays.
"""

from __future__ import annotations

import re
from functools import lru_cache

import numpy as np

from memgraph_agents.construct.arguments import extract_arguments
from memgraph_agents.model.graph import NodeKind
from memgraph_agents.model.ranking import top_k
from memgraph_agents.retrieval.algorithms.fusion import reciprocal_rank_fusion
from memgraph_agents.retrieval.bm25_rank import bm25_ranking
from memgraph_agents.retrieval.evidence import top_indices
from memgraph_agents.storage.snapshot import KIND_CODE

# Weight of turns by participants the query does not name (see ``speaker_weights``): a soft
# prior, so a strong match from the other speaker can still win.
OTHER_SPEAKER = 0.6
RRF_K = 10  # sharper than the usual 60: seeds for a random walk must not be flat


# Below this many matrix entries a matrix-vector product runs in one thread (``einsum``):
# a multi-threaded BLAS call costs ~10 ms waking its threads after any pause, 30x the product.
_BLAS_MIN_SIZE = 4_000_000


def matvec(mat: np.ndarray, vec: np.ndarray) -> np.ndarray:
    """``mat @ vec``, single-threaded for the small matrices of one namespace (see ``_BLAS_MIN_SIZE``)."""
    if mat.size < _BLAS_MIN_SIZE:
        return np.einsum("ij,j->i", mat, vec.astype(mat.dtype, copy=False))
    return mat @ vec


def node_similarities(snap, qv: np.ndarray) -> np.ndarray:
    """Cosine of the query to every node (0 for nodes without a vector, all 0 on a dimension
    mismatch), in the reference scale of the memory's calibration (``embeddings.calibration``:
    unchanged for MiniLM), so every threshold and weight read from it means one thing per model."""
    vecs = snap.vectors()
    if vecs.shape[1] != qv.shape[0]:
        return np.zeros(len(snap.ids), dtype=np.float32)
    return snap.calibration.query.to_reference(matvec(vecs, qv))


def sentence_turns(snap) -> tuple[np.ndarray, np.ndarray]:
    """``(sentence node indices, their turn's node index or -1)``, built once per snapshot."""

    def build():
        sents = snap.indices_of(NodeKind.SENTENCE)
        turn_of = np.array([snap.index.get(f"turn:{snap.attrs[i].get('turn_id')}", -1) for i in sents], dtype=np.int64)
        return sents, turn_of

    return snap.derived("sentence_turns", build)


def sentence_turn_ranking(snap, sims: np.ndarray, pool: int) -> list[int]:
    """Turns ranked by their best sentence's similarity (long turns are not diluted), first ``pool``."""
    sents, turn_of = sentence_turns(snap)
    if not len(sents):
        return []
    rel = sims[sents]
    m = 8 * pool
    while True:  # the best m sentences usually hold ``pool`` distinct turns; else look further
        turns = turn_of[top_indices(rel, m, tiebreak=snap.id_rank[sents])]
        turns = turns[turns >= 0]
        _, first = np.unique(turns, return_index=True)  # a turn ranks at its best sentence
        if len(first) >= pool or m >= len(sents):
            return turns[np.sort(first)][:pool].tolist()
        m *= 4


def turn_seeds(
    query: str, snap, sims: np.ndarray, pool: int = 50, rrf_k: int = RRF_K, sentences: bool = True
) -> dict[int, float]:
    """Rank fusion over turns of dense, BM25 and best-sentence rankings, as seed mass."""
    turns = snap.indices_of(NodeKind.TURN)
    dense = turns[top_indices(sims[turns], pool, tiebreak=snap.id_rank[turns])]
    rankings = [dense.tolist(), [i for i, _ in bm25_ranking(query, snap, pool)]]
    if sentences:
        rankings.append(sentence_turn_ranking(snap, sims, pool))
    return dict(reciprocal_rank_fusion(rankings, k=rrf_k))


# --------------------------------------------------------------------------- speakers


def _speakers(snap) -> dict:
    """Per snapshot: participant names, their query patterns, and each node's speaker code.

    Names are the sessions' participants plus the turns' speakers (so a session stored with an
    empty participants list still has them). A name matches as a whole word, in full or by its
    first word, any case, possessive included (``Ana's``); lookarounds rather than ``\\b`` so a
    name that starts or ends with a non-word character (``Dr. Who``) still matches.
    """

    def build():
        turns = snap.indices_of(NodeKind.TURN)
        spoken = [snap.attrs[i].get("speaker") for i in turns]
        names = {p.strip() for s in snap.sessions.values() for p in s.get("participants") or [] if p and p.strip()}
        names |= {p.strip() for p in spoken if isinstance(p, str) and p.strip()}
        names_sorted = sorted(names)
        patterns = {}
        for name in names_sorted:
            alts = sorted({re.escape(name), re.escape(name.split()[0])}, key=len, reverse=True)
            patterns[name] = re.compile(rf"(?<!\w)(?:{'|'.join(alts)})(?!\w)", re.IGNORECASE)
        code_of = {n: c for c, n in enumerate(names_sorted)}
        code = np.full(len(snap.ids), -1, dtype=np.int64)  # -1: not a turn, or an unknown speaker
        code[turns] = [code_of.get(p.strip() if isinstance(p, str) else p, -1) for p in spoken]
        keys = {n.lower() for n in names}  # argument keys of participants (mention_seeds skips them)
        keys |= {k.split()[0] for k in keys}
        return {
            "names": frozenset(names),
            "patterns": patterns,
            "code": code,
            "code_of": code_of,
            "turn_mask": snap.kind == KIND_CODE["turn"],
            "keys": frozenset(keys),
        }

    return snap.derived("speakers", build)


def speaker_patterns(snap) -> dict[str, re.Pattern[str]]:
    """Per participant name, the pattern of its mentions (full or first name, any case)."""
    return _speakers(snap)["patterns"]


def mentioned_speakers(query: str, snap) -> set[str]:
    """Participants of the conversation named in the query (full or first name, any case, possessive)."""
    return {name for name, rx in _speakers(snap)["patterns"].items() if rx.search(query)}


def speaker_weights(query: str, snap, other: float = OTHER_SPEAKER) -> np.ndarray | None:
    """Per-node multiplier: turns by a speaker the query does not name get ``other``.

    In conversational memory a question about one participant is answered by what that
    participant said (on LoCoMo's development split 96% of the evidence turns of questions
    naming one speaker are that speaker's). ``None`` when the query names no participant,
    or all of them (then it carries no signal). Turns of an unknown speaker count as "other".
    """
    sp = _speakers(snap)
    named = mentioned_speakers(query, snap)
    if not named or named >= sp["names"]:
        return None
    by_named = np.isin(sp["code"], [sp["code_of"][n] for n in named])
    return np.where(sp["turn_mask"] & ~by_named, float(other), 1.0)


# --------------------------------------------------------------------------- arguments


def _argument_vectors(snap) -> tuple[np.ndarray, np.ndarray]:
    """``(argument node indices, their vectors)``, built once per snapshot."""

    def build():
        args = snap.indices_of(NodeKind.ARGUMENT)
        return args, snap.vectors()[args]

    return snap.derived("argument_vectors", build)


def participant_keys(snap) -> frozenset[str]:
    """Argument keys of the conversation's participants (full and first names, lower case)."""
    return _speakers(snap)["keys"]


def argument_matches(snap, mention_vectors, ka: int = 10, floor: float = 0.8) -> dict[int, float]:
    """Per mention vector, the top-``ka`` arguments by cosine (≥ ``floor``), merged.

    Returns ``{argument node index: best cosine over the mentions}`` in discovery order
    (uncapped, unsorted). Vectors of another dimension (another embedding model) are skipped.
    """
    args, vecs = _argument_vectors(snap)
    out: dict[int, float] = {}
    if not len(args):
        return out
    for mv in mention_vectors:
        if mv.shape[0] != vecs.shape[1]:
            continue  # vectors from another embedding model: no signal
        s = snap.calibration.query.to_reference(matvec(vecs, mv))  # ``floor`` is in the reference scale
        for r in top_k(s, ka, tiebreak=snap.id_rank[args]):
            if s[r] < floor:
                break
            out[int(args[r])] = max(out.get(int(args[r]), 0.0), float(s[r]))
    return out


def mention_seeds(query: str, snap, sims_of, ka: int = 10, max_seeds: int = 30, floor: float = 0.8) -> dict[int, float]:
    """Arguments matching the query's mentions (EMem-G: top-Ka per mention, ≤ 30 in all).

    ``sims_of(text)`` embeds a mention. Returns ``{argument node index: best cosine}``, best first.
    """
    args, _ = _argument_vectors(snap)
    if not len(args):
        return {}
    out = argument_matches(snap, (sims_of(m) for m in query_mentions(query, snap)), ka, floor)
    return by_score(snap, out, max_seeds)


def by_score(snap, scores: dict[int, float], limit: int) -> dict[int, float]:
    """``{node index: score}`` best first, near-ties by node id, the first ``limit``."""
    keys = list(scores)
    order = top_k([scores[i] for i in keys], limit, tiebreak=snap.id_rank[keys] if keys else None)
    return {keys[int(j)]: scores[keys[int(j)]] for j in order}


def query_mentions(query: str, snap) -> list[str]:
    """The query's offline argument mentions, participants left out (they are hubs: seeding
    them only blurs the walk; ``speaker_weights`` uses that signal instead)."""
    if not len(_argument_vectors(snap)[0]):
        return []
    speakers = participant_keys(snap)
    return list(dict.fromkeys(name for name, key in _mentions(query) if key not in speakers))


@lru_cache(maxsize=1024)
def _mentions(query: str) -> tuple[tuple[str, str], ...]:
    """``(name, key)`` of the query's argument mentions: one extraction per question, however
    many retrievers and steps of its search ask (a pure function of the text)."""
    return tuple((m.name, m.key) for m in extract_arguments(query, []))


def query_vectors(embedder, texts: list[str]) -> np.ndarray:
    """Query-side vectors of ``texts`` in one model call (``EmbeddingModel.embed_queries``);
    an embedder without that method embeds them one by one."""
    batch = getattr(embedder, "embed_queries", None)
    if callable(batch):
        return batch(list(texts))
    return np.stack([embedder.embed_one(t) for t in texts]) if texts else np.zeros((0, embedder.dim), np.float32)


def neutral_question(query: str, snap) -> str:
    """``query`` with the conversation's speakers replaced by "someone" ("Ana's" -> "someone's"):
    the question as relevance reads it (``retrieval.relevance``)."""
    for rx in speaker_patterns(snap).values():
        query = rx.sub("someone", query)
    return query


def query_texts(query: str, snap) -> list[str]:
    """Every text a retriever, the relevance of its items and the relevance gate embed for
    ``query`` offline: the query, its mentions and, when it names a speaker, its neutral form
    (``neutral_question``). Embedding them together (``query_vectors``) makes one model call per
    question: the later look-ups are served from the embedder's memory of recent queries."""
    neutral = neutral_question(query, snap)
    return list(dict.fromkeys([query, *query_mentions(query, snap), neutral]))
