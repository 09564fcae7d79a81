"""Blocking keys and the normalizers that feed them.

The phonetic key is written twice (Python for reference, SQL for the store); hypothesis checks
they agree. One error in any one field must not lose the voter: the union of passes still
proposes them. Every name and address is invented.
"""

from __future__ import annotations

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from matchers.matcher import FSMatcher
from matchers.normalize import (
    NAME_DROP_WORDS,
    SURNAME_PARTICLES,
    soundex,
    split_person_name,
    split_street_address,
)
from matchers.store import BLOCKING_KEYS, soundex_sql
from pipeline.case import MatchingConfig
from pipeline.records import RegisterEntry


@pytest.fixture(scope="module")
def con():
    c = duckdb.connect(":memory:")
    yield c
    c.close()


@pytest.mark.parametrize(
    ("name", "key"),
    [("ROBERT", "R163"), ("RUPERT", "R163"), ("SMITH", "S53"), ("", ""), ("O'BRIEN", "O165")],
)
def test_soundex(name, key):
    assert soundex(name) == key


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ", max_size=12))
def test_soundex_sql_equals_python(con, name):
    got = con.execute(f"SELECT {soundex_sql('s')} FROM (SELECT ? AS s)", [name]).fetchall()[0][0]
    assert got == soundex(name)


@given(st.text())
def test_soundex_never_raises_and_is_short(text):
    key = soundex(text)
    assert len(key) <= 4
    assert key == "" or "A" <= key[0] <= "Z"


@given(st.text())
def test_split_person_name_never_raises(text):
    split_person_name(text)


# A word of a name that is neither dropped (a suffix, an honorific) nor a surname's particle.
_NAME_WORD = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", min_size=1)
_PLAIN_WORD = _NAME_WORD.filter(
    lambda w: w.upper() not in NAME_DROP_WORDS and w.upper() not in SURNAME_PARTICLES
)


@given(st.lists(_PLAIN_WORD, min_size=2, max_size=4), st.booleans())
def test_split_person_name_is_stable(words, comma):
    """A name's parts written back as a name read as the same parts, whether it was written
    "FIRST MIDDLE LAST" or "LAST, FIRST MIDDLE". (Any text at all need not: "I:V, 0" is
    surname IV, which written back is a suffix.)"""
    text = f"{words[-1]}, {' '.join(words[:-1])}" if comma else " ".join(words)
    p = split_person_name(text)
    again = split_person_name(" ".join(x for x in (p.first, p.middle, p.last) if x))
    assert (again.first, again.middle, again.last) == (p.first, p.middle, p.last)


@given(st.text())
def test_split_street_address_never_raises_and_is_stable(text):
    a = split_street_address(text)
    again = split_street_address(a.street_line)
    if a.house_number and a.street:
        assert (again.house_number, again.street, again.unit) == (a.house_number, a.street, a.unit)


@pytest.mark.parametrize(
    ("text", "first", "middle", "last", "suffix"),
    [
        ("John A. Smith Jr.", "JOHN", "A", "SMITH", "JR"),
        ("Smith, John A", "JOHN", "A", "SMITH", ""),
        ("Mary O'Brien-Smith", "MARY", "", "OBRIENSMITH", ""),
        ("Cher", "", "", "CHER", ""),
    ],
)
def test_split_person_name(text, first, middle, last, suffix):
    p = split_person_name(text)
    assert (p.first, p.middle, p.last, p.suffix) == (first, middle, last, suffix)


@pytest.mark.parametrize(
    ("text", "house", "street", "unit", "zip5"),
    [
        (
            "12 1/2 North Main Street, Apt. #3, Harrowgate NY 12345",
            "12 1/2",
            "N MAIN ST",
            "3",
            "12345",
        ),
        ("37-12 80th St", "37-12", "80TH ST", "", ""),
        ("12345 Main St", "12345", "MAIN ST", "", ""),
        ("4 Oak Ave #3", "4", "OAK AVE", "3", ""),
        ("", "", "", "", ""),
    ],
)
def test_split_street_address(text, house, street, unit, zip5):
    a = split_street_address(text)
    assert (a.house_number, a.street, a.unit, a.zip5) == (house, street, unit, zip5)


