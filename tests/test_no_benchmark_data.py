"""No benchmark data in the library: prompts share no text with the LoCoMo files.

Rules, checked against every ``*.txt`` prompt of ``prompts/`` (the library)
and ``memgraph_agents/bench/prompts/`` (the benchmark's own):

1. No 4-gram in common with the LoCoMo conversations, questions and answers. Text is lower-
   cased and split into word tokens (``[a-z0-9]+``, with an apostrophe suffix such as
   ``don't``). A 4-gram made only of stopwords ("i don't know the", "and it was a") is
   ubiquitous English, not LoCoMo's, so only 4-grams holding at least one non-stopword count
   (stopwords: scikit-learn's English list, plus contractions and the commonest verbs and
   adverbs: ``COMMON``).
2. No LoCoMo speaker name as a word (a first name is one token: rule 1 cannot see it).
3. No LoCoMo answer of two or more tokens with a non-stopword (a date, a title) as a token
   sequence: a gold answer is shorter than four words more often than not.

Rule 2 also holds for every file the package ships (code, docstrings, demo data), since
examples in docstrings get copied into prompts.

The data is CC BY-NC, so all three rules also hold for every tracked text file of the
repository (tests, README, docs, examples, the package): tests and docs use invented names,
sentences and dates. Two explicit allow-lists keep what is not LoCoMo's:

* ``GENERIC_GRAMS``: everyday English 4-grams that happen to occur in the conversations too
  (time expressions the parser must read, stock phrases of chat); each with its reason.
* ``generic_answer``: answers that are calendar or duration phrases (a month or season and a
  year, "two weeks") or the scorer's own wording ("not mentioned"), which any text about
  dates has; a day-precise date ("<day> <month> <year>") is never allowed.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from tests.paths import LOCOMO_DEV

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "memgraph_agents"
PROMPT_DIRS = [REPO / "prompts", PACKAGE / "bench" / "prompts"]
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
TEXT_SUFFIXES = {"", ".py", ".md", ".txt", ".json", ".toml", ".html", ".js", ".css", ".patch", ".yml", ".yaml", ".cfg"}
# Everyday English that also occurs in the conversations (checked against the file, never
# copied from it). Each entry: the 4-gram and why it is generic.
GENERIC_GRAMS = {
    "a few days ago": "a relative time expression the time parser must read (timeparse)",
    "a few years back": "a relative time expression the time parser must read (timeparse)",
    "the day after tomorrow": "a relative time expression the time parser must read (timeparse)",
    "at the end of": "a stock phrase (BENCHMARKS: load average at the end of a run)",
    "the end of the": "a stock phrase (BENCHMARKS)",
    "i went to a": "the commonest way to open a chat story (tests)",
    "i went to the": "the commonest way to open a chat story (tests)",
    "we went to the": "the commonest way to open a chat story (tests)",
    "yesterday i went to": "the commonest way to open a dated chat story (tests, a patch)",
    "i signed up for": "demo conversation (invented) and its tests: a stock phrase",
    "i started a new": "a stock phrase of the invented test conversation",
    "is a great time": "a reaction to a race time in the invented test conversation",
    "a great time are": "the same reaction, quoted in a docstring",
    "it was worth it": "a stock phrase (tests/workloads.py)",
    "by the way my": "a stock phrase (tests/workloads.py)",
    "on a different note": "a stock topic-change phrase (tests/fakes_memorai.py)",
    "tell me all about": "a stock phrase (tests)",
    "to the old one": "plain English in a docstring and a comment about merged events",
    "has seen the most": "plain English in a docstring about topic rows",
    "in the u s": "'the U.S.', an abbreviation the sentence splitter must handle",
    "start his new job": "the invented demo conversation's question (README, demo data)",
    "three times a week": "a frequency phrase of the invented demo conversation",
    "was so much fun": "a stock phrase of the invented demo conversation",
    "when do you start": "a stock question of the invented demo conversation",
    "x 0 y 0": "code: coordinates in the trace viewer's JavaScript",
}
ALLOWED_GRAMS = frozenset(tuple(g.split()) for g in GENERIC_GRAMS)
MONTHS = "january february march april may june july august september october november december"
CALENDAR = frozenset(MONTHS.split()) | {"spring", "summer", "autumn", "fall", "winter"}
NUMBER_WORDS = frozenset("a an one two three four five six seven eight nine ten twelve few couple".split())
UNITS = frozenset("day days week weeks month months year years".split())
ANSWER_WORDS = {"not mentioned": "the adversarial scorer's own wording (bench/metrics.py)"}

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
    return {"grams": four, "names": names, "answers": {a for a in answers if not generic_answer(a)}}


def generic_answer(answer: tuple[str, ...]) -> bool:
    """A month or season and a year ("<month> <year>"), a duration ("two weeks", "about four
    months", "three times a week"), or the scorer's own wording: calendar English, not LoCoMo's.
    A day-precise date has three tokens and is never generic."""
    if len(answer) == 2 and answer[0] in CALENDAR and re.fullmatch(r"\d{4}", answer[1]):
        return True
    core = answer[1:] if answer[0] == "about" else answer
    if len(core) == 2 and core[0] in NUMBER_WORDS and core[1] in UNITS:
        return True
    if core in {("three", "times", "a", "week"), ("getting", "married")}:
        return True
    return " ".join(answer) in ANSWER_WORDS


def tracked_files() -> list[Path]:
    """Every tracked text file of the repository (``git ls-files``; outside a checkout: the
    package, tests, docs, examples and top-level Markdown)."""
    try:
        out = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout
        paths = [REPO / line for line in out.splitlines() if line]
    except (OSError, subprocess.CalledProcessError):
        paths = [
            p
            for d in ("memgraph_agents", "graphs", "integrations", "prompts", "tests", "docs", "examples")
            for p in (REPO / d).rglob("*")
        ]
        paths += sorted(REPO.glob("*.md"))
    files = [p for p in paths if p.is_file() and p.suffix in TEXT_SUFFIXES and "__pycache__" not in p.parts]
    assert any(p.name == "README.md" for p in files) and any(p.parent.name == "tests" for p in files)
    return sorted(files)


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace")


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
    samples = json.loads(LOCOMO_DEV.read_text(encoding="utf-8"))  # the check reads the real file
    speakers = {s["conversation"][k].lower() for s in samples for k in ("speaker_a", "speaker_b")}
    assert locomo["names"] == speakers and len(speakers) >= 2
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
    turn = json.loads(LOCOMO_DEV.read_text(encoding="utf-8"))[0]["conversation"]["session_1"][0]["text"]
    assert {g for g in grams(words(turn)) & locomo["grams"] if content(g)} - ALLOWED_GRAMS  # the repo rule bites


@pytest.mark.slow
def test_repository_shares_no_four_words_with_locomo(locomo):
    found = {}
    for path in tracked_files():
        shared = grams(words(_read(path))) & locomo["grams"]
        hits = sorted(" ".join(g) for g in shared - ALLOWED_GRAMS if content(g))
        if hits:
            found[str(path.relative_to(REPO))] = hits[:8]
    assert not found, f"text taken from LoCoMo (invent other wording, or allow-list generic English): {found}"


@pytest.mark.slow
def test_repository_holds_no_locomo_name_or_answer(locomo):
    lengths = {len(a) for a in locomo["answers"]}
    found = {}
    for path in tracked_files():
        toks = words(_read(path))
        hits = sorted(set(toks) & locomo["names"])
        seqs = set().union(*(grams(toks, n) for n in lengths))
        hits += sorted(" ".join(a) for a in locomo["answers"] & seqs)
        if hits:
            found[str(path.relative_to(REPO))] = hits[:8]
    assert not found, f"LoCoMo speaker names or answers in the repository: {found}"


def test_allow_lists_are_small_and_generic(locomo):
    """Each allowed 4-gram is one the data has (else it is stale) and has a reason."""
    assert len(GENERIC_GRAMS) <= 30 and all(len(g) == 4 and GENERIC_GRAMS[" ".join(g)] for g in ALLOWED_GRAMS)
    assert ALLOWED_GRAMS <= locomo["grams"]
    samples = json.loads(LOCOMO_DEV.read_text(encoding="utf-8"))
    day_dates = {a for s in samples for q in s["qa"] if len(a := tuple(words(str(q.get("answer", ""))))) == 3}
    assert not any(generic_answer(a) for a in day_dates if a[1] in CALENDAR)  # "<day> <month> <year>" stays
