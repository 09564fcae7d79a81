"""The village independent nominating petition, rule by rule. Each case names its clause
(subdivisions as ../shared/statutes/village-independent-nominating-petition.txt numbers them)."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

import pytest

from pipeline.judge import judge
from pipeline.records import Field, LineStatus, MatchDecision, Source, Verdict
from pipeline.rules import village_nomination as nom
from tests import builders as b

RULES = nom.RULES
NOMINATION = {
    "election": dt.date(2027, 3, 16),
    "population": 2400,
    "body_name": "Lakeside Neighbors",
    "committee": [
        {"name": "Ada One", "address": "1 Pine St"},
        {"name": "Ben Two", "address": "2 Pine St"},
        {"name": "Cy Three", "address": "3 Pine St"},
    ],
}


def case(**nomination):
    return b.case(
        kind="independent_nomination",
        dates={"filed": dt.date(2026, 10, 9), "adopted": None, "previous_general_election": None},
        nomination={**NOMINATION, **nomination},
    )


# -- subdivision 4: thresholds, at every boundary --------------------------------------------


@pytest.mark.parametrize(
    "population,voters,required",
    [
        (999, 400, 20),  # under 1,000: 5% of 400
        (999, 401, 21),  # at least 5%: 20.05 -> 21
        (999, 0, 0),
        (1000, None, 50),
        (2999, None, 50),
        (3000, None, 75),
        (4999, None, 75),
        (5000, None, 100),
        (250000, None, 100),
    ],
)
def test_threshold_by_population(population, voters, required):
    """Subd. 4: 100 at 5,000 or more; 75 at 3,000-4,999; 50 at 1,000-2,999; under 1,000, 5% of
    the voters at the last regular village election."""
    assert nom.required_signatures(population, voters) == required


def test_small_village_without_turnout_is_a_case_file_error():
    with pytest.raises(ValueError, match="voters_at_last_election"):
        case(population=800)


# -- subdivision 1: the signer ----------------------------------------------------------------


def judge_one(c=None, line_kw=None, entry_kw=None, statement="auto"):
    c = c or case()
    ln = b.line(1, **(line_kw or {}))
    sh = b.sheet((ln,), witness_statement=statement)
    m = b.match(ln.line_id, "NY1")
    return judge(c, RULES, [sh], {ln.line_id: m}, {"NY1": b.entry(**(entry_kw or {}))}, None)


@pytest.mark.parametrize(
    "what,entry_kw,line_kw,codes,status",
    [
        ("registered resident, dated, with residence", {}, {}, set(), LineStatus.VALID),
        (
            "registered after signing: 'registered ... at the time of signing'",
            {"registration_date": dt.date(2026, 10, 2)},
            {},
            {"SIGNER_REGISTERED_AFTER_SIGNING"},
            LineStatus.INVALID,
        ),
        (
            "not a resident of the village: 'residents of the village'",
            {"town_city": "ELSEWHERE"},
            {},
            {"SIGNER_OUTSIDE_VILLAGE"},
            LineStatus.INVALID,
        ),
        (
            "undated: 'on the day and year stated'",
            {},
            {"date": ""},
            {"LINE_UNDATED"},
            LineStatus.INVALID,
        ),
        (
            "no residence: 'truly stated opposite my signature'",
            {},
            {"residence": ""},
            {"RESIDENCE_MISSING"},
            LineStatus.INVALID,
        ),
        ("not signed in ink", {}, {"signature": ""}, {"NO_SIGNATURE"}, LineStatus.INVALID),
    ],
)
def test_signer_rules(what, entry_kw, line_kw, codes, status):
    report = judge_one(line_kw=line_kw, entry_kw=entry_kw)
    line = report.lines[0]
    assert {f.code for f in line.findings} == codes, what
    assert line.status is status, what
    assert all(f.citation.endswith("subd. 1") for f in line.findings)


# -- subdivisions 1 and 2: the statement at the foot of the sheet -------------------------------

OLD = {"date": "10/05/2016"}  # witnessed before 2017-11-22: the older form


def _statement(form="witness", **kw):
    w = b.witness(count="1", **kw)
    return replace(w, form=form)


@pytest.mark.parametrize(
    "what,statement,filed,codes",
    [
        ("current form: name, residence, date, count, signature", _statement(), None, set()),
        (
            "current form does not ask for the village",
            replace(_statement(), village=None, county=None),
            None,
            set(),
        ),
        (
            "form until 2017-11-22 asks the village and county of residence",
            replace(_statement(**OLD), village=None, county=None),
            dt.date(2016, 10, 9),
            {"WITNESS_VILLAGE_MISSING", "WITNESS_COUNTY_MISSING"},
        ),
        (
            "notary's statement in lieu of the witness's (subd. 2)",
            _statement("notary"),
            None,
            set(),
        ),
        (
            "notary's statement without a date",
            _statement("notary", date=""),
            None,
            {"WITNESS_DATE_MISSING"},
        ),
        ("no statement at all", None, None, {"WITNESS_STATEMENT_MISSING"}),
    ],
)
def test_statement_at_the_foot(what, statement, filed, codes):
    c = case()
    if filed is not None:
        c = c.model_copy(update={"dates": c.dates.model_copy(update={"filed": filed})})
    sheet = b.sheet(
        (b.line(1, date="10/01/2016" if filed else "10/01/2026"),), witness_statement=statement
    )
    assert {f.code for f in nom.statement_at_the_foot(sheet, c)} == codes, what


def test_form_in_force_follows_the_day_the_sheet_was_witnessed():
    c = case()
    old = b.sheet(witness_statement=_statement(date="11/21/2017"))
    new = b.sheet(witness_statement=_statement(date="11/22/2017"))
    assert nom.witness_form_in_force(old, c) == "before-2017-11-22"
    assert nom.witness_form_in_force(new, c) == "from-2017-11-22"


# -- the petition's contents: committee (subd. 1) and the body's name (subd. 3) -------------


@pytest.mark.parametrize(
    "body_name,codes",
    [
        ("Lakeside Neighbors", set()),
        ("Green Valley Party", {"BODY_NAME_USES_PARTY_NAME"}),  # part of a party's name
        ("Citizens for WFP Values", {"BODY_NAME_USES_PARTY_NAME"}),  # an abbreviation
        ("Working Together", {"BODY_NAME_USES_PARTY_NAME"}),  # part of "Working Families"
        ("", {"BODY_NAME_MISSING"}),
    ],
)
def test_independent_body_name(body_name, codes):
    """Subd. 3: not 'the name or part of the name, or an abbreviation ... of a then existing
    party'; no name: the board of elections selects one."""
    assert {f.code for f in nom.independent_body_name([], case(body_name=body_name))} == codes


