"""onnxruntime threading for the int8 MiniLM: CPU and wall seconds for 640 chat texts in
length-sorted batches of 16, one session per setting.

    python docs/bench-light/threads.py

Settings: one intra-op thread; two intra-op threads; two with spinning off; one intra-op
thread and the batches spread over two Python threads (what ``OnnxMiniLM`` does in bulk).
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import onnxruntime as ort

from memgraph_agents.bench.chat import synthetic_thread
from memgraph_agents.embeddings import onnx_minilm


def session(threads: int, spin: bool = True):
    options = ort.SessionOptions()
    options.intra_op_num_threads, options.inter_op_num_threads = threads, 1
    if not spin:
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(onnx_minilm._weights(), options, providers=["CPUExecutionProvider"])


def main() -> None:
    tok = onnx_minilm._tokenizer()
    texts = sorted((t.text for t in synthetic_thread(640).sessions[0].turns), key=len)
    batches = [texts[i : i + 16] for i in range(0, len(texts), 16)]
    pool = ThreadPoolExecutor(2)

    def run(s, batch):
        enc = tok.encode_batch(batch)
        ids = [e.ids for e in enc]
        mask = [e.attention_mask for e in enc]
        a, m = np.asarray(ids, dtype=np.int64), np.asarray(mask, dtype=np.int64)
        return s.run(None, {"input_ids": a, "attention_mask": m, "token_type_ids": np.zeros_like(a)})

    one, two, two_nospin = session(1), session(2), session(2, spin=False)
    ways = {
        "1 intra-op thread": lambda: [run(one, b) for b in batches],
        "2 intra-op threads": lambda: [run(two, b) for b in batches],
        "2 intra-op threads, no spinning": lambda: [run(two_nospin, b) for b in batches],
        "1 intra-op thread, 2 Python threads": lambda: list(pool.map(lambda b: run(one, b), batches)),
    }
    for rep in range(2):
        for name, f in ways.items():
            c0, t0 = time.process_time(), time.perf_counter()
            f()
            print(f"{name}: {time.process_time() - c0:.2f} CPU-s, {time.perf_counter() - t0:.2f} s wall")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
