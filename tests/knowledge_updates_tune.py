"""Invented chats on which the offline supersession detector's parameters were chosen.

The acceptance set (``tests/knowledge_updates.py``) is kept apart: nothing there was looked at
while choosing them. Besides updates (``CASES``) this set holds statements that must NOT be
linked (``KEEPS``): a second hobby next to the first, a fact repeated with "still", the
friend's own news on the same attribute. Every name and sentence is invented.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from memgraph_agents.model.conversation import Conversation, Session, Turn


@dataclass(frozen=True)
class Case:
    person: str
    friend: str
    old: str
    new: str
    supersedes: bool  # whether ``new`` replaces ``old``
    new_by_friend: bool = False  # the later statement is the friend's (a different subject)


CASES: list[Case] = [
    Case(
        "Gudrun",
        "Pelle",
        "I work at the town library, shelving and running the kids' reading hour.",
        "Handed in my notice at the library; I start at a bookshop on Monday.",
        True,
    ),
    Case(
        "Mirela",
        "Ambrose",
        "Home is a narrow terraced house in Leeds with a damp cellar.",
        "We relocated to Bristol in the spring.",
        True,
    ),
    Case(
        "Keoni",
        "Dagmar",
        "I don't touch sugar at all, I quit it two years ago.",
        "I'm back on desserts, life is short.",
        True,
    ),
    Case(
        "Brigitta",
        "Lorcan",
        "We have two rabbits, Toffee and Fudge.",
        "Toffee and Fudge went to my niece, and we got a parrot.",
        True,
    ),
    Case(
        "Thaddeus",
        "Ines",
        "My boyfriend Marek cooks for me every Sunday.",
        "Marek and I are over. I've met someone new, Lavinia.",
        True,
    ),
    Case(
        "Aurelie",
        "Stig",
        "Call me on 0612 338 004 if anything comes up.",
        "My number's different now: 0687 220 951.",
        True,
    ),
    Case(
        "Ravindra",
        "Oona",
        "I'm doing a nursing degree at the college in town.",
        "I dropped out of nursing and enrolled in accounting.",
        True,
    ),
    Case(
        "Hedda", "Quillon", "I earn about 38,000 a year at the print shop.", "With the raise I'm at 44,000 now.", True
    ),
    Case(
        "Florin",
        "Wanjiru",
        "My evenings are for chess club, three nights a week.",
        "Chess is over for me, I joined an improv theatre group.",
        True,
    ),
    Case(
        "Ottilie",
        "Bram",
        "Dr. Lindqvist has been my family doctor for years.",
        "Dr. Lindqvist moved to another town, so my doctor is Dr. Mbeki now.",
        True,
    ),
    Case(
        "Casimir",
        "Yara",
        "I take Portuguese classes on Thursday nights.",
        "I switched from Portuguese to Greek this term.",
        True,
    ),
    Case(
        "Idunn",
        "Reuben",
        "I row on the river every morning with the club.",
        "No more rowing for me; my back prefers yoga.",
        True,
    ),
    Case(
        "Lucan",
        "Sabine",
        "I drive a little green Renault Clio.",
        "The Clio is sold, I lease an electric Kia now.",
        True,
    ),
    Case(
        "Marisol",
        "Eben",
        "I sing in the church choir on Sundays.",
        "I quit the choir and sing in a jazz quartet instead.",
        True,
    ),
    Case(
        "Wilhelmina",
        "Tomasz",
        "I live at 22 Heron Street, the blue door.",
        "We're at 5 Poplar Row since the move.",
        True,
    ),
    Case(
        "Ferdinand",
        "Agathe",
        "I'm a barista at the corner cafe.",
        "I'm a barista at the new place on the square now.",
        True,
    ),
    # Statements that do not replace the earlier one.
    Case(
        "Rosamund",
        "Ibrahim",
        "I knit scarves for the whole family every winter.",
        "I've also started baking sourdough on weekends.",
        False,
    ),
    Case(
        "Evander",
        "Klara",
        "I work at the harbour office, sorting shipping papers.",
        "Still at the harbour office, still sorting papers.",
        False,
    ),
    Case(
        "Sigrun",
        "Teodoro",
        "I live in a flat in Graz near the university.",
        "I just moved into a new flat in Vienna.",
        False,
        new_by_friend=True,
    ),
    Case(
        "Leandro",
        "Mette",
        "We adopted a kitten named Pebble.",
        "Pebble chewed through my headphone cable today.",
        False,
    ),
    Case("Anneliese", "Corwin", "My sister lives in Oslo.", "I visited my cousin in Bergen last weekend.", False),
    Case(
        "Godfrey",
        "Paz",
        "I'm training for a half marathon in autumn.",
        "I ran twenty kilometres on Sunday, my longest run yet.",
        False,
    ),
]

_FILLER = [
    "It rained the whole weekend, so we stayed in.",
    "I'm halfway through a long history podcast.",
    "Our landlord finally fixed the heating.",
    "The market had cheap strawberries today.",
    "I can't believe it's already this late in the year.",
    "The train was packed this morning.",
    "I tried a new recipe with lentils, not bad.",
    "Someone left a sofa on the pavement outside.",
]


def conversation(i: int) -> Conversation:
    """Case ``i`` as three sessions: the old statement is ``S1:2``, the later one ``S3:2``."""
    c = CASES[i]
    p, f = c.person, c.friend
    filler = [_FILLER[(i + j) % len(_FILLER)] for j in range(6)]
    s1 = [(f, "Hi! What's going on with you?"), (p, c.old), (f, filler[0]), (p, filler[1])]
    s2 = [(p, filler[2]), (f, filler[3]), (p, filler[4])]
    s3 = [(f, "Long time! Any news?"), (f if c.new_by_friend else p, c.new), (p, filler[5])]
    start = datetime(2023, 9, 4, 20, 0) + timedelta(days=3 * i)

    def turns(sid: str, lines: list[tuple[str, str]]) -> list[Turn]:
        return [Turn(id=f"{sid}:{n}", speaker=who, text=text) for n, (who, text) in enumerate(lines, start=1)]

    sessions = [
        Session(id="S1", date=start, turns=turns("S1", s1), participants=[p, f]),
        Session(id="S2", date=start + timedelta(days=30), turns=turns("S2", s2), participants=[p, f]),
        Session(id="S3", date=start + timedelta(days=90), turns=turns("S3", s3), participants=[p, f]),
    ]
    return Conversation(id=f"tune-{i:02d}", sessions=sessions, speakers=[p, f])


OLD_TURN, NEW_TURN = "S1:2", "S3:2"
