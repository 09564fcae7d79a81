"""Hand-built records for tests.

`sample_report()` is a small but complete `SufficiencyReport` for a Village Law § 9-902
permissive referendum petition, built directly from `pipeline.records` (no reading, matching or
judging runs). Every name, address, id and hash in it is made up: it holds no real person's data.

Two sheets, nine rows:

    sheet 1 (scans/batch-1.pdf, page 1, a scan: OCR), 5 rows
      01 valid         exact match
      02 invalid       SIGNER_NOT_REGISTERED (no match)
      03 needs_review  MATCH_UNCERTAIN, 3 candidates with per-field evidence, crop image
      04 valid         OCR misread the residence; a reviewer corrected it and chose the voter
                       (ReviewDecision CORRECT applied; no finding left after judging again)
      05 blank
    sheet 3 (scans/sheet-3.jpg, OCR), 4 rows
      01 valid         SIGNER_INACTIVE (a note: inactive voters remain registered)
      02 invalid       LINE_UNDATED
      03 invalid       SIGNER_OUTSIDE_VILLAGE (registered, but outside the village's wards)
      04 blank

Totals: lines_read 9 = valid 3 + invalid 3 + needs_review 1 + blank 2; 20% of 18 electors is
4 required, so the one line in review decides: verdict undetermined. One file error (page 2 of
batch-1.pdf could not be read: it is likely the missing sheet 2), and the petition-level note
SHEET_NUMBERING_GAP that follows from it (with a set in its evidence). Finding codes and
severities are the ones pipeline/rules/village_9902.py uses.
"""

from __future__ import annotations

import datetime as dt
import hashlib

from pipeline.records import (
    Box,
    Candidate,
    ComparisonLevel,
    Field,
    FieldEvidence,
    FileError,
    Finding,
    JudgedLine,
    LineStatus,
    Match,
    MatchDecision,
    PageKind,
    PageRef,
    ReviewAction,
    ReviewDecision,
    Severity,
    Sheet,
    SheetHeader,
    SignatureCount,
    SignatureLine,
    Source,
    SufficiencyReport,
    Totals,
    Verdict,
    WitnessStatement,
)

__all__ = ["CASE_NAME", "fake_sha256", "sample_report"]

CASE_NAME = "Village of Hollis Falls: referendum on Local Law No. 3 of 2026"
METHOD = "rapidfuzz-baseline/1"
CITE_1 = "Village Law § 9-902(1)"
CITE_8 = "Village Law § 9-902(8)"


def fake_sha256(label: str) -> str:
    """A deterministic, obviously fake sha256 for a made-up file."""
    return hashlib.sha256(f"fake:{label}".encode()).hexdigest()


def _row_box(line_no: int, col: int = 0) -> Box:
    top = 220.0 + 24.0 * (line_no - 1)
    x0 = (36.0, 110.0, 230.0, 360.0, 470.0, 520.0)[col]
    x1 = (108.0, 228.0, 358.0, 468.0, 518.0, 576.0)[col]
    return Box(x0, top, x1, top + 22.0)


_COLUMNS = ("date", "signature", "name", "residence", "ward", "election_district")


def _line(
    page_id: str,
    line_no: int,
    values: dict[str, str],
    *,
    source: Source = Source.TEXT_LAYER,
    confidence: dict[str, float] | None = None,
    crop_path: str | None = None,
) -> SignatureLine:
    confidence = confidence or {}
    fields = tuple(
        Field(
            name=name,
            text=values.get(name, ""),
            confidence=confidence.get(name, 1.0 if source is Source.TEXT_LAYER else 0.9),
            source=source,
            box=_row_box(line_no, col),
        )
        for col, name in enumerate(_COLUMNS)
    )
    blank = not any(v.strip() for v in values.values())
    return SignatureLine(
        page_id=page_id,
        line_no=line_no,
        fields=fields,
        box=Box(36.0, _row_box(line_no).top, 576.0, _row_box(line_no).bottom),
        blank=blank,
        crop_path=crop_path,
    )


def _ev(field: str, level: ComparisonLevel, score: float, a: str, b: str) -> FieldEvidence:
    return FieldEvidence(field=field, level=level, score=score, line_value=a, register_value=b)


def _exact(line_id: str, voter_id: str, name: str, address: str) -> Match:
    cand = Candidate(
        voter_id=voter_id,
        score=98.5,
        evidence=(
            _ev("name", ComparisonLevel.EXACT, 100.0, name, name),
            _ev("address", ComparisonLevel.EXACT, 97.0, address, address),
        ),
        display=f"{name}, {address}",
    )
    return Match(
        line_id=line_id,
        decision=MatchDecision.MATCH,
        voter_id=voter_id,
        candidates=(cand,),
        method=METHOD,
        reason="name and address agree with one register entry",
    )


