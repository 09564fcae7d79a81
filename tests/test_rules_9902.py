"""Village Law § 9-902, rule by rule, table-driven. Each case names the clause it tests."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

import pytest

from pipeline.judge import judge
from pipeline.records import Field, LineStatus, MatchDecision, Severity, Source, Verdict
from pipeline.rules import village_9902 as r9902
from tests import builders as b

RULES = r9902.RULES
D = dt.date


def judge_one(line_kw=None, entry_kw=None, decision=MatchDecision.MATCH, case=None, sheet_kw=None):
    ln = b.line(1, **(line_kw or {}))
    sh = b.sheet((ln,), **(sheet_kw or {}))
    e = b.entry("NY1", **(entry_kw or {}))
    m = b.match(ln.line_id, "NY1" if decision is MatchDecision.MATCH else None, decision)
    report = judge(case or b.case(), RULES, [sh], {ln.line_id: m}, {"NY1": e}, 5)
    return report.lines[0], report


# (what, clause, line overrides, register entry overrides, match decision, codes, status)
LINE_CASES = [
    (
        "a complete line by an active elector",
        "9-902(1),(8)",
        {},
        {},
        MatchDecision.MATCH,
        set(),
        LineStatus.VALID,
    ),
    (
        "an inactive voter is still registered",
        "9-902(1)",
        {},
        {"status": "I"},
        MatchDecision.MATCH,
        {"SIGNER_INACTIVE"},
        LineStatus.VALID,
    ),
    (
        "no elector matches the signer",
        "9-902(1) 'signed ... by electors of the village'",
        {},
        {},
        MatchDecision.NO_MATCH,
        {"SIGNER_NOT_REGISTERED"},
        LineStatus.INVALID,
    ),
    (
        "the match is doubtful: a person decides",
        "9-902(1)",
        {},
        {},
        MatchDecision.REVIEW,
        {"MATCH_UNCERTAIN"},
        LineStatus.NEEDS_REVIEW,
    ),
    (
        "purged before signing",
        "9-902(1)",
        {},
        {"status": "P", "purge_date": dt.date(2026, 5, 1), "reason_code": "MOVED"},
        MatchDecision.MATCH,
        {"SIGNER_PURGED"},
        LineStatus.INVALID,
    ),
    (
        "purged after signing: was an elector when signing",
        "9-902(1)",
        {},
        {"status": "P", "purge_date": dt.date(2026, 10, 5)},
        MatchDecision.MATCH,
        set(),
        LineStatus.VALID,
    ),
    (
        "purged with no purge date: a person decides",
        "9-902(1)",
        {},
        {"status": "P"},
        MatchDecision.MATCH,
        {"SIGNER_PURGED"},
        LineStatus.NEEDS_REVIEW,
    ),
    (
        "a pre-registered 17-year-old is not an elector",
        "9-902(1)",
        {},
        {"status": "17"},
        MatchDecision.MATCH,
        {"SIGNER_NOT_ELECTOR"},
        LineStatus.INVALID,
    ),
    (
        "registered in another town",
        "9-902(1) 'electors of the village'",
        {},
        {"town_city": "OTHERTOWN"},
        MatchDecision.MATCH,
        {"SIGNER_OUTSIDE_VILLAGE"},
        LineStatus.INVALID,
    ),
    (
        "registered after signing: a person decides",
        "9-902(1)",
        {},
        {"registration_date": dt.date(2026, 10, 2)},
        MatchDecision.MATCH,
        {"SIGNER_REGISTERED_AFTER_SIGNING"},
        LineStatus.NEEDS_REVIEW,
    ),
    (
        "signature cell empty",
        "9-902(8) 'containing the signatures'",
        {"signature": ""},
        {},
        MatchDecision.MATCH,
        {"NO_SIGNATURE"},
        LineStatus.INVALID,
    ),
    (
        "undated",
        "9-902(8) 'the correct date of signing'",
        {"date": ""},
        {},
        MatchDecision.MATCH,
        {"LINE_UNDATED"},
        LineStatus.INVALID,
    ),
    (
        "unreadable date: a person decides",
        "9-902(8)",
        {"date": "10/4?"},
        {},
        MatchDecision.MATCH,
        {"DATE_UNREADABLE"},
        LineStatus.NEEDS_REVIEW,
    ),
    (
        "dated after the filing",
        "9-902(8)",
        {"date": "10/10/2026"},
        {},
        MatchDecision.MATCH,
        {"DATE_AFTER_FILING", "DATE_AFTER_WITNESS_DATE"},
        LineStatus.INVALID,
    ),
    (
        "dated before the act was adopted: a person decides",
        "9-902(8)",
        {"date": "9/13/26"},
        {},
        MatchDecision.MATCH,
        {"DATE_BEFORE_ADOPTION"},
        LineStatus.NEEDS_REVIEW,
    ),
    (
        "dated after the witness signed: a person decides",
        "9-902(8) Statement of Witness",
        {"date": "10/07/2026"},
        {},
        MatchDecision.MATCH,
        {"DATE_AFTER_WITNESS_DATE"},
        LineStatus.NEEDS_REVIEW,
    ),
    (
        "no residence",
        "9-902(8) 'his present residence'",
        {"residence": ""},
        {},
        MatchDecision.MATCH,
        {"RESIDENCE_MISSING"},
        LineStatus.INVALID,
    ),
]


@pytest.mark.parametrize(
    "what,clause,line_kw,entry_kw,decision,codes,status",
    LINE_CASES,
    ids=[c[0] for c in LINE_CASES],
)
def test_line_rules(what, clause, line_kw, entry_kw, decision, codes, status):
    judged, _ = judge_one(line_kw, entry_kw, decision)
    assert {f.code for f in judged.findings} == codes, clause
    assert judged.status is status, clause
    for f in judged.findings:
        assert f.citation.startswith("Village Law § 9-902("), f


def test_dated_on_the_filing_day_is_in_time():
    """9-902(8): a line dated the day the petition is filed is not after the filing."""
    judged, _ = judge_one(
        {"date": "10/9/2026"}, sheet_kw={"witness_statement": b.witness(date="10/09/2026")}
    )
    assert judged.status is LineStatus.VALID, judged.findings


def test_election_district_asked_only_where_the_village_has_them():
    """9-902(8): 'the ward if any and the village election district if any'."""
    without = b.case()
    with_eds = b.case(municipality={"election_districts": ["2"]})
    judged, _ = judge_one({"election_district": ""}, case=without)
    assert judged.status is LineStatus.VALID
    judged, _ = judge_one({"election_district": ""}, case=with_eds)
    assert {f.code for f in judged.findings} == {"ELECTION_DISTRICT_MISSING"}
    judged, _ = judge_one({}, {"election_district": "7"}, case=with_eds)
    assert {f.code for f in judged.findings} == {"SIGNER_OUTSIDE_VILLAGE"}


# -- 9-902(1): filed within thirty days after adoption ------------------------------------------


@pytest.mark.parametrize(
    "days,late",
    [(0, False), (29, False), (30, False), (31, True), (45, True)],
)
def test_filed_within_thirty_days(days, late):
    """9-902(1): 'within thirty days after its adoption'; the day of adoption not counted."""
    adopted = dt.date(2026, 9, 1)
    c = b.case(dates={"adopted": adopted, "filed": adopted + dt.timedelta(days=days)})
    codes = {f.code for f in r9902.filed_within_thirty_days([], c)}
    assert codes == ({"PETITION_FILED_LATE"} if late else set())


# General Construction Law § 25-a: "When any period of time, computed from a certain day, within
# which ... an act is authorized or required to be done, ends on a Saturday, Sunday or a public
# holiday, such act may be done on the next succeeding business day". (adopted, filed, code,
# what the thirtieth day was).
LATE, TIMELY = "PETITION_FILED_LATE", "FILED_ON_NEXT_BUSINESS_DAY"
EXTENDED_FILINGS = [
    pytest.param(D(2026, 9, 14), D(2026, 10, 14), None, None, id="weekday-30th"),
    pytest.param(D(2026, 9, 14), D(2026, 10, 15), LATE, None, id="weekday-31st"),
    pytest.param(D(2026, 4, 30), D(2026, 6, 1), TIMELY, "a Saturday", id="saturday"),
    pytest.param(D(2026, 5, 1), D(2026, 6, 1), TIMELY, "a Sunday", id="sunday"),
    pytest.param(D(2026, 4, 25), D(2026, 5, 26), TIMELY, "Memorial day", id="memorial-day"),
    pytest.param(
        D(2027, 6, 5),
        D(2027, 7, 6),
        TIMELY,
        "Independence day (2027-07-04 being a Sunday)",
        id="sunday-holiday-moved-to-monday",
    ),
    # July 4, 2026 is a Saturday and is not moved: a 30th day on Friday the 3rd is not extended
    pytest.param(D(2026, 6, 3), D(2026, 7, 3), None, None, id="july-3-2026-is-a-business-day"),
    pytest.param(D(2026, 6, 3), D(2026, 7, 6), LATE, None, id="july-3-2026-then-late"),
    pytest.param(D(2026, 6, 4), D(2026, 7, 6), TIMELY, "a Saturday", id="july-4-sat"),
    # the day after the extended day is late
    pytest.param(D(2026, 5, 1), D(2026, 6, 2), LATE, "a Sunday", id="late"),
    pytest.param(D(2026, 4, 25), D(2026, 5, 27), LATE, "Memorial day", id="late-holiday"),
]


@pytest.mark.parametrize("adopted,filed,code,closed", EXTENDED_FILINGS)
def test_a_thirtieth_day_on_a_saturday_sunday_or_holiday(adopted, filed, code, closed):
    """9-902(1) "within thirty days after its adoption", General Construction Law § 25-a."""
    c = b.case(dates={"adopted": adopted, "filed": filed})
    found = list(r9902.filed_within_thirty_days([], c))
    assert [f.code for f in found] == ([code] if code else [])
    for f in found:
        assert f.evidence["thirtieth_day"] == (adopted + dt.timedelta(days=30)).isoformat()
        assert (closed is not None) is ("General Construction Law § 25-a" in f.message)
        if closed:
            assert f"was {closed}" in f.message or f"is {closed}" in f.message
        if code == TIMELY:
            assert f.severity is Severity.NOTE and f.evidence["last_day"] == filed.isoformat()


def test_the_issue_case_is_timely_and_the_report_says_why():
    """Adopted Friday 2026-05-01, filed Monday 2026-06-01: the thirtieth day is a Sunday."""
    c = b.case(dates={"adopted": D(2026, 5, 1), "filed": D(2026, 6, 1)})
    judged, report = judge_one(
        {"date": "05/20/2026"}, case=c, sheet_kw={"witness_statement": b.witness(date="05/21/2026")}
    )
    assert judged.status is LineStatus.VALID, judged.findings
    notes = {f.code: f for f in report.findings}
    assert "PETITION_FILED_LATE" not in notes
    assert notes["FILED_ON_NEXT_BUSINESS_DAY"].message == (
        "the thirtieth day, 2026-05-31, was a Sunday; filing on the next business day, "
        "2026-06-01, is timely (General Construction Law § 25-a)"
    )
    assert report.verdict is Verdict.SUFFICIENT
    late = b.case(dates={"adopted": D(2026, 5, 1), "filed": D(2026, 6, 2)})
    (f,) = r9902.filed_within_thirty_days([], late)
    assert f.message == (
        "filed 32 days after the act or resolution was adopted (2026-05-01); the statute allows "
        "thirty; the thirtieth day, 2026-05-31, is a Sunday; the last day is the next business "
        "day, 2026-06-01 (General Construction Law § 25-a)"
    )


def test_a_proclaimed_holiday_from_the_case_file_extends_the_thirtieth_day():
    """§ 24: "each day appointed by ... the governor"; the case file's [dates] extra_holidays."""
    dates = {"adopted": D(2026, 9, 14), "filed": D(2026, 10, 15)}
    assert [f.code for f in r9902.filed_within_thirty_days([], b.case(dates=dates))] == [
        "PETITION_FILED_LATE"
    ]
    proclaimed = b.case(dates={**dates, "extra_holidays": [D(2026, 10, 14)]})
    assert [f.code for f in r9902.filed_within_thirty_days([], proclaimed)] == [
        "FILED_ON_NEXT_BUSINESS_DAY"
    ]


