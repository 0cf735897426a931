"""One embedding call, int8 ONNX (default) vs the fp32 torch model, interleaved in one process.

    python docs/bench-light/embed_calls.py        # needs the [torch] extra for the baseline

CPU milliseconds per call (median of 50, after a warm-up) for 1 and 3 short chat texts (a
query, a chat turn's texts), and CPU seconds for 640 texts in one call (bulk ingest), plus
each model's load (import + weights) in CPU seconds and the RSS it added. Texts: the invented
thread of ``memgraph bench chat``.
"""

from __future__ import annotations

import os
import statistics
import time

from memgraph_agents.bench.chat import synthetic_thread


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def main() -> None:
    from memgraph_agents.embeddings import make_embedding_model

    texts = [t.text for t in synthetic_thread(640).sessions[0].turns]
    models = {}
    for spec in ("minilm", "minilm-torch"):
        r0, c0 = rss_mb(), time.process_time()
        model = make_embedding_model(spec)
        model.load()
        model.inner.embed_documents(texts[:3])
        print(f"{spec}: load {time.process_time() - c0:.2f} CPU-s, +{rss_mb() - r0:.0f} MB RSS")
        models[spec] = model.inner
    for n in (1, 3):
        cpu: dict[str, list[float]] = {s: [] for s in models}
        for i in range(50):
            for spec, inner in models.items():  # interleaved: both see the same machine
                batch = texts[i * n : i * n + n]
                c0 = time.process_time()
                inner.embed_documents(batch)
                cpu[spec].append(1000 * (time.process_time() - c0))
        print(f"{n} text(s): " + ", ".join(f"{s} {statistics.median(v):.1f} ms" for s, v in cpu.items()))
    for spec, inner in models.items():
        c0 = time.process_time()
        inner.embed_documents(texts)
        print(f"640 texts, {spec}: {time.process_time() - c0:.2f} CPU-s")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
