"""The closed-world stage: scoring candidate strings against a recognizer's lattice, the values
a field can hold, and reading a line's unsure fields as those values or as written.

Lattices here are made by hand (synthetic; no real person's data): each character of a string
with a score, and sometimes a wrong character first, as tesseract's LSTM gives them."""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.closedworld import (
    Params,
    chain_posteriors,
    costs,
    date_forms,
    mixed_costs,
    name_forms,
    posterior,
    resolve_line,
    world_of,
)
from pipeline.closedworld.resolve import PARAMS, outside_cost
from pipeline.closedworld.score import Posterior, doubt, for_reading, value_costs
from pipeline.closedworld.sequence import joints_with_last
from pipeline.closedworld.values import date_window
from pipeline.records import Field, Lattice, RegisterEntry, SignatureLine, Source
from pipeline.rules.reading import RESOLVED_THRESHOLDS
from pipeline.scan.engine import OcrText, Word, lattice_of
from tests.builders import case as case_config

P = Params()


def lattice(text: str, score: float = 0.9, swaps: dict[int, str] | None = None) -> Lattice:
    """`text` as a recognizer saw it: each character with `score`; at the positions in
    `swaps` another character read first, the true one second at a lower score."""
    out = []
    for k, ch in enumerate(text):
        if ch == " ":
            out.append(((" ", 1.0),))
        elif swaps and k in swaps:
            out.append(((swaps[k], score), (ch, score * 0.7)))
        else:
            out.append(((ch, score),))
    return tuple(out)


def _reference_cost(lat: Lattice, cand: str, p: Params) -> float:
    """The alignment cost written plainly, one candidate at a time (for the property test)."""
    punct = set(".,/-'#")

    def cheap(ch: str) -> bool:
        return ch == " " or ch in punct

    cand = cand.casefold()
    n, m = len(lat), len(cand)
    inf = float("inf")
    d = [[inf] * (m + 1) for _ in range(n + 1)]
    d[0][0] = 0.0
    for j in range(1, m + 1):
        d[0][j] = d[0][j - 1] + (p.space if cheap(cand[j - 1]) else p.insert)
    for i in range(1, n + 1):
        pos = lat[i - 1]
        top = max(max(s for _, s in pos), p.floor)
        first = pos[0][0]
        drop = p.space if cheap(first) else p.delete * top
        d[i][0] = d[i - 1][0] + drop
        for j in range(1, m + 1):
            s = max((sc for ch, sc in pos if ch.casefold() == cand[j - 1]), default=0.0)
            sub = min(max(math.log(top) - math.log(max(s, p.floor)), 0.0), -math.log(p.floor))
            ins = p.space if cheap(cand[j - 1]) else p.insert
            d[i][j] = min(d[i - 1][j] + drop, d[i - 1][j - 1] + sub, d[i][j - 1] + ins)
    return d[n][m]


_TEXT = st.text(alphabet="ab1/ .", min_size=0, max_size=7)


@settings(max_examples=60, deadline=None)
@given(read=_TEXT.filter(bool), cands=st.lists(_TEXT.filter(bool), min_size=1, max_size=4))
def test_vectorized_costs_equal_the_plain_alignment(read: str, cands: list[str]) -> None:
    lat = lattice(read, 0.8, {0: "x"})
    got = costs(lat, cands, P)
    want = [_reference_cost(lat, c, P) for c in cands]
    assert got == pytest.approx(want)


def test_the_string_read_costs_nothing_and_a_second_choice_little() -> None:
    lat = lattice("48 Orchard Ln", 0.9, {1: "4"})  # "44 Orchard Ln" read, 8 second
    got = costs(lat, ["44 Orchard Ln", "48 Orchard Ln", "48 Orchard Lane", "12 Mill St"], P)
    assert got[0] == 0.0
    assert 0 < got[1] < 1.0 < got[2] < got[3]


def test_several_reads_mix_so_one_good_read_is_enough() -> None:
    good, bad = lattice("9/25/26"), lattice("A/5/ue")
    mixed = mixed_costs([good, bad], ["9/25/26", "9/5/26"], P)
    assert mixed[0] < mixed[1]
    assert mixed[0] == pytest.approx(math.log(2), abs=0.01)  # half the reads saw it exactly


def test_posterior_keeps_none_of_these() -> None:
    sure = posterior(np.array([0.0, 6.0]), None, P)
    assert sure.best is not None and sure.best[0] == 0 and sure.best[1] > 0.9
    nothing_near = posterior(np.array([25.0, 30.0]), None, P)
    assert nothing_near.none > 0.99
    tie = posterior(np.array([0.0, 0.0]), None, P)
    assert tie.best is not None and tie.best[1] < 0.5


def test_dates_are_written_the_ways_people_write_them() -> None:
    forms = date_forms(dt.date(2019, 10, 1))
    for written in ("10/01/2019", "10/1/2019", "10/1/19", "10-01-19", "10.1.19",
                    "Oct 1, 2019", "October 1, 2019", "1 Oct 2019", "October 1"):  # fmt: skip
        assert written in forms


