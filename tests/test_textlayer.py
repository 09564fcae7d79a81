"""Reading born-digital sheets from the PDF text layer, and mapping column titles.

Every PDF here is drawn in tmp_path by the test (synthetic, no real person's data)."""

from __future__ import annotations

import random
from pathlib import Path

import pdfplumber
import pytest
from PIL import Image
from reportlab.lib.pagesizes import letter
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen.canvas import Canvas

from pipeline.columns import HEADER_PATTERNS, ROLES, map_header
from pipeline.records import FIELD_NAMES, PageKind, PageRef
from pipeline.textlayer import read_text_page, text_layer_usable
from synth import LinePlan, SheetPlan, WitnessPlan, write_pdf


@pytest.mark.parametrize(
    ("title", "field"),
    [
        ("Date", "date"),
        ("DATE", "date"),
        ("Date of signing", "date"),
        ("Signature", "signature"),
        ("Signature-Residence", "signature"),
        ("Signature -\nResidence", "signature"),
        ("Printed Name", "name"),
        ("Printed\n  Name", "name"),
        ("Name", "name"),
        ("Residence", "residence"),
        ("Address", "residence"),
        ("Ward (if any)", "ward"),
        ("Ward\nif any", "ward"),
        ("Village Election District (if any)", "election_district"),
        ("Village Election\nDistrict\n(if any)", "election_district"),
        ("Election District", "election_district"),
        ("E.D.", "election_district"),
        ("ED", "election_district"),
        ("Notes", None),
        ("", None),
    ],
)
def test_map_header(title: str, field: str | None) -> None:
    assert map_header(title) == field


def test_header_table_targets_are_roles() -> None:
    assert {f for _, f in HEADER_PATTERNS} == set(ROLES)
    assert set(FIELD_NAMES) <= set(ROLES)


def _ref(page: pdfplumber.page.Page, index: int = 0) -> PageRef:
    return PageRef(
        "test.pdf", index, "cd" * 32, PageKind.PDF_TEXT, float(page.width), float(page.height)
    )


def test_no_table_gives_no_lines(tmp_path: Path) -> None:
    path = tmp_path / "letter.pdf"
    c = Canvas(str(path), pagesize=letter, invariant=1)
    c.setFont("Helvetica", 11)
    for k, text in enumerate(
        [
            "Dear Clerk,",
            "Please find the petition enclosed.",
            "It has no table at all on this page.",
            "Sheet No. 2",
        ]
    ):
        c.drawString(72, 700 - 16 * k, text)
    c.save()
    with pdfplumber.open(path) as pdf:
        page = pdf.pages[0]
        assert text_layer_usable(page)
        sheet = read_text_page(page, _ref(page))
    assert sheet.lines == ()
    assert sheet.witness is None
    assert sheet.columns == ()


def test_image_only_page_has_no_usable_text_layer(tmp_path: Path) -> None:
    rng = random.Random(1)
    img = Image.new("L", (200, 260), 255)
    img.putdata([255 if rng.random() > 0.05 else 0 for _ in range(200 * 260)])
    path = tmp_path / "scan.pdf"
    c = Canvas(str(path), pagesize=letter, invariant=1)
    c.drawImage(ImageReader(img), 0, 0, width=letter[0], height=letter[1])
    c.save()
    with pdfplumber.open(path) as pdf:
        page = pdf.pages[0]
        assert not text_layer_usable(page)
        sheet = read_text_page(page, _ref(page))
    assert sheet.lines == () and sheet.witness is None and sheet.sheet_number is None


def _plan(witness: WitnessPlan | None, rows: int = 4) -> SheetPlan:
    fields = ("date", "signature", "name", "residence", "ward", "election_district")
    filled = LinePlan(
        tuple(
            zip(
                fields,
                ("Oct 3, 2026", "Ida Q Fernsby", "Ida Q Fernsby", "22 1/2 Mill St Apt 3", "1", "2"),
                strict=True,
            )
        )
    )
    empty = LinePlan(tuple((f, "") for f in fields))
    return SheetPlan(
        3,
        "Elmwood Falls",
        "Albany",
        "Local Law No. 3 of 2026",
        (filled,) + (empty,) * (rows - 1),
        witness,
    )


