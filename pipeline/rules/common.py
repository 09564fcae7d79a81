"""Checks that several statutes share, each taking the citation of the clause that asks for it.

A petition kind's module states its rules as short functions that quote its own statute and call
these; the words differ from statute to statute, the checking does not. A check never decides
what the statute leaves open: those go to a person (severity REVIEW).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from rapidfuzz.distance import Levenshtein

from ..dates import parse_written_date
from ..forms import WITNESS, Statement
from ..records import Field, Finding, MatchDecision, Severity, Sheet, Source
from .base import LineContext, SigningStart, finding
from .electors import PREREGISTERED, PURGED, in_village

if TYPE_CHECKING:
    from ..case import CaseConfig

__all__ = [
    "check_dated",
    "check_has_residence",
    "check_sheet_numbers",
    "check_signed",
    "check_signer_is_owner",
    "check_signer_registered",
    "check_signing_window",
    "check_table_read",
    "check_witness_lives_in_village",
    "check_witness_statement",
    "filing_window_from_the_case",
    "signing_from_the_case",
    "witness_date",
]

FATAL, REVIEW, NOTE = Severity.FATAL, Severity.REVIEW, Severity.NOTE


def check_signer_registered(
    ctx: LineContext,
    citation: str,
    *,
    registered_after_signing: Severity,
    who: str = "elector",
) -> Iterable[Finding]:
    """The signer is on the register, a registered voter when signing, and lives in the
    village. `registered_after_signing` is FATAL where the statute says "at the time of
    signing", REVIEW where it does not."""
    match = ctx.match
    if match is None or match.decision is MatchDecision.REVIEW:
        reason = match.reason if match is not None else "the line was not matched"
        yield ctx.finding(
            "MATCH_UNCERTAIN",
            REVIEW,
            citation,
            f"cannot tell for sure who signed: {reason}",
            candidates=[c.voter_id for c in match.candidates] if match else [],
        )
        return
    if match.decision is MatchDecision.NO_MATCH:
        yield ctx.finding(
            "SIGNER_NOT_REGISTERED",
            FATAL,
            citation,
            f"no {who} on the register matches this signer",
            best=match.best.voter_id if match.best else None,
            best_score=round(match.best.score, 1) if match.best else None,
        )
        return
    entry = ctx.entry
    if entry is None:  # a match to an id the register does not have: a bug or a stale decision
        yield ctx.finding(
            "MATCH_UNCERTAIN",
            REVIEW,
            citation,
            f"matched voter {match.voter_id} is not on the register read for this case",
        )
        return
    status = entry.status.strip().upper()
    if status == PREREGISTERED:
        yield ctx.finding(
            "SIGNER_NOT_ELECTOR",
            FATAL,
            citation,
            "the signer is a pre-registered 17-year-old, not yet a voter",
            voter_id=entry.voter_id,
        )
    if status == PURGED:
        if entry.purge_date is None:
            yield ctx.finding(
                "SIGNER_PURGED",
                REVIEW,
                citation,
                "the signer's registration is purged (no purge date on the register)",
                voter_id=entry.voter_id,
            )
        elif ctx.signed_on is None or entry.purge_date <= ctx.signed_on:
            yield ctx.finding(
                "SIGNER_PURGED",
                FATAL,
                citation,
                f"the signer's registration was purged on {entry.purge_date.isoformat()}"
                + (f" ({entry.reason_code})" if entry.reason_code else ""),
                voter_id=entry.voter_id,
                purge_date=entry.purge_date.isoformat(),
            )
    if not in_village(entry, ctx.case.municipality):
        yield ctx.finding(
            "SIGNER_OUTSIDE_VILLAGE",
            FATAL,
            citation,
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
            registered_after_signing,
            citation,
            f"registered on {entry.registration_date.isoformat()}, after signing",
            voter_id=entry.voter_id,
        )
    if status == "I":
        yield ctx.finding(
            "SIGNER_INACTIVE",
            NOTE,
            citation,
            "the signer's registration is inactive; inactive voters remain registered",
            voter_id=entry.voter_id,
        )


def check_signer_is_owner(ctx: LineContext, citation: str, where: str) -> Iterable[Finding]:
    """The signer is among the owners on the assessment roll (matched like a voter against the
    register); what they own is credited in the valuation, not here."""
    match = ctx.match
    if match is None or match.decision is MatchDecision.REVIEW:
        reason = match.reason if match is not None else "the line was not matched"
        yield ctx.finding(
            "MATCH_UNCERTAIN", REVIEW, citation, f"cannot tell for sure who signed: {reason}"
        )
    elif match.decision is MatchDecision.NO_MATCH:
        yield ctx.finding(
            "SIGNER_NOT_OWNER",
            FATAL,
            citation,
            f"no owner of real property in {where} on the roll matches this signer",
        )


