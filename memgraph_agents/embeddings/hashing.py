"""A small deterministic embedding for fast logic tests (not for real use).

Bag of lower-cased word unigrams and character trigrams hashed into ``dim`` buckets with
signs, L2-normalised: texts sharing words get high cosine, so graph logic behaves sensibly.
"""

from __future__ import annotations

import hashlib
import re

import numpy as np
from langchain_core.embeddings import Embeddings

_WORD = re.compile(r"[a-z0-9]+")


def _bucket(token: str, dim: int) -> tuple[int, float]:
    h = int.from_bytes(hashlib.blake2b(token.encode(), digest_size=8).digest(), "little")
    return h % dim, (1.0 if (h >> 40) & 1 else -1.0)


class HashEmbeddings(Embeddings):
    def __init__(self, dim: int = 64) -> None:
        self.dim = dim
        self.model_name = f"hash-{dim}"

    def _one(self, text: str) -> list[float]:
        v = np.zeros(self.dim, dtype=np.float32)
        words = _WORD.findall(text.lower())
        for w in words:
            i, s = _bucket("w:" + w, self.dim)
            v[i] += 2.0 * s
            padded = f"#{w}#"
            for j in range(len(padded) - 2):
                i, s = _bucket("c:" + padded[j : j + 3], self.dim)
                v[i] += 0.5 * s
        n = float(np.linalg.norm(v))
        if n == 0.0:
            v[0] = 1.0
            n = 1.0
        return (v / n).tolist()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._one(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._one(text)
