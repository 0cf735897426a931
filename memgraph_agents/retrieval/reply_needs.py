"""Whether a reply needs the question it answers to be understood (``reply_context``), judged by
what its opening is, not by how long it is. Offline, with no parser.

A reply leans on its question when its first sentence (after an interjection standing alone:
"Honestly? Draining.") opens on

* **an answer word** — yes, no, sure, exactly, not yet, me too… ("Yep, booked it.");
* **an anaphor** — a pronoun or demonstrative whose referent is in the question ("It's 0176 now.",
  "That one.", "They were lovely.");
* **a quotation** — the words asked about ("'Run like the wind', in huge letters.");
* **a fragment** — an opening clause with no finite verb: no subject pronoun, auxiliary, modal,
  copula, past tense or contraction ("April 2.", "Supply chain lead for a bike startup.",
  "September 14, at a vineyard near the lake.", "Mostly fine.").

A reply that opens on a clause of its own ("I'm halfway through the book.", "My sister joins me
on Sundays.", "The physio says it's only irritation.") stands alone.
"""

from __future__ import annotations

import re

from memgraph_agents.construct.sentences import split_sentences

_ANSWER = re.compile(
    r"^(?:yes|yeah|yep|yup|yea|no|nope|nah|sure|exactly|definitely|absolutely|of course|not really|not yet|"
    r"not at all|not much|kind of|sort of|kinda|maybe|probably|perhaps|correct|indeed|totally|same|me too|"
    r"me neither|neither|both|either|none|all of them|never|always|sometimes|usually)\b",
    re.I,
)
_ANAPHOR = re.compile(r"^(?:it|it's|its|that|that's|this|these|those|they|they're|them|he|he's|she|she's|one)\b", re.I)
_QUOTE = re.compile(r"^[\"'“‘]")
# Discourse words a clause may open on before what it says ("Honestly, I think…").
_DISCOURSE = re.compile(
    r"^(?:(?:oh|ah|aw|wow|well|so|hmm+|haha|ha|lol|honestly|actually|basically|frankly|sadly|luckily|"
    r"anyway|seriously|ugh|hey|okay|ok|right)\b[\s,!.?:;-]*)+",
    re.I,
)
_CLAUSE_END = re.compile(r"[,;:()–—]| - ")
_WORD = re.compile(r"[A-Za-z0-9']+")
# A finite verb or its subject: a clause of its own.
_FINITE = frozenset(
    "i i'm i've i'd i'll we we're we've we'd we'll you you're you've you'd you'll he he's she she's they they're "
    "they've it it's me us am is are was were be been has have had do does did will would can could shall "
    "should may might must won't can't don't doesn't didn't isn't aren't wasn't weren't hasn't haven't "
    "there's that's what's who's went got took made came ran found said told left sold broke bought brought "
    "gave saw knew thought felt kept met paid won lost began wrote drove flew fell spent sent built caught "
    "taught heard held stood sat slept ate drank says goes gets".split()
)
_PAST = re.compile(r"^[a-z]{3,}ed$")


def _opening(body: str) -> str:
    """The first sentence that says something: a lone interjection before it ("Honestly?",
    "Ha!") skipped."""
    for s in split_sentences(body):
        rest = _DISCOURSE.sub("", s.strip())
        if _WORD.search(rest) or _ANSWER.match(s.strip()):
            return s.strip()
    return ""


def _has_clause(opening: str) -> bool:
    clause = _CLAUSE_END.split(_DISCOURSE.sub("", opening), maxsplit=1)[0]
    words = [w.lower() for w in _WORD.findall(clause)]
    if any(w in _FINITE or w.endswith("n't") for w in words):
        return True
    return any(_PAST.match(w) for w in words[1:])  # "The van broke down", not "Exhausted but happy"


def needs_question(body: str) -> bool:
    """Whether a reply (its text, without the speaker prefix) leans on the question before it
    (module docstring)."""
    opening = _opening(body)
    if not opening:
        return bool(body.strip())  # only interjections: "Ha!" means nothing alone
    if _ANSWER.match(opening) or _QUOTE.match(opening):
        return True
    if _ANAPHOR.match(_DISCOURSE.sub("", opening)):
        return True
    return not _has_clause(opening)
