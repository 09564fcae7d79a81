"""The nickname table: plain data, symmetric lookups, never raises."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from matchers.nicknames import (
    NICKNAMES,
    canonical_given_name,
    given_name_forms,
    same_given_name,
)
from matchers.normalize import normalize_name


@pytest.mark.parametrize(
    ("a", "b"),
    [("BILL", "WILLIAM"), ("PEGGY", "MARGARET"), ("BOB", "ROBERT"), ("LIZ", "ELIZABETH")],
)
def test_known_pairs(a, b):
    assert same_given_name(a, b) and same_given_name(b, a)


def test_unrelated_names_and_two_nicknames_of_one_name_are_not_the_same():
    assert not same_given_name("BILL", "ROBERT")
    assert not same_given_name("AL", "FRED")  # both Alfred, but not each other
    assert not same_given_name("", "JOHN")


def test_canonical_maps_nicknames_to_a_formal_name_and_leaves_formal_names():
    assert canonical_given_name("BILL") == "WILLIAM"
    assert canonical_given_name("WILLIAM") == "WILLIAM"
    assert canonical_given_name("ZEBEDEE") == "ZEBEDEE"


def test_table_is_normalized_upper_ascii():
    for nick, formals in NICKNAMES.items():
        assert normalize_name(nick) == nick
        assert all(normalize_name(f) == f for f in formals)
        assert nick not in formals


@given(st.text(max_size=12), st.text(max_size=12))
def test_same_given_name_is_symmetric_and_never_raises(a, b):
    assert same_given_name(a, b) == same_given_name(b, a)
    assert a in given_name_forms(a)
    if a:
        assert same_given_name(a, a)