def test_names_are_written_with_nicknames_initials_and_suffixes() -> None:
    e = RegisterEntry("NY1", "HALE", "WILLIAM", "JAMES", "JR")
    forms = name_forms(e)
    for written in ("William Hale", "William J Hale", "William J. Hale", "Bill Hale",
                    "William James Hale Jr"):  # fmt: skip
        assert written in forms


# -- a line read in the closed world ---------------------------------------------------------


VOTERS = (
    RegisterEntry("NY1", "HALE", "WILLIAM", "J", house_number="48", street_name="Orchard Ln",
                  town_city="Greenfield"),
    RegisterEntry("NY2", "HALE", "MARTHA", house_number="48", street_name="Orchard Ln",
                  town_city="Greenfield"),
    RegisterEntry("NY3", "QUILL", "ADA", house_number="12", street_name="Mill St",
                  town_city="Greenfield"),
    RegisterEntry("NY4", "QUILL", "OTTO", house_number="14", street_name="Mill St",
                  town_city="Greenfield"),
)  # fmt: skip


def _field(name: str, read: str, seen: Lattice) -> Field:
    return Field(name, read, 0.4, Source.OCR, None, (seen,))


def _line(*fields: Field) -> SignatureLine:
    return SignatureLine("abc", 1, fields)


@pytest.fixture(scope="module")
def world():  # type: ignore[no-untyped-def]
    case = case_config()
    return case, world_of(case, VOTERS)


def test_a_misread_line_is_read_as_the_register_has_it(world) -> None:  # type: ignore[no-untyped-def]
    case, w = world
    day = case.dates.filed - dt.timedelta(days=5)
    written = f"{day.month}/{day.day}/{day.year % 100}"
    line = _line(
        _field("date", written, lattice(written, 0.9)),
        _field("name", "Wiliam Hule", lattice("William Hale", 0.9, {8: "u"})),
        _field("residence", "48 Orchard Ln", lattice("48 Orchard Ln", 0.9, {5: "v"})),
    )
    got = resolve_line(line, w)
    assert got.get("residence").text == "48 Orchard Ln" and got.get("residence").resolved
    assert got.get("name").text == "William Hale" and got.get("name").resolved
    assert got.get("date").text == written and got.get("date").resolved
    assert got.get("name").confidence >= RESOLVED_THRESHOLDS["name"]


def test_an_unregistered_signer_is_not_forced_onto_a_neighbour(world) -> None:  # type: ignore[no-untyped-def]
    _, w = world
    line = _line(
        _field("name", "Zebulon Thackeray", lattice("Zebulon Thackeray", 0.92)),
        _field("residence", "12 Mill St", lattice("12 Mill St", 0.92)),
    )
    got = resolve_line(line, w)
    assert got.get("name") == line.get("name")  # none of these: read as written
    assert got.get("residence").text == "12 Mill St"


def test_a_date_outside_the_window_is_read_as_written(world) -> None:  # type: ignore[no-untyped-def]
    case, w = world
    first, _ = date_window(case)
    far = first - dt.timedelta(days=400)
    written = f"{far.month:02d}/{far.day:02d}/{far.year}"
    line = _line(_field("date", written, lattice(written, 0.93)))
    assert resolve_line(line, w).get("date") == line.get("date")


def test_a_date_a_year_before_the_window_is_not_moved_into_it(world) -> None:  # type: ignore[no-untyped-def]
    """The window runs from 9/14/2026 (its margin from mid-August); "9/25/25", read plainly,
    is one digit from 9/25/26 inside it, but it is a real day itself, a line signed before
    the adoption: it is read as written, not corrected into the window."""
    _, w = world
    line = _line(_field("date", "9/25/25", lattice("9/25/25", 0.9)))
    got = resolve_line(line, w).get("date")
    assert got == line.get("date")
    # the same reading with its last digit in doubt between 5 and 6 stays unsure, not decided
    doubted = lattice("9/25/25", 0.9, {6: "5"})
    doubted = (*doubted[:6], (("5", 0.6), ("6", 0.5)))
    got = resolve_line(_line(_field("date", "9/25/25", doubted)), w).get("date")
    assert not (got.resolved and got.confidence >= RESOLVED_THRESHOLDS["date"])


def test_a_date_in_the_window_is_still_read_into_it(world) -> None:  # type: ignore[no-untyped-def]
    """The days outside the window that "none of these" holds do not take a misread day
    inside it away: "9/2S/26" (an S for the 5) is read 9/25/26."""
    _, w = world
    seen = lattice("9/25/26", 0.9, {3: "S"})
    got = resolve_line(_line(_field("date", "9/2S/26", seen)), w).get("date")
    assert got.resolved and got.text.startswith("9/25/26")


