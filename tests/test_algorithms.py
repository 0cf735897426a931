"""Pure retrieval algorithms: PPR, DW-PR, sentence hops, rank fusion, BM25, Porter stemmer."""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from memgraph_agents.retrieval.algorithms.dwpr import (
    EdgeCode,
    dwpr,
    query_edge_weights,
    query_focused_subgraph,
)
from memgraph_agents.retrieval.algorithms.fusion import minmax, reciprocal_rank_fusion
from memgraph_agents.retrieval.algorithms.lexical import BM25Index
from memgraph_agents.retrieval.algorithms.porter import stem
from memgraph_agents.retrieval.algorithms.ppr import (
    personalized_pagerank,
    ppr_prepared,
    ppr_seed_weights,
    prepare_transition,
    symmetrize,
)
from memgraph_agents.retrieval.algorithms.sentence_hop import sentence_hop


def _nx_ppr(adj: sp.csr_matrix, s: np.ndarray, d: float) -> np.ndarray:
    g = nx.from_scipy_sparse_array(adj, create_using=nx.DiGraph)
    pr = nx.pagerank(g, alpha=d, personalization={i: float(v) for i, v in enumerate(s)}, tol=1e-15, max_iter=10_000)
    return np.array([pr[i] for i in range(adj.shape[0])])


def _random_graph(n: int, density: float, seed: int) -> sp.csr_matrix:
    rng = np.random.default_rng(seed)
    a = sp.random(n, n, density=density, random_state=seed, format="csr")
    a.data = rng.random(a.nnz) + 0.1  # positive weights
    a.setdiag(0)
    a.eliminate_zeros()
    return sp.csr_matrix(sp.block_diag((a, sp.csr_matrix((1, 1)))))  # plus one isolated node


# ---------------------------------------------------------------- PPR


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("undirected", [False, True])
@pytest.mark.parametrize("damping", [0.5, 0.85])
def test_ppr_matches_networkx(seed: int, undirected: bool, damping: float) -> None:
    a = _random_graph(40, 0.05, seed)  # 41 nodes with dangling and isolated ones
    if undirected:
        a = symmetrize(a)
    rng = np.random.default_rng(100 + seed)
    s = np.zeros(41)
    s[rng.choice(41, 4, replace=False)] = rng.random(4) + 0.1
    ref = _nx_ppr(a, s, damping)

    got = personalized_pagerank(a, s, damping=damping)
    assert got.sum() == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(got, ref, atol=1e-7)
    # Prepared float32 graph, split into 3 row blocks (threaded product): same answer.
    fast = ppr_prepared(prepare_transition(a, dtype=np.float32, threads=3), s, damping=damping)
    np.testing.assert_allclose(fast, ref, atol=2e-6)


def test_ppr_has_dangling_and_isolated_nodes_in_test_graphs() -> None:
    a = _random_graph(40, 0.05, 0)
    assert (np.asarray(a.sum(axis=1)).ravel() == 0).any()  # dangling in the directed case
    assert (np.asarray(symmetrize(a).sum(axis=1)).ravel() == 0).any()  # isolated when undirected


