"""Offline argument extraction: the entity / value nodes that events attach to by role.

EMem links events through role-argument pairs extracted by an LLM; MemORAI through entities.
Offline (no model call) we take what a statistical pass can find reliably in chat text:

* **person** - a speaker's name when mentioned (or as the ``Name:`` prefix of a turn); a
  capitalised nickname that is a unique 3+ letter prefix of a speaker's first name ("Ben")
  keys to that speaker (``benedikt``) so both spellings meet in one argument node;
* **proper** - capitalised word sequences ("Museum of Modern Art", "NASA"), allowing "of",
  "the", "de", "&" inside, without a leading "The"/filler; a lone capitalised word at a
  sentence start only counts if it is a known name, an acronym ("NASA"), or is capitalised
  elsewhere mid-sentence;
* **date** - "13 March 2027", "March 13th, 2027", "13th of March", "April 2027", "summer 2026", years
  19xx/20xx, and the labels :mod:`timeparse` writes ("the week of 8 March 2027"); keys are
  canonical ("March 13, 2027" and "13 March 2027" both key ``13 march 2027``);
* **number** - a quantity with its unit noun ("3 kids", "$500", "10k", "two dogs" -> key
  ``2 dogs``);
* **keyphrase** - RAKE-style (Rose et al. 2010, "Automatic keyword extraction from individual
  documents"): candidate phrases are runs of 1-3 content words between stopwords/punctuation
  (longer runs keep their last 3 words: English noun phrases are head-final); word score =
  degree/frequency, phrase score = sum of its word scores + 0.5 per repeat. Stopwords, chat
  filler ("hey", "lol") and common verbs/adjectives are not content words (no POS tagger).

Mentions are deduplicated by key (the first kind found wins, in the order person, date,
number, proper, keyphrase) and returned in text order.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

Kind = Literal["person", "proper", "number", "date", "keyphrase"]
_ROLE = {"person": "participant", "proper": "entity", "number": "quantity", "date": "time", "keyphrase": "topic"}


@dataclass(frozen=True)
class ArgumentMention:
    name: str
    key: str
    kind: Kind
    role: str


STOPWORDS = frozenset(
    """
a about above after again against all am an and any are aren't as at be because been before
being below between both but by can can't cannot could couldn't did didn't do does doesn't doing
don't down during each few for from further had hadn't has hasn't have haven't having he he'd
he'll he's her here here's hers herself him himself his how how's i i'd i'll i'm i've if in into
is isn't it it's its itself let's me more most mustn't my myself no nor not of off on once only
or other ought our ours ourselves out over own same shan't she she'd she'll she's should
shouldn't so some such than that that's the their theirs them themselves then there there's these
they they'd they'll they're they've this those through to too under until up very was wasn't we
we'd we'll we're we've were weren't what what's when when's where where's which while who who's
whom why why's with won't would wouldn't you you'd you'll you're you've your yours yourself
yourselves also just really even ever still yet much many lot lots bit quite pretty super gonna
wanna gotta got get gets getting im ive dont cant thats its youre whats u ur anything something
us will may might must shall now back right since around first lately together upon though
although without within along across anyway else every another whether less least enough almost
away instead rather per via cuz cause etc either neither far often here there ever""".split()
)
STOPWORDS = STOPWORDS | frozenset(
    """
everything nothing anyone someone everyone one ones thing things stuff way ways kind sort time times
""".split()
)
# Chat filler: interjections that never start a name or a keyphrase.
INTERJECTIONS = frozenset(
    """
hey hi hello bye goodbye yeah yea yep yes nope nah ok okay oh ooh ah aw aww wow whoa lol lmao omg
haha hahaha hehe hmm um uh thanks thank thx ty please sure congrats congratulations cheers sorry
btw imo imho tbh idk fyi asap brb ttyl np jk smh ikr omw xoxo dear
""".split()
)
# Common verbs / adjectives / adverbs of chat: not keyphrase words (we have no POS tagger), and
# they start a name only before another capitalised word ("New York", "Big Ben").
WEAK = frozenset(
    """
