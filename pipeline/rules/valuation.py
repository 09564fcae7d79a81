"""Thresholds counted in assessed valuation, not in signatures: Village Law § 2-202(1)(a)(2)
(incorporation by owners, the seed text) and Town Law § 191 (improvement districts).

Exact arithmetic (fractions), because the statutes draw the line at exactly half: 2-202 asks for
"more than fifty percent", 191 for "at least one-half". A signer is credited with what they own
of each parcel: the parcel's value in the territory (all of it, or the part the assessor
apportions to it) divided among its co-owners.

These are plain functions over `Holding`s; the assessment roll reader and the owner matcher
produce the holdings and which owners signed.
"""

from __future__ import annotations

import heapq
from collections.abc import Collection, Mapping, Sequence
from fractions import Fraction

from ..records import Holding, PartResult, ValuationResult

__all__ = [
    "Holding",
    "PartResult",
    "ValuationResult",
    "credited_value",
    "most_creditable",
    "district_owners_191",
    "incorporation_owners_2202",
]

CITE_2202 = "Village Law § 2-202(1)(a)(2)"
CITE_191 = "Town Law § 191"


def credited_value(holding: Holding, owner: str) -> Fraction:
    """2-202(1)(a)(2): each co-owner "shall ... be considered as the owner of an interest in
    such real property equal to the result reached by dividing the assessed valuation by the
    number of owners thereof"."""
    if owner not in holding.owners:
        return Fraction(0)
    return holding.value_inside / len(holding.owners)


def most_creditable(holdings: Sequence[Holding], counted: Collection[str], lines: int) -> set[str]:
    """The owners that `lines` more signers could add at most to any part of a valuation:
    for each way a part is counted (each town's property, the taxable property, the taxable
    property of resident owners), the `lines` owners not in `counted` credited most in it.
    Each line in review resolves to one owner at most, and every part's signed value only grows
    with its signers, so `counted` with these owners is an upper bound for every part at once,
    whichever owners a reviewer chooses (not only the candidates the matcher listed)."""
    if lines <= 0:
        return set()
    ways: dict[tuple[str, str], dict[str, Fraction]] = {}
    for h in holdings:
        for owner in set(h.owners) - set(counted):
            credit = credited_value(h, owner)
            keys = [("town", h.town)]
            if h.taxable:
                keys.append(("taxable", ""))
                if owner in h.resident_owners:
                    keys.append(("resident", ""))
            for key in keys:
                way = ways.setdefault(key, {})
                way[owner] = way.get(owner, Fraction(0)) + credit
    best: set[str] = set()
    for way in ways.values():
        best.update(heapq.nlargest(lines, way, key=way.__getitem__))
    return best


def _sum_credited(holdings: Sequence[Holding], signers: Collection[str]) -> Fraction:
    return sum(
        (credited_value(h, owner) for h in holdings for owner in set(h.owners) & set(signers)),
        Fraction(0),
    )


def incorporation_owners_2202(
    holdings: Sequence[Holding],
    signers: Collection[str],
    equalization_rates: Mapping[str, Fraction] | None = None,
) -> ValuationResult:
    """2-202(1)(a)(2): "The owners of more than fifty percent in assessed valuation of the real
    property in such territory". In more than one town, "more than fifty percent in full
    valuation of the real property in each part of each town in such territory and computed
    separately for each such part", full valuation being the assessed valuation divided by the
    town's equalization rate. Real property of every kind counts (the section does not limit it
    to taxable property, as Town Law § 191 does)."""
    towns = sorted({h.town for h in holdings})
    rates = dict(equalization_rates or {})
    parts = []
    for town in towns:
        in_town = [h for h in holdings if h.town == town]
        if len(towns) > 1:
            rate = rates.get(town)
            if rate is None or rate <= 0:
                raise ValueError(f"territory in several towns: no equalization rate for {town}")
        else:
            rate = Fraction(1)
        total = sum((h.value_inside for h in in_town), Fraction(0)) / rate
        signed = _sum_credited(in_town, signers) / rate
        parts.append(
            PartResult(
                label=f"{town}: {'full' if len(towns) > 1 else 'assessed'} valuation",
                total=total,
                signed=signed,
                rule="more than 1/2",
                met=total > 0 and signed * 2 > total,
            )
        )
    explanation = (
        "owners of more than half the assessed valuation of the territory"
        if len(towns) <= 1
        else "owners of more than half the full valuation in each town's part of the territory"
    )
    return ValuationResult(tuple(parts), CITE_2202, explanation)


def district_owners_191(holdings: Sequence[Holding], signers: Collection[str]) -> ValuationResult:
    """Town Law § 191: "signed by the owners of taxable real property situate in the proposed
    district ..., owning in the aggregate at least one-half of the assessed valuation of all the
    taxable real property of the proposed district ...; provided, however, that if there be any
    resident owners, the petition shall include the signatures of resident owners owning taxable
    real property aggregating at least one-half of the assessed valuation of all the taxable real
    property of the proposed district ... owned by resident owners". Exempt parcels count in
    neither. Co-owners are credited as 2-202 credits them (191 is silent; our reading)."""
    taxable = [h for h in holdings if h.taxable]
    total = sum((h.value_inside for h in taxable), Fraction(0))
    signed = _sum_credited(taxable, signers)
    parts = [
        PartResult(
            "all taxable property", total, signed, "at least 1/2", total > 0 and signed * 2 >= total
        )
    ]
    resident_total = sum(
        (credited_value(h, o) for h in taxable for o in h.resident_owners), Fraction(0)
    )
    if resident_total:
        resident_signed = sum(
            (credited_value(h, o) for h in taxable for o in h.resident_owners & set(signers)),
            Fraction(0),
        )
        parts.append(
            PartResult(
                "taxable property owned by resident owners",
                resident_total,
                resident_signed,
                "at least 1/2",
                resident_signed * 2 >= resident_total,
            )
        )
    return ValuationResult(
        tuple(parts),
        CITE_191,
        "owners of at least half the taxable assessed valuation"
        + (
            ", and resident owners of at least half the resident-owned valuation"
            if resident_total
            else ""
        ),
    )
