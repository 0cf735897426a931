"""A fifth set of invented knowledge-update chats: someone else's words that must retire nothing,
and self-corrections that must retract only what they correct (docs/facts-that-change.md; the
runner is ``docs/bench-updates/shapes.py --set relayed``).

Near misses (``RELAYED``): the person states a fact in session 1, and in session 3 relays a claim
about it ("Mallory told me: 'I quit.'", "People say I quit the bakery, which is not true"),
jokes ("… Just kidding!"), denies a rumour, echoes the friend's news, or tells a named third
person's news in the words of a change ("Mallory quit the bakery and moved to Berlin"). None is
a change: no link, and a question about the present still finds the person's fact unmarked
(``now``, ``old``: the fact's turn).

Self-corrections (``CORRECTIONS``): a correction retracts the statement it corrects, which is
the person's own earlier statement in the same session when there is one (not an older turn
that shares a word with it), and nothing when what it corrects was a question or was never said.

Written for this work; the rules of ``construct.voice`` were built while looking at it, so it is
not held out (``tests/knowledge_updates_new_shapes.py`` is). Every name, sentence and date is
invented.
"""

from __future__ import annotations

from tests.knowledge_updates_shapes import Chat, F, P, _three


def _relayed(i: int, shape: str, person: str, friend: str, fact: str, later: str, now: str) -> Chat:
    """The person's ``fact`` (S1:2), small talk, ``later`` (S3:2, after "Any news?"): no link."""
    return Chat(shape, person, friend, _three(i, fact, later), frozenset(), now=now, old="S1:2")


RELAYED: list[Chat] = [
    _relayed(
        0,
        "relayed quotation",
        "Annika",
        "Basil",
        "I bake bread at the Rosebud bakery, night shifts mostly.",
        "Mallory told me: 'I quit.' She sounded so relieved.",
        "Where does Annika work now?",
    ),
    _relayed(
        1,
        "relayed, no quotation marks",
        "Annika",
        "Basil",
        "I bake bread at the Rosebud bakery, night shifts mostly.",
        "Mallory told me: I quit the bakery, no notice, nothing.",
        "Where does Annika work now?",
    ),
    _relayed(
        2,
        "negated rumour",
        "Annika",
        "Basil",
        "I bake bread at the Rosebud bakery, night shifts mostly.",
        "People say I quit the bakery, which is not true.",
        "Where does Annika work now?",
    ),
    _relayed(
        3,
        "negated rumour",
        "Corentin",
        "Dalia",
        "I live in Norwich, in a flat above a chip shop.",
        "Rumour has it I moved to Leeds. Nonsense, I love it here.",
        "Where does Corentin live now?",
    ),
    _relayed(
        4,
        "negated rumour",
        "Eilidh",
        "Fintan",
        "We live in the old farmhouse outside Ely.",
        "Everyone assumes we sold the farmhouse after the divorce, but we didn't.",
        "Where does Eilidh live now?",
    ),
    _relayed(
        5,
        "negated rumour",
        "Gideon",
        "Hanne",
        "I'm vegetarian, have been since school.",
        "My aunt thinks I'm vegan now. I'm not.",
        "What does Gideon eat these days?",
    ),
    _relayed(
        6,
        "joke",
        "Ismay",
        "Jorge",
        "I work at Hallam Bank as a loan officer.",
        "I'm quitting the bank to become a pirate! Just kidding.",
        "Where does Ismay work now?",
    ),
    _relayed(
        7,
        "joke",
        "Kerensa",
        "Lorcan",
        "I drive an old red Fiat Panda.",
        "Sold the Fiat and bought a spaceship. Kidding, obviously.",
        "What does Kerensa drive now?",
    ),
    _relayed(
        8,
        "joke",
        "Madoc",
        "Nuala",
        "I work at the tax office in the town hall.",
        "In my dreams I've quit the tax office and moved to Lisbon.",
        "Where does Madoc work now?",
    ),
    _relayed(
        9,
        "relayed",
        "Odile",
        "Pavel",
        "I drive a green Skoda estate.",
        "My friend Tilda swears I sold the Skoda, but it's parked right outside.",
        "What car does Odile drive now?",
    ),
    _relayed(
        10,
        "relayed message",
        "Annika",
        "Basil",
        "I bake bread at the Rosebud bakery, night shifts mostly.",
        "Got a text from Mallory: new job, new city, she's in Berlin now.",
        "Where does Annika work now?",
    ),
    _relayed(
        11,
        "named person's news",
        "Annika",
        "Basil",
        "I bake bread at the Rosebud bakery, night shifts mostly.",
        "Mallory quit the bakery and moved to Berlin last month.",
        "Where does Annika work now?",
    ),
    _relayed(
        12,
        "named person's news",
        "Quilla",
        "Rafferty",
        "My bank is Lindenbank, the app is fine.",
        "Jorunn has switched to Coral Credit Union now.",
        "Which bank is Quilla with now?",
    ),
    _relayed(
        13,
        "friend's news echoed",
        "Corentin",
        "Dalia",
        "I live in Norwich, in a flat above a chip shop.",
        "Wow, so you moved to Leeds! Congrats, the new flat sounds lovely.",
        "Where does Corentin live now?",
    ),
    _relayed(
        14,
        "relayed, reported",
        "Solveig",
        "Tobias",
        "I teach piano at the music school on Friar Lane.",
        "The headteacher said I was leaving, but she mixed me up with another teacher.",
        "Where does Solveig teach now?",
    ),
]

