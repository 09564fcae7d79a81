"""Valuation thresholds: Village Law § 2-202(1)(a)(2) and Town Law § 191, at exactly half."""

from __future__ import annotations

from fractions import Fraction as F

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.rules.valuation import (
    Holding,
    credited_value,
    district_owners_191,
    incorporation_owners_2202,
)


def h(pid, value, owners, town="Greenfield", taxable=True, inside=F(1), residents=()):
    return Holding(pid, town, F(value), tuple(owners), taxable, inside, frozenset(residents))


def test_co_owners_are_credited_a_fraction():
    """2-202(1)(a)(2): 'dividing the assessed valuation by the number of owners thereof'."""
    parcel = h("1", 90_000, ["SMITH J", "SMITH M", "JONES A"])
    assert credited_value(parcel, "SMITH J") == 30_000
    assert credited_value(parcel, "NOBODY") == 0


def test_partly_inside_parcel_counts_its_apportioned_value():
    """2-202(1)(a)(2): 'only the apportioned value attributed to such part shall be considered'."""
    parcel = h("1", 100_000, ["A", "B"], inside=F(1, 4))
    assert credited_value(parcel, "A") == 12_500


# (what, holdings, signers, met) -- 2-202 asks for MORE than half
CASES_2202 = [
    ("exactly half is not more than half", [h("1", 50, ["A"]), h("2", 50, ["B"])], {"A"}, False),
    ("just over half", [h("1", 51, ["A"]), h("2", 49, ["B"])], {"A"}, True),
    (
        "a co-owner alone carries half the parcel",
        [h("1", 100, ["A", "B"]), h("2", 1, ["C"])],
        {"A"},
        False,
    ),
    (
        "exempt property counts in 2-202",
        [h("1", 60, ["A"]), h("2", 50, ["X"], taxable=False)],
        {"A"},
        True,
    ),
]


@pytest.mark.parametrize("what,holdings,signers,met", CASES_2202, ids=[c[0] for c in CASES_2202])
def test_incorporation_more_than_half(what, holdings, signers, met):
    result = incorporation_owners_2202(holdings, signers)
    assert result.met is met, what
    assert result.citation == "Village Law § 2-202(1)(a)(2)"


def test_territory_in_two_towns_needs_more_than_half_in_each_part():
    """2-202(1)(a)(2): full valuation by equalization rate, 'computed separately for each such
    part'. Town A: signers hold 60 of 100; town B: 40 of 100: not met, though 100 of 200."""
    holdings = [
        h("a1", 60, ["S1"], town="A"),
        h("a2", 40, ["N1"], town="A"),
        h("b1", 40, ["S2"], town="B"),
        h("b2", 60, ["N2"], town="B"),
    ]
    rates = {"A": F(1, 2), "B": F(1)}
    result = incorporation_owners_2202(holdings, {"S1", "S2"}, rates)
    assert [p.met for p in result.parts] == [True, False] and not result.met
    assert result.parts[0].total == 200  # 100 assessed at a 50% rate: 200 full valuation
    with pytest.raises(ValueError, match="equalization rate for B"):
        incorporation_owners_2202(holdings, {"S1"}, {"A": F(1)})


# (what, holdings, signers, parts met) -- 191 asks for AT LEAST half
CASES_191 = [
    (
        "exactly half of the taxable valuation",
        [h("1", 50, ["A"]), h("2", 50, ["B"])],
        {"A"},
        [True],
    ),
    (
        "exempt parcels count in neither side",
        [h("1", 50, ["A"]), h("2", 60, ["X"], taxable=False), h("3", 51, ["B"])],
        {"A"},
        [False],
    ),
    (
        "resident owners exist: half of theirs too",
        [h("1", 70, ["A"]), h("2", 30, ["R"], residents={"R"})],
        {"A"},
        [True, False],
    ),
    (
        "resident owner signs",
        [h("1", 70, ["A"]), h("2", 30, ["R"], residents={"R"})],
        {"A", "R"},
        [True, True],
    ),
    (
        "partial parcel: the town board's relative value",
        [h("1", 100, ["A"], inside=F(1, 2)), h("2", 60, ["B"])],
        {"A"},
        [False],
    ),
]


@pytest.mark.parametrize("what,holdings,signers,parts", CASES_191, ids=[c[0] for c in CASES_191])
def test_district_at_least_half(what, holdings, signers, parts):
    result = district_owners_191(holdings, signers)
    assert [p.met for p in result.parts] == parts, what
    assert result.met is all(parts)


values = st.lists(st.integers(min_value=1, max_value=10**7), min_size=1, max_size=8)


@given(values, st.data())
def test_credits_never_exceed_the_whole(vals, data):
    holdings = [
        h(str(i), v, [f"O{j}" for j in range(data.draw(st.integers(1, 3)))])
        for i, v in enumerate(vals)
    ]
    everyone = {o for x in holdings for o in x.owners}
    signers = data.draw(st.sets(st.sampled_from(sorted(everyone))))
    result = incorporation_owners_2202(holdings, signers)
    all_signed = incorporation_owners_2202(holdings, everyone)
    assert result.parts[0].signed <= all_signed.parts[0].signed == all_signed.parts[0].total