def test_parties_are_configurable():
    c = case(
        body_name="Lakeside Neighbors",
        existing_parties=[{"name": "Lakeside", "abbreviations": ["LKS"]}],
    )
    assert {f.code for f in nom.independent_body_name([], c)} == {"BODY_NAME_USES_PARTY_NAME"}


def test_committee_of_fewer_than_three_goes_to_a_person():
    c = case(committee=[{"name": "Ada One", "address": "1 Pine St"}, {"name": "Ben Two"}])
    codes = [f.code for f in nom.committee_to_fill_vacancies([], c)]
    assert sorted(codes) == ["COMMITTEE_ADDRESS_MISSING", "COMMITTEE_TOO_SMALL"]


def test_doubt_about_the_petition_itself_keeps_the_verdict_open():
    report = judge_one(case(body_name="Green Valley", population=2400))
    assert report.totals.valid == 1 and report.totals.required == 50
    assert report.verdict is Verdict.INSUFFICIENT  # 1 of 50 whatever a person decides
    small = case(body_name="Green Valley", population=999, voters_at_last_election=10)
    report = judge_one(small)
    assert report.totals.required == 1 and report.totals.valid == 1
    assert report.verdict is Verdict.UNDETERMINED
    assert "Green" in report.verdict_reason


def test_sheets_need_numbers_but_not_consecutive_ones():
    sheets = [b.sheet(n=1, page_n=1), b.sheet(n=3, page_n=3), b.sheet(n=None, page_n=4)]
    codes = [f.code for f in nom.sheets_numbered(sheets, case())]
    assert codes == ["SHEET_NUMBER_MISSING"]


def test_signature_field_from_ocr_is_still_a_signature():
    ln = b.line(1).replace_field(Field("signature", "[signed]", 0.8, Source.OCR))
    sh = b.sheet((ln,))
    report = judge(
        case(), RULES, [sh], {ln.line_id: b.match(ln.line_id, "NY1")}, {"NY1": b.entry()}, None
    )
    assert report.lines[0].status is LineStatus.VALID
    assert MatchDecision.MATCH is report.lines[0].match.decision


@pytest.mark.parametrize(
    "decision,entry_kw,flagged",
    [
        (MatchDecision.MATCH, {}, False),
        (MatchDecision.MATCH, {"town_city": "ELSEWHERE"}, True),  # not within the village
        (MatchDecision.MATCH, {"status": "P"}, True),
        (MatchDecision.NO_MATCH, {}, True),
        (MatchDecision.REVIEW, {}, True),
    ],
)
def test_committee_members_must_be_registered_voters_of_the_village(decision, entry_kw, flagged):
    """Subd. 1's form: 'at least three persons, all of whom shall be registered voters within
    such village'."""
    c = case()
    people = nom.committee_lines(c.section.committee[:1])
    match = b.match(people[0].line_id, "NY1" if decision is MatchDecision.MATCH else None, decision)
    found = list(nom.committee_registered(c, people, [match], {"NY1": b.entry(**entry_kw)}))
    assert [f.code for f in found] == (["COMMITTEE_MEMBER_NOT_VILLAGE_VOTER"] if flagged else [])
