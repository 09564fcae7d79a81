"""The records that pass between stages.

Every stage is a plain function from records to records. They are frozen, slotted dataclasses so a
stage cannot change what an earlier stage produced, and so they pickle cheaply to worker processes
(a record carries paths and text, never images).

The data flow, one petition (a *case*):

    CaseConfig ──ingest──> PageRef* ──read──> Sheet* (SignatureLine*, WitnessStatement)
                                              │
    RegisterEntry* ──────────match──────────> Match (per line, with Candidate* and FieldEvidence*)
                                              │
    ReviewDecision* ─────────judge──────────> JudgedLine* + Finding*  ──report──> SufficiencyReport

A reviewer's decision (accept, reject, correct a field, pick a candidate) is a `ReviewDecision`
keyed by the line's stable `line_id`; `judge` takes the decisions as an input, so the report is
always recomputed from the sheets plus every decision kept so far, never edited in place.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from typing import Any

__all__ = [
    "ADDRESS_FIELDS",
    "entry_display",
    "street_address",
    "sheet_number_parts",
    "Box",
    "Candidate",
    "ComparisonLevel",
    "FIELD_NAMES",
    "Field",
    "FieldEvidence",
    "FileError",
    "Holding",
    "PartResult",
    "ValuationResult",
    "Finding",
    "JudgedLine",
    "Lattice",
    "LineStatus",
    "Match",
    "MatchDecision",
    "PageKind",
    "PageRef",
    "RegisterDoubt",
    "RegisterEntry",
    "ReviewAction",
    "ReviewDecision",
    "Severity",
    "Sheet",
    "SheetHeader",
    "SignatureLine",
    "Source",
    "SufficiencyReport",
    "ShareOfValuation",
    "SignatureCount",
    "Threshold",
    "Totals",
    "Verdict",
    "WitnessStatement",
]


# --------------------------------------------------------------------------------------------
# Where a value came from, and how sure we are of it
# --------------------------------------------------------------------------------------------


class Source(StrEnum):
    """Where a field's text came from."""

    TEXT_LAYER = "text_layer"  # a born-digital PDF's own text, read with pdfplumber
    OCR = "ocr"  # read from the image by an OCR engine
    REVIEWER = "reviewer"  # typed in by a person in the review queue


@dataclass(frozen=True, slots=True)
class Box:
    """A rectangle on a page in PDF points (1/72 inch), origin top-left, y growing downwards.

    Image pages convert pixels to points with the page's DPI, so a box means the same thing
    whatever the page came from and a reviewer's viewer can crop the line from the page image.
    """

    x0: float
    top: float
    x1: float
    bottom: float

    @property
    def width(self) -> float:
        return self.x1 - self.x0

    @property
    def height(self) -> float:
        return self.bottom - self.top


# Canonical field names of a signature line. Column headers on a sheet map onto these.
FIELD_NAMES = (
    "date",
    "signature",
    "name",
    "residence",
    "ward",
    "election_district",
    "valuation",  # 2-202(1)(e)(3): the assessed valuation credited to an owner-signer
)


# What the recognizer saw of a field, a character position at a time: each position's
# alternatives with their scores (0..1), best first; words parted by a (" ", 1.0) position.
Lattice = tuple[tuple[tuple[str, float], ...], ...]


@dataclass(frozen=True, slots=True)
class Field:
    """One value read from a sheet: a table cell, or a blank filled in on the printed form.

    A field OCR was unsure of keeps what the recognizer saw (`lattices`: one a read of it,
    the first and its re-reads), so that the closed-world stage (`pipeline.closedworld`) can
    score the values the field can hold against it (a residence keeps them however sure: one
    that writes no address of the town's is read among them too); a field it chose a value for is
    `resolved`: its text is that value and its confidence the value's calibrated
    probability. A resolved date keeps its `alternatives`: the days it may be with real
    probability (ISO dates, likeliest first, each with its probability; what they leave of 1
    is "none of these" or too unlikely to list), so that the rules can tell whether its doubt
    changes what the law makes of the line (`rules.reading`); a resolved ward or election
    district keeps the numbers it may be alike, and a resolved name the voters (ids) it may
    be. A line's resolved date whose
    sheet's witness statement has an unsure date too keeps the pairs of days the two may be
    together (`witnessed`: the line's day, the witness's, their probability; read in the
    sheet's chain, in which the witness dates the statement after the lines it saw signed).
    An unsure date keeps, too, what the project's own recognizer saw of its ink (`frames`:
    per frame, the log-probability of each class of `pipeline.recognizer.CHARSET` and the
    blank), which scores a candidate string exactly (CTC). A line's resolved date keeps, too,
    the days it may be read alone (`alone`: as `alternatives`, its sheet's order left out,
    which weighs a day after the witness's, a defect, down twentyfold), so that the rules can
    tell a line clear of that defect on what was seen from one cleared by the order alone
    (`rules.reading.date_contested`)."""

    name: str
    text: str
    confidence: float  # 0..1; 1.0 for a text layer or a reviewer
    source: Source
    box: Box | None = None
    lattices: tuple[Lattice, ...] = ()
    resolved: bool = False
    alternatives: tuple[tuple[str, float], ...] = ()
    witnessed: tuple[tuple[str, str, float], ...] = ()
    frames: tuple[tuple[float, ...], ...] = ()
    alone: tuple[tuple[str, float], ...] = ()

    @property
    def empty(self) -> bool:
        return not self.text.strip(" .\t\n_")