CORRECTIONS: list[Chat] = [
    # the correction fixes the turn two before it, not the older turn sharing a word with it
    Chat(
        "correction of this session",
        "Ulrike",
        "Vasco",
        (
            ((F, "How's the week?"), (P, "I'm at the gym most evenings after work."), (F, "Good for you.")),
            ((P, "The weather has been grey all week."), (F, "Same here.")),
            (
                (F, "When should I come over on Saturday?"),
                (P, "Come at seven, I'll cook a curry."),
                (F, "Great."),
                (P, "Sorry, I meant eight, I'm at the gym until half past seven."),
            ),
        ),
        frozenset({("S3:4", "S3:2")}),
        "What time should Vasco come over on Saturday?",
        "What time did Ulrike first tell Vasco to come over?",
        "S3:4",
        "S3:2",
    ),
    Chat(
        "correction of this session",
        "Wilfried",
        "Xanthe",
        (
            ((F, "New phone?"), (P, "Yes, my phone number is 0161 496 0000 now."), (F, "Saved it.")),
            ((P, "I finally fixed the squeaky hallway door."), (F, "Ha, what a story.")),
            (
                (F, "What's your number at the new office?"),
                (P, "My office number is 0161 496 7000."),
                (F, "Thanks."),
                (P, "Sorry, I meant 0161 496 7001, I mixed up the last digit."),
            ),
        ),
        frozenset({("S3:4", "S3:2")}),
        "What is Wilfried's office number?",
        "What office number did Wilfried give first?",
        "S3:4",
        "S3:2",
    ),
    # what it corrects was a question: nothing of the person's is retracted
    Chat(
        "correction of a question",
        "Yannick",
        "Zofia",
        (
            ((F, "How are things?"), (P, "My dentist is Dr Okafor on Mill Lane, she's very gentle."), (F, "Nice.")),
            ((P, "My tomato plants are finally growing."), (F, "Lovely.")),
            (
                (P, "Are you free on Tuesday for lunch?"),
                (F, "Tuesday works."),
                (P, "Oh wait, I meant Wednesday, I have the dentist on Tuesday."),
            ),
        ),
    ),
    # a correction that opens a session and names nothing the person said before
    Chat(
        "correction of nothing said",
        "Albin",
        "Brona",
        (
            ((F, "What do you do?"), (P, "I work at the Rosebud bakery on Elm Street."), (F, "Oh nice.")),
            ((P, "We had a power cut on Sunday and played cards by candlelight."), (F, "Fun!")),
            ((P, "Correction to my email: the meeting is on Monday, not Sunday."), (F, "Noted.")),
        ),
    ),
    # the person corrects the friend's reading, not a statement of their own
    Chat(
        "correction of the friend",
        "Cosima",
        "Dorian",
        (
            ((F, "Where do you live?"), (P, "I live in Norwich, in a flat above a chip shop."), (F, "Oh nice.")),
            ((P, "My sister moved to Leeds in the spring."), (F, "So you moved to Leeds?")),
            ((P, "No, I meant my sister lives in Leeds. I'm in Norwich as ever."), (F, "Got it.")),
        ),
    ),
]

CHATS: list[Chat] = RELAYED + CORRECTIONS
