"""Whose words a statement is, and what it names: the lexical tests of the supersession rule
(``construct.supersede``), offline, with no parser.

* **someone else's words** — a quotation ("Jonas told me: 'my bank is now Evilbank'"), reported
  speech ("My boss said she quit") or a hypothetical, plan or wish ("If we moved…", "I might
  quit…") asserts nothing of the speaker's own (``reported_or_hypothetical``, per clause);
* **another person** — a sentence opening on a person of the speaker's or someone else ("My
  sister moved…", "The new manager started…") is about them (``other_person``); two statements
  are about one subject when both are about the speaker, or both about that person
  (``same_subject``: the same relation, or the name one gives "My son Jannik…" used by the other);
* **the value** — content-word stems (``content_stems``): a change and what it replaces share
  the value ("Sold the Panda" / "my old Panda"); a replacement word that ends something names it,
  and ``names_another_thing`` tells when the earlier statement never names it ("I handed in my
  notice at the print shop" after "I had a second interview at a design studio");
* **a habit's slot** — "every morning", "weekends" (``shares_slot``): a habit said again with
  "now" in the same slot replaces the earlier one.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[A-Za-z0-9']+")

# Someone else's words: a quotation or reported speech states nothing of the speaker's own.
_REPORTED = re.compile(
    r"[\"“”]|(?:^|[\s(])'[^']{3,}'|\b(?:told (?:me|us)|tells (?:me|us)|said|says|saying|according to|claims?|"
    r"claimed|apparently|heard that|wrote (?:to say|that)|texted)\b",
    re.I,
)
# A hypothetical, a plan or a wish is no change yet: "If we moved…", "I might quit…".
_HYPOTHETICAL = re.compile(
    r"\b(?:if|would|might|maybe|perhaps|could|should|unless|wonder|thinking (?:about|of)|considering|"
    r"planning|plan to|going to|gonna|want to|wanna|hope to|hoping|someday|one day|imagine)\b|'d\b",
    re.I,
)
# A sentence opening on another person of the speaker's ("My sister moved…") is about them.
_OTHER_PERSON = re.compile(
    r"^(?:\w+,?\s+)?(?:my|our|the|a|an)\s+(?:\w+\s+)?(mum|mom|mother|dad|father|parents?|sister|brother|son|"
    r"daughter|kids?|children|husband|wife|partner|boyfriend|girlfriend|friend|neighbou?r|cousin|aunt|uncle|"
    r"grand\w+|boss|colleague|coworker|co-worker|manager|landlord|landlady|owner|flatmate|roommate|doctor|"
    r"teacher|coach|niece|nephew|guy|woman|man|lady)s?\b",
    re.I,
)
# A habit's slot ("every morning", "weekends"): two habits in one slot, the later "now", replace.
_SLOT = re.compile(
    r"\b(?:mornings?|evenings?|nights?|weekends?|lunch ?breaks?|(?:mon|tues|wednes|thurs|fri|satur|sun)days?|"
    r"daily|every day|a day)\b",
    re.I,
)
# A replacement word that ends something names what it ends ("quit the choir", "sold the Clio").
_ENDING = re.compile(
    r"\b(?:quit|left|done with|stopped|gave up|given up|dropped|sold|handed in (?:my|our) notice|broke up with|"
    r"no more|no longer)\b([^.;!?]*)",
    re.I,
)
_CLAUSE = re.compile(r"[,;:]\s+|\s+(?:so|and|but|because)\s+", re.I)
_NAME = re.compile(r"\s+[A-Z][a-z]+\b")
QUOTES = "\"“”'‘’"
_PAREN = re.compile(r"\([^)]*\)")
_SELF_TOO = re.compile(r"\b(?:I|we|We)\b")
_STEM_STOP = frozenset(
    "i me my we our us you your the a an and or but to of in on at for with from by is are was were be been am "
    "it its this that these those now new so just no not any more all some have has had do does did get got "
    "since last next week month year day time go went job work place thing things stuff yesterday today "
    "there one".split()
)


def other_person(text: str) -> str | None:
    """The person of the speaker's a sentence opens on ("My sister moved…": ``sister``), else ``None``."""
    m = _OTHER_PERSON.match(text.strip())
    if m is None or _SELF_TOO.search(text):  # "My partner Giles and I live…": the speaker too
        return None
    return m.group(1).lower()