# --------------------------------------------------------------------------------------------
# What ingest and read produce
# --------------------------------------------------------------------------------------------


class PageKind(StrEnum):
    PDF_TEXT = "pdf_text"  # a PDF page with a usable text layer
    PDF_IMAGE = "pdf_image"  # a PDF page that is only an image (a scan)
    PDF_OCR = "pdf_ocr"  # a scanned PDF page carrying an earlier OCR's text layer
    IMAGE = "image"  # a page of an image file (PNG, JPEG, TIFF)


@dataclass(frozen=True, slots=True)
class PageRef:
    """One page of one input file. Identified by the hash of its content, not by its path, so
    the same scan uploaded twice is recognised and a reviewer's decisions follow the page."""

    path: str
    page_index: int  # 0-based index within the file
    content_hash: str  # sha256 hex of the page's content (text layer + images, or the image)
    kind: PageKind
    width: float  # points
    height: float  # points
    dpi: float | None = None  # image pages: the resolution the image was read at

    @property
    def page_id(self) -> str:
        """Short stable id used in line ids and file names."""
        return self.content_hash[:12]


@dataclass(frozen=True, slots=True)
class SheetHeader:
    """The printed part above the table, with its blanks as filled in."""

    title: str | None = None  # e.g. "PETITION FOR A PERMISSIVE REFERENDUM"
    village: Field | None = None
    county: Field | None = None
    proposition: Field | None = None  # 9-902: title, abstract or number of the act or resolution


@dataclass(frozen=True, slots=True)
class SignatureLine:
    """One row of the signature table, filled or blank. Every row read becomes one of these and
    is judged and reported: a row is never dropped."""

    page_id: str
    line_no: int  # 1-based position in the table on its sheet
    fields: tuple[Field, ...]
    box: Box | None = None
    blank: bool = False  # no ink / no text in any cell
    crop_path: str | None = None  # image of the row for the review queue, when one was written

    @property
    def line_id(self) -> str:
        """Stable across runs: the page's content hash and the row's position."""
        return f"{self.page_id}-{self.line_no:02d}"

    def get(self, name: str) -> Field | None:
        for f in self.fields:
            if f.name == name:
                return f
        return None

    def text(self, name: str) -> str:
        f = self.get(name)
        return f.text.strip() if f is not None else ""

    @property
    def signer_name_field(self) -> Field | None:
        """The field the signer's name is taken from: the printed name, else the signature's
        text. A bracketed placeholder ("[signed]": the scan reader saw ink but read no text)
        is no name."""
        for name in ("name", "signature"):
            f = self.get(name)
            if f is not None and not f.empty and not f.text.strip().startswith("["):
                return f
        return None

    @property
    def signer_name(self) -> str:
        f = self.signer_name_field
        return f.text.strip() if f is not None else ""

    def replace_field(self, new: Field) -> SignatureLine:
        others = tuple(f for f in self.fields if f.name != new.name)
        return SignatureLine(
            page_id=self.page_id,
            line_no=self.line_no,
            fields=others + (new,),
            box=self.box,
            blank=False,
            crop_path=self.crop_path,
        )


@dataclass(frozen=True, slots=True)
class WitnessStatement:
    """The statement at the foot of a sheet (statement of witness; later also the notary's
    statement and 2-202's authenticating affidavit)."""

    form: str  # "witness", "notary", "affidavit"
    witness_name: Field | None = None
    residence: Field | None = None
    village: Field | None = None
    county: Field | None = None
    stated_count: Field | None = None  # the "(fill in number)" signatures
    date: Field | None = None
    signature: Field | None = None
    box: Box | None = None

    @property
    def stated_count_value(self) -> int | None:
        if self.stated_count is None:
            return None
        digits = "".join(ch for ch in self.stated_count.text if ch.isdigit())
        return int(digits) if digits else None


