"""A sixth set of invented knowledge-update chats, in shapes none of the others has, written before
the rules of ``construct.voice`` were changed and run against the detector before and after
(BENCHMARKS.md "Facts that change"); the runner is ``docs/bench-updates/shapes.py --set new``.

Updates: "used to … now", "from X to Y", a change after other news in one turn, a change given
as a note ("New address: …"), a reply led by a pronoun ("It's … now"), "after eight years at X",
a transfer, "now at …" with no subject, "no longer with …", a change with "we're … now", a pet
that died, a team that let the person go, a reply to a "still …?" question. Near misses: a
question that names the change ("Guess who quit?"), a denial of a question ("People keep asking
if I moved. I didn't."), a plan with "imagine", someone new at the person's work, an old
grievance retold, the friend's change confirmed by the person. Every name, sentence and date is
invented.
"""

from __future__ import annotations

from tests.knowledge_updates_shapes import Chat, _near, _update

UPDATES: list[Chat] = [
    _update(
        0,
        "used to, now",
        "Aurelio",
        "Bettina",
        "I take the train to work, forty minutes each way.",
        "I used to take the train, but I cycle to work now.",
        "How does Aurelio get to work now?",
        "How did Aurelio get to work before?",
    ),
    _update(
        1,
        "from X to Y",
        "Calloway",
        "Dunya",
        "I work nights at the hospital laundry, ten till six.",
        "I switched from the night shift to days, finally sleeping properly.",
        "When does Calloway work now?",
        "Which shift did Calloway work before?",
    ),
    _update(
        2,
        "change after other news",
        "Emrys",
        "Fleur",
        "I sell broadband on the phone at a call centre.",
        "The garden is a jungle and the cat is fine. Oh, and I've got a new job: I'm a postman now.",
        "What is Emrys's job now?",
        "What job did Emrys have before?",
    ),
    _update(
        3,
        "a note",
        "Gunnhild",
        "Hamish",
        "My address is 3 Mill Street, Skipton, if you want to visit.",
        "New address: 14 Larch Road, Harrogate.",
        "What is Gunnhild's address now?",
        "What was Gunnhild's address before?",
    ),
    _update(
        4,
        "pronoun-led reply",
        "Ignatius",
        "Jolene",
        "My mobile number is 07700 900 123, text me any time.",
        "It's 07700 900 321 now, the old phone was stolen.",
        "What is Ignatius's mobile number now?",
        "What mobile number did Ignatius have before?",
        friend_before_new="What's your number these days?",
    ),
    _update(
        5,
        "after years at",
        "Kalinda",
        "Leopold",
        "I'm a planning officer at the city council.",
        "After eight years at the council I've joined a housing charity.",
        "Where does Kalinda work now?",
        "Where did Kalinda work before?",
    ),
    _update(
        6,
        "transfer",
        "Mordecai",
        "Nadia",
        "I work at the Sheffield office of an insurance firm.",
        "I got transferred to the Leeds office in June, same firm.",
        "Which office does Mordecai work at now?",
        "Which office did Mordecai work at before?",
    ),
    _update(
        7,
        "now at, no subject",
        "Oriane",
        "Piet",
        "I'm a physio at the Hillcrest clinic.",
        "Now at the Riverside clinic, much shorter commute.",
        "Which clinic does Oriane work at now?",
        "Which clinic did Oriane work at before?",
    ),
    _update(
        8,
        "no longer with",
        "Quintus",
        "Roswitha",
        "My boyfriend Sven and I have been together two years.",
        "I'm no longer with Sven; I'm seeing a carpenter called Ilse.",
        "Who is Quintus seeing now?",
        "Who was Quintus with before?",
    ),
    _update(
        9,
        "we're X now",
        "Seraphina",
        "Torvald",
        "We live in a terraced house in Bristol.",
        "We're Manchester people now, the removal van came on Friday.",
        "Where does Seraphina live now?",
        "Where did Seraphina live before?",
    ),
    _update(
        10,
        "pet died",
        "Ulrich",
        "Valentina",
        "We have a dog called Biscuit, a scruffy terrier.",
        "Biscuit died in the winter; we have two rabbits now.",
        "What pets does Ulrich have now?",
        "What pet did Ulrich have before?",
    ),
    _update(
        11,
        "let go",
        "Wanjiru",
        "Xavier",
        "I play left back for the Kingsley Rovers.",
        "I play for the Harbour Hawks now, the Rovers let me go.",
        "Which team does Wanjiru play for now?",
        "Which team did Wanjiru play for before?",
    ),
    _update(
        12,
        "reply to still",
        "Yevgenia",
        "Zoltan",
        "I bake at the Rosebud bakery, early shifts.",
        "Nope, I bake for a hotel kitchen since March.",
        "Where does Yevgenia bake now?",
        "Where did Yevgenia bake before?",
        friend_before_new="Are you still at the Rosebud bakery?",
    ),
    _update(
        13,
        "traded",
        "Adelard",
        "Blessing",
        "I play acoustic guitar in a folk band.",
        "I traded the guitar for a keyboard, way easier on my fingers, and I play keys in the band now.",
        "What instrument does Adelard play now?",
        "What instrument did Adelard play before?",
    ),
]

NEAR: list[Chat] = [
    _near(
        0, "question naming a change", "Cormac", "Delyth", "I work at the Rosebud bakery.", "Guess who quit? Not me!"
    ),
    _near(
        1,
        "denied question",
        "Esmond",
        "Farah",
        "I live in Norwich near the cathedral.",
        "People keep asking if I moved to Leeds. I didn't, I love Norwich.",
    ),
    _near(
        2,
        "imagined",
        "Gaspard",
        "Helka",
        "I work at the post office sorting parcels.",
        "Imagine quitting the post office and opening a café, ha.",
    ),
    _near(
        3,
        "someone new at work",
        "Isaura",
        "Jethro",
        "I work at the Rosebud bakery, early shifts.",
        "The new manager at the bakery started on Monday, she seems strict.",
    ),
    _near(
        4,
        "friend's change confirmed",
        "Kaspar",
        "Lucinda",
        "I live in Norwich near the cathedral.",
        "So you moved to Leeds after all, I heard. Good for you!",
    ),
    _near(
        5,
        "named person's new job",
        "Marit",
        "Nestor",
        "I'm a nurse at the city hospital.",
        "Fenella got a new job at the hospital too, we start together.",
    ),
]

CHATS: list[Chat] = UPDATES + NEAR
