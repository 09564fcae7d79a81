"""BaselineMatcher: table-driven decisions, evidence, and a hypothesis property.

Every name and address here is invented.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import matchers.baseline as baseline
from matchers.baseline import METHOD, BaselineMatcher, comparison_level
from pipeline.case import MatchingConfig
from pipeline.records import (
    ComparisonLevel,
    Field,
    MatchDecision,
    RegisterEntry,
    SignatureLine,
    Source,
)

CFG = MatchingConfig()  # accept 90, reject 60, margin 6, 5 candidates

REGISTER = (
    RegisterEntry(
        "V01",
        "Smith",
        "John",
        middle_name="Albert",
        house_number="12",
        street_name="Main St",
        city="Harrowgate",
        status="A",
    ),
    RegisterEntry(
        "V02",
        "Quillfeather",
        "Ansel",
        suffix="Sr",
        house_number="40",
        street_name="Orchard Rd",
        city="Harrowgate",
        status="A",
    ),
    RegisterEntry(
        "V03",
        "Quillfeather",
        "Ansel",
        suffix="Jr",
        house_number="40",
        street_name="Orchard Rd",
        city="Harrowgate",
        status="A",
    ),
    RegisterEntry(
        "V04",
        "Marchbanks",
        "Odile",
        house_number="4",
        street_name="Oak Ave",
        apartment="3",
        city="Harrowgate",
        status="I",
    ),
    RegisterEntry(
        "V05",
        "Tremaine",
        "Ysolde",
        house_number="77",
        street_name="Birch Ln",
        city="Harrowgate",
        status="P",
    ),
    RegisterEntry(
        "V06",
        "Smith",
        "Joan",
        house_number="90",
        street_name="Elm St",
        city="Harrowgate",
        status="A",
    ),
    RegisterEntry(
        "V07",
        "Ostrander",
        "Caius",
        middle_name="Q",
        house_number="9",
        street_name="Cedar Ct",
        city="Harrowgate",
        status="A",
    ),
)


def line(
    name: str = "", residence: str = "", signature: str = "", n: int = 1, blank: bool = False
) -> SignatureLine:
    fields = tuple(
        Field(k, v, 1.0, Source.TEXT_LAYER)
        for k, v in (("signature", signature), ("name", name), ("residence", residence))
    )
    return SignatureLine(page_id="abcdef012345", line_no=n, fields=fields, blank=blank)


@pytest.fixture(scope="module")
def matcher() -> BaselineMatcher:
    return BaselineMatcher(REGISTER, CFG)


# (name, residence, allowed decisions, allowed voter ids (None: no voter))
CASES = [
    pytest.param("John A. Smith", "12 Main Street", {MatchDecision.MATCH}, {"V01"}, id="exact"),
    pytest.param(
        "John Smith",
        "12 Main St, Harrowgate NY 12345",
        {MatchDecision.MATCH},
        {"V01"},
        id="exact-with-city-state-zip",
    ),
    pytest.param("Smith, John", "12 Main St", {MatchDecision.MATCH}, {"V01"}, id="last-first"),
    pytest.param(
        "Jonh Smith",
        "12 Main St",
        {MatchDecision.MATCH, MatchDecision.REVIEW},
        {"V01", None},
        id="typo-in-name",
    ),
    pytest.param(
        "Ansel Quillfeather",
        "40 Orchard Road",
        {MatchDecision.REVIEW},
        {None},
        id="jr-sr-same-address",
    ),
    pytest.param(
        "Odile Marchbanks",
        "4 Oak Avenue Apt. 3",
        {MatchDecision.MATCH},
        {"V04"},
        id="inactive-voter-is-found",
    ),
    pytest.param(
        "Ysolde Tremaine",
        "77 Birch Lane",
        {MatchDecision.MATCH},
        {"V05"},
        id="purged-voter-is-found",
    ),
    pytest.param(
        "Percival Underhill",
        "300 Lakeview Terrace",
        {MatchDecision.NO_MATCH},
        {None},
        id="not-on-register",
    ),
    pytest.param(
        "Ansel Quillfeather Jr",
        "40 Orchard Road",
        {MatchDecision.MATCH},
        {"V03"},
        id="jr-written-picks-the-jr",
    ),
    pytest.param(
        "Percival Smith",
        "12 Main St",
        {MatchDecision.REVIEW},
        {None},
        id="known-surname-at-the-address-goes-to-review",
    ),
    pytest.param(
        "Percival Underhill",
        "12 Main St",
        {MatchDecision.NO_MATCH},
        {None},
        id="unknown-surname-at-a-known-address",
    ),
    pytest.param("", "12 Main St", {MatchDecision.REVIEW}, {None}, id="no-name"),
    pytest.param("", "", {MatchDecision.REVIEW}, {None}, id="nothing"),
    pytest.param("Caius Ostrander", "", {MatchDecision.MATCH}, {"V07"}, id="name-only"),
]


@pytest.mark.parametrize(("name", "residence", "decisions", "voters"), CASES)
def test_decisions(matcher, name, residence, decisions, voters):
    m = matcher.match(line(name, residence))
    assert m.decision in decisions, m.reason
    assert m.voter_id in voters, m.reason
    assert m.method == METHOD
    assert m.line_id == "abcdef012345-01"
    assert m.reason
    assert (m.voter_id is not None) == (m.decision is MatchDecision.MATCH)


def test_typo_never_picks_the_wrong_voter(matcher):
    for typo in ("Jonh Smith", "John Smiht", "Jhon Smith", "J. Smith"):
        m = matcher.match(line(typo, "12 Main St"))
        assert m.voter_id in ("V01", None), (typo, m.reason)


def test_jr_sr_pair_keeps_both_candidates(matcher):
    m = matcher.match(line("Ansel Quillfeather", "40 Orchard Rd"))
    assert {c.voter_id for c in m.candidates[:2]} == {"V02", "V03"}
    assert "margin" in m.reason


def test_written_suffix_picks_that_voter_and_says_why(matcher):
    jr = next(e.voter_id for e in REGISTER if e.last_name == "Quillfeather" and e.suffix == "Jr")
    m = matcher.match(line("Ansel Quillfeather Jr.", "40 Orchard Rd"))
    assert m.voter_id == jr, m.reason
    suffix = [ev for ev in m.best.evidence if ev.field == "suffix"]
    assert suffix and suffix[0].level is ComparisonLevel.EXACT
    other = m.candidates[1]
    assert [ev.level for ev in other.evidence if ev.field == "suffix"] == [
        ComparisonLevel.DIFFERENT
    ]


def test_no_name_reason_and_address_candidates(matcher):
    m = matcher.match(line("", "4 Oak Ave #3"))
    assert m.reason.startswith("no name to match")
    assert m.best is not None and m.best.voter_id == "V04"
    assert m.best.evidence[0].level is ComparisonLevel.MISSING
    empty = matcher.match(line("", ""))
    assert empty.reason == "no name to match"


def test_signature_text_is_used_when_printed_name_is_empty(matcher):
    m = matcher.match(line(name="", signature="Odile Marchbanks", residence="4 Oak Ave Apt 3"))
    assert m.decision is MatchDecision.MATCH and m.voter_id == "V04"


def test_candidates_carry_evidence(matcher):
    m = matcher.match(line("John A. Smith", "12 Main Street"))
    assert 1 <= len(m.candidates) <= CFG.candidates
    assert [c.score for c in m.candidates] == sorted((c.score for c in m.candidates), reverse=True)
    best = m.candidates[0]
    assert best.voter_id == "V01" and best.score == 100.0
    assert best.display == "JOHN A SMITH, 12 MAIN ST"
    name, address = best.evidence
    assert (name.field, name.level) == ("name", ComparisonLevel.EXACT)
    assert (address.field, address.level) == ("address", ComparisonLevel.EXACT)
    assert address.line_value == "12 MAIN ST" and address.register_value == "12 MAIN ST"
    others = {c.voter_id: c for c in m.candidates[1:]}
    assert others["V06"].evidence[0].level in (ComparisonLevel.CLOSE, ComparisonLevel.LOOSE)
    assert others["V06"].evidence[1].level is ComparisonLevel.DIFFERENT
    assert m.reason.startswith("best 100.0 (name exact, address exact), next ")


def test_candidates_kept_for_no_match(matcher):
    m = matcher.match(line("Percival Underhill", "300 Lakeview Terrace"))
    assert m.decision is MatchDecision.NO_MATCH
    assert len(m.candidates) == CFG.candidates
    assert "below reject" in m.reason


def test_candidate_count_follows_config():
    m = BaselineMatcher(REGISTER, MatchingConfig(candidates=2)).match(line("John Smith", ""))
    assert len(m.candidates) == 2


def test_match_all_keeps_order_and_equals_match(matcher):
    lines = [line(c.values[0], c.values[1], n=i + 1) for i, c in enumerate(CASES)]
    together = matcher.match_all(lines)
    assert [m.line_id for m in together] == [ln.line_id for ln in lines]
    assert together == tuple(matcher.match(ln) for ln in lines)


def test_blocks_give_the_same_result(matcher, monkeypatch):
    lines = [line(c.values[0], c.values[1], n=i + 1) for i, c in enumerate(CASES)]
    whole = matcher.match_all(lines)
    monkeypatch.setattr(baseline, "_BLOCK_CELLS", len(REGISTER) * 2)  # two lines per block
    assert matcher.match_all(lines) == whole


def test_blank_line_is_refused(matcher):
    with pytest.raises(ValueError, match="blank"):
        matcher.match_all([line("John Smith", "12 Main St"), line(blank=True, n=2)])


def test_duplicate_rows_of_one_voter_do_not_block_a_match():
    entry = REGISTER[0]
    m = BaselineMatcher((*REGISTER, entry), CFG).match(line("John Smith", "12 Main St"))
    assert m.decision is MatchDecision.MATCH and m.voter_id == "V01"
    assert [c.voter_id for c in m.candidates].count("V01") == 1


def test_empty_register_sends_to_review():
    m = BaselineMatcher((), CFG).match(line("John Smith", "12 Main St"))
    assert m.decision is MatchDecision.REVIEW and m.candidates == ()


@pytest.mark.parametrize(
    ("score", "a", "b", "level"),
    [
        (100.0, "X", "X", ComparisonLevel.EXACT),
        (95.0, "X", "Y", ComparisonLevel.CLOSE),
        (90.0, "X", "Y", ComparisonLevel.CLOSE),
        (89.9, "X", "Y", ComparisonLevel.LOOSE),
        (75.0, "X", "Y", ComparisonLevel.LOOSE),
        (74.9, "X", "Y", ComparisonLevel.DIFFERENT),
        (0.0, "", "Y", ComparisonLevel.MISSING),
        (0.0, "X", "", ComparisonLevel.MISSING),
    ],
)
def test_comparison_level(score, a, b, level):
    assert comparison_level(score, a, b) is level


# --------------------------------------------------------------------------------------------
# Property: a line copied from an entry never matches a different voter confidently
# --------------------------------------------------------------------------------------------

_word = st.text(alphabet="ABCDEFGHIJKLMNOPRSTUVWY", min_size=2, max_size=9)
_entry_values = st.tuples(
    _word,  # last
    _word,  # first
    st.one_of(st.just(""), _word),  # middle
    st.sampled_from(["", "JR", "SR", "III"]),  # suffix
    st.integers(1, 400).map(str),  # house number
    st.sampled_from(["MAIN ST", "OAK AVENUE", "ELM ROAD", "N BROADWAY", "CEDAR COURT"]),
    st.sampled_from(["", "", "1", "2A"]),  # apartment
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_entry_values, min_size=1, max_size=25), st.data())
def test_copied_line_never_matches_another_voter(values, data):
    entries = tuple(
        RegisterEntry(
            f"V{i:03d}",
            last,
            first,
            middle_name=middle,
            suffix=suffix,
            house_number=number,
            street_name=street,
            apartment=apt,
        )
        for i, (last, first, middle, suffix, number, street, apt) in enumerate(values)
    )
    target = data.draw(st.sampled_from(entries))
    m = BaselineMatcher(entries, CFG).match(line(target.full_name, target.address))
    if m.decision is MatchDecision.MATCH:
        assert m.voter_id == target.voter_id, m.reason
    assert m.candidates and m.candidates[0].score == 100.0


def test_the_scan_readers_signed_placeholder_is_no_name(matcher):
    """A scanned line whose signature was seen (ink) but not read is matched by address."""
    m = matcher.match(line(name="", signature="[signed]", residence="4 Oak Ave Apt 3"))
    assert m.decision is MatchDecision.REVIEW
    assert m.reason.startswith("no name to match")