def check_signed(ctx: LineContext, citation: str) -> Iterable[Finding]:
    if not ctx.line.text("signature"):
        yield ctx.finding("NO_SIGNATURE", FATAL, citation, "the signature cell is empty")


def witness_date(sheet: Sheet, reference: dt.date) -> dt.date | None:
    if sheet.witness is None or sheet.witness.date is None:
        return None
    return parse_written_date(sheet.witness.date.text, reference=reference)


def signing_from_the_case(case: CaseConfig, citation: str) -> SigningStart | None:
    """The first day signatures may be gathered, as the case file sets it (dates.signing_from):
    for a kind whose statute (as the seed text gives it) sets no first day. The statute does
    not say a line dated before it falls, so a person decides."""
    day = case.dates.signing_from
    if day is None:
        return None
    return SigningStart(
        day,
        "DATE_BEFORE_SIGNING_PERIOD",
        REVIEW,
        citation,
        "before the first day signatures may be gathered (dates.signing_from),",
    )


def filing_window_from_the_case(case: CaseConfig) -> tuple[dt.date, dt.date]:
    """The days signatures are gathered and the petition filed, for a kind whose statute sets
    no filing period: from the case's first day of signing (else thirty days before the
    filing) to the filing."""
    start = case.spec.signing_start(case)
    filed = case.dates.filed
    return (start.day if start is not None else filed - dt.timedelta(days=30)), filed


def check_signing_window(ctx: LineContext) -> Iterable[Finding]:
    """A line dated before the first day signatures may be gathered (the kind's
    `signing_start`: the statute's or the case's), with the severity its statute gives."""
    start = ctx.case.spec.signing_start(ctx.case)
    if start is not None and ctx.signed_on is not None and ctx.signed_on < start.day:
        yield ctx.finding(
            start.code,
            start.severity,
            start.citation,
            f"dated {ctx.signed_on.isoformat()}, {start.reason} {start.day.isoformat()}",
            signed_on=ctx.signed_on.isoformat(),
        )


def check_dated(ctx: LineContext, citation: str) -> Iterable[Finding]:
    """The line carries a date of signing that is not after the filing, not after the witness
    dated the statement, and not before the first day signatures may be gathered (where the
    statute or the case sets one)."""
    text = ctx.line.text("date")
    if not text:
        yield ctx.finding("LINE_UNDATED", FATAL, citation, "the line has no date of signing")
        return
    if ctx.signed_on is None:
        yield ctx.finding(
            "DATE_UNREADABLE", REVIEW, citation, f"cannot read the date {text!r}", written=text
        )
        return
    filed = ctx.case.dates.filed
    if ctx.signed_on > filed:
        yield ctx.finding(
            "DATE_AFTER_FILING",
            FATAL,
            citation,
            f"dated {ctx.signed_on.isoformat()}, after the petition was filed on "
            f"{filed.isoformat()}",
            signed_on=ctx.signed_on.isoformat(),
        )
    else:
        yield from check_signing_window(ctx)
    witnessed = witness_date(ctx.sheet, filed)
    if witnessed is not None and ctx.signed_on > witnessed:
        yield ctx.finding(
            "DATE_AFTER_WITNESS_DATE",
            REVIEW,
            citation,
            f"dated {ctx.signed_on.isoformat()}, after the witness dated the statement "
            f"({witnessed.isoformat()}); the witness cannot have seen it signed",
            signed_on=ctx.signed_on.isoformat(),
            witness_date=witnessed.isoformat(),
        )


def check_has_residence(ctx: LineContext, citation: str) -> Iterable[Finding]:
    if not ctx.line.text("residence"):
        yield ctx.finding("RESIDENCE_MISSING", FATAL, citation, "the line gives no residence")


def check_sheet_numbers(
    sheets: Sequence[Sheet], citation: str, *, consecutive_from_one: bool
) -> Iterable[Finding]:
    """A sheet without a number, or with a number another sheet also has, goes to a person;
    where the statute asks for consecutive numbers from one, a gap is reported (a note: the
    missing sheet may never have been filed)."""
    numbers: dict[int, list[Sheet]] = {}
    for sheet in sheets:
        n = sheet.sheet_number_value
        if n is None:
            yield finding(
                "SHEET_NUMBER_MISSING",
                REVIEW,
                citation,
                "the sheet has no number",
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
                    citation,
                    f"{len(same)} sheets are numbered {n}",
                    page_id=sheet.page.page_id,
                    number=n,
                )
    if numbers and consecutive_from_one:
        present = sorted(numbers)
        missing = sorted(set(range(1, present[-1] + 1)) - set(present))
        if missing:
            yield finding(
                "SHEET_NUMBERING_GAP",
                NOTE,
                citation,
                "sheets are not numbered consecutively from one: missing "
                + ", ".join(str(m) for m in missing),
                missing=missing,
            )