def sheet_number_parts(field: Field | None) -> tuple[int | None, int | None]:
    """A sheet-number field's number and the number of sheets it prints, if any: "Page No. 5"
    -> (5, None), "Page 5 of 8" -> (5, 8)."""
    if field is None:
        return None, None
    number, _, of = field.text.partition(" of ")
    digits = "".join(ch for ch in number if ch.isdigit())
    return (int(digits) if digits else None), (int(of) if of.isdigit() else None)


@dataclass(frozen=True, slots=True)
class Sheet:
    """One petition sheet: one page, its printed number, its table and its witness statement."""

    page: PageRef
    header: SheetHeader
    lines: tuple[SignatureLine, ...]
    sheet_number: Field | None = None  # as printed at the foot ("Sheet No. 3")
    witness: WitnessStatement | None = None
    columns: tuple[str, ...] = ()  # canonical field names of the table's columns, in order
    # Why the reader could not lay the sheet out with confidence (a table or a column it did
    # not place, rows it could not check); each sends the sheet to a person (LAYOUT_DOUBT).
    layout_doubts: tuple[str, ...] = ()

    @property
    def sheet_number_value(self) -> int | None:
        return sheet_number_parts(self.sheet_number)[0]

    @property
    def filled_lines(self) -> tuple[SignatureLine, ...]:
        return tuple(line for line in self.lines if not line.blank)


@dataclass(frozen=True, slots=True)
class FileError:
    """An input file (or one page of it) that could not be read. The run goes on without it and
    the report lists it: nothing is skipped silently."""

    path: str
    problem: str
    page_index: int | None = None


# --------------------------------------------------------------------------------------------
# The register and matching
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RegisterDoubt:
    """What the register (or the roll) could not settle, for the verdict to take into account:
    rows that could not be read (voters or parcels the count and the matcher may have missed)
    and ids whose rows disagree (the entry used may be the wrong one)."""

    unread_rows: int = 0  # of the register or roll signers are matched against
    denominator_rows: int = 0  # unread rows of the register the threshold counts
    conflicting_ids: frozenset[str] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.unread_rows or self.denominator_rows or self.conflicting_ids)


@dataclass(frozen=True, slots=True)
class RegisterEntry:
    """One voter (or, later, one owner on an assessment roll), as the register file gives it."""

    voter_id: str  # SBOEID for the NYS export; the mapped id column for a generic CSV
    last_name: str
    first_name: str
    middle_name: str = ""
    suffix: str = ""
    house_number: str = ""
    half_code: str = ""  # fractional address, "1/2"
    apartment: str = ""
    pre_direction: str = ""
    street_name: str = ""
    post_direction: str = ""
    city: str = ""
    zip5: str = ""
    town_city: str = ""
    ward: str = ""
    election_district: str = ""
    county_code: str = ""
    status: str = ""  # A, AM, AF, AP, AU, I, P, 17 (NYS BOE codes)
    reason_code: str = ""
    registration_date: dt.date | None = None
    inactive_date: dt.date | None = None
    purge_date: dt.date | None = None
    source_row: int = 0  # 1-based row in the register file

    @property
    def full_name(self) -> str:
        parts = (self.first_name, self.middle_name, self.last_name, self.suffix)
        return " ".join(p for p in parts if p)

    @property
    def display(self) -> str:
        """One line for the review queue: "JOHN A SMITH JR, 12 MAIN ST APT 3"."""
        return entry_display(
            self.first_name, self.middle_name, self.last_name, self.suffix, self.address
        )

    @property
    def address(self) -> str:
        return street_address(*(getattr(self, f) for f in ADDRESS_FIELDS))


# The fields of a register entry's street address, in `street_address`'s order.
ADDRESS_FIELDS = (
    "house_number", "half_code", "pre_direction", "street_name", "post_direction", "apartment",
)  # fmt: skip


def street_address(
    house_number: str,
    half_code: str,
    pre_direction: str,
    street_name: str,
    post_direction: str,
    apartment: str,
) -> str:
    """`RegisterEntry.address` of these fields: "12 1/2 N MAIN ST Apt 3"."""
    number = f"{house_number} {half_code}".strip()
    parts = (number, pre_direction, street_name, post_direction)
    street = " ".join(p for p in parts if p)
    if apartment:
        street = f"{street} Apt {apartment}"
    return street