cool awesome great nice good amazing fantastic wonderful incredible glad happy well like totally
definitely absolutely actually probably especially finally recently usually literally honestly
seriously exactly always never sometimes often maybe perhaps already again soon later today tonight
yesterday tomorrow week weeks weekend month months year years day days ago last next new old
big little lovely beautiful fun exciting excited proud tough hard easy sounds sound seems seem
looks look looking feel feels feeling felt think thought know knew see saw seen said say says tell
told make made take took taken go goes going went gone come came coming want wanted love loved
loves liked try tried trying start started keep kept let need needed hope hoped guess mean
means talk talked talking chat chatted remember hear heard share shared show showed wait
enjoy enjoyed enjoying appreciate stay give gave find found help helped doing done been having
paid met ran bought sent won lost did had wrote left put sat began drove flew ate fell held hit
built spent taught caught brought chose gets makes takes goes uses use used agree
powerful special important interesting cute perfect hilarious crazy stressful peaceful favorite
favourite best better worst bad sad real true whole sweet inspiring inspired busy ready able sure
long short living
""".split()
)
_VERBS = """
make see keep stay push check seem become bring happen believe allow consider continue appear
include provide reach remain suggest require decide understand follow stop speak spend grow offer
add expect realize realise manage handle learn wish wonder miss motivate inspire encourage remind
pursue embrace cherish overcome achieve accomplish put get do have go take give tell ask work help
""".split()
WEAK = WEAK | frozenset(
    f for v in _VERBS for f in (v, v + "s", v + "ing", v[:-1] + "ing" if v.endswith("e") else v + v[-1] + "ing")
) - {"work", "help"}  # nouns too: keep "work", "help" as keyphrases
FILLER = INTERJECTIONS | WEAK
_TIME_UNITS = {"day", "days", "week", "weeks", "weekend", "weekends", "month", "months", "year", "years"}
_WEEKDAYS = {
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "mon",
    "tue",
    "tues",
    "wed",
    "thu",
    "thur",
    "thurs",
    "fri",
}
_MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
_MONTH_ABBR = {m[:3]: m for m in _MONTHS} | {"Sept": "September"}
_NUMBER_WORDS = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
}
_NAME_ADJ = {"new", "old", "big", "little", "great", "good", "best", "real", "true", "sweet", "last"}
_CONNECTORS = {"of", "the", "de", "du", "la", "von", "van", "&"}
_NOT_PROPER = {"i", "i'm", "i've", "i'll", "i'd"}

_MON = r"(?P<mon>(?:January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\.?)"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_DATE_RES = [
    re.compile(r"\b(?:[Tt]he\s+)?(?P<span>week|weekend)\s+of\s+" + _DAY + r"\s+" + _MON + r"\s+" + _YEAR + r"\b"),
    re.compile(r"\b" + _DAY + r"\s+(?:of\s+)?" + _MON + r",?\s+" + _YEAR + r"\b"),
    re.compile(r"\b" + _MON + r"\s+" + _DAY + r"(?:,\s*|\s+)" + _YEAR + r"\b"),
    re.compile(r"\b(?P<season>[Ss]pring|[Ss]ummer|[Aa]utumn|[Ff]all|[Ww]inter)\s+" + _YEAR + r"(?:-(?:19|20)\d\d)?\b"),
    re.compile(r"\b" + _DAY + r"\s+(?:of\s+)?" + _MON + r"(?![\w-])"),
    re.compile(r"\b" + _MON + r"\s+" + _DAY + r"\b(?!:)"),
    re.compile(r"\b" + _MON + r",?\s+" + _YEAR + r"\b"),
    re.compile(r"(?<![$£€\d.,])\b" + _YEAR + r"\b(?![%\d]|\s*(?:dollars|bucks|people|points|miles))"),
]
_NUMBER_RE = re.compile(
    r"(?<![\w.])(?P<num>[$£€]?\d+(?:[.,]\d+)*(?:[kKmM%]|bn)?|"
    + "|".join(w for w in _NUMBER_WORDS if w not in ("zero", "one"))
    + r")(?![\w.]*\w)"
    r"(?:[ -](?P<unit>[A-Za-z][a-z]+))?",
    re.I,
)
_WORD_RE = re.compile(r"[A-Za-z][A-Za-z'’\-]*[A-Za-z]|[A-Za-z]|&")
_SPEAKER_PREFIX_RE = re.compile(r"^\s*(?P<name>[A-Z][\w'’\-]*(?: [A-Z][\w'’\-]*){0,2}):\s")


def normalise_key(name: str) -> str:
    """Lower-case, drop possessive 's and punctuation (keeps $ % & +, decimal points), collapse spaces."""
    s = name.lower().replace("’", "'")
    s = re.sub(r"'s\b", "", s)
    s = re.sub(r"(?<!\d)\.|\.(?!\d)", " ", s)
    s = re.sub(r"[^\w$%&+.\s]|_", " ", s)
    s = re.sub(r"^(the|a|an)\s+", "", s.strip())
    return re.sub(r"\s+", " ", s).strip()