def test_the_days_outside_the_window_hold_only_forms_that_write_their_year(world) -> None:  # type: ignore[no-untyped-def]
    """A date written "Sep 25", with no year, is the window's 9/25/26: a day outside it is said by
    it only with a year it does not write."""
    from pipeline.closedworld.resolve import _date_costs

    _, w = world
    field = _field("date", "Sep 25", lattice("Sep 25", 0.95))
    ev = _date_costs(field, w.dates, PARAMS["date"], weights=True)
    # the nearest day outside costs the year's insertion, far more than the window's own
    assert outside_cost(field, ev, w, PARAMS["date"]) > float(ev.cost.min()) + 3.0
    got = resolve_line(_line(field), w).get("date")
    assert got.resolved and got.text == "Sep 25"


def test_a_signature_is_given_a_name_only_when_sure(world) -> None:  # type: ignore[no-untyped-def]
    _, w = world
    clear = _field("signature", "Ada Quil", lattice("Ada Quill", 0.9, {7: "."}))
    residence = Field("residence", "12 Mill St", 0.99, Source.OCR)
    got = resolve_line(_line(clear, residence), w).get("signature")
    assert got.text == "Ada Quill" and got.confidence == clear.confidence and not got.resolved
    vague = _field("signature", "Ox", lattice("Ox", 0.5))
    assert resolve_line(_line(vague), w).get("signature") == vague


def test_fields_without_lattices_or_from_a_reviewer_are_left_alone(world) -> None:  # type: ignore[no-untyped-def]
    _, w = world
    typed = Field("residence", "48 Orchrd Ln", 1.0, Source.TEXT_LAYER, None, (lattice("x"),))
    plain = Field("name", "Wiliam Hale", 0.4, Source.OCR)
    line = _line(typed, plain)
    assert resolve_line(line, w) == line


def test_lattice_of_a_read_parts_words_with_a_space() -> None:
    words = (
        Word("12", 0.9, (0, 0, 1, 1), 0, ((("1", 0.9),), (("2", 0.8), ("Z", 0.4)))),
        Word("Elm", 0.9, (0, 0, 1, 1), 0, ((("E", 0.9),), (("l", 0.9),), (("m", 0.9),))),
    )
    lat = lattice_of(OcrText(words))
    assert "".join(p[0][0] for p in lat) == "12 Elm"
    assert lattice_of(OcrText((replace(words[0], choices=()),))) == ()


def test_a_sheets_dates_run_forward_so_neighbours_help_an_unsure_one() -> None:
    weights = np.ones(10)
    cost = np.full(10, 3.0)
    cost[[2, 8]] = 0.5  # the line's own reading hesitates between day 2 and day 8
    alone = chain_posteriors([(cost, None)], weights, P)[0]
    assert alone is not None and alone.best is not None and alone.best[1] < 0.6
    between = chain_posteriors([(None, 6), (cost, None), (None, 9)], weights, P)[1]
    assert between is not None and between.best is not None
    assert between.best[0] == 8 and between.best[1] > alone.best[1]
    # a date out of order is still read when its own evidence is clear
    clear = np.full(10, 12.0)
    clear[1] = 0.0
    back = chain_posteriors([(None, 6), (clear, None)], weights, P)[1]
    assert back is not None and back.best is not None and back.best[0] == 1


def test_an_unregistered_relative_at_a_voters_address_is_not_decided(world) -> None:  # type: ignore[no-untyped-def]
    """Martin Hale, not registered, signs at 48 Orchard Ln where Martha Hale is: his name
    read clearly is not made hers with the confidence that would decide the line."""
    _, w = world
    residence = Field("residence", "48 Orchard Ln", 0.99, Source.OCR)
    line = _line(_field("name", "Martin Hale", lattice("Martin Hale", 0.93)), residence)
    got = resolve_line(line, w).get("name")
    assert got.text == "Martin Hale" or got.confidence < RESOLVED_THRESHOLDS["name"]


def test_a_district_is_read_as_its_number_not_as_its_tiled_re_read() -> None:
    case = case_config(municipality={"election_districts": ["1", "2", "3"]})
    w = world_of(case, VOTERS)
    tiled = lattice("3 3 3", 0.9)
    ed = Field("election_district", "3", 0.5, Source.OCR, None, (lattice("8", 0.6), tiled))
    got = resolve_line(_line(ed), w).get("election_district")
    assert got.text == "3" and got.resolved


def test_the_witness_date_is_read_on_or_after_the_lines_it_attests() -> None:
    """The statement's handwritten date hesitates between 10/02 and 10/07: the sheet's lines
    are dated 10/05 and 10/06, and the witness saw each signed, so it reads 10/07; without
    the lines the reading's own lean (10/02) stands."""
    from pipeline.closedworld import resolve_sheets
    from tests.builders import line as make_line
    from tests.builders import sheet as make_sheet
    from tests.builders import witness as make_witness

    case = case_config()
    seen = lattice("10/02/2026", 0.9)
    seen = (*seen[:4], (("2", 0.6), ("7", 0.45)), *seen[5:])
    unsure = Field("date", "10/02/2026", 0.3, Source.OCR, None, (seen,))
    statement = replace(make_witness(count="2"), date=unsure)
    lines = (make_line(1, date="10/05/2026"), make_line(2, date="10/06/2026"))
    sheet = make_sheet(lines, witness_statement=statement)
    alone = make_sheet((make_line(1, date="", blank=True),), witness_statement=statement)
    got, by_itself = resolve_sheets([sheet, alone], case, VOTERS)
    assert got.witness is not None and got.witness.date is not None
    assert got.witness.date.resolved and got.witness.date.text.startswith("10/07")
    assert by_itself.witness is not None and by_itself.witness.date is not None
    assert by_itself.witness.date.text.startswith("10/02")


