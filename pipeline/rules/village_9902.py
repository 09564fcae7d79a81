"""Village Law § 9-902: the petition for a permissive referendum on an act or resolution.

One rule, one function, its clause beside it. Text quoted from ../shared/statutes/
village-law-9-902-referendum-petition.txt. Where the statute does not say what a defect does
(a wrong witness count, a misnumbered sheet), the rule sends the line or sheet to a person
(severity REVIEW) instead of deciding: that is a question for the clerk or the court, not for us.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence

from ..case import CaseConfig
from ..dates import parse_written_date
from ..election_calendar import general_village_election, objection_deadline, proposition_election
from ..records import Finding, MatchDecision, Severity, Sheet
from .base import LineContext, RuleSet, Threshold, finding
from .electors import PREREGISTERED, PURGED, in_village

__all__ = ["RULES", "STATUTE"]

STATUTE = "Village Law § 9-902"
SUBD_1 = f"{STATUTE}(1)"
SUBD_8 = f"{STATUTE}(8)"

FATAL, REVIEW, NOTE = Severity.FATAL, Severity.REVIEW, Severity.NOTE


# -- subdivision 1 -----------------------------------------------------------------------------


def threshold(case: CaseConfig, electors: int | None) -> Threshold:
    """9-902(1): "signed ... by electors of the village in number equal to at least twenty per
    centum of such electors in the village, as shown on the register of electors for the
    previous general village election". At least 20%: ceil(electors / 5), in integers."""
    if electors is None:
        raise ValueError("9-902 needs the count of electors on the previous election's register")
    required = (electors + 4) // 5
    return Threshold(
        required=required,
        denominator=electors,
        rule=(
            f"at least 20% of the {electors} electors on the register for the general village "
            f"election of {case.dates.previous_general_election.isoformat()}: "
            f"ceil({electors} x 0.20) = {required} ({SUBD_1})"
        ),
    )