REGISTER = tuple(
    RegisterEntry(
        f"V{i:03d}",
        last,
        first,
        house_number=str(10 + i),
        street_name=street,
        zip5="12345",
    )
    for i, (first, last, street) in enumerate(
        [
            ("Odile", "Marchbanks", "Oak Ave"),
            ("Ansel", "Quillfeather", "Orchard Rd"),
            ("William", "Tremaine", "Birch Ln"),
            ("Margaret", "Ostrander", "Cedar Ct"),
            ("Caius", "Pellow", "Elm St"),
        ]
        * 1
    )
)


@pytest.fixture(scope="module")
def matcher():
    return FSMatcher(REGISTER, MatchingConfig())


CORRUPTIONS = [
    ("Odile Marchbanks", "10 Oak Ave", "V000", "clean"),
    ("Odlie Marchbanks", "10 Oak Ave", "V000", "given-name typo"),
    ("Odile Narchbanks", "10 Oak Ave", "V000", "surname first letter"),
    ("Odile Marchbanks", "16 Oak Ave", "V000", "house number"),
    ("Odile Marchbanks", "10 0ak Ave", "V000", "street first letter"),
    ("Bill Tremaine", "", "V002", "nickname, no address"),
    ("Peggy Ostrander", "13 Cedar Ct", "V003", "nickname"),
    ("", "11 Orchard Rd", "V001", "no name"),
    ("A. Quillfeather", "", "V001", "initial, no address"),
]


@pytest.mark.parametrize(("name", "residence", "voter", "what"), CORRUPTIONS)
def test_one_error_does_not_lose_the_voter(matcher, name, residence, voter, what):
    pairs = matcher.candidate_pairs([(name, residence)])
    assert voter in set(pairs.voter_id), what


def test_passes_are_reported_as_bits(matcher):
    pairs = matcher.candidate_pairs([("Odile Marchbanks", "10 Oak Ave, 12345")])
    row = pairs[pairs.voter_id == "V000"].iloc[0]
    names = {k for bit, k in enumerate(BLOCKING_KEYS) if int(row.passes) & (1 << bit)}
    assert {"k_address", "k_name", "k_surname_house", "k_zip_initials"} <= names


def test_a_block_larger_than_max_block_is_skipped():
    many = tuple(
        RegisterEntry(f"S{i:03d}", "Smith", "John", house_number=str(i), street_name="Main St")
        for i in range(30)
    )
    small = FSMatcher(many, MatchingConfig(), max_block=10)
    pairs = small.candidate_pairs([("John Smith", "")])
    assert len(pairs) == 0  # every name pass has a block of 30: skipped, none returned
    pairs = small.candidate_pairs([("John Smith", "7 Main St")])
    assert "S007" in set(pairs.voter_id)  # the address passes still find the voter


def test_a_block_of_exactly_max_block_is_used():
    many = tuple(
        RegisterEntry(f"S{i:03d}", "Smith", "John", house_number=str(i), street_name="Main St")
        for i in range(30)
    )
    pairs = FSMatcher(many, MatchingConfig(), max_block=30).candidate_pairs([("John Smith", "")])
    assert len(pairs) == 30  # the name passes' block of 30 is not larger than max_block


def test_a_reading_takes_its_smallest_blocks_first_up_to_the_budget():
    many = tuple(
        RegisterEntry(f"S{i:03d}", "Smith", "John", house_number=str(i), street_name="Main St")
        for i in range(30)
    )
    line = [("John Smith", "7 Main St")]
    tight = FSMatcher(many, MatchingConfig(), max_block=100, block_budget=5)
    # the address's blocks (one entry) come first; the name's block of 30 is past the budget
    assert list(tight.candidate_pairs(line).voter_id) == ["S007"]
    loose = FSMatcher(many, MatchingConfig(), max_block=100, block_budget=100)
    assert len(loose.candidate_pairs(line)) == 30
    # the smallest block is taken even when it alone is over the budget
    assert len(tight.candidate_pairs([("John Smith", "")])) == 30