def test_late_filing_makes_the_petition_insufficient_whatever_the_count():
    c = b.case(dates={"adopted": dt.date(2026, 8, 1), "filed": dt.date(2026, 10, 9)})
    _, report = judge_one({"date": "10/01/2026"}, case=c)
    assert report.verdict is Verdict.INSUFFICIENT
    assert "PETITION_FILED_LATE" in {f.code for f in report.findings}


# -- 9-902(1): the threshold ------------------------------------------------------------------


@pytest.mark.parametrize(
    "electors,required",
    [(1, 1), (4, 1), (5, 1), (6, 2), (100, 20), (101, 21), (104, 21), (105, 21), (106, 22)],
)
def test_threshold_is_at_least_twenty_percent(electors, required):
    """9-902(1): 'at least twenty per centum of such electors'."""
    t = r9902.threshold(b.case(), electors)
    assert t.required == required
    assert required * 5 >= electors and (required - 1) * 5 < electors
    assert "9-902(1)" in t.rule


# -- 9-902(8): sheets numbered consecutively from one -------------------------------------------


@pytest.mark.parametrize(
    "numbers,codes",
    [
        ([1, 2, 3], set()),
        ([1, 3], {"SHEET_NUMBERING_GAP"}),
        ([2, 3], {"SHEET_NUMBERING_GAP"}),
        ([1, 2, 2], {"SHEET_NUMBER_DUPLICATE"}),
        ([1, None, 3], {"SHEET_NUMBER_MISSING", "SHEET_NUMBERING_GAP"}),
    ],
)
def test_sheets_numbered_consecutively(numbers, codes):
    """9-902(8): 'numbered consecutively beginning with number one at the foot of each sheet'."""
    sheets = [b.sheet(n=n, page_n=i + 1) for i, n in enumerate(numbers)]
    found = list(r9902.sheets_numbered_consecutively(sheets, b.case()))
    assert {f.code for f in found} == codes


