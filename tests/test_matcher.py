"""FSMatcher: the baseline's decision table, evidence, batching, and a hypothesis property.

Every name and address here is invented.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from matchers.lines import line_frame
from matchers.matcher import METHOD, FSMatcher
from matchers.store import RegisterStore
from pipeline.case import MatchingConfig
from pipeline.records import (
    ComparisonLevel,
    Field,
    MatchDecision,
    RegisterEntry,
    SignatureLine,
    Source,
)
from tests.test_baseline import CASES as BASELINE_CASES
from tests.test_baseline import REGISTER, line

CFG = MatchingConfig()

# The baseline's table, where the new matcher may be more cautious: a name with no address
# may go to review (name-only evidence is weaker than name and address).
RELAXED = {"name-only": ({MatchDecision.MATCH, MatchDecision.REVIEW}, {"V07", None})}


@pytest.fixture(scope="module")
def matcher():
    return FSMatcher(REGISTER, CFG)


@pytest.mark.parametrize(("name", "residence", "decisions", "voters"), BASELINE_CASES)
def test_decisions(matcher, request, name, residence, decisions, voters):
    case_id = request.node.callspec.id
    decisions, voters = RELAXED.get(case_id, (decisions, voters))
    m = matcher.match(line(name, residence))
    assert m.decision in decisions, m.reason
    assert m.voter_id in voters, m.reason
    assert m.method == METHOD
    assert m.line_id == "abcdef012345-01"
    assert m.reason
    assert (m.voter_id is not None) == (m.decision is MatchDecision.MATCH)


def test_typo_never_picks_the_wrong_voter(matcher):
    for typo in ("Jonh Smith", "John Smiht", "Jhon Smith", "J. Smith", "Joan Smith"):
        m = matcher.match(line(typo, "12 Main St"))
        assert m.voter_id in ("V01", None), (typo, m.reason)


def test_jr_sr_pair_keeps_both_candidates(matcher):
    m = matcher.match(line("Ansel Quillfeather", "40 Orchard Rd"))
    assert m.decision is MatchDecision.REVIEW
    assert {c.voter_id for c in m.candidates[:2]} == {"V02", "V03"}
    assert "margin" in m.reason
    # no suffix written: sure it is one of the pair, not which (`Match.one_of`)
    assert set(m.one_of) == {"V02", "V03"}, m.reason
    # another name at the address (a stranger, not the pair): no such bound
    other = matcher.match(line("Tobias Quillfeather", "40 Orchard Rd"))
    assert other.one_of == (), other.reason


def test_written_suffix_picks_that_voter_with_evidence(matcher):
    m = matcher.match(line("Ansel Quillfeather Jr.", "40 Orchard Rd"))
    assert m.voter_id == "V03", m.reason
    suffix = {c.voter_id: [e for e in c.evidence if e.field == "suffix"] for c in m.candidates}
    assert suffix["V03"][0].level is ComparisonLevel.EXACT
    assert suffix["V02"][0].level is ComparisonLevel.DIFFERENT


def test_nickname_matches(matcher):
    reg = (
        *REGISTER,
        RegisterEntry("V20", "Halloran", "William", house_number="5", street_name="Pine St"),
    )
    m = FSMatcher(reg, CFG).match(line("Bill Halloran", "5 Pine Street"))
    assert m.decision is MatchDecision.MATCH and m.voter_id == "V20", m.reason
    first = next(e for e in m.best.evidence if e.field == "first_name")
    assert first.level is ComparisonLevel.CLOSE


def test_candidates_carry_evidence(matcher):
    m = matcher.match(line("John A. Smith", "12 Main Street"))
    best = m.best
    assert best is not None and best.voter_id == "V01"
    assert best.display == "JOHN A SMITH, 12 MAIN ST"
    fields = {e.field: e for e in best.evidence}
    assert fields["first_name"].level is ComparisonLevel.EXACT
    assert fields["last_name"].level is ComparisonLevel.EXACT
    assert fields["middle_name"].level is ComparisonLevel.CLOSE  # "A" for "ALBERT"
    assert fields["street"].line_value == "MAIN ST" == fields["street"].register_value
    assert all(0.0 <= e.score <= 100.0 for e in best.evidence)
    assert 0.0 <= best.score <= 100.0
    assert m.reason.startswith("probability ")


def test_review_keeps_the_configured_number_of_candidates():
    reg = tuple(
        RegisterEntry(f"S{i}", "Smith", "John", house_number=str(i), street_name="Elm St")
        for i in range(8)
    )
    m = FSMatcher(reg, MatchingConfig(candidates=3)).match(line("John Smith", ""))
    assert m.decision is MatchDecision.REVIEW
    assert len(m.candidates) == 3
    assert [c.score for c in m.candidates] == sorted((c.score for c in m.candidates), reverse=True)


def test_match_all_keeps_order_and_does_not_depend_on_batching():
    lines = [line(c.values[0], c.values[1], n=i + 1) for i, c in enumerate(BASELINE_CASES)]
    whole = FSMatcher(REGISTER, CFG).match_all(lines)
    assert [m.line_id for m in whole] == [ln.line_id for ln in lines]
    assert FSMatcher(REGISTER, CFG, batch=2).match_all(lines) == whole


def test_store_and_entries_give_the_same_result(matcher):
    store = RegisterStore.from_entries(REGISTER)
    lines = [line(c.values[0], c.values[1], n=i + 1) for i, c in enumerate(BASELINE_CASES)]
    assert FSMatcher(store, CFG).match_all(lines) == matcher.match_all(lines)


def test_blank_line_is_refused(matcher):
    with pytest.raises(ValueError, match="blank"):
        matcher.match_all([line("John Smith", "12 Main St"), line(blank=True, n=2)])


def test_duplicate_rows_of_one_voter_do_not_block_a_match():
    m = FSMatcher((*REGISTER, REGISTER[0]), CFG).match(line("John Smith", "12 Main St"))
    assert m.decision is MatchDecision.MATCH and m.voter_id == "V01"
    assert [c.voter_id for c in m.candidates].count("V01") == 1


def test_empty_register_sends_to_review():
    m = FSMatcher((), CFG).match(line("John Smith", "12 Main St"))
    assert m.decision is MatchDecision.REVIEW and m.candidates == ()


def test_housemate_not_on_the_register_is_never_matched(matcher):
    m = matcher.match(line("Percival Smith", "12 Main St"))
    assert m.decision is MatchDecision.REVIEW and m.voter_id is None
    assert m.candidates and m.candidates[0].voter_id == "V01"


words = st.text(alphabet="ABCDEFGHIKLMNOPRSTUWY", min_size=3, max_size=9)


@pytest.mark.slow
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(words, words, st.integers(1, 400), words),
        min_size=2,
        max_size=6,
        unique_by=lambda t: (t[0], t[1]),
    ),
    st.data(),
)
def test_copied_line_never_matches_another_voter(values, data):
    reg = tuple(
        RegisterEntry(f"H{i}", last, first, house_number=str(no), street_name=f"{street} St")
        for i, (first, last, no, street) in enumerate(values)
    )
    k = data.draw(st.integers(0, len(reg) - 1))
    e = reg[k]
    m = FSMatcher(reg, CFG).match(line(f"{e.first_name} {e.last_name}", e.address))
    assert m.voter_id in (e.voter_id, None), m.reason
    if m.decision is MatchDecision.NO_MATCH:
        pytest.fail(f"a voter copied from the register was called not registered: {m.reason}")


def test_a_signature_read_by_ocr_never_rules_a_voter_out(matcher):
    fields = (
        Field("signature", "o me.ffvf", 0.95, Source.OCR),
        Field("residence", "12 Main St", 0.95, Source.OCR),
    )
    m = matcher.match(SignatureLine("abcdef012345", 1, fields))
    assert m.decision is MatchDecision.REVIEW, m.reason
    assert m.candidates and m.candidates[0].voter_id == "V01"
    assert "signature" in m.reason


def test_a_typed_signature_in_a_text_layer_is_the_name_as_written(matcher):
    """Born-digital sheets without a printed-name column: the signature's text is the name."""
    m = matcher.match(line(name="", signature="Percival Underhill", residence="300 Lakeview Ter"))
    assert m.decision is MatchDecision.NO_MATCH, m.reason


