"""Comparison levels, checked against a slow, obviously-correct reference; and the weights.

Every value here is invented.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz import fuzz
from rapidfuzz.distance import OSA, JaroWinkler, Levenshtein

from matchers.compare import (
    COMPARISONS,
    LEVELS,
    Comparison,
    Fold,
    Similarity,
    compare_arrays,
    digit_fold,
    level,
    ocr_fold,
    one_slip,
    street_core,
)
from matchers.nicknames import same_given_name
from matchers.weights import load_weights
from pipeline.records import ComparisonLevel as L

BY_FIELD = {c.field: c for c in COMPARISONS}


def reference(cmp: Comparison, a: str, b: str) -> L:
    """One pair, one rule at a time: the best level any rule gives."""
    if not a or not b:
        return L.MISSING
    if a == b:
        return L.EXACT
    if cmp.similarity is Similarity.JARO_WINKLER:
        sim = 100 * JaroWinkler.normalized_similarity(a, b)
        if cmp.ocr_fold:
            folded = 100 * JaroWinkler.normalized_similarity(ocr_fold(a), ocr_fold(b))
            sim = max(float(np.float32(sim)), float(np.float32(folded)))
    elif cmp.similarity is Similarity.TOKEN_SORT:
        sim = fuzz.token_sort_ratio(a, b)
    elif cmp.similarity is Similarity.EDITS:
        sim = 100 * Levenshtein.normalized_similarity(a, b)
    else:
        sim = 0.0
    sim = float(np.float32(sim))
    got = [L.DIFFERENT]
    if cmp.close is not None and sim >= cmp.close:
        got.append(L.CLOSE)
    if cmp.loose is not None and sim >= cmp.loose:
        got.append(L.LOOSE)
    folder = digit_fold if cmp.fold is Fold.DIGITS else ocr_fold
    if cmp.fold_level is not None and folder(a) == folder(b):
        got.append(cmp.fold_level)
    long_enough = min(len(a), len(b)) >= cmp.edit_min_length or (
        cmp.added_min_length is not None
        and len(a) != len(b)
        and min(len(a), len(b)) >= cmp.added_min_length
    )
    if cmp.edit_level is not None and long_enough and OSA.distance(a, b) <= 1:
        got.append(cmp.edit_level)
    if cmp.nicknames and same_given_name(a, b):
        got.append(L.CLOSE)
    if cmp.initial_level is not None and (len(a) == 1 or len(b) == 1) and a[0] == b[0]:
        got.append(cmp.initial_level)
    if cmp.street_core and street_core(a) and street_core(a) == street_core(b):
        got.append(L.CLOSE)
    if cmp.street_core:
        for x, y in ((a, b), (b, a)):
            core, whole = street_core(x).replace(" ", ""), y.replace(" ", "")
            if len(core) >= 4 and whole != core and whole.startswith(core):
                got.append(L.CLOSE)  # words run together or apart ("BROOKE RSTREET")
    if (
        cmp.transposed_level is not None
        and a.isdigit()
        and b.isdigit()
        and len(a) == len(b)
        and any(a == b[:i] + b[i + 1] + b[i] + b[i + 2 :] for i in range(len(b) - 1))
    ):
        got.append(cmp.transposed_level)
    order = [L.EXACT, L.CLOSE, L.INITIAL, L.LOOSE, L.DIFFERENT]
    return min(got, key=order.index)


CASES = [
    ("first_name", "JOHN", "JOHN", L.EXACT),
    ("first_name", "BILL", "WILLIAM", L.CLOSE),
    ("first_name", "PEGGY", "MARGARET", L.CLOSE),
    ("first_name", "JONH", "JOHN", L.CLOSE),
    ("first_name", "J", "JOHN", L.INITIAL),  # a level of its own, not a likeness
    ("first_name", "JOHN", "J", L.INITIAL),
    ("first_name", "K", "JOHN", L.DIFFERENT),
    ("first_name", "JOHAN", "JOHN", L.CLOSE),
    ("first_name", "MARCUS", "MARCIA", L.LOOSE),  # a likeness
    ("first_name", "KYO", "KY", L.CLOSE),  # a letter added to a two-letter name: one slip
    ("first_name", "AL", "AN", L.DIFFERENT),  # a letter changed: another name
    ("last_name", "LIU", "LI", L.LOOSE),  # surnames: not for two letters (LI and LIU differ)
    ("middle_name", "A", "ALBERT", L.CLOSE),  # the middle initial stays CLOSE
    ("first_name", "PERCIVAL", "JOHN", L.DIFFERENT),
    ("first_name", "LARNAR", "LAMAR", L.CLOSE),
    ("last_name", "0SMOREOW", "OSMOREOW", L.CLOSE),
    ("first_name", "", "JOHN", L.MISSING),
    ("middle_name", "A", "ALBERT", L.CLOSE),
    ("middle_name", "B", "ALBERT", L.DIFFERENT),
    ("last_name", "SMYTH", "SMITH", L.CLOSE),
    ("last_name", "HARWARTHOW", "HARWORTHOW", L.CLOSE),  # one OCR slip (a / o)
    ("last_name", "BRANHARN", "BRANHAM", L.CLOSE),  # "rn" read for "m"
    ("last_name", "ASHBURN", "ASHBURNIN", L.LOOSE),  # alike, but not one slip
    ("last_name", "JONES", "SMITH", L.DIFFERENT),
    ("first_name", "DAIIA", "DALIA", L.CLOSE),  # "I" read for "L"
    ("first_name", "AL", "AN", L.DIFFERENT),  # too short for a slip to mean anything
    ("house_number", "12", "13", L.LOOSE),  # a slip, or the house next door
    ("house_number", "340", "304", L.CLOSE),  # two digits swapped: a level of its own
    ("house_number", "340", "341", L.LOOSE),  # the house next door, or a slip
    ("street", "BROOKER ST", "BROOKE RSTREET", L.CLOSE),  # words run apart
    ("street", "DIXON DR", "DIXONDDRIVE", L.CLOSE),
    ("house_number", "L47", "147", L.CLOSE),  # "l" read for "1"
    ("house_number", "7O", "70", L.CLOSE),
    ("house_number", "3L6", "376", L.LOOSE),  # "l" is a "1", not a "7": look-alikes do not chain
    ("house_number", "3L6", "326", L.LOOSE),
    ("house_number", "12", "47", L.DIFFERENT),
    ("street", "MAIN ST", "MAIN ST", L.EXACT),
    ("street", "MAIN ST N", "N MAIN ST", L.CLOSE),
    ("street", "S WABASH", "S WABASH AVE", L.CLOSE),
    ("street", "MEADOW PI", "MEADOW PL", L.CLOSE),
    ("street", "MI1L BLVD", "MILL BLVD", L.CLOSE),
    ("street", "OAK ST", "OAK CT", L.CLOSE),  # a street type mixed up (or two streets)
    ("suffix", "JR", "SR", L.DIFFERENT),
    ("zip5", "12345", "", L.MISSING),
    ("zip5", "4069", "4060", L.CLOSE),  # a postcode one slip off: a level of its own
    ("zip5", "3149", "3194", L.CLOSE),  # two digits swapped
    ("zip5", "12345", "12399", L.DIFFERENT),
]


@pytest.mark.parametrize(("field", "a", "b", "expected"), CASES)
def test_levels(field, a, b, expected):
    got, sim = level(BY_FIELD[field], a, b)
    assert got is expected
    assert 0.0 <= sim <= 100.0
    assert got is reference(BY_FIELD[field], a, b)


names = st.one_of(
    st.text(alphabet="ABJLMNORSTW ", max_size=8).map(str.strip),
    st.sampled_from(
        ["MAIN ST", "MAIN", "N MAIN ST", "MAIN AVE", "ST", "12", "13", "J", "JOHN", "RN", "M"]
    ),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(names, names), min_size=1, max_size=30))
def test_vectorized_levels_equal_the_reference(pairs):
    a = [p[0] for p in pairs]
    b = [p[1] for p in pairs]
    for cmp in COMPARISONS:
        codes, sims = compare_arrays(cmp, a, b)
        assert [LEVELS[c] for c in codes] == [reference(cmp, x, y) for x, y in pairs], cmp.field
        assert np.all((sims >= 0) & (sims <= 100))
        # a batch gives each pair what it gets alone (the sides are factorized per batch)
        assert sims.tolist() == [level(cmp, x, y)[1] for x, y in pairs], cmp.field


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ABLMNORS017 ", max_size=8), st.text(alphabet="ABLMNORS017 ", max_size=8))
def test_one_slip_is_symmetric_and_never_for_equal_values(a, b):
    for fold in Fold:
        assert one_slip(a, b, fold) == one_slip(b, a, fold)
        assert not one_slip(a, a, fold)


def test_folds():
    assert ocr_fold("BRANHARN") == "BRANHAM"
    assert digit_fold("L47") == digit_fold("147")
    assert digit_fold("7O") == "70"
    assert digit_fold("3L6") != digit_fold("376")
    assert one_slip("JONH", "JOHN")
    assert not one_slip("JO", "JA", min_length=3)


def test_compare_arrays_needs_equal_lengths():
    with pytest.raises(ValueError):
        compare_arrays(COMPARISONS[0], ["A"], [])


def test_stored_weights_are_monotone_and_missing_is_neutral():
    w = load_weights()
    assert w.fields == tuple(c.field for c in COMPARISONS)
    assert w.made
    table = w.table
    for i, cmp in enumerate(COMPARISONS):
        given = [j for j, lv in enumerate(LEVELS) if lv is not L.MISSING and cmp.gives(j)]
        assert list(table[i, given]) == sorted(table[i, given], reverse=True)
        assert table[i, LEVELS.index(L.MISSING)] == 0.0
        if not cmp.conditional:  # INITIAL: the given name's alone
            assert table[i, LEVELS.index(L.INITIAL)] == 0.0
    assert w.weight("first_name", L.MISSING) == 0.0
    # an initial weighs what its letter says; a likeness (LOOSE) less: a stranger's name is
    # as often like the signer's as the signer's own
    assert w.weight("first_name", L.INITIAL) > 2.0 > w.weight("first_name", L.LOOSE)
    assert w.thresholds.no_match <= w.thresholds.match


def test_probability_is_monotone_and_bounded():
    w = load_weights()
    ps = [w.probability(x) for x in (-50.0, -5.0, 0.0, 5.0, 20.0, 100.0)]
    assert ps == sorted(ps)
    assert all(0.0 <= p <= 1.0 for p in ps)
    assert math.isclose(w.probability(200.0), 1.0)


def test_u_is_estimated_on_the_register_matched_when_it_is_large_enough():
    from matchers.store import RegisterStore
    from matchers.weights import MIN_ENTRIES_OWN_U, for_register
    from pipeline.records import RegisterEntry

    stored = load_weights()
    small = RegisterStore.from_entries(
        [RegisterEntry(f"S{i}", f"SURNAME{i}", "ANN", house_number=str(i)) for i in range(20)]
    )
    assert for_register(stored, small) is stored  # too few voters to say how they agree
    # Everybody on one street: a street that agrees says nothing here, so its weight is ~0.
    n = MIN_ENTRIES_OWN_U + 200
    big = RegisterStore.from_entries(
        [
            RegisterEntry(
                f"B{i}",
                f"LAST{i % 97}X",
                f"FIRST{i % 89}Y",
                house_number=str(i % 400 + 1),
                street_name="ELM ST",
            )
            for i in range(n)
        ]
    )
    own = for_register(stored, big, pairs=5_000)
    assert own.m == stored.m and own.thresholds == stored.thresholds
    assert own.weight("street", L.EXACT) < 0.5 < stored.weight("street", L.EXACT)
    assert "re-estimated on the register" in own.made


def test_an_initial_is_weighed_by_how_often_first_letters_agree():
    from matchers.compare import FIELD_COLUMNS, INITIAL, LOOSE
    from matchers.weights import _frequencies

    def side(first: list[str]) -> dict[str, list[str]]:
        cols = {c: [""] * len(first) for c in FIELD_COLUMNS.values()}
        cols["n_first"] = first
        return cols

    # two of four pairs agree on the first letter (add-one: 3 / 6); the pair of an initial
    # with its name is INITIAL, and stays out of LOOSE's share (no likeness among these)
    got = _frequencies(side(["JOHN", "J", "MARY", "MARK"]), side(["JAMES", "JOHN", "PAUL", "ANNA"]))
    first = got[[c.field for c in COMPARISONS].index("first_name")]
    assert first[INITIAL] == pytest.approx(0.5)
    assert first[LOOSE] == pytest.approx(1 / (3 + 4))  # add-one over 3 pairs, 4 levels
    # a field that never gives INITIAL has none
    assert got[[c.field for c in COMPARISONS].index("last_name")][INITIAL] == 1.0


def test_fit_to_lines_learns_m_and_the_registered_share_from_the_lines():
    import numpy as np

    from matchers.compare import CLOSE, DIFFERENT, EXACT, INITIAL, MISSING
    from matchers.weights import PRIOR_LINES_M, fit_to_lines

    stored = load_weights()
    fields = stored.fields
    n = 2_000
    # Every line a registered signer with an exact candidate, a tenth of them with another
    # given name (FEBRL-like): m(given name DIFFERENT) rises from the stored ~0 to ~0.1.
    row = [MISSING] * len(fields)
    for f in ("first_name", "last_name", "house_number", "street"):
        row[fields.index(f)] = EXACT
    codes = np.array([row] * n, dtype=np.int8)
    codes[::10, fields.index("first_name")] = DIFFERENT
    line = np.arange(n)
    fit = fit_to_lines(stored, codes, line, np.zeros(n), n, 5_000)
    m_diff = fit.weights.m[fields.index("first_name")][DIFFERENT]
    # the initial's m is conditional (the chance an initial agrees): kept as given
    first = fields.index("first_name")
    assert fit.weights.m[first][INITIAL] == stored.m[first][INITIAL]
    assert 0.05 < m_diff < 0.11 and stored.m[fields.index("first_name")][DIFFERENT] < 0.001
    assert fit.registered > 0.95
    # A handful of lines barely move the stored m (a village petition keeps its priors).
    few = fit_to_lines(stored, codes[:5], line[:5], np.zeros(5), 5, 5_000)
    assert few.weights.m[fields.index("first_name")][DIFFERENT] < 1.0 / PRIOR_LINES_M
    assert few.weights.m[fields.index("last_name")][CLOSE] == pytest.approx(
        stored.m[fields.index("last_name")][CLOSE], rel=0.1
    )
