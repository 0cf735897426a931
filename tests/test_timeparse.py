from datetime import date, datetime

import pytest

from memgraph_agents.construct.timeparse import (
    TimeMention,
    add_months,
    annotate_times,
    find_time_mentions,
)

MON_8_MAY_2023 = date(2023, 5, 8)  # a Monday (LoCoMo conv-26 session 1)
SAT_13_MAY_2023 = date(2023, 5, 13)
SUN_14_MAY_2023 = date(2023, 5, 14)
FRI_12_MAY_2023 = date(2023, 5, 12)
WED_1_MAR_2023 = date(2023, 3, 1)
FRI_31_MAR_2023 = date(2023, 3, 31)
THU_29_FEB_2024 = date(2024, 2, 29)
MON_1_JAN_2024 = date(2024, 1, 1)
SUN_31_DEC_2023 = date(2023, 12, 31)

# (sentence, session date, expected mention text, expected date, expected label)
CASES = [
    # day words
    ("I went yesterday", MON_8_MAY_2023, "yesterday", date(2023, 5, 7), "7 May 2023"),
    ("Yesterday was fun", MON_8_MAY_2023, "Yesterday", date(2023, 5, 7), "7 May 2023"),
    ("I'm going today", MON_8_MAY_2023, "today", MON_8_MAY_2023, "8 May 2023"),
    ("Let's meet tonight", MON_8_MAY_2023, "tonight", MON_8_MAY_2023, "8 May 2023"),
    ("I ran this morning", MON_8_MAY_2023, "this morning", MON_8_MAY_2023, "8 May 2023"),
    ("We talked last night", MON_8_MAY_2023, "last night", date(2023, 5, 7), "7 May 2023"),
    ("see you tomorrow!", MON_8_MAY_2023, "tomorrow", date(2023, 5, 9), "9 May 2023"),
    ("It was the day before yesterday.", MON_8_MAY_2023, "the day before yesterday", date(2023, 5, 6), "6 May 2023"),
    ("Only the day after tomorrow", MON_8_MAY_2023, "the day after tomorrow", date(2023, 5, 10), "10 May 2023"),
    # month / year boundaries and leap years on day words
    ("yesterday", MON_1_JAN_2024, "yesterday", date(2023, 12, 31), "31 December 2023"),
    ("tomorrow", SUN_31_DEC_2023, "tomorrow", MON_1_JAN_2024, "1 January 2024"),
    ("yesterday", WED_1_MAR_2023, "yesterday", date(2023, 2, 28), "28 February 2023"),
    ("yesterday", date(2024, 3, 1), "yesterday", THU_29_FEB_2024, "29 February 2024"),
    # weeks and weekends
    ("last week I saw it", MON_8_MAY_2023, "last week", date(2023, 5, 1), "the week of 1 May 2023"),
    ("last week", SUN_14_MAY_2023, "last week", date(2023, 5, 7), "the week of 1 May 2023"),
    ("this week is busy", FRI_12_MAY_2023, "this week", FRI_12_MAY_2023, "the week of 8 May 2023"),
    ("next week", MON_8_MAY_2023, "next week", date(2023, 5, 15), "the week of 15 May 2023"),
    ("last week", MON_1_JAN_2024, "last week", date(2023, 12, 25), "the week of 25 December 2023"),
    ("last weekend", MON_8_MAY_2023, "last weekend", date(2023, 5, 6), "the weekend of 6 May 2023"),
    ("last weekend", SAT_13_MAY_2023, "last weekend", date(2023, 5, 6), "the weekend of 6 May 2023"),
    ("this weekend", SUN_14_MAY_2023, "this weekend", SAT_13_MAY_2023, "the weekend of 13 May 2023"),
    ("this weekend", MON_8_MAY_2023, "this weekend", SAT_13_MAY_2023, "the weekend of 13 May 2023"),
    ("next weekend", FRI_12_MAY_2023, "next weekend", date(2023, 5, 20), "the weekend of 20 May 2023"),
    ("this past weekend", MON_8_MAY_2023, "this past weekend", date(2023, 5, 6), "the weekend of 6 May 2023"),
    # months and years, with day clamping
    ("last month", MON_8_MAY_2023, "last month", date(2023, 4, 8), "April 2023"),
    ("last month", FRI_31_MAR_2023, "last month", date(2023, 2, 28), "February 2023"),
    ("last month", date(2024, 3, 31), "last month", THU_29_FEB_2024, "February 2024"),
    ("next month", SUN_31_DEC_2023, "next month", date(2024, 1, 31), "January 2024"),
    ("this month", MON_8_MAY_2023, "this month", MON_8_MAY_2023, "May 2023"),
    ("last year", MON_8_MAY_2023, "last year", date(2022, 5, 8), "2022"),
    ("next year", SUN_31_DEC_2023, "next year", date(2024, 12, 31), "2024"),
    ("a year ago", THU_29_FEB_2024, "a year ago", date(2023, 2, 28), "2023"),
    ("this year", MON_8_MAY_2023, "this year", MON_8_MAY_2023, "2023"),
    # N units ago / in N units, digits and words
    ("2 days ago", MON_8_MAY_2023, "2 days ago", date(2023, 5, 6), "6 May 2023"),
    ("three days ago", MON_1_JAN_2024, "three days ago", date(2023, 12, 29), "29 December 2023"),
    ("a couple of days ago", MON_8_MAY_2023, "a couple of days ago", date(2023, 5, 6), "6 May 2023"),
    ("a few days ago", MON_8_MAY_2023, "a few days ago", date(2023, 5, 5), "5 May 2023"),
    ("a week ago", MON_8_MAY_2023, "a week ago", date(2023, 5, 1), "the week of 1 May 2023"),
    ("two weeks ago", MON_8_MAY_2023, "two weeks ago", date(2023, 4, 24), "the week of 24 April 2023"),
    ("a month ago", FRI_31_MAR_2023, "a month ago", date(2023, 2, 28), "February 2023"),
    ("two months ago", MON_8_MAY_2023, "two months ago", date(2023, 3, 8), "March 2023"),
    ("twelve months ago", MON_8_MAY_2023, "twelve months ago", date(2022, 5, 8), "May 2022"),
    ("five years ago", MON_8_MAY_2023, "five years ago", date(2018, 5, 8), "2018"),
    ("a few years back", MON_8_MAY_2023, "a few years back", date(2020, 5, 8), "2020"),
    ("in two weeks", MON_8_MAY_2023, "in two weeks", date(2023, 5, 22), "the week of 22 May 2023"),
    ("in 3 days", SAT_13_MAY_2023, "in 3 days", date(2023, 5, 16), "16 May 2023"),
    ("in a month", date(2023, 1, 31), "in a month", date(2023, 2, 28), "February 2023"),
    ("two weeks from now", MON_8_MAY_2023, "two weeks from now", date(2023, 5, 22), "the week of 22 May 2023"),
    # weekdays (ref Monday 8 May 2023 unless stated)
    ("next Friday", MON_8_MAY_2023, "next Friday", FRI_12_MAY_2023, "12 May 2023"),
    ("next Friday", FRI_12_MAY_2023, "next Friday", date(2023, 5, 19), "19 May 2023"),
    ("last Saturday", MON_8_MAY_2023, "last Saturday", date(2023, 5, 6), "6 May 2023"),
    ("last Friday", FRI_12_MAY_2023, "last Friday", date(2023, 5, 5), "5 May 2023"),
    ("last Monday", MON_8_MAY_2023, "last Monday", date(2023, 5, 1), "1 May 2023"),
    ("last fri", MON_8_MAY_2023, "last fri", date(2023, 5, 5), "5 May 2023"),
    ("this Wednesday", FRI_12_MAY_2023, "this Wednesday", date(2023, 5, 10), "10 May 2023"),
    ("last Sunday", MON_1_JAN_2024, "last Sunday", SUN_31_DEC_2023, "31 December 2023"),
    ("I won a tournament on Friday!", date(2022, 7, 10), "on Friday", date(2022, 7, 8), "8 July 2022"),
    ("I will call you on Friday", MON_8_MAY_2023, "on Friday", FRI_12_MAY_2023, "12 May 2023"),
    # month names and seasons
    ("last May", MON_8_MAY_2023, "last May", date(2022, 5, 1), "May 2022"),
    ("Last August I told you", date(2023, 12, 8), "Last August", date(2023, 8, 1), "August 2023"),
    ("next March", MON_8_MAY_2023, "next March", date(2024, 3, 1), "March 2024"),
    ("last summer", date(2023, 8, 11), "last summer", date(2022, 6, 1), "summer 2022"),
    ("last summer", date(2023, 10, 17), "last summer", date(2023, 6, 1), "summer 2023"),
    ("next summer", date(2023, 12, 9), "next summer", date(2024, 6, 1), "summer 2024"),
    ("this winter", date(2024, 1, 11), "this winter", date(2023, 12, 1), "winter 2023-2024"),
    ("last winter", date(2024, 1, 11), "last winter", date(2022, 12, 1), "winter 2022-2023"),
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
        "the other day I saw a fox",
        "recently I started painting",
        "We march on",
        "it took me a few days",
        "the last weekend of June",
    ],
)
def test_no_false_positives(text):
    assert find_time_mentions(text, MON_8_MAY_2023) == []


