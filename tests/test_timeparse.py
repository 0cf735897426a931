from datetime import date, datetime

import pytest

from memgraph_agents.construct.timeparse import (
    TimeMention,
    add_months,
    annotate_times,
    find_time_mentions,
)

MON_8_MAY_2051 = date(2051, 5, 8)  # a Monday
SAT_13_MAY_2051 = date(2051, 5, 13)
SUN_14_MAY_2051 = date(2051, 5, 14)
FRI_12_MAY_2051 = date(2051, 5, 12)
WED_1_MAR_2051 = date(2051, 3, 1)
FRI_31_MAR_2051 = date(2051, 3, 31)
THU_29_FEB_2052 = date(2052, 2, 29)
MON_1_JAN_2052 = date(2052, 1, 1)
SUN_31_DEC_2051 = date(2051, 12, 31)

# (sentence, session date, expected mention text, expected date, expected label)
CASES = [
    # day words
    ("I went yesterday", MON_8_MAY_2051, "yesterday", date(2051, 5, 7), "7 May 2051"),
    ("Yesterday was fun", MON_8_MAY_2051, "Yesterday", date(2051, 5, 7), "7 May 2051"),
    ("I'm going today", MON_8_MAY_2051, "today", MON_8_MAY_2051, "8 May 2051"),
    ("Let's meet tonight", MON_8_MAY_2051, "tonight", MON_8_MAY_2051, "8 May 2051"),
    ("I ran this morning", MON_8_MAY_2051, "this morning", MON_8_MAY_2051, "8 May 2051"),
    ("We talked last night", MON_8_MAY_2051, "last night", date(2051, 5, 7), "7 May 2051"),
    ("see you tomorrow!", MON_8_MAY_2051, "tomorrow", date(2051, 5, 9), "9 May 2051"),
    ("It was the day before yesterday.", MON_8_MAY_2051, "the day before yesterday", date(2051, 5, 6), "6 May 2051"),
    ("Only the day after tomorrow", MON_8_MAY_2051, "the day after tomorrow", date(2051, 5, 10), "10 May 2051"),
    # month / year boundaries and leap years on day words
    ("yesterday", MON_1_JAN_2052, "yesterday", date(2051, 12, 31), "31 December 2051"),
    ("tomorrow", SUN_31_DEC_2051, "tomorrow", MON_1_JAN_2052, "1 January 2052"),
    ("yesterday", WED_1_MAR_2051, "yesterday", date(2051, 2, 28), "28 February 2051"),
    ("yesterday", date(2052, 3, 1), "yesterday", THU_29_FEB_2052, "29 February 2052"),
    # weeks and weekends
    ("last week I saw it", MON_8_MAY_2051, "last week", date(2051, 5, 1), "the week of 1 May 2051"),
    ("last week", SUN_14_MAY_2051, "last week", date(2051, 5, 7), "the week of 1 May 2051"),
    ("this week is busy", FRI_12_MAY_2051, "this week", FRI_12_MAY_2051, "the week of 8 May 2051"),
    ("next week", MON_8_MAY_2051, "next week", date(2051, 5, 15), "the week of 15 May 2051"),
    ("last week", MON_1_JAN_2052, "last week", date(2051, 12, 25), "the week of 25 December 2051"),
    ("last weekend", MON_8_MAY_2051, "last weekend", date(2051, 5, 6), "the weekend of 6 May 2051"),
    ("last weekend", SAT_13_MAY_2051, "last weekend", date(2051, 5, 6), "the weekend of 6 May 2051"),
    ("this weekend", SUN_14_MAY_2051, "this weekend", SAT_13_MAY_2051, "the weekend of 13 May 2051"),
    ("this weekend", MON_8_MAY_2051, "this weekend", SAT_13_MAY_2051, "the weekend of 13 May 2051"),
    ("next weekend", FRI_12_MAY_2051, "next weekend", date(2051, 5, 20), "the weekend of 20 May 2051"),
    ("this past weekend", MON_8_MAY_2051, "this past weekend", date(2051, 5, 6), "the weekend of 6 May 2051"),
    # months and years, with day clamping
    ("last month", MON_8_MAY_2051, "last month", date(2051, 4, 8), "April 2051"),
    ("last month", FRI_31_MAR_2051, "last month", date(2051, 2, 28), "February 2051"),
    ("last month", date(2052, 3, 31), "last month", THU_29_FEB_2052, "February 2052"),
    ("next month", SUN_31_DEC_2051, "next month", date(2052, 1, 31), "January 2052"),
    ("this month", MON_8_MAY_2051, "this month", MON_8_MAY_2051, "May 2051"),
    ("last year", MON_8_MAY_2051, "last year", date(2050, 5, 8), "2050"),
    ("next year", SUN_31_DEC_2051, "next year", date(2052, 12, 31), "2052"),
    ("a year ago", THU_29_FEB_2052, "a year ago", date(2051, 2, 28), "2051"),
    ("this year", MON_8_MAY_2051, "this year", MON_8_MAY_2051, "2051"),
    # N units ago / in N units, digits and words
    ("2 days ago", MON_8_MAY_2051, "2 days ago", date(2051, 5, 6), "6 May 2051"),
    ("three days ago", MON_1_JAN_2052, "three days ago", date(2051, 12, 29), "29 December 2051"),
    ("a couple of days ago", MON_8_MAY_2051, "a couple of days ago", date(2051, 5, 6), "6 May 2051"),
    ("a few days ago", MON_8_MAY_2051, "a few days ago", date(2051, 5, 5), "5 May 2051"),
    ("a week ago", MON_8_MAY_2051, "a week ago", date(2051, 5, 1), "the week of 1 May 2051"),
    ("two weeks ago", MON_8_MAY_2051, "two weeks ago", date(2051, 4, 24), "the week of 24 April 2051"),
    ("a month ago", FRI_31_MAR_2051, "a month ago", date(2051, 2, 28), "February 2051"),
    ("two months ago", MON_8_MAY_2051, "two months ago", date(2051, 3, 8), "March 2051"),
    ("twelve months ago", MON_8_MAY_2051, "twelve months ago", date(2050, 5, 8), "May 2050"),
    ("five years ago", MON_8_MAY_2051, "five years ago", date(2046, 5, 8), "2046"),
    ("a few years back", MON_8_MAY_2051, "a few years back", date(2048, 5, 8), "2048"),
    ("in two weeks", MON_8_MAY_2051, "in two weeks", date(2051, 5, 22), "the week of 22 May 2051"),
    ("in 3 days", SAT_13_MAY_2051, "in 3 days", date(2051, 5, 16), "16 May 2051"),
    ("in a month", date(2051, 1, 31), "in a month", date(2051, 2, 28), "February 2051"),
    ("two weeks from now", MON_8_MAY_2051, "two weeks from now", date(2051, 5, 22), "the week of 22 May 2051"),
    # weekdays (ref Monday 8 May 2051 unless stated)
    ("next Friday", MON_8_MAY_2051, "next Friday", FRI_12_MAY_2051, "12 May 2051"),
    ("next Friday", FRI_12_MAY_2051, "next Friday", date(2051, 5, 19), "19 May 2051"),
    ("last Saturday", MON_8_MAY_2051, "last Saturday", date(2051, 5, 6), "6 May 2051"),
    ("last Friday", FRI_12_MAY_2051, "last Friday", date(2051, 5, 5), "5 May 2051"),
    ("last Monday", MON_8_MAY_2051, "last Monday", date(2051, 5, 1), "1 May 2051"),
    ("last fri", MON_8_MAY_2051, "last fri", date(2051, 5, 5), "5 May 2051"),
    ("this Wednesday", FRI_12_MAY_2051, "this Wednesday", date(2051, 5, 10), "10 May 2051"),
    ("last Sunday", MON_1_JAN_2052, "last Sunday", SUN_31_DEC_2051, "31 December 2051"),
    ("I won a tournament on Friday!", date(2050, 7, 10), "on Friday", date(2050, 7, 8), "8 July 2050"),
    ("I will call you on Friday", MON_8_MAY_2051, "on Friday", FRI_12_MAY_2051, "12 May 2051"),
    # month names and seasons
    ("last May", MON_8_MAY_2051, "last May", date(2050, 5, 1), "May 2050"),
    ("Last August I wrote to you", date(2051, 12, 8), "Last August", date(2051, 8, 1), "August 2051"),
    ("next March", MON_8_MAY_2051, "next March", date(2052, 3, 1), "March 2052"),
    ("last summer", date(2051, 8, 11), "last summer", date(2050, 6, 1), "summer 2050"),
    ("last summer", date(2051, 10, 17), "last summer", date(2051, 6, 1), "summer 2051"),
    ("next summer", date(2051, 12, 9), "next summer", date(2052, 6, 1), "summer 2052"),
    ("this winter", date(2052, 1, 11), "this winter", date(2051, 12, 1), "winter 2051-2052"),
    ("last winter", date(2052, 1, 11), "last winter", date(2050, 12, 1), "winter 2050-2051"),
]