def test_unnumbered_sheet_sends_its_lines_to_review():
    ln = b.line(1)
    sh = b.sheet((ln,), n=None, page_n=1)
    report = judge(
        b.case(), RULES, [sh], {ln.line_id: b.match(ln.line_id, "NY1")}, {"NY1": b.entry()}, 5
    )
    assert report.lines[0].status is LineStatus.NEEDS_REVIEW
    assert "SHEET_NUMBER_MISSING" in {f.code for f in report.lines[0].findings}


# -- 9-902(8): the statement of witness ---------------------------------------------------------

WITNESS_CASES = [
    ("complete, count right", b.witness(count="2"), set(), LineStatus.VALID),
    ("missing", None, {"WITNESS_STATEMENT_MISSING"}, LineStatus.INVALID),
    ("not signed", b.witness(count="2", signature=""), {"WITNESS_NOT_SIGNED"}, LineStatus.INVALID),
    ("count differs", b.witness(count="3"), {"WITNESS_COUNT_MISMATCH"}, LineStatus.NEEDS_REVIEW),
    (
        "count blank",
        b.witness(count=".........."),
        {"WITNESS_COUNT_MISSING"},
        LineStatus.NEEDS_REVIEW,
    ),
    (
        "no residence",
        b.witness(count="2", residence=""),
        {"WITNESS_RESIDENCE_MISSING"},
        LineStatus.NEEDS_REVIEW,
    ),
    ("no name", b.witness(count="2", name=""), {"WITNESS_NAME_MISSING"}, LineStatus.NEEDS_REVIEW),
    ("undated", b.witness(count="2", date=""), {"WITNESS_DATE_MISSING"}, LineStatus.NEEDS_REVIEW),
    (
        "lives in another village",
        replace(
            b.witness(count="2"), village=Field("village", "Harrow Glen", 1.0, Source.TEXT_LAYER)
        ),
        {"WITNESS_NOT_OF_VILLAGE"},
        LineStatus.NEEDS_REVIEW,
    ),
    (
        "its village with a letter OCR confuses",  # an I for the l of Testville, as scans read
        replace(b.witness(count="2"), village=Field("village", "TestviIle.", 0.7, Source.OCR)),
        set(),
        LineStatus.VALID,
    ),
    (
        "its village read with a letter more",  # "Eilmwood Falls" for Elmwood Falls
        replace(b.witness(count="2"), village=Field("village", "Testvillle", 0.6, Source.OCR)),
        set(),
        LineStatus.VALID,
    ),
    (
        "another village a letter off, typed",  # a text layer's word is what was written
        replace(b.witness(count="2"), village=Field("village", "Testvile", 1.0, Source.TEXT_LAYER)),
        {"WITNESS_NOT_OF_VILLAGE"},
        LineStatus.NEEDS_REVIEW,
    ),
]


