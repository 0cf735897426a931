"""Porter stemmer, behaving like NLTK's ``PorterStemmer()`` (its default ``NLTK_EXTENSIONS`` mode).

Porter, M. F. (1980). "An algorithm for suffix stripping." *Program* 14(3): 130-137.

Why a copy when NLTK is installed: BM25 stems every query on the default retrieval path, and
``import nltk`` pulls scipy.stats and scikit-learn (3.5 s measured here:
``python -X importtime -c "from nltk.stem.porter import PorterStemmer"``), more than a whole
cold start may cost. The LoCoMo QA metrics (``bench.metrics``) stem with NLTK itself, as the
official scorer does; ``tests/test_algorithms.py`` checks this copy against NLTK word by word
on every word of the repository's text and the sample conversation.

The NLTK extensions over the 1980 paper are reproduced: a small table of irregular forms
(``dying -> die``, ``skies -> sky``), words of one or two letters left alone, ``ies``/``ied`` on
4-letter words (``dies -> die``), ``y -> i`` only after a consonant that is not the first letter
(``enjoy`` stays), the ``alli``, ``fulli`` and ``logi`` rules of step 2, and a two-letter
vowel-consonant word counting as "cvc" in step 5a. Only lower-case ASCII-ish words are
meaningful input; ``stem`` lowercases.

``stem_words`` takes a list (the shape ``bm25s.tokenize(stemmer=...)`` expects) and caches.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

__all__ = ["stem", "stem_words"]

_VOWELS = frozenset("aeiou")

# NLTK's irregular forms: the surface form maps straight to its stem, bypassing the rules.
_IRREGULAR = {
    "skies": "sky",
    "sky": "sky",
    "dying": "die",
    "lying": "lie",
    "tying": "tie",
    "news": "news",
    "innings": "inning",
    "inning": "inning",
    "outings": "outing",
    "outing": "outing",
    "cannings": "canning",
    "canning": "canning",
    "howe": "howe",
    "proceed": "proceed",
    "exceed": "exceed",
    "succeed": "succeed",
}

_Rule = tuple[str, str, Callable[[str], bool] | None]


def _is_consonant(word: str, i: int) -> bool:
    ch = word[i]
    if ch in _VOWELS:
        return False
    if ch == "y":
        # 'y' is a consonant at the start or after a vowel ("yes", "toy"), else a vowel ("by").
        return i == 0 or not _is_consonant(word, i - 1)
    return True


def _measure(stem: str) -> int:
    """m in [C](VC)^m[V]: the number of vowel->consonant transitions."""
    cv = "".join("c" if _is_consonant(stem, i) else "v" for i in range(len(stem)))
    return cv.count("vc")


def _positive(stem: str) -> bool:
    return _measure(stem) > 0


def _contains_vowel(stem: str) -> bool:
    return any(not _is_consonant(stem, i) for i in range(len(stem)))


def _ends_double_consonant(word: str) -> bool:
    return len(word) >= 2 and word[-1] == word[-2] and _is_consonant(word, len(word) - 1)


def _ends_cvc(word: str) -> bool:
    n = len(word)
    if n >= 3:
        return (
            _is_consonant(word, n - 3)
            and not _is_consonant(word, n - 2)
            and _is_consonant(word, n - 1)
            and word[-1] not in "wxy"
        )
    # NLTK extension: "ab"-like two-letter stems count, so "are", "eve", "ice" keep their e.
    return n == 2 and not _is_consonant(word, 0) and _is_consonant(word, 1)


def _apply(word: str, rules: list[_Rule]) -> str:
    """The first rule whose suffix matches decides; a failed condition stops the list."""
    for suffix, repl, cond in rules:
        if suffix == "*d":
            if _ends_double_consonant(word):
                stem = word[:-2]
                return stem + repl if cond is None or cond(stem) else word
            continue
        if word.endswith(suffix):
            stem = word[: len(word) - len(suffix)]
            return stem + repl if cond is None or cond(stem) else word
    return word


def _step1a(word: str) -> str:
    if word.endswith("ies") and len(word) == 4:  # NLTK: "dies" -> "die", "flies" -> "fli"
        return word[:-3] + "ie"
    return _apply(word, [("sses", "ss", None), ("ies", "i", None), ("ss", "ss", None), ("s", "", None)])


def _step1b(word: str) -> str:
    if word.endswith("ied"):  # NLTK: "died" -> "die", "spied" -> "spi"
        return word[:-3] + ("ie" if len(word) == 4 else "i")
    if word.endswith("eed"):
        stem = word[:-3]
        return stem + "ee" if _measure(stem) > 0 else word
    for suffix in ("ed", "ing"):
        if word.endswith(suffix) and _contains_vowel(word[: -len(suffix)]):
            inter = word[: -len(suffix)]
            break
    else:
        return word
    return _apply(
        inter,
        [
            ("at", "ate", None),
            ("bl", "ble", None),
            ("iz", "ize", None),
            ("*d", inter[-1], lambda s: inter[-1] not in "lsz"),
            ("", "e", lambda s: _measure(s) == 1 and _ends_cvc(s)),
        ],
    )


def _step1c(word: str) -> str:
    return _apply(word, [("y", "i", lambda s: len(s) > 1 and _is_consonant(s, len(s) - 1))])


_STEP2 = [
    ("ational", "ate"),
    ("tional", "tion"),
    ("enci", "ence"),
    ("anci", "ance"),
    ("izer", "ize"),
    ("bli", "ble"),
    ("alli", "al"),
    ("entli", "ent"),
    ("eli", "e"),
    ("ousli", "ous"),
    ("ization", "ize"),
    ("ation", "ate"),
    ("ator", "ate"),
    ("alism", "al"),
    ("iveness", "ive"),
    ("fulness", "ful"),
    ("ousness", "ous"),
    ("aliti", "al"),
    ("iviti", "ive"),
    ("biliti", "ble"),
    ("fulli", "ful"),
]


def _step2(word: str) -> str:
    # NLTK applies alli -> al first and re-runs step 2 on the result.
    if word.endswith("alli") and _positive(word[:-4]):
        return _step2(word[:-4] + "al")
    rules: list[_Rule] = [(s, r, _positive) for s, r in _STEP2]
    # 'logi' -> 'log' with the 'l' counted in the stem, so "geology" -> "geolog".
    rules.append(("logi", "log", lambda s: _positive(word[:-3])))
    return _apply(word, rules)


def _step3(word: str) -> str:
    return _apply(
        word,
        [
            ("icate", "ic", _positive),
            ("ative", "", _positive),
            ("alize", "al", _positive),
            ("iciti", "ic", _positive),
            ("ical", "ic", _positive),
            ("ful", "", _positive),
            ("ness", "", _positive),
        ],
    )


def _m_gt1(stem: str) -> bool:
    return _measure(stem) > 1


def _step4(word: str) -> str:
    rules: list[_Rule] = [
        (s, "", _m_gt1) for s in ("al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent")
    ]
    rules.append(("ion", "", lambda s: _measure(s) > 1 and s[-1:] in ("s", "t")))
    rules += [(s, "", _m_gt1) for s in ("ou", "ism", "ate", "iti", "ous", "ive", "ize")]
    return _apply(word, rules)


def _step5a(word: str) -> str:
    if word.endswith("e"):
        stem = word[:-1]
        m = _measure(stem)
        if m > 1 or (m == 1 and not _ends_cvc(stem)):
            return stem
    return word


def _step5b(word: str) -> str:
    return _apply(word, [("ll", "l", lambda s: _measure(word[:-1]) > 1)])


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Stem one word (lowercased first). ``stem("running") == "run"``."""
    w = word.lower()
    if w in _IRREGULAR:
        return _IRREGULAR[w]
    if len(w) <= 2:
        return w
    for step in (_step1a, _step1b, _step1c, _step2, _step3, _step4, _step5a, _step5b):
        w = step(w)
    return w


def stem_words(words: list[str]) -> list[str]:
    """Stem a list of words (the callable signature ``bm25s.tokenize(stemmer=...)`` accepts)."""
    return [stem(w) for w in words]
