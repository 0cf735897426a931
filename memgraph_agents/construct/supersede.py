"""Facts that change: which later statement replaces which earlier one (the offline detector).

A person's statements are compared with their own earlier ones (an earlier turn timestamp).
A later statement ``n`` supersedes an earlier ``o`` when they are about the same subject and
attribute and ``n`` gives another value. Offline, with no parser and no LLM:

* **statement** — about the speaker: a declarative sentence in the first person ("I", "my", "we") or
  with no subject at all (chat ellipsis: "Sold the car.") is about its speaker; questions and
  sentences opening on someone else ("She moved…", "Your flat…") are no statements;
* **change** — ``n`` takes back what was said (``_CORRECT``: "ignore that", "scratch that",
  "correction", "I meant"), marks a replacement (``_REPLACE``: "quit", "moved", "no longer",
  "instead"…) or a new state (``_NEW``: "now", "new", "since March", "started"…), under no
  negation ("I won't quit", "rather than quitting") and without a mark of persistence or
  addition (``_KEEP``: "still", "also"…); a quotation, reported speech or a hypothetical marks
  nothing (``construct.speech``: "Jonas told me: 'my bank is now …'", "If we moved…"). Only such
  statements are compared, so a session costs one row of similarities per changing statement;
* **subject** — both statements are about the speaker, or about the same person of theirs
  (``speech.same_subject``: "My sister moved…" replaces nothing of the speaker's own);
* **attribute** — zero-shot typing against the prototypes of ``construct.fact_attributes``:
  ``p_s(a) = max_{x ∈ prototypes(a)} cos(s, x)``; the pair's attribute is the one both are
  most about, ``a* = argmax_a min(p_o(a), p_n(a))``, with strength ``J = min(p_o(a*), p_n(a*))``;
* **match** — among the speaker's earlier statements (the ``CANDIDATES`` nearest by cosine; a
  self-correction also the earlier turns of its own session, other changes only earlier days),
  ``o`` is the one that maximises ``cos(o, n) + J``: a change names, or is about, the value it
  replaces.

The best match is linked when it is not a restatement (``cos(o, n) < DUPLICATE``) and

    a self-correction, and cos(o, n) ≥ SIMILAR_FLOOR or J ≥ ATTRIBUTE_FLOOR                  — or
    a replacement, and cos(o, n) ≥ UNTYPED_SIMILAR, or (cos(o, n) ≥ SIMILAR_FLOOR or
        J ≥ ATTRIBUTE_FLOOR − REPLACE_SLACK) and [the two share a content word or
        J ≥ ATTRIBUTE_FLOOR − REPLACE_SLACK] and it does not end a thing ``o`` never names  — or
    a new state, and J ≥ ATTRIBUTE_FLOOR for a functional attribute, or "now" in the same
        habit slot as ``o`` ("every morning") with cos(o, n) ≥ SIMILAR_FLOOR

(a functional attribute holds one value at a time — a home, an employer, a phone number — so
a new value replaces the old; the others accumulate, and only an explicit replacement ends
them). The link's weight is ``cos(o, n) + J``. The first thresholds were chosen on an invented
tuning set (``tests/knowledge_updates_tune.py``); the self-correction, speech and subject tests
and ``REPLACE_SLACK`` while building ``tests/knowledge_updates_shapes.py`` (so that set is not
held out; the acceptance and fresh sets are the check: docs/facts-that-change.md).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from memgraph_agents.construct.fact_attributes import ATTRIBUTES
from memgraph_agents.construct.sentences import split_sentences
from memgraph_agents.construct.speech import (
    QUOTES,
    content_stems,
    gives_another_value,
    is_quotation,
    names_another_thing,
    same_subject,
    shares_slot,
)
from memgraph_agents.construct.voice import about_someone_else, attributed_clauses, disowned, same_named_subject

ATTRIBUTE_FLOOR = 0.40  # J: both statements are about one attribute at least this much
SIMILAR_FLOOR = 0.25  # cos(o, n) of a replacement and its best earlier match
REPLACE_SLACK = 0.05  # a replacement's attribute floor is this much lower (ATTRIBUTE_FLOOR - 0.05)
UNTYPED_SIMILAR = 0.5  # cos(o, n) of a replacement sharing no word nor attribute with its match
DUPLICATE = 0.92  # cos(o, n) above this: the same statement again, not a new value
CANDIDATES = 8  # earlier statements of the speaker (nearest stored sentences) a change is compared with
MIN_WORDS = 4  # a shorter sentence joins its neighbour ("Promoted! Art director now.")

_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|me|my|mine|myself|we|we're|we've|we'd|our|ours|us)\b", re.I)
_THIRD_SUBJECT = re.compile(
    r"^(?:he|she|they|it|his|her|their|its|you|your|that|this|there|someone|somebody|everyone|everybody|nobody|"
    r"people)\b",
    re.I,
)
_REPLACE = re.compile(
    r"\b(?:quit|quitting|done with|left(?! (?:an?|it|them|him|her|behind|for)\b)|leaving (?:my|our|the)|stopped|gave up|given up|giving up|dropped(?! (?:off|by|in)\b)|no longer|no more|"
    r"(?:not|never)\b[^.!?]{0,30}\bany ?more|sold|switched|switching|moved(?! (?:it|them|him|her|on)\b)|relocated|"
    r"changed (?:my |our )?(?:jobs?|schools?|teams?|careers?|numbers?|address|name|diet|e-?mail(?: address)?|"
    r"bank|phone|doctor|dentist|gp)|"
    r"moving (?:to|into|out|away|house)|broke up|split up|separated|divorced|(?:is|are|was) over|"
    r"retired|instead(?! of)|replaced|from now on|different now|passed away|died|is gone|are gone|traded|swapped|"
    r"(?:got |been |was |were )?transferred|"
    r"handed in (?:my|our|her|his) notice)\b"
    r"|n't\b[^.!?]{0,30}\bany ?more\b",
    re.I,
)
_NEW = re.compile(
    r"\b(?:(?<!right )now|new|these days|nowadays|currently|start|started|starting|joined|enrolled|took up|taken up|"
    r"became|become|promoted|bought|adopted|engaged|married|again|back on|"
    r"since the first|since (?:(?:last )?(?:jan|feb|march|april|may|june|july|aug|sept?|oct|nov|dec)\w*|spring|summer|"
    r"autumn|fall|winter|\d|the move))\b",
    re.I,
)
# A cue under a negation is no change: "I won't quit", "not giving up", "never moved".
_NEGATED = re.compile(
    r"\b(?:(?:not|never|won't|don't|didn't|can't|couldn't|wouldn't|isn't|aren't|wasn't|no)\W+(?:\w+\W+){0,2}|"
    r"(?:instead of|rather than)\W+)$",
    re.I,
)
# "too" only closing a clause ("me too", "I paint too."), not "too much".
_KEEP = re.compile(r"\b(?:still|also|as well|both)\b|\btoo\b(?=\s*(?:[.!,;)]|$))", re.I)
# An explicit self-correction: the speaker takes back what they just said.
_CORRECT = re.compile(
    r"\b(?:ignore (?:that|what i said|my last)|scratch that|correction|i meant|i misspoke|i mistyped|my mistake|"
    r"that was wrong|i got (?:that|it) wrong|sorry,? (?:wrong|it's|it is))\b",
    re.I,
)
_NOW = re.compile(r"\b(?:now|these days|nowadays)\b", re.I)
_WORD = re.compile(r"[A-Za-z0-9']+")


@dataclass(frozen=True)
class Statement:
    """One declarative sentence (or a short run of them) of a turn, about its speaker."""

    node: str  # the turn's node id
    turn_id: str
    speaker: str
    when: str  # ISO timestamp of the turn
    text: str  # without the speaker prefix
    order: int = 0  # the turn's index in its session (turns of one session share a timestamp)
    session: str = ""  # the session it was said in

    def before(self, other: Statement) -> bool:
        return (self.when, self.order) < (other.when, other.order)


@dataclass(frozen=True)
class Match:
    """An earlier statement compared with a changing one: cosine, attribute, its strength."""

    old: Statement
    cosine: float
    attribute: int  # index into ATTRIBUTES
    strength: float  # J
    shared: bool = False  # the two share a content word (the value a change names)
    slot: bool = False  # the two name the same time slot of a habit ("every morning")
    elsewhere: bool = False  # the later one ends something the earlier one never names
    another_value: bool = True  # the later one names a name or number the earlier one does not

    @property
    def score(self) -> float:
        return self.cosine + self.strength


@dataclass(frozen=True)
class Candidate:
    """A changing statement and its earlier matches, best first (``Match.score``, then turn id)."""

    new: Statement
    cue: str  # "correct" | "replace" | "new"
    matches: list[Match] = field(default_factory=list)
    functional_strength: float = 0.0  # J of the best functional attribute with the best match


@dataclass(frozen=True)
class Supersession:
    old: Statement
    new: Statement
    attribute: str
    score: float
    how: str = "offline"  # "offline" | "llm"


def is_statement(text: str) -> bool:
    """A declarative sentence about its speaker: no question, no other subject up front (after
    an interjection too: "Wow, so you moved…", ``voice.about_someone_else``)."""
    if text.rstrip().endswith("?"):
        return False
    return bool(_FIRST_PERSON.search(text)) or not (_THIRD_SUBJECT.match(text) or about_someone_else(text))


def own_assertion(text: str) -> bool:
    """A statement the speaker asserts as their own, now: no quotation or reported speech (nor
    what the report goes on to say), no hypothetical or plan, no joke or denial (an explicit
    self-correction always is one; ``construct.voice``)."""
    if _CORRECT.search(text):
        return True
    if is_quotation(text) or disowned(text):
        return False  # nothing in it is the speaker's own
    # a clause of the speaker's own ("The doctor says it was never gluten, so I eat bread again")
    return any(own and _cue_in(c) for c, own in attributed_clauses(text))


def statements(
    node: str, turn_id: str, speaker: str, when: str, body: str, order: int = 0, session: str = ""
) -> list[Statement]:
    """The statements a turn makes about its speaker: its sentences (one shorter than
    ``MIN_WORDS`` joined to the next), questions and other subjects left out."""
    runs: list[str] = []
    carry = ""
    for s in split_sentences(body):
        if s.rstrip().endswith("?"):  # a question states nothing (and joins nothing)
            continue
        s = f"{carry} {s}".strip() if carry else s
        if len(_WORD.findall(s)) < MIN_WORDS:
            carry = s
            continue
        runs.append(s)
        carry = ""
    if carry:
        if runs:
            runs[-1] = f"{runs[-1]} {carry}"
        else:
            runs.append(carry)
    return [Statement(node, turn_id, speaker, when, s, order, session) for s in runs if is_statement(s)]


def _cue(pattern: re.Pattern[str], text: str) -> bool:
    """Whether ``text`` holds a cue of ``pattern`` that no negation right before it cancels
    ("no longer" and "not … any more" are negations themselves)."""
    for m in pattern.finditer(text):
        if m.group(0).lower().startswith(("no ", "not", "never", "n't")) or not _NEGATED.search(text[: m.start()]):
            return True
    return False


def _cue_in(clause: str) -> bool:
    return _cue(_REPLACE, clause) or _cue(_NEW, clause)


def _after_correction(text: str) -> str:
    """What a self-correction says instead: the text after its cue ("Sorry, I meant my sister…":
    "my sister…")."""
    m = _CORRECT.search(text)
    return text[m.end() :].lstrip(" ,:;-") if m else text


def change_cue(text: str) -> str | None:
    """``"correct"``, ``"replace"``, ``"new"`` or ``None``: how a statement marks a change
    (module docstring); a quotation, reported speech or a hypothetical marks none."""
    if _CORRECT.search(text):
        return "correct"
    if _KEEP.search(text) or not own_assertion(text):
        return None
    if _cue(_REPLACE, text):
        return "replace"
    return "new" if _cue(_NEW, text) else None


def prototype_texts() -> tuple[list[str], np.ndarray]:
    """Every prototype sentence and the index of its attribute in ``ATTRIBUTES``."""
    texts: list[str] = []
    owners: list[int] = []
    for a, attr in enumerate(ATTRIBUTES):
        texts += attr.prototypes
        owners += [a] * len(attr.prototypes)
    return texts, np.asarray(owners, dtype=np.int64)


def profiles(vectors: np.ndarray, prototype_vectors: np.ndarray, owners: np.ndarray) -> np.ndarray:
    """``(n, attributes)``: ``p_s(a)``, each statement's cosine to the attribute's best prototype."""
    sims = np.asarray(vectors, dtype=np.float32) @ np.asarray(prototype_vectors, dtype=np.float32).T
    out = np.full((len(sims), len(ATTRIBUTES)), -1.0, dtype=np.float32)
    for a in range(len(ATTRIBUTES)):
        if len(sims) and (owners == a).any():
            out[:, a] = sims[:, owners == a].max(axis=1)
    return out


_FUNCTIONAL = np.array([a.functional for a in ATTRIBUTES], dtype=bool)


def candidate(
    new: Statement,
    new_vec: np.ndarray,
    new_prof: np.ndarray,
    olds: Sequence[tuple[Statement, np.ndarray, np.ndarray]],
    *,
    spoke_in_session: bool = False,
) -> Candidate | None:
    """``new`` (a changing statement) with its earlier matches by the same speaker, best first;
    ``None`` when it marks no change or has no earlier statement. ``spoke_in_session``: the
    speaker said something earlier in ``new``'s session (a self-correction then corrects that,
    never an older statement)."""
    cue = change_cue(new.text)
    if cue is None:
        return None
    matches: list[Match] = []
    functional = 0.0
    stems = content_stems(new.text)
    # what a correction says instead is its subject ("No, I meant my sister lives in Leeds")
    said = _after_correction(new.text) if cue == "correct" else new.text
    for old, vec, prof in olds:
        if old.speaker != new.speaker or old.turn_id == new.turn_id or not same_subject(old.text, said):
            continue
        if not same_named_subject(old.text, new.text):  # "Mallory quit the bakery" is Mallory's news
            continue
        if cue == "correct" and spoke_in_session and old.session != new.session:
            continue
        if old.text.lstrip()[:1] in QUOTES:  # a quotation is not the speaker's own statement
            continue
        # a self-correction may take back a turn of its own session; other changes replace what
        # was said on an earlier day (one session tells one state of things)
        if not (old.before(new) if cue == "correct" else old.when < new.when):
            continue
        joint = np.minimum(new_prof, prof)
        a = int(np.argmax(joint))
        shared = bool(stems & content_stems(old.text))
        matches.append(
            Match(
                old,
                float(np.dot(new_vec, vec)),
                a,
                float(joint[a]),
                shared,
                shares_slot(old.text, new.text),
                names_another_thing(old.text, new.text),
                gives_another_value(old.text, said),
            )
        )
    if not matches:
        return None
    matches.sort(key=lambda m: (-round(m.score, 6), m.old.turn_id, m.old.text))
    best = next(p for o, _, p in olds if o is matches[0].old)
    functional = float(np.minimum(new_prof, best)[_FUNCTIONAL].max())
    return Candidate(new, cue, matches, functional)


def decide(
    c: Candidate,
    *,
    attribute_floor: float = ATTRIBUTE_FLOOR,
    similar_floor: float = SIMILAR_FLOOR,
    duplicate: float = DUPLICATE,
) -> Supersession | None:
    """The offline rule (module docstring) on a candidate's best match."""
    m = c.matches[0]
    if m.cosine >= duplicate:
        return None
    typed = m.strength >= attribute_floor
    alike = m.cosine >= similar_floor
    # a replacement word says a value ended: a weaker attribute match will do
    typed_replaced = m.strength >= attribute_floor - REPLACE_SLACK
    if c.cue == "correct":
        # a correction opening a later session names what it corrects ("Correction: the dentist
        # appointment is on Thursday" / "My dentist appointment is on Tuesday")
        ok = (alike or typed) and (m.old.session == c.new.session or (m.shared and m.another_value))
    elif c.cue == "replace":
        # a replacement names what it replaces ("Sold the Panda"), or both are one attribute
        # and alike; a replacement word alone links nothing ("I handed in my notice" is no
        # answer to "I had a second interview")
        ok = m.cosine >= UNTYPED_SIMILAR or (
            (m.shared or typed_replaced) and (alike or typed_replaced) and not m.elsewhere
        )
    else:
        # a new value of a one-value attribute; of a habit, when it takes the same slot (a new
        # state that only names what it replaces and is alike was tried: on long chat turns it
        # linked dozens of statements that changed nothing)
        ok = c.functional_strength >= attribute_floor or (m.slot and alike and bool(_NOW.search(c.new.text)))
    if not ok:
        return None
    name = ATTRIBUTES[m.attribute].name if typed or c.cue == "new" else "statement"
    return Supersession(old=m.old, new=c.new, attribute=name, score=round(m.score, 6))
