"""Invented chats where a fact changes: the acceptance set for facts that change.

Each case is a three-session chat between a person and their friend: the person states a fact in
the first session, small talk fills the second, and in the third the person states a new value
of the same attribute in other words (a new job, city, diet, pet, partner, number, school…).
A question about the present ("now", "these days", or an unmarked present tense) must find the
new statement above the old one; a question about the past ("before", "used to", "in
January 2024") must find the old statement in the top 3.

Written for this test and never used to choose the detector's parameters (those were chosen on
``tests/knowledge_updates_tune.py``); every name, sentence and date is invented. In 18 of the
34 cases the new statement is shorter than the old one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from memgraph_agents.model.conversation import Conversation, Session, Turn


@dataclass(frozen=True)
class Update:
    attribute: str
    person: str
    friend: str
    old: str  # stated in session 1
    new: str  # stated in session 3, replacing it
    now: str  # a question about the present
    before: str  # a question about the past


CASES: list[Update] = [
    Update(
        "job",
        "Odalys",
        "Rune",
        "I'm a nurse on the children's ward at Santa Brigida, mostly night shifts, and it is wearing me down.",
        "Big news: I quit nursing. I'm a paramedic now!",
        "What does Odalys do for work now?",
        "What was Odalys's job before?",
    ),
    Update(
        "city",
        "Teodor",
        "Maili",
        "We're renting a flat in Porto, ten minutes from the river.",
        "We finally moved to Lyon at the start of the month: new flat, new everything, and the kids already "
        "love their school there.",
        "Which city does Teodor live in these days?",
        "Where did Teodor live before?",
    ),
    Update(
        "diet",
        "Yusra",
        "Benedek",
        "I've been strictly vegan for about three years, so no cheese, no honey, nothing from animals.",
        "I eat fish again, doctor's orders.",
        "What does Yusra eat now?",
        "What diet did Yusra follow in January 2024?",
    ),
    Update(
        "pet",
        "Kasimir",
        "Flor",
        "Our old tabby Mortimer sleeps on my keyboard all day.",
        "Mortimer passed away in March, and last week we adopted a greyhound called Biscuit from a rescue centre.",
        "What pet does Kasimir have now?",
        "What pet did Kasimir use to have?",
    ),
    Update(
        "partner",
        "Ilse",
        "Gaspard",
        "Ruben and I have been together for six years, and we just signed a lease on a bigger place.",
        "Ruben and I split up. I'm seeing Amadou now.",
        "Who is Ilse's partner now?",
        "Who was Ilse with before?",
    ),
    Update(
        "phone",
        "Priyam",
        "Clodagh",
        "You can always reach me on 0171 448 2093, day or night, it's the only phone I carry.",
        "Changed my number: 0157 330 8812.",
        "What is Priyam's phone number?",
        "What was Priyam's phone number in January 2024?",
    ),
    Update(
        "school",
        "Welmoed",
        "Tarik",
        "I'm in my second year of architecture at the technical university in Delft, and the studio projects "
        "never end.",
        "I switched to law school in Leiden.",
        "What is Welmoed studying currently?",
        "What did Welmoed study originally?",
    ),
    Update(
        "salary",
        "Anselm",
        "Kirsi",
        "The bakery pays me 2,100 euros a month, which barely covers the rent.",
        "After the promotion to head baker I'm on 2,900 a month, so the rent stopped being scary.",
        "How much does Anselm earn now?",
        "How much did Anselm earn before?",
    ),
    Update(
        "hobby",
        "Margit",
        "Oyelaran",
        "Every Saturday morning I'm at the climbing gym, bouldering with my cousin until my arms give out.",
        "Gave up bouldering; it's all pottery classes now.",
        "What hobby is Margit into these days?",
        "What did Margit use to do on Saturday mornings?",
    ),
    Update(
        "doctor",
        "Fenwick",
        "Alazne",
        "My GP is Dr. Okonkwo at the Linden Street practice.",
        "Dr. Okonkwo retired, so now I see Dr. Halvorsen at the clinic by the station, and she's been great "
        "about my asthma.",
        "Who is Fenwick's doctor now?",
        "Who was Fenwick's doctor before?",
    ),
    Update(
        "language",
        "Soraya",
        "Mattis",
        "I've been learning Japanese on my lunch breaks, mostly kanji flashcards on the tram.",
        "Dropped Japanese. Korean now, with a tutor.",
        "Which language is Soraya learning at the moment?",
        "Which language was Soraya learning in January 2024?",
    ),
    Update(
        "sport",
        "Bertil",
        "Nanami",
        "I play handball in a club league twice a week.",
        "My shoulder couldn't take handball any more, so I've taken up swimming laps at the municipal pool "
        "three mornings a week.",
        "What sport does Bertil do now?",
        "Which sport did Bertil play before?",
    ),
    Update(
        "car",
        "Zofia",
        "Emrys",
        "I still drive my dad's old red Fiat Panda; it rattles on the motorway but it never breaks down.",
        "Sold the Panda. Got a used Skoda Octavia.",
        "What car does Zofia drive?",
        "What car did Zofia drive before?",
    ),
    Update(
        "band",
        "Leopold",
        "Sunniva",
        "I play bass in a ska band called The Lazy Mondays.",
        "I left The Lazy Mondays and joined a folk trio, Three Crows, as their fiddle player; we rehearse in "
        "a garage downtown.",
        "Which band does Leopold play in now?",
        "Which band was Leopold in before?",
    ),
    Update(
        "address",
        "Henrike",
        "Dalibor",
        "My address is 14 Kestrel Lane, flat 3, if you want to post the invitation.",
        "New address: 7 Alder Court.",
        "What is Henrike's address?",
        "What was Henrike's address in January 2024?",
    ),
    Update(
        "employer",
        "Dario",
        "Ingeborg",
        "I test software at Finch Logistics, mostly their warehouse scanners.",
        "I've joined Orbita Games as a QA lead, so no more warehouse scanners for me, and the office has a "
        "rooftop terrace.",
        "Where does Dario work now?",
        "Where did Dario work before?",
    ),
    Update(
        "relationship",
        "Noor",
        "Leontine",
        "I'm single and honestly enjoying it.",
        "Guess what, I'm engaged! Tobiah proposed at sunset by the sea and I cried like a baby.",
        "What is Noor's relationship status now?",
        "What was Noor's relationship status before?",
    ),
    Update(
        "city",
        "Camille",
        "Osvaldo",
        "I'm based in Montreal for work these days, which means a lot of snow shovelling.",
        "Vancouver now. Less snow, more rain.",
        "Where is Camille based these days?",
        "Where was Camille based in January 2024?",
    ),
    Update(
        "job",
        "Ewan",
        "Radka",
        "I teach chemistry at a secondary school.",
        "I left teaching and now I run a small coffee roastery with my brother down by the harbour.",
        "What does Ewan do now?",
        "What did Ewan use to do for a living?",
    ),
    Update(
        "diet",
        "Rosalind",
        "Piet",
        "I eat pretty much everything; a good steak is my favourite dinner.",
        "Vegetarian since February!",
        "What is Rosalind's diet now?",
        "What was Rosalind's diet before?",
    ),
    Update(
        "pet",
        "Tamsin",
        "Arvo",
        "We have a budgie named Kiwi.",
        "Kiwi flew off through the open window, so now we have two guinea pigs, Salt and Pepper, who squeak "
        "for lettuce all day.",
        "What pets does Tamsin have now?",
        "What pet did Tamsin have in January 2024?",
    ),
    Update(
        "email",
        "Ulrich",
        "Zuzana",
        "My email is ulrich.b@postbox.example, the work one bounces half the time.",
        "Use ulrich.berg@mailhaus.example from now on.",
        "What is Ulrich's email address?",
        "What email did Ulrich use before?",
    ),
    Update(
        "school",
        "Maren",
        "Faustino",
        "My son Jannik goes to the Montessori school on the hill.",
        "We moved Jannik to the public primary school near our flat; the Montessori fees were too much.",
        "Which school does Maren's son go to now?",
        "Which school did Maren's son attend before?",
    ),
    Update(
        "hobby",
        "Ignatius",
        "Brenna",
        "I spend most evenings painting watercolour landscapes at the kitchen table.",
        "I'm into woodworking these days.",
        "What does Ignatius do in the evenings these days?",
        "What did Ignatius use to do in the evenings?",
    ),
    Update(
        "commute",
        "Beatriz",
        "Halvard",
        "I cycle to the office every day, twelve kilometres each way, rain or shine.",
        "I take the train to work now.",
        "How does Beatriz get to work now?",
        "How did Beatriz commute before?",
    ),
    Update(
        "dentist",
        "Osric",
        "Marisela",
        "My dentist is Dr. Varga on Mill Road.",
        "Dr. Varga moved away, so I've registered with a new dentist, Dr. Esposito, who is right next to the office.",
        "Who is Osric's dentist now?",
        "Who was Osric's dentist in January 2024?",
    ),
    Update(
        "job title",
        "Liesel",
        "Cormac",
        "I'm a junior designer at a small agency, mostly doing menus and flyers for restaurants.",
        "Promoted! Art director now.",
        "What is Liesel's job title now?",
        "What was Liesel's job title before?",
    ),
    Update(
        "vehicle",
        "Hamish",
        "Tove",
        "I ride an old Honda motorbike to work.",
        "With the baby coming, the motorbike is gone and we bought a grey family estate car instead.",
        "What does Hamish drive now?",
        "What did Hamish ride to work before?",
    ),
    Update(
        "home",
        "Philippa",
        "Eskil",
        "I rent a tiny studio above a bakery in the old town, and it always smells of bread.",
        "Bought a house in the suburbs!",
        "Where does Philippa live now?",
        "Where did Philippa live before?",
    ),
    Update(
        "partner",
        "Anouk",
        "Severin",
        "My girlfriend Sienna is a vet.",
        "Sienna and I broke up in February, and I've been dating Marisol, a firefighter, for a few weeks.",
        "Who is Anouk dating now?",
        "Who was Anouk's girlfriend in January 2024?",
    ),
    Update(
        "shifts",
        "Cosmo",
        "Ludmila",
        "I work night shifts at the hotel reception, ten at night to six in the morning.",
        "Day shifts now, finally.",
        "What shifts does Cosmo work now?",
        "What shifts did Cosmo work before?",
    ),
    Update(
        "instrument",
        "Elspeth",
        "Joaquim",
        "I've been taking cello lessons every Tuesday.",
        "I stopped the cello lessons because they got too pricey, and I'm teaching myself the ukulele instead.",
        "Which instrument is Elspeth learning now?",
        "Which instrument did Elspeth learn before?",
    ),
    Update(
        "club role",
        "Jorrit",
        "Amaranta",
        "I coach the under-twelve football team at our club every Wednesday and Saturday.",
        "Not coaching any more. I referee matches now.",
        "What does Jorrit do at the football club now?",
        "What did Jorrit do at the football club before?",
    ),
    Update(
        "phone",
        "Saoirse",
        "Vidar",
        "My mobile is 083 615 2290.",
        "I lost my phone on the ferry, so I bought another SIM card and my number is 087 442 9015 now.",
        "What is Saoirse's mobile number?",
        "What was Saoirse's mobile number in January 2024?",
    ),
]

# Small talk around the facts, by the person (P) and by the friend (F): chosen per case by
# rotation, so no two chats are the same.
PERSON_TALK = [
    "The weather has been grey all week, I miss the sun.",
    "I finally fixed the squeaky door in the hallway.",
    "My neighbour's dog barked all night again.",
    "I watched a documentary about octopuses yesterday, they're so clever.",
    "I'm trying to drink more water, it's harder than it sounds.",
    "The new season of that cooking show started, did you watch it?",
    "I burned the rice again, the smoke alarm went off.",
    "We had a power cut on Sunday, so we played cards by candlelight.",
    "I'm reading a thick mystery novel, I can't put it down.",
    "My plants are finally growing after I moved them to the window.",
    "I bought new running shoes, they feel like clouds.",
    "The bus was twenty minutes late this morning.",
]
FRIEND_TALK = [
    "Hey! How have you been?",
    "Ha, what a story.",
    "My sister is visiting next weekend, the flat is a mess.",
    "I've started a jigsaw puzzle with two thousand pieces, big mistake.",
    "Work is hectic, three deadlines in one week.",
    "Did you see the storm on Tuesday? A tree fell on our street.",
    "I tried a new ramen place, the broth was amazing.",
    "I'm thinking about repainting the kitchen green.",
    "Long time! What's new?",
    "We should go for a walk by the lake soon.",
    "My cousin got married last month, the party went until three.",
]
REPLIES = [
    "Oh wow, tell me more.",
    "That's a big change!",
    "Good for you.",
    "I didn't see that coming.",
    "Nice, congratulations!",
    "Really? How do you feel about it?",
]

FIRST = datetime(2024, 1, 8, 18, 30)


def _turns(sid: str, lines: list[tuple[str, str]]) -> list[Turn]:
    return [Turn(id=f"{sid}:{i}", speaker=who, text=text) for i, (who, text) in enumerate(lines, start=1)]


def conversation(i: int, cases: list[Update] | None = None) -> Conversation:
    """Case ``i`` (of ``cases``, default ``CASES``) as a three-session chat; the old fact is
    ``S1:4``, the new one ``S3:2``."""
    c = (cases or CASES)[i]
    p, f = c.person, c.friend

    def pt(j: int) -> str:
        return PERSON_TALK[(i + j) % len(PERSON_TALK)]

    def ft(j: int) -> str:
        return FRIEND_TALK[(i + j) % len(FRIEND_TALK)]

    def rep(j: int) -> str:
        return REPLIES[(i + j) % len(REPLIES)]

    day = timedelta(days=i % 20)
    s1 = [(f, ft(0)), (p, pt(0)), (f, ft(1)), (p, c.old), (f, rep(0)), (p, pt(1))]
    s2 = [(p, pt(2)), (f, ft(2)), (p, pt(3)), (f, ft(3))]
    s3 = [(f, ft(4)), (p, c.new), (f, rep(1)), (p, pt(4)), (f, ft(5))]
    sessions = [
        Session(id="S1", date=FIRST + day, turns=_turns("S1", s1), participants=[p, f]),
        Session(id="S2", date=FIRST + day + timedelta(days=42), turns=_turns("S2", s2), participants=[p, f]),
        Session(id="S3", date=FIRST + day + timedelta(days=120), turns=_turns("S3", s3), participants=[p, f]),
    ]
    return Conversation(id=f"update-{i:02d}", sessions=sessions, speakers=[p, f])


OLD_TURN, NEW_TURN = "S1:4", "S3:2"