def test_ppr_local_products_on_larger_symmetric_graph() -> None:
    # 60 cliques-ish communities of 50 nodes with a few long-range edges: the first products
    # slice rows around the seeds, later ones are full, across 2 row blocks.
    rng = np.random.default_rng(7)
    n, c = 3000, 50
    comm = rng.integers(0, n // c, 6000)
    src = np.concatenate([comm * c + rng.integers(0, c, 6000), rng.integers(0, n, 150)])
    dst = np.concatenate([comm * c + rng.integers(0, c, 6000), rng.integers(0, n, 150)])
    a = symmetrize(sp.csr_matrix((np.ones(src.size), (src, dst)), shape=(n, n)))
    s = np.zeros(n)
    s[[5, 17, 2400]] = [1.0, 0.5, 0.25]
    ref = _nx_ppr(a, s, 0.5)
    prepared = prepare_transition(a, dtype=np.float64, threads=2)
    assert prepared.symmetric and len(prepared.blocks) == 2
    np.testing.assert_allclose(ppr_prepared(prepared, s), ref, atol=1e-8)
    power = prepare_transition(a, dtype=np.float64, symmetric=False)  # power iteration path
    np.testing.assert_allclose(ppr_prepared(power, s), ref, atol=1e-8)


def test_ppr_closed_forms() -> None:
    # Damping d = 0.5 (the default).
    # Two nodes, one undirected edge, seed on node 0: p0 = (1-d) + d*p1, p1 = d*p0
    # => p0 = 1/(1+d) = 2/3, p1 = d/(1+d) = 1/3.
    two = sp.csr_matrix(np.array([[0.0, 1.0], [1.0, 0.0]]))
    np.testing.assert_allclose(personalized_pagerank(two, np.array([1.0, 0.0])), [2 / 3, 1 / 3], atol=1e-9)
    # Directed 0 -> 1 only: node 1 is dangling and teleports to the seed (node 0), which gives
    # the same equations and the same answer.
    one_way = sp.csr_matrix(np.array([[0.0, 1.0], [0.0, 0.0]]))
    got = personalized_pagerank(one_way, np.array([3.0, 0.0]))
    np.testing.assert_allclose(got, [2 / 3, 1 / 3], atol=1e-9)
    # Path 0 - 1 - 2, seed on 0: p0 = 1/2 + p1/4, p1 = (p0 + p2)/2, p2 = p1/4
    # => p1 = 1/4 + p1/4 => p1 = 1/3, p0 = 7/12, p2 = 1/12.
    path = sp.csr_matrix(np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=float))
    want = [7 / 12, 4 / 12, 1 / 12]
    np.testing.assert_allclose(personalized_pagerank(path, np.array([1.0, 0, 0])), want, atol=1e-9)
    np.testing.assert_allclose(ppr_prepared(prepare_transition(path), np.array([1.0, 0, 0])), want, atol=1e-6)


def test_ppr_edge_cases() -> None:
    path = sp.csr_matrix(np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=float))
    # No seed mass: uniform seed, i.e. global PageRank (degree-proportional on this graph).
    glob = personalized_pagerank(path, np.zeros(3), damping=0.5)
    np.testing.assert_allclose(glob, _nx_ppr(path, np.ones(3), 0.5), atol=1e-9)
    np.testing.assert_allclose(personalized_pagerank(path, np.array([0, 2.0, 0]), damping=0.0), [0, 1, 0])
    assert personalized_pagerank(sp.csr_matrix((0, 0)), np.zeros(0)).shape == (0,)
    with pytest.raises(ValueError):
        personalized_pagerank(path, np.array([1.0, -1.0, 0]))
    with pytest.raises(ValueError):
        personalized_pagerank(path, np.ones(2))
    with pytest.raises(ValueError):
        personalized_pagerank(sp.csr_matrix(np.ones((2, 3))), np.ones(2))


def test_symmetrize_and_seed_weights() -> None:
    a = sp.csr_matrix(np.array([[0, 2.0, 0], [1.0, 0, 0], [0, 3.0, 0]]))
    s = symmetrize(a).toarray()
    np.testing.assert_array_equal(s, [[0, 2, 0], [2, 0, 3], [0, 3, 0]])  # max of the two directions
    np.testing.assert_array_equal(symmetrize(s).toarray(), s)
    # EMem-G seeds: similarity / number of sessions, negative similarity -> 0, count 0 -> 1.
    w = ppr_seed_weights(np.array([0.8, -0.2, 0.6]), np.array([2, 1, 0]))
    np.testing.assert_allclose(w, [0.4, 0.0, 0.6])


# ---------------------------------------------------------------- DW-PR