def test_an_unsure_read_never_rules_a_voter_out(matcher):
    fields = (
        Field("name", "Percival Underhill", 0.6, Source.OCR),
        Field("residence", "300 Lakeview Terrace", 0.6, Source.OCR),
    )
    m = matcher.match(SignatureLine("abcdef012345", 1, fields))
    assert m.decision is MatchDecision.REVIEW, m.reason


def test_a_suffix_read_by_ocr_does_not_pick_one_of_a_jr_sr_pair(matcher):
    fields = (
        Field("name", "Ansel Quillfeather Jr", 0.8, Source.OCR),
        Field("residence", "40 Orchard Rd", 0.8, Source.OCR),
    )
    m = matcher.match(SignatureLine("abcdef012345", 1, fields))
    assert m.decision is MatchDecision.REVIEW and "suffix" in m.reason, m.reason
    # sure it is one of the pair, not which (the judge may settle the line whichever)
    assert len(m.one_of) == 2 and m.one_of == tuple(c.voter_id for c in m.candidates[:2])
    nobody = (Field("name", "Nobody", 0.8, Source.OCR),)
    plain = matcher.match(SignatureLine("abcdef012346", 1, nobody))
    assert plain.one_of == ()


@pytest.mark.parametrize(
    "name",
    [
        # a handwritten name the closed world resolved among the voters: its confidence is
        # the voter's probability, not how well "Jr" was told from "Sr"
        Field("name", "Ansel Quillfeather Jr", 0.999, Source.OCR, resolved=True),
        # a signature read by OCR: its confidence is the ink test's
        Field("signature", "Ansel Quillfeather Jr", 1.0, Source.OCR),
    ],
)
def test_a_handwritten_suffix_however_sure_does_not_pick_one_of_a_jr_sr_pair(matcher, name):
    fields = (name, Field("residence", "40 Orchard Rd", 0.99, Source.OCR))
    m = matcher.match(SignatureLine("abcdef012345", 1, fields))
    assert m.decision is MatchDecision.REVIEW and "suffix" in m.reason, m.reason
    assert len(m.one_of) == 2
    # the same name typed in a text layer tells them apart
    typed = replace(name, source=Source.TEXT_LAYER, resolved=False)
    m = matcher.match(SignatureLine("abcdef012345", 1, (typed, fields[1])))
    assert m.decision is MatchDecision.MATCH, m.reason


