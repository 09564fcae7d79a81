"""Doubts about the reading itself: a value OCR was not sure of goes to a person.

Not a statute rule: whatever the statute, a line whose date, name, residence, ward or district
was read with low confidence cannot be judged on that reading, and a sheet whose number or
stated count was read with low confidence cannot be checked against 9-902(8)'s numbering and
the witness's count. Fields from a text layer or a reviewer carry confidence 1.0 and never
trigger these rules.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from ..case import CaseConfig
from ..dates import parse_written_date
from ..records import Field, Finding, Severity, Sheet, Source
from .base import LineContext, finding

__all__ = [
    "FIELD_THRESHOLDS",
    "LAYOUT_DOUBT",
    "LOW_CONFIDENCE",
    "RESOLVED_THRESHOLDS",
    "low_confidence_fields",
    "layout_doubts",
    "low_confidence_sheet_fields",
    "threshold_for",
]

# A field read by OCR with a confidence below its threshold goes to review. Measured with
# tesseract 5.5 (LSTM, tesserocr) on two synthetic sets:
# - printed scans: the demo case under 9 degradations (clean, 180 degrees, +-3 degrees skew,
#   blur + JPEG, speckle, uneven light + faint broken rules, 200 dpi image PDF, sideways, all at
#   once): 2,808 fields, 14 misread, all sans-serif I/l slips ("Kettleby II" for "III") at
#   0.75-0.90 that the matcher tolerates. Correct fields below 0.80 / 0.85 / 0.90: 23 / 47 / 142.
# - handwriting-font scans (synth's degraded corpus, 8 cases): 1,787 fields, 718
#   misread. Misreads (other than upper/lower case) at or above 0.80 / 0.85 / 0.90: 22 / 15 / 2;
#   among them single digits ("1" for "2") in ward and district at 0.86-0.89, and dates at
#   0.91-0.92 that do not parse (DATE_UNREADABLE catches those).
# So: a ward or district digit goes to a person below 0.90 (the rules act on it directly), a
# date below 0.85 (the date parser is a second check), names and residences below 0.80 (the
# matcher is a second check: a bad reading gives an uncertain match, which goes to review).
LOW_CONFIDENCE = 0.80  # any other field, and the ink test of the signature
FIELD_THRESHOLDS: dict[str, float] = {
    "ward": 0.90,
    "election_district": 0.90,
    "date": 0.85,
    "name": 0.80,
    "residence": 0.80,
    # sheet fields: read correctly at 0.92+ (stated count) and 0.896+ (sheet number) in both sets
    "stated_count": 0.90,
    "sheet_number": 0.85,
}


# A field the closed-world stage (pipeline.closedworld) read as one of the values it can hold
# has its value's probability as its confidence: it goes to review below these. Each is the
# lowest at which no field decided on the development fonts was wrong (`bench/handwriting.py
# --fit --cases 4`), and never under 0.80: date 0.810, residence 0.949; name 0.756, raised to
# 0.90 (the signature's text is replaced by a name only at it): a clearly read given name one
# letter from a registered housemate's nickname ("Martin" / Martha's "Marty") reaches 0.83,
# and the matcher would then match it; ward 0.666 and district 0.508 raised to 0.80 (a ward
# or district decides no line's validity by itself).
RESOLVED_THRESHOLDS: dict[str, float] = {
    "date": 0.81,
    "residence": 0.949,
    "name": 0.90,
    "signature": 0.90,
    "ward": 0.80,
    "election_district": 0.80,
}


# A resolved date below its threshold does not hold the line back when the days it may be,
# with at least this much of its probability together, all make the same of the line in law
# (`date_settled`): the line need not wait for its exact day. Chosen on the development fonts
# (`bench/handwriting.py`: no line decided so was wrong there); what the days leave of 1
# ("none of these", days too unlikely to list) counts against.
SETTLED_THRESHOLD = 0.95
# A line's days that the witness's date must not fall among (`witness_date_settled`): those
# of at least this probability.
LINE_DAY_MASS = 0.01


def threshold_for(name: str, resolved: bool = False) -> float:
    if resolved and name in RESOLVED_THRESHOLDS:
        return RESOLVED_THRESHOLDS[name]
    return FIELD_THRESHOLDS.get(name, LOW_CONFIDENCE)


def _low(fields: Iterable[tuple[str, Field | None]]) -> dict[str, float]:
    return {
        label: round(f.confidence, 3)
        for label, f in fields
        if f is not None and f.source is Source.OCR and f.confidence < _threshold(f)
    }


def _threshold(f: Field) -> float:
    return threshold_for(f.name, f.resolved)


def _days(f: Field) -> list[tuple[dt.date | None, float]]:
    return [(parse_written_date(day), p) for day, p in f.alternatives]


def _line_outcome(
    ctx: LineContext, day: dt.date | None, line_rules: Iterable[Any]
) -> frozenset[tuple[str, Severity]]:
    on_day = replace(ctx, signed_on=day)
    return frozenset((f.code, f.severity) for rule in line_rules for f in rule(on_day))


def date_settled(ctx: LineContext) -> float:
    """The probability that the line's date, read in the closed world, makes of the line in
    law what the day it was read as makes of it: the summed probability of its days (its
    `alternatives`) under which the kind's line rules find the same (codes and severities).
    0 for a date with no alternatives (not resolved)."""
    f = ctx.line.get("date")
    if f is None or not f.resolved or not f.alternatives:
        return 0.0
    rules = ctx.case.spec.rules_on(ctx.case).line_rules
    read = _line_outcome(ctx, ctx.signed_on, rules)
    return sum(
        p for day, p in _days(f) if day is not None and _line_outcome(ctx, day, rules) == read
    )


def low_confidence_fields(ctx: LineContext) -> Iterable[Finding]:
    """A line with any field OCR read with confidence below its threshold: a person checks
    the reading (the line's crop is kept for them). The signature's confidence is the ink
    test's, so an unsure signed/unsigned call is caught here too. A resolved date whose doubt
    cannot change what the law makes of the line (`date_settled` at SETTLED_THRESHOLD or
    more) does not hold it: the line is decided, its date the likeliest day."""
    low = _low((f.name, f) for f in ctx.line.fields)
    if "date" in low and date_settled(ctx) >= SETTLED_THRESHOLD:
        del low["date"]
    if low:
        names = ", ".join(f"{name} ({conf:.2f})" for name, conf in sorted(low.items()))
        yield ctx.finding(
            "FIELD_LOW_CONFIDENCE",
            Severity.REVIEW,
            "",
            f"read with low confidence: {names}; check the line against the sheet",
            fields=low,
            thresholds={f.name: _threshold(f) for f in ctx.line.fields if f.name in low},
        )


def low_confidence_sheet_fields(sheet: Sheet, case: CaseConfig) -> Iterable[Finding]:
    """A sheet whose number, or whose witness statement's stated count, date or signature, was
    read with low confidence: a person checks them before the sheet's lines count. A date the
    closed-world stage read among the days it can be is held to the resolved fields'
    threshold; a handwritten signature's confidence is its ink test's (signed or not)."""
    fields: list[tuple[str, Field | None]] = [("sheet_number", sheet.sheet_number)]
    if sheet.witness is not None:
        w = sheet.witness
        fields += [
            ("witness.stated_count", w.stated_count),
            ("witness.date", w.date),
            ("witness.signature", w.signature),
            ("witness.name", w.witness_name),
        ]
    low = _low(fields)
    if "witness.date" in low and witness_date_settled(sheet, case) >= SETTLED_THRESHOLD:
        del low["witness.date"]
    if low:
        names = ", ".join(f"{name} ({conf:.2f})" for name, conf in sorted(low.items()))
        yield finding(
            "SHEET_FIELD_LOW_CONFIDENCE",
            Severity.REVIEW,
            "",
            f"read with low confidence on the sheet: {names}",
            page_id=sheet.page.page_id,
            fields=low,
            thresholds={name: _threshold(f) for name, f in fields if name in low and f},
        )


LAYOUT_DOUBT = "LAYOUT_DOUBT"


def _sheet_outcome(sheet: Sheet, case: CaseConfig, day: dt.date) -> frozenset[Any]:
    """What the kind's sheet rules find of the sheet with its witness dated `day`, and which of
    its lines' likely days fall after that day (the lines' DATE_AFTER_WITNESS_DATE)."""
    assert sheet.witness is not None and sheet.witness.date is not None
    dated = replace(sheet.witness.date, text=day.isoformat())
    on_day = replace(sheet, witness=replace(sheet.witness, date=dated))
    found = {
        (f.code, f.severity)
        for rule in case.spec.rules_on(case).sheet_rules
        for f in rule(on_day, case)
    }
    after = {(ln.line_no, d) for ln in sheet.lines for d in _line_days(ln, case) if d > day}
    return frozenset(found | after)


def _line_days(line: Any, case: CaseConfig) -> set[dt.date]:
    """The days a line's date may be: as read, and its alternatives of LINE_DAY_MASS or more."""
    f = line.get("date")
    if f is None or f.empty:
        return set()
    read = parse_written_date(f.text, case.dates.filed)
    days = {d for d, p in _days(f) if d is not None and p >= LINE_DAY_MASS}
    return days | ({read} if read is not None else set())