def test_a_line_date_keeps_the_days_it_may_be_read_alone() -> None:
    """A line's date hesitates between 10/07 (its lean) and 10/02 under a witness who surely
    dated the statement 10/05: in the sheet's chain a day after the witness's is weighed down,
    so the line reads 10/02; read alone (`Field.alone`), 10/07 stays the likelier."""
    from pipeline.closedworld import resolve_sheets
    from tests.builders import line as make_line
    from tests.builders import sheet as make_sheet
    from tests.builders import witness as make_witness

    seen = lattice("10/07/2026", 0.9)
    seen = (*seen[:4], (("7", 0.6), ("2", 0.45)), *seen[5:])
    unsure = Field("date", "10/07/2026", 0.3, Source.OCR, None, (seen,))
    line = replace(make_line(1), fields=(unsure, *make_line(1).fields[1:]))
    statement = replace(make_witness(count="1"), date=Field("date", "10/05/2026", 1.0, Source.OCR))
    (got,) = resolve_sheets(
        [make_sheet((line,), witness_statement=statement)], case_config(), VOTERS
    )
    date = got.lines[0].get("date")
    assert date is not None and date.resolved
    assert date.alternatives[0][0] == "2026-10-02"
    assert date.alone[0][0] == "2026-10-07"


def _unsure_date(day: dt.date, p: float, others: dict[dt.date, float]) -> Field:
    """A date the closed-world stage read as `day` with probability `p`, the rest on `others`."""
    alternatives = ((day.isoformat(), p), *((d.isoformat(), q) for d, q in others.items()))
    text = f"{day.month}/{day.day}/{day.year}"
    return Field("date", text, p, Source.OCR, None, (lattice(text),), True, alternatives)


def _low_fields(line: SignatureLine, witnessed: Field | None = None) -> list[str]:
    from pipeline.dates import parse_written_date
    from pipeline.rules.base import LineContext
    from pipeline.rules.reading import low_confidence_fields
    from tests.builders import sheet as make_sheet
    from tests.builders import witness as make_witness

    case = case_config()
    witnessed = witnessed or Field("date", "10/08/2026", 1.0, Source.OCR)
    statement = replace(make_witness(count="1"), date=witnessed)
    sheet = make_sheet((line,), witness_statement=statement)
    signed_on = parse_written_date(line.text("date"), case.dates.filed)
    ctx = LineContext(line, sheet, None, None, signed_on, case)
    return [name for f in low_confidence_fields(ctx) for name in f.evidence["fields"]]


def test_an_unsure_date_whose_days_the_law_treats_alike_does_not_hold_the_line() -> None:
    """A date torn between 10/01 and 10/07, both inside the window and before the witness's
    10/08: whichever it is, the line is dated correctly, so it need not wait for its day. Torn
    between 10/07 and 10/10 (after the filing on 10/09: fatal), or with a real share on "none
    of these", it waits for a person."""
    from tests.builders import line as make_line

    day = dt.date(2026, 10, 7)
    inside = _unsure_date(day, 0.6, {dt.date(2026, 10, 1): 0.39})
    straddles = _unsure_date(day, 0.6, {dt.date(2026, 10, 10): 0.39})
    mostly_none = _unsure_date(day, 0.6, {dt.date(2026, 10, 1): 0.2})
    after_witness = _unsure_date(
        dt.date(2026, 10, 1), 0.6, {dt.date(2026, 10, 8): 0.2, dt.date(2026, 10, 9): 0.19}
    )
    for field, held in (
        (inside, False),
        (straddles, True),
        (mostly_none, True),
        (after_witness, True),
    ):
        line = replace(
            make_line(1),
            fields=tuple(field if f.name == "date" else f for f in make_line(1).fields),
        )
        assert ("date" in _low_fields(line)) is held, field.alternatives


def test_a_handwritten_date_tesseract_read_at_087_is_not_taken_as_read() -> None:
    """A development hand's "Oct 11, 2026" (after the filing) was read "Oct 1, 2026" at 0.863
    and decided valid. A date below 0.90 is not taken as read: it is read in the closed world,
    and left as read it holds its line."""
    from tests.builders import line as make_line

    for conf, held in ((0.863, True), (0.93, False)):
        read = Field("date", "Oct 1, 2026", conf, Source.OCR, None, (lattice("Oct 1, 2026"),))
        line = replace(
            make_line(1), fields=tuple(read if f.name == "date" else f for f in make_line(1).fields)
        )
        assert ("date" in _low_fields(line)) is held, conf


