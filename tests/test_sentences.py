import pytest

from memgraph_agents.construct.sentences import split_sentences

CASES = [
    ("Hey Tam! Good to see you! How have you been?", ["Hey Tam!", "Good to see you!", "How have you been?"]),
    (
        "I went to a STEM chess club yesterday and left feeling calm.",
        ["I went to a STEM chess club yesterday and left feeling calm."],
    ),
    # abbreviations
    ("I met Dr. Smith and Mrs. Jones. They were nice.", ["I met Dr. Smith and Mrs. Jones.", "They were nice."]),
    ("We walked down St. Mark's Place. Lovely.", ["We walked down St. Mark's Place.", "Lovely."]),
    ("Fruits, e.g. Apples, are good. I.e. Healthy.", ["Fruits, e.g. Apples, are good.", "I.e. Healthy."]),
    ("It was Lakers vs. Celtics. Great game!", ["It was Lakers vs. Celtics.", "Great game!"]),
    ("Call me at 9 a.m. Tomorrow works.", ["Call me at 9 a.m. Tomorrow works."]),
    ("The show ends at 9 p.m. It was long.", ["The show ends at 9 p.m.", "It was long."]),
    ("I live in the U.S. It is great.", ["I live in the U.S.", "It is great."]),
    ("Books, pens, etc. They were all there.", ["Books, pens, etc.", "They were all there."]),
    ("R. L. Okafor wrote it. Yes.", ["R. L. Okafor wrote it.", "Yes."]),
    # decimals, digits, URLs
    ("It cost $3.50 today. Cheap!", ["It cost $3.50 today.", "Cheap!"]),
    ("I was born in 1990. 2020 was hard.", ["I was born in 1990.", "2020 was hard."]),
    ("See https://example.com/a.b?c=1. It is cool.", ["See https://example.com/a.b?c=1.", "It is cool."]),
    ("Mail me at jo.smith@mail.com. Thanks!", ["Mail me at jo.smith@mail.com.", "Thanks!"]),
    # ellipses, repeated punctuation, quotes
    ("I was thinking... Maybe not.", ["I was thinking...", "Maybe not."]),
    ("Wait… and then nothing.", ["Wait… and then nothing."]),
    ("Really?! That is amazing!!!", ["Really?!", "That is amazing!!!"]),
    ('He said "Stop." Then he left.', ['He said "Stop."', "Then he left."]),
    ('She asked: "Why?" "Because," I said.', ['She asked: "Why?"', '"Because," I said.']),
    # emoticons and emoji stay with the sentence they close
    ("Great! :) See you later.", ["Great! :)", "See you later."]),
    ("Love it! 😍 Thanks!", ["Love it! 😍", "Thanks!"]),
    ("So glad for you!❤️ Keep going.", ["So glad for you!❤️", "Keep going."]),
    # lower case after a stop is not a boundary (chat style)
    ("ok. sure thing", ["ok. sure thing"]),
    # newlines split; blanks and whitespace dropped
    ("Line one\nLine two\n\n  \nLine three", ["Line one", "Line two", "Line three"]),
    ("  padded sentence.   ", ["padded sentence."]),
    ("", []),
    ("   \n  ", []),
    # very short fragments join their neighbour
    ("Nice shot!\n:)", ["Nice shot! :)"]),
    ("A. Then we left.", ["A. Then we left."]),
    ("!\nHello there", ["! Hello there"]),
]


@pytest.mark.parametrize("text,expected", CASES)
def test_split(text, expected):
    assert split_sentences(text) == expected


def test_case_count():
    assert len(CASES) >= 15


def test_no_text_lost():
    text = "Hey! I went to the U.S. last year. It cost $1,200.50... Wow :) Dr. Who? Yes!\nBye"
    joined = "".join(split_sentences(text)).replace(" ", "")
    assert joined == text.replace(" ", "").replace("\n", "")