@pytest.mark.parametrize("text,ref,surface,expected_date,label", CASES)
def test_resolves(text, ref, surface, expected_date, label):
    found = find_time_mentions(text, ref)
    assert len(found) == 1, found
    m = found[0]
    assert m.text == surface
    assert text[m.start : m.end] == surface
    assert m.date == expected_date
    assert m.label == label


def test_case_count():
    assert len(CASES) >= 40


@pytest.mark.parametrize(
    "text",
    [
        "I last saw it in a shop",
        "What's the next step?",
        "We meet weekly",
        "Mondays are hard",
        "I go swimming on Fridays",
        "this may help you",
        "It was the last time I saw her",
        "I haven't been there in a year",
        "I've been so busy over the last year",
        "I saw a fox the other day",
        "recently I started painting",
        "We march on",
        "the last weekend of June",
        "it took me a few days",
    ],
)
def test_no_false_positives(text):
    assert find_time_mentions(text, MON_8_MAY_2051) == []


def test_granularity_and_dataclass():
    m = find_time_mentions("last weekend", MON_8_MAY_2051)[0]
    assert isinstance(m, TimeMention)
    assert m.granularity == "weekend"
    assert find_time_mentions("last summer", MON_8_MAY_2051)[0].granularity == "season"
    with pytest.raises(AttributeError):
        m.label = "x"  # frozen


