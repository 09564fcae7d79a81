"""Every verdict is a proven bound, for every kind: `sufficient` only when no resolution of the
lines in review falls below the threshold, `insufficient` only when none reaches it.

Random cases (lines valid, in review with candidates, unmatched, unsigned, read with doubt;
random registers, rolls and denominators) are judged; then the lines in review are resolved at
random, as reviewers could (accept with the matched voter, accept a line whose signer is not
settled as any voter or owner on the register or roll, reject), and judged again. The second
verdict must agree with a decided first one. All people and parcels are invented.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from pipeline.judge import judge
from pipeline.records import (
    Candidate,
    Field,
    Holding,
    LineStatus,
    Match,
    MatchDecision,
    ReviewAction,
    ReviewDecision,
    Source,
    Verdict,
)
from pipeline.run import rules_for
from tests import builders as b

DATES = {"filed": dt.date(2026, 10, 9), "adopted": None, "previous_general_election": None}
DESIGNEES = [{"name": "Ada One", "address": "1 Pine St", "resides_in_territory": True}]
CASES = {
    "permissive_referendum": lambda: b.case(),
    "independent_nomination": lambda: b.case(
        kind="independent_nomination",
        dates=DATES,
        nomination={
            "election": dt.date(2027, 3, 16),
            "population": 900,
            "voters_at_last_election": 60,
            "body_name": "Lakeside Neighbors",
            "committee": [{"name": n, "address": "1 Pine St"} for n in ("A B", "C D", "E F")],
        },
    ),
    "incorporation_residents": lambda: b.case(
        kind="incorporation",
        dates=DATES,
        incorporation={
            "basis": "residents",
            "village_name": "Elmwood Falls",
            "population_alleged": 640,
            "designees": DESIGNEES,
            "territory_described": True,
            "inhabitants_listed": True,
        },
    ),
    "incorporation_owners": lambda: b.case(
        kind="incorporation",
        dates=DATES,
        incorporation={
            "basis": "owners",
            "roll": {"path": "roll.csv"},
            "village_name": "Elmwood Falls",
            "population_alleged": 640,
            "designees": DESIGNEES,
            "territory_described": True,
            "inhabitants_listed": True,
        },
    ),
    "improvement_district": lambda: b.case(
        kind="improvement_district",
        dates=DATES,
        district={
            "name": "Greenfield Sewer District No. 2 (synthetic)",
            "roll": {"path": "roll.csv"},
            "boundaries_described": True,
            "maximum_amount": 1_250_000,
        },
    ),
}
BUILT = {kind: make() for kind, make in CASES.items()}
OWNER_KINDS = {"incorporation_owners", "improvement_district"}
AT = dt.datetime(2026, 10, 12, 14, 0, tzinfo=dt.UTC)

# a line: (what the matcher said, which voter, the name read with doubt, signed)
LINE = st.tuples(
    st.sampled_from(["match", "match", "review", "no_match"]),
    st.integers(0, 7),
    st.integers(0, 4).map(lambda n: n == 0),
    st.integers(0, 9).map(lambda n: n > 0),  # mostly signed
)


def _line(i: int, signed: bool, doubtful: bool):
    ln = b.line(i, signature="Ann B Carter" if signed else "")
    ln = ln.replace_field(Field("valuation", "30,000", 1.0, Source.TEXT_LAYER))
    if doubtful:
        ln = ln.replace_field(Field("name", "Ann B Carter", 0.2, Source.OCR))
    return ln


def _match(line_id: str, said: str, voter: str, others: list[str]) -> Match:
    if said == "match":
        return b.match(line_id, voter)
    if said == "no_match":
        return b.match(line_id, None, MatchDecision.NO_MATCH)
    candidates = tuple(Candidate(v, 80.0, ()) for v in others[:2])
    return Match(line_id, MatchDecision.REVIEW, None, candidates, "test", "two close candidates")


@pytest.mark.parametrize("kind", sorted(CASES))
@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    spec=st.lists(LINE, min_size=1, max_size=10),
    electors=st.integers(1, 20),
    values=st.lists(st.integers(0, 100_000), min_size=8, max_size=8),
    flags=st.lists(st.tuples(st.booleans(), st.booleans()), min_size=8, max_size=8),
    data=st.data(),
)
def test_no_resolution_of_the_review_crosses_a_decided_verdict(
    kind, spec, electors, values, flags, data
):
    case = BUILT[kind]
    ids = [f"V{n}" for n in range(8)]
    register = {v: b.entry(v) for v in ids}
    holdings = ()
    if kind in OWNER_KINDS:
        holdings = tuple(
            Holding(
                f"p{n}",
                "Greenfield",
                Fraction(values[n]),
                (ids[n],),
                taxable=taxable,
                resident_owners=frozenset([ids[n]] if resident else []),
            )
            for n, (taxable, resident) in enumerate(flags)
        )
    lines = tuple(_line(i + 1, signed, doubtful) for i, (_, _, doubtful, signed) in enumerate(spec))
    matches = {
        ln.line_id: _match(ln.line_id, said, ids[v], ids[v + 1 :] + ids[:v])
        for ln, (said, v, _, _) in zip(lines, spec, strict=True)
    }
    statement = b.witness(count=str(sum(1 for *_, signed in spec if signed)))
    if kind.startswith("incorporation"):
        statement = replace(statement, form="affidavit")
    sheet = b.sheet(lines, witness_statement=statement)

    def run(decisions=None):
        return judge(
            case,
            rules_for(case),
            [sheet],
            matches,
            register,
            None if kind in OWNER_KINDS else electors,
            holdings=holdings,
            decisions=decisions,
        )

    first = run()
    event(f"{kind}: {first.verdict.value}")
    decisions = {}
    for j in first.lines:
        if j.status is not LineStatus.NEEDS_REVIEW:
            continue
        settled = j.voter_id and not any(f.code == "FIELD_LOW_CONFIDENCE" for f in j.findings)
        choice = data.draw(st.sampled_from(["reject", "accept", *([] if settled else ids)]))
        decisions[j.line.line_id] = ReviewDecision(
            j.line.line_id,
            ReviewAction.REJECT if choice == "reject" else ReviewAction.ACCEPT,
            "clerk@test",
            AT,
            voter_id=choice if choice in ids else None,
        )
    second = run(decisions)
    assert not any(j.status is LineStatus.NEEDS_REVIEW for j in second.lines)
    if first.verdict is not Verdict.UNDETERMINED:
        assert second.verdict is first.verdict, (
            kind,
            first.verdict_reason,
            second.verdict_reason,
        )


def test_a_review_line_may_be_an_owner_no_candidate_names():
    """The issue's case: the line in review is truly the owner of 10.001%, whom the matcher
    did not list; the best case credits the largest owner it could be, so no `insufficient`."""
    case = BUILT["improvement_district"]
    roll = (
        Holding("p1", "Greenfield", Fraction(40_000), ("O1",)),
        Holding("p2", "Greenfield", Fraction(10_001), ("O2",)),
        Holding("p3", "Greenfield", Fraction(1_000), ("O3",)),
        Holding("p4", "Greenfield", Fraction(48_999), ("O4",)),
    )
    lines = (_line(1, True, False), _line(2, True, False))
    matches = {
        lines[0].line_id: b.match(lines[0].line_id, "O1"),
        lines[1].line_id: _match(lines[1].line_id, "review", "", ["O3"]),
    }
    register = {o: b.entry(o) for o in ("O1", "O2", "O3", "O4")}
    sheet = b.sheet(lines, witness_statement=b.witness(count="2"))
    report = judge(case, rules_for(case), [sheet], matches, register, None, holdings=roll)
    assert report.verdict is Verdict.UNDETERMINED, report.verdict_reason
    resolved = {
        lines[1].line_id: ReviewDecision(
            lines[1].line_id, ReviewAction.ACCEPT, "clerk@test", AT, voter_id="O2"
        )
    }
    after = judge(
        case, rules_for(case), [sheet], matches, register, None, holdings=roll, decisions=resolved
    )
    assert after.verdict is Verdict.SUFFICIENT, after.verdict_reason
