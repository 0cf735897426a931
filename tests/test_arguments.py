import pytest

from memgraph_agents.construct.arguments import (
    STOPWORDS,
    ArgumentMention,
    extract_arguments,
    normalise_key,
)

SPEAKERS = ("Odalys", "Tamsin")


def by_key(text, speakers=SPEAKERS, **kw):
    return {m.key: m for m in extract_arguments(text, speakers, **kw)}


def test_locomo_style_turn():
    text = "Odalys: I went to the STEM chess club yesterday (7 May 2028). It felt so calm!"
    got = by_key(text)
    assert got["stem chess club"].name == "STEM chess club"
    assert got["stem chess club"].kind == "keyphrase"
    assert got["stem chess club"].role == "topic"
    assert got["7 may 2028"].kind == "date" and got["7 may 2028"].role == "time"
    assert got["odalys"].kind == "person" and got["odalys"].role == "participant"
    assert got["stem"].kind == "proper"
    # filler and stopwords never become arguments
    assert not {"i", "went", "yesterday", "so", "it"} & set(got)


def test_speaker_prefix_without_speaker_list():
    got = by_key("Odalys: Tamsin and I painted a sunset.", speakers=())
    assert got["odalys"].kind == "person"


def test_speakers_mentioned_and_nickname():
    got = by_key("Hey Tam! Thanks, Odalys, see you soon.")
    assert got["odalys"].kind == "person"
    assert got["tamsin"].kind == "person" and got["tamsin"].name == "Tam"  # nickname keys to the speaker
    assert "hey" not in got and "thanks" not in got


def test_results_in_text_order_and_unique_keys():
    ms = extract_arguments("Tamsin: We went camping at Glenmoor with 3 kids in August 2022.", SPEAKERS)
    keys = [m.key for m in ms]
    assert len(keys) == len(set(keys))
    assert keys.index("tamsin") < keys.index("glenmoor") < keys.index("3 kids") < keys.index("august 2022")
    assert all(isinstance(m, ArgumentMention) for m in ms)


@pytest.mark.parametrize(
    "text,key,name",
    [
        ("We visited the Museum of Modern Art last week.", "museum of modern art", "Museum of Modern Art"),
        ("I love The Keeper of the Tides books.", "keeper of the tides", "Keeper of the Tides"),
        ("We flew to New York for the show.", "new york", "New York"),
        ("Yesterday we went to The Louvre with friends.", "louvre", "Louvre"),
        ("I'm reading Nora Vexley's books again.", "nora vexley", "Nora Vexley's"),
    ],
)
def test_proper_nouns(text, key, name):
    got = by_key(text)
    assert got[key].kind == "proper"
    assert got[key].name == name


def test_sentence_initial_capital_is_not_a_name():
    got = by_key("Painting is fun. Running too.")
    assert all(m.kind != "proper" for m in got.values())
    # ...unless the word is capitalised elsewhere mid-sentence
    got = by_key("Tampa was hot. I loved Tampa.")
    assert got["tampa"].kind == "proper"


def test_days_months_and_pronoun_not_proper():
    got = by_key("I met Ivo on Friday in May. I think I'll go back.")
    assert got["ivo"].kind == "proper"
    assert "friday" not in got and "i" not in got and "may" not in got


@pytest.mark.parametrize(
    "text,key",
    [
        ("It happened on 7 May 2028.", "7 may 2028"),
        ("It happened on May 7th, 2028.", "7 may 2028"),
        ("It happened on the 7th of May 2028.", "7 may 2028"),
        ("We met in April 2028 at the fair.", "april 2028"),
        ("Back in 2019 I started.", "2019"),
        ("I did it last summer (summer 2022).", "summer 2022"),
        ("Last week (the week of 1 May 2028) I ran.", "week of 1 may 2028"),
        ("Last weekend (the weekend of 6 May 2028) we hiked.", "weekend of 6 may 2028"),
        ("My birthday is on 3 March.", "3 march"),
    ],
)
def test_dates(text, key):
    got = by_key(text)
    assert got[key].kind == "date"
    assert got[key].role == "time"


@pytest.mark.parametrize(
    "text,key,name",
    [
        ("I have 3 kids and a dog.", "3 kids", "3 kids"),
        ("The ticket cost $500 in total.", "$500", "$500"),
        ("I ran a 10k this morning.", "10k", "10k"),
        ("We adopted two dogs!", "2 dogs", "two dogs"),
        ("I scored 37 points.", "37 points", "37 points"),
        ("It dropped 3.5% overnight.", "3.5%", "3.5%"),
    ],
)
def test_numbers(text, key, name):
    got = by_key(text)
    assert got[key].kind == "number" and got[key].name == name and got[key].role == "quantity"


def test_bare_numbers_and_number_words_skipped():
    got = by_key("One of them said 3 of us should go, two at most.")
    assert all(m.kind != "number" for m in got.values())


def test_keyphrases_limit_and_content():
    text = (
        "Tamsin: My pottery class was great. The pottery class teacher showed us glaze techniques, "
        "and I made a blue ceramic bowl for my kitchen shelf."
    )
    kp = [m for m in extract_arguments(text, SPEAKERS, max_keyphrases=3) if m.kind == "keyphrase"]
    assert len(kp) == 3
    keys = {m.key for m in kp}
    assert "blue ceramic bowl" in keys or "pottery class teacher" in keys
    assert all(set(k.split()) - STOPWORDS for k in keys)
    assert not any(k in {"great", "made", "showed"} for k in keys)
    assert [m for m in extract_arguments(text, SPEAKERS, max_keyphrases=0) if m.kind == "keyphrase"] == []


def test_filler_only_text():
    assert extract_arguments("Hey! Yeah lol, wow, thanks!!", SPEAKERS) == []
    assert extract_arguments("", SPEAKERS) == []


def test_normalise_key():
    assert normalise_key("Odalys's") == "odalys"
    assert normalise_key("  The  STEM   Chess-Club! ") == "stem chess club"
    assert normalise_key("$3.50") == "$3.50"
    assert normalise_key("U.S.") == "u s"
    assert normalise_key("Tamsin’s") == "tamsin"


def test_stopword_list_size():
    assert len(STOPWORDS) >= 150