def test_the_default_budget_stops_a_reading_after_its_specific_blocks_and_one_common_one():
    """At the default budget (150 entries), a reading whose specific blocks (the voter alone)
    are followed by two common ones of 201 takes the first of those only: at 300 it took both,
    and the candidate pairs a line (and their cost) nearly doubled on a 1,000,000-voter
    register with no decision changed (bench/match_speed.py). Invented people."""
    voter = RegisterEntry("V000", "Smith", "John", house_number="7", street_name="Main St")
    housemates = tuple(  # k_address "7|MAI": 201 entries, pass 0, so first of the large
        RegisterEntry(f"H{i:03d}", "Jones", "Mary", house_number="7", street_name="Main St")
        for i in range(200)
    )
    namesakes = tuple(  # k_name "S530|J" and the other name passes: 201 entries
        RegisterEntry(f"N{i:03d}", "Smith", "John", house_number=str(100 + i), street_name="Elm")
        for i in range(200)
    )
    line = [("John Smith", "7 Main St")]
    found = set(
        FSMatcher((voter, *housemates, *namesakes), MatchingConfig()).candidate_pairs(line).voter_id
    )
    assert "V000" in found and "H000" in found
    assert not any(v.startswith("N") for v in found)
    wider = FSMatcher((voter, *housemates, *namesakes), MatchingConfig(), block_budget=300)
    assert any(v.startswith("N") for v in wider.candidate_pairs(line).voter_id)


def test_a_surname_slip_without_an_address_keeps_a_pass_when_common_keys_are_too_big():
    # Invented names. The common passes on the name (soundex + initial, a q-gram) share one
    # block of 31 > max_block; the whole given name with the surname's tail still finds him.
    others = tuple(
        RegisterEntry(f"O{i:03d}", "Ashwelles", f"Wi{'bcdfghjklmnpqrstvwxyzbcdfghjklm'[i]}en")
        for i in range(30)
    )
    voter = RegisterEntry("V000", "Ashwelles", "Wiros", house_number="319", street_name="Elm St")
    m = FSMatcher((*others, voter), MatchingConfig(), max_block=10)
    pairs = m.candidate_pairs([("Wiros Asnwelles", "")])
    row = pairs[pairs.voter_id == "V000"]
    assert len(row) == 1
    bits = int(row.passes.iloc[0])
    assert {k for b, k in enumerate(BLOCKING_KEYS) if bits & (1 << b)} == {"k_given_last_tail"}


def test_a_changed_surname_is_proposed_by_the_given_name_and_the_address_in_its_postcode():
    # Invented names. The line's surname is not the voter's (married, or replaced) and shares
    # nothing with it: only the given name's start with the house number, or with the street,
    # inside the postcode proposes her.
    voter = RegisterEntry(
        "V001", "Pringlewood", "Georgia", house_number="2", street_name="Freda Ct", zip5="21540"
    )
    others = tuple(
        RegisterEntry(f"O{i:03d}", "Hallorby", "Ansel", house_number=str(10 + i), zip5="21540")
        for i in range(5)
    )
    m = FSMatcher((voter, *others), MatchingConfig())
    for residence, key in (
        ("2 Oakvale Rd, 21540", "k_given_house_zip"),  # the street replaced too
        ("Freda Court, 21540", "k_given_street_zip"),  # no house number
    ):
        pairs = m.candidate_pairs([("Georgia Wildeman", residence)])
        row = pairs[pairs.voter_id == "V001"]
        assert len(row) == 1, residence
        bits = int(row.passes.iloc[0])
        assert {k for b, k in enumerate(BLOCKING_KEYS) if bits & (1 << b)} == {key}


def test_the_prefilter_does_not_take_two_empty_surnames_for_alike():
    """A reading without a surname (one word read as a given name) and an entry without one
    share no surname: the pair is scored only when another of the prefilter's rules holds
    (here none: the given names are unlike and there is no postcode), as when the surnames'
    similarity alone was tested (Jaro-Winkler of two empty strings is 0). Invented people."""
    from matchers.lines import line_frame

    entry = RegisterEntry("E000", "", "Marcus", house_number="9", street_name="Elm St")
    m = FSMatcher((entry,), MatchingConfig())
    with m.store.cursor() as con:
        q = line_frame(con, [("Quinto", "9 Elm St")], m._places, readings=True)
        assert "" in set(q.n_last)  # the reading as a given name
        m._block(con, passes=False)
        proposed = con.execute("SELECT q.n_last FROM pairs JOIN q USING (qid)").fetchall()
        assert ("",) in proposed  # the address pass proposes the entry to that reading
        got = con.execute(f"SELECT q.n_last FROM ({m._prefilter()}) c JOIN q USING (qid)")
        assert ("",) not in got.fetchall()
