"""The reading rules: low-confidence OCR fields send the line (or the sheet) to a person."""

from __future__ import annotations

from dataclasses import replace

from pipeline.records import Box, Field, Severity, Source
from pipeline.rules.base import LineContext
from pipeline.rules.reading import (
    LOW_CONFIDENCE,
    low_confidence_fields,
    low_confidence_sheet_fields,
)

from . import builders as b


def _ctx(line):  # type: ignore[no-untyped-def]
    return LineContext(
        line=line, sheet=b.sheet((line,)), match=None, entry=None, signed_on=None, case=b.case()
    )


def test_text_layer_fields_never_flagged() -> None:
    assert list(low_confidence_fields(_ctx(b.line()))) == []


def test_confident_ocr_fields_not_flagged() -> None:
    line = b.line()
    for f in line.fields:
        line = line.replace_field(Field(f.name, f.text, 0.95, Source.OCR))
    assert list(low_confidence_fields(_ctx(line))) == []


def test_low_confidence_field_sends_line_to_review() -> None:
    line = b.line().replace_field(Field("date", "10/0?/2026", LOW_CONFIDENCE - 0.1, Source.OCR))
    (finding,) = low_confidence_fields(_ctx(line))
    assert finding.code == "FIELD_LOW_CONFIDENCE"
    assert finding.severity is Severity.REVIEW
    assert finding.line_no == line.line_no and finding.page_id == line.page_id
    assert finding.evidence["fields"] == {"date": round(LOW_CONFIDENCE - 0.1, 3)}


def test_unreadable_inked_cell_is_flagged() -> None:
    line = b.line().replace_field(Field("residence", "", 0.0, Source.OCR))
    (finding,) = low_confidence_fields(_ctx(line))
    assert "residence" in finding.evidence["fields"]


def test_sheet_number_and_stated_count_flag_the_sheet() -> None:
    sheet = b.sheet()
    assert list(low_confidence_sheet_fields(sheet, b.case())) == []
    w = sheet.witness
    assert w is not None
    doubtful = replace(
        sheet,
        sheet_number=Field("sheet_number", "Sheet No. 8", 0.4, Source.OCR),
        witness=replace(w, stated_count=Field("stated_count", "3", 0.5, Source.OCR)),
    )
    (finding,) = low_confidence_sheet_fields(doubtful, b.case())
    assert finding.code == "SHEET_FIELD_LOW_CONFIDENCE" and finding.line_no is None
    assert set(finding.evidence["fields"]) == {"sheet_number", "witness.stated_count"}


def test_digit_fields_need_more_confidence_than_names() -> None:
    # (in a village with wards, where 9-902(8) asks for the ward: elsewhere an unsure ward
    # cannot change the line's finding and does not hold it, `value_settled`)
    line = b.line().replace_field(Field("ward", "1", 0.87, Source.OCR))
    line = line.replace_field(Field("name", "Ann B Carter", 0.87, Source.OCR))
    case = b.case(municipality={"wards": ("1", "2")})
    ctx = replace(_ctx(line), case=case)
    (finding,) = low_confidence_fields(ctx)
    assert finding.evidence["fields"] == {"ward": 0.87}
    assert finding.evidence["thresholds"] == {"ward": 0.90}


def test_an_unsure_witness_name_holds_its_sheet_only_when_not_written() -> None:
    """9-902(8)'s statement must state the witness's name: a name read with low confidence
    is still stated, and no rule weighs which name it is, so it does not hold the sheet; a
    speck read as a character does."""
    sheet = b.sheet()
    w = sheet.witness
    assert w is not None

    def named(text: str, confidence: float = 0.6, high: float = 8.0):  # type: ignore[no-untyped-def]
        field = Field("witness_name", text, confidence, Source.OCR, Box(40, 500, 120, 500 + high))
        return replace(sheet, witness=replace(w, witness_name=field))

    assert list(low_confidence_sheet_fields(named("Wanda Wjtness"), b.case())) == []
    (finding,) = low_confidence_sheet_fields(named("'i"), b.case())
    assert finding.evidence["fields"] == {"witness.name": 0.6}
    # an empty blank's leader read as letters (a scanned nominating sheet): a box a line high,
    # read with no confidence; either holds the sheet
    for leader in (named("ccceceuruennn....", 0.0, 1.2), named("ccceceuruennn", 0.6, 1.2)):
        (finding,) = low_confidence_sheet_fields(leader, b.case())
        assert "witness.name" in finding.evidence["fields"]
    assert list(low_confidence_sheet_fields(named("ccceceuruennn", 0.3), b.case()))
    # beside a doubt that does hold the sheet, the name is not among its fields
    doubtful = replace(
        named("Wanda Wjtness"), sheet_number=Field("sheet_number", "Sheet No. 8", 0.4, Source.OCR)
    )
    (finding,) = low_confidence_sheet_fields(doubtful, b.case())
    assert set(finding.evidence["fields"]) == {"sheet_number"}


def test_a_name_unsure_only_between_the_voters_the_match_is_sure_of_does_not_hold_it() -> None:
    """A resolved name split between a Jr and a Sr at one address, the match sure it is one of
    them (`Match.one_of`): which one the judge settles by the rules; the name's doubt does not
    hold the line. Split with a third voter, or without such a match, it does."""
    from pipeline.records import Match, MatchDecision

    name = Field("name", "Nell Quillby Jr", 0.52, Source.OCR, resolved=True)
    pair = replace(name, alternatives=(("NYJ", 0.52), ("NYS", 0.47)))
    either = Match("x", MatchDecision.REVIEW, None, (), "test", "", 0.99, ("NYJ", "NYS"))
    line = b.line().replace_field(pair)
    assert list(low_confidence_fields(replace(_ctx(line), match=either))) == []
    (finding,) = low_confidence_fields(_ctx(line))
    assert finding.evidence["fields"] == {"name": 0.52}
    third = b.line().replace_field(replace(name, alternatives=(("NYJ", 0.52), ("NY9", 0.47))))
    (finding,) = low_confidence_fields(replace(_ctx(third), match=either))
    assert finding.evidence["fields"] == {"name": 0.52}


def test_a_handwritten_residence_read_below_090_is_a_doubt_not_a_reading() -> None:
    # "Us Cedar Ct" for 45 Cedar Ct, read at 0.86 (seed 4445's held-out hands): the matcher still
    # found the voter, and the report gave the line a residence it does not say. Below 0.90 a
    # residence is a doubt (the closed world reads it among the town's addresses first); a
    # name at the same confidence is not (the matcher is its second check).
    line = b.line().replace_field(Field("residence", "Us Cedar Ct", 0.86, Source.OCR))
    (finding,) = low_confidence_fields(_ctx(line))
    assert finding.evidence["fields"] == {"residence": 0.86}
    name = b.line().replace_field(Field("name", "Vesta Oakhurst", 0.86, Source.OCR))
    assert list(low_confidence_fields(_ctx(name))) == []
