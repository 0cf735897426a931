"""``dense`` against a plain Chroma collection over the same turns, in one run (BENCHMARKS.md).

    python docs/bench-locomo/dense_vs_chroma.py --data-dir MEM --data locomo_dev.json [--fp32]

``MEM`` is a memory of the file's conversations (``memgraph bench locomo`` builds one, a namespace
per conversation). For every answerable question (categories 1-4) this ranks the conversation's
turns four ways and prints turn recall@10, over all conversations and over the ones the default
ranking was not tuned on:

* ``dense``: the retriever, as ``Memory.search(retriever="dense", min_score=0)`` runs it;
* a plain Chroma collection (in memory, cosine space) per conversation and per turn form,
  queried with the question's vector: ``said`` (``Speaker said, "text"``), ``colon``
  (``Speaker: text``), ``text`` (the text alone) and ``stored`` (the node text the memory keeps:
  ``Speaker: text`` with dates resolved and image captions), each embedded with the int8 ONNX
  model (the default) and, with ``--fp32`` (the [torch] extra), the fp32 sentence-transformers
  model too (``said`` and ``stored`` only).
"""

from __future__ import annotations

import argparse
from collections import defaultdict

import chromadb
import numpy as np

from memgraph_agents import Memory
from memgraph_agents.api import ops
from memgraph_agents.bench.metrics import turn_recall_at_k
from memgraph_agents.embeddings import make_embedding_model
from memgraph_agents.loaders.locomo import load_locomo
from memgraph_agents.model.evidence import flatten_turns

TUNED = {"conv-26", "conv-30", "conv-41"}
FP32_FORMS = ("said", "stored")  # the fp32 model is slow on CPU: the two forms that decide
FORMS = {
    "said": lambda t, stored: f'{t.speaker} said, "{t.text.strip()}"',
    "colon": lambda t, stored: f"{t.speaker}: {t.text.strip()}",
    "text": lambda t, stored: t.text.strip(),
    "stored": lambda t, stored: stored,
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--fp32", action="store_true", help="also the fp32 model (the [torch] extra)")
    args = ap.parse_args()
    mem = Memory(args.data_dir, llm="none")
    models = {"int8": make_embedding_model("minilm")}
    if args.fp32:
        models["fp32"] = make_embedding_model("minilm-torch")
    client = chromadb.EphemeralClient()
    recall: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for sample in load_locomo(args.data):
        sid = sample.sample_id
        snap = ops.open_store(mem.settings, sid).snapshot()
        turns = [t for s in sample.conversation.sessions for t in s.turns]
        stored = {t.id: snap.text[snap.index[f"turn:{t.id}"]] for t in turns if f"turn:{t.id}" in snap.index}
        turns = [t for t in turns if t.id in stored]
        qs = [q for q in sample.questions if q.category in (1, 2, 3, 4) and q.evidence]
        group = "tuned" if sid in TUNED else "held-out"
        for q in qs:
            found = mem.search(q.question, namespace=sid, retriever="dense", k=args.k, min_score=0)
            recall["dense"][group].append(turn_recall_at_k(flatten_turns(found), q.evidence, args.k))
        for mname, model in models.items():
            qv = np.asarray(model.embed_queries([q.question for q in qs]), dtype=np.float32)
            for form, write in FORMS.items():
                if mname == "fp32" and form not in FP32_FORMS:
                    continue
                col = client.create_collection(f"{sid}-{mname}-{form}", metadata={"hnsw:space": "cosine"})
                docs = [write(t, stored[t.id]) for t in turns]
                vecs = np.asarray(model.embed(docs), dtype=np.float32)
                col.add(ids=[t.id for t in turns], embeddings=vecs, documents=docs)
                hits = col.query(query_embeddings=qv, n_results=args.k)["ids"]
                for q, ranked in zip(qs, hits):
                    recall[f"chroma {form} {mname}"][group].append(turn_recall_at_k(ranked, q.evidence, args.k))
                client.delete_collection(col.name)
        print(f"{sid}: done", flush=True)
    print(f"turn recall@{args.k}, answerable questions (categories 1-4)")
    print("| ranking | all | held-out | tuned |")
    print("|---|--:|--:|--:|")
    for name, by in recall.items():
        everything = by["held-out"] + by["tuned"]
        print(f"| {name} | {np.mean(everything):.3f} | {np.mean(by['held-out']):.3f} | {np.mean(by['tuned']):.3f} |")


if __name__ == "__main__":
    main()