def sample_report() -> SufficiencyReport:
    """The report described in the module docstring. Fresh objects on every call."""
    page1 = PageRef(
        path="scans/batch-1.pdf",
        page_index=0,
        content_hash=fake_sha256("batch-1.pdf#0"),
        kind=PageKind.PDF_IMAGE,
        width=612.0,
        height=792.0,
        dpi=300.0,
    )
    page2 = PageRef(
        path="scans/sheet-3.jpg",
        page_index=0,
        content_hash=fake_sha256("sheet-3.jpg#0"),
        kind=PageKind.IMAGE,
        width=612.0,
        height=792.0,
        dpi=300.0,
    )
    p1, p2 = page1.page_id, page2.page_id

    def ocr(name: str, text: str, conf: float = 0.91) -> Field:
        return Field(name=name, text=text, confidence=conf, source=Source.OCR)

    header1 = SheetHeader(
        title="PETITION FOR A PERMISSIVE REFERENDUM",
        village=ocr("village", "Hollis Falls", 0.97),
        county=ocr("county", "Ulster", 0.98),
        proposition=ocr("proposition", "Local Law No. 3 of 2026 (parking on Mill Street)", 0.9),
    )
    header2 = SheetHeader(
        title="PETITION FOR A PERMISSIVE REFERENDUM",
        village=ocr("village", "Hollis Falls", 0.95),
        county=ocr("county", "Ulster", 0.97),
        proposition=ocr("proposition", "Local Law No. 3 of 2026 (parking on Mill Street)", 0.88),
    )

    # ---- sheet 1 -------------------------------------------------------------------------
    s1 = [
        _line(
            p1,
            1,
            {
                "date": "3/10/2026",
                "signature": "Ada Quill",
                "name": "Ada Quill",
                "residence": "12 Mill St",
                "ward": "1",
                "election_district": "2",
            },
            source=Source.OCR,
            confidence={"name": 0.96, "residence": 0.94},
        ),
        _line(
            p1,
            2,
            {
                "date": "3/10/2026",
                "signature": "Bram Oduya",
                "name": "Bram Oduya",
                "residence": "7 Orchard Ln",
                "ward": "1",
                "election_district": "2",
            },
            source=Source.OCR,
            confidence={"name": 0.9},
        ),
        _line(
            p1,
            3,
            {
                "date": "3/11/2026",
                "signature": "C. Marsh",
                "name": "C Marsh",
                "residence": "40 River Rd",
                "ward": "2",
                "election_district": "1",
            },
            source=Source.OCR,
            confidence={"name": 0.74},
            crop_path="crops/" + p1 + "-03.png",
        ),
        _line(
            p1,
            4,
            {
                "date": "3/11/2026",
                "signature": "Dell Fenwick",
                "name": "Dell Fenwick",
                "residence": "I4 MiII St",
                "ward": "1",
                "election_district": "2",
            },
            source=Source.OCR,
            confidence={"residence": 0.42, "signature": 0.7},
        ),
        _line(p1, 5, {}, source=Source.OCR),
    ]
    # line 4: the OCR'd residence "I4 MiII St" was corrected by a reviewer
    s1[3] = s1[3].replace_field(
        Field(
            name="residence",
            text="14 Mill St",
            confidence=1.0,
            source=Source.REVIEWER,
            box=_row_box(4, 3),
        )
    )
    sheet1 = Sheet(
        page=page1,
        header=header1,
        lines=tuple(s1),
        sheet_number=ocr("sheet_number", "Sheet No. 1"),
        witness=WitnessStatement(
            form="witness",
            witness_name=ocr("witness_name", "Rosa Tamberlane"),
            residence=ocr("residence", "3 Church St"),
            village=ocr("village", "Hollis Falls"),
            county=ocr("county", "Ulster"),
            stated_count=ocr("stated_count", "4"),
            date=ocr("date", "3/12/2026"),
            signature=ocr("signature", "Rosa Tamberlane"),
            box=Box(36.0, 600.0, 576.0, 740.0),
        ),
        columns=_COLUMNS,
    )

    # ---- sheet 3 (OCR) -------------------------------------------------------------------
    s2 = [
        _line(
            p2,
            1,
            {
                "date": "3/14/2026",
                "signature": "Esme Vantongeren",
                "name": "Esme Vantongeren",
                "residence": "88 Hill Ave",
                "ward": "2",
                "election_district": "1",
            },
            source=Source.OCR,
            confidence={"name": 0.93, "residence": 0.89},
        ),
        _line(
            p2,
            2,
            {
                "date": "",
                "signature": "Farid Lowe",
                "name": "Farid Lowe",
                "residence": "5 Brook Ct",
                "ward": "2",
                "election_district": "1",
            },
            source=Source.OCR,
            confidence={"date": 0.0, "name": 0.86},
        ),
        _line(
            p2,
            3,
            {
                "date": "3/14/2026",
                "signature": "Gwen Ashby",
                "name": "Gwen Ashby",
                "residence": "210 Route 9W",
                "ward": "",
                "election_district": "4",
            },
            source=Source.OCR,
            confidence={"residence": 0.81},
        ),
        _line(p2, 4, {}, source=Source.OCR),
    ]
    sheet2 = Sheet(
        page=page2,
        header=header2,
        lines=tuple(s2),
        sheet_number=ocr("sheet_number", "Sheet No. 3", 0.96),
        witness=WitnessStatement(
            form="witness",
            witness_name=ocr("witness_name", "Rosa Tamberlane", 0.9),
            residence=ocr("residence", "3 Church St", 0.87),
            village=ocr("village", "Hollis Falls", 0.94),
            county=ocr("county", "Ulster", 0.95),
            stated_count=ocr("stated_count", "3", 0.9),
            date=ocr("date", "3/15/2026", 0.85),
            signature=ocr("signature", "Rosa Tamberlane", 0.6),
        ),
        columns=_COLUMNS,
    )

    # ---- judging -------------------------------------------------------------------------
    l11, l12, l13, l14, l15 = s1
    l21, l22, l23, l24 = s2

    not_registered = Finding(
        code="SIGNER_NOT_REGISTERED",
        severity=Severity.FATAL,
        citation=CITE_1,
        message="the signer was not found on the register of electors of the village",
        page_id=p1,
        line_no=2,
        evidence={"best_score": 41.0, "register": "register/ulster-voters.txt"},
    )
    ambiguous = Finding(
        code="MATCH_UNCERTAIN",
        severity=Severity.REVIEW,
        citation=CITE_1,
        message='three register entries fit "C Marsh"; a person must choose one',
        page_id=p1,
        line_no=3,
        evidence={"candidates": 3, "top_scores": [86.0, 84.5, 61.0]},
    )
    inactive = Finding(
        code="SIGNER_INACTIVE",
        severity=Severity.NOTE,
        citation=CITE_1,
        message="the signer's registration is inactive; inactive voters remain registered",
        page_id=p2,
        line_no=1,
        evidence={"voter_id": "NY000000000000000205", "inactive_date": dt.date(2025, 11, 4)},
    )
    date_missing = Finding(
        code="LINE_UNDATED",
        severity=Severity.FATAL,
        citation=CITE_8,
        message="the line has no date of signing",
        page_id=p2,
        line_no=2,
        evidence={"date_text": ""},
    )
    not_in_village = Finding(
        code="SIGNER_OUTSIDE_VILLAGE",
        severity=Severity.FATAL,
        citation=CITE_1,
        message="the signer is registered in election district 4, outside the village",
        page_id=p2,
        line_no=3,
        evidence={"election_district": "4", "village_districts": frozenset({"1", "2"})},
    )

    marsh = (
        Candidate(
            voter_id="NY000000000000000311",
            score=86.0,
            evidence=(
                _ev("name", ComparisonLevel.CLOSE, 88.0, "C MARSH", "CLARA MARSH"),
                _ev("address", ComparisonLevel.EXACT, 100.0, "40 RIVER RD", "40 RIVER RD"),
                _ev("ward", ComparisonLevel.EXACT, 100.0, "2", "2"),
            ),
            display="CLARA J MARSH, 40 RIVER RD",
        ),
        Candidate(
            voter_id="NY000000000000000312",
            score=84.5,
            evidence=(
                _ev("name", ComparisonLevel.CLOSE, 86.0, "C MARSH", "CALVIN MARSH"),
                _ev("address", ComparisonLevel.EXACT, 100.0, "40 RIVER RD", "40 RIVER RD"),
                _ev("ward", ComparisonLevel.EXACT, 100.0, "2", "2"),
            ),
            display="CALVIN MARSH, 40 RIVER RD",
        ),
        Candidate(
            voter_id="NY000000000000000518",
            score=61.0,
            evidence=(
                _ev("name", ComparisonLevel.CLOSE, 84.0, "C MARSH", "COLIN MARSH"),
                _ev("address", ComparisonLevel.DIFFERENT, 38.0, "40 RIVER RD", "4 RIVERVIEW DR"),
                _ev("ward", ComparisonLevel.MISSING, 0.0, "2", ""),
            ),
            display="COLIN MARSH, 4 RIVERVIEW DR",
        ),
    )

    decided = ReviewDecision(
        line_id=l14.line_id,
        action=ReviewAction.CORRECT,
        reviewer="m.alvarez (deputy clerk)",
        decided_at=dt.datetime(2026, 3, 30, 14, 5, tzinfo=dt.UTC),
        corrections={"residence": "14 Mill St"},
        voter_id="NY000000000000000104",
        reason="OCR misread the house number and street; checked against the sheet.",
    )

    judged = (
        JudgedLine(
            l11,
            LineStatus.VALID,
            (),
            _exact(l11.line_id, "NY000000000000000101", "ADA QUILL", "12 MILL ST"),
            "NY000000000000000101",
            1,
        ),
        JudgedLine(
            l12,
            LineStatus.INVALID,
            (not_registered,),
            Match(
                l12.line_id,
                MatchDecision.NO_MATCH,
                None,
                (
                    Candidate(
                        "NY000000000000000777",
                        41.0,
                        (
                            _ev("name", ComparisonLevel.DIFFERENT, 45.0, "BRAM ODUYA", "BRAN ODAY"),
                            _ev(
                                "address",
                                ComparisonLevel.DIFFERENT,
                                30.0,
                                "7 ORCHARD LN",
                                "70 ORCHARD ST",
                            ),
                        ),
                        "BRAN ODAY, 70 ORCHARD ST",
                    ),
                ),
                METHOD,
                "no register entry scores above 60",
            ),
            None,
            1,
        ),
        JudgedLine(
            l13,
            LineStatus.NEEDS_REVIEW,
            (ambiguous,),
            Match(
                l13.line_id,
                MatchDecision.REVIEW,
                None,
                marsh,
                METHOD,
                "two entries at the same address score within 2 points",
            ),
            None,
            1,
        ),
        JudgedLine(
            l14,
            LineStatus.VALID,
            (),
            _exact(l14.line_id, "NY000000000000000104", "DELL FENWICK", "14 MILL ST"),
            "NY000000000000000104",
            1,
            decided,
        ),
        JudgedLine(l15, LineStatus.BLANK, (), None, None, 1),
        JudgedLine(
            l21,
            LineStatus.VALID,
            (inactive,),
            _exact(l21.line_id, "NY000000000000000205", "ESME VANTONGEREN", "88 HILL AVE"),
            "NY000000000000000205",
            3,
        ),
        JudgedLine(
            l22,
            LineStatus.INVALID,
            (date_missing,),
            _exact(l22.line_id, "NY000000000000000206", "FARID LOWE", "5 BROOK CT"),
            "NY000000000000000206",
            3,
        ),
        JudgedLine(
            l23,
            LineStatus.INVALID,
            (not_in_village,),
            _exact(l23.line_id, "NY000000000000000907", "GWEN ASHBY", "210 ROUTE 9W"),
            None,
            3,
        ),
        JudgedLine(l24, LineStatus.BLANK, (), None, None, 3),
    )

    findings = (
        Finding(
            code="SHEET_NUMBERING_GAP",
            severity=Severity.NOTE,
            citation=CITE_8,
            message="sheets are not numbered consecutively from one: missing 2",
            evidence={"missing": [2], "numbers_found": frozenset({3, 1})},
        ),
    )

    totals = Totals(
        lines_read=9,
        blank=2,
        signed=7,
        valid=3,
        invalid=3,
        needs_review=1,
        threshold=SignatureCount(
            required=4,
            denominator=18,
            rule="20% of the 18 electors on the register for the previous general "
            "village election (2025-03-18), rounded up: 4 (Village Law § 9-902(1)).",
        ),
    )

    return SufficiencyReport(
        case_name=CASE_NAME,
        petition_kind="permissive_referendum",
        statute="Village Law § 9-902",
        petition_label="permissive referendum",
        verdict=Verdict.UNDETERMINED,
        totals=totals,
        sheets=(sheet1, sheet2),
        lines=judged,
        findings=findings,
        file_errors=(
            FileError(
                path="scans/batch-1.pdf",
                problem="page 2 has no text layer and no table could be found in its image",
                page_index=1,
            ),
        ),
        verdict_reason="3 valid signatures of the 4 required; the 1 line in review decides "
        "whether the petition is sufficient.",
        generated_at=dt.datetime(2026, 3, 30, 15, 0, 0, tzinfo=dt.UTC),
        inputs={
            "scans/batch-1.pdf": fake_sha256("batch-1.pdf"),
            "scans/sheet-3.jpg": fake_sha256("sheet-3.jpg"),
            "register/ulster-voters.txt": fake_sha256("ulster-voters.txt"),
            "case.toml": fake_sha256("case.toml"),
        },
    )
