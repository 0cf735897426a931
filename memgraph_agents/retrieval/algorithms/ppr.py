"""Personalized PageRank on a scipy CSR adjacency matrix.

Model (EMem-G, Zhou & Han 2025, §3.3, following HippoRAG 2, Gutiérrez et al. 2025)::

    p = (1 − d)·s + d·(Pᵀp + (Σ_{u dangling} p_u)·s)

``P`` is the row-stochastic transition of the adjacency ``A`` (``P[u, v] = A[u, v] / Σ_w A[u, w]``,
so ``Pᵀ`` is the column-stochastic matrix EMem calls ``Tᵀ``), ``s`` the personalization
normalised to sum 1, ``d`` the damping factor: the probability of following an edge rather
than teleporting back to ``s``. Dangling nodes (no out-weight) teleport to ``s`` as well, so
``p`` is a probability vector. EMem-G takes HippoRAG 2's PPR settings, whose damping is 0.5,
and so does ``damping`` here. Conventions: networkx's ``pagerank(alpha=...)`` and igraph's
``damping`` are this ``d``; EMem's α is also ``d`` (``π = (1 − α)s + αTᵀπ``).

Two facts keep the solver cheap (see ``ppr_prepared``):

* with dangling mass sent to ``s``, the answer is ``q / Σq`` for ``q = (I − dPᵀ)⁻¹ s`` (the
  dangling term is a multiple of ``s``), so the loop can ignore dangling nodes and normalise
  once at the end;
* for an undirected (symmetric) graph ``P`` is similar to a symmetric matrix, the spectrum of
  ``I − dPᵀ`` is real and lies in [1 − d, 1 + d], and Chebyshev semi-iteration contracts the
  error by ``(1 − √(1 − d²)) / d`` per matrix–vector product (0.27 at d = 0.5) instead of ``d``.

Usage: ``prepared = prepare_transition(symmetrize(adj))`` once per graph version (cache it on
the caller side), then ``ppr_prepared(prepared, seeds)`` per query.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

__all__ = [
    "PreparedGraph",
    "personalized_pagerank",
    "ppr_prepared",
    "ppr_seed_weights",
    "prepare_transition",
    "symmetrize",
]

# Below this many non-zeros a thread hand-off costs more than the product it splits.
_PARALLEL_MIN_NNZ = 400_000
_POOL: ThreadPoolExecutor | None = None


@dataclass(frozen=True)
class PreparedGraph:
    """One graph's transition, ready for repeated queries (build with ``prepare_transition``).

    Directed graphs store ``M = Pᵀ`` (CSR); symmetric ones store ``M = A`` plus ``inv_deg`` and
    use ``Pᵀx = A·(x / deg)``, because rows of ``A`` then double as columns of ``Pᵀ``: a vector
    supported on a few nodes is multiplied by slicing just those rows (``local_matvec``).
    ``blocks`` are consecutive row blocks of ``M`` starting at ``starts``; scipy releases the
    GIL inside a sparse product, so blocks run in parallel threads.
    """

    n: int
    blocks: tuple[sp.csr_matrix, ...]
    starts: tuple[int, ...]
    symmetric: bool
    dtype: np.dtype
    nnz: int
    inv_deg: np.ndarray | None = None

    def matvec(self, x: np.ndarray, out: np.ndarray) -> np.ndarray:
        """``out[:] = Pᵀx``."""
        if self.inv_deg is not None:
            x = x * self.inv_deg
        if len(self.blocks) == 1:
            out[:] = self.blocks[0] @ x
            return out
        return np.concatenate(list(_pool().map(lambda b: b @ x, self.blocks)), out=out)

    def local_matvec(self, x: np.ndarray, rows: np.ndarray, out: np.ndarray) -> np.ndarray | None:
        """``out[:] = Pᵀx`` for ``x`` zero outside the sorted index array ``rows`` (symmetric only).

        Returns ``rows`` ∪ support(``out``) (sorted), or ``None`` (``out`` untouched) when the rows
        hold more than an eighth of the non-zeros, where a full product is cheaper.
        """
        assert self.inv_deg is not None
        parts = []
        for blk, lo in zip(self.blocks, self.starts):
            a, b = np.searchsorted(rows, [lo, lo + blk.shape[0]])
            if b > a:
                local = rows[a:b] - lo
                parts.append((blk, local, a, b, int((blk.indptr[local + 1] - blk.indptr[local]).sum())))
        if sum(p[4] for p in parts) * 8 > self.nnz:
            return None
        w = x[rows] * self.inv_deg[rows]
        out.fill(0)
        hit = np.zeros(self.n, dtype=bool)
        hit[rows] = True
        for blk, local, a, b, _ in parts:
            sub = blk[local]  # rows of A = columns of A for a symmetric A
            out += sub.T @ w[a:b]
            hit[sub.indices] = True
        return np.flatnonzero(hit)


def _pool() -> ThreadPoolExecutor:
    global _POOL
    if _POOL is None:
        _POOL = ThreadPoolExecutor(max_workers=min(4, os.cpu_count() or 1), thread_name_prefix="ppr")
    return _POOL


def _check_adjacency(adj: sp.spmatrix | sp.sparray) -> sp.csr_matrix:
    a = sp.csr_matrix(adj)
    if a.shape[0] != a.shape[1]:
        raise ValueError(f"adjacency must be square, got shape {a.shape}")
    if a.nnz and a.data.min() < 0:
        raise ValueError("adjacency weights must be non-negative")
    return a


def symmetrize(adj: sp.spmatrix | sp.sparray) -> sp.csr_matrix:
    """Undirected version of ``adj``: weight of {u, v} = max(A[u, v], A[v, u]).

    ``max`` rather than ``A + Aᵀ`` so that an edge already stored in both directions keeps its
    weight (the function is idempotent on symmetric input).
    """
    a = _check_adjacency(adj)
    return sp.csr_matrix(a.maximum(a.T))


def prepare_transition(
    adj: sp.spmatrix | sp.sparray,
    *,
    dtype: type | np.dtype = np.float32,
    symmetric: bool | None = None,
    threads: int | None = None,
) -> PreparedGraph:
    """Row-normalise ``adj`` (weights as given) into a ``PreparedGraph``.

    ``dtype`` float32 halves memory traffic (the product is memory-bound) at ~1e-7 relative
    precision, ample for ranking. ``symmetric=None`` detects symmetry (one sparse comparison).
    ``threads`` = number of row blocks; default: the CPU count (≤ 4) for large graphs, else 1.
    """
    a = _check_adjacency(adj).copy()  # our own copy: canonicalised in place below
    a.sum_duplicates()
    n = a.shape[0]
    dt = np.dtype(dtype)
    if symmetric is None:
        symmetric = n == 0 or (a != a.T).nnz == 0
    out_w = np.asarray(a.sum(axis=1), dtype=np.float64).ravel()
    inv = np.divide(1.0, out_w, out=np.zeros_like(out_w), where=out_w > 0)
    if symmetric:
        m, inv_deg = sp.csr_matrix(a, dtype=dt), inv.astype(dt)
    else:
        m, inv_deg = sp.csr_matrix((sp.diags(inv) @ a).T, dtype=dt), None
    m.sort_indices()
    if threads is None:
        threads = min(4, os.cpu_count() or 1) if m.nnz >= _PARALLEL_MIN_NNZ else 1
    # Row blocks with about the same number of non-zeros each.
    cuts = np.searchsorted(m.indptr, np.linspace(0, m.nnz, max(1, int(threads)) + 1)[1:-1])
    bounds = sorted({0, n, *(int(c) for c in cuts)})
    spans = [(lo, hi) for lo, hi in zip(bounds, bounds[1:]) if hi > lo] or [(0, n)]
    blocks = tuple(m if len(spans) == 1 else m[lo:hi] for lo, hi in spans)
    return PreparedGraph(
        n=n,
        blocks=blocks,
        starts=tuple(lo for lo, _ in spans),
        symmetric=bool(symmetric),
        dtype=dt,
        nnz=int(m.nnz),
        inv_deg=inv_deg,
    )


def _seed_vector(personalization: np.ndarray, n: int, dtype: np.dtype) -> np.ndarray:
    s = np.asarray(personalization, dtype=np.float64).ravel()
    if s.shape[0] != n:
        raise ValueError(f"personalization has {s.shape[0]} entries for {n} nodes")
    if not np.all(np.isfinite(s)) or (s < 0).any():
        raise ValueError("personalization must be finite and non-negative")
    total = s.sum()
    # No seed mass at all: fall back to a uniform seed, i.e. global PageRank.
    s = s / total if total > 0 else np.full(n, 1.0 / n)
    return s.astype(dtype, copy=False)


def ppr_prepared(
    prepared: PreparedGraph,
    personalization: np.ndarray,
    *,
    damping: float = 0.5,
    tol: float = 1e-8,
    max_iter: int = 100,
) -> np.ndarray:
    """Personalized PageRank on a prepared graph; returns float64 scores summing to 1.

    Stops when the L1 size of an update falls below ``tol`` (relative to the current total);
    ``tol`` is raised to 8 machine epsilons of the prepared dtype (≈1e-6 for float32), below
    which updates are rounding noise. ``max_iter`` caps matrix–vector products; without
    convergence the last iterate is returned (its L1 error is then about ``2·d^max_iter``).
    Symmetric graphs use Chebyshev semi-iteration, others the power iteration.
    """
    if not 0.0 <= damping < 1.0:
        raise ValueError("damping must be in [0, 1)")
    n = prepared.n
    if n == 0:
        return np.zeros(0)
    dt = prepared.dtype
    s = _seed_vector(personalization, n, dt)
    tol = max(float(tol), 8 * float(np.finfo(dt).eps))
    if damping == 0.0 or prepared.nnz == 0:
        return s.astype(np.float64)
    solve = _chebyshev if prepared.symmetric else _power
    q = solve(prepared, s, damping, tol, max_iter)
    q = np.maximum(q.astype(np.float64), 0.0)  # clear tiny negative rounding from Chebyshev
    total = q.sum()
    return q / total if total > 0 else s.astype(np.float64)


class _Product:
    """``Pᵀv`` that slices rows while ``v`` lives on a small ball around the seeds."""

    def __init__(self, g: PreparedGraph, s: np.ndarray) -> None:
        self.g = g
        self.ball = np.flatnonzero(s) if g.symmetric else None  # support of every vector so far

    def __call__(self, v: np.ndarray, out: np.ndarray) -> np.ndarray:
        if self.ball is not None:
            ball = self.g.local_matvec(v, self.ball, out)
            if ball is not None:
                self.ball = ball
                return out
            self.ball = None  # the ball got big: full products from now on
        return self.g.matvec(v, out)


def _power(g: PreparedGraph, s: np.ndarray, d: float, tol: float, max_iter: int) -> np.ndarray:
    """x ← (1 − d)s + d·Pᵀx with the dangling mass dropped (restored by the final normalisation)."""
    product = _Product(g, s)
    x = s.copy()
    y = np.empty_like(x)
    base = (1.0 - d) * s
    for _ in range(max_iter):
        product(x, y)
        y *= d
        y += base
        x -= y
        delta = float(np.abs(x, out=x).sum())
        x, y = y, x
        if delta <= tol * float(x.sum()):
            break
    return x


def _chebyshev(g: PreparedGraph, s: np.ndarray, d: float, tol: float, max_iter: int) -> np.ndarray:
    """Solve (I − dPᵀ)q = s by Chebyshev semi-iteration on the interval [1 − d, 1 + d].

    Saad, *Iterative Methods for Sparse Linear Systems*, Algorithm 12.1, with centre θ = 1 and
    half-width δ = d: no inner products, one Pᵀ product per step.
    """
    product = _Product(g, s)
    x = s.copy()
    tmp = np.empty_like(x)
    r = product(x, np.empty_like(x))
    r *= d  # r0 = s − (I − dPᵀ)s
    step = r.copy()  # d0 = r0 / θ
    sigma, rho = 1.0 / d, d
    for _ in range(max_iter - 1):
        x += step
        if float(np.abs(step, out=tmp).sum()) <= tol * float(x.sum()):
            break
        product(step, tmp)
        tmp *= d
        r += tmp
        r -= step  # r ← r − (I − dPᵀ)·step
        rho_next = 1.0 / (2.0 * sigma - rho)
        step *= rho_next * rho
        np.multiply(r, 2.0 * rho_next / d, out=tmp)
        step += tmp
        rho = rho_next
    else:
        x += step
    return x


def personalized_pagerank(
    adj: sp.spmatrix | sp.sparray,
    personalization: np.ndarray,
    *,
    damping: float = 0.5,
    tol: float = 1e-8,
    max_iter: int = 100,
) -> np.ndarray:
    """One-shot PPR (float64): ``ppr_prepared(prepare_transition(adj, dtype=float64), ...)``.

    ``adj`` is used as given (directed: ``adj[u, v]`` weights u→v); call ``symmetrize`` first
    for an undirected walk. Equals ``networkx.pagerank(G, alpha=damping, personalization=...)``
    on the same weighted digraph. For many queries on one graph, prepare once instead.
    """
    prepared = prepare_transition(adj, dtype=np.float64, threads=1)
    return ppr_prepared(prepared, personalization, damping=damping, tol=tol, max_iter=max_iter)


def ppr_seed_weights(sim: np.ndarray, session_counts: np.ndarray) -> np.ndarray:
    """EMem-G / HippoRAG 2 seed weights: ``max(sim, 0) / sessions(node)``.

    Dividing by the number of sessions a node occurs in favours specific nodes over ones that
    recur everywhere (HippoRAG 2's node specificity, counted in sessions: a chat restates a name in every one);
    a count below 1 is treated as 1. Negative similarities carry no seed mass.
    """
    sim = np.asarray(sim, dtype=np.float64)
    counts = np.maximum(np.asarray(session_counts, dtype=np.float64), 1.0)
    if sim.shape != counts.shape:
        raise ValueError(f"sim {sim.shape} and session_counts {counts.shape} differ in shape")
    return np.clip(sim, 0.0, None) / counts