def check_witness_statement(
    sheet: Sheet,
    citation: str,
    *,
    needs: Sequence[tuple[str, str, str]] = (
        ("witness_name", "WITNESS_NAME_MISSING", "the witness's name"),
        ("residence", "WITNESS_RESIDENCE_MISSING", "the witness's residence"),
        ("date", "WITNESS_DATE_MISSING", "the date of the statement"),
    ),
    forms: Sequence[Statement] = (WITNESS,),
) -> Iterable[Finding]:
    """The statement at the foot of the sheet: present (in one of the accepted `forms`) and
    signed, or nothing on the sheet is witnessed and every line falls; its other parts
    (`needs`: WitnessStatement attribute, code, words) and the number of signatures it states,
    which must be the number of signed lines: a person decides a gap or a difference."""
    page_id = sheet.page.page_id
    w = sheet.witness
    if w is None or w.form not in {s.form for s in forms}:
        yield finding(
            "WITNESS_STATEMENT_MISSING",
            FATAL,
            citation,
            "the sheet has no statement of witness"
            if w is None
            else f"the sheet's statement ({w.form}) is not one this petition accepts",
            page_id=page_id,
        )
        return
    if w.signature is None or w.signature.empty:
        yield finding(
            "WITNESS_NOT_SIGNED",
            FATAL,
            citation,
            "the statement at the foot of the sheet is not signed",
            page_id=page_id,
        )
    for attribute, code, words in needs:
        value = getattr(w, attribute)
        if value is None or value.empty:
            yield finding(code, REVIEW, citation, f"the statement lacks {words}", page_id=page_id)
    stated = w.stated_count_value
    filled = len(sheet.filled_lines)
    if stated is None:
        yield finding(
            "WITNESS_COUNT_MISSING",
            REVIEW,
            citation,
            "the statement does not state the number of signatures",
            page_id=page_id,
            lines_on_sheet=filled,
        )
    elif stated != filled:
        yield finding(
            "WITNESS_COUNT_MISMATCH",
            REVIEW,
            citation,
            f"the statement says {stated} signatures; the sheet has {filled} signed lines",
            page_id=page_id,
            stated=stated,
            lines_on_sheet=filled,
        )


def check_witness_lives_in_village(sheet: Sheet, village: str, citation: str) -> Iterable[Finding]:
    """The witness states a residence "in the Village of ..." and it is another village: the
    witness is not qualified to witness this petition's sheet (a person decides)."""
    w = sheet.witness
    if w is None or w.form != "witness" or w.village is None or w.village.empty or not village:
        return

    if not _same_village(w.village, village):
        yield finding(
            "WITNESS_NOT_OF_VILLAGE",
            REVIEW,
            citation,
            f"the witness states a residence in the Village of {w.village.text}, not {village}",
            page_id=sheet.page.page_id,
            stated=w.village.text,
        )


def _same_village(stated: Field, village: str) -> bool:
    """Whether the witness's village as read is the petition's: the same name once the
    glyphs OCR takes for one another are folded alike (`_CONFUSED`, with case, spacing and
    stops), or, read by OCR, a name of OCR_SLIP_LETTERS letters or more one edit from it
    ("Eilmwood Falls", "Eimwood Falls" for Elmwood Falls, as scans of a handwritten or
    printed statement read): a misread letter does not make the witness another village's.
    The village as read is in the report whatever is found."""
    a, b = _village_key(stated.text), _village_key(village)
    if a == b:
        return True
    slip = stated.source is Source.OCR and min(len(a), len(b)) >= OCR_SLIP_LETTERS
    return slip and Levenshtein.distance(a, b, score_cutoff=1) <= 1


_CONFUSED = str.maketrans({"I": "L", "1": "L", "|": "L", "!": "L", "0": "O", ".": " ", ",": " "})
# A shorter name is compared whole: one letter is too much of it to call a slip.
OCR_SLIP_LETTERS = 6


def _village_key(text: str) -> str:
    return " ".join(text.upper().translate(_CONFUSED).split())


def check_table_read(sheet: Sheet, citation: str) -> Iterable[Finding]:
    """Not a clause of any statute: a sheet on which no signature table could be read is
    checked by a person, never taken as empty."""
    if not sheet.lines:
        yield finding(
            "SHEET_NOT_READ",
            REVIEW,
            citation,
            "no signature table could be read on this page; check the sheet by hand",
            page_id=sheet.page.page_id,
            file=sheet.page.path,
            page_index=sheet.page.page_index,
            kind=str(sheet.page.kind),
        )
