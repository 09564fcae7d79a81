"""normalize_name and normalize_address: examples, and properties checked with hypothesis."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from matchers.normalize import (
    ADDRESS_WORDS,
    NAME_DROP_WORDS,
    STREET_SUFFIXES,
    StreetAddress,
    normalize_address,
    normalize_name,
    split_person_name,
    standard_suffix,
    street_readings,
)
from matchers.store import RegisterStore
from pipeline.records import RegisterEntry


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("John Smith", "JOHN SMITH"),
        ("  john   smith  ", "JOHN SMITH"),
        ("José Núñez", "JOSE NUNEZ"),
        ("Zoë Ångström", "ZOE ANGSTROM"),
        ("Søren Łukasz Straße", "SOREN LUKASZ STRASSE"),
        ("O'Brien", "OBRIEN"),
        ("O’Brien", "OBRIEN"),
        ("Mary-Kate Olsen-Smith", "MARY KATE OLSEN SMITH"),
        ("-Smith-", "SMITH"),
        ("Smith, John A.", "SMITH JOHN A"),
        ("John Smith Jr.", "JOHN SMITH"),
        ("John Smith, Sr", "JOHN SMITH"),
        ("John Smith III", "JOHN SMITH"),
        ("Henry Ford II", "HENRY FORD"),
        ("Louis IV", "LOUIS"),
        ("Dr. Jane Doe", "JANE DOE"),
        ("Mr. and Mrs. John Doe", "AND JOHN DOE"),
        ("Ms Jane Doe", "JANE DOE"),
        ("J.R. Ewing", "J R EWING"),
        ("", ""),
        ("   ", ""),
        ("...", ""),
        ("Jr.", ""),
    ],
)
def test_normalize_name_examples(raw, expected):
    assert normalize_name(raw) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("12 Main Street", "12 MAIN ST"),
        ("12 Main St.", "12 MAIN ST"),
        ("707 E. 37th St.", "707 E 37TH ST"),
        ("123 North Court Street", "123 N CT ST"),
        ("4 Oak Avenue, Apt. 3", "4 OAK AVE APT 3"),
        ("4 Oak Ave #3", "4 OAK AVE APT 3"),
        ("4 Oak Ave Apt #3", "4 OAK AVE APT 3"),
        ("4 Oak Ave Apartment 3", "4 OAK AVE APT 3"),
        ("4 Oak Ave Unit 3", "4 OAK AVE APT 3"),
        ("4 Oak Ave Suite 300", "4 OAK AVE APT 300"),
        ("12 1/2 Elm Road", "12 1/2 ELM RD"),
        ("12½ Elm Road", "12 1/2 ELM RD"),
        ("37-12 80th Street", "37-12 80TH ST"),
        ("9 Hill-Top Drive", "9 HILL TOP DR"),
        ("1 Lake Shore Boulevard", "1 LAKE SHORE BLVD"),
        ("2 Ridge Terrace", "2 RIDGE TER"),
        ("3 Oval Circle", "3 OVAL CIR"),
        ("5 Taconic Parkway", "5 TACONIC PKWY"),
        ("6 State Highway 9", "6 STATE HWY 9"),
        ("7 Mill Lane", "7 MILL LN"),
        ("8 Bank Place", "8 BANK PL"),
        ("10 Pecan Blvd Southwest", "10 PECAN BLVD SW"),
        ("11 West Road", "11 W RD"),
        ("12 Saint Mary's Place", "12 SAINT MARYS PL"),
        ("", ""),
        (" , . ", ""),
    ],
)
def test_normalize_address_examples(raw, expected):
    assert normalize_address(raw) == expected


def test_tables_map_to_fixed_points():
    # Every abbreviation is itself left alone, which keeps the function idempotent.
    for short in ADDRESS_WORDS.values():
        assert ADDRESS_WORDS.get(short, short) == short
    assert all(w == w.upper() for w in NAME_DROP_WORDS)


def test_none_is_empty():
    assert normalize_name(None) == ""
    assert normalize_address(None) == ""


# Text weighted towards what normalization cares about, plus any Unicode at all.
_interesting = st.lists(
    st.sampled_from(list("abcxyzABC019 -/#.,'’½éÉøßﬁǰ\t\n") + ["Jr", "APT", "St"]),
    max_size=30,
).map("".join)
_any_text = st.one_of(st.text(max_size=60), _interesting)
_words = st.lists(
    st.sampled_from(sorted(NAME_DROP_WORDS | set(ADDRESS_WORDS) | {"12", "1/2", "#", "MAIN"})),
    max_size=8,
).map(" ".join)


def _well_spaced(s: str) -> bool:
    return s == s.strip() and "  " not in s and not any(c in s for c in "\t\n\r")


@settings(max_examples=300, deadline=None)
@given(st.one_of(_any_text, _words))
@pytest.mark.parametrize("normalize", [normalize_name, normalize_address])
def test_idempotent_and_well_spaced(normalize, s):
    once = normalize(s)  # never raises
    assert normalize(once) == once
    assert _well_spaced(once)
    assert once == once.upper()


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.sampled_from(sorted(NAME_DROP_WORDS)), max_size=4),
    st.from_regex(r"[A-Z]{2,8}( [A-Z]{2,8}){0,2}", fullmatch=True),
)
def test_name_without_drop_words_is_unchanged(drops, name):
    if set(name.split()) & NAME_DROP_WORDS:
        return
    assert normalize_name(" ".join([name, *drops])) == name


@pytest.mark.parametrize(
    ("text", "first", "middle", "last"),
    [
        ("Maria De La Cruz", "MARIA", "", "DELACRUZ"),
        ("De La Cruz, Maria", "MARIA", "", "DELACRUZ"),  # the register's order, the same key
        ("Jan van der Berg", "JAN", "", "VANDERBERG"),
        ("Maria E. Da Silva", "MARIA", "E", "DASILVA"),
        ("Ann St. John", "ANN", "", "STJOHN"),
        ("Mary Anne Smith", "MARY", "ANNE", "SMITH"),  # a middle name is not a particle
        ("Del Smith", "DEL", "", "SMITH"),  # the given name is never taken for one
    ],
)
def test_multi_word_surnames_keep_their_particles(text, first, middle, last):
    p = split_person_name(text)
    assert (p.first, p.middle, p.last) == (first, middle, last)


def test_name_readings_swapped_one_word_and_words_run_apart():
    from matchers.normalize import PersonName, name_readings

    assert name_readings("Paterson Madeleine")[1] == PersonName("MADELEINE", "", "PATERSON", "")
    assert name_readings("Robert")[1] == PersonName("ROBERT", "", "", "")
    joins = name_readings("Francesco Finl Ay")[1:]
    assert PersonName("FRANCESCO", "", "FINLAY", "") in joins
    # the surname first, the given name run apart
    assert PersonName("SAMANTHA", "", "HUXLEY", "") in name_readings("Huxley Samant Ha")
    assert name_readings("John A Smith") == (split_person_name("John A Smith"),)
    assert name_readings("Smith, John") == (split_person_name("Smith, John"),)


@pytest.mark.parametrize(
    ("text", "zip5", "street"),
    [
        ("16 Dumas Street, Latchford Barracks, Mount Ommaney 2281", "2281", "DUMAS ST"),
        ("12 Main St, Town NY 12345-1234", "12345", "MAIN ST"),
        ("12 Main St, Apt 305", "", "MAIN ST"),
        ("15 Cockcroftavenue, Pakenham 2114", "2114", "COCKCROFT AVE"),
        # a place whose name starts like a unit ("ST", "SU", "UN", "AP") keeps its postcode
        ("8 Budgerie, Tungun Street, Stonyfell 3015", "3015", "BUDGERIE"),
        ("5 Oak Rd, Sunbury 3429", "3429", "OAK RD"),
        ("12 Main St, Suite 3, 4000", "4000", "MAIN ST"),
    ],
)
def test_postcodes_of_any_length_and_street_types_run_in(text, zip5, street):
    from matchers.normalize import split_street_address

    got = split_street_address(text)
    assert (got.zip5, got.street) == (zip5, street)


# --------------------------------------------------------------------------------------------
# USPS Publication 28 street suffixes (C1), at the suffix's place only
# --------------------------------------------------------------------------------------------

SUFFIX_CASES = [
    ("MAPLE CRESCENT", "MAPLE CRES"),
    ("ARMSTRONG CRSENT", "ARMSTRONG CRES"),
    ("OAK VALLY", "OAK VLY"),
    ("E MAIN STREET W", "E MAIN ST W"),
    ("MILL ROAD N", "MILL RD N"),
    ("VALLEY VIEW TERRACE", "VALLEY VIEW TER"),  # VALLEY names the street: kept
    ("MILL", "MILL"),  # one word: the street's name
    ("N PARK", "N PARK"),  # a directional and a name
    ("BROADWAY", "BROADWAY"),
    ("", ""),
]


@pytest.mark.parametrize(("street", "expected"), SUFFIX_CASES)
def test_standard_suffix(street, expected):
    assert standard_suffix(street) == expected
    assert standard_suffix(expected) == expected


def test_the_suffix_list_is_publication_28s():
    # every standard abbreviation maps to itself; a few of C1's rows, spot-checked
    assert all(STREET_SUFFIXES[std] == std for std in STREET_SUFFIXES.values())
    for word, std in (
        ("CRESCENT", "CRES"),
        ("HOLLOWS", "HOLW"),
        ("TURNPIKE", "TPKE"),
        ("CROSSING", "XING"),
        ("VILLIAGE", "VLG"),
        ("THROUGHWAY", "TRWY"),
    ):
        assert STREET_SUFFIXES[word] == std
    assert len(set(STREET_SUFFIXES.values())) >= 200


def test_the_store_writes_suffixes_as_standard_suffix_does():
    streets = [s for s, _ in SUFFIX_CASES]
    store = RegisterStore.from_entries(
        [
            RegisterEntry(f"V{i}", "QUILLBY", "ODILE", house_number="1", street_name=s.title())
            for i, s in enumerate(streets)
        ]
    )
    with store.cursor() as con:
        got = [s for (s,) in con.execute("SELECT n_street FROM entries ORDER BY rid").fetchall()]
    assert got == [standard_suffix(normalize_address(s)) for s in streets]


def test_a_street_written_after_a_place_name_is_read_too():
    readings = street_readings("110 Torbalea, Milson Street, Latrobe 2211")
    assert readings[0] == StreetAddress("110", "TORBALEA", "", "2211")
    assert StreetAddress("110", "MILSON ST", "", "2211") in readings[1:]
    # a street with its suffix first, or a unit after it, is read one way only
    assert len(street_readings("12 Main St, Elmwood Falls, NY 12345")) == 1
    assert len(street_readings("12 Main St, Apt 3, Elmwood Falls")) == 1
    assert len(street_readings("12 Broadway")) == 1
