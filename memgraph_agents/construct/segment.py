"""Offline event segmentation by semantic shift (TextTiling over turn embeddings).

Event segmentation theory says people cut a stream of experience into events where their
predictions fail, i.e. where the situation changes; CompassMem applies it to dialogue with an
LLM. Offline we use the TextTiling recipe (Hearst 1997, "TextTiling: Segmenting Text into
Multi-paragraph Subtopic Passages") with embeddings in place of word counts:

1. Gap similarity. For each gap g (between rows g-1 and g, g = 1..n-1)::

       s_g = cos( mean(v[g-w : g]), mean(v[g : g+w]) )      (w = ``window``, clipped at the ends)

2. Depth score (Hearst's "depth"): walk left from g while s keeps rising to its peak l_g, and
   right likewise to r_g::

       d_g = (l_g - s_g) + (r_g - s_g)

3. Boundaries are the valleys of s (s_g no higher than either neighbour) whose depth clears
   Hearst's liberal cut-off, computed over the valleys' depths D::

       d_g > mean(D) - depth * std(D)      (depth = 0.5: Hearst's "s̄ - σ/2")

   and also a noise floor, d_g >= ``min_depth`` * max(D) (default 0.25): without it, when
   one valley is deep and the rest are ripples, the negative cut-off would accept the ripples
   as boundaries too. Boundaries are taken deepest first and skipped if they would leave a
   segment shorter than ``min_size``.
   A boundary is also refused if a resulting piece could not later be cut into sizes within
   [min_size, max_size] (e.g. 5 rows with sizes 3..4).
4. Sizes. A segment longer than ``max_size`` is split at its deepest internal gap (keeping
   both parts feasible), recursively. A segment shorter than ``min_size`` (only when n itself
   admits no valid cut, e.g. n = 5 with sizes 2..2) is merged into the neighbour it is more
   similar to (cosine of segment means) if that keeps the merge <= ``max_size``: when the two
   limits conflict, ``max_size`` wins (an event's text must stay embeddable).

Everything is deterministic (ties break towards the earlier gap).
"""

from __future__ import annotations

import numpy as np

Span = tuple[int, int]