# Five nodes: 0 = argument "Odalys", 1 = argument "STEM group", 2 = turn t0, 3 = turn t1,
# 4 = session s0. sim(q, node) = [0.8, 0.4, 0.6, 0.2, 0.3].
# Edges: a0->t0, a1->t0, a1->t1 (ARG_TURN), a0->a1 (RELATION, sim(q, relation) = 0.5),
# t0->s0, t1->s0 (TURN_SESSION).
# Weights (MemORAI eq. 1, mirrored for ARG_TURN / TURN_SESSION):
#   a0->t0 = t0->a0 = sim(a0) = 0.8      a1->t0 = t0->a1 = 0.4      a1->t1 = t1->a1 = 0.4
#   a0->a1 = 0.5 (relation, one way)
#   t0->s0 = s0->t0 = mean(sim(a0), sim(a1)) = 0.6      t1->s0 = s0->t1 = mean(sim(a1)) = 0.4
# Row-normalised P (out-weight sums: a0 1.3, a1 0.8, t0 1.8, t1 0.8, s0 1.0):
#   a0: t0 8/13, a1 5/13     a1: t0 1/2, t1 1/2     t0: a0 4/9, a1 2/9, s0 1/3
#   t1: a1 1/2, s0 1/2       s0: t0 3/5, t1 2/5
# Seed = sims / 2.3 = [8, 4, 6, 2, 3] / 23. With d = 0.85, p = 0.15 s + 0.85 Pᵀp; solved with
# exact fractions: p = [625786759/3779680620, 192920324/944920155, 75632829/251978708,
#                       59812655/377968062, 32479679/188984031]
#                    ≈ [0.16556604, 0.20416574, 0.30015563, 0.15824791, 0.17186467].
DW_SRC = [0, 1, 1, 0, 2, 3]
DW_DST = [2, 2, 3, 1, 4, 4]
DW_KIND = [EdgeCode.ARG_TURN] * 3 + [EdgeCode.RELATION] + [EdgeCode.TURN_SESSION] * 2
DW_NODE_SIM = np.array([0.8, 0.4, 0.6, 0.2, 0.3])
DW_EDGE_SIM = np.array([0.0, 0.0, 0.0, 0.5, 0.0, 0.0])


def test_dwpr_edge_weights_by_hand() -> None:
    w = query_edge_weights(DW_SRC, DW_DST, DW_KIND, DW_NODE_SIM, DW_EDGE_SIM).toarray()
    want = np.zeros((5, 5))
    want[0, 2] = want[2, 0] = 0.8
    want[1, 2] = want[2, 1] = 0.4
    want[1, 3] = want[3, 1] = 0.4
    want[0, 1] = 0.5
    want[2, 4] = want[4, 2] = 0.6
    want[3, 4] = want[4, 3] = 0.4
    np.testing.assert_allclose(w, want, atol=1e-12)
    one_way = query_edge_weights(DW_SRC, DW_DST, DW_KIND, DW_NODE_SIM, DW_EDGE_SIM, mirror=False).toarray()
    np.testing.assert_allclose(one_way, np.triu(want), atol=1e-12)


def test_dwpr_scores_by_hand() -> None:
    w = query_edge_weights(DW_SRC, DW_DST, DW_KIND, DW_NODE_SIM, DW_EDGE_SIM)
    p = dwpr(w, DW_NODE_SIM, damping=0.85)
    want = [0.1655660416620069, 0.20416574139007543, 0.3001556345784581, 0.1582479077293044, 0.17186467464015517]
    np.testing.assert_allclose(p, want, atol=1e-6)
    # The same system written out from the comment's P table and solved directly.
    P = np.zeros((5, 5))
    P[0, [2, 1]] = [8 / 13, 5 / 13]
    P[1, [2, 3]] = [1 / 2, 1 / 2]
    P[2, [0, 1, 4]] = [4 / 9, 2 / 9, 1 / 3]
    P[3, [1, 4]] = [1 / 2, 1 / 2]
    P[4, [2, 3]] = [3 / 5, 2 / 5]
    direct = np.linalg.solve(np.eye(5) - 0.85 * P.T, 0.15 * DW_NODE_SIM / DW_NODE_SIM.sum())
    np.testing.assert_allclose(p, direct, atol=1e-9)
    assert list(np.argsort(-p)) == [2, 1, 4, 0, 3]  # turn t0 first


def test_dwpr_literal_recursion_gives_same_ranking() -> None:
    # Drop the t1 -> s0 edge's mirror so s0 only points to t0, and make t1 dangling:
    # the paper's recursion leaks t1's mass, ours returns it to the seed; the vectors are
    # proportional, so normalised they agree.
    w = query_edge_weights(DW_SRC, DW_DST, DW_KIND, DW_NODE_SIM, DW_EDGE_SIM).tolil()
    w[3, :] = 0
    w = sp.csr_matrix(w)
    s = DW_NODE_SIM / DW_NODE_SIM.sum()
    out = np.asarray(w.sum(axis=1)).ravel()
    P = np.divide(w.toarray(), out[:, None], out=np.zeros((5, 5)), where=out[:, None] > 0)
    pr = s.copy()
    for _ in range(500):
        pr = 0.15 * s + 0.85 * P.T @ pr
    np.testing.assert_allclose(dwpr(w, DW_NODE_SIM), pr / pr.sum(), atol=1e-9)


