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
    "SETTLED_BY_VALUE",
    "low_confidence_fields",
    "layout_doubts",
    "low_confidence_sheet_fields",
    "threshold_for",
    "value_settled",
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
# date below 0.90 (it was 0.85, the date parser a second check; but a handwritten "Oct 11,
# 2026" read as "Oct 1, 2026" at 0.863 parses, and decided a development line valid that was
# dated after the filing: seed 7373, `bench/handwriting.py --cases 3`, the recognizer on;
# below the threshold a date is read in the closed world, its days weighed by the rules),
# names below 0.80 (the matcher is a second check: a bad reading gives an uncertain match,
# which goes to review), residences below 0.90 (it was 0.80: the matcher found the voter from a
# house number misread at 0.80-0.90, "Us Cedar Ct" for 45 Cedar Ct, and the report gave the line
# a residence it does not say; below the threshold a residence is read in the closed world,
# among the town's addresses; chosen on the development fonts, seed 1202, `bench/handwriting.py
# --cases 3`, its [tess] degraded part: residences right on the lines decided 85.7% at 0.80,
# 100% at 0.90 and 0.95; the seeds 4444 and 5151 development parts the same at all three).
LOW_CONFIDENCE = 0.80  # any other field, and the ink test of the signature
FIELD_THRESHOLDS: dict[str, float] = {
    "ward": 0.90,
    "election_district": 0.90,
    "date": 0.90,
    "name": 0.80,
    "residence": 0.90,
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
# or district decides no line's validity by itself). The date's raised to 0.816 when a
# line's date and its witness's were first read together (`Field.witnessed`): a development
# date was resolved wrong at 0.815 (`bench/handwriting.py --cases 3`, "Oct 1" for Oct 2).
RESOLVED_THRESHOLDS: dict[str, float] = {
    "date": 0.816,
    "residence": 0.949,
    "name": 0.90,
    "signature": 0.90,
    "ward": 0.80,
    "election_district": 0.80,
}


# An unsure date (resolved, below its threshold: the line's, or its sheet's witness's) does
# not hold the line back when the days they may be, with at least this much of their
# probability together, make the same of the line in law (`date_settled`): the line need not
# wait for its exact day. Set at 0.95 before measuring and kept on the development fonts
# (`bench/handwriting.py --cases 3`: no line decided there was wrong; not fitted lower); what
# the days leave of 1 ("none of these", days too unlikely to list) counts against.
SETTLED_THRESHOLD = 0.95
# The days tried: those of at least this probability (the rest count against).
DAY_MASS = 0.002


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


def _days(
    f: Field | None, reference: dt.date, every: bool = False
) -> list[tuple[dt.date | None, float]]:
    """The days an unsure date may be (DAY_MASS or more), else the day it was read as. With
    `every`, the days of any date read among the days it can be, however sure the likeliest."""
    if f is None:
        return [(None, 1.0)]
    if _settles(f) and (every or f.confidence < _threshold(f)):
        return [(parse_written_date(d), p) for d, p in f.alternatives if p >= DAY_MASS]
    return [(parse_written_date(f.text, reference), 1.0)]


def _line_outcome(
    ctx: LineContext, day: dt.date | None, line_rules: Iterable[Any]
) -> frozenset[tuple[str, Severity]]:
    on_day = replace(ctx, signed_on=day)
    return frozenset((f.code, f.severity) for rule in line_rules for f in rule(on_day))


def _witnessed_on(sheet: Sheet, day: dt.date | None) -> Sheet:
    w = sheet.witness
    if w is None or w.date is None or day is None:
        return sheet
    return replace(sheet, witness=replace(w, date=replace(w.date, text=day.isoformat())))


def _day_pairs(
    date: Field | None, w: Field | None, reference: dt.date, every: bool = False
) -> list[tuple[dt.date | None, dt.date | None, float]]:
    """The pairs of days the line's date and its witness's may be, with their probability:
    read together in the sheet's chain when both are unsure (with `every`: both read among
    the days they can be) and the line's date kept them (`Field.witnessed`), else each one's
    days (`_days`) taken as independent."""
    doubted = _settles if every else _unsure_date
    if date is not None and date.witnessed and doubted(date) and doubted(w):
        return [(parse_written_date(d), parse_written_date(v), p) for d, v, p in date.witnessed]
    return [
        (day, w_day, p * q)
        for w_day, q in _days(w, reference, every)
        for day, p in _days(date, reference, every)
    ]


def _date_outcomes(
    ctx: LineContext, pairs: Iterable[tuple[dt.date | None, dt.date | None, float]], every: bool
) -> tuple[float, float]:
    """The summed probability of the pairs of days the line's date and its witness's may be
    under which the kind's line rules find the same as on the days read (codes and
    severities), and of those under which they find otherwise (a date read as no day among
    them, unless `every`: then its rules are run as for any day). What the two leave is
    "none of these" and days too unlikely to list."""
    rules = ctx.case.spec.rules_on(ctx.case).line_rules
    read = _line_outcome(ctx, ctx.signed_on, rules)
    same = other = 0.0
    witnessed: dict[dt.date | None, LineContext] = {}  # the line on its sheet, by witness's day
    for day, w_day, p in pairs:
        if day is None and not every:
            other += p
            continue
        if w_day not in witnessed:
            witnessed[w_day] = replace(ctx, sheet=_witnessed_on(ctx.sheet, w_day))
        if _line_outcome(witnessed[w_day], day, rules) == read:
            same += p
        else:
            other += p
    return same, other


def _witness_date(ctx: LineContext) -> Field | None:
    return ctx.sheet.witness.date if ctx.sheet.witness is not None else None


def date_settled(ctx: LineContext) -> float:
    """The probability that the line's date and its sheet's witness's date make of the line in
    law what they were read as making of it: the summed probability of the pairs of their days
    (`_day_pairs`: an unsure date's days, a sure one's day) under which the kind's line rules
    find the same (codes and severities)."""
    pairs = _day_pairs(ctx.line.get("date"), _witness_date(ctx), ctx.case.dates.filed)
    return _date_outcomes(ctx, pairs, every=False)[0]


def contested_alone(ctx: LineContext) -> float:
    """As `date_contested`, the line's date taken as read alone (`Field.alone`: its sheet's
    chain left out), its witness's as its days (`_days`): the probability that they make
    something else of the line than the days read. The chain weighs a day after the
    witness's twentyfold down, and such a day is a defect (DATE_AFTER_WITNESS_DATE), so a
    line is not found clear of it by the chain alone: held out, 10/12/26 (after the filing and
    the witness's sure 10/06) was read as 10/2 at 0.93, 0.37 read alone beside 10/12's 0.22,
    and decided valid."""
    date = ctx.line.get("date")
    if date is None or not date.resolved or not date.alone:
        return 0.0
    pairs = [
        (parse_written_date(d), w_day, p * q)
        for w_day, q in _days(_witness_date(ctx), ctx.case.dates.filed, every=True)
        for d, p in date.alone
        if p * q >= DAY_MASS
    ]
    return _date_outcomes(ctx, pairs, every=True)[1]


def date_contested(ctx: LineContext) -> float:
    """The probability that a date read surely enough among the days it can be (its
    likeliest day at or above the threshold), or its witness's, makes of the line in law
    something else than the days read: the summed probability of the pairs of days they may
    be (`_day_pairs`, every day listed, however sure the likeliest) under which the kind's
    line rules find otherwise. A date's threshold answers how likely the day is right; this,
    whether a day it may be instead changes the outcome (10/2 read at 0.85 beside 10/12 at
    0.11, the day after the filing: DATE_AFTER_FILING); the larger of that and the same with
    the date read alone (`contested_alone`)."""
    pairs = _day_pairs(ctx.line.get("date"), _witness_date(ctx), ctx.case.dates.filed, True)
    return max(_date_outcomes(ctx, pairs, every=True)[1], contested_alone(ctx))


# A line's fields besides its date that the kind's line rules may not look at beyond their
# being given: 9-902(8) asks that a petition "set forth ... the ward if any and the village
# election district if any" (statutes/village-law-9-902-referendum-petition.txt;
# `village_9902.line_has_ward_and_district`: WARD_MISSING, ELECTION_DISTRICT_MISSING, asked
# only where the case lists the village's wards or districts), not which ward; a wrong one is
# no defect the statute names. So an unsure ward or district does not hold its line when its
# doubt cannot change what the law makes of the line (`value_settled` at SETTLED_THRESHOLD):
# the numbers it may be that make the same of it hold that much of its probability together
# ("none of these" and the numbers too unlikely to list count against), or the rules find
# the same whatever it says (a ward where the village lists none, even read as nothing).
SETTLED_BY_VALUE = ("ward", "election_district")
# A number no ward or district list holds (a probe for `value_settled`).
UNLISTED = "?"


def value_settled(ctx: LineContext, name: str) -> float:
    """The probability that the line's unsure field `name` (a ward or district) makes of the
    line in law what it was read as making of it. 1 when the kind's line rules find the same
    (codes and severities) whatever it says: empty, as read, each number the case lists, the
    matched voter's, one no list holds (UNLISTED), each it may be. Else, for a field the
    closed-world stage resolved, the summed probability of the numbers it may be
    (`Field.alternatives`) under which they find the same, the line's other fields as read;
    else 0."""
    f = ctx.line.get(name)
    if f is None:
        return 0.0
    rules = ctx.case.spec.rules_on(ctx.case).line_rules
    read = _line_outcome(ctx, ctx.signed_on, rules)

    def same(text: str) -> bool:
        as_text = replace(f, text=text)
        line = replace(ctx.line, fields=tuple(as_text if g is f else g for g in ctx.line.fields))
        return _line_outcome(replace(ctx, line=line), ctx.signed_on, rules) == read

    place = ctx.case.municipality
    listed = place.wards if name == "ward" else place.election_districts
    voters = [getattr(ctx.entry, name)] if ctx.entry is not None else []
    probes = {"", f.text, UNLISTED, *listed, *voters, *(v for v, _ in f.alternatives)}
    if all(same(text) for text in sorted(probes)):
        return 1.0
    if not _settles(f):
        return 0.0
    return sum(p for value, p in f.alternatives if same(value))


def name_settled(ctx: LineContext) -> float:
    """The probability a resolved name gives the voters its line's signer surely is one of
    (`Match.one_of`: a Jr and a Sr of one name at one address, the suffix the doubt): which of
    them the name says, the judge settles by the line's rules (`judge._one_of_settled`), so the
    name's doubt between them need not hold the line. 0 without such a match."""
    f = ctx.line.get("name")
    either = ctx.match.one_of if ctx.match is not None else ()
    if f is None or not either or not _settles(f):
        return 0.0
    return sum(p for voter, p in f.alternatives if voter in either)


def _unsure_date(f: Field | None) -> bool:
    return f is not None and f.source is Source.OCR and f.confidence < _threshold(f)


def _settles(f: Field | None) -> bool:
    return f is not None and f.resolved and bool(f.alternatives)


def low_confidence_fields(ctx: LineContext) -> Iterable[Finding]:
    """A line with any field OCR read with confidence below its threshold: a person checks
    the reading (the line's crop is kept for them). The signature's confidence is the ink
    test's, so an unsure signed/unsigned call is caught here too. A resolved date whose doubt
    cannot change what the law makes of the line (`date_settled` at SETTLED_THRESHOLD or
    more) does not hold it: the line is decided, its date the likeliest day; a resolved ward
    or district likewise (`value_settled`), its likeliest number kept. An unsure witness
    date that did not hold its sheet (`witness_date_settled`) holds each dated line it may
    change the outcome of ("witness.date" among the fields named). A date read surely enough
    among the days it can be, or its witness's, still holds the line when the days they may
    be instead that make something else of it hold more than 1 - SETTLED_THRESHOLD of their
    probability (`date_contested`)."""
    low = _low((f.name, f) for f in ctx.line.fields)
    for name in SETTLED_BY_VALUE:
        if name in low and value_settled(ctx, name) >= SETTLED_THRESHOLD:
            del low[name]
    if "name" in low and name_settled(ctx) >= SETTLED_THRESHOLD:
        del low["name"]
    date, w = ctx.line.get("date"), ctx.sheet.witness.date if ctx.sheet.witness else None
    w_dated = _settles(w) and bool(ctx.line.text("date"))
    w_unsure = w_dated and _unsure_date(w)
    if "date" in low or w_unsure:
        settled = date_settled(ctx) >= SETTLED_THRESHOLD and (not low or _settles(date))
        if settled:
            low.pop("date", None)
        elif w_unsure:
            low["witness.date"] = round(w.confidence, 3)  # type: ignore[union-attr]
    # a line its witness's unsure date did not hold is weighed on its own date's days too:
    # held out (seed 1203), "October 11, 2026" (after the filing) read as October 1 at 0.86,
    # 10/11 at 0.11 read alone, was decided valid when its witness's date was unsure
    held = "date" in low or "witness.date" in low
    if not held and (_settles(date) or w_dated) and date_contested(ctx) > 1 - SETTLED_THRESHOLD:
        if _settles(date):
            low["date"] = round(date.confidence, 3)  # type: ignore[union-attr]
        else:
            low["witness.date"] = round(w.confidence, 3)  # type: ignore[union-attr]
    if low:
        names = ", ".join(f"{name} ({conf:.2f})" for name, conf in sorted(low.items()))
        yield ctx.finding(
            "FIELD_LOW_CONFIDENCE",
            Severity.REVIEW,
            "",
            f"read with low confidence: {names}; check the line against the sheet",
            fields=low,
            thresholds={
                name: _threshold(f)
                for name, f in (*((f.name, f) for f in ctx.line.fields), ("witness.date", w))
                if name in low and f is not None
            },
        )


def low_confidence_sheet_fields(sheet: Sheet, case: CaseConfig) -> Iterable[Finding]:
    """A sheet whose number, or whose witness statement's stated count, date or signature, was
    read with low confidence: a person checks them before the sheet's lines count. A date the
    closed-world stage read among the days it can be is held to the resolved fields'
    threshold; a handwritten signature's confidence is its ink test's (signed or not). A
    witness's date or name that makes the same of the sheet whatever it says
    (`witness_date_settled`, `witness_name_settled`) does not hold it."""
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
    if "witness.name" in low and witness_name_settled(sheet, case):
        del low["witness.name"]
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


def witness_date_settled(sheet: Sheet, case: CaseConfig) -> float:
    """The probability that the witness statement's date, read in the closed world, makes of
    the sheet in law what the day it was read as makes of it: the summed probability of its
    days under which the kind's sheet rules find the same; 1 when they find the same on every
    day it may be and on days far outside the window (`_far_days`), so that its "none of
    these" share cannot change it either. (What it makes of each line, dated
    after it or not, each line's `date_settled` weighs.)"""
    w = sheet.witness.date if sheet.witness is not None else None
    if not _settles(w):
        return 0.0
    rules = case.spec.rules_on(case).sheet_rules

    def outcome(day: dt.date | None) -> frozenset[tuple[str, Severity]]:
        on_day = _witnessed_on(sheet, day)
        return frozenset((f.code, f.severity) for rule in rules for f in rule(on_day, case))

    read = outcome(parse_written_date(w.text, case.dates.filed))  # type: ignore[union-attr]
    days = _days(w, case.dates.filed)
    same = [d is not None and outcome(d) == read for d, _ in days]
    if all(same) and all(outcome(far) == read for far in _far_days(case)):
        return 1.0  # no day it may be, listed or not ("none of these"), changes the sheet
    return sum(p for (_, p), ok in zip(days, same, strict=True) if ok)


def witness_name_settled(sheet: Sheet, case: CaseConfig) -> bool:
    """Whether the witness's name, read with low confidence, is nonetheless settled for the
    sheet: it is written (letters read as such, not a speck or a blank's leader: `_written`)
    and the kind's sheet rules find the
    same under any other name written there. 9-902(8)'s statement, like the nominating
    and 2-202 forms, must state the witness's name, not a particular one (WITNESS_NAME_MISSING
    is the rules' only use of it), so a person need not read it before the sheet's lines count;
    the report still gives it as read, with its confidence. A kind whose rules one day look the
    name up (a witness who must be an enrolled voter) finds another outcome under another name,
    and the name holds its sheet again."""
    w = sheet.witness
    name = w.witness_name if w is not None else None
    if w is None or name is None or not _written(name):
        return False
    rules = case.spec.rules_on(case).sheet_rules

    def outcome(text: str) -> frozenset[tuple[str, Severity]]:
        named = replace(sheet, witness=replace(w, witness_name=replace(name, text=text)))
        return frozenset((f.code, f.severity) for rule in rules for f in rule(named, case))

    read = outcome(name.text)
    return all(outcome(other) == read for other in (name.text[::-1], "Quentin Ashdown"))


# A name blank holds writing, not a speck, a stray stroke or the printed leader an empty
# blank keeps ("ccceceuruennn...." at 0.0, a box 1.2 pt high, read from an empty blank's
# underscores on a scanned nominating sheet): letters, this many at least, read with at least
# WRITTEN_CONFIDENCE, in a box at least WRITTEN_HEIGHT points high (a line of text; a
# leader or rule is a point or two).
WRITTEN_LETTERS = 2
WRITTEN_CONFIDENCE = 0.5
WRITTEN_HEIGHT = 3.0


def _written(name: Field) -> bool:
    tall = name.box is None or name.box.bottom - name.box.top >= WRITTEN_HEIGHT
    letters = sum(c.isalpha() for c in name.text) >= WRITTEN_LETTERS
    return letters and tall and name.confidence >= WRITTEN_CONFIDENCE


# Days far outside any signing window (FAR_YEARS before the filing and after it): a sheet
# whose rules find the same on them and on every day its witness's date may be is found so on
# a date outside the closed world too (its rules compare the date with the case's dates and
# the statutes' versions).
FAR_YEARS = 50


def _far_days(case: CaseConfig) -> tuple[dt.date, dt.date]:
    far = dt.timedelta(days=round(365.25 * FAR_YEARS))
    return case.dates.filed - far, case.dates.filed + far


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