def test_datetime_ref_accepted():
    m = find_time_mentions("yesterday", datetime(2051, 5, 8, 13, 56))[0]
    assert m.date == date(2051, 5, 7)


def test_longest_match_wins_and_order():
    text = "The day before yesterday I ran, and tomorrow I rest. Next week too, and 2 weeks ago."
    found = find_time_mentions(text, MON_8_MAY_2051)
    assert [m.text for m in found] == ["The day before yesterday", "tomorrow", "Next week", "2 weeks ago"]
    assert all(a.end <= b.start for a, b in zip(found, found[1:]))


def test_weekday_abbreviation_does_not_eat_period():
    m = find_time_mentions("We met last Friday.", MON_8_MAY_2051)[0]
    assert m.text == "last Friday"


def test_annotate():
    assert annotate_times("I went yesterday", MON_8_MAY_2051) == "I went yesterday (7 May 2051)"
    text = "Last week I toured a quilting circle, and next month I'll go again."
    once = annotate_times(text, MON_8_MAY_2051)
    assert once == (
        "Last week (the week of 1 May 2051) I toured a quilting circle, and next month (June 2051) I'll go again."
    )
    assert annotate_times(once, MON_8_MAY_2051) == once
    assert annotate_times("nothing here", MON_8_MAY_2051) == "nothing here"
    # a different parenthetical is not mistaken for an annotation
    assert annotate_times("yesterday (with Tam)", MON_8_MAY_2051) == "yesterday (7 May 2051) (with Tam)"


def test_add_months_clamps():
    assert add_months(date(2051, 3, 31), -1) == date(2051, 2, 28)
    assert add_months(date(2052, 3, 31), -1) == date(2052, 2, 29)
    assert add_months(date(2051, 1, 31), 1) == date(2051, 2, 28)
    assert add_months(date(2051, 12, 15), 1) == date(2052, 1, 15)
    assert add_months(date(2052, 2, 29), -12) == date(2051, 2, 28)
    assert add_months(date(2051, 1, 15), -13) == date(2049, 12, 15)