def test_query_edge_weights_rules() -> None:
    # Turn 2 has no arguments: its session edge uses its own similarity (0.7).
    # Negative similarity -> weight 0 -> edge dropped. Duplicate edges keep the max.
    w = query_edge_weights(
        [2, 0, 1, 1],
        [3, 2, 0, 0],
        [EdgeCode.TURN_SESSION, EdgeCode.OTHER, EdgeCode.RELATION, EdgeCode.RELATION],
        np.array([0.1, 0.2, 0.7, 0.3]),
        np.array([0.0, -0.4, 0.2, 0.6]),
        mirror=False,
    ).toarray()
    assert w[2, 3] == pytest.approx(0.7)
    assert w[0, 2] == 0.0
    assert w[1, 0] == pytest.approx(0.6)
    with pytest.raises(ValueError):
        query_edge_weights([0], [1], [EdgeCode.RELATION], np.ones(2))  # edge_sim missing


def test_query_focused_subgraph() -> None:
    # Directed path 0 -> 1 -> 2 -> 3 -> 4 plus 5 -> 2; edges are followed both ways.
    src, dst = [0, 1, 2, 3, 5], [1, 2, 3, 4, 2]
    adj = sp.csr_matrix((np.ones(5), (src, dst)), shape=(7, 7))
    assert query_focused_subgraph(adj, [2], hops=1).tolist() == [1, 2, 3, 5]
    assert query_focused_subgraph(adj, [2], hops=2).tolist() == [0, 1, 2, 3, 4, 5]
    assert query_focused_subgraph(adj, [6, 6], hops=3).tolist() == [6]
    assert query_focused_subgraph(adj, [0, 4], hops=0).tolist() == [0, 4]


# ---------------------------------------------------------------- sentence hops

# Six sentences in three chunks; cosines to the query; kNN (k = 1) edges 0->1, 2->3, 4->5, 5->2.
HOP_SIMS = np.array([0.5, 0.1, 0.3, -0.2, 0.05, 0.25])
HOP_CHUNK = np.array([0, 0, 1, 1, 2, 2])
HOP_KNN = sp.csr_matrix((np.ones(4), ([0, 2, 4, 5], [1, 3, 5, 2])), shape=(6, 6))


def test_sentence_hop_one_hop() -> None:
    # gamma 1.2: sim + 1 >= 1.2 for sentences 0 (1.5), 2 (1.3), 5 (1.25); top_n = 2 keeps 0, 2.
    # One hop (both directions): 0 -> 1; 2 -> 3 and 5 (5 -> 2). Gathered {0, 1, 2, 3, 5}.
    # Chunk 0: mean(0.5, 0.1) = 0.3; chunk 1: mean(0.3, -0.2) = 0.05; chunk 2: 0.25.
    got = sentence_hop(HOP_SIMS, HOP_KNN, HOP_CHUNK, top_n=2, gamma=1.2, hops=1)
    rounded = [(c, round(s, 9), sents) for c, s, sents in got]
    assert rounded == [(0, 0.3, [0, 1]), (2, 0.25, [5]), (1, 0.05, [2, 3])]


def test_sentence_hop_no_hop_threshold_and_fallback() -> None:
    got = sentence_hop(HOP_SIMS, HOP_KNN, HOP_CHUNK, top_n=15, gamma=1.2, hops=0)
    assert [(c, round(s, 9), sents) for c, s, sents in got] == [(0, 0.5, [0]), (1, 0.3, [2]), (2, 0.25, [5])]
    # Nothing clears gamma = 1.9: the single best sentence is kept.
    assert sentence_hop(HOP_SIMS, HOP_KNN, HOP_CHUNK, gamma=1.9, hops=0) == [(0, 0.5, [0])]
    assert sentence_hop(np.zeros(0), sp.csr_matrix((0, 0)), np.zeros(0, int)) == []


def test_sentence_hop_ties_go_to_best_sentence() -> None:
    # Chunk 0 holds {0.4, 0.0} (mean 0.2, best 0.4); chunk 1 holds {0.2} (mean 0.2, best 0.2).
    sims = np.array([0.4, 0.0, 0.2])
    knn = sp.csr_matrix((np.ones(1), ([0], [1])), shape=(3, 3))
    got = sentence_hop(sims, knn, np.array([1, 1, 0]), gamma=1.1, hops=1)
    assert [c for c, _, _ in got] == [1, 0]
    # Sentences without a chunk (negative index) are skipped.
    assert sentence_hop(sims, knn, np.array([-1, -1, 0]), gamma=1.1, hops=1) == [(0, 0.2, [2])]


