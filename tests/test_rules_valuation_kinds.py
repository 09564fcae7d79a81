"""Village Law § 2-202 and Town Law § 191 through the judge: signers matched to owners on the
roll, the verdict from the valuation, the petition's contents."""

from __future__ import annotations

import datetime as dt
from fractions import Fraction as F

import pytest

from pipeline.judge import judge
from pipeline.records import Field, Holding, LineStatus, MatchDecision, Source, Verdict
from pipeline.rules import town_191, village_2202
from pipeline.run import rules_for
from tests import builders as b

DATES = {"filed": dt.date(2026, 10, 9), "adopted": None, "previous_general_election": None}
DISTRICT = {
    "name": "Greenfield Sewer District No. 2 (synthetic)",
    "roll": {"path": "roll.csv"},
    "boundaries_described": True,
    "maximum_amount": 1_250_000,
}
INCORPORATION = {
    "basis": "owners",
    "roll": {"path": "roll.csv"},
    "village_name": "Elmwood Falls",
    "population_alleged": 640,
    "designees": [
        {"name": "Ada One", "address": "1 Pine St", "resides_in_territory": True},
        {"name": "Ben Two", "address": "2 Pine St", "resides_in_territory": True},
        {"name": "Cy Three", "address": "9 Far Rd", "resides_in_territory": False},
    ],
    "territory_described": True,
    "inhabitants_listed": True,
}

ROLL = [
    Holding("p1", "Greenfield", F(60_000), ("O1",)),
    Holding("p2", "Greenfield", F(40_000), ("O2", "O3")),
    Holding("p3", "Greenfield", F(100_000), ("O4",), taxable=False),  # a church: exempt
]


def affidavit(count="1"):
    from dataclasses import replace

    return replace(b.witness(count=count), form="affidavit")


def run(case, owners, decisions=None, statement=None):
    """One sheet, one line per owner id (None: a signer not on the roll)."""
    # Each line states the valuation credited to its signer (2-202(1)(e)(3)).
    lines = tuple(
        b.line(i + 1).replace_field(Field("valuation", "30,000", 1.0, Source.TEXT_LAYER))
        for i in range(len(owners))
    )
    statement = statement or affidavit(str(len(lines)))
    sheet = b.sheet(lines, witness_statement=statement)
    matches = {}
    for ln, owner in zip(lines, owners, strict=True):
        decision = (decisions or {}).get(
            ln.line_no, MatchDecision.MATCH if owner else MatchDecision.NO_MATCH
        )
        matches[ln.line_id] = b.match(ln.line_id, owner, decision)
    register = {o: b.entry(o) for o in owners if o}
    return judge(case, rules_for(case), [sheet], matches, register, None, holdings=ROLL)


def district_case(**over):
    return b.case(kind="improvement_district", dates=DATES, district={**DISTRICT, **over})


def incorporation_case(**over):
    return b.case(kind="incorporation", dates=DATES, incorporation={**INCORPORATION, **over})


# -- Town Law § 191 ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "what,owners,review,verdict",
    [
        ("60% of the taxable valuation", ["O1"], {}, Verdict.SUFFICIENT),
        ("co-owners of 40% together", ["O2", "O3", None], {}, Verdict.INSUFFICIENT),
        ("a co-owner alone: 20%", ["O2"], {}, Verdict.INSUFFICIENT),
        ("the exempt owner adds nothing", ["O2", "O4"], {}, Verdict.INSUFFICIENT),
        (
            "the deciding owner is in review",
            ["O1"],
            {1: MatchDecision.REVIEW},
            Verdict.UNDETERMINED,
        ),
    ],
)
def test_district_verdict_from_the_valuation(what, owners, review, verdict):
    report = run(district_case(), owners, review)
    assert report.verdict is verdict, (what, report.verdict_reason)
    assert report.valuation is not None and report.valuation.citation == "Town Law § 191"


def test_exactly_half_is_enough_for_191():
    roll_half = [
        Holding("a", "Greenfield", F(50), ("A",)),
        Holding("b", "Greenfield", F(50), ("B",)),
    ]
    result = town_191.RULES.valuation(roll_half, {"A"})
    assert result.met


def test_signer_not_on_the_roll_is_invalid():
    report = run(district_case(), ["O1", None])
    assert [j.status for j in report.lines] == [LineStatus.VALID, LineStatus.INVALID]
    assert "SIGNER_NOT_OWNER" in {f.code for f in report.lines[1].findings}