def _date_key(m: re.Match) -> str:
    g = m.groupdict()
    mon = g.get("mon")
    month = _MONTH_ABBR.get(mon.rstrip("."), mon.rstrip(".")) if mon else ""
    if g.get("season"):
        return normalise_key(m.group(0))
    if g.get("day") and month:
        core = f"{int(g['day'])} {month} {g['year']}" if g.get("year") else f"{int(g['day'])} {month}"
        return normalise_key(f"{g['span']} of {core}" if g.get("span") else core)
    if month:
        return normalise_key(f"{month} {g['year']}")
    return g["year"]


def _sentence_initial(text: str, pos: int) -> bool:
    before = text[:pos].rstrip(" \t\"'“‘(")
    return not before or before[-1] in ".!?\n:"


def extract_arguments(text: str, speakers: Sequence[str] = (), max_keyphrases: int = 5) -> list[ArgumentMention]:
    """Offline arguments of ``text`` (see the module doc), deduplicated by key, in text order."""
    found: list[tuple[int, int, ArgumentMention]] = []  # (start, priority, mention)
    taken = [False] * (len(text) + 1)  # characters already inside a mention

    def add(start: int, end: int, name: str, kind: Kind, key: str | None = None, prio: int = 0) -> None:
        k = key if key is not None else normalise_key(name)
        if k:
            found.append((start, prio, ArgumentMention(name, k, kind, _ROLE[kind])))
            for i in range(start, end):
                taken[i] = True

    def free(a: int, b: int) -> bool:
        return not any(taken[a:b])

    names = {n.strip() for n in speakers if n.strip()}
    first_names = {n.split()[0].lower(): n for n in names}
    prefix = _SPEAKER_PREFIX_RE.match(text)
    if prefix:
        add(prefix.start("name"), prefix.end("name"), prefix.group("name"), "person")
        first_names.setdefault(prefix.group("name").split()[0].lower(), prefix.group("name"))
    for n in sorted(names, key=len, reverse=True):
        for m in re.finditer(r"(?<![\w])" + re.escape(n) + r"(?![\w])", text, re.I):
            if free(m.start(), m.end()):
                add(m.start(), m.end(), m.group(0), "person", prio=0)

    for rx in _DATE_RES:
        for m in rx.finditer(text):
            if free(m.start(), m.end()):
                add(m.start(), m.end(), re.sub(r"^[Tt]he\s+", "", m.group(0)), "date", _date_key(m), prio=1)

    for m in _NUMBER_RE.finditer(text):
        num, unit = m.group("num"), m.group("unit")
        low_unit = (unit or "").lower()
        if unit and (
            low_unit in STOPWORDS
            or (low_unit in FILLER and low_unit not in _TIME_UNITS)
            or low_unit.endswith("ing")
            or num.endswith(("%", "k", "K"))
        ):
            unit = None  # "3 of them", "2 dancing", "100% agree" -> the bare number
        if not unit and not re.search(r"[$£€%kKmM]|bn", num):
            continue  # a bare "two" or "3" says nothing on its own
        end = m.end("unit") if unit else m.end("num")
        if free(m.start(), end):
            value = str(_NUMBER_WORDS.get(num.lower(), num))
            add(m.start(), end, text[m.start() : end], "number", normalise_key(f"{value} {unit or ''}"), prio=2)

    # Proper nouns: capitalised runs (connectors allowed inside).
    words = [(m.start(), m.end(), m.group(0)) for m in _WORD_RE.finditer(text)]
    mid_caps = {w.lower() for s, _, w in words if w[0].isupper() and not _sentence_initial(text, s)}
    propers: list[tuple[int, int]] = []
    i = 0
    while i < len(words):
        j = _proper_run_end(text, words, i, free)
        if j == i:
            i += 1
            continue
        s, e = words[i][0], words[j - 1][1]
        w0 = words[i][2]
        lone_initial = j - i == 1 and _sentence_initial(text, s)
        if not lone_initial or w0.lower() in mid_caps or (w0.isupper() and len(w0) > 1):
            person = _speaker_for(w0, first_names)
            if person is not None:
                add(s, e, text[s:e], "person", normalise_key(person) if j - i == 1 else None)
            else:
                add(s, e, text[s:e], "proper", prio=3)
                propers.append((s, e))
        i = j

    for s, e, name in _keyphrases(text, words, propers, free, max_keyphrases, {m.key for _, _, m in found}):
        add(s, e, name, "keyphrase", prio=4)

    out: dict[str, tuple[int, int, ArgumentMention]] = {}
    for start, prio, mention in sorted(found, key=lambda t: (t[1], t[0])):
        out.setdefault(mention.key, (start, prio, mention))
    return [mention for _, _, mention in sorted(out.values(), key=lambda t: (t[0], t[1]))]