# ---------------------------------------------------------------- fusion


def test_reciprocal_rank_fusion() -> None:
    fused = reciprocal_rank_fusion([["a", "b", "c"], ["b", "c", "d"]], k=60)
    # b: 1/62 + 1/61, c: 1/63 + 1/62, a: 1/61, d: 1/63
    assert [x for x, _ in fused] == ["b", "c", "a", "d"]
    assert dict(fused)["b"] == pytest.approx(1 / 62 + 1 / 61)
    # Weights: the second list silenced.
    silenced = reciprocal_rank_fusion([["a", "b"], ["b", "c"]], k=1, weights=[1, 0])
    assert [x for x, _ in silenced] == ["a", "b", "c"]
    # Ties: equal score and best rank -> first seen.
    assert [x for x, _ in reciprocal_rank_fusion([["x"], ["y"]])] == ["x", "y"]
    # Repeats inside one list count once, at their first rank.
    assert dict(reciprocal_rank_fusion([["a", "a", "b"]], k=0)) == {"a": 1.0, "b": pytest.approx(1 / 3)}
    with pytest.raises(ValueError):
        reciprocal_rank_fusion([["a"]], weights=[1, 2])


def test_minmax() -> None:
    np.testing.assert_allclose(minmax([1.0, 3.0, 2.0]), [0.0, 1.0, 0.5])
    np.testing.assert_allclose(minmax([2.0, 2.0]), [1.0, 1.0])
    assert minmax({"a": 1.0, "b": 5.0}) == {"a": 0.0, "b": 1.0}
    assert minmax([]).size == 0


# ---------------------------------------------------------------- BM25, stemmer

DOCS = [
    "Odalys went to the STEM chess club yesterday",
    "Tamsin painted a sunset by the lake",
    "They talked about pottery classes and painting lessons for kids",
    "",
]


def test_bm25_ranks_obvious_document_first() -> None:
    index = BM25Index(DOCS)
    hits = index.search("Who paints sunsets?", k=10)
    assert hits[0][0] == 1  # "paints"/"painted" and "sunsets"/"sunset" stem together
    assert {i for i, _ in hits} == {1, 2}  # only documents sharing a term
    top = index.search("chess club", k=1)
    assert len(top) == 1 and top[0][0] == 0 and top[0][1] == pytest.approx(index.scores("chess club")[0])


def test_bm25_edge_cases() -> None:
    index = BM25Index(DOCS)
    assert index.search("the and of", k=5) == []  # stopwords only
    assert index.search("zeppelin", k=5) == []  # unknown word
    assert len(index.search("lake pottery chess", k=100)) == 3  # k beyond corpus size
    assert index.search("lake", k=0) == []
    assert BM25Index([]).search("anything") == []
    assert BM25Index(["the", "and"]).search("the") == []


@pytest.mark.slow
def test_porter_stemmer_matches_nltk_on_every_word_of_the_repository() -> None:
    """The copy (kept for start-up time, see ``porter``'s docstring) stems exactly as NLTK, on every
    word of the repository's prose, prompts, code and sample conversation."""
    import re

    from nltk.stem.porter import PorterStemmer

    root = Path(__file__).resolve().parents[1]
    sources = (
        *root.glob("*.md"),
        *root.glob("docs/*.md"),
        *root.glob("prompts/*.txt"),
        *root.rglob("memgraph_agents/**/*.py"),
    )
    texts = [p.read_text(encoding="utf-8") for p in sources]
    texts.append((root / "examples" / "conversation.json").read_text(encoding="utf-8"))
    words = sorted({w for text in texts for w in re.findall(r"[a-z]+", text.lower())})
    words += ["dying", "skies", "geology", "enjoy", "as", "siezing", "itemization", "colonizer"]
    assert len(words) > 3000
    nltk_stem = PorterStemmer().stem
    differ = [(w, stem(w), nltk_stem(w)) for w in words if stem(w) != nltk_stem(w)]
    assert not differ, differ[:20]
    assert stem("") == ""