def _stem(w: str) -> str:
    w = w.lower().strip("'")
    for suffix in ("ing", "er", "ed", "es", "s", "e"):
        if len(w) > len(suffix) + 3 and w.endswith(suffix):
            return w[: -len(suffix)]
    return w


def content_stems(text: str) -> set[str]:
    """Stems of a sentence's content words (the shared value of a change and what it replaces:
    "Sold the Panda" / "my old Panda", "I quit nursing" / "I'm a nurse")."""
    # a parenthesis holds a date the ingest resolved ("yesterday (15 March 2024)"): no value
    words = (w.lower().removesuffix("'s") for w in _WORD.findall(_PAREN.sub(" ", text)))
    return {_stem(w) for w in words if w not in _STEM_STOP and "'" not in w and len(w) > 2}


def same_subject(old: str, new: str) -> bool:
    """Both about the speaker, or both about the same person of theirs: the same relation, or
    a name both use ("My boyfriend Marek…" / "Marek and I are over")."""
    a, b = other_person(old), other_person(new)
    if a is None and b is None:
        return True
    if a is not None and a == b:
        return True
    # the relation's name ("My son Jannik") used by the other statement
    names = {n for t in (old, new) if (n := _named(t))}
    return any(re.search(rf"\b{re.escape(n)}\b", t) for n in names for t in (old, new) if _named(t) != n)


def _named(text: str) -> str | None:
    """The name after a relation a sentence opens on ("My son Jannik goes…": ``Jannik``)."""
    m = _OTHER_PERSON.match(text.strip())
    n = _NAME.match(text.strip(), m.end()) if m else None
    return n.group(0).strip() if n else None


def names_another_thing(old: str, new: str) -> bool:
    """``new`` ends something (``_ENDING``) that ``old`` never names: "I handed in my notice at
    the print shop" replaces nothing in "I had a second interview at a design studio"."""
    m = _ENDING.search(new)
    if m is None:
        return False
    obj = content_stems(_CLAUSE.split(m.group(1))[0])
    return bool(obj) and not obj & content_stems(old)


_VALUE = re.compile(r"\b(?:[A-Za-z]*\d[\w:.-]*|(?<!^)(?<![.!?:]\s)[A-Z][a-z']+)")


def values(text: str) -> set[str]:
    """The names and numbers of a sentence ("Coral Credit Union", "0151 220 3434", "Thursday"):
    capitalised words not opening it, and tokens with a digit (a resolved date in parentheses
    left out)."""
    body = _PAREN.sub(" ", text).strip()
    found = (m.group(0) for m in _VALUE.finditer(body))
    return {v.lower().rstrip(".:-").removesuffix("'s") for v in found if v != "I" and not v.startswith("I'")}


def gives_another_value(old: str, new: str) -> bool:
    """``new`` names a name or number ``old`` does not: it gives another value, not the same
    one again ("I meant my sister lives in Leeds" after "My sister moved to Leeds" gives none)."""
    return bool(values(new) - values(old))


def shares_slot(old: str, new: str) -> bool:
    return bool({_stem(m) for m in _SLOT.findall(old)} & {_stem(m) for m in _SLOT.findall(new)})


def is_quotation(text: str) -> bool:
    """A sentence in quotation marks, or one reporting words it quotes."""
    return text.lstrip()[:1] in QUOTES or (
        bool(_REPORTED.search(text)) and ("'" in text[:2] or any(q in text for q in '"“”'))
    )


def clauses(text: str) -> list[str]:
    return [c for c in _CLAUSE.split(text) if c]


def reported_or_hypothetical(clause: str) -> bool:
    return bool(_REPORTED.search(clause) or _HYPOTHETICAL.search(clause))
