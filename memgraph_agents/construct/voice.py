"""Whose voice a turn speaks in: the tests that keep someone else's words, a joke or a denied
rumour from retiring a person's fact (``construct.supersede``), offline, with no parser.

* **a disowned turn** — a turn that jokes ("… Just kidding!", "In my dreams …") or denies what
  it repeats ("People say I quit the bakery, which is not true", "My aunt thinks I'm vegan now.
  I'm not.", "… but we didn't.") asserts no change anywhere in it (``disowned``: the joke or the
  denial may sit in another sentence than the words of the change);
* **a relayed clause** — reported speech covers what follows it: after "Mallory told me:" the
  rest of the sentence is Mallory's ("Mallory told me: I quit the bakery, no notice"), and a
  clause with no subject of its own continues the one before it ("Mallory told me she quit and
  moved to Berlin"); a clause after "so", "but" or "because", or one opening on "I" / "we"
  after a comma, is the speaker's again ("The doctor says it was never gluten, so I eat bread
  again") (``attributed_clauses``);
* **another subject** — a sentence about someone else is no statement of the speaker's: one
  opening, after an interjection, on "you", "she", "they"… ("Wow, so you moved to Leeds!") or
  on congratulations ("Congrats, the new flat sounds lovely."), and one whose subject is a
  name with no word of the speaker in it ("Mallory quit the bakery", "Jorunn has switched
  banks"), which is about that name unless the earlier statement names it too ("We have a dog
  called Biscuit" / "Biscuit died in the winter") (``opening``, ``named_subject``).
"""

from __future__ import annotations

import re

from memgraph_agents.construct.speech import reported_or_hypothetical

# A joke: the words of a change said in fun.
_JOKE = re.compile(
    r"\b(?:just|only) (?:kidding|joking)\b|\bkidding\b|\bjoking\b|\bjk\b|\bapril fools?\b|\byeah,? right\b|"
    r"\bin my dreams\b",
    re.I,
)
# A denial of what the turn repeats: "which is not true", "Nonsense", "I'm not.", "but we didn't."
_DENIAL = re.compile(
    r"\b(?:is|was|are|'s)(?: not|n't) true\b|\bnot true\b|\buntrue\b|\bnonsense\b|\brubbish\b|\bfake news\b|"
    r"\b(?:a |the )?rumou?rs?\b|\bgossip\b|"
    r"\b(?:i|we)(?:'m| am|'re| are) not\s*(?:[.!;]|$)|"
    r"\b(?:i|we) (?:didn't|did not|haven't|have not|hadn't|wasn't|weren't)\s*(?:[.!,;]|$)",
    re.I,
)
# Someone else's belief or report about the speaker ("My aunt thinks I'm vegan now"); the
# speaker's own "I think" is no report.
_BELIEF = re.compile(
    r"(?<!\bi )(?<!\bwe )\b(?:thinks|thought|assumes?|assumed|believes|believed|reckons?|swears?|swore|insists?|"
    r"insisted|keeps? telling|told everyone|is telling)\b|"
    r"\b(?:people|everyone|everybody|they|someone|somebody) (?:say|think|believe|assume)\b|"
    r"\b(?:rumou?r has it|word is|supposedly|allegedly)\b|"
    r"\ba (?:text|message|letter|note|voicemail|e-?mail|call) from\b",
    re.I,
)
# The separators of clauses, kept: the speaker's own voice comes back after "so", "but", "because".
_SPLIT = re.compile(r"(:\s+|[,;]\s+|\s+(?:and|so|but|because)\s+)", re.I)
_OWN_AGAIN = re.compile(r"^\s+(?:so|but|because)\s+$", re.I)
_LEAD = re.compile(r"^(so|but|because|and)\s+", re.I)
_OWN_SUBJECT = re.compile(r"^(?:i|i'm|i've|i'd|i'll|we|we're|we've|we'd|we'll|my|our)\b", re.I)
# Interjections and discourse words a sentence may open on before its subject.
_INTERJECTION = re.compile(
    r"^(?:(?:oh|ah|aw|wow|whoa|so|well|yeah|yes|no|nope|hey|ha|haha|hah|ok|okay|anyway|and|but|btw|omg|lol|"
    r"guess what|big news|news|update|honestly|seriously|wait)\b[\s,!.:;-]*)+",
    re.I,
)
# A sentence about the person spoken to, or someone else: its subject up front.
_OTHER_OPENING = re.compile(
    r"^(?:he|she|they|you|he's|she's|they're|you're|you've|his|her|their|your|someone|somebody|everyone|"
    r"everybody|nobody|people|congrats|congratulations|well done|good for you|happy for you|lucky you)\b",
    re.I,
)
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|me|my|mine|we|we're|we've|we'd|our|ours|us)\b", re.I)
# A name as a subject: a capitalised word, not a day, month or sentence opener, right before a verb
# ("Mallory quit…", "Jorunn has switched…", "Piet just moved…").
_NAME_SUBJECT = re.compile(
    r"^([A-Z][a-z]+)(?:\s+and\s+[A-Z][a-z]+)?\s+(?:(?:has|had|have|is|was|just|finally|also|recently|"
    r"apparently|got|has been|now)\s+)*(?:[a-z]+ed|quit|left|sold|got|went|became|began|took|made|is|was|has|"
    r"had|says|said|thinks|lives|works|moves|quits|started|joined|switched|moved|died)\b"
)
_NOT_NAMES = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday january february march april may june july august "
    "september october november december the this that these those there here it its my our your his her their "
    "we you he she they i what when where why how who which today yesterday tomorrow tonight finally just also "
    "now then still sadly luckily honestly actually apparently recently lately everyone nobody someone people "
    "sold quit left moved switched started joined got went".split()
)