def test_reads_generated_sheet(tmp_path: Path) -> None:
    w = WitnessPlan("Otis Rookwood", "14 Maple Ave", "1", "10/4/26", "Otis Rookwood")
    path = tmp_path / "s.pdf"
    write_pdf(path, [_plan(w)])
    with pdfplumber.open(path) as pdf:
        page = pdf.pages[0]
        sheet = read_text_page(page, _ref(page))
    assert sheet.header.title == "PETITION FOR A PERMISSIVE REFERENDUM"
    assert sheet.header.village.text == "Elmwood Falls"
    assert sheet.header.county.text == "Albany"
    assert sheet.header.proposition.text == "Local Law No. 3 of 2026"
    assert sheet.sheet_number_value == 3
    assert [ln.line_no for ln in sheet.lines] == [1, 2, 3, 4]
    assert [ln.blank for ln in sheet.lines] == [False, True, True, True]
    first = sheet.lines[0]
    assert first.text("residence") == "22 1/2 Mill St Apt 3"
    assert first.text("date") == "Oct 3, 2026"
    assert first.line_id == "cdcdcdcdcdcd-01"
    res = first.get("residence")
    assert res.box is not None and first.box is not None
    assert first.box.top <= res.box.top < res.box.bottom <= first.box.bottom
    assert sheet.witness.witness_name.text == "Otis Rookwood"
    assert sheet.witness.village.text == "Elmwood Falls"
    assert sheet.witness.county.text == "Albany"
    assert sheet.witness.stated_count_value == 1
    assert sheet.witness.date.text == "10/4/26"
    assert sheet.witness.signature.text == "Otis Rookwood"


def test_dotted_blanks_are_empty(tmp_path: Path) -> None:
    path = tmp_path / "s.pdf"
    write_pdf(path, [_plan(WitnessPlan("", "", "", "", ""))])
    with pdfplumber.open(path) as pdf:
        page = pdf.pages[0]
        sheet = read_text_page(page, _ref(page))
    w = sheet.witness
    assert w is not None
    for f in (w.witness_name, w.residence, w.stated_count, w.date, w.signature):
        assert f is not None and f.empty, f
    assert w.stated_count_value is None


def test_statutory_combined_column_and_page_of_foot(tmp_path: Path) -> None:
    """The 9-902(8) form's own columns (Date | Signature-Residence | Ward if any | Village
    Election District if any) and a "Page 2 of 6" foot."""
    path = tmp_path / "form.pdf"
    c = Canvas(str(path), pagesize=letter, invariant=1)
    xs = [40, 120, 380, 450, 570]
    ys = [700, 670, 650, 630]
    for y in ys:
        c.line(xs[0], y, xs[-1], y)
    for x in xs:
        c.line(x, ys[0], x, ys[-1])
    c.setFont("Helvetica", 8)
    for x, t in zip(xs, ["Date", "Signature-Residence", "Ward if any", "E.D."], strict=False):
        c.drawString(x + 3, 682, t)
    c.drawString(xs[0] + 3, 656, "10/5/26")
    c.drawString(xs[1] + 3, 656, "Wren Oakhurst, 3 Birch Rd")
    c.drawCentredString(306, 30, "Page 2 of 6")
    c.save()
    with pdfplumber.open(path) as pdf:
        page = pdf.pages[0]
        sheet = read_text_page(page, _ref(page))
    assert sheet.columns == ("date", "signature", "residence", "ward", "election_district")
    assert len(sheet.lines) == 2
    assert sheet.lines[0].text("signature") == "Wren Oakhurst"
    assert sheet.lines[0].text("residence") == "3 Birch Rd"  # read from the combined cell
    assert sheet.lines[1].blank
    assert sheet.sheet_number_value == 2
    assert sheet.witness is None
