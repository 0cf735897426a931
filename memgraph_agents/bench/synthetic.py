"""Synthetic event graphs for ``memgraph bench scale``, and an in-memory store to
serve one to the retrievers.

``synthetic_graph`` builds a graph shaped like an offline ingest of LoCoMo (per session: ~22
turns, ~3.4 sentences per turn, an event per ~4 turns, ~7.5 role edges per event, 3 kNN
sentence edges per sentence, ``next``/``contains``/``evidence``/``member``/``similar``/
``relation``/``synonym`` edges) with skewed degrees: arguments are drawn from a Zipf law,
speakers come from a small pool, so a few argument nodes are hubs; vectors are random unit
vectors (clustered by topic, so similarities are not uniform noise). Rows are the tuples a
store reads (``GraphDB.read_graph``: JSON columns), so loading them is loading a namespace.

``SyntheticStore`` serves the loaded snapshot with ``SyntheticEmbedder``, whose query
"embedding" is a lookup: embedding time is not what the benchmark measures.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np

from memgraph_agents.storage.snapshot import GraphSnapshot

_SYLLABLES = (
    "ka ri mo ne ta lu vi so re na el ba di go fe mi ra to zu pa ke lo si da ve ni ho ar ul en ix or am"
).split()
_COMMON = (
    "the a and to of I you it was we in that my for is on with so but have had about really "
    "went go got new time day week yesterday today last next home work friend family love great "
    "nice fun happy talk trip class game dog cat book music movie food run walk park beach city "
    "school job project garden paint cook bake dance sing play read write photo kids party"
).split()


# --------------------------------------------------------------------------- synthetic graph


@dataclass
class SyntheticGraph:
    node_rows: list[tuple]
    edge_rows: list[tuple]
    sessions: list[dict]
    vectors: np.ndarray  # (n, dim) float32, unit rows, aligned with node_rows
    questions: list[tuple[str, np.ndarray]]
    arg_index: dict[str, int]  # argument text -> node index (mentions embed like their node)


def _names(rng: np.random.Generator, n: int) -> list[str]:
    out: list[str] = []
    seen: set[str] = set()
    while len(out) < n:
        k = int(rng.integers(2, 4))
        w = "".join(_SYLLABLES[int(i)] for i in rng.integers(0, len(_SYLLABLES), k)).capitalize()
        w = w if w not in seen else f"{w}{len(out)}"
        seen.add(w)
        out.append(w)
    return out


def _unit(m: np.ndarray) -> np.ndarray:
    m /= np.linalg.norm(m, axis=1, keepdims=True) + 1e-12
    return m


def synthetic_graph(n_nodes: int, *, dim: int = 384, seed: int = 0, n_questions: int = 30) -> SyntheticGraph:
    """An event graph of about ``n_nodes`` nodes (see the module docstring)."""
    rng = np.random.default_rng(seed)
    per_session = 112  # nodes per session here (LoCoMo offline: ~130 with its share of arguments)
    n_sessions = max(2, round(n_nodes / per_session))
    n_args = max(50, int(0.19 * n_nodes))
    people = _names(rng, 60)
    arg_names = _names(rng, n_args)
    n_topics = max(2, int(0.85 * n_sessions))
    # Zipf popularity of arguments (rank r has weight 1/r^1.1): hubs and a long tail.
    pop = 1.0 / np.arange(1, n_args + 1) ** 1.1
    pop /= pop.sum()
    cdf = np.cumsum(pop)
    word_pop = 1.0 / np.arange(1, len(_COMMON) + 1)
    word_pop /= word_pop.sum()

    ids: list[str] = []
    kinds: list[str] = []
    texts: list[str] = []
    owners: list[str] = []
    turn_ids: list[list[str]] = []
    attrs: list[dict] = []
    parent: list[int] = []  # node whose vector this node's vector is drawn around (-1: topic centroid)
    topic_of: list[int] = []
    edges: list[tuple] = []

    def add(nid, kind, text, owner, tids, a, par, top) -> int:
        ids.append(nid)
        kinds.append(kind)
        texts.append(text)
        owners.append(owner)
        turn_ids.append(tids)
        attrs.append(a)
        parent.append(par)
        topic_of.append(top)
        return len(ids) - 1

    def edge(a, b, kind, label, owner, w=1.0, tids=()):
        edges.append((ids[a], ids[b], kind, label, owner, w, list(tids)))

    arg_node: dict[int, int] = {}  # argument rank -> node index

    def arg(rank: int, owner: str) -> int:
        i = arg_node.get(rank)
        if i is None:
            name = arg_names[rank]
            i = add(
                f"arg:{name.lower()}",
                "argument",
                name,
                owner,
                [],
                {"arg_kind": "proper", "key": name.lower()},
                -1,
                int(rng.integers(n_topics)),
            )
            arg_node[rank] = i
        return i

    topics = [add(f"topic:{t}", "topic", f"Topic {t}", "", [], {"size": 0}, -1, t) for t in range(n_topics)]
    events_so_far: list[int] = []
    sent_so_far: list[int] = []
    sessions: list[dict] = []
    turn_nodes_all: list[int] = []
    date0 = np.datetime64("2022-01-01T10:00")
    for s in range(1, n_sessions + 1):
        conv = (s - 1) // 20
        a, b = (people[int(x)] for x in np.random.default_rng(conv).choice(len(people), 2, replace=False))
        sid = f"S{s}"
        date = str(date0 + np.timedelta64(2 * s, "D"))[:16] + ":00"
        n_turns = int(np.clip(rng.poisson(22), 6, 40))
        topic = int(rng.integers(n_topics))
        sess = add(
            f"session:{sid}",
            "session",
            f"Session on {date[:10]} between {a} and {b}",
            sid,
            [],
            {"date": date, "participants": [a, b]},
            -1,
            topic,
        )
        sessions.append({"id": sid, "date": date, "seq": s, "participants": [a, b], "n_turns": n_turns})
        time_arg = add(
            f"arg:{date[:10]}:{s}", "argument", date[:10], sid, [], {"arg_kind": "date", "key": date[:10]}, -1, topic
        )
        p_a, p_b = (arg(people.index(x) % n_args, sid) for x in (a, b))
        # events: contiguous runs of 2-6 turns
        sizes, left = [], n_turns
        while left > 0:
            k = min(left, int(rng.integers(2, 7)))
            sizes.append(k)
            left -= k
        t_index = 0
        prev_turn = -1
        session_turns: list[int] = []
        prev_event = -1
        for e_no, size in enumerate(sizes, start=1):
            e_topic = topic if rng.random() < 0.7 else int(rng.integers(n_topics))
            ev = add(
                f"event:{sid}:{e_no}", "event", "", sid, [], {"time": date[:10], "participants": [a, b]}, -1, e_topic
            )
            edge(topics[e_topic], ev, "member", "topic", "", 1.0)
            ranks = np.searchsorted(cdf, rng.random(1 + rng.poisson(5.5)))
            ev_turn_text = []
            for _ in range(size):
                t_index += 1
                tid = f"D{s}:{t_index}"
                speaker = a if t_index % 2 else b
                n_sent = min(8, 1 + int(rng.poisson(2.4)))
                sents = []
                for _j in range(n_sent):
                    words = list(rng.choice(_COMMON, int(rng.integers(6, 15)), p=word_pop))
                    if rng.random() < 0.5:
                        words.insert(
                            int(rng.integers(len(words))), arg_names[int(ranks[int(rng.integers(len(ranks)))])]
                        )
                    sents.append(" ".join(words).capitalize() + ".")
                text = f"{speaker}: " + " ".join(sents)
                turn = add(
                    f"turn:{tid}",
                    "turn",
                    text,
                    sid,
                    [tid],
                    {"turn_id": tid, "index": t_index - 1, "speaker": speaker, "timestamp": date, "dates": []},
                    ev,
                    e_topic,
                )
                session_turns.append(turn)
                turn_nodes_all.append(turn)
                ev_turn_text.append(text)
                edge(sess, turn, "contains", "", sid)
                edge(ev, turn, "evidence", "", sid, 1.0, [tid])
                if prev_turn >= 0:
                    edge(prev_turn, turn, "next", "", sid)
                prev_turn = turn
                for j, st in enumerate(sents, start=1):
                    sn = add(
                        f"sentence:{tid}:{j}",
                        "sentence",
                        f"{speaker}: {st}",
                        sid,
                        [tid],
                        {"turn_id": tid, "index": j},
                        turn,
                        e_topic,
                    )
                    edge(turn, sn, "contains", "", sid)
                    sent_so_far.append(sn)
                    # kNN: two near neighbours (same stretch of conversation), one anywhere
                    for _ in range(2):
                        if len(sent_so_far) > 1:
                            other = sent_so_far[max(0, len(sent_so_far) - 1 - int(rng.integers(1, 200)))]
                            if other != sn:
                                edge(sn, other, "similar", "sentence", sid, float(0.6 + 0.4 * rng.random()))
                    if len(sent_so_far) > 10:
                        other = sent_so_far[int(rng.integers(len(sent_so_far) - 1))]
                        edge(sn, other, "similar", "sentence", sid, float(0.5 + 0.3 * rng.random()))
            texts[ev] = "\n".join(ev_turn_text)
            turn_ids[ev] = [attrs[t]["turn_id"] for t in session_turns[-size:]]
            edge(ev, p_a, "role", "participant", sid)
            edge(ev, p_b, "role", "participant", sid)
            edge(ev, time_arg, "role", "time", sid)
            for r in set(int(x) for x in ranks):
                edge(ev, arg(r, sid), "role", "entity", sid)
            if prev_event >= 0:
                edge(prev_event, ev, "relation", "follow_up", sid, 1.0)
            for other in (
                events_so_far[int(i)] for i in rng.integers(0, max(1, len(events_so_far)), 2) if events_so_far
            ):
                edge(ev, other, "similar", "event", sid, float(0.6 + 0.3 * rng.random()))
            prev_event = ev
            events_so_far.append(ev)
        turn_ids[sess] = [attrs[t]["turn_id"] for t in session_turns]
        if len(ids) >= n_nodes:
            break
    for r in rng.choice(list(arg_node), max(1, len(arg_node) // 100)):  # a few synonym pairs
        other = rng.choice(list(arg_node))
        if other != r:
            edge(arg_node[int(r)], arg_node[int(other)], "synonym", "", owners[arg_node[int(r)]], 0.92)

    # Vectors: topic centroids; events around their topic, turns around their event, sentences
    # around their turn; sessions, arguments: their topic plus more noise. Random, unit length.
    n = len(ids)
    vec = np.empty((n, dim), dtype=np.float32)
    centroids = _unit(rng.standard_normal((n_topics, dim), dtype=np.float32))
    par = np.asarray(parent)
    top = np.asarray(topic_of)
    roots = np.flatnonzero(par < 0)
    sigma = 1.0 / math.sqrt(dim)  # noise of about unit norm: cosine ~0.7 to the parent
    vec[roots] = _unit(centroids[top[roots]] + sigma * rng.standard_normal((len(roots), dim), dtype=np.float32))
    kind_arr = np.asarray(kinds)
    for kind in ("turn", "sentence"):  # turns around their event, sentences around their turn
        idx = np.flatnonzero(kind_arr == kind)
        vec[idx] = _unit(vec[par[idx]] + sigma * rng.standard_normal((len(idx), dim), dtype=np.float32))
    topic_idx = np.flatnonzero(kind_arr == "topic")
    vec[topic_idx] = centroids[top[topic_idx]]

    # Questions: from random turns — a speaker, a few of its words, a mention, a noisy vector.
    questions = []
    for t in rng.choice(turn_nodes_all, min(n_questions, len(turn_nodes_all)), replace=False):
        words = [w.strip(".") for w in texts[t].split(": ", 1)[1].split() if w.lower() not in ("the", "a", "and", "to")]
        picked = " ".join(words[int(i)] for i in sorted(rng.choice(len(words), min(4, len(words)), replace=False)))
        q = f"When did {attrs[t]['speaker']} talk about {picked}?"
        qv = _unit((vec[t] + sigma * rng.standard_normal(dim, dtype=np.float32))[None, :])[0]
        questions.append((q, qv))

    node_rows = [
        (ids[i], kinds[i], texts[i], owners[i], json.dumps(turn_ids[i]), json.dumps(attrs[i]), 1) for i in range(n)
    ]
    edge_rows = [(s, d, k, lab, o, w, json.dumps(list(t)), "{}") for s, d, k, lab, o, w, t in edges]
    arg_index = {texts[i]: int(i) for i in np.flatnonzero(kind_arr == "argument")}
    return SyntheticGraph(node_rows, edge_rows, sessions, vec, questions, arg_index)


# --------------------------------------------------------------------------- in-memory store


class SyntheticEmbedder:
    """``embed_one`` / ``embed`` by lookup: a question's planned vector, an argument's own vector
    for its name, else a random unit vector seeded by the text."""

    name = "synthetic"

    def __init__(self, dim: int, known: dict[str, np.ndarray], vectors: np.ndarray, arg_index: dict[str, int]):
        self.dim = dim
        self.known = known
        self.vectors = vectors
        self.arg_index = {k.lower(): v for k, v in arg_index.items()}

    def embed_one(self, text: str) -> np.ndarray:
        v = self.known.get(text)
        if v is not None:
            return v
        i = self.arg_index.get(text.strip().lower())
        if i is not None:
            return self.vectors[i]
        seed = int.from_bytes(text.encode("utf-8", "surrogatepass")[:64].ljust(8, b"\0")[:8], "little") ^ len(text)
        r = np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32)
        return r / np.linalg.norm(r)

    def embed(self, texts: list[str]) -> np.ndarray:
        return np.stack([self.embed_one(t) for t in texts]) if texts else np.zeros((0, self.dim), np.float32)


class SyntheticStore:
    """What the benchmarked retrievers read from a ``MemoryStore`` (``StoreReader``), in memory:
    no SQLite, no Chroma."""

    namespace = "scale"

    def __init__(self, snapshot: GraphSnapshot, embedder: SyntheticEmbedder) -> None:
        self._snap = snapshot
        self.embedder = embedder

    def snapshot(self) -> GraphSnapshot:
        return self._snap

    def search(self, vector: np.ndarray, k: int, kinds: list[str] | None = None) -> list[tuple[str, float]]:
        """Exact cosine top-k (the benchmarked retrievers do not call it; ties by id)."""
        snap = self._snap
        idx = range(len(snap.ids)) if kinds is None else [int(i) for kind in kinds for i in snap.indices_of(kind)]
        scores = snap.vectors() @ vector
        best = sorted(idx, key=lambda i: (-float(scores[i]), snap.ids[i]))[: max(k, 0)]
        return [(snap.ids[i], float(scores[i])) for i in best]