def filed_within_thirty_days(sheets: Sequence[Sheet], case: CaseConfig) -> Iterable[Finding]:
    """9-902(1): the act "shall not take effect until ... approved by ... the qualified electors
    ... if within thirty days after its adoption there be filed with the village clerk a
    petition". The day of adoption is not counted (General Construction Law § 20): a petition
    filed on the 30th day after adoption is in time, on the 31st it is not."""
    days = (case.dates.filed - case.dates.adopted).days
    if days > 30:
        yield finding(
            "PETITION_FILED_LATE",
            FATAL,
            SUBD_1,
            f"filed {days} days after the act or resolution was adopted "
            f"({case.dates.adopted.isoformat()}); the statute allows thirty",
            adopted=case.dates.adopted.isoformat(),
            filed=case.dates.filed.isoformat(),
            days=days,
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
    after the filing"; 9-902(5)-(6), where the proposition is submitted."""
    filed = case.dates.filed
    deadline = objection_deadline(filed)
    yield finding(
        "OBJECTION_WINDOW",
        NOTE,
        f"{STATUTE}(9)",
        f"written objections may be filed with the village clerk until {deadline.isoformat()} "
        "(within five days after the filing)",
        filed=filed.isoformat(),
        last_day=deadline.isoformat(),
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
    "containing the signatures of qualified electors of the village"."""
    match = ctx.match
    if match is None or match.decision is MatchDecision.REVIEW:
        reason = match.reason if match is not None else "the line was not matched"
        yield ctx.finding(
            "MATCH_UNCERTAIN",
            REVIEW,
            SUBD_1,
            f"cannot tell for sure who signed: {reason}",
            candidates=[c.voter_id for c in match.candidates] if match else [],
        )
        return
    if match.decision is MatchDecision.NO_MATCH:
        yield ctx.finding(
            "SIGNER_NOT_REGISTERED",
            FATAL,
            SUBD_1,
            "no elector on the register matches this signer",
            best=match.best.voter_id if match.best else None,
            best_score=round(match.best.score, 1) if match.best else None,
        )
        return
    entry = ctx.entry
    if entry is None:  # a match to an id the register does not have: a bug or a stale decision
        yield ctx.finding(
            "MATCH_UNCERTAIN",
            REVIEW,
            SUBD_1,
            f"matched voter {match.voter_id} is not on the register read for this case",
        )
        return
    status = entry.status.strip().upper()
    if status == PREREGISTERED:
        yield ctx.finding(
            "SIGNER_NOT_ELECTOR",
            FATAL,
            SUBD_1,
            "the signer is a pre-registered 17-year-old, not yet an elector",
            voter_id=entry.voter_id,
        )
    if status == PURGED:
        if entry.purge_date is None:
            yield ctx.finding(
                "SIGNER_PURGED",
                REVIEW,
                SUBD_1,
                "the signer's registration is purged (no purge date on the register)",
                voter_id=entry.voter_id,
            )
        elif ctx.signed_on is None or entry.purge_date <= ctx.signed_on:
            yield ctx.finding(
                "SIGNER_PURGED",
                FATAL,
                SUBD_1,
                f"the signer's registration was purged on {entry.purge_date.isoformat()}"
                + (f" ({entry.reason_code})" if entry.reason_code else ""),
                voter_id=entry.voter_id,
                purge_date=entry.purge_date.isoformat(),
            )
    if not in_village(entry, ctx.case.municipality):
        yield ctx.finding(
            "SIGNER_OUTSIDE_VILLAGE",
            FATAL,
            SUBD_1,
            f"the register places the signer outside the village (town {entry.town_city or '?'},"
            f" ward {entry.ward or '-'}, election district {entry.election_district or '-'})",
            voter_id=entry.voter_id,
        )
    if (
        ctx.signed_on is not None
        and entry.registration_date is not None
        and entry.registration_date > ctx.signed_on
    ):
        yield ctx.finding(
            "SIGNER_REGISTERED_AFTER_SIGNING",
            REVIEW,
            SUBD_1,
            f"registered on {entry.registration_date.isoformat()}, after signing",
            voter_id=entry.voter_id,
        )
    if status == "I":
        yield ctx.finding(
            "SIGNER_INACTIVE",
            NOTE,
            SUBD_1,
            "the signer's registration is inactive; inactive voters remain registered",
            voter_id=entry.voter_id,
        )


# -- subdivision 8: the sheets and the lines -----------------------------------------------------


def line_is_signed(ctx: LineContext) -> Iterable[Finding]:
    """9-902(8): "Petition shall be made upon white paper containing the signatures of qualified
    electors"; "Each sheet ... shall be signed in ink"."""
    if not ctx.line.text("signature"):
        yield ctx.finding("NO_SIGNATURE", FATAL, SUBD_8, "the signature cell is empty")


def line_is_dated(ctx: LineContext) -> Iterable[Finding]:
    """9-902(8): "Such petition must set forth in every instance the correct date of signing".
    A date after the filing cannot be a correct date of signing; a date before the act was
    adopted is doubtful (a protest of an act not yet adopted) and goes to a person."""
    text = ctx.line.text("date")
    if not text:
        yield ctx.finding("LINE_UNDATED", FATAL, SUBD_8, "the line has no date of signing")
        return
    if ctx.signed_on is None:
        yield ctx.finding(
            "DATE_UNREADABLE", REVIEW, SUBD_8, f"cannot read the date {text!r}", written=text
        )
        return
    dates = ctx.case.dates
    if ctx.signed_on > dates.filed:
        yield ctx.finding(
            "DATE_AFTER_FILING",
            FATAL,
            SUBD_8,
            f"dated {ctx.signed_on.isoformat()}, after the petition was filed on "
            f"{dates.filed.isoformat()}",
            signed_on=ctx.signed_on.isoformat(),
        )
    elif ctx.signed_on < dates.adopted:
        yield ctx.finding(
            "DATE_BEFORE_ADOPTION",
            REVIEW,
            SUBD_8,
            f"dated {ctx.signed_on.isoformat()}, before the act or resolution was adopted on "
            f"{dates.adopted.isoformat()}",
            signed_on=ctx.signed_on.isoformat(),
        )
    witness_date = _witness_date(ctx.sheet, ctx.case)
    if witness_date is not None and ctx.signed_on > witness_date:
        yield ctx.finding(
            "DATE_AFTER_WITNESS_DATE",
            REVIEW,
            SUBD_8,
            f"dated {ctx.signed_on.isoformat()}, after the witness dated the statement "
            f"({witness_date.isoformat()}); the witness cannot have seen it signed",
            signed_on=ctx.signed_on.isoformat(),
            witness_date=witness_date.isoformat(),
        )


def line_has_residence(ctx: LineContext) -> Iterable[Finding]:
    """9-902(8): the petition must set forth "his present residence"."""
    if not ctx.line.text("residence"):
        yield ctx.finding("RESIDENCE_MISSING", FATAL, SUBD_8, "the line gives no residence")


def line_has_ward_and_district(ctx: LineContext) -> Iterable[Finding]:
    """9-902(8): "the ward if any and the village election district if any". Only asked where
    the village has them (the case lists its wards or districts) and the sheet has the column.
    The statute does not say the omission is fatal, so a person decides."""
    village = ctx.case.municipality
    for name, wanted, label in (
        ("ward", village.wards, "ward"),
        ("election_district", village.election_districts, "village election district"),
    ):
        if wanted and name in ctx.sheet.columns and not ctx.line.text(name):
            yield ctx.finding(
                f"{name.upper()}_MISSING",
                REVIEW,
                SUBD_8,
                f"the village has {label}s and the line does not give one",
            )


def sheets_numbered_consecutively(sheets: Sequence[Sheet], case: CaseConfig) -> Iterable[Finding]:
    """9-902(8): "The sheets of such a petition shall be numbered consecutively beginning with
    number one at the foot of each sheet." A sheet without a number, or with a number another
    sheet also has, goes to a person; a gap (a missing sheet) is reported for the petition."""
    numbers: dict[int, list[Sheet]] = {}
    for sheet in sheets:
        n = sheet.sheet_number_value
        if n is None:
            yield finding(
                "SHEET_NUMBER_MISSING",
                REVIEW,
                SUBD_8,
                "no sheet number at the foot of the sheet",
                page_id=sheet.page.page_id,
                file=sheet.page.path,
                page_index=sheet.page.page_index,
            )
        else:
            numbers.setdefault(n, []).append(sheet)
    for n, same in sorted(numbers.items()):
        if len(same) > 1:
            for sheet in same:
                yield finding(
                    "SHEET_NUMBER_DUPLICATE",
                    REVIEW,
                    SUBD_8,
                    f"{len(same)} sheets are numbered {n}",
                    page_id=sheet.page.page_id,
                    number=n,
                )
    if numbers:
        present = sorted(numbers)
        missing = sorted(set(range(1, present[-1] + 1)) - set(present))
        if missing:
            yield finding(
                "SHEET_NUMBERING_GAP",
                NOTE,
                SUBD_8,
                "sheets are not numbered consecutively from one: missing "
                + ", ".join(str(m) for m in missing),
                missing=missing,
            )


def _witness_date(sheet: Sheet, case: CaseConfig) -> dt.date | None:
    if sheet.witness is None or sheet.witness.date is None:
        return None
    return parse_written_date(sheet.witness.date.text, reference=case.dates.filed)


def witness_statement(sheet: Sheet, case: CaseConfig) -> Iterable[Finding]:
    """9-902(8), "Statement of Witness": "I, ... state: I am over the age of eighteen years and
    now reside at ... Each of the electors whose names are subscribed to this petition sheet
    containing ... (fill in number) signatures, subscribed his name in my presence. ... Date,
    Signature of Witness". Without a statement, or unsigned, nothing on the sheet is witnessed:
    every line falls. A blank or wrong count, a missing name, residence or date: a person decides.
    """
    page_id = sheet.page.page_id
    w = sheet.witness
    if w is None:
        yield finding(
            "WITNESS_STATEMENT_MISSING",
            FATAL,
            SUBD_8,
            "the sheet has no statement of witness",
            page_id=page_id,
        )
        return
    if w.signature is None or w.signature.empty:
        yield finding(
            "WITNESS_NOT_SIGNED",
            FATAL,
            SUBD_8,
            "the statement of witness is not signed",
            page_id=page_id,
        )
    for code, value, what in (
        ("WITNESS_NAME_MISSING", w.witness_name, "the witness's name"),
        ("WITNESS_RESIDENCE_MISSING", w.residence, "the witness's residence"),
        ("WITNESS_DATE_MISSING", w.date, "the date of the statement"),
    ):
        if value is None or value.empty:
            yield finding(
                code, REVIEW, SUBD_8, f"the statement of witness lacks {what}", page_id=page_id
            )
    stated = w.stated_count_value
    filled = len(sheet.filled_lines)
    if stated is None:
        yield finding(
            "WITNESS_COUNT_MISSING",
            REVIEW,
            SUBD_8,
            "the statement of witness does not state the number of signatures",
            page_id=page_id,
            lines_on_sheet=filled,
        )
    elif stated != filled:
        yield finding(
            "WITNESS_COUNT_MISMATCH",
            REVIEW,
            SUBD_8,
            f"the witness states {stated} signatures; the sheet has {filled} signed lines",
            page_id=page_id,
            stated=stated,
            lines_on_sheet=filled,
        )


def table_was_read(sheet: Sheet, case: CaseConfig) -> Iterable[Finding]:
    """Not a clause of the statute: a sheet on which no signature table could be read is
    checked by a person, never taken as empty."""
    if not sheet.lines:
        yield finding(
            "SHEET_NOT_READ",
            REVIEW,
            SUBD_8,
            "no signature table could be read on this page; check the sheet by hand",
            page_id=sheet.page.page_id,
            file=sheet.page.path,
            page_index=sheet.page.page_index,
            kind=str(sheet.page.kind),
        )


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