def witness_date_settled(sheet: Sheet, case: CaseConfig) -> float:
    """The probability that the witness statement's date, read in the closed world, makes of
    the sheet in law what the day it was read as makes of it: its days under which the kind's
    sheet rules find the same and the same of its lines' likely days fall after it."""
    w = sheet.witness.date if sheet.witness is not None else None
    if w is None or not w.resolved or not w.alternatives:
        return 0.0
    read_day = parse_written_date(w.text, case.dates.filed)
    if read_day is None:
        return 0.0
    read = _sheet_outcome(sheet, case, read_day)
    return sum(p for d, p in _days(w) if d is not None and _sheet_outcome(sheet, case, d) == read)


def layout_doubts(sheet: Sheet, case: CaseConfig) -> Iterable[Finding]:
    """A sheet the reader could not lay out with confidence (a column it did not place, a table
    it found by its text alone, rows the line numbers do not confirm): no line of it is decided
    on that reading, even a fatal finding may come from a column not found (a person checks)."""
    if sheet.layout_doubts:
        yield finding(
            LAYOUT_DOUBT,
            Severity.REVIEW,
            "",
            "the sheet's layout was not read with confidence: " + "; ".join(sheet.layout_doubts),
            page_id=sheet.page.page_id,
            reasons=list(sheet.layout_doubts),
        )
