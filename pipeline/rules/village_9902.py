"""Village Law § 9-902: the petition for a permissive referendum on an act or resolution.

One rule, one function, its clause beside it. Text quoted from ../shared/statutes/
village-law-9-902-referendum-petition.txt. Where the statute does not say what a defect does
(a wrong witness count, a misnumbered sheet), the rule sends the line or sheet to a person
(severity REVIEW) instead of deciding: that is a question for the clerk or the court, not for us.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ..election_calendar import (
    filing_deadline,
    general_village_election,
    objection_deadline,
    proposition_election,
    referendum_filing_window,
)
from ..forms import WITNESS
from ..holidays import CITE_25A
from ..records import Finding, Severity, Sheet
from .base import Dated, KindSpec, LineContext, RuleSet, SignatureCount, SigningStart, finding
from .common import (
    check_dated,
    check_has_residence,
    check_sheet_numbers,
    check_signed,
    check_signer_registered,
    check_table_read,
    check_witness_lives_in_village,
    check_witness_statement,
    signing_from_the_case,
)

if TYPE_CHECKING:
    from ..case import CaseConfig

__all__ = ["RULES", "SPEC", "STATUTE"]

STATUTE = "Village Law § 9-902"
SUBD_1 = f"{STATUTE}(1)"
SUBD_8 = f"{STATUTE}(8)"

FATAL, REVIEW, NOTE = Severity.FATAL, Severity.REVIEW, Severity.NOTE
STATEMENTS = (WITNESS,)  # 9-902(8)'s "Statement of Witness"


def _adopted(case: CaseConfig) -> dt.date:
    """dates.adopted; the case file's validation requires it for this kind."""
    if case.dates.adopted is None:
        raise ValueError("a 9-902 case needs dates.adopted")
    return case.dates.adopted


# -- subdivision 1 -----------------------------------------------------------------------------


def threshold(case: CaseConfig, electors: int | None) -> SignatureCount:
    """9-902(1): "signed ... by electors of the village in number equal to at least twenty per
    centum of such electors in the village, as shown on the register of electors for the
    previous general village election". At least 20%: ceil(electors / 5), in integers."""
    if electors is None:
        raise ValueError("9-902 needs the count of electors on the previous election's register")
    required = (electors + 4) // 5
    return SignatureCount(
        required=required,
        denominator=electors,
        rule=(
            f"at least 20% of the {electors} electors on the register for the general village "
            f"election of {case.denominator_as_of.isoformat()}: "
            f"ceil({electors} x 0.20) = {required} ({SUBD_1})"
        ),
    )


def filed_within_thirty_days(sheets: Sequence[Sheet], case: CaseConfig) -> Iterable[Finding]:
    """9-902(1): the act "shall not take effect until ... approved by ... the qualified electors
    ... if within thirty days after its adoption there be filed with the village clerk a
    petition". The day of adoption is not counted (General Construction Law § 20): a petition
    filed on the 30th day after adoption is in time, on the 31st it is not, unless the 30th is a
    Saturday, Sunday or public holiday: then "such act may be done on the next succeeding
    business day" (General Construction Law § 25-a), and the report says so when that decides."""
    adopted = _adopted(case)
    filed = case.dates.filed
    deadline = filing_deadline(adopted, case.dates.holidays)
    days = (filed - adopted).days
    evidence: dict[str, Any] = {
        "adopted": adopted.isoformat(),
        "filed": filed.isoformat(),
        "days": days,
        "thirtieth_day": deadline.counted.isoformat(),
        "last_day": deadline.last_day.isoformat(),
    }
    if not deadline.allows(filed):
        extended = deadline.extension("the thirtieth day")
        yield finding(
            "PETITION_FILED_LATE",
            FATAL,
            SUBD_1,
            f"filed {days} days after the act or resolution was adopted "
            f"({adopted.isoformat()}); the statute allows thirty"
            + (f"; {extended}" if extended else ""),
            **evidence,
        )
    elif deadline.decided(filed):
        yield finding(
            "FILED_ON_NEXT_BUSINESS_DAY",
            NOTE,
            f"{SUBD_1}; {CITE_25A}",
            deadline.timely("the thirtieth day", "filing", filed),
            **evidence,
        )


def next_general_election(case: CaseConfig) -> dt.date:
    """The next general village election on or after the filing (Village Law § 15-104(1))."""
    if case.dates.next_general_election is not None:
        return case.dates.next_general_election
    filed = case.dates.filed
    election = general_village_election(filed.year)
    return election if election >= filed else general_village_election(filed.year + 1)


def what_happens_next(sheets: Sequence[Sheet], case: CaseConfig) -> Iterable[Finding]:
    """For the clerk's calendar, not a defect: 9-902(9), written objections "within five days
    after the filing" (to the next business day when the fifth is a Saturday, Sunday or public
    holiday, General Construction Law § 25-a); 9-902(5)-(6), where the proposition is submitted
    (not extended: pipeline/election_calendar.py says why)."""
    filed = case.dates.filed
    deadline = objection_deadline(filed, case.dates.holidays)
    extended = deadline.extension("the fifth day")
    yield finding(
        "OBJECTION_WINDOW",
        NOTE,
        f"{STATUTE}(9)",
        f"written objections may be filed with the village clerk until "
        f"{deadline.last_day.isoformat()} (within five days after the filing)"
        + (f"; {extended}" if extended else ""),
        filed=filed.isoformat(),
        fifth_day=deadline.counted.isoformat(),
        last_day=deadline.last_day.isoformat(),
    )
    election = next_general_election(case)
    goes = proposition_election(filed, election)
    yield finding(
        "PROPOSITION_ELECTION",
        NOTE,
        goes.citation,
        f"if the petition is sufficient, the proposition is {goes.explanation}",
        kind=goes.kind,
        earliest=goes.earliest.isoformat(),
        latest=goes.latest.isoformat(),
        next_general_election=election.isoformat(),
    )


