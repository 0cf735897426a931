"""A fourth set of invented knowledge-update chats: the shapes the other sets lacked, and as many
near misses where nothing changed (docs/facts-that-change.md; the runner is
``docs/bench-updates/knowledge_updates.py --set shapes``).

Updates (``UPDATES``): a habit said again with "now"; a friend's question naming the old value
right before the new one; three jobs in a row; an address changed at the turn of a year; a self-
correction ("Actually, ignore that: …"), in the same session or in a note-like later one; short
answers to a friend's question ("Cork now."). Near misses (``NEAR``): quotations and reported
speech ("Jonas told me: 'my bank is now …'"), hypotheticals and plans ("If I moved…", "I might
switch…"), the friend's own news, other people's changes ("My sister moved…"), additions
("also"), persistence ("still"), negations, and a replacement word about a different fact
("I handed in my notice" after an interview). Every name, sentence and date is invented.

Each chat names the links construction must make (``links``: (new turn, old turn)); every
other link is a false one. An update chat also asks about the present (``now``: the ``new``
turn first, or the ``old`` one marked) and the past (``before``: the ``old`` turn in the top 5).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from memgraph_agents.model.conversation import Conversation, Session, Turn

P, F = "P", "F"  # the person and the friend, replaced by the chat's names


@dataclass(frozen=True)
class Chat:
    shape: str
    person: str
    friend: str
    sessions: tuple[tuple[tuple[str, str], ...], ...]  # per session: (P|F, text)
    links: frozenset[tuple[str, str]] = frozenset()  # (new turn, old turn) that must be linked
    now: str = ""  # a question about the present (updates)
    before: str = ""  # a question about the past (updates)
    new: str = ""  # the turn stating the current value
    old: str = ""  # the turn stating the value it replaced (the one ``before`` asks about)
    gap_days: tuple[int, ...] = field(default=())  # days between sessions (default 40 each)
    start: datetime = datetime(2024, 2, 5, 19, 0)


_FILL_P = [
    "The weather has been grey all week.",
    "I finally fixed the squeaky hallway door.",
    "I'm reading a thick mystery novel at the moment.",
    "We had a power cut on Sunday and played cards by candlelight.",
    "My tomato plants are finally growing.",
    "The bus was twenty minutes late this morning.",
]
_FILL_F = [
    "Hey! How have you been?",
    "Ha, what a story.",
    "Work is hectic, three deadlines in one week.",
    "I tried a new ramen place, the broth was amazing.",
    "Long time! What's new?",
    "We should go for a walk by the lake soon.",
]


def _three(i: int, old: str, new: str, *, friend_before_new: str | None = None) -> tuple:
    """The usual three sessions: ``old`` is S1:2, small talk, ``new`` is S3:2 (after the
    friend's question naming the old value, when given)."""
    fp, ff = _FILL_P[i % 6], _FILL_F[i % 6]
    s1 = ((F, _FILL_F[(i + 1) % 6]), (P, old), (F, "Oh nice."), (P, fp))
    s2 = ((P, _FILL_P[(i + 2) % 6]), (F, ff))
    s3 = ((F, friend_before_new), (P, new), (F, "Good to know.")) if friend_before_new else ((F, "Any news?"), (P, new))
    return (s1, s2, s3)


def _update(i: int, shape: str, person: str, friend: str, old: str, new: str, now: str, before: str, **kw) -> Chat:
    asked = kw.pop("friend_before_new", None)
    newt = "S3:2"  # after the friend's question when there is one, else after "Any news?"
    return Chat(
        shape,
        person,
        friend,
        _three(i, old, new, friend_before_new=asked),
        frozenset({(newt, "S1:2")}),
        now,
        before,
        newt,
        "S1:2",
        **kw,
    )


def _near(i: int, shape: str, person: str, friend: str, old: str, later: str, *, by_friend: bool = False) -> Chat:
    s = _three(i, old, later)
    if by_friend:
        s = (s[0], s[1], ((F, "Any news?"), (F, later)))
    return Chat(shape, person, friend, s)


UPDATES: list[Chat] = [
    # a habit, said again with "now"
    _update(
        0,
        "habit now",
        "Ottoline",
        "Ravi",
        "I run along the canal every morning before work.",
        "I swim every morning now, my knees are grateful.",
        "What does Ottoline do every morning now?",
        "What did Ottoline use to do every morning?",
    ),
    _update(
        1,
        "habit now",
        "Grigor",
        "Sunniva",
        "On Sunday evenings I play board games with my neighbours.",
        "Sunday evenings are for my pottery class now.",
        "What does Grigor do on Sunday evenings these days?",
        "What did Grigor do on Sunday evenings before?",
    ),
    _update(
        2,
        "habit now",
        "Halina",
        "Teo",
        "I drink three espressos a day, sometimes four.",
        "It's green tea for me now, no more coffee.",
        "What does Halina drink now?",
        "What did Halina use to drink?",
    ),
    _update(
        3,
        "habit now",
        "Bartholomew",
        "Yuki",
        "Every weekend I go fishing at the reservoir with my uncle.",
        "I spend my weekends rock climbing now.",
        "What does Bartholomew do on weekends now?",
        "What did Bartholomew do on weekends before?",
    ),
    # a friend's question names the old value right before the new one
    _update(
        4,
        "friend names old city",
        "Ruadhan",
        "Elske",
        "We live in Galway, two streets from the harbour.",
        "Not any more! We moved to Cork last month.",
        "Where does Ruadhan live now?",
        "Where did Ruadhan live before?",
        friend_before_new="How's life in Galway these days?",
    ),
    _update(
        5,
        "friend names old city",
        "Marguerite",
        "Oskar",
        "I'm renting a flat in Bremen near the old harbour.",
        "Oh, I left Bremen in the summer. I live in Hamburg now.",
        "Which city does Marguerite live in now?",
        "Where did Marguerite live before?",
        friend_before_new="Still enjoying Bremen?",
    ),
    _update(
        6,
        "friend names old job",
        "Desmond",
        "Priya",
        "I work as a line cook at a steakhouse downtown.",
        "No, I quit the steakhouse. I'm a baker at a small bakery now.",
        "What is Desmond's job now?",
        "What did Desmond do for work before?",
        friend_before_new="Are you still cooking at the steakhouse?",
    ),
    # a short answer to the friend's question
    _update(
        7,
        "short answer",
        "Ilaria",
        "Bogdan",
        "I'm based in Turin for my job, near the river.",
        "Milan now, since the office moved.",
        "Where is Ilaria based now?",
        "Where was Ilaria based before?",
        friend_before_new="Where are you living these days?",
    ),
    _update(
        8,
        "short answer",
        "Jarvis",
        "Noemi",
        "I drive an old blue Volvo estate.",
        "A little electric Fiat now. Sold the Volvo.",
        "What car does Jarvis drive now?",
        "What car did Jarvis drive before?",
        friend_before_new="What are you driving these days?",
    ),
    # an address changed at the turn of a year (the new one said in early January)
    _update(
        9,
        "address new year",
        "Winifred",
        "Kofi",
        "My address is 12 Birch Road, flat 4, if you want to send the card.",
        "New year, new address: we moved to 3 Willow Close.",
        "What is Winifred's address now?",
        "What was Winifred's address at the start of 2025?",
        gap_days=(20, 45),
        start=datetime(2024, 11, 5, 18, 0),
    ),
    _update(
        10,
        "address new year",
        "Lysander",
        "Mette",
        "Post for me goes to 88 Harbour Street these days.",
        "Since the first of January my address is 5 Elm Court.",
        "What is Lysander's address?",
        "What was Lysander's address in December 2024?",
        gap_days=(20, 45),
        start=datetime(2024, 11, 5, 18, 0),
    ),
    # a self-correction
    _update(
        11,
        "self-correction",
        "Ysolde",
        "Marek",
        "My bank is Northbridge Savings, they have the best app.",
        "Actually, ignore that: my bank is now Coral Credit Union, I switched last week.",
        "Which bank is Ysolde with now?",
        "Which bank was Ysolde with before?",
    ),
    _update(
        12,
        "self-correction",
        "Cuthbert",
        "Anya",
        "My dentist appointment is on Tuesday the 4th.",
        "Correction: the dentist appointment is on Thursday the 6th, not Tuesday.",
        "When is Cuthbert's dentist appointment now?",
        "When was Cuthbert's dentist appointment originally?",
    ),
    _update(
        13,
        "self-correction",
        "Leocadia",
        "Sven",
        "My mobile number is 0151 220 3344.",
        "Scratch that, I mistyped: my mobile number is 0151 220 3434.",
        "What is Leocadia's mobile number?",
        "What mobile number did Leocadia give before?",
    ),
    # plain updates in other words
    _update(
        14,
        "update",
        "Barnaby",
        "Ingrid",
        "I'm a history teacher at the grammar school.",
        "I left teaching in the spring; I'm a tour guide at the castle now.",
        "What does Barnaby do for work now?",
        "What was Barnaby's job before?",
    ),
    _update(
        15,
        "update",
        "Rozalia",
        "Dmitri",
        "I bank with Heron Bank, have done since school.",
        "I moved all my accounts to Kestrel Bank, Heron's fees got silly.",
        "Which bank does Rozalia use now?",
        "Which bank did Rozalia use before?",
    ),
    _update(
        16,
        "update",
        "Tancredi",
        "Ulla",
        "We live in a flat in Lisbon's Alfama, up a hundred steps.",
        "We've relocated to Porto for my wife's job.",
        "Where does Tancredi live now?",
        "Where did Tancredi live before?",
    ),
    _update(
        17,
        "update",
        "Philippa",
        "Joaquin",
        "I'm vegetarian, have been for ten years.",
        "I'm fully vegan now, no more cheese.",
        "What is Philippa's diet now?",
        "What was Philippa's diet before?",
    ),
    _update(
        18,
        "update",
        "Aurelio",
        "Tamsin",
        "My partner Giles and I live together in a houseboat.",
        "Giles and I broke up; I'm seeing Rafe now.",
        "Who is Aurelio's partner now?",
        "Who was Aurelio's partner before?",
    ),
    _update(
        19,
        "update",
        "Sigourney",
        "Olek",
        "I cycle to the lab every day, rain or shine.",
        "I take the bus to the lab now since the bike was stolen.",
        "How does Sigourney get to the lab now?",
        "How did Sigourney get to the lab before?",
    ),
    _update(
        20,
        "update",
        "Emeric",
        "Kalinda",
        "My email is emeric.v@pinemail.example.",
        "I changed my email to emeric.vance@riverpost.example.",
        "What is Emeric's email address now?",
        "What was Emeric's email address before?",
    ),
    _update(
        21,
        "update",
        "Honora",
        "Piotr",
        "I study nursing at the college in Hull.",
        "I switched to midwifery this term.",
        "What is Honora studying now?",
        "What did Honora study before?",
    ),
    _update(
        22,
        "update",
        "Caspian",
        "Lieve",
        "I work night shifts at the hospital pharmacy.",
        "I'm on day shifts now, finally sleeping properly.",
        "What shifts does Caspian work now?",
        "What shifts did Caspian work before?",
    ),
    _update(
        23,
        "update",
        "Zuleika",
        "Arne",
        "I play the trumpet in the town brass band.",
        "I quit the brass band and play trumpet in a jazz combo instead.",
        "Which band does Zuleika play in now?",
        "Which band did Zuleika play in before?",
    ),
    _update(
        24,
        "update",
        "Everard",
        "Nkechi",
        "My GP is Dr. Falk at the Mill Street surgery.",
        "Dr. Falk retired, so my GP is Dr. Osei now.",
        "Who is Everard's GP now?",
        "Who was Everard's GP before?",
    ),
    _update(
        25,
        "update",
        "Marisela",
        "Tor",
        "I earn 2,300 a month at the garden centre.",
        "With the new contract I'm on 2,750 a month.",
        "How much does Marisela earn now?",
        "How much did Marisela earn before?",
    ),
]

# Three jobs in a row: the question "before the current one" asks for the middle one.
UPDATES += [
    Chat(
        "job chain",
        "Florentyna",
        "Idris",
        (
            ((F, "How's work?"), (P, "I'm a cashier at the big supermarket on the ring road.")),
            ((F, "Any news?"), (P, "I left the supermarket, I'm a receptionist at a dental clinic now.")),
            ((F, "Long time!"), (P, "I quit the clinic and now I work as a paralegal at a law firm.")),
        ),
        frozenset({("S2:2", "S1:2"), ("S3:2", "S2:2")}),
        "What is Florentyna's job now?",
        "What was Florentyna's job before the current one?",
        "S3:2",
        "S2:2",
    ),
    Chat(
        "job chain",
        "Anselmo",
        "Brigid",
        (
            ((F, "What are you up to?"), (P, "I deliver parcels for a courier firm, long days in the van.")),
            ((F, "How's the van life?"), (P, "Done with the van: I'm a warehouse supervisor now.")),
            ((F, "What's new?"), (P, "I left the warehouse and started as a bus driver for the city.")),
        ),
        frozenset({("S2:2", "S1:2"), ("S3:2", "S2:2")}),
        "What does Anselmo do for work now?",
        "What job did Anselmo have before the current one?",
        "S3:2",
        "S2:2",
    ),
    Chat(
        "city chain",
        "Theodora",
        "Ludo",
        (
            ((F, "Where are you these days?"), (P, "We live in Leeds, close to the university.")),
            ((F, "And now?"), (P, "We moved to York in the autumn.")),
            ((F, "Settled?"), (P, "We relocated again, to Durham this time, for my husband's post.")),
        ),
        frozenset({("S2:2", "S1:2"), ("S3:2", "S2:2")}),
        "Where does Theodora live now?",
        "Where did Theodora live before the current city?",
        "S3:2",
        "S2:2",
    ),
    # a self-correction in the same session, two turns later
    Chat(
        "self-correction same session",
        "Octavian",
        "Maud",
        (
            (
                (F, "What's your new number?"),
                (P, "My new number is 0170 555 1212."),
                (F, "Got it."),
                (P, "Sorry, I meant 0170 555 1221, I always swap those digits."),
            ),
            ((F, "How was the trip?"), (P, "The trip was long but fun.")),
        ),
        frozenset({("S1:4", "S1:2")}),
        "What is Octavian's phone number?",
        "What number did Octavian give first?",
        "S1:4",
        "S1:2",
        gap_days=(30,),
    ),
    Chat(
        "self-correction same session",
        "Perpetua",
        "Hakon",
        (
            (
                (F, "Where's the party?"),
                (P, "The party is at my place on Friday."),
                (F, "Great."),
                (P, "Actually, ignore that: the party is at Liv's place now, my flat is too small."),
            ),
            ((F, "Looking forward!"), (P, "Me too, I'm baking a cake.")),
        ),
        frozenset({("S1:4", "S1:2")}),
        "Where is Perpetua's party now?",
        "Where was Perpetua's party planned at first?",
        "S1:4",
        "S1:2",
        gap_days=(5,),
    ),
]

NEAR: list[Chat] = [
    # quotations and reported speech
    _near(
        0,
        "quotation",
        "Ysolde",
        "Marek",
        "My bank is Northbridge Savings, they have the best app.",
        "Jonas told me: 'my bank is now Evilbank'. Poor guy.",
    ),
    _near(
        1,
        "quotation",
        "Hester",
        "Rainer",
        "I live in a cottage outside Kendal.",
        'My cousin wrote to say "we moved to Glasgow last month", which surprised everyone.',
    ),
    _near(
        2,
        "reported speech",
        "Benedikt",
        "Orla",
        "I work at the city library as an archivist.",
        "My boss said she quit her job at the museum last year.",
    ),
    _near(
        3,
        "reported speech",
        "Cordelia",
        "Jasper",
        "I'm vegetarian and have been for years.",
        "My doctor says she is vegan now, and she looks great.",
    ),
    _near(
        4,
        "reported speech",
        "Lazarus",
        "Fenna",
        "I drive a grey Toyota Corolla.",
        "Apparently my neighbour sold his car and switched to an e-bike.",
    ),
    # hypotheticals and plans
    _near(
        5,
        "hypothetical",
        "Miroslav",
        "Celeste",
        "We rent a flat in Graz.",
        "If we moved to Vienna, I'd need a new job.",
    ),
    _near(
        6,
        "hypothetical",
        "Rosalba",
        "Uwe",
        "I work at the post office sorting parcels.",
        "I might quit the post office next year, we'll see.",
    ),
    _near(
        7,
        "hypothetical",
        "Kasimir",
        "Delphine",
        "My bank is Granite Mutual.",
        "I'm thinking about switching banks, maybe to an online one.",
    ),
    _near(
        8,
        "hypothetical",
        "Evadne",
        "Mortimer",
        "I play the cello in the university orchestra.",
        "Sometimes I wonder what would happen if I switched to the double bass.",
    ),
    # the friend's own news
    _near(
        9,
        "friend's news",
        "Severina",
        "Gus",
        "I live in Antwerp, right by the zoo.",
        "We moved to Ghent last month, the new flat is lovely.",
        by_friend=True,
    ),
    _near(
        10,
        "friend's news",
        "Armand",
        "Lotte",
        "I'm a pharmacist at the hospital.",
        "I quit the bakery and I'm a nurse now.",
        by_friend=True,
    ),
    _near(
        11,
        "friend's news",
        "Jocasta",
        "Pim",
        "My bank is Lindenbank.",
        "I switched to Coral Credit Union, best decision ever.",
        by_friend=True,
    ),
    # other people's changes, told by the person
    _near(12, "other person", "Adrienne", "Kwame", "I live in Utrecht.", "My sister moved to Rotterdam in the spring."),
    _near(
        13,
        "other person",
        "Bjorn",
        "Talia",
        "I work as an electrician for a small firm.",
        "My brother quit working for the bank and now he's a carpenter.",
    ),
    _near(
        14,
        "other person",
        "Clementine",
        "Raul",
        "I'm with Orchard Bank.",
        "My dad switched his accounts to Kestrel Bank now.",
    ),
    # additions and persistence
    _near(
        15,
        "addition",
        "Dorothea",
        "Iker",
        "I knit in the evenings, mostly scarves.",
        "I also started painting on Sunday mornings.",
    ),
    _near(
        16,
        "addition",
        "Eugen",
        "Sabah",
        "We have a black cat called Soot.",
        "We adopted a puppy as well, so Soot has a friend now.",
    ),
    _near(
        17,
        "persistence",
        "Fabiola",
        "Knut",
        "I work at the bike shop on Quay Street.",
        "Still at the bike shop, still covered in grease.",
    ),
    _near(
        18,
        "persistence",
        "Gwendolyn",
        "Yusuf",
        "We live in Dundee near the bridge.",
        "We're still in Dundee, the view is as good as ever.",
    ),
    # negations
    _near(
        19,
        "negation",
        "Horatio",
        "Ama",
        "I work as a paramedic in the city.",
        "I'm not quitting the ambulance service, whatever people say.",
    ),
    _near(
        20,
        "negation",
        "Imelda",
        "Lars",
        "My partner Colm and I live by the sea.",
        "Colm and I didn't break up, that was a rumour.",
    ),
    # a replacement word about a different fact
    _near(
        21,
        "different fact",
        "Jules",
        "Marta",
        "I had a second interview at a design studio on Friday.",
        "I handed in my notice at the print shop yesterday, my boss took it well.",
    ),
    _near(
        22,
        "different fact",
        "Kolya",
        "Edda",
        "My sister's wedding is at a vineyard in September.",
        "I sold my old bike to a student for forty euros.",
    ),
    _near(
        23,
        "different fact",
        "Laurentia",
        "Obi",
        "I'm training for a marathon in the spring.",
        "I moved the sofa to the other wall, the room feels bigger.",
    ),
    _near(
        24,
        "different fact",
        "Magnus",
        "Pilar",
        "I teach maths at the secondary school.",
        "I stopped by the market and bought cherries.",
    ),
    # "now" that marks no change of a fact
    _near(
        25, "now, no change", "Nerys", "Quentin", "I live in Cardiff with my two cats.", "I'm so tired now, long day."
    ),
    _near(
        26,
        "now, no change",
        "Osvaldo",
        "Runa",
        "I work at the airport as a baggage handler.",
        "Right now I'm on my lunch break at the airport, it's packed.",
    ),
    _near(
        27,
        "new, no change",
        "Prudence",
        "Stellan",
        "I play tennis at the club on Saturdays.",
        "I bought new tennis shoes for Saturday, they're bright orange.",
    ),
    # a question by the person is no statement
    _near(
        28,
        "question",
        "Quirin",
        "Tove",
        "I live in Aarhus near the harbour.",
        "Should we move to Copenhagen, do you think?",
    ),
    _near(
        29,
        "restatement",
        "Rosalind",
        "Umar",
        "I'm a nurse on the children's ward.",
        "As I said, I'm a nurse on the children's ward, nights mostly.",
    ),
]

CHATS: list[Chat] = UPDATES + NEAR


def conversation(i: int, chats: list[Chat] | None = None) -> Conversation:
    """Chat ``i`` of ``chats`` (default ``CHATS``) as a conversation, sessions ``S1``…"""
    c = (chats or CHATS)[i]
    who = {P: c.person, F: c.friend}
    gaps = list(c.gap_days) or [40] * (len(c.sessions) - 1)
    sessions = []
    day = c.start + timedelta(days=i % 9)
    for n, lines in enumerate(c.sessions, start=1):
        sid = f"S{n}"
        turns = [Turn(id=f"{sid}:{j}", speaker=who[w], text=t) for j, (w, t) in enumerate(lines, start=1)]
        sessions.append(Session(id=sid, date=day, turns=turns, participants=[c.person, c.friend]))
        if n <= len(gaps):
            day += timedelta(days=gaps[n - 1])
    return Conversation(id=f"shape-{i:02d}", sessions=sessions, speakers=[c.person, c.friend])