def test_a_date_read_surely_enough_holds_its_line_when_a_day_it_may_be_is_a_defect() -> None:
    """10/2 read at 0.85, above the resolved dates' threshold, with 0.11 on 10/12 (after the
    filing on 10/09 and the witness's 10/08: a fatal DATE_AFTER_FILING): a held-out line
    read so was decided valid, truth's 10/12 invalid. The day may be one the law treats
    otherwise, so a person looks; with the 0.11 on 10/01 (the same in law) or only a few
    hundredths on 10/12, the line is decided on its likeliest day as before."""
    from tests.builders import line as make_line

    day = dt.date(2026, 10, 2)
    for others, held in (
        ({dt.date(2026, 10, 12): 0.11, dt.date(2026, 10, 1): 0.03}, True),
        ({dt.date(2026, 10, 1): 0.11, dt.date(2026, 10, 12): 0.03}, False),
        ({dt.date(2026, 10, 1): 0.03}, False),  # "none of these" 0.12: the threshold's to weigh
    ):
        field = _unsure_date(day, 0.85, others)
        line = replace(
            make_line(1),
            fields=tuple(field if f.name == "date" else f for f in make_line(1).fields),
        )
        assert ("date" in _low_fields(line)) is held, field.alternatives


def test_a_line_cleared_of_a_defect_by_its_sheet_order_alone_is_held() -> None:
    """Held out: 10/12/26, after the filing (10/09) and the witness's sure 10/08, read as 10/2
    at 0.93 in the sheet's chain, which weighs a day after the witness's down; read alone it
    was 10/2 at 0.5 beside 10/12 at 0.4. The chain alone found the line free of the defect,
    so it waits for a person; read alone as surely 10/2, it is decided."""
    from tests.builders import line as make_line

    day = dt.date(2026, 10, 2)
    chained = _unsure_date(day, 0.93, {dt.date(2026, 10, 12): 0.012, dt.date(2026, 10, 1): 0.03})
    for alone, held in (
        ((("2026-10-02", 0.5), ("2026-10-12", 0.4)), True),
        ((("2026-10-02", 0.9), ("2026-10-01", 0.08)), False),
    ):
        field = replace(chained, alone=alone)
        line = replace(
            make_line(1),
            fields=tuple(field if f.name == "date" else f for f in make_line(1).fields),
        )
        assert ("date" in _low_fields(line)) is held, alone


def test_a_resolved_date_keeps_the_days_it_may_be(world) -> None:  # type: ignore[no-untyped-def]
    case, w = world
    day = case.dates.filed - dt.timedelta(days=5)
    written = f"{day.month}/{day.day}/{day.year % 100}"
    seen = lattice(written, 0.9)
    at = written.index("/") + 1  # the day's first digit hesitates
    seen = (*seen[:at], ((written[at], 0.6), ("8", 0.5)), *seen[at + 1 :])
    got = resolve_line(_line(_field("date", written, seen)), w).get("date")
    assert got.resolved and got.alternatives[0][0] == day.isoformat()
    assert got.alternatives[0][1] == pytest.approx(got.confidence, abs=1e-3)
    assert len(got.alternatives) > 1 and sum(p for _, p in got.alternatives) <= 1.0 + 1e-9


def _unsure_ward(p: float, others: dict[str, float]) -> Field:
    """A ward the closed-world stage read as "1" with probability `p`, the rest on `others`."""
    alternatives = (("1", p), *others.items())
    return Field("ward", "1", p, Source.OCR, None, (lattice("1"),), True, alternatives)


def _ward_held(field: Field, wards: tuple[str, ...]) -> tuple[bool, float]:
    """Whether the line with `field` as its ward is held for it (9-902, the village's wards
    `wards`), and the field's `value_settled`."""
    from pipeline.rules.base import LineContext
    from pipeline.rules.reading import low_confidence_fields, value_settled
    from tests.builders import line as make_line
    from tests.builders import sheet as make_sheet

    case = case_config(municipality={"wards": list(wards)})
    line = replace(
        make_line(1), fields=tuple(field if f.name == "ward" else f for f in make_line(1).fields)
    )
    ctx = LineContext(line, make_sheet((line,)), None, None, dt.date(2026, 10, 1), case)
    low = [name for f in low_confidence_fields(ctx) for name in f.evidence["fields"]]
    return "ward" in low, value_settled(ctx, "ward")