# A household where one voter's given name is one slip from another real given name: "MARY"
# on the register at 5 Elm St, "MARK" a given name the register also knows (elsewhere).
SLIPS = (
    RegisterEntry("S1", "QUILLBY", "MARY", house_number="5", street_name="ELM ST"),
    RegisterEntry("S2", "TENNANT", "MARK", house_number="80", street_name="OAK AVE"),
    RegisterEntry("S3", "BRANHAM", "OSWIN", house_number="10", street_name="PINE RD"),
)


@pytest.fixture(scope="module")
def slips():
    return FSMatcher(SLIPS, CFG)


@pytest.mark.parametrize(
    ("name", "residence", "voter"),
    [
        ("Mray Quillby", "5 Elm St", "S1"),  # two letters swapped: one slip
        ("Oswin Branharn", "10 Pine Rd", "S3"),  # "rn" read for "m"
        ("Oswin Branham", "1O Pine Rd", "S3"),  # "O" read for "0" in the house number
        ("0swin Branham", "10 Pine Road", "S3"),
    ],
)
def test_one_slip_at_the_address_matches(slips, name, residence, voter):
    m = slips.match(line(name, residence))
    assert m.decision is MatchDecision.MATCH and m.voter_id == voter, m.reason


def test_a_slip_that_spells_another_given_name_is_not_matched(slips):
    # "Mark Quillby" may be Mary's unregistered housemate: MARK is a given name on the register.
    m = slips.match(line("Mark Quillby", "5 Elm St"))
    assert m.decision is MatchDecision.REVIEW and m.voter_id is None
    assert "another voter's given name" in m.reason
    assert m.candidates[0].voter_id == "S1"
    first = next(e for e in m.candidates[0].evidence if e.field == "first_name")
    assert first.level is ComparisonLevel.CLOSE and first.line_value == "MARK"


# --------------------------------------------------------------------------------------------
# Names read another way, probabilities, and what the lines teach the weights (issue 13)
# --------------------------------------------------------------------------------------------


