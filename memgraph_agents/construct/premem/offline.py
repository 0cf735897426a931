"""Offline PREMem fragments: extractive, one per informative sentence of a session.

PREMem extracts fragments with an LLM. Without one we keep the sentences that carry
information, and label them with rules (no POS tagger or NLTK data here):

* **Skipped**: sentences with fewer than ``MIN_CONTENT_WORDS`` content words (greetings,
  reactions: "No way, congratulations!", "That's amazing, Maya!") and questions with fewer than
  ``MIN_QUESTION_WORDS`` ("How is Pixel settling in?": asking reveals little about anyone).
  A content word is one that is not a stopword, chat filler or a speaker's name
  (``construct/arguments.py`` vocabularies).
* **Category**, first rule that fires (PREMem's definitions, §3.1):
  1. a first-person opinion / feeling / preference / wish verb ("I love", "I think we",
     "my favourite", "I'm so proud", "it made me want") -> subjective;
  2. a past action: a subject followed by a past-tense verb ("I adopted", "Pixel chewed")
     or a perfect ("I've visited") -> experiential;
  3. a habit marker ("every Sunday", "usually", "times a week", "on Saturdays") -> subjective;
  4. a time expression that resolves before the message date -> experiential;
  5. a future or plan marker ("will", "going to", a date after the message's: "next
     week") or an evaluative word ("amazing", "adorable") -> subjective;
  6. otherwise -> factual (states, possessions, relationships, jobs).
* **Key**: up to two offline keyphrases / proper nouns / quantities of the sentence
  (``extract_arguments``), shorter ones dropped when a longer one contains them.
* **Time** (``temporal``, PREMem's patterns 1-4): the first relative expression resolved
  against the turn's date (2; resolved future dates too; not for habits, which hold on the
  message date); else a future marker -> ``after`` the message date (4); else an
  experiential fragment -> ``before`` it (3); else ``on`` it (1).
* **Content**: ``Speaker: sentence`` with relative dates annotated ("yesterday (9 March 2024)").
  A shared image's caption is one more fragment: experiential, on the message date.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

from memgraph_agents.construct.arguments import FILLER, INTERJECTIONS, STOPWORDS, extract_arguments
from memgraph_agents.construct.premem.model import Fragment
from memgraph_agents.construct.premem.temporal import FragmentTime, day, from_mention
from memgraph_agents.construct.sentences import split_sentences
from memgraph_agents.construct.timeparse import TimeMention, annotate_times, find_time_mentions
from memgraph_agents.model.conversation import Session

MIN_CONTENT_WORDS = 2
MIN_QUESTION_WORDS = 5
_NOT_KEYS = INTERJECTIONS | {"ha", "hah", "heh", "yay", "ugh", "meh", "huh", "whew", "phew"}
_WORD_RE = re.compile(r"[A-Za-z][A-Za-z'’]*")
_I = r"\b(?:i|we)(?:'m|’m| am|'ve|’ve| have| really| do| just| still| so| kind of| always| never)*\s+"
_OPINION_RE = re.compile(
    _I + r"(?:love|loved|like|liked|hate|hated|prefer|enjoy|enjoyed|adore|think|thought|believe|feel|felt|"
    r"want|wanted|wish|hope|hoped|plan|planning|dream|miss|missed|need|care|fear)\b"
    r"|\bmy\s+(?:favou?rite|goal|dream|hope|plan)\b"
    r"|\b(?:made|makes|make)\s+(?:me|us)\s+(?:want|feel|think|wish|love|hate)\b"
    r"|\b(?:i'm|i’m|i am|we're|we are)\s+(?:so\s+|really\s+|very\s+|a bit\s+)?(?:excited|proud|happy|glad|sad|"
    r"worried|scared|nervous|grateful|thankful|stressed|tired|curious|thrilled|afraid|interested|tempted)\b",
    re.I,
)
_IRREGULAR_PAST = (
    "went|did|saw|met|ran|took|bought|got|made|had|gave|came|began|won|lost|spent|left|found|"
    "felt|kept|held|brought|built|caught|chose|drove|ate|fell|flew|forgot|grew|heard|hid|hit|"
    "hurt|knew|led|let|lit|paid|put|quit|read|rode|rang|rose|sang|sat|sent|shot|shut|slept|"
    "sold|spoke|stood|stole|swam|taught|told|threw|tried|understood|woke|wore|wrote|became|"
    "broke|drew|drank|forgave|gave|moved|was|were"
)
# Subjects: a pronoun, a capitalised name (matched case-sensitively, or any word would pass
# for a name), or a determiner + noun ("the van broke down", "my knee started hurting").
_SUBJECT = r"(?:(?i:i|we|he|she|they|you|it)|[A-Z][a-z]+|(?i:the|my|our|his|her|their|your)\s+[a-z]+)"
_PAST_RE = re.compile(
    r"\b" + _SUBJECT + r"(?:\s+(?i:[a-z]+ly|just|finally|also|even|already|then|never))?\s+"
    r"(?i:" + _IRREGULAR_PAST + r"|[a-z]{2,}ed)\b"
    r"|(?i:\b(?:i've|i’ve|we've|i have|we have|i had)\s+(?:[a-z]+ly\s+|just\s+|never\s+|already\s+)?"
    r"(?:been|seen|done|gone|visited|tried|met|had|made|taken|[a-z]{2,}ed)\b)"
)
_PAST_NOT_VERB = {
    "called",
    "named",
    "used",
    "based",
    "interested",
    "excited",
    "tired",
    "married",
    "related",
    "supposed",
    "bored",
    "scared",
    "worried",
    "stressed",
    "red",
    "bed",
    "need",
    "shed",
}
_FUTURE_RE = re.compile(
    r"\b(?:will|shall|gonna|going\s+to|plan(?:ning|s)?\s+to|hope\s+to|want\s+to|about\s+to|can't\s+wait|"
    r"looking\s+forward|someday|some\s+day|one\s+day|soon)\b|'ll\b|’ll\b",
    re.I,
)
_HABIT_RE = re.compile(
    r"\b(?:usually|always|often|never|every\s+(?:day|week|month|year|morning|evening|night|weekend|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday)|times\s+a\s+(?:day|week|month|year)|"
    r"on\s+(?:mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays|weekends)|daily|weekly)\b",
    re.I,
)
_EVALUATIVE_RE = re.compile(
    r"\b(?:amazing|awesome|adorable|beautiful|wonderful|terrible|awful|great|fantastic|boring|lovely|"
    r"incredible|hilarious|stressful|relaxing|fun|best|worst|favou?rite|tough|hard)\b",
    re.I,
)


def content_words(text: str, speakers: Sequence[str] = ()) -> list[str]:
    """Words of ``text`` that are not stopwords, chat filler or speakers' first names."""
    names = {s.split()[0].lower() for s in speakers if s.strip()}
    out = []
    for w in _WORD_RE.findall(text):
        low = w.lower().replace("’", "'")
        if len(low) > 1 and low not in STOPWORDS and low not in FILLER and low not in names:
            out.append(low)
    return out