def entry_display(
    first_name: str, middle_name: str, last_name: str, suffix: str, address: str
) -> str:
    """`RegisterEntry.display` of these fields (`address` as `street_address` writes it),
    without building the entry: the matcher shows tens of thousands of candidates a batch."""
    parts = (first_name, middle_name[:1], last_name, suffix)
    name = " ".join(p for p in parts if p)
    address = " ".join(address.split())
    return f"{name}, {address}".upper() if address else name.upper()


class ComparisonLevel(StrEnum):
    """Ordered levels of agreement between a line's field and a register entry's field."""

    EXACT = "exact"
    CLOSE = "close"
    # a given name written as its initial (or the register's an initial) whose letter agrees:
    # a level of its own, weighed by how often two voters' initials agree by chance
    INITIAL = "initial"
    LOOSE = "loose"
    DIFFERENT = "different"
    MISSING = "missing"  # one side has no value: no evidence either way


@dataclass(frozen=True, slots=True)
class FieldEvidence:
    field: str  # "name", "address", ...
    level: ComparisonLevel
    score: float  # similarity 0..100
    line_value: str
    register_value: str


@dataclass(frozen=True, slots=True)
class Candidate:
    voter_id: str
    score: float  # combined score 0..100 (or a match weight; see `Match.method`)
    evidence: tuple[FieldEvidence, ...]
    display: str = ""  # "JOHN A SMITH, 12 MAIN ST" for the review queue


class MatchDecision(StrEnum):
    MATCH = "match"  # confident: this is the voter
    REVIEW = "review"  # a person must look
    NO_MATCH = "no_match"  # confident: nobody on the register is this signer


@dataclass(frozen=True, slots=True)
class Match:
    line_id: str
    decision: MatchDecision
    voter_id: str | None  # set when decision is MATCH
    candidates: tuple[Candidate, ...]  # best first; kept for review whatever the decision
    method: str  # which matcher and version decided, e.g. "rapidfuzz-baseline/1"
    reason: str = ""  # one line a reviewer can read
    # P(the signer is the best candidate), 0..1, from a probabilistic matcher ("fs"); None
    # when there is no candidate or the matcher gives none (the baseline)
    probability: float | None = None
    # In review: the voters the signer surely is one of, not which (a Jr and a Sr of one name
    # at one address, the suffix read by OCR); the line's rules may settle it whichever
    # (`judge.judge_line`). Empty: no such bound.
    one_of: tuple[str, ...] = ()

    @property
    def best(self) -> Candidate | None:
        return self.candidates[0] if self.candidates else None


# --------------------------------------------------------------------------------------------
# Judging
# --------------------------------------------------------------------------------------------


class Severity(StrEnum):
    """What a finding does to the line, sheet or petition it is attached to."""

    FATAL = "fatal"  # invalidates it
    REVIEW = "review"  # a person must decide; it is not counted until they do
    NOTE = "note"  # reported; changes nothing


@dataclass(frozen=True, slots=True)
class Finding:
    """A problem (or a notable fact) about a line, a sheet or the whole petition.

    `code` is stable: reports, objections and tests key on it; each is in the catalogue
    (pipeline/codes.py). `citation` names the statute clause the rule comes from, e.g.
    "Village Law § 9-902(8)".
    """

    code: str
    severity: Severity
    citation: str
    message: str
    page_id: str | None = None  # None: about the whole petition
    line_no: int | None = None  # None: about the whole sheet (or petition)
    evidence: Mapping[str, Any] = field(default_factory=dict)


class ReviewAction(StrEnum):
    ACCEPT = "accept"  # the line is valid (overrides open doubts and the software's findings)
    REJECT = "reject"  # the line is invalid, for the reviewer's stated reason
    CORRECT = "correct"  # fields corrected and/or a voter chosen; the line is judged again


@dataclass(frozen=True, slots=True)
class ReviewDecision:
    """One person's decision on one line. Decisions are appended, never edited: the latest
    decision for a line wins and all of them are kept with who made them and when."""

    line_id: str
    action: ReviewAction
    reviewer: str
    decided_at: dt.datetime
    corrections: Mapping[str, str] = field(default_factory=dict)  # field name -> text
    voter_id: str | None = None  # the register entry the reviewer chose, if any
    reason: str = ""
    # Set by `latest_decisions` only: the reviewers whose latest decisions for this line, made
    # at the same moment, disagree (none of them is applied; the line waits for a person).
    conflict: tuple[str, ...] = ()


