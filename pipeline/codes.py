"""The finding-code catalogue: every code a finding can carry, in one place.

A finding's `code` is stable: reports, objections, reviewers and tests key on it. Each entry says
what the code is about (its `Category`: the verdict logic keys on categories, never on code
names), in plain words what it means, and, for each petition kind that uses it, the severity it
is given, what it is about (a line, a sheet, the petition, the case's inputs), the rule in words
and the clause it comes from. Where a kind gives a code another severity or another clause, the
code has one `Use` per difference.

The README's "What is checked" tables and the report schema's list of codes are generated from
here and checked in tests/test_codes.py:

    python -m pipeline.codes             # list the catalogue
    python -m pipeline.codes --readme    # rewrite the tables between the markers in README.md
    python -m pipeline.codes --schema    # rewrite the codes listed in the report schema
    python -m pipeline.codes --check     # exit 1 if either is out of date

The rule and citation texts are the README's (short citations: "9-902(8)", "subd. 1"); the full
citation a finding carries comes from its rule module.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from types import MappingProxyType
from typing import Any

from .case import PetitionKind
from .records import Severity

__all__ = [
    "CATALOGUE",
    "CODE_PATTERN",
    "Category",
    "Code",
    "Scope",
    "TABLES",
    "Use",
    "category",
    "codes_in",
    "render_readme",
    "render_schema",
]

CODE_PATTERN = r"^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$"


class Category(StrEnum):
    """What a finding is about. The verdict logic asks for categories, not code names."""

    SIGNER = "signer"  # who signed: found on the register or the roll, counted once
    LINE = "line"  # a line's own entries: signature, date, residence, ward, valuation
    SHEET = "sheet"  # a sheet's number and the statement at its foot
    PETITION = "petition"  # the petition itself: its filing, contents, committee, designees
    CALENDAR = "calendar"  # a note for the clerk's calendar, not a defect
    # The reading itself is in doubt: nothing read with that doubt is decided by the software,
    # not even on a fatal finding (it may rest on a misreading).
    READING = "reading"
    # A page on which no signature table could be read: it may hold lines that are not counted,
    # so the verdict cannot be "insufficient" while it stands.
    UNREAD = "unread"
    REGISTER = "register"  # the register or the roll file itself
    REVIEWER = "reviewer"  # a reviewer's decision
    # The case's inputs do not fit together (a decision for a line in no sheet, a threshold of
    # nothing): no verdict is decided while it stands.
    INPUTS = "inputs"


class Scope(StrEnum):
    """What a finding is attached to."""

    LINE = "line"  # a signature line (page_id and line_no set)
    SHEET = "sheet"  # a sheet (page_id set; copied onto its lines when fatal or review)
    PETITION = "petition"  # the petition, or the case's inputs (register, decisions): page_id None


ALL_KINDS = frozenset(PetitionKind)
_PR = PetitionKind.PERMISSIVE_REFERENDUM
_IN = PetitionKind.INDEPENDENT_NOMINATION
_INC = PetitionKind.INCORPORATION
_ID = PetitionKind.IMPROVEMENT_DISTRICT
FATAL, REVIEW, NOTE = Severity.FATAL, Severity.REVIEW, Severity.NOTE


@dataclass(frozen=True, slots=True)
class Use:
    """How the petition kinds in `kinds` use a code."""

    kinds: frozenset[PetitionKind]
    severities: tuple[Severity, ...]  # those the rule gives (a scanned sheet's fatal: review)
    scope: Scope
    rule: str  # the rule, in the README's words
    citation: str  # the clause, in the README's short form ("—": no statute's)
    severity_words: str = ""  # the README's severity column, where the severities do not say it

    @property
    def severity_text(self) -> str:
        if self.severity_words:
            return self.severity_words
        text = " / ".join(self.severities)
        return f"{text} ({self.scope})" if self.scope in (Scope.SHEET, Scope.PETITION) else text


@dataclass(frozen=True, slots=True)
class Code:
    code: str
    category: Category
    description: str  # what the code means, in plain words, whatever the kind
    uses: tuple[Use, ...]

    @property
    def kinds(self) -> frozenset[PetitionKind]:
        return frozenset().union(*(u.kinds for u in self.uses))

    def uses_for(self, kind: PetitionKind) -> tuple[Use, ...]:
        return tuple(u for u in self.uses if kind in u.kinds)

    def severities_for(self, kind: PetitionKind) -> frozenset[Severity]:
        return frozenset(s for u in self.uses_for(kind) for s in u.severities)


def _code(code: str, category: Category, description: str, *uses: Use) -> Code:
    return Code(code, category, description, uses)


def _use(
    kinds: Iterable[PetitionKind],
    severity: Severity | tuple[Severity, ...],
    scope: Scope,
    rule: str,
    citation: str,
    severity_words: str = "",
) -> Use:
    severities = severity if isinstance(severity, tuple) else (severity,)
    return Use(frozenset(kinds), severities, scope, rule, citation, severity_words)


L, S, P = Scope.LINE, Scope.SHEET, Scope.PETITION
VOTERS = (_PR, _IN, _INC)  # the kinds whose signers are looked up on the register
_9902_1 = "9-902(1)"
_9902_8 = "9-902(8)"
_DEADLINE = "9-902(1); General Construction Law § 25-a"
_BLANK = "part of the statement is blank"
_OLD_FORM = (
    "only in the statement in force before 2017-11-22 (chosen by the statement's date): the "
    "witness's village and county, and the village is this one"
)
_NUMBERED_9902 = "sheets numbered consecutively from one at the foot"
_NUMBERED_NOMINATION = '"The sheets ... shall be numbered" (a gap is not a defect here)'
_FALLS = "every line of the sheet falls"
_SIGNING_FROM = "dated before the case's first day of signing (dates.signing_from)"
_COUNT = "the stated number of signatures is not the number of signed lines"
_COMMITTEE = '"at least three persons" with addresses'
_CONTENTS = "the petition's contents and exhibits"
_191 = "the boundaries as in a deed; the maximum to be spent on an improvement"

# In the order of the README's tables.
_ENTRIES = (
    _code(
        "PETITION_FILED_LATE",
        Category.PETITION,
        "The petition was filed after the last day the statute allows.",
        _use(
            [_PR],
            FATAL,
            P,
            "filed more than 30 days after adoption (day of adoption not counted), or, when the "
            "thirtieth day is a Saturday, Sunday or public holiday, after the next business day",
            _DEADLINE,
        ),
    ),
    _code(
        "FILED_ON_NEXT_BUSINESS_DAY",
        Category.CALENDAR,
        "The petition was filed after the last counted day, which was a Saturday, Sunday or "
        "public holiday, and by the next business day: it is in time, and the report says why.",
        _use(
            [_PR],
            NOTE,
            P,
            "filed after the thirtieth day, which was a Saturday, Sunday or public holiday, and "
            'by the next business day: timely, and the report says so ("the thirtieth day, '
            "2026-05-31, was a Sunday; filing on the next business day, 2026-06-01, is timely "
            '(General Construction Law § 25-a)")',
            _DEADLINE,
        ),
    ),
    _code(
        "SIGNER_NOT_REGISTERED",
        Category.SIGNER,
        "Nobody on the register matches the signer.",
        _use(VOTERS, FATAL, L, "nobody on the register matches the signer", _9902_1),
    ),
    _code(
        "MATCH_UNCERTAIN",
        Category.SIGNER,
        "The matcher cannot tell for sure who signed; a person chooses among the candidates.",
        _use(ALL_KINDS, REVIEW, L, "the matcher is not sure who signed; candidates kept", _9902_1),
    ),
    _code(
        "SIGNER_ONE_OF",
        Category.SIGNER,
        "The signer is one of two voters (a Jr and a Sr of one name at one address, the suffix "
        "read by OCR); the line's rules find the same whichever, so it is decided.",
        _use(
            ALL_KINDS,
            NOTE,
            L,
            "the signer is one of two voters the line's rules find alike",
            _9902_1,
        ),
    ),
    _code(
        "SIGNER_PURGED",
        Category.SIGNER,
        "The signer's registration is purged.",
        _use(
            VOTERS,
            (FATAL, REVIEW),
            L,
            "purged on or before the signing date / purged, no date",
            _9902_1,
        ),
    ),
    _code(
        "SIGNER_NOT_ELECTOR",
        Category.SIGNER,
        "The signer is pre-registered (17 years old), not yet a voter.",
        _use(VOTERS, FATAL, L, "a pre-registered 17-year-old", _9902_1),
    ),
    _code(
        "SIGNER_OUTSIDE_VILLAGE",
        Category.SIGNER,
        "The register places the signer outside the village (or the territory).",
        _use(
            [_PR, _INC],
            FATAL,
            L,
            "the register places the voter outside the village's town, EDs or wards",
            _9902_1,
        ),
        _use([_IN], FATAL, L, '"residents of the village"', "subd. 1"),
    ),
    _code(
        "SIGNER_REGISTERED_AFTER_SIGNING",
        Category.SIGNER,
        "The signer's registration is dated after the signature.",
        _use([_PR, _INC], REVIEW, L, "registration dated after the signature", _9902_1),
        _use([_IN], FATAL, L, '"registered ... at the time of signing"', "subd. 1"),
    ),
    _code(
        "SIGNER_INACTIVE",
        Category.SIGNER,
        "The signer's registration is inactive (still registered: the line counts).",
        _use(VOTERS, NOTE, L, "inactive voters remain registered", _9902_1),
    ),
    _code(
        "SIGNER_NOT_OWNER",
        Category.SIGNER,
        "Nobody on the assessment roll matches the signer.",
        _use([_INC, _ID], FATAL, L, "nobody on the roll matches the signer", "2-202(1)(a)(2), 191"),
    ),
    _code(
        "VALUATION_NOT_STATED",
        Category.LINE,
        "An owner's line does not state the assessed valuation credited to the signer.",
        _use(
            [_INC],
            REVIEW,
            L,
            "an owner's line does not state the assessed valuation credited to them",
            "2-202(1)(e)(3)",
        ),
    ),
    _code(
        "DUPLICATE_SIGNER",
        Category.SIGNER,
        "The signer already signed an earlier line: a signer counts once.",
        _use(
            ALL_KINDS,
            (FATAL, REVIEW),
            L,
            "the voter already signed; the first line not invalid counts (every kind)",
            "9-902",
            "fatal (review while the first line is in review, or the line's name was read unsure)",
        ),
    ),
    _code(
        "NO_SIGNATURE",
        Category.LINE,
        "The signature cell is empty.",
        _use(ALL_KINDS, FATAL, L, "the signature cell is empty", _9902_8),
    ),
    _code(
        "LINE_UNDATED",
        Category.LINE,
        "The line has no date of signing.",
        _use([_PR, _IN], FATAL, L, "no date of signing", _9902_8),
    ),
    _code(
        "DATE_UNREADABLE",
        Category.LINE,
        "The date of signing cannot be read as a date.",
        _use([_PR, _IN], REVIEW, L, "the date cannot be read", _9902_8),
    ),
    _code(
        "DATE_AFTER_FILING",
        Category.LINE,
        "The line is dated after the petition was filed.",
        _use([_PR, _IN], FATAL, L, "dated after the filing", _9902_8),
    ),
    _code(
        "DATE_BEFORE_ADOPTION",
        Category.LINE,
        "The line is dated before the act or resolution was adopted.",
        _use([_PR], REVIEW, L, "dated before the act was adopted", _9902_8),
    ),
    _code(
        "DATE_BEFORE_SIGNING_PERIOD",
        Category.LINE,
        "The line is dated before the first day signatures may be gathered, as the case file "
        "sets it (dates.signing_from); the statute does not say such a line falls.",
        _use([_PR], REVIEW, L, _SIGNING_FROM, _9902_8),
        _use([_IN], REVIEW, L, _SIGNING_FROM, "subd. 1"),
        _use([_INC], REVIEW, L, _SIGNING_FROM, "2-202(1)(e)(1)"),
        _use([_ID], REVIEW, L, _SIGNING_FROM, "191"),
    ),
    _code(
        "DATE_AFTER_WITNESS_DATE",
        Category.LINE,
        "The line is dated after the witness dated the statement.",
        _use([_PR, _IN], REVIEW, L, "dated after the witness dated the statement", _9902_8),
    ),
    _code(
        "RESIDENCE_MISSING",
        Category.LINE,
        "The line gives no residence (address).",
        _use([_PR, _IN], FATAL, L, "no residence", _9902_8),
        _use(
            [_INC],
            FATAL,
            L,
            '"the signer\'s address consisting of street name and number ... and town"',
            "2-202(1)(e)(3)",
        ),
    ),
    _code(
        "WARD_MISSING",
        Category.LINE,
        "The village has wards and the line gives none.",
        _use([_PR], REVIEW, L, "the village has them, the line does not give one", _9902_8),
    ),
    _code(
        "ELECTION_DISTRICT_MISSING",
        Category.LINE,
        "The village has election districts and the line gives none.",
        _use([_PR], REVIEW, L, "the village has them, the line does not give one", _9902_8),
    ),
    _code(
        "SHEET_NUMBER_MISSING",
        Category.SHEET,
        "The sheet has no number.",
        _use([_PR], REVIEW, S, _NUMBERED_9902, _9902_8),
        _use([_IN], REVIEW, S, _NUMBERED_NOMINATION, "subd. 1"),
    ),
    _code(
        "SHEET_NUMBER_DUPLICATE",
        Category.SHEET,
        "Another sheet has the same number.",
        _use([_PR], REVIEW, S, _NUMBERED_9902, _9902_8),
        _use([_IN], REVIEW, S, _NUMBERED_NOMINATION, "subd. 1"),
    ),
    _code(
        "SHEET_NUMBERING_GAP",
        Category.SHEET,
        "A number is missing from the sheets' sequence (the sheet may never have been filed).",
        _use([_PR], NOTE, P, "a number is missing from the sequence", _9902_8),
    ),
    _code(
        "WITNESS_STATEMENT_MISSING",
        Category.SHEET,
        "The sheet has no statement of witness (or none of a form the petition accepts).",
        _use([_PR, _IN], FATAL, S, _FALLS, _9902_8),
        _use(
            [_INC, _ID],
            FATAL,
            S,
            "no authenticating affidavit at the bottom of the page (2-202); no witness's, "
            "notary's or acknowledgment statement (191)",
            "2-202(1)(e)(4), 191",
        ),
    ),
    _code(
        "WITNESS_NOT_SIGNED",
        Category.SHEET,
        "The statement at the foot of the sheet is not signed.",
        _use(ALL_KINDS, FATAL, S, _FALLS, _9902_8),
    ),
    _code(
        "WITNESS_COUNT_MISMATCH",
        Category.SHEET,
        "The statement's number of signatures is not the number of signed lines.",
        _use(ALL_KINDS, REVIEW, S, _COUNT, _9902_8),
    ),
    _code(
        "WITNESS_COUNT_MISSING",
        Category.SHEET,
        "The statement does not state the number of signatures.",
        _use(ALL_KINDS, REVIEW, S, _COUNT, _9902_8),
    ),
    _code(
        "WITNESS_NAME_MISSING",
        Category.SHEET,
        "The statement lacks the witness's name.",
        _use(VOTERS, REVIEW, S, _BLANK, _9902_8),
    ),
    _code(
        "WITNESS_RESIDENCE_MISSING",
        Category.SHEET,
        "The statement lacks the witness's residence.",
        _use(VOTERS, REVIEW, S, _BLANK, _9902_8),
    ),
    _code(
        "WITNESS_DATE_MISSING",
        Category.SHEET,
        "The statement lacks its date.",
        _use(ALL_KINDS, REVIEW, S, _BLANK, _9902_8),
    ),
    _code(
        "WITNESS_VILLAGE_MISSING",
        Category.SHEET,
        "The statement (in its form before 2017-11-22) lacks the witness's village.",
        _use([_IN], REVIEW, S, _OLD_FORM, "subd. 1"),
    ),
    _code(
        "WITNESS_COUNTY_MISSING",
        Category.SHEET,
        "The statement (in its form before 2017-11-22) lacks the witness's county.",
        _use([_IN], REVIEW, S, _OLD_FORM, "subd. 1"),
    ),
    _code(
        "WITNESS_NOT_OF_VILLAGE",
        Category.SHEET,
        "The witness states a residence in another village: not qualified to witness the sheet.",
        _use(
            [_PR],
            REVIEW,
            S,
            "the witness states a residence in another village (an unqualified witness)",
            _9902_8,
        ),
        _use([_IN], REVIEW, S, _OLD_FORM, "subd. 1"),
    ),
    _code(
        "SHEET_NOT_READ",
        Category.UNREAD,
        "No signature table could be read on the page; a person checks the sheet by hand.",
        _use(ALL_KINDS, REVIEW, S, "no signature table could be read on the page", "—"),
    ),
    _code(
        "LAYOUT_DOUBT",
        Category.READING,
        "The reader could not lay the sheet out with confidence.",
        _use(
            ALL_KINDS,
            REVIEW,
            S,
            "the reader could not lay the sheet out with confidence (a needed column not placed, "
            "a table found by its text alone): no line of it is decided on that reading, even a "
            "fatal finding waits for a person",
            "—",
        ),
    ),
    _code(
        "FIELD_LOW_CONFIDENCE",
        Category.READING,
        "A field of the line was read by OCR with a confidence below its threshold.",
        _use(
            ALL_KINDS,
            REVIEW,
            L,
            "a field of the line was read with a confidence below its threshold "
            "(pipeline/rules/reading.py): no finding on the line is decided on that reading, "
            "even a fatal one waits for a person",
            "—",
        ),
    ),
    _code(
        "SHEET_FIELD_LOW_CONFIDENCE",
        Category.READING,
        "The sheet's number, or its statement's count, date, signature or name, was read by OCR "
        "with a confidence below its threshold.",
        _use(
            ALL_KINDS,
            REVIEW,
            S,
            "the sheet's number, or the statement's count, date, signature or name, was read with "
            "a confidence below its threshold: a person checks them before the lines count",
            "—",
        ),
    ),
    _code(
        "REVIEWER_REJECTED",
        Category.REVIEWER,
        "A reviewer rejected the line, with their reason.",
        _use(ALL_KINDS, FATAL, L, "a reviewer rejected the line, with their reason", "—"),
    ),
    _code(
        "REVIEWER_REJECTED_SHEET",
        Category.REVIEWER,
        "A reviewer rejected the sheet, with their reason: every line of it falls.",
        _use(ALL_KINDS, FATAL, S, "a reviewer rejected the sheet, with their reason", "—"),
    ),
    _code(
        "REVIEWER_ACCEPTED_SHEET",
        Category.REVIEWER,
        "A reviewer read the sheet as complete: its review findings are settled.",
        _use(
            ALL_KINDS,
            NOTE,
            S,
            "a reviewer read the sheet's statement and number as complete: its review findings "
            "are settled",
            "—",
        ),
    ),
    _code(
        "UNSPECIFIED",
        Category.LINE,
        "An objection's ground for an invalid line that has no finding recorded (not expected: "
        "every invalid line has a fatal finding or a reviewer's rejection).",
        _use(
            ALL_KINDS,
            FATAL,
            L,
            "the ground of an invalid line with no finding recorded (in objections only; not "
            "expected)",
            "—",
        ),
    ),
    _code(
        "REGISTER_BAD_ROWS",
        Category.REGISTER,
        "Rows of the register or the roll could not be read.",
        _use(
            ALL_KINDS,
            NOTE,
            P,
            "rows of the register or roll that could not be read; the verdict stays "
            "`undetermined` where they could change it",
            "—",
        ),
    ),
    _code(
        "REGISTER_INCOMPLETE_ROWS",
        Category.REGISTER,
        "Rows of the register lack a surname or a given name; they are kept and matched on the "
        "rest.",
        _use(
            ALL_KINDS,
            NOTE,
            P,
            "rows lacking a surname or a given name: kept, matched on the rest",
            "—",
        ),
    ),
    _code(
        "REGISTER_DUPLICATE_ROWS",
        Category.REGISTER,
        "Rows of the register or the roll repeat another row exactly: one voter, counted once.",
        _use(ALL_KINDS, NOTE, P, "rows that repeat another exactly: one voter, counted once", "—"),
    ),
    _code(
        "REGISTER_CONFLICTING_IDS",
        Category.REGISTER,
        "Ids of the register or the roll have rows that disagree; the first row of each is used.",
        _use(
            ALL_KINDS,
            NOTE,
            P,
            "one id, rows that disagree: the first is used; the verdict stays `undetermined` "
            "where they could change it",
            "—",
        ),
    ),
    _code(
        "DENOMINATOR_IMPLAUSIBLE",
        Category.INPUTS,
        "The threshold's denominator is implausible (a threshold of no signatures at all).",
        _use(
            VOTERS,
            REVIEW,
            P,
            "a threshold of 0, or a denominator far from the register's count: no verdict until "
            "a person checks the case file",
            "—",
        ),
    ),
    _code(
        "DECISIONS_UNMATCHED",
        Category.INPUTS,
        "A reviewer's decision names a line that is in no sheet of the case; it was not applied.",
        _use(
            ALL_KINDS,
            REVIEW,
            P,
            "reviewers' decisions for line ids in no sheet of the case, not applied: no verdict "
            "until a person looks",
            "—",
        ),
    ),
    _code(
        "DECISIONS_CONFLICTING",
        Category.INPUTS,
        "Reviewers' latest decisions for one line, made at the same moment, disagree; none is "
        "applied.",
        _use(
            ALL_KINDS,
            REVIEW,
            L,
            "reviewers' decisions for the line at the same moment disagree: none applied, the "
            "line waits for a person",
            "—",
        ),
    ),
    _code(
        "OBJECTION_WINDOW",
        Category.CALENDAR,
        "The last day for written objections to the petition.",
        _use(
            [_PR],
            NOTE,
            P,
            "the last day for written objections (a note for the clerk's calendar)",
            "9-902(9)",
        ),
    ),
    _code(
        "PROPOSITION_ELECTION",
        Category.CALENDAR,
        "Where the proposition goes if the petition is sufficient.",
        _use(
            [_PR],
            NOTE,
            P,
            "where the proposition goes (a note for the clerk's calendar)",
            "9-902(5), (6); Village Law § 15-104",
        ),
    ),
    _code(
        "BODY_NAME_USES_PARTY_NAME",
        Category.PETITION,
        "The independent body's name includes a word or an abbreviation of an existing party's.",
        _use(
            [_IN],
            REVIEW,
            P,
            "the body's name includes a word or abbreviation of an existing party's name",
            "subd. 3",
        ),
    ),
    _code(
        "BODY_NAME_MISSING",
        Category.PETITION,
        "The petition selects no name for the independent body.",
        _use([_IN], NOTE, P, "the board of elections selects a name", "subd. 3"),
    ),
    _code(
        "COMMITTEE_TOO_SMALL",
        Category.PETITION,
        "The committee to fill vacancies names fewer than three persons.",
        _use([_IN], REVIEW, P, _COMMITTEE, "subd. 1"),
    ),
    _code(
        "COMMITTEE_ADDRESS_MISSING",
        Category.PETITION,
        "A member of the committee to fill vacancies is named without an address.",
        _use([_IN], REVIEW, P, _COMMITTEE, "subd. 1"),
    ),
    _code(
        "COMMITTEE_MEMBER_NOT_VILLAGE_VOTER",
        Category.PETITION,
        "A member of the committee to fill vacancies is not found as a voter of the village.",
        _use(
            [_IN],
            REVIEW,
            P,
            "each member, looked up on the register, is a registered voter of the village",
            "subd. 1",
        ),
    ),
    _code(
        "VILLAGE_NAME_MISSING",
        Category.PETITION,
        "The petition does not name the proposed village.",
        _use([_INC], FATAL, P, _CONTENTS, "2-202(1)(b), (c)"),
    ),
    _code(
        "POPULATION_BELOW_MINIMUM",
        Category.PETITION,
        "The petition does not allege a population of at least five hundred.",
        _use([_INC], FATAL, P, _CONTENTS, "2-202(1)(b), (c)"),
    ),
    _code(
        "DESIGNEES_COUNT",
        Category.PETITION,
        "The petition does not name one to three designees.",
        _use([_INC], FATAL, P, _CONTENTS, "2-202(1)(b), (c)"),
    ),
    _code(
        "DESIGNEE_ADDRESS_MISSING",
        Category.PETITION,
        "A designee is named without an address.",
        _use([_INC], FATAL, P, _CONTENTS, "2-202(1)(b), (c)"),
    ),
    _code(
        "TERRITORY_NOT_DESCRIBED",
        Category.PETITION,
        "The petition does not have a description of the territory attached.",
        _use([_INC], FATAL, P, _CONTENTS, "2-202(1)(b), (c)"),
    ),
    _code(
        "INHABITANTS_NOT_LISTED",
        Category.PETITION,
        "The petition does not have the list of the territory's regular inhabitants attached.",
        _use([_INC], FATAL, P, _CONTENTS, "2-202(1)(b), (c)"),
    ),
    _code(
        "DESIGNEES_NOT_MAJORITY_RESIDENT",
        Category.PETITION,
        "A majority of the designees are not known to reside in the territory.",
        _use(
            [_INC],
            (FATAL, REVIEW),
            P,
            "a majority of the designees reside in the territory",
            "2-202(1)(b)(5)",
            "fatal, or review when residence is unknown",
        ),
    ),
    _code(
        "BOUNDARIES_NOT_DESCRIBED",
        Category.PETITION,
        "The petition does not describe the district's boundaries as in a deed.",
        _use([_ID], FATAL, P, _191, "191"),
    ),
    _code(
        "MAXIMUM_AMOUNT_MISSING",
        Category.PETITION,
        "The petition requests an improvement and states no maximum amount to be spent on it.",
        _use([_ID], FATAL, P, _191, "191"),
    ),
)

CATALOGUE: Mapping[str, Code] = MappingProxyType({c.code: c for c in _ENTRIES})


def category(code: str) -> Category:
    return CATALOGUE[code].category


def codes_in(*categories: Category) -> frozenset[str]:
    """The codes of the given categories."""
    return frozenset(c.code for c in _ENTRIES if c.category in categories)


# -- the README's tables ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Table:
    """One of the README's "What is checked" tables: a use of a code is shown in the first
    table whose kinds it has; `before` and `after` are rows that are not codes."""

    name: str  # the marker: <!-- codes:NAME --> ... <!-- /codes -->
    kinds: frozenset[PetitionKind]
    before: tuple[tuple[str, str, str, str], ...] = ()
    after: tuple[tuple[str, str, str, str], ...] = ()


TABLES = (
    Table("9-902", frozenset({_PR})),
    Table(
        "nomination",
        frozenset({_IN}),
        after=(
            (
                "notary's statement",
                "accepted",
                "in lieu of the witness's: needs the count, date and signature",
                "subd. 2",
            ),
            (
                "threshold",
                "",
                "100 at 5,000 people or more; 75 at 3,000-4,999; 50 at 1,000-2,999; under 1,000, "
                "5% of the voters at the last regular village election",
                "subd. 4",
            ),
        ),
    ),
    Table(
        "2-202-191",
        frozenset({_INC, _ID}),
        before=(
            (
                "threshold, residents",
                "",
                "at least 20% of the territory's residents qualified to vote for town officers",
                "2-202(1)(a)(1)",
            ),
            (
                "threshold, owners",
                "",
                "more than half the assessed valuation (exactly half is not enough; exempt "
                "property counts); in several towns, more than half the full valuation (assessed "
                "/ equalization rate) in each town's part",
                "2-202(1)(a)(2)",
            ),
            (
                "threshold",
                "",
                "at least half the taxable assessed valuation (exactly half is enough); and, where "
                "there are resident owners, resident owners of at least half of theirs",
                "191",
            ),
        ),
    ),
)


def _shown_in(use: Use) -> str:
    return next(t.name for t in TABLES if use.kinds & t.kinds)


def table_markdown(table: Table) -> str:
    """The table's rows: consecutive codes with the same severity, rule and citation share one."""
    rows: list[tuple[list[str], str, str, str]] = []
    for entry in _ENTRIES:
        for use in entry.uses:
            if _shown_in(use) != table.name:
                continue
            cells = (use.severity_text, use.rule, use.citation)
            if rows and rows[-1][1:] == cells:
                rows[-1][0].append(entry.code)
            else:
                rows.append(([entry.code], *cells))
    table_rows: list[tuple[str, ...]] = [
        *table.before,
        *((", ".join(f"`{c}`" for c in codes), *rest) for codes, *rest in rows),
        *table.after,
    ]
    lines = ["| code | severity | rule | citation |", "|---|---|---|---|"]
    lines += [" ".join(["|", *(f"{c} |" if c else "|" for c in row)]) for row in table_rows]
    return "\n".join(lines)