@pytest.mark.parametrize(
    "what,statement,codes,status", WITNESS_CASES, ids=[c[0] for c in WITNESS_CASES]
)
def test_witness_statement(what, statement, codes, status):
    """9-902(8), Statement of Witness; a sheet's defect cascades onto each of its lines."""
    lines = (b.line(1), b.line(2, name="Bo Dent", signature="Bo Dent"), b.line(3, blank=True))
    sh = b.sheet(lines, witness_statement=statement)
    assert {f.code for f in r9902.witness_statement(sh, b.case())} == codes
    matches = {ln.line_id: b.match(ln.line_id, f"NY{ln.line_no}") for ln in lines[:2]}
    register = {"NY1": b.entry("NY1"), "NY2": b.entry("NY2", first_name="BO", last_name="DENT")}
    report = judge(b.case(), RULES, [sh], matches, register, 5)
    filled = [j for j in report.lines if not j.line.blank]
    assert all(j.status is status for j in filled)
    for j in filled:  # each line says why it fell or waits
        assert codes <= {f.code for f in j.findings}
    assert report.lines[2].status is LineStatus.BLANK


def test_every_finding_has_a_statute_citation_and_a_known_severity():
    lines = (b.line(1, date=""), b.line(2, signature=""))
    sh = b.sheet(lines, n=2, witness_statement=b.witness(count="5"))
    report = judge(b.case(), RULES, [sh], {}, {}, 5)
    all_findings = [f for j in report.lines for f in j.findings] + list(report.findings)
    assert all_findings
    for f in all_findings:
        assert "9-902" in f.citation and f.severity in Severity