def disowned(text: str) -> bool:
    """A turn that jokes or denies what it repeats (module docstring): no change in it."""
    return bool(_JOKE.search(text) or _DENIAL.search(text))


def relayed(clause: str) -> bool:
    """A clause in someone else's voice: reported speech, a belief of someone else's, a
    hypothetical or plan (``speech.reported_or_hypothetical``)."""
    return reported_or_hypothetical(clause) or bool(_BELIEF.search(clause))


def attributed_clauses(text: str) -> list[tuple[str, bool]]:
    """``(clause, the speaker's own)`` for each clause of a sentence, a report covering what
    follows it (module docstring)."""
    parts = _SPLIT.split(text)
    out: list[tuple[str, bool]] = []
    carried = False  # the clause before was in someone else's voice
    sep = ""
    for n, part in enumerate(parts):
        if n % 2:  # a separator
            sep = part
            continue
        if not part.strip():
            continue
        if relayed(part) or about_someone_else(part):
            out.append((part, False))
            carried = True
            continue
        lead = _LEAD.match(part.strip())
        body = part.strip()[lead.end() :] if lead else part.strip()
        again = bool(_OWN_AGAIN.match(sep) or (lead and lead.group(1).lower() != "and") or _OWN_SUBJECT.match(body))
        if carried and (sep.strip() == ":" or not again):
            out.append((part, False))  # the report goes on
            continue
        out.append((part, True))
        carried = False
    return out


def opening(text: str) -> str:
    """The sentence without the interjections it opens on ("Wow, so you moved…": "you moved…")."""
    return _INTERJECTION.sub("", text.strip())


def about_someone_else(text: str) -> bool:
    """A sentence whose subject up front is the person spoken to or someone else."""
    return bool(_OTHER_OPENING.match(opening(text)))


def same_named_subject(old: str, new: str) -> bool:
    """Neither sentence is about a name (``named_subject``), or the other names it too."""
    pairs = ((named_subject(old), new), (named_subject(new), old))
    return all(re.search(rf"\b{re.escape(n)}\b", other) for n, other in pairs if n)


def named_subject(text: str) -> str | None:
    """The name a sentence with no word of the speaker's is about ("Mallory quit the bakery":
    ``Mallory``), else ``None``."""
    if _FIRST_PERSON.search(text):
        return None
    m = _NAME_SUBJECT.match(opening(text))
    if m is None or m.group(1).lower() in _NOT_NAMES:
        return None
    return m.group(1)
