"""The relevance gate's signal: how well a namespace can answer a question, one number per question.

"Nothing relevant in memory" is decided once per question, on the question and the namespace,
never on how many items were asked for::

    g(q, N) = max_{t ∈ turns(N), t evidence for q} relevance(q, t)

``relevance`` is the item relevance of ``retrieval.relevance`` (the question, speakers left
out, against the turn and its sentences), so ``g`` is the relevance the best-matching turn of
the namespace would show; turns that are not evidence for ``q`` (``retrieval.asking``: the
agent's own words, the user's questions to it, ``q`` itself stored before the recall) do not
count, or every question an agent asks would find itself. A question is refused when ``g`` is
below the gate in force, ``gate_in_force``: ``base + per_ln_turns · ln(N)`` for a namespace of
N turns (``Settings.gate``, ``Settings.gate_per_ln_turns``; MiniLM's values are
``config.MINILM_GATE`` and ``config.MINILM_GATE_PER_LN_TURNS``, calibrated in
``docs/bench-gate/``): the best of N unrelated cosines grows with N. A question that asks the
assistant for a task, or names what no turn mentions, must match more closely
(``retrieval.gate_terms``; ``Settings.gate_raises``): one cosine cannot tell "memory talks about
this" from "memory answers this". The best turn is found among the turns of best relevance, looking
further (×4) only while all of them are not evidence.
"""

from __future__ import annotations

import math

import numpy as np

from memgraph_agents.model.ranking import top_k
from memgraph_agents.retrieval.asking import not_evidence, text_key
from memgraph_agents.retrieval.gate_terms import gate_raise
from memgraph_agents.retrieval.relevance import question_vector, turn_relevance
from memgraph_agents.storage.protocols import StoreReader

FIRST_LOOK = 20  # turns of best relevance looked at first


def question_relevance(query: str, store: StoreReader) -> float | None:
    """``g(q, N)`` above, in [0, 1]; ``None`` when the namespace holds no turn that is evidence."""
    snap = store.snapshot()
    turns = snap.indices_of("turn")
    if not len(turns):
        return None
    best = turn_relevance(snap, question_vector(store, query))
    mask = np.zeros(len(snap.ids), dtype=bool)
    mask[turns] = True
    key = text_key(query)
    n = FIRST_LOOK
    while True:
        top = top_k(best, min(n, len(turns)), tiebreak=snap.id_rank, mask=mask)
        for i in top:
            i = int(i)
            if not not_evidence(snap.text[i], snap.attrs[i], key):
                return float(min(1.0, max(0.0, best[i])))
        if n >= len(turns):
            return None
        n *= 4


def gate_in_force(
    base: float, per_ln_turns: float, store: StoreReader, query: str = "", raises: tuple[float, float] = (0.0, 0.0)
) -> float:
    """The gate for ``query`` in ``store``'s namespace: ``base + per_ln_turns · ln(turns)`` (``base``
    when either is 0), raised for this question by ``raises`` = (task, unknown name)
    (``retrieval.gate_terms``)."""
    if base <= 0:
        return base
    snap = store.snapshot()
    gate = base
    if per_ln_turns > 0:
        gate += per_ln_turns * math.log(max(len(snap.indices_of("turn")), 1))
    if query and any(r > 0 for r in raises):
        gate += gate_raise(query, snap, *raises)
    return round(gate, 4)