# -- 9-902(5), (6) and (9): what happens after the filing ---------------------------------------


def test_objection_window_and_where_the_proposition_goes_are_reported():
    """9-902(9): objections within five days; 9-902(5): filed in October, a special election
    10 to 60 days after the filing (the next general village election, 2027-03-16, is later)."""
    _, report = judge_one()
    notes = {f.code: f for f in report.findings if f.severity is Severity.NOTE}
    assert notes["OBJECTION_WINDOW"].evidence["last_day"] == "2026-10-14"
    assert notes["OBJECTION_WINDOW"].citation == "Village Law § 9-902(9)"
    goes = notes["PROPOSITION_ELECTION"]
    assert goes.citation == "Village Law § 9-902(5)" and goes.evidence["kind"] == "special"
    assert goes.evidence["next_general_election"] == "2027-03-16"
    assert report.verdict is Verdict.SUFFICIENT  # notes change nothing


@pytest.mark.parametrize(
    "filed,last_day,closed",
    [
        (D(2026, 10, 9), D(2026, 10, 14), None),  # the fifth day a Wednesday
        (D(2026, 10, 12), D(2026, 10, 19), "a Saturday"),
        (D(2026, 5, 26), D(2026, 6, 1), "a Sunday"),
        (D(2026, 5, 20), D(2026, 5, 26), "Memorial day, a public holiday"),
        (D(2027, 6, 30), D(2027, 7, 6), "Independence day (2027-07-04 being a Sunday)"),
        (D(2026, 6, 28), D(2026, 7, 3), None),  # July 4, 2026 a Saturday: the Friday stays
        (D(2026, 6, 29), D(2026, 7, 6), "a Saturday"),
    ],
)
def test_objection_window_on_a_saturday_sunday_or_holiday(filed, last_day, closed):
    """9-902(9) "within five days after the filing", General Construction Law § 25-a."""
    c = b.case(dates={"adopted": filed - dt.timedelta(days=20), "filed": filed})
    (note,) = [f for f in r9902.what_happens_next([], c) if f.code == "OBJECTION_WINDOW"]
    assert note.evidence["fifth_day"] == (filed + dt.timedelta(days=5)).isoformat()
    assert note.evidence["last_day"] == last_day.isoformat()
    assert f"until {last_day.isoformat()} (" in note.message
    assert ("General Construction Law § 25-a" in note.message) is (closed is not None)
    if closed:
        assert f"is {closed}" in note.message