def _marker(name: str) -> re.Pattern[str]:
    return re.compile(
        rf"(<!-- codes:{re.escape(name)} -->\n).*?(\n<!-- /codes -->)", flags=re.DOTALL
    )


def render_readme(text: str) -> str:
    """The README with each table between its markers generated from the catalogue."""
    for table in TABLES:
        match = _marker(table.name).search(text)
        if match is None:
            raise ValueError(f"README has no <!-- codes:{table.name} --> ... <!-- /codes -->")
        text = text[: match.end(1)] + table_markdown(table) + text[match.start(2) :]
    return text


# -- the report schema --------------------------------------------------------------------------


def render_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The report schema with `$defs.finding_code` listing the catalogue's codes (as `examples`:
    the schema checks a code's form, so a new code does not change the schema's version)."""
    doc = json.loads(json.dumps(schema))
    definition = doc["$defs"]["finding_code"]
    definition["pattern"] = CODE_PATTERN
    definition["examples"] = sorted(CATALOGUE)
    return doc


def schema_text(schema: Mapping[str, Any]) -> str:
    return json.dumps(schema, indent=2) + "\n"


# -- the command --------------------------------------------------------------------------------

_ROOT = Path(__file__).resolve().parents[1]
README = _ROOT / "README.md"
SCHEMA = Path(__file__).resolve().parent / "schema" / "report.schema.json"


def _stale(readme: Path, schema: Path) -> list[tuple[Path, str]]:
    """(file, what it should hold) for each generated file that is out of date."""
    out = []
    text = readme.read_text(encoding="utf-8")
    if render_readme(text) != text:
        out.append((readme, render_readme(text)))
    raw = schema.read_text(encoding="utf-8")
    want = schema_text(render_schema(json.loads(raw)))
    if want != raw:
        out.append((schema, want))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m pipeline.codes",
        description="Generate the README's code tables and the report schema's code list.",
    )
    parser.add_argument("--readme", action="store_true", help="rewrite README.md's tables")
    parser.add_argument("--schema", action="store_true", help="rewrite the schema's code list")
    parser.add_argument("--check", action="store_true", help="exit 1 if either is out of date")
    parser.add_argument("--readme-path", type=Path, default=README)
    parser.add_argument("--schema-path", type=Path, default=SCHEMA)
    args = parser.parse_args(argv)
    stale = _stale(args.readme_path, args.schema_path)
    wanted = {args.readme_path: args.readme, args.schema_path: args.schema}
    for path, text in stale:
        if wanted[path]:
            path.write_text(text, encoding="utf-8")
            print(f"rewrote {path}")
        elif args.check:
            print(f"{path} is out of date: run python -m pipeline.codes --readme --schema")
    if args.check and any(not wanted[path] for path, _ in stale):
        return 1
    if not (args.readme or args.schema or args.check):
        for c in _ENTRIES:
            kinds = ", ".join(sorted(c.kinds)) if c.kinds != ALL_KINDS else "every kind"
            print(f"{c.code:36} {c.category:9} {kinds}: {c.description}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