def _normalise(v: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    return v / np.where(norms == 0, 1.0, norms)


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    # Elementwise products and numpy's sums, not BLAS dots (``norm`` of a vector is one): the
    # same pair of windows gets the same cosine on every kernel, so ties between gaps cannot flip.
    na, nb = float(np.sqrt((a * a).sum())), float(np.sqrt((b * b).sum()))
    return float((a * b).sum()) / (na * nb) if na > 0 and nb > 0 else 0.0


def gap_similarities(vectors: np.ndarray, window: int = 2) -> np.ndarray:
    """s[g-1] = cosine between the mean of the ``window`` rows before gap g and after it."""
    v = _normalise(np.asarray(vectors, dtype=np.float64))
    n = len(v)
    w = max(1, int(window))
    csum = np.vstack([np.zeros((1, v.shape[1])), np.cumsum(v, axis=0)]) if n else v
    out = np.empty(max(n - 1, 0))
    for g in range(1, n):
        lo, hi = max(0, g - w), min(n, g + w)
        out[g - 1] = _cos((csum[g] - csum[lo]) / (g - lo), (csum[hi] - csum[g]) / (hi - g))
    return out


def depth_scores(sims: np.ndarray) -> np.ndarray:
    """Hearst depth: (left peak - s) + (right peak - s), climbing while the score rises."""
    k = len(sims)
    depth = np.zeros(k)
    for i in range(k):
        lp = sims[i]
        j = i - 1
        while j >= 0 and sims[j] >= lp:
            lp = sims[j]
            j -= 1
        rp = sims[i]
        j = i + 1
        while j < k and sims[j] >= rp:
            rp = sims[j]
            j += 1
        depth[i] = (lp - sims[i]) + (rp - sims[i])
    return depth


def _feasible(length: int, min_size: int, max_size: int) -> bool:
    """Can ``length`` rows be cut into pieces all within [min_size, max_size]?"""
    return length == 0 or -(-length // max_size) <= length // min_size


def _deepest_gap(sims: np.ndarray, depth: np.ndarray, start: int, end: int, min_size: int, max_size: int) -> int:
    """Deepest gap g in (start, end), preferring gaps whose two parts can still meet the sizes.

    Tiers: both parts feasible; else both >= min_size; else any internal gap. Ties on depth
    (e.g. all zero on a monotone stretch) go to the lower similarity, then the earlier gap.
    """
    gaps = range(start + 1, end)
    tiers = (
        [g for g in gaps if _feasible(g - start, min_size, max_size) and _feasible(end - g, min_size, max_size)],
        [g for g in gaps if g - start >= min_size and end - g >= min_size],
        list(gaps),
    )
    cands = np.array(next(t for t in tiers if len(t)))
    order = np.lexsort((cands, sims[cands - 1], -depth[cands - 1]))
    return int(cands[order[0]])


def _merge_short(spans: list[Span], v: np.ndarray, min_size: int, max_size: int) -> list[Span]:
    """Merge each too-short span into the more similar neighbour that keeps it <= max_size."""
    spans = list(spans)
    i = 0
    while i < len(spans):
        a, b = spans[i]
        if b - a >= min_size:
            i += 1
            continue
        mean = v[a:b].mean(axis=0)
        best: tuple[float, int] | None = None
        for j in (i - 1, i + 1):  # left first, so ties go left
            if 0 <= j < len(spans) and max(spans[j][1], b) - min(spans[j][0], a) <= max_size:
                sim = _cos(mean, v[spans[j][0] : spans[j][1]].mean(axis=0))
                if best is None or sim > best[0]:
                    best = (sim, j)
        if best is None:  # no neighbour can take it without breaking max_size: max wins
            i += 1
            continue
        lo, hi = sorted((i, best[1]))
        spans[lo : hi + 1] = [(spans[lo][0], spans[hi][1])]
        i = lo
    return spans


def needs_vectors(n: int, min_size: int = 2, max_size: int = 8) -> bool:
    """Whether ``segment_by_shift`` of ``n`` rows depends on their vectors: fewer than two
    minimum-size pieces that fit one segment have one segmentation only, ``[(0, n)]`` (a chat
    write of a turn or two: no embedding needed to segment it)."""
    min_size = max(1, int(min_size))
    max_size = max(min_size, int(max_size))
    return not (n <= max_size and n < 2 * min_size)


def segment_by_shift(
    vectors: np.ndarray,
    *,
    min_size: int = 2,
    max_size: int = 8,
    window: int = 2,
    depth: float = 0.5,
    min_depth: float = 0.25,
) -> list[Span]:
    """Contiguous half-open spans [start, end) covering rows 0..n exactly (module doc)."""
    v = np.asarray(vectors, dtype=np.float64)
    n = len(v)
    if n == 0:
        return []
    min_size = max(1, int(min_size))
    max_size = max(min_size, int(max_size))
    if n <= min_size or n == 1:
        return [(0, n)]
    v = _normalise(v.reshape(n, -1))
    sims = gap_similarities(v, window)
    dep = depth_scores(sims)

    # Valleys: no higher than either neighbour, and strictly deep.
    k = len(sims)
    valley = [
        g
        for g in range(1, n)
        if dep[g - 1] > 0 and (g == 1 or sims[g - 1] <= sims[g - 2]) and (g == k or sims[g - 1] <= sims[g])
    ]
    # Keep every piece splittable into sizes within [min_size, max_size] when n allows it.
    if _feasible(n, min_size, max_size):

        def ok(length: int) -> bool:
            return _feasible(length, min_size, max_size)
    else:

        def ok(length: int) -> bool:
            return length >= min_size

    chosen: list[int] = []
    if valley:
        d = dep[np.array(valley) - 1]
        hearst = float(d.mean() - depth * d.std())
        floor = min_depth * float(d.max())
        # Deepest first; sorted() is stable so ties go to the earlier gap.
        for g in sorted(valley, key=lambda g: -dep[g - 1]):
            if not (dep[g - 1] > hearst and dep[g - 1] >= floor):
                continue
            left = max([0, *[c for c in chosen if c < g]])
            right = min([n, *[c for c in chosen if c > g]])
            if ok(g - left) and ok(right - g):
                chosen.append(g)

    bounds = [0, *sorted(chosen), n]
    spans = [(a, b) for a, b in zip(bounds, bounds[1:])]

    # Split over-long segments at their deepest internal gap, recursively.
    out: list[Span] = []
    stack = spans[::-1]
    while stack:
        a, b = stack.pop()
        if b - a <= max_size:
            out.append((a, b))
            continue
        g = _deepest_gap(sims, dep, a, b, min_size, max_size)
        stack.extend([(g, b), (a, g)])
    return _merge_short(out, v, min_size, max_size)
