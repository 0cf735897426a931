"""Offline argument extraction: the entity / value nodes that events attach to by role.

EMem links events through role-argument pairs extracted by an LLM; MemORAI through entities.
Offline (DESIGN §5) we take what a statistical pass can find reliably in chat text:

* **person** - a speaker's name when mentioned (or as the ``Name:`` prefix of a turn);
* **proper** - capitalised word sequences ("Museum of Modern Art", "LGBTQ"), allowing "of",
  "the", "de", "&" inside, without a leading "The"/filler; a lone capitalised word at a
  sentence start only counts if it is a known name or is capitalised elsewhere mid-sentence;
* **date** - "7 May 2023", "May 7th, 2023", "7th of May", "April 2023", "summer 2022", years
  19xx/20xx, and the labels :mod:`timeparse` writes ("the week of 1 May 2023"); keys are
  canonical ("May 7, 2023" and "7 May 2023" both key ``7 may 2023``);
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
from dataclasses import dataclass
from typing import Literal, Sequence

Kind = Literal["person", "proper", "number", "date", "keyphrase"]
_ROLE = {"person": "participant", "proper": "entity", "number": "quantity", "date": "time", "keyphrase": "topic"}


@dataclass(frozen=True)
class ArgumentMention:
    name: str
    key: str
    kind: Kind
    role: str


STOPWORDS = frozenset("""
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
everything nothing anyone someone everyone one ones thing things stuff way ways kind sort time times
""".split())
FILLER = frozenset("""
hey hi hello bye goodbye yeah yea yep yes nope nah ok okay oh ooh ah aw aww wow whoa lol lmao omg
haha hahaha hehe hmm um uh thanks thank thx ty please sure cool awesome great nice good amazing
fantastic wonderful incredible glad happy sorry congrats congratulations cheers well like totally
definitely absolutely actually probably especially finally recently usually literally honestly
seriously exactly always never sometimes often maybe perhaps already again soon later today tonight
yesterday tomorrow week weeks weekend month months year years day days ago last next new old
big little lovely beautiful fun exciting excited proud tough hard easy sounds sound seems seem
looks look looking feel feels feeling felt think thought know knew see saw seen said say says tell
told make made take took taken go goes going went gone come came coming want wanted love loved
loves like liked try tried trying start started keep kept let need needed hope hoped guess mean
means talk talked talking chat chatted remember glad hear heard share shared show showed wait
enjoy enjoyed enjoying appreciate stay give gave find found help helped doing done been having
""".split())
_WEEKDAYS = {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}
_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
           "October", "November", "December"]
_MONTH_ABBR = {m[:3]: m for m in _MONTHS} | {"Sept": "September"}
_NUMBER_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty".split())}
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
    + "|".join(w for w in _NUMBER_WORDS if w not in ("zero", "one")) + r")(?![\w.]*\w)"
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
    taken = [False] * (len(text) + 1)

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
        if unit and (unit.lower() in STOPWORDS or unit.lower() in FILLER):
            unit = None  # "3 of them", "two great..." -> the bare number
        if not unit and num.lower() in _NUMBER_WORDS:
            continue  # a bare "two" says nothing
        end = m.end("unit") if unit else m.end("num")
        if free(m.start(), end):
            value = str(_NUMBER_WORDS.get(num.lower(), num))
            add(m.start(), end, text[m.start():end], "number", normalise_key(f"{value} {unit or ''}"), prio=2)

    # Proper nouns: capitalised runs (connectors allowed inside).
    words = [(m.start(), m.end(), m.group(0)) for m in _WORD_RE.finditer(text)]
    mid_caps = {w.lower() for s, _, w in words if w[0].isupper() and not _sentence_initial(text, s)}

    def capital(w: str) -> bool:
        low = w.lower().replace("’", "'")
        return (w[0].isupper() and low not in _NOT_PROPER and low not in STOPWORDS and low not in FILLER
                and low not in _WEEKDAYS and w.rstrip(".") not in _MONTHS and w not in _MONTH_ABBR)

    i = 0
    while i < len(words):
        if not capital(words[i][2]) or not free(words[i][0], words[i][1]):
            i += 1
            continue
        j = i + 1
        while j < len(words):
            gap = text[words[j - 1][1]:words[j][0]]
            if gap != " " or not free(words[j][0], words[j][1]):
                break
            if capital(words[j][2]):
                j += 1
            elif words[j][2].lower() in _CONNECTORS and j + 1 < len(words) and capital(words[j + 1][2]) \
                    and text[words[j][1]:words[j + 1][0]] == " ":
                j += 2
            else:
                break
        run = words[i:j]
        s, e = run[0][0], run[-1][1]
        lone_initial = len(run) == 1 and _sentence_initial(text, s)
        w0 = run[0][2]
        if not lone_initial or w0.lower() in first_names or w0.lower() in mid_caps or (w0.isupper() and len(w0) > 1):
            name = text[s:e]
            kind: Kind = "person" if run[0][2].lower() in first_names else "proper"
            add(s, e, name, kind, prio=0 if kind == "person" else 3)
        i = j

    # Keyphrases (RAKE): runs of content words between stopwords / punctuation / taken spans.
    runs: list[list[tuple[int, int, str]]] = [[]]
    prev_end = 0
    for s, e, w in words:
        low = w.lower().replace("’", "'")
        content = (len(low) > 1 and low not in STOPWORDS and low not in FILLER and low not in _WEEKDAYS
                   and low not in _CONNECTORS and free(s, e) and not low.endswith("'s"))
        if not content or re.search(r"[^\s\-]", text[prev_end:s]):
            if runs[-1]:
                runs.append([])
        if content:
            runs[-1].append((s, e, low))
        prev_end = e
    phrases = [r[-3:] for r in runs if r]
    freq: Counter[str] = Counter()
    degree: Counter[str] = Counter()
    for p in phrases:
        for _, _, w in p:
            freq[w] += 1
            degree[w] += len(p)
    counts = Counter(" ".join(w for _, _, w in p) for p in phrases)
    scored: dict[str, tuple[float, int, int, int]] = {}
    for p in phrases:
        key = " ".join(w for _, _, w in p)
        score = sum(degree[w] / freq[w] for _, _, w in p) + 0.5 * (counts[key] - 1)
        if key not in scored:
            scored[key] = (score, p[0][0], p[-1][1], len(scored))
    best = sorted(scored.items(), key=lambda kv: (-kv[1][0], kv[1][3]))[: max(0, max_keyphrases)]
    for _, (_, s, e, _) in best:
        add(s, e, text[s:e], "keyphrase", prio=4)

    out: dict[str, tuple[int, int, ArgumentMention]] = {}
    for start, prio, m in sorted(found, key=lambda t: (t[1], t[0])):
        out.setdefault(m.key, (start, prio, m))
    return [m for _, _, m in sorted(out.values(), key=lambda t: (t[0], t[1]))]