def test_an_unsure_ward_does_not_hold_the_line_when_any_of_its_numbers_gives_one() -> None:
    """9-902(8) asks for "the ward if any", not which: a ward torn between the village's
    wards 1 and 7 gives the line a ward either way, so it does not hold the line; with a real
    share on "none of these" (ink that may be no ward), or not resolved at all, it does."""
    wards = ("1", "2", "7")
    for field, held in (
        (_unsure_ward(0.55, {"7": 0.44}), False),
        (_unsure_ward(0.55, {"7": 0.3}), True),  # "none of these": 0.15
        (replace(_unsure_ward(0.55, {"7": 0.44}), resolved=False, alternatives=()), True),
    ):
        got_held, settled = _ward_held(field, wards)
        assert got_held is held, field.alternatives
        listed = sum(p for _, p in field.alternatives)  # every number gives a ward
        assert settled == pytest.approx(listed if field.resolved else 0.0)


def test_a_ward_read_as_nothing_holds_the_line_only_where_the_village_has_wards() -> None:
    """A ward cell whose ink tesseract read as nothing (confidence 0, no lattices): where the
    case lists no wards the rules ask for none (`line_has_ward_and_district`), so whatever it
    says the line is judged alike and the doubt does not hold it; where it lists them, empty
    is WARD_MISSING and a number is not, so a person looks."""
    unread = Field("ward", "", 0.0, Source.OCR)
    assert _ward_held(unread, ()) == (False, 1.0)
    assert _ward_held(unread, ("1", "2")) == (True, 0.0)


def test_a_resolved_ward_keeps_the_numbers_it_may_be() -> None:
    case = case_config(municipality={"wards": ["1", "2", "7"]})
    w = world_of(case, VOTERS)
    seen = ((("7", 0.5), ("1", 0.45)),)
    got = resolve_line(_line(_field("ward", "7", seen)), w).get("ward")
    assert got is not None and got.resolved
    assert [v for v, _ in got.alternatives][:2] == ["7", "1"]
    assert got.alternatives[0][1] == pytest.approx(got.confidence, abs=1e-3)


def test_an_unsure_witness_date_weighs_on_the_lines_it_may_fall_before() -> None:
    """The witness's date torn between 10/03 and 10/08 does not hold the sheet (its rules find
    the same either way), but it holds a line dated 10/05 (after 10/03: DATE_AFTER_WITNESS_DATE)
    and not one dated 10/01 (before both)."""
    from pipeline.rules.reading import low_confidence_sheet_fields
    from tests.builders import line as make_line
    from tests.builders import sheet as make_sheet
    from tests.builders import witness as make_witness

    witnessed = _unsure_date(dt.date(2026, 10, 8), 0.6, {dt.date(2026, 10, 3): 0.399})
    for day, held in ((dt.date(2026, 10, 1), False), (dt.date(2026, 10, 5), True)):
        line = make_line(1, date=f"{day.month}/{day.day}/2026")
        assert ("witness.date" in _low_fields(line, witnessed)) is held
    statement = replace(make_witness(count="1"), date=witnessed)
    sheet = make_sheet((make_line(1, date="10/01/2026"),), witness_statement=statement)
    assert not list(low_confidence_sheet_fields(sheet, case_config()))
    # with a real share on "none of these" it still holds each line it may fall before, but
    # not the sheet: 9-902's sheet rules find the same whatever day it is, even far outside
    # the window (`reading._far_days`)
    unsettled = replace(witnessed, alternatives=witnessed.alternatives[:1])  # "none": 0.4
    line = make_line(1, date="10/01/2026")
    assert "witness.date" in _low_fields(line, unsettled)
    sheet = make_sheet((line,), witness_statement=replace(statement, date=unsettled))
    assert not list(low_confidence_sheet_fields(sheet, case_config()))


def test_an_unsure_witness_date_holds_a_sheet_whose_statement_it_may_date_to_another_form() -> None:
    """A nominating sheet's statement without the witness's village and county is the form in
    force from 2017-11-22: a witness date read among this year's days with a share on "none of
    these" (a date outside the window, which may be years before, under the older form that
    asks for them) holds the sheet; read surely, or on a statement that names them, it does
    not."""
    from pipeline.rules.reading import witness_date_settled
    from tests.builders import line as make_line
    from tests.builders import sheet as make_sheet
    from tests.builders import witness as make_witness
    from tests.test_rules_nomination import case as nomination_case

    nomination = nomination_case()
    day = dt.date(2026, 10, 8)
    sure = _unsure_date(day, 0.999, {})
    unsettled = _unsure_date(day, 0.6, {})  # "none of these": 0.4
    newer = replace(make_witness(count="1"), village=None, county=None)
    for statement, date, settled in (
        (newer, sure, 1.0),
        (newer, unsettled, 0.6),
        (make_witness(count="1"), unsettled, 1.0),  # with them, either form is met
    ):
        sheet = make_sheet((make_line(1),), witness_statement=replace(statement, date=date))
        assert witness_date_settled(sheet, nomination) == pytest.approx(settled)


