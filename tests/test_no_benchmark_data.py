"""No benchmark data in the library: prompts share no text with the LoCoMo files.

Rules, checked against every ``*.txt`` prompt of ``memgraph_agents/prompts/`` (the library)
and ``memgraph_agents/bench/prompts/`` (the benchmark's own):

1. No 4-gram in common with the LoCoMo conversations, questions and answers. Text is lower-
   cased and split into word tokens (``[a-z0-9]+``, with an apostrophe suffix such as
   ``don't``). A 4-gram made only of stopwords ("i don't know the", "and it was a") is
   ubiquitous English, not LoCoMo's, so only 4-grams holding at least one non-stopword count
   (stopwords: scikit-learn's English list, plus contractions and the commonest verbs and
   adverbs: ``COMMON``).
2. No LoCoMo speaker name as a word (``Caroline`` is one token: rule 1 cannot see it).
3. No LoCoMo answer of two or more tokens with a non-stopword ("7 May 2023") as a token
   sequence: a gold answer is shorter than four words more often than not.

Rule 2 also holds for every file the package ships (code, docstrings, demo data), since
examples in docstrings get copied into prompts.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from tests.paths import LOCOMO_DEV

PACKAGE = Path(__file__).resolve().parents[1] / "memgraph_agents"
PROMPT_DIRS = [PACKAGE / "prompts", PACKAGE / "bench" / "prompts"]
COMMON = {
    "know",
    "think",
    "get",
    "got",
    "go",
    "going",
    "make",
    "made",
    "like",
    "want",
    "say",
    "said",
    "see",
    "take",
    "come",
    "look",
    "need",
    "feel",
    "really",
    "just",
    "also",
    "one",
    "much",
    "many",
    "well",
    "good",
    "time",
}
STOPWORDS = frozenset(ENGLISH_STOP_WORDS) | COMMON
TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")

pytestmark = pytest.mark.skipif(
    not LOCOMO_DEV.exists(), reason=f"LoCoMo data not found at {LOCOMO_DEV} (shared data, never committed)"
)


def words(text: str) -> list[str]:
    return TOKEN.findall(text.lower())


def grams(tokens: list[str], n: int = 4) -> set[tuple[str, ...]]:
    return {tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)}


def content(gram: tuple[str, ...]) -> bool:
    """Whether ``gram`` holds a word that is not a stopword (a contraction counts as one)."""
    return any(t not in STOPWORDS and "'" not in t for t in gram)


def _strings(x, out: list[str]) -> None:
    if isinstance(x, str):
        out.append(x)
    elif isinstance(x, dict):
        for v in x.values():
            _strings(v, out)
    elif isinstance(x, list):
        for v in x:
            _strings(v, out)


@pytest.fixture(scope="module")
def locomo() -> dict:
    samples = json.loads(LOCOMO_DEV.read_text(encoding="utf-8"))
    texts: list[str] = []
    names: set[str] = set()
    answers: set[tuple[str, ...]] = set()
    for s in samples:
        _strings(s["conversation"], texts)
        _strings(s["qa"], texts)
        names |= {s["conversation"]["speaker_a"].lower(), s["conversation"]["speaker_b"].lower()}
        for q in s["qa"]:
            a = tuple(words(str(q.get("answer", q.get("adversarial_answer", "")))))
            if len(a) >= 2 and content(a):
                answers.add(a)
    four = set().union(*(grams(words(t)) for t in texts))
    return {"grams": four, "names": names, "answers": answers}


def prompt_files() -> list[Path]:
    files = sorted(p for d in PROMPT_DIRS for p in d.glob("*.txt"))
    assert len(files) >= 18 and any(p.parent.name == "prompts" and p.parent.parent.name == "bench" for p in files)
    return files


def test_prompts_share_no_four_words_with_locomo(locomo):
    found = {}
    for path in prompt_files():
        shared = sorted(g for g in grams(words(path.read_text(encoding="utf-8"))) & locomo["grams"] if content(g))
        if shared:
            found[str(path.relative_to(PACKAGE))] = [" ".join(g) for g in shared[:5]]
    assert not found, f"prompt text taken from LoCoMo: {found}"


def test_prompts_hold_no_locomo_answer(locomo):
    found = {}
    for path in prompt_files():
        toks = words(path.read_text(encoding="utf-8"))
        seqs = set().union(*(grams(toks, n) for n in {len(a) for a in locomo["answers"]}))
        hits = sorted(" ".join(a) for a in locomo["answers"] & seqs)
        if hits:
            found[str(path.relative_to(PACKAGE))] = hits[:5]
    assert not found, f"LoCoMo answers in prompts: {found}"


def test_no_locomo_speaker_name_anywhere_in_the_package(locomo):
    assert {"caroline", "melanie"} <= locomo["names"]  # the check reads the real file
    found = {}
    for path in sorted(PACKAGE.rglob("*")):
        if path.suffix not in {".txt", ".py", ".json", ".md", ".html", ".js"} or "__pycache__" in path.parts:
            continue
        hits = sorted(set(words(path.read_text(encoding="utf-8", errors="replace"))) & locomo["names"])
        if hits:
            found[str(path.relative_to(PACKAGE))] = hits
    assert not found, f"LoCoMo speaker names in the package: {found}"


def test_the_checks_can_fail(locomo):
    """The rules catch what they are meant to catch (the data is the real LoCoMo file)."""
    q = json.loads(LOCOMO_DEV.read_text(encoding="utf-8"))[0]["qa"][0]
    assert grams(words(q["question"])) & locomo["grams"]
    assert not {g for g in grams(words("i don't know the")) if content(g)}  # stopwords only: ignored
