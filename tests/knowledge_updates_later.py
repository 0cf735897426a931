"""A seventh set of invented knowledge-update chats, written after ``knowledge_updates_new_shapes``
had been looked at and before the rules that set led to (a "new" value that names what it
replaces, "traded … for", a transfer, someone new at work), and run against the detector before
and after them only (BENCHMARKS.md "Facts that change"); the runner is
``docs/bench-updates/shapes.py --set later``. Shapes again not in the other sets: a change told
as a plan come true ("The move finally happened"), a wedding that changes a name, a commute, a
gym, a choir left for a band, a landlord who sold the flat, a diet told with "these days", a
phone provider, a language course, a boss replaced (another person's change: no link), an
anniversary retold, a joke about moving, a neighbour's new car. Every name, sentence and date
is invented.
"""

from __future__ import annotations

from tests.knowledge_updates_shapes import Chat, _near, _update

UPDATES: list[Chat] = [
    _update(
        0,
        "plan come true",
        "Benedetta",
        "Caius",
        "We rent a small flat in Aberdeen, the heating is hopeless.",
        "The move finally happened: we're in Inverness now, with proper heating.",
        "Where does Benedetta live now?",
        "Where did Benedetta live before?",
    ),
    _update(
        1,
        "name after wedding",
        "Delphina",
        "Evander",
        "My surname is Kowalczyk, nobody can spell it.",
        "I took my wife's name when we married, so I'm Delphina Hart now.",
        "What is Delphina's surname now?",
        "What was Delphina's surname before?",
    ),
    _update(
        2,
        "commute",
        "Fergus",
        "Giedre",
        "I drive to the office every day, an hour in traffic.",
        "I sold the car and take the ferry to the office now, it's lovely.",
        "How does Fergus get to the office now?",
        "How did Fergus get to the office before?",
    ),
    _update(
        3,
        "gym",
        "Hortensia",
        "Ivo",
        "I go to the FitFirst gym on Canal Street, it's cheap.",
        "I cancelled FitFirst and joined the climbing gym by the station.",
        "Which gym does Hortensia go to now?",
        "Which gym did Hortensia go to before?",
    ),
    _update(
        4,
        "choir to band",
        "Jasper",
        "Kirsi",
        "I sing tenor in the cathedral choir on Thursdays.",
        "I left the choir; Thursdays I rehearse with a jazz band now.",
        "What does Jasper do on Thursdays now?",
        "What did Jasper do on Thursdays before?",
    ),
    _update(
        5,
        "landlord sold",
        "Leontyne",
        "Marius",
        "I rent a flat on Quarry Road from a nice old landlord.",
        "My landlord sold the building, so I moved to a studio on Fern Street.",
        "Where does Leontyne live now?",
        "Where did Leontyne live before?",
    ),
    _update(
        6,
        "diet these days",
        "Nikandros",
        "Olwen",
        "I eat meat with almost every meal.",
        "These days I'm pescatarian, fish but no meat.",
        "What does Nikandros eat these days?",
        "What did Nikandros eat before?",
    ),
    _update(
        7,
        "provider",
        "Philippa",
        "Quang",
        "My phone contract is with Telavox, forty a month.",
        "I switched my phone contract to a cheap SIM-only deal with Mobicell.",
        "Which phone provider is Philippa with now?",
        "Which phone provider was Philippa with before?",
    ),
    _update(
        8,
        "course",
        "Rasmus",
        "Sigrun",
        "I'm learning Italian at an evening class.",
        "I dropped Italian and started a Japanese course instead.",
        "Which language is Rasmus learning now?",
        "Which language was Rasmus learning before?",
    ),
    _update(
        9,
        "new employer",
        "Tamsin",
        "Ugo",
        "I work in the accounts team at a furniture maker.",
        "My new employer is a solar panel company, I do their accounts.",
        "Who does Tamsin work for now?",
        "Who did Tamsin work for before?",
    ),
]

NEAR: list[Chat] = [
    _near(
        0,
        "someone else replaced",
        "Valeska",
        "Wendel",
        "I work at the garden centre on the ring road.",
        "Our old boss retired and the new boss started last week.",
    ),
    _near(
        1,
        "anniversary retold",
        "Xenia",
        "Yorick",
        "My husband Tomas and I met at university.",
        "Tomas and I celebrated ten years since we met, at the same pub.",
    ),
    _near(
        2,
        "joke about moving",
        "Zebulon",
        "Amara",
        "I live in Derby, near the old silk mill.",
        "Moved to Hawaii, obviously. Joking, still in Derby and it's raining.",
    ),
    _near(
        3,
        "neighbour's new car",
        "Aldous",
        "Bryony",
        "I drive a silver Honda Jazz.",
        "The neighbour bought a new electric car and parks it in my spot.",
    ),
    _near(
        4,
        "friend's question",
        "Cressida",
        "Dario",
        "I work at the tax office in town.",
        "Why would I quit the tax office? I love it there.",
    ),
]

CHATS: list[Chat] = UPDATES + NEAR