def signer_is_elector_of_village(ctx: LineContext) -> Iterable[Finding]:
    """9-902(1) and (8): the petition is "signed and acknowledged by electors of the village",
    "containing the signatures of qualified electors of the village". The statute does not say
    "at the time of signing", so a registration dated after the signature goes to a person."""
    yield from check_signer_registered(ctx, SUBD_1, registered_after_signing=REVIEW)


# -- subdivision 8: the sheets and the lines -----------------------------------------------------


def line_is_signed(ctx: LineContext) -> Iterable[Finding]:
    """9-902(8): "Petition shall be made upon white paper containing the signatures of qualified
    electors"; "Each sheet ... shall be signed in ink"."""
    yield from check_signed(ctx, SUBD_8)


def line_is_dated(ctx: LineContext) -> Iterable[Finding]:
    """9-902(8): "Such petition must set forth in every instance the correct date of signing".
    A date after the filing cannot be a correct date of signing, nor one after the witness
    dated the statement; a date before the act was adopted is doubtful (a protest of an act not
    yet adopted) and goes to a person."""
    yield from check_dated(ctx, SUBD_8)


def signing_start(case: CaseConfig) -> SigningStart:
    """9-902(1): the petition protests an act or resolution "within thirty days after its
    adoption": a line dated before the adoption is doubtful (a protest of an act not yet
    adopted) and goes to a person (the statute does not say it falls), cited as the date of
    signing 9-902(8) asks for. A later first day set by the case (dates.signing_from) wins."""
    adopted = SigningStart(
        _adopted(case),
        "DATE_BEFORE_ADOPTION",
        REVIEW,
        SUBD_8,
        "before the act or resolution was adopted on",
    )
    set_by_case = signing_from_the_case(case, SUBD_8)
    return set_by_case if set_by_case and set_by_case.day > adopted.day else adopted


def filing_window(case: CaseConfig) -> tuple[dt.date, dt.date]:
    """9-902(1): from the day after adoption to the thirtieth day (General Construction Law
    § 25-a's extension included)."""
    return referendum_filing_window(_adopted(case), case.dates.holidays)


def requires(case: CaseConfig) -> tuple[str, ...]:
    """The dates 9-902 is counted from: the adoption (subd. 1's thirty days) and the previous
    general village election (its register is the 20%'s denominator)."""
    return tuple(
        f"dates.{key}"
        for key in ("adopted", "previous_general_election")
        if getattr(case.dates, key) is None
    )


def line_has_residence(ctx: LineContext) -> Iterable[Finding]:
    """9-902(8): the petition must set forth "his present residence"."""
    yield from check_has_residence(ctx, SUBD_8)


def line_has_ward_and_district(ctx: LineContext) -> Iterable[Finding]:
    """9-902(8): "the ward if any and the village election district if any". Only asked where
    the village has them (the case lists its wards or districts) and the sheet has the column.
    The statute does not say the omission is fatal, so a person decides."""
    village = ctx.case.municipality
    for name, code, wanted, label in (
        ("ward", "WARD_MISSING", village.wards, "ward"),
        (
            "election_district",
            "ELECTION_DISTRICT_MISSING",
            village.election_districts,
            "village election district",
        ),
    ):
        if wanted and name in ctx.sheet.columns and not ctx.line.text(name):
            yield ctx.finding(
                code,
                REVIEW,
                SUBD_8,
                f"the village has {label}s and the line does not give one",
            )


def sheets_numbered_consecutively(sheets: Sequence[Sheet], case: CaseConfig) -> Iterable[Finding]:
    """9-902(8): "The sheets of such a petition shall be numbered consecutively beginning with
    number one at the foot of each sheet." """
    yield from check_sheet_numbers(sheets, SUBD_8, consecutive_from_one=True)


def witness_statement(sheet: Sheet, case: CaseConfig) -> Iterable[Finding]:
    """9-902(8), "Statement of Witness": "I, ... state: I am over the age of eighteen years and
    now reside at ... Each of the electors whose names are subscribed to this petition sheet
    containing ... (fill in number) signatures, subscribed his name in my presence. ... Date,
    Signature of Witness". Without a statement, or unsigned, nothing on the sheet is witnessed:
    every line falls. A blank or wrong count, a missing name, residence or date, or a residence
    in another village (the witness "now reside[s] ... in the Village of" this one): a person
    decides."""
    yield from check_witness_statement(sheet, SUBD_8, forms=STATEMENTS)
    yield from check_witness_lives_in_village(sheet, case.municipality.village, SUBD_8)


def table_was_read(sheet: Sheet, case: CaseConfig) -> Iterable[Finding]:
    yield from check_table_read(sheet, SUBD_8)


RULES = RuleSet(
    kind="permissive_referendum",
    statute=STATUTE,
    petition_rules=(filed_within_thirty_days, sheets_numbered_consecutively, what_happens_next),
    sheet_rules=(table_was_read, witness_statement),
    line_rules=(
        line_is_signed,
        line_is_dated,
        line_has_residence,
        line_has_ward_and_district,
        signer_is_elector_of_village,
    ),
    threshold=threshold,
)

SPEC = KindSpec(
    name="permissive_referendum",
    statute=STATUTE,
    label="permissive referendum",
    rule_sets=(Dated(dt.date.min, RULES),),
    filing_window=filing_window,
    signing_start=signing_start,
    statements=STATEMENTS,
    requires=requires,
)
