"""BM25 over a list of texts (Robertson & Zaragoza 2009), on the ``bm25s`` package.

Tokens: lowercase words of two or more characters (bm25s' default pattern), English
stopwords removed (bm25s' ``"en"`` list, the Lucene one), Porter-stemmed by our own stemmer
(``porter.stem_words``; no PyStemmer needed) so "painting" matches "paints". Scoring is
bm25s' Lucene variant with k1 = 1.5, b = 0.75.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import bm25s
import numpy as np

from memgraph_agents.model.ranking import top_k
from memgraph_agents.retrieval.algorithms.porter import stem_words

__all__ = ["BM25Index", "tokenize"]


def tokenize(texts: Sequence[str], *, stopwords: str | Iterable[str] = "en", stem: bool = True) -> list[list[str]]:
    """The token lists ``BM25Index`` indexes and queries with."""
    if not texts:
        return []
    stop = stopwords if isinstance(stopwords, str) else list(stopwords)
    return bm25s.tokenize(
        list(texts),
        stopwords=stop,
        stemmer=stem_words if stem else None,
        return_ids=False,
        show_progress=False,
    )


class BM25Index:
    """``BM25Index(texts).search(query, k)`` → ``[(text index, score)]``, best first.

    Only texts sharing at least one query term are returned (score > 0), so a query of
    stopwords only, or of words absent from the corpus, returns ``[]``; so does an empty
    corpus. ``k`` larger than the corpus is fine. Ties go to the lower ``tiebreak`` key
    (default: the index; callers pass node-id ranks).
    """

    def __init__(
        self,
        texts: Sequence[str],
        *,
        stopwords: str | Iterable[str] = "en",
        stem: bool = True,
        k1: float = 1.5,
        b: float = 0.75,
    ) -> None:
        self.size = len(texts)
        self._stopwords = stopwords if isinstance(stopwords, str) else list(stopwords)
        self._stem = stem
        tokens = tokenize(texts, stopwords=self._stopwords, stem=stem)
        self._bm25: bm25s.BM25 | None = None
        # bm25s cannot index a corpus without a single token.
        if any(tokens):
            self._bm25 = bm25s.BM25(k1=k1, b=b)
            self._bm25.index(tokens, show_progress=False)

    def __len__(self) -> int:
        return self.size

    def knows(self, word: str) -> bool:
        """Whether some text holds ``word`` (tokenized as the texts are; a stopword is known)."""
        terms = [t for t in tokenize([word], stopwords=self._stopwords, stem=self._stem)[0] if t]
        vocab = self._bm25.vocab_dict if self._bm25 is not None else {}
        return all(t in vocab for t in terms)

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every text for ``query`` (zeros when nothing matches)."""
        if self._bm25 is None:
            return np.zeros(self.size)
        terms = tokenize([query], stopwords=self._stopwords, stem=self._stem)[0]
        ids = self._bm25.get_tokens_ids([t for t in terms if t])
        if not ids:
            return np.zeros(self.size)
        return np.asarray(self._bm25.get_scores_from_ids(ids), dtype=np.float64)

    def search(self, query: str, k: int = 10, tiebreak: np.ndarray | None = None) -> list[tuple[int, float]]:
        if k <= 0:
            return []
        s = self.scores(query)
        order = top_k(s, k, tiebreak=tiebreak, mask=s > 0)
        return [(int(i), float(s[i])) for i in order]
