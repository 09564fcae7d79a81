"""The born-digital reader on sheets set in other layouts (pipeline/texttable.py, textlayer.py):
tables with horizontal rules only or none, a line-number column, a residence split over two
columns, a combined signature-and-residence cell, signatures drawn as pictures or strokes, and a
column the reader cannot place. Each sheet is drawn here by the synthetic generator from a
chosen layout (synthetic; no real person)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pdfplumber
import pytest
from reportlab.lib.pagesizes import landscape, legal, letter

from pipeline.records import PageKind, PageRef, Source
from pipeline.textlayer import SIGNED, read_text_page
from pipeline.texttable import UNMARKED_ROWS
from synth.sheets import CLASSIC, LinePlan, SheetPlan, WitnessPlan, write_pdf
from tests.test_textlayer_forms import read

ROWS = (
    {
        "date": "10/1/26",
        "signature": "Ann B Carter",
        "name": "Ann B Carter",
        "residence": "12 Maple Ave, Elmwood Falls",
        "election_district": "2",
    },
    {
        "date": "10/2/26",
        "signature": "Bo Dent",
        "name": "Bo Dent",
        "residence": "4 Elm St, Elmwood Falls",
        "election_district": "1",
    },
    {
        "date": "10/3/26",
        "signature": "",
        "name": "Cy Fenn",
        "residence": "9 Oak St, Elmwood Falls",
        "election_district": "3",
    },
)


def _plan(columns, layout, rows=ROWS, blanks=2, number=3):
    fields = [f for _, f, _ in columns]
    wanted = {"street": "residence", "town": "residence", "signature_residence": "signature"}
    names = {wanted.get(f, f) for f in fields} | (
        {"residence"} if "signature_residence" in fields else set()
    )
    town = "town" in fields
    lines = []
    for r in rows:
        vals = {k: (v if town or k != "residence" else v.split(", ")[0]) for k, v in r.items()}
        lines.append(LinePlan(tuple((k, v) for k, v in vals.items() if k in names)))
    lines += [LinePlan(tuple((k, "") for k in names))] * blanks
    witness = WitnessPlan("Wanda Witness", "3 Oak St", "2", "10/05/2026", "Wanda Witness")
    return SheetPlan(
        number,
        "Elmwood Falls",
        "Albany",
        "Local Law No. 1",
        tuple(lines),
        witness,
        columns=tuple(columns),
        layout=layout,
        of=6,
    )


def _read(tmp_path: Path, plan: SheetPlan):
    path = tmp_path / "sheet.pdf"
    write_pdf(path, [plan])
    return read(path)


WIDE = [
    ("Date", "date", 70.0),
    ("Signature of Voter", "signature", 150.0),
    ("Printed Name", "name", 130.0),
    ("Residence", "residence", 150.0),
    ("E.D.", "election_district", 40.0),
]


@pytest.mark.parametrize("rules", ["grid", "horizontal", "none", "heavy-title"])
def test_every_rule_style_reads_every_row(tmp_path: Path, rules: str) -> None:
    layout = replace(CLASSIC, family="t", rules=rules, row_h=30.0, heading="PETITION")
    sheet = _read(tmp_path, _plan(WIDE, layout))
    # without rules nothing on the page shows the two blank rows: read down to the last entry
    assert len(sheet.lines) == (3 if rules == "none" else 5), rules
    assert [ln.text("residence") for ln in sheet.lines[:3]] == [
        "12 Maple Ave",
        "4 Elm St",
        "9 Oak St",
    ]
    assert [ln.blank for ln in sheet.lines] == [False, False, False, True, True][: len(sheet.lines)]
    assert sheet.lines[2].text("signature") == ""  # not signed: no ink at all
    assert sheet.sheet_number_value == 3
    assert sheet.witness is not None and sheet.witness.signature.text == "Wanda Witness"
    assert sheet.layout_doubts == ()


def test_line_numbers_street_and_town_on_legal_landscape(tmp_path: Path) -> None:
    columns = [
        ("No.", "line_number", 30.0),
        ("Date Signed", "date", 80.0),
        ("Signature", "signature", 200.0),
        ("Print Name", "name", 180.0),
        ("Street and Number", "street", 200.0),
        ("City/Village", "town", 150.0),
        ("E.D.", "election_district", 60.0),
    ]
    layout = replace(
        CLASSIC,
        family="t",
        page=landscape(legal),
        rules="horizontal",
        number_caption="Page {n} of {of}",
        number_at="top-right",
    )
    sheet = _read(tmp_path, _plan(columns, layout))
    assert len(sheet.lines) == 5
    assert sheet.lines[0].text("residence") == "12 Maple Ave, Elmwood Falls"
    assert "line_number" not in sheet.columns and "residence" in sheet.columns
    assert sheet.sheet_number_value == 3 and sheet.layout_doubts == ()


@pytest.mark.parametrize("ink", ["image", "vector"])
def test_a_signature_drawn_not_typed_is_signed(tmp_path: Path, ink: str) -> None:
    import random

    from synth.handwriting import available_fonts, pick_hand

    hand = pick_hand(random.Random(1), available_fonts(False))
    layout = replace(CLASSIC, family="t", signature_ink=ink)
    plan = replace(_plan(WIDE, layout), hands=(hand,) * 5, witness_hand=hand)
    sheet = _read(tmp_path, plan)
    assert [ln.text("signature") for ln in sheet.lines[:3]] == [SIGNED, SIGNED, ""]
    assert sheet.lines[0].get("signature").source is Source.TEXT_LAYER
    assert sheet.witness.signature.text == SIGNED  # the witness signed with ink too


def test_combined_signature_and_residence_cell(tmp_path: Path) -> None:
    columns = [
        ("Date", "date", 80.0),
        ("Signature and Residence", "signature_residence", 340.0),
        ("Election District", "election_district", 120.0),
    ]
    layout = replace(CLASSIC, family="t", rules="heavy-title", row_h=40.0)
    sheet = _read(tmp_path, _plan(columns, layout))
    first = sheet.lines[0]
    assert first.text("signature") == "Ann B Carter" and first.text("residence") == "12 Maple Ave"
    assert sheet.lines[2].text("signature") == "" and sheet.lines[2].text("residence") == "9 Oak St"


def test_columns_placed_by_content_or_doubted(tmp_path: Path) -> None:
    """A title the vocabulary does not know: a column of house numbers and streets is the
    residence by its content; a column of names under "Remarks" is placed by nothing, and the
    sheet says so (it goes to a person) rather than losing the column."""
    columns = [
        ("Date", "date", 80.0),
        ("Signature", "signature", 160.0),
        ("Remarks", "name", 150.0),
        ("Domicile of Record", "residence", 150.0),
    ]
    sheet = _read(tmp_path, _plan(columns, replace(CLASSIC, family="t")))
    assert sheet.lines[0].text("residence") == "12 Maple Ave"
    assert [d for d in sheet.layout_doubts] == ["a column titled 'Remarks' was not placed"]


def test_a_table_without_a_residence_column_is_a_doubt(tmp_path: Path) -> None:
    columns = [
        ("Date", "date", 80.0),
        ("Signature", "signature", 200.0),
        ("Printed Name", "name", 200.0),
    ]
    sheet = _read(tmp_path, _plan(columns, replace(CLASSIC, family="t")))
    assert sheet.layout_doubts == ("no column gives the signer's residence",)


def test_unseen_ink_is_looked_at_on_the_rendered_page(tmp_path: Path) -> None:
    """Ink the text layer does not hold (here a shading, which pdfplumber lists as neither
    text, image nor curve) in the signature cell of a line that has other entries is found on
    the rendered page: the line goes to a person, it is not read as unsigned."""
    from reportlab.lib.colors import black
    from reportlab.pdfgen.canvas import Canvas

    from synth.sheets import draw_sheet

    plan = _plan(WIDE, replace(CLASSIC, family="t"))
    box = _read(tmp_path, plan).lines[2].get("signature").box
    path = tmp_path / "sheet.pdf"
    c = Canvas(str(path), pagesize=letter, invariant=1)
    c.saveState()
    clip = c.beginPath()
    y = letter[1] - box.bottom + 5
    clip.rect(box.x0 + 10, y, 60, box.bottom - box.top - 10)
    c.clipPath(clip, stroke=0, fill=0)
    c.linearGradient(box.x0, y, box.x1, y + 10, (black, black), extend=True)
    c.restoreState()
    draw_sheet(c, plan)
    c.save()
    with pdfplumber.open(path) as pdf:
        page = pdf.pages[0]
        ref = PageRef(
            str(path), 0, "ab" * 32, PageKind.PDF_TEXT, float(page.width), float(page.height)
        )
        sheet = read_text_page(page, ref)
    sig = sheet.lines[2].get("signature")
    assert sig.text == SIGNED and sig.source is Source.OCR and sig.confidence < 0.8
    assert sheet.lines[1].text("signature") == "Bo Dent"


def test_a_table_without_rules_or_statement_ends_at_the_foot_caption(tmp_path: Path) -> None:
    layout = replace(CLASSIC, family="t", rules="none", number_caption="Page {n} of {of}")
    plan = replace(_plan(WIDE, layout), witness=None)
    sheet = _read(tmp_path, plan)
    assert [ln.blank for ln in sheet.lines] == [False, False, False]  # the caption is no row
    assert sheet.layout_doubts == ()
    assert sheet.sheet_number_value == 3


@pytest.mark.parametrize("row_h", [22.0, 36.0])
def test_one_entry_over_blank_rows_without_rules(tmp_path: Path, row_h: float) -> None:
    """A table without rules with one entry: its blank rows, which nothing marks, are not
    guessed from the gap down to the statement (that guess invented a row); nothing is drawn
    below the entry, so nothing is doubted."""
    layout = replace(CLASSIC, family="t", rules="none", row_h=row_h, heading="PETITION")
    sheet = _read(tmp_path, _plan(WIDE, layout, rows=ROWS[:1], blanks=5))
    assert [ln.blank for ln in sheet.lines] == [False]
    assert sheet.layout_doubts == ()


@pytest.mark.parametrize("ink", ["image", "vector"])
def test_a_signature_drawn_below_the_last_typed_entry_is_doubted(tmp_path: Path, ink: str) -> None:
    """A table without rules whose last row holds only a signature pasted as a picture or
    drawn as strokes (no typed entry to place a row by): the sheet says that something lies
    below its last row, so a person looks at it; it is never silently left out."""
    import random

    from synth.handwriting import available_fonts, pick_hand

    hand = pick_hand(random.Random(1), available_fonts(False))
    layout = replace(CLASSIC, family="t", rules="none", row_h=30.0, signature_ink=ink)
    drawn_only = {k: ("Dee Eve" if k == "signature" else "") for k in ROWS[0]}
    plan = _plan(WIDE, layout, rows=(*ROWS, drawn_only), blanks=1)
    sheet = _read(tmp_path, replace(plan, hands=(hand,) * 5, witness_hand=hand))
    assert [ln.blank for ln in sheet.lines] == [False, False, False]
    assert UNMARKED_ROWS in sheet.layout_doubts


def test_printed_line_numbers_show_the_blank_rows_of_a_table_without_rules(
    tmp_path: Path,
) -> None:
    """The line-number column marks every row, blank ones too: the rows end at the last
    number, not at the last entry, and nothing is doubted."""
    columns = [("No.", "line_number", 30.0), *WIDE]
    layout = replace(CLASSIC, family="t", rules="none", row_h=30.0, heading="PETITION")
    sheet = _read(tmp_path, _plan(columns, layout, blanks=3))
    assert [ln.blank for ln in sheet.lines] == [False] * 3 + [True] * 3
    assert sheet.layout_doubts == ()


@pytest.mark.parametrize("rules", ["horizontal", "none"])
def test_a_long_date_beside_a_drawn_signature_stays_one_date(tmp_path: Path, rules: str) -> None:
    """Column bounds without vertical rules: "September 21, 2026" is one date, though the
    signature column beside it holds no text to place the bound by."""
    rows = tuple({**r, "date": f"September {20 + k}, 2026"} for k, r in enumerate(ROWS))
    layout = replace(
        CLASSIC, family="t", rules=rules, row_h=30.0, heading="PETITION", signature_ink="image"
    )
    columns = [("Date", "date", 110.0), *WIDE[1:]]
    sheet = _read(tmp_path, _plan(columns, layout, rows=rows))
    assert [ln.text("date") for ln in sheet.lines[:3]] == [
        "September 20, 2026",
        "September 21, 2026",
        "September 22, 2026",
    ]
    assert sheet.lines[0].text("signature") == SIGNED


def test_abbreviated_titles_and_a_residence_beside_a_town(tmp_path: Path) -> None:
    columns = [
        ("No.", "line_number", 30.0),
        ("Date", "date", 70.0),
        ("Signature", "signature", 150.0),
        ("Residence", "street", 150.0),
        ("Town/City", "town", 110.0),
        ("Elec. Dist. No.", "election_district", 60.0),
    ]
    layout = replace(CLASSIC, family="t", rules="grid", heading="PETITION")
    sheet = _read(tmp_path, _plan(columns, layout))
    assert sheet.lines[0].text("residence") == "12 Maple Ave, Elmwood Falls"
    assert sheet.lines[1].text("election_district") == "1"
    assert sheet.layout_doubts == ()


def test_two_titles_run_together_are_parted_where_each_places() -> None:
    # "Town or City" and "Election District No." set so close that the text layer ran their
    # words together ("CityElection"): one title that placed nothing (the sheet went to a
    # person for its columns). Parted where each side places; a title whose parts a word
    # joins ("Name and Address") or that names no line field stays whole.
    from pipeline.texttable import _blocks

    def words(*spec: tuple[str, float, float]) -> list[dict[str, object]]:
        return [{"text": t, "x0": a, "x1": b, "top": 100.0, "bottom": 108.0} for t, a, b in spec]

    band = [
        words(
            ("Date", 0, 20),
            ("Town", 200, 220),
            ("or", 223, 230),
            ("CityElection", 233, 290),
            ("District", 293, 330),
            ("No.", 333, 345),
        )
    ]
    got = [(b.text, b.match.role if b.match else None) for b in _blocks(band)]
    assert got == [
        ("Date", "date"),
        ("Town or City", "town"),
        ("Election District No.", "election_district"),
    ]
    for spec in (
        (("Name", 0, 20), ("and", 23, 35), ("Address", 38, 70)),
        (("Signature", 0, 40), ("of", 43, 50), ("Witness", 53, 90)),
    ):
        (block,) = _blocks([words(*spec)])
        assert block.match is None