def _village(n: int = 400) -> list[RegisterEntry]:
    """Invented voters, two to a household (one surname, one address), on a few streets (no
    real person)."""
    given = ("ANSEL", "ODILE", "CAIUS", "YSOLDE", "BART", "MIRELA", "TOBIN", "LISETTE")
    surnames = ("QUILLBY", "MARCHBANK", "OSTRANDE", "TREMAIN", "HALVORD", "PENWRIGHT")
    return [
        RegisterEntry(
            f"W{i:04d}",
            f"{surnames[i // 2 % 6]}{'ABCDEFGHIJKLMNOPQRSTUVWXYZ'[i // 12 % 26]}{i // 312}",
            given[i % 8],
            house_number=str(1 + i // 2),
            street_name=("ELM ST", "OAK AVE", "MILL RD")[i // 2 % 3],
            zip5="12345",
        )
        for i in range(n)
    ]


@pytest.fixture(scope="module")
def village():
    return FSMatcher(_village(), CFG)


def test_a_name_written_surname_first_matches(village):
    entry = _village()[41]
    written = f"{entry.last_name.title()} {entry.first_name.title()}"
    m = village.match(line(written, f"{entry.house_number} {entry.street_name}"))
    assert m.decision is MatchDecision.MATCH and m.voter_id == entry.voter_id, m.reason


def test_a_surname_alone_with_its_address_is_weighed_against_the_households():
    # Where households share a surname, a surname alone may be a housemate who is not
    # registered: a person decides. Where no two voters share a surname and an address, it is
    # the voter there.
    people = _village()
    entry = people[77]
    written = line(entry.last_name, f"{entry.house_number} {entry.street_name}")
    alone = [e for e in people if e is not people[76]]
    m = FSMatcher(alone, CFG).match(written)
    assert m.decision is MatchDecision.REVIEW and m.best and m.best.voter_id == entry.voter_id
    unique = [replace(e, last_name=f"{e.last_name}X{i}") for i, e in enumerate(alone)]
    entry = next(e for e in unique if e.voter_id == entry.voter_id)
    written = line(entry.last_name, f"{entry.house_number} {entry.street_name}")
    m = FSMatcher(unique, CFG).match(written)
    assert m.decision is MatchDecision.MATCH and m.voter_id == entry.voter_id, m.reason


def test_one_word_never_rules_a_voter_out(village):
    m = village.match(line("Zebulon", "999 Nowhere Ln"))
    assert m.decision is MatchDecision.REVIEW


def test_the_match_carries_its_probability(village):
    entry = _village()[10]
    m = village.match(
        line(f"{entry.first_name} {entry.last_name}", f"{entry.house_number} {entry.street_name}")
    )
    assert m.decision is MatchDecision.MATCH
    assert m.probability is not None and 0.95 <= m.probability <= 1.0
    assert m.candidates[0].score == pytest.approx(100 * m.probability, abs=0.1)
    assert m.reason.startswith("probability ")


def test_a_housemate_not_on_the_register_is_not_matched_however_many_lines(village):
    # Many lines at once (the weights are fitted to them): the household's other member, with
    # the voter's surname and address and a given name nobody on the register has.
    people = _village()
    lines = [
        line(f"{e.first_name} {e.last_name}", f"{e.house_number} {e.street_name}")
        for e in people[:120]
    ]
    mate = people[3]
    lines.append(line(f"Quentavius {mate.last_name}", f"{mate.house_number} {mate.street_name}"))
    got = village.match_all(lines)
    assert got[-1].decision is not MatchDecision.MATCH, got[-1].reason
    assert sum(m.decision is MatchDecision.MATCH for m in got[:-1]) >= 115


def _loners(n: int = 300) -> list[RegisterEntry]:
    """Invented voters, each at an address of their own (no households: the FEBRL registers'
    shape), on 36 streets in 30 postcodes (no real person)."""
    syllables = ("QUIL", "MARCH", "OSTR", "TREM", "HALV", "PENW", "DRAV", "SELK", "BRIM", "CORV")
    ends = ("BY", "BANK", "ANDE", "AIN", "ORD", "RIGHT", "ELL", "OWE", "STAD", "INGER")
    given = ("ANSEL", "ODILE", "CAIUS", "YSOLDE", "BART", "MIRELA", "TOBIN", "LISETTE", "ORREN")
    return [
        RegisterEntry(
            f"L{i:04d}",
            f"{syllables[i % 10]}{ends[i // 10 % 10]}{'ABC'[i // 100]}",
            given[i % 9],
            house_number=str(1 + i),
            street_name=f"{given[i % 9]} {('ST', 'AVE', 'RD', 'CRES')[i // 9 % 4]}",
            zip5=str(2600 + i // 10),
        )
        for i in range(n)
    ]


def _lines_both_names_replaced(people: list[RegisterEntry]) -> list[SignatureLine]:
    """Lines as FEBRL's duplicates have them, each at its voter's exact address: 150 written
    right, 40 with the given name replaced, 40 with the surname replaced, then ten with both
    replaced."""

    def at(e: RegisterEntry, name: str) -> SignatureLine:
        return line(name, f"{e.house_number} {e.street_name}, {e.zip5}")

    return [
        *(at(e, f"{e.first_name} {e.last_name}") for e in people[:150]),
        *(at(e, f"Zenobia {e.last_name}") for e in people[150:190]),
        *(at(e, f"{e.first_name} Farquell{k}") for k, e in enumerate(people[190:230])),
        *(at(e, f"Zenobia Farquell{k}") for k, e in enumerate(people[230:240])),
    ]


def test_both_names_replaced_match_only_at_an_address_of_one_voter():
    # Where no voter lives with another, a line with both names replaced at a voter's exact
    # address is that voter when the lines show names are replaced that often (the fitted m
    # and the posterior); where the voter shares the address (a household), never.
    people = _loners()
    got = FSMatcher(people, CFG).match_all(_lines_both_names_replaced(people))
    both = got[230:]
    assert sum(m.decision is MatchDecision.MATCH for m in both) >= 8, [m.reason for m in both]
    assert all(
        m.voter_id == e.voter_id
        for m, e in zip(both, people[230:240], strict=True)
        if m.decision is MatchDecision.MATCH
    )
    housed = [*people, *(replace(e, voter_id=f"H{e.voter_id}", first_name="ORLA") for e in people)]
    got = FSMatcher(housed, CFG).match_all(_lines_both_names_replaced(people))
    assert not any(m.decision is MatchDecision.MATCH for m in got[230:]), [
        m.reason for m in got[230:]
    ]


def test_a_housemate_whose_house_number_slipped_is_not_matched(village):
    # The household's other member (a given name nobody has, the voter's surname) whose house
    # number was written one slip off: still a housemate, not the voter.
    people = _village()
    lines = [
        line(f"{e.first_name} {e.last_name}", f"{e.house_number} {e.street_name}")
        for e in people[:120]
    ]
    mate = people[40]
    slipped = str(int(mate.house_number) + 100)
    lines.append(line(f"Quentavius {mate.last_name}", f"{slipped} {mate.street_name}"))
    got = village.match_all(lines)
    assert got[-1].decision is not MatchDecision.MATCH, got[-1].reason


def _varied_loners() -> list[RegisterEntry]:
    """`_loners` with given names as varied as a real register's (a slip is far rarer by
    chance than equal names)."""
    first = ("AL", "BE", "CA", "DE", "EL", "FE", "GA", "HA", "IS", "JO", "KA", "LE", "MI", "NO")
    second = ("BEL", "DRA", "LIA", "LON", "MAR", "NEL", "ROS", "SON", "TAN", "VIN", "WEN")
    return [
        replace(e, first_name=first[i % 14] + second[i // 14 % 11]) for i, e in enumerate(_loners())
    ]


def test_a_signature_read_one_slip_from_a_voter_with_housemates_goes_to_review():
    # Held out (seed 9959): "Flora Ashgrove" signed in a layout with no printed name, her
    # signature read "Hora Ashgrove": one slip from her housemate Cora (purged), two from her;
    # matched to Cora, the line was decided invalid. A given name read from a signature that
    # is only near the voter's tells her from a housemate of her surname by the misread alone.
    people = [
        *_varied_loners(),
        RegisterEntry("F1", "ASHGROVE", "FLORA", house_number="17", street_name="MILL ST"),
        RegisterEntry("F2", "ASHGROVE", "CORA", house_number="17", street_name="MILL ST"),
        RegisterEntry("F3", "QUARRYBANK", "CORA", house_number="40", street_name="MILL ST"),
    ]
    matcher = FSMatcher(people, CFG)

    def signed(text: str, residence: str = "17 Mill St") -> SignatureLine:
        return SignatureLine(
            "abcdef012345",
            1,
            (
                Field("signature", text, 1.0, Source.OCR),
                Field("residence", residence, 1.0, Source.OCR),
            ),
        )

    m = matcher.match(signed("Hora Ashgrove"))
    assert m.decision is MatchDecision.REVIEW and m.voter_id is None, m.reason
    assert m.candidates[0].voter_id == "F2" and "housemate" in m.reason
    # her own name read from the signature, or the slip typed in a text layer: matched
    assert matcher.match(signed("Cora Ashgrove")).voter_id == "F2"
    m = matcher.match(line("Hora Ashgrove", "17 Mill St"))
    assert m.decision is MatchDecision.MATCH and m.voter_id == "F2", m.reason
    # a voter no one of her surname lives with: the slip is hers
    m = matcher.match(signed("Hora Quarrybank", "40 Mill St"))
    assert m.decision is MatchDecision.MATCH and m.voter_id == "F3", m.reason


def test_housemates_one_slip_apart_go_to_review():
    # NARIN and NORIN at one address: a misread "o" spells the housemate's name exactly (the
    # 13M benchmark's one confident wrong match), so for a name read from an image the given
    # name's lead alone decides nothing. Given names as varied as a real register's (a slip
    # is far rarer by chance than equal names, so the exact name leads by more than the
    # margin).
    people = [
        *_varied_loners(),
        RegisterEntry("N1", "ASHGATE", "NARIN", house_number="345", street_name="VALLEY TER"),
        RegisterEntry("N2", "ASHGATE", "NORIN", house_number="345", street_name="VALLEY TER"),
    ]
    matcher = FSMatcher(people, CFG)
    read = SignatureLine(
        "abcdef012345",
        1,
        (
            Field("name", "Narin Ashgate", 0.8, Source.OCR),
            Field("residence", "345 Valley Ter", 0.9, Source.OCR),
        ),
    )
    m = matcher.match(read)
    assert m.decision is MatchDecision.REVIEW, m.reason
    assert {c.voter_id for c in m.candidates[:2]} == {"N1", "N2"}
    assert "one slip" in m.reason
    # typed in a text layer, the exact name is the voter's
    m = matcher.match(line("Narin Ashgate", "345 Valley Ter"))
    assert m.decision is MatchDecision.MATCH and m.voter_id == "N1", m.reason
    # with no address written, two voters of one surname anywhere are told apart by the given
    # name alone, as housemates are
    elsewhere = [*people[:-1], replace(people[-1], house_number="12", street_name="MILL RD")]
    no_address = SignatureLine(
        "abcdef012345", 2, (Field("name", "Narin Ashgate", 0.8, Source.OCR),)
    )
    m = FSMatcher(elsewhere, CFG).match(no_address)
    assert m.decision is MatchDecision.REVIEW and "one slip" in m.reason, m.reason


def test_a_given_name_on_its_street_is_never_called_not_registered():
    # A changed surname (no pass proposes the voter: they key on the surname or the house
    # number) with the given name and the street of a voter: a person decides.
    people = [
        *_village(),
        RegisterEntry("K1", "NOBLE", "KELSEY", street_name="JAGARA ST", zip5="4224"),
    ]
    matcher = FSMatcher(people, CFG)
    m = matcher.match(line("Kelsey Kettleworth", "Jagara Street, 4224"))
    assert m.decision is MatchDecision.REVIEW, m.reason
    m = matcher.match(line("Kelsey Kettleworth", "Wyvern Street, 4224"))
    assert m.decision is MatchDecision.NO_MATCH, m.reason


def test_a_surname_that_only_begins_with_the_name_read_the_other_way_rules_nobody_in():
    # Invented names. "Bram Zephyrwood" read surname first is BRAM; BRAMBLETON begins with it
    # (Jaro-Winkler 0.88, a shared beginning) but is no slip of it, and nobody else is like the
    # signer: not registered. A surname one slip from BRAM (BRAN) may be the signer's, written
    # surname first and missed by every block: a person decides.
    bramble = RegisterEntry("B1", "BRAMBLETON", "HUGO", house_number="3", street_name="FERN ST")
    signer = line("Bram Zephyrwood", "105 Birch Rd")
    m = FSMatcher([*_village(), bramble], CFG).match(signer)
    assert m.decision is MatchDecision.NO_MATCH, m.reason
    bran = RegisterEntry("B2", "BRAN", "HUGO", house_number="3", street_name="FERN ST")
    m = FSMatcher([*_village(), bran], CFG).match(signer)
    assert m.decision is MatchDecision.REVIEW, m.reason


def test_a_slip_that_spells_a_known_given_name_no_voter_has_is_not_the_voter_s():
    # Invented names. No voter is TOM, but TOM is a real given name (the nickname table's):
    # at TIM's address it may be his housemate, not on this register.
    people = [
        *_village(),
        RegisterEntry("T1", "ASHGROVE", "TIM", house_number="7", street_name="KESTREL LN"),
    ]
    m = FSMatcher(people, CFG).match(line("Tom Ashgrove", "7 Kestrel Lane"))
    assert m.decision is MatchDecision.REVIEW, m.reason
    assert m.candidates[0].voter_id == "T1"
    assert "a known given name" in m.reason


def test_an_initial_with_a_house_number_one_slip_off_is_weighed_not_refused():
    # An initial names nobody else: with the surname and the street, a house number one slip
    # off ("39" for "38") is evidence the posterior weighs. A likeness of the given name there
    # ("Odelia" for ODILE: maybe another person) still needs the address to agree.
    people = _loners()
    entry = people[37]
    assert entry.first_name == "ODILE" and entry.house_number == "38"
    matcher = FSMatcher(people, CFG)
    where = f"39 {entry.street_name}, {entry.zip5}"
    m = matcher.match(line(f"O. {entry.last_name}", where))
    assert m.decision is MatchDecision.MATCH and m.voter_id == entry.voter_id, m.reason
    first = {e.field: e for e in m.candidates[0].evidence}["first_name"]
    assert first.level is ComparisonLevel.INITIAL and "first_name initial" in m.reason
    m = matcher.match(line(f"Odelia {entry.last_name}", where))
    assert m.decision is MatchDecision.REVIEW, m.reason
    first = {e.field: e for e in m.candidates[0].evidence}["first_name"]
    assert first.level is ComparisonLevel.LOOSE  # a likeness, weighed as one
    # a house number that differs is against it
    m = matcher.match(line(f"O. {entry.last_name}", f"250 {entry.street_name}, {entry.zip5}"))
    assert m.decision is not MatchDecision.MATCH, m.reason


@pytest.fixture(scope="module")
def loners_and_more():
    # Invented names: CONNOR STITZ and KY DIXON among voters at addresses of their own.
    return FSMatcher(
        [
            *_loners(),
            RegisterEntry("C1", "STITZ", "CONNOR", house_number="43", street_name="SKINNER ST"),
            RegisterEntry("K1", "DIXON", "KY", house_number="148", street_name="JINKA ST"),
        ],
        CFG,
    )


def test_a_letter_run_apart_from_an_unknown_given_name_is_read_joined(loners_and_more):
    # "Cnono R Stitz": no voter is CNONO, so the R may be the given name's last letter run
    # apart (CNONOR: one slip from CONNOR), or the name written surname first (STITZ CNONOR);
    # "Ansel Q Quilby" (ANSEL is a voter's given name) is read with a middle initial only.
    matcher = loners_and_more
    m = matcher.match(line("Cnono R Stitz", "43 Skinner Street"))
    assert m.decision is MatchDecision.MATCH and m.voter_id == "C1", m.reason
    with matcher.store.cursor() as con:
        q = line_frame(con, [("Cnono R Stitz", ""), ("Ansel Q Quilby", "")], (), readings=True)
    readings = {(int(r.line), r.n_first, r.n_last) for r in q.itertuples()}
    assert (0, "CNONOR", "STITZ") in readings and (0, "STITZ", "CNONOR") in readings
    assert {(ln, f) for ln, f, _ in readings if ln == 1} == {(1, "ANSEL")}


def test_a_two_letter_given_name_with_a_letter_added_is_one_slip(loners_and_more):
    m = loners_and_more.match(line("Kyo Dixon", "148 Jinka Street"))
    assert m.decision is MatchDecision.MATCH and m.voter_id == "K1", m.reason