def test_granularity_and_dataclass():
    m = find_time_mentions("last weekend", MON_8_MAY_2023)[0]
    assert isinstance(m, TimeMention)
    assert m.granularity == "weekend"
    assert find_time_mentions("last summer", MON_8_MAY_2023)[0].granularity == "season"
    with pytest.raises(AttributeError):
        m.label = "x"  # frozen


def test_datetime_ref_accepted():
    m = find_time_mentions("yesterday", datetime(2023, 5, 8, 13, 56))[0]
    assert m.date == date(2023, 5, 7)


def test_longest_match_wins_and_order():
    text = "The day before yesterday I ran, and tomorrow I rest. Next week too, and 2 weeks ago."
    found = find_time_mentions(text, MON_8_MAY_2023)
    assert [m.text for m in found] == ["The day before yesterday", "tomorrow", "Next week", "2 weeks ago"]
    assert all(a.end <= b.start for a, b in zip(found, found[1:]))


def test_weekday_abbreviation_does_not_eat_period():
    m = find_time_mentions("We met last Friday.", MON_8_MAY_2023)[0]
    assert m.text == "last Friday"


def test_annotate():
    assert annotate_times("I went yesterday", MON_8_MAY_2023) == "I went yesterday (7 May 2023)"
    text = "Last week I went to a support group, and next month I'll go again."
    once = annotate_times(text, MON_8_MAY_2023)
    assert once == (
        "Last week (the week of 1 May 2023) I went to a support group, and next month (June 2023) I'll go again."
    )
    assert annotate_times(once, MON_8_MAY_2023) == once
    assert annotate_times("nothing here", MON_8_MAY_2023) == "nothing here"
    # a different parenthetical is not mistaken for an annotation
    assert annotate_times("yesterday (with Mel)", MON_8_MAY_2023) == "yesterday (7 May 2023) (with Mel)"


def test_add_months_clamps():
    assert add_months(date(2023, 3, 31), -1) == date(2023, 2, 28)
    assert add_months(date(2024, 3, 31), -1) == date(2024, 2, 29)
    assert add_months(date(2023, 1, 31), 1) == date(2023, 2, 28)
    assert add_months(date(2023, 12, 15), 1) == date(2024, 1, 15)
    assert add_months(date(2024, 2, 29), -12) == date(2023, 2, 28)
    assert add_months(date(2023, 1, 15), -13) == date(2021, 12, 15)