def test_a_clear_name_settles_the_address_it_lives_at(world) -> None:  # type: ignore[no-untyped-def]
    """The house number hesitates between 12 and 14 Mill St; the name is clearly Otto Quill,
    who lives at 14: read together, the address is 14 Mill St, surely. Read alone, it is not."""

    _, w = world
    seen = lattice("14 Mill St", 0.9)
    seen = (seen[0], (("2", 0.6), ("4", 0.55)), *seen[2:])
    line = _line(
        _field("name", "Otto Quill", lattice("Otto Quill", 0.92)),
        _field("residence", "12 Mill St", seen),
    )
    got = resolve_line(line, w).get("residence")
    assert got.text == "14 Mill St" and got.confidence >= RESOLVED_THRESHOLDS["residence"]
    # the name keeps the voters it may be, by id (`rules.reading.name_settled`)
    name = resolve_line(line, w).get("name")
    assert name.resolved and name.alternatives[0][0] == "NY4"
    alone = resolve_line(_line(_field("residence", "12 Mill St", seen)), w).get("residence")
    assert alone.confidence < RESOLVED_THRESHOLDS["residence"]


def test_the_chain_joint_with_the_witness_sums_to_each_dates_marginals() -> None:
    """`joints_with_last`: a line's day and the witness's day read together in the sheet's
    chain; its rows sum to the line's marginal, its columns to the witness's."""
    rng = np.random.default_rng(7)
    n = 9
    lines = [(rng.uniform(0, 4, n), None), (None, 3), (rng.uniform(0, 4, n), None)]
    lines.append((rng.uniform(0, 4, n), None))  # the witness statement closes the chain
    posts = chain_posteriors(lines, np.ones(n), P)
    joints = joints_with_last(lines, np.ones(n), P)
    assert joints[1] is None and joints[3] is None

    def dense(post: Posterior) -> np.ndarray:
        out = np.zeros(n)
        for k, p in post.ranked:
            out[k] = p
        return out / (1 - post.none)

    last = posts[3]
    assert last is not None
    for k in (0, 2):
        joint, post = joints[k], posts[k]
        assert joint is not None and post is not None
        assert np.allclose(joint.sum(axis=1) / joint.sum(), dense(post), atol=1e-6)
        assert np.allclose(joint.sum(axis=0) / joint.sum(), dense(last), atol=1e-6)
    # a line dated after the witness is unlikely together, though each alone may be late
    late = np.full(n, 6.0)
    late[[4, 6]] = 0.0
    pair = joints_with_last([(late, None), (late, None)], np.ones(n), P)[0]
    assert pair is not None and pair[6, 4] < 0.2 * pair[4, 6]


def test_none_of_these_grows_with_the_doubt_of_the_reads() -> None:
    p = Params(none=8.0, none_per_char=1.0)
    clear = lattice("Ada Quill", 0.95)
    unsure = lattice("Ada Quill", 0.6, {0: "D", 4: "O", 5: "v"})  # three hesitations
    assert doubt([clear]) == 0.0
    assert doubt([unsure]) == pytest.approx(3 * 0.4)
    assert for_reading(p, [unsure, clear]).none == pytest.approx(8.0 + 3 * 0.4 / 2)
    assert for_reading(Params(none=8.0), [unsure]).none == 8.0


def test_a_line_and_its_witness_read_together_weigh_their_order_as_the_chain_does() -> None:
    """The line's date torn between 10/05 and 10/07, the witness's between 10/06 and 10/08:
    taken as independent, 10/07 after 10/06 holds a real share and the line waits; read
    together in the sheet's chain (`Field.witnessed`), the witness saw the line signed, so
    the pairs with the line after it are unlikely and the line need not wait."""
    from tests.builders import line as make_line

    line_day, w_day = dt.date(2026, 10, 5), dt.date(2026, 10, 8)
    date = _unsure_date(line_day, 0.55, {dt.date(2026, 10, 7): 0.45})
    witnessed = _unsure_date(w_day, 0.55, {dt.date(2026, 10, 6): 0.45})
    line = make_line(1, date="10/5/2026")
    line = replace(line, fields=tuple(date if f.name == "date" else f for f in line.fields))
    assert "date" in _low_fields(line, witnessed)
    pairs = (("2026-10-05", "2026-10-08", 0.45), ("2026-10-05", "2026-10-06", 0.3))
    pairs += (("2026-10-07", "2026-10-08", 0.24), ("2026-10-07", "2026-10-06", 0.01))
    together = replace(date, witnessed=pairs)
    line = replace(line, fields=tuple(together if f.name == "date" else f for f in line.fields))
    assert "date" not in _low_fields(line, witnessed)


def test_a_line_is_weighed_on_its_own_days_when_its_witness_date_is_unsure() -> None:
    """Held out (seed 1203): "October 11, 2026", after the filing (10/09), read as October 1
    at 0.86 in the sheet's chain and 10/11 at 0.11 read alone, beside a witness's date the
    closed world was unsure of (10/06 at 0.66, its days before the line's all alike in law)
    was decided valid: the witness's doubt was weighed, the line's own days were not. Read
    alone as surely 10/1, the line is decided as before."""
    from tests.builders import line as make_line

    day = dt.date(2026, 10, 1)
    chained = _unsure_date(day, 0.86, {dt.date(2026, 10, 4): 0.1, dt.date(2026, 10, 11): 0.007})
    witnessed = _unsure_date(dt.date(2026, 10, 6), 0.66, {dt.date(2026, 10, 7): 0.34})
    for alone, held in (
        ((("2026-10-01", 0.66), ("2026-10-11", 0.11), ("2026-10-04", 0.08)), True),
        ((("2026-10-01", 0.9), ("2026-10-04", 0.09)), False),
    ):
        field = replace(chained, alone=alone)
        line = replace(
            make_line(1),
            fields=tuple(field if f.name == "date" else f for f in make_line(1).fields),
        )
        assert ("date" in _low_fields(line, witnessed)) is held, alone