class LineStatus(StrEnum):
    VALID = "valid"
    INVALID = "invalid"
    NEEDS_REVIEW = "needs_review"
    BLANK = "blank"  # an empty row of the table: read, reported, never counted


@dataclass(frozen=True, slots=True)
class JudgedLine:
    line: SignatureLine
    status: LineStatus
    findings: tuple[Finding, ...]
    match: Match | None = None
    voter_id: str | None = None  # the register entry the line counts as, if any
    sheet_number: int | None = None
    decision: ReviewDecision | None = None  # the reviewer decision applied, if any


# --------------------------------------------------------------------------------------------
# Valuation thresholds (Village Law § 2-202 owners, Town Law § 191)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Holding:
    """One parcel of the latest completed assessment roll."""

    parcel_id: str
    town: str
    assessed_value: Fraction
    owners: tuple[str, ...]  # every owner of record (co-owners: tenants in common, joint ...)
    taxable: bool = True
    # The part of the parcel in the territory or district (2-202: "the town assessor ... shall
    # ... make an apportionment of the assessed value of such part"; 191: "the town board may
    # determine the relative value of the part"), as a share of its assessed value.
    share_inside: Fraction = Fraction(1)
    resident_owners: frozenset[str] = frozenset()  # 191: owners who reside in the district

    @property
    def value_inside(self) -> Fraction:
        return Fraction(self.assessed_value) * self.share_inside


@dataclass(frozen=True, slots=True)
class PartResult:
    """One part of the computation: a town's part of the territory, or one of 191's two tests."""

    label: str
    total: Fraction  # the valuation the share is of
    signed: Fraction  # credited to the signers
    rule: str  # "more than 1/2" or "at least 1/2"
    met: bool

    @property
    def share(self) -> Fraction:
        return self.signed / self.total if self.total else Fraction(0)


@dataclass(frozen=True, slots=True)
class ValuationResult:
    parts: tuple[PartResult, ...]
    citation: str
    explanation: str

    @property
    def met(self) -> bool:
        return bool(self.parts) and all(p.met for p in self.parts)


class Verdict(StrEnum):
    SUFFICIENT = "sufficient"  # enough valid lines, whatever review decides
    INSUFFICIENT = "insufficient"  # not enough, even if every doubtful line were valid
    UNDETERMINED = "undetermined"  # the lines in review decide it


@dataclass(frozen=True, slots=True)
class SignatureCount:
    """A threshold counted in signatures: at least `required` valid lines."""

    required: int
    denominator: int | None  # what `required` is a share of (electors, voters), if anything
    rule: str  # how `required` was computed, in words, with the citation


@dataclass(frozen=True, slots=True)
class ShareOfValuation:
    """A threshold in assessed valuation: the rule set's `valuation` decides whether the
    signers own enough; no count of signatures is required."""

    rule: str  # the share required, in words, with the citation


Threshold = SignatureCount | ShareOfValuation


@dataclass(frozen=True, slots=True)
class Totals:
    lines_read: int  # every row of every table, blank rows included
    blank: int
    signed: int  # lines_read - blank
    valid: int
    invalid: int
    needs_review: int
    threshold: Threshold  # what the statute requires: a count of signatures, or a valuation

    @property
    def required(self) -> int | None:
        """Valid signatures the statute requires; None where it requires a share of valuation."""
        return self.threshold.required if isinstance(self.threshold, SignatureCount) else None

    @property
    def denominator(self) -> int | None:
        """What the count is a share of (electors, voters), if anything."""
        t = self.threshold
        return t.denominator if isinstance(t, SignatureCount) else None

    @property
    def threshold_rule(self) -> str:
        """What is required, in words, with the citation."""
        return self.threshold.rule


@dataclass(frozen=True, slots=True)
class SufficiencyReport:
    case_name: str
    petition_kind: str
    verdict: Verdict
    totals: Totals
    sheets: tuple[Sheet, ...]
    lines: tuple[JudgedLine, ...]
    findings: tuple[Finding, ...]  # sheet- and petition-level findings
    file_errors: tuple[FileError, ...]
    verdict_reason: str
    generated_at: dt.datetime
    inputs: Mapping[str, str] = field(default_factory=dict)  # path -> sha256 of every input
    statute: str = ""  # the statute the petition is judged by ("Village Law § 9-902")
    petition_label: str = ""  # the kind in words ("permissive referendum")
    # Kinds whose threshold is a share of assessed valuation: the computation, with the valid
    # lines' owners (`valuation`) and with every line in review counted too (`valuation_best`).
    valuation: ValuationResult | None = None
    valuation_best: ValuationResult | None = None