@pytest.mark.parametrize(
    "over,code",
    [
        ({"boundaries_described": False}, "BOUNDARIES_NOT_DESCRIBED"),
        ({"maximum_amount": None}, "MAXIMUM_AMOUNT_MISSING"),
    ],
)
def test_district_petition_contents(over, code):
    """191: 'shall describe the boundaries'; 'shall state the maximum amount'."""
    report = run(district_case(**over), ["O1"])
    assert code in {f.code for f in report.findings}
    assert report.verdict is Verdict.INSUFFICIENT


def test_services_only_petition_need_not_state_a_maximum():
    report = run(district_case(requests_improvement=False, maximum_amount=None), ["O1"])
    assert report.verdict is Verdict.SUFFICIENT


# -- Village Law § 2-202 (seed text) ---------------------------------------------------------


def test_owners_need_more_than_half_of_all_real_property():
    """(1)(a)(2): 'more than fifty percent in assessed valuation of the real property': the
    exempt parcel counts here (200,000 in all), so O1 + O4 (160,000) suffice, O1 alone not."""
    assert run(incorporation_case(), ["O1", "O4"]).verdict is Verdict.SUFFICIENT
    assert run(incorporation_case(), ["O1"]).verdict is Verdict.INSUFFICIENT


@pytest.mark.parametrize(
    "over,code",
    [
        ({"village_name": ""}, "VILLAGE_NAME_MISSING"),
        ({"population_alleged": 499}, "POPULATION_BELOW_MINIMUM"),  # (b)(3): at least 500
        ({"designees": []}, "DESIGNEES_COUNT"),
        ({"territory_described": False}, "TERRITORY_NOT_DESCRIBED"),
        ({"inhabitants_listed": False}, "INHABITANTS_NOT_LISTED"),
        (
            {
                "designees": [
                    {"name": "A", "address": "1 Pine", "resides_in_territory": False},
                    {"name": "B", "address": "2 Pine", "resides_in_territory": True},
                ]
            },
            "DESIGNEES_NOT_MAJORITY_RESIDENT",
        ),
    ],
)
def test_incorporation_contents(over, code):
    found = {f.code for f in village_2202.petition_contents([], incorporation_case(**over))}
    assert code in found


def test_population_of_exactly_500_is_enough():
    found = {
        f.code
        for f in village_2202.petition_contents([], incorporation_case(population_alleged=500))
    }
    assert "POPULATION_BELOW_MINIMUM" not in found


def test_designees_unknown_residence_goes_to_a_person():
    c = incorporation_case(
        designees=[
            {"name": "A", "address": "1 Pine", "resides_in_territory": True},
            {"name": "B", "address": "2 Pine"},
        ]
    )
    found = [f for f in village_2202.petition_contents([], c)]
    assert [(f.code, f.severity.value) for f in found] == [
        ("DESIGNEES_NOT_MAJORITY_RESIDENT", "review")
    ]


def test_each_signature_page_needs_the_authenticating_affidavit():
    """(1)(e)(4): 'an authenticating affidavit of a witness' at the bottom of each page."""
    report = run(incorporation_case(), ["O1", "O4"], statement=b.witness(count="2"))
    assert "WITNESS_STATEMENT_MISSING" in {f.code for f in report.findings}
    assert all(j.status is LineStatus.INVALID for j in report.lines)


@pytest.mark.parametrize("residents,required", [(100, 20), (101, 21), (5, 1)])
def test_residents_group_needs_twenty_percent(residents, required):
    """(1)(a)(1): 'At least twenty per cent of the residents ... qualified to vote'."""
    c = incorporation_case(basis="residents")
    assert rules_for(c).valuation is None
    assert village_2202.residents_threshold(c, residents).required == required


def test_valuation_reaches_the_report(tmp_path):
    import json

    from pipeline.report import write_report

    report = run(district_case(), ["O1", "O2"])
    paths = write_report(report, tmp_path)
    doc = json.loads(paths["json"].read_text())
    assert doc["valuation"]["met"] is True
    assert [p["label"] for p in doc["valuation"]["parts"]] == ["all taxable property"]
    assert doc["valuation"]["parts"][0]["share"] == pytest.approx(0.8)
    assert "Town Law § 191" in paths["html"].read_text()


def test_an_owner_line_without_its_valuation_goes_to_a_person():
    """2-202(1)(e)(3): 'the amount of assessed valuation ... as credited to him'."""
    c = incorporation_case()
    ln = b.line(1)
    sheet = b.sheet((ln,), witness_statement=affidavit("1"))
    report = judge(
        c,
        rules_for(c),
        [sheet],
        {ln.line_id: b.match(ln.line_id, "O1")},
        {"O1": b.entry("O1")},
        None,
        holdings=ROLL,
    )
    assert report.lines[0].status is LineStatus.NEEDS_REVIEW
    assert [f.code for f in report.lines[0].findings] == ["VALUATION_NOT_STATED"]