def informative(sentence: str, speakers: Sequence[str] = ()) -> bool:
    """Whether a sentence is worth a fragment (see the module doc)."""
    n = len(content_words(sentence, speakers))
    if sentence.rstrip().endswith("?"):
        return n >= MIN_QUESTION_WORDS
    return n >= MIN_CONTENT_WORDS


def _has_past_action(sentence: str) -> bool:
    for m in _PAST_RE.finditer(sentence):
        verb = m.group(0).split()[-1].lower()
        if verb not in _PAST_NOT_VERB:
            return True
    return False


def categorise(sentence: str, past_date: bool = False, future_date: bool = False) -> str:
    """factual | experiential | subjective by the ordered rules of the module doc.
    ``past_date`` / ``future_date``: the sentence has a time expression resolving before /
    after the message date."""
    if _OPINION_RE.search(sentence):
        return "subjective"
    if _has_past_action(sentence):
        return "experiential"
    if _HABIT_RE.search(sentence):  # before dates: "long runs on Sunday" is a habit, not last Sunday
        return "subjective"
    if past_date:
        return "experiential"
    if future_date or _FUTURE_RE.search(sentence) or _EVALUATIVE_RE.search(sentence):
        return "subjective"
    return "factual"


def fragment_key(sentence: str, speakers: Sequence[str] = ()) -> str:
    """Two mentions of ``extract_arguments`` (keyphrase, proper noun, quantity), shown in text
    order: multi-word ones first, then ones not opening the sentence (a sentence-initial
    capital is often just a capital: "Random thought: ..."); a mention inside a longer one
    is dropped ("Lisbon" in "Lisbon half marathon")."""
    found = [
        m
        for m in extract_arguments(sentence, speakers)
        if m.kind in ("keyphrase", "proper", "number") and m.key.split()[0] not in _NOT_KEYS
    ]  # "Ha, maybe..." must not key on "Ha"
    found = [m for m in found if not any(m.key != o.key and m.key in o.key for o in found)]
    opening = sentence.lstrip(" \"'“‘([").split(" ", 1)[0].strip(",.:;!?").lower()
    ranked = sorted(range(len(found)), key=lambda i: (" " not in found[i].key, found[i].key.split()[0] == opening, i))
    names = [found[i].name.strip() for i in sorted(ranked[:2])]
    if names:
        return ", ".join(names)
    return " ".join(content_words(sentence, speakers)[:3]) or sentence[:40]


def sentence_time(sentence: str, ref: datetime, category: str, mentions: list[TimeMention]) -> FragmentTime:
    """PREMem's four time patterns, offline (see the module doc); ``mentions``: the sentence's
    ``find_time_mentions`` against ``ref``."""
    if mentions and not _HABIT_RE.search(sentence):
        return FragmentTime(relation="on", value=from_mention(mentions[0]))
    if _FUTURE_RE.search(sentence):
        return FragmentTime(relation="after", value=day(ref))
    if category == "experiential":
        return FragmentTime(relation="before", value=day(ref))
    return FragmentTime(relation="on", value=day(ref))


def offline_fragments(session: Session, speakers: Sequence[str] = ()) -> list[Fragment]:
    """Fragments of ``session``, in turn and sentence order (see the module doc)."""
    people = list(dict.fromkeys([*speakers, *session.participants]))
    out: list[Fragment] = []
    for turn in session.turns:
        ref = turn.timestamp or session.date
        for sentence in (s for s in split_sentences(turn.text) or [turn.text] if informative(s, people)):
            mentions = find_time_mentions(sentence, ref)
            dates = [m.date for m in mentions]
            category = categorise(sentence, any(d < ref.date() for d in dates), any(d > ref.date() for d in dates))
            out.append(
                Fragment(
                    category=category,
                    key=fragment_key(sentence, people),
                    content=f"{turn.speaker}: {annotate_times(sentence, ref)}",
                    turn_ids=[turn.id],
                    time=sentence_time(sentence, ref, category, mentions),
                    builder="offline",
                )
            )
        if turn.image_caption:  # a picture the speaker shows: an experience of the message's own date
            caption = " ".join(turn.image_caption.split())
            out.append(
                Fragment(
                    category="experiential",
                    key=fragment_key(caption, people) or "picture",
                    content=f"{turn.speaker} shared a picture: {caption}",
                    turn_ids=[turn.id],
                    time=FragmentTime(relation="on", value=day(ref)),
                    builder="offline",
                )
            )
    return out