def test_a_digit_written_twice_costs_little_more_than_once_against_the_lattice() -> None:
    """Tesseract's LSTM, a CTC reader, merges a pair of like digits with no blank between
    ("October 11" read "October 1"): in the calibration fonts, 5 of 13 such dates' lattices
    explained the single digit better. So a candidate's digit that repeats the one before
    it costs `repeat` to insert, not `insert`; any other missing character as before."""
    read = lattice("10/1")
    plain = Params(insert=1.5)
    paired = replace(plain, repeat=0.4)
    one, two, other = costs(read, ["10/1", "10/11", "10/12"], paired)
    assert one == pytest.approx(0.0) and two == pytest.approx(0.4) and other == pytest.approx(1.5)
    assert costs(read, ["10/11"], plain)[0] == pytest.approx(1.5)


def test_a_lattice_weight_scales_the_lattices_costs_and_not_the_forms_own() -> None:
    lat = lattice("10/21/19", 0.9, {4: "7"})
    forms, owner = ["10/21/19", "10/27/19", "Oct 21, 2019"], [0, 1, 0]
    full = value_costs((lat,), forms, owner, Params())
    light = value_costs((lat,), forms, owner, Params(lattice_weight=0.25))
    assert list(light[0]) == list(full[0]) and list(light[2]) == list(full[2])
    assert light[1] == pytest.approx(0.25 * full[1])
    extra = [1.0, 0.5, 0.0]  # a form's own cost (a less usual way of writing it) is not weighed
    with_extra = value_costs((lat,), forms, owner, Params(lattice_weight=0.25), extra)
    assert with_extra[1] == pytest.approx(light[1] + np.array([extra[int(k)] for k in light[2]]))


def _sure(read: str, seen: Lattice) -> Field:
    """A residence tesseract read at 0.96 (above its threshold), its lattices kept."""
    return Field("residence", read, 0.96, Source.OCR, None, (seen,))


def test_a_sure_residence_the_register_lacks_is_read_among_its_addresses(world) -> None:  # type: ignore[no-untyped-def]
    """A residence read surely that writes no address of the town's: a misread whose lattices
    explain a register address nearly as well as the read ("Orchvrd", the "a" a close second)
    is that address, surely; an address the register lacks read plainly ("201 Mill St", where
    the register has 12 and 14) stays as written, not moved onto a neighbour; one the register
    has is left alone."""
    _, w = world
    misread = _sure("48 Orchvrd Ln", lattice("48 Orchard Ln", 0.95, {7: "v"}))
    got = resolve_line(_line(misread), w).get("residence")
    assert got.text == "48 Orchard Ln" and got.resolved
    assert got.confidence >= RESOLVED_THRESHOLDS["residence"]
    unregistered = _sure("201 Mill St", lattice("201 Mill St", 0.95))
    assert resolve_line(_line(unregistered), w).get("residence") == unregistered
    on_register = _sure("12 Mill St", lattice("12 Mill St", 0.95))
    assert resolve_line(_line(on_register), w).get("residence") == on_register


def test_a_sure_residences_none_of_these_costs_the_read_and_the_towns_size() -> None:
    """ "None of these" for a residence read surely: the read's own cost under its lattices and
    log(N * OFF_REGISTER_PER_ADDRESS), so an address beats the read by the same margin in a
    town of 40 addresses and of 4,000."""
    from pipeline.closedworld.resolve import OFF_REGISTER_PER_ADDRESS, sure_residence_params

    seen = lattice("153 Mill St", 0.95, {2: "5"})  # read "155", the "3" a close second
    field = _sure("155 Mill St", seen)
    own = float(value_costs((seen,), ["155 Mill St"], [0], PARAMS["residence"])[1][0])
    for n in (40, 4000):
        params = sure_residence_params(field, n)
        assert params.none == pytest.approx(own + math.log(n * OFF_REGISTER_PER_ADDRESS))
        # the register's 153, a close second at the third digit, against "none of these"
        cost = value_costs((seen,), ["153 Mill St"], [0], params)[1]
        post = posterior(np.full(n, 50.0), None, params)  # n addresses far from the read
        near = posterior(np.concatenate([cost, np.full(n - 1, 50.0)]), None, params)
        assert post.none > 0.99 and near.ranked[0][1] >= RESOLVED_THRESHOLDS["residence"]