def test_filed_in_january_goes_to_the_general_village_election():
    """9-902(6): filed on or after the first day of the month two months before the election's
    month: submitted at the general village election (2027: the third Tuesday, 16 March)."""
    c = b.case(
        dates={
            "adopted": dt.date(2026, 12, 20),
            "filed": dt.date(2027, 1, 8),
            "previous_general_election": dt.date(2026, 3, 18),
        }
    )
    findings = {f.code: f for f in r9902.what_happens_next([], c)}
    assert findings["PROPOSITION_ELECTION"].evidence["kind"] == "general"
    assert findings["PROPOSITION_ELECTION"].evidence["earliest"] == "2027-03-16"


# -- who lives in the village: a street-range table ---------------------------------------------

STREETS = [
    {"street": "Main Street", "low": 1, "high": 199},
    {"street": "N Maple Ave", "low": 2, "high": 98, "side": "even"},
    {"street": "Mill Rd"},  # the whole street
]


@pytest.mark.parametrize(
    "house,street,pre,inside",
    [
        ("12", "MAIN ST", "", True),
        ("199", "Main St", "", True),
        ("201", "MAIN ST", "", False),  # past the range
        ("14", "MAPLE AVE", "N", True),
        ("15", "MAPLE AVE", "N", False),  # the odd side is another municipality
        ("14", "MAPLE AVE", "S", False),  # South Maple is another street
        ("", "MILL RD", "", True),  # the whole street: no number needed
        ("", "MAIN ST", "", False),  # a range needs the number
        ("7", "ELM ST", "", False),
    ],
)
def test_village_by_street_ranges(house, street, pre, inside):
    """The state export has no village column: a case may give the village by street ranges."""
    from pipeline.rules.electors import in_village

    c = b.case(municipality={"streets": STREETS})
    e = b.entry(house_number=house, street_name=street, pre_direction=pre)
    assert in_village(e, c.municipality) is inside