def _capital(w: str, strong: bool) -> bool:
    """A capitalised word that can be part of a name.

    ``strong``: not a stopword or weak word either. Non-strong words may only start a name
    when they are name-like adjectives followed by a strong word ("New York", "Big Sur").
    """
    low = w.lower().replace("’", "'")
    if len(w) < 2 or not w[0].isupper() or low in _NOT_PROPER or low in INTERJECTIONS or low in _WEEKDAYS:
        return False
    if w.rstrip(".") in _MONTHS or w in _MONTH_ABBR:
        return False
    if strong:
        return low not in STOPWORDS and low not in WEAK
    return low in _NAME_ADJ or (low not in STOPWORDS and low not in WEAK)


def _proper_run_end(text: str, words: list[tuple[int, int, str]], i: int, free) -> int:
    """End index (exclusive) of the capitalised run starting at word i, or i if none starts."""

    def joined(k: int) -> bool:  # word k follows word k-1 after exactly one space
        return text[words[k - 1][1] : words[k][0]] == " " and free(words[k][0], words[k][1])

    if not free(words[i][0], words[i][1]) or not _capital(words[i][2], strong=False):
        return i
    strong_start = _capital(words[i][2], strong=True)
    j = i + 1
    while j < len(words) and joined(j):
        if _capital(words[j][2], strong=True):
            j += 1
            continue
        k = j  # connectors ("of", "of the") count only when a capitalised word follows
        while k < len(words) and words[k][2].lower() in _CONNECTORS and joined(k):
            k += 1
        if k > j and k < len(words) and joined(k) and _capital(words[k][2], strong=True):
            j = k + 1
        else:
            break
    if not strong_start and j == i + 1:
        return i  # "New" alone is not a name; "New York" is
    return j


def _speaker_for(word: str, first_names: dict[str, str]) -> str | None:
    """The speaker a name refers to: their first name, or a nickname prefix of it ("Mel")."""
    low = word.lower()
    if low in first_names:
        return first_names[low]
    if len(low) >= 3:
        hits = [full for first, full in first_names.items() if first.startswith(low)]
        if len(hits) == 1:
            return hits[0]
    return None


def _keyphrases(text, words, propers, free, limit, known_keys):
    """RAKE over runs of content words; a proper noun inside a run counts as one word."""
    units: list[tuple[int, int, str]] = []
    covered = 0
    # Proper-noun spans start at a word and never overlap: a lookup by start word replaces a
    # scan of every span per word (quadratic: a 1 MB turn took minutes).
    span_at = {ps: (ps, pe) for ps, pe in propers}
    for s, e, w in words:
        if s < covered:
            continue
        span = span_at.get(s)
        if span:
            units.append((span[0], span[1], normalise_key(text[span[0] : span[1]])))
            covered = span[1]
            continue
        low = w.lower().replace("’", "'")
        content = (
            len(low) > 1
            and low not in STOPWORDS
            and low not in FILLER
            and low not in _WEEKDAYS
            and low not in _CONNECTORS
            and low not in _NUMBER_WORDS
            and free(s, e)
            and not low.endswith("'s")
            and not (len(low) >= 5 and low.endswith("ed"))
        )  # past tense verbs
        units.append((s, e, low if content else ""))
    runs: list[list[tuple[int, int, str]]] = [[]]
    prev_end = 0
    for s, e, w in units:
        if not w or re.search(r"[^\s\-]", text[prev_end:s]):
            runs.append([])
        if w:
            runs[-1].append((s, e, w))
        prev_end = e
    phrases = [r[-3:] for r in runs if r]
    freq: Counter[str] = Counter()
    degree: Counter[str] = Counter()
    for p in phrases:
        for _, _, w in p:
            freq[w] += 1
            degree[w] += len(p)
    keys = [" ".join(w for _, _, w in p) for p in phrases]
    counts = Counter(keys)
    scored: dict[str, tuple[float, int, int, int]] = {}
    for p, key in zip(phrases, keys):
        if key in scored or normalise_key(key) in known_keys:
            continue
        score = sum(degree[w] / freq[w] for _, _, w in p) + 0.5 * (counts[key] - 1)
        scored[key] = (score, p[0][0], p[-1][1], len(scored))
    best = sorted(scored.values(), key=lambda v: (-v[0], v[3]))[: max(0, limit)]
    return [(s, e, text[s:e]) for _, s, e, _ in best]
