"""User id -> namespace: one injective mapping whose names no person can choose.

The property tests run pure functions only (no store), over 10,000 generated cases each.
"""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memgraph_agents.errors import NamespaceError
from memgraph_agents.storage.namespaces import (
    is_derived,
    normalise_user_id,
    user_namespace,
    validate_namespace,
    validate_stored_name,
)

pytestmark = pytest.mark.slow  # seconds per test: left out of the fast subset (-m "not slow")

_ENDS = "abcxyzABCXYZ0189"
# Raw names built from parts (cheaper than a regex strategy; 10,000 examples must stay fast).
RAW_NAME = st.builds(
    lambda a, mid, b: a + mid + b,
    st.sampled_from(_ENDS),
    st.text(alphabet=_ENDS + "-_", max_size=12),
    st.sampled_from(_ENDS),
) | st.sampled_from(_ENDS)
PREFIX = st.one_of(st.just(""), RAW_NAME)
# Any text, biased towards ids that look like names, emails, slugs or derived names.
USER_ID = st.one_of(
    st.text(min_size=1, max_size=24),
    RAW_NAME,
    st.builds(lambda a, b: f"{a}@{b}.com", RAW_NAME, RAW_NAME),
    st.builds(lambda a, h: f"{a}-{h:010x}", RAW_NAME, st.integers(0, 16**10 - 1)),
    st.builds(lambda s: f"u.{s}", st.text(alphabet="abcdefghijklmnopqrstuvwxyz234567", min_size=52, max_size=52)),
)


def accepted(uid: str) -> bool:
    try:
        normalise_user_id(uid)
        return True
    except NamespaceError:
        return False


SEEN: dict[str, tuple[str, str]] = {}  # every name made in this module -> its (prefix, NFC id)


@settings(max_examples=10_000, deadline=None)
@given(PREFIX, USER_ID)
def test_different_ids_never_share_a_namespace_and_no_raw_name_is_derived(prefix, uid):
    """10,000 generated (prefix, id) pairs; every name is compared with every other one made
    in this module (``SEEN``), so a collision between any two examples would fail."""
    if not accepted(uid):
        with pytest.raises(NamespaceError):
            user_namespace(uid, prefix)
        return
    name = user_namespace(uid, prefix)
    key = (prefix, unicodedata.normalize("NFC", uid))
    assert SEEN.setdefault(name, key) == key, f"{key} and {SEEN[name]} share {name}"
    assert is_derived(name) and validate_stored_name(name) == name
    with pytest.raises(NamespaceError):  # no raw namespace name equals a derived one
        validate_namespace(name)
    assert name != uid  # not even an id spelled like a derived name maps onto itself


@settings(max_examples=500, deadline=None)
@given(RAW_NAME, PREFIX)
def test_raw_names_are_never_derived_and_never_user_namespaces(raw, prefix):
    assert validate_namespace(raw) == raw and not is_derived(raw)
    assert user_namespace(raw, prefix) != raw
    with pytest.raises(NamespaceError):
        validate_namespace(raw + "\n")
    with pytest.raises(NamespaceError):
        validate_namespace(raw + ".x")


@pytest.mark.parametrize(
    "uid", [" alice ", "alice\n", "alice\r", "\talice", "al\x00ice", "alice\u2028", "a\x85b", "", "x" * 513]
)
def test_ids_that_could_be_confused_are_refused_not_merged(uid):
    with pytest.raises(NamespaceError):
        user_namespace(uid)


def test_the_property_test_saw_many_distinct_names():
    """Runs after the property test (file order): it made thousands of distinct names."""
    assert len(SEEN) >= 5_000 or not SEEN  # empty when run on its own (-k)


def test_the_issue_cases():
    old = "alice-example-com-fc2398a73d"  # the previous derived name of alice@example.com
    alice = user_namespace("alice@example.com")
    assert alice.startswith("u.") and len(alice) == 54 and "alice" not in alice
    assert user_namespace(old) != alice and user_namespace("alice") != alice
    # a prefix is part of the hashed input: ("a", "bc") and ("ab", "c") differ; prefix + id never collides
    assert user_namespace("bc", "a") != user_namespace("c", "ab")
    assert user_namespace("x", "app") != user_namespace("app-x") != user_namespace("app.x")
    assert user_namespace("app-x").startswith("u.") and user_namespace("x", "app").startswith("app.")
    # canonically equivalent spellings are one id (NFC); the normalised form is what is hashed
    assert user_namespace("Caf\u00e9") == user_namespace("Cafe\u0301")
    with pytest.raises(NamespaceError):
        user_namespace("x", "bad prefix")


def test_validator_uses_the_whole_string():
    for bad in ["x\n", "x\n\n", "\nx", "x\r\n", "x.", ".x", "x..y"]:
        with pytest.raises(NamespaceError):
            validate_namespace(bad)
        with pytest.raises(NamespaceError):
            validate_stored_name(bad)
