"""Rule-based sentence splitter for the sentence layer (SGMem), with no NLTK data.

NLTK's punkt model cannot be downloaded here, and chat turns are short and informal, so a
handful of rules does the job:

* a newline always ends a sentence;
* a run of ``.``, ``!``, ``?`` or ``…`` (plus closing quotes/brackets and trailing emoticons or
  emoji, which stay with the sentence they close) ends a sentence when it is followed by
  whitespace and then an upper-case letter, an opening quote or bracket, or a digit, or when
  the text ends;
* no split after a title or Latin abbreviation (Mr., Dr., St., vs., e.g., i.e.) or a single
  initial ("R. L. Okafor"); after etc., a.m., p.m., U.S. only when the next word is a common
  sentence opener ("It", "I", "The"...), because those often do end sentences;
* decimals, URLs and e-mail addresses need no rule: their dots are not followed by space;
* pieces with fewer than 2 word characters (":)", "A.") join the previous sentence (or the
  next one when they come first).
"""

from __future__ import annotations

import re

# Abbreviations that never end a sentence (lower-cased, without the final dot).
_NEVER_END = {
    "mr",
    "mrs",
    "ms",
    "dr",
    "prof",
    "st",
    "sr",
    "jr",
    "mt",
    "vs",
    "e.g",
    "i.e",
    "eg",
    "ie",
    "cf",
    "approx",
    "no",
    "fig",
    "gen",
    "col",
    "lt",
    "sgt",
    "capt",
    "rev",
    "hon",
    "ave",
}
# Abbreviations that end a sentence only before an obvious sentence opener.
_MAYBE_END = {"etc", "a.m", "p.m", "am", "pm", "u.s", "u.k", "inc", "ltd", "co", "corp"}
_OPENERS = {
    "i",
    "it",
    "its",
    "we",
    "they",
    "he",
    "she",
    "you",
    "the",
    "this",
    "that",
    "these",
    "those",
    "my",
    "our",
    "but",
    "and",
    "so",
    "then",
    "also",
    "anyway",
    "there",
    "what",
    "how",
    "why",
    "hey",
    "thanks",
    "wow",
    "oh",
    "yes",
    "no",
}

_EMOTICON = r"(?:[:;=8][\-o\^']?[()\[\]DPpOo3/\\|*]+|<3+|\^\^|\^_\^|[xX]D)"
# Pictographs, dingbats, flags, variation selectors, ZWJ: emoji runs.
_EMOJI = r"[\u2600-\u27BF\U0001F000-\U0001FAFF\u2B00-\u2BFF\uFE0F\u200D]+"
_CLOSERS = "\"'”’)]}»"

_BOUNDARY_RE = re.compile(
    r"(?:[.!?]+|…)"  # terminal punctuation run (also covers "..." and "?!")
    rf"[{re.escape(_CLOSERS)}]*"  # closing quotes / brackets
    rf"(?:[ \t]*{_EMOJI}|[ \t]+{_EMOTICON}(?=\s|$))*"  # emoji / emoticons that close the sentence
    r"(?=\s+[A-Z\"“‘'(\[0-9]|\s*$)"  # then a capital, an opening quote/bracket, a digit, or the end
)
_WORD_BEFORE_RE = re.compile(r"([A-Za-z][A-Za-z.]*)\.$")
_WORD_CHAR_RE = re.compile(r"\w", re.UNICODE)


def _is_abbreviation_stop(line: str, cut: int, punct: str) -> bool:
    """True when the boundary candidate ending at ``cut`` is an abbreviation's dot."""
    if not punct.startswith(".") or punct.startswith(".."):
        return False
    # Only a short window before the dot: searching the whole prefix made long turns quadratic.
    end = cut - len(punct) + 1
    m = _WORD_BEFORE_RE.search(line, max(0, end - 64), end)
    if not m:
        return False
    # Only the word immediately before the dot, e.g. "e.g" or "Dr".
    word = m.group(1)
    if m.start() > 0 and not line[m.start() - 1].isspace() and line[m.start() - 1] not in "([\"'“":
        return False
    low = word.lower()
    if low in _NEVER_END:
        return True
    if len(word) == 1 and word.isupper():
        return True  # an initial: "R. L. Okafor"
    if low in _MAYBE_END:
        nxt = re.match(r"\s+([A-Za-z']+)", line[cut:])
        return not (nxt and nxt.group(1).lower() in _OPENERS)
    return False


def _split_line(line: str) -> list[str]:
    out: list[str] = []
    start = 0
    for m in _BOUNDARY_RE.finditer(line):
        cut = m.end()
        punct = re.match(r"[.!?…]+", m.group(0)).group(0)  # type: ignore[union-attr]
        if _is_abbreviation_stop(line, m.start() + len(punct), punct):
            continue
        out.append(line[start:cut])
        start = cut
    out.append(line[start:])
    return out


def _merge_short(parts: list[str]) -> list[str]:
    merged: list[str] = []
    pending = ""  # short pieces seen before any real sentence
    for p in parts:
        if len(_WORD_CHAR_RE.findall(p)) < 2:
            if merged:
                merged[-1] = f"{merged[-1]} {p}"
            else:
                pending = f"{pending} {p}".strip()
            continue
        merged.append(f"{pending} {p}".strip() if pending else p)
        pending = ""
    if pending:
        if merged:
            merged[-1] = f"{merged[-1]} {pending}"
        else:
            merged.append(pending)
    return merged


def split_sentences(text: str) -> list[str]:
    """Split ``text`` into stripped, non-empty sentences, in order (rules in the module doc)."""
    parts: list[str] = []
    for line in text.splitlines():
        parts.extend(s.strip() for s in _split_line(line))
    return _merge_short([p for p in parts if p])


def turn_sentences(speaker: str, turn_text: str) -> list[str]:
    """The sentence-node texts of a turn node's text (``"Speaker: body"``): ``"Speaker: sentence"``."""
    body = turn_text.split(": ", 1)[1] if ": " in turn_text else turn_text
    return [f"{speaker}: {s}" for s in split_sentences(body) or [body]]
