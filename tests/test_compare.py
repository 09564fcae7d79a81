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
from rapidfuzz.distance import JaroWinkler, Levenshtein

from matchers.compare import (
    COMPARISONS,
    LEVELS,
    Comparison,
    Similarity,
    compare_arrays,
    level,
    ocr_fold,
    street_core,
)
from matchers.nicknames import same_given_name
from matchers.weights import load_weights
from pipeline.records import ComparisonLevel as L

BY_FIELD = {c.field: c for c in COMPARISONS}


def reference(cmp: Comparison, a: str, b: str) -> L:
    """One pair, one rule at a time, in the documented order."""
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
    if cmp.close is not None and sim >= cmp.close:
        return L.CLOSE
    if cmp.close_edits is not None and Levenshtein.distance(a, b) <= cmp.close_edits:
        return L.CLOSE
    if cmp.nicknames and same_given_name(a, b):
        return L.CLOSE
    if cmp.street_core and street_core(a) and street_core(a) == street_core(b):
        return L.CLOSE
    if cmp.initial_level is L.CLOSE and (len(a) == 1 or len(b) == 1) and a[0] == b[0]:
        return L.CLOSE
    if cmp.loose is not None and sim >= cmp.loose:
        return L.LOOSE
    if cmp.initial_level is L.LOOSE and (len(a) == 1 or len(b) == 1) and a[0] == b[0]:
        return L.LOOSE
    return L.DIFFERENT


CASES = [
    ("first_name", "JOHN", "JOHN", L.EXACT),
    ("first_name", "BILL", "WILLIAM", L.CLOSE),
    ("first_name", "PEGGY", "MARGARET", L.CLOSE),
    ("first_name", "JONH", "JOHN", L.CLOSE),
    ("first_name", "J", "JOHN", L.LOOSE),
    ("first_name", "PERCIVAL", "JOHN", L.DIFFERENT),
    ("first_name", "LARNAR", "LAMAR", L.CLOSE),
    ("last_name", "0SMOREOW", "OSMOREOW", L.CLOSE),
    ("first_name", "", "JOHN", L.MISSING),
    ("middle_name", "A", "ALBERT", L.CLOSE),
    ("middle_name", "B", "ALBERT", L.DIFFERENT),
    ("last_name", "SMYTH", "SMITH", L.CLOSE),
    ("last_name", "JONES", "SMITH", L.DIFFERENT),
    ("house_number", "12", "13", L.CLOSE),
    ("house_number", "12", "47", L.DIFFERENT),
    ("street", "MAIN ST", "MAIN ST", L.EXACT),
    ("street", "MAIN ST N", "N MAIN ST", L.CLOSE),
    ("street", "S WABASH", "S WABASH AVE", L.CLOSE),
    ("suffix", "JR", "SR", L.DIFFERENT),
    ("zip5", "12345", "", L.MISSING),
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


def test_compare_arrays_needs_equal_lengths():
    with pytest.raises(ValueError):
        compare_arrays(COMPARISONS[0], ["A"], [])


def test_stored_weights_are_monotone_and_missing_is_neutral():
    w = load_weights()
    assert w.fields == tuple(c.field for c in COMPARISONS)
    assert w.made
    table = w.table
    for i in range(len(w.fields)):
        assert list(table[i, :4]) == sorted(table[i, :4], reverse=True)
        assert table[i, 4] == 0.0
    assert w.weight("first_name", L.MISSING) == 0.0
    assert w.thresholds.no_match <= w.thresholds.match


def test_probability_is_monotone_and_bounded():
    w = load_weights()
    ps = [w.probability(x) for x in (-50.0, -5.0, 0.0, 5.0, 20.0, 100.0)]
    assert ps == sorted(ps)
    assert all(0.0 <= p <= 1.0 for p in ps)
    assert math.isclose(w.probability(200.0), 1.0)
