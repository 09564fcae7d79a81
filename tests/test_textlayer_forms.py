"""The born-digital reader on the other statutes' statements: the nominating petition's witness
statement (both versions), the notary's statement, and 2-202's authenticating affidavit. Each
sheet is drawn here with reportlab (synthetic; no real person)."""

from __future__ import annotations

import hashlib

import pdfplumber
import pytest
from reportlab.lib.pagesizes import letter
from reportlab.pdfgen import canvas

from pipeline.records import PageKind, PageRef
from pipeline.textlayer import read_text_page

W, H = letter

NOMINATING_NEW = [
    "STATEMENT OF WITNESS",
    "I, Wanda Q. Witness state that I am a duly qualified voter of the State of New York.",
    "I now reside at 3 Oak St, Elmwood Falls (residence address). Each of the voters whose",
    "names are subscribed to this petition sheet containing 2 (fill in number) signatures,",
    "subscribed his or her name in my presence. I understand that this statement will be",
    "accepted for all purposes as the equivalent of an affidavit.",
]
NOMINATING_OLD = [
    "STATEMENT OF WITNESS",
    "I, Wanda Q. Witness state that I am a duly qualified voter and now reside at 3 Oak St",
    "(residence address) in the Village of Elmwood Falls in the State of New York in the",
    "County of Albany . Each of the voters whose names are subscribed to this petition sheet",
    "containing 2 (fill in number) signatures, subscribed his or her name in my presence.",
]
NOTARY = [
    "On the dates above indicated before me personally came each of the voters whose",
    "signatures appear on this petition sheet containing 2 (fill in number) signatures, who",
    "signed same in my presence and who, being by me duly sworn, each for himself or herself,",
    "said that the foregoing statement made and subscribed by him or her, was true.",
]
AFFIDAVIT = [
    "STATE OF NEW YORK",
    "COUNTY OF Albany ss.:",
    "Wanda Q. Witness being duly sworn,",
    "says: I reside at 3 Oak St in the Town of Greenfield in the State of New York:",
    "I know each of the persons whose names are subscribed to the above sheet",
    "having 2 signatures; and each of them subscribed the same in my presence.",
]


def draw(path, statement, captions, jurat=None, foot="Sheet No. 2"):
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    c.setFont("Helvetica", 9)
    c.drawString(36, H - 40, "VILLAGE INDEPENDENT NOMINATING PETITION (synthetic test sheet)")
    xs, top, rh = [36, 120, 300, 560], H - 80, 20
    rows = [
        ("Date", "Signature", "Residence"),
        ("10/01/2026", "Ann Carter", "12 Maple Ave"),
        ("10/02/2026", "Bo Dent", "4 Elm St"),
    ]
    for i, row in enumerate(rows):
        y = top - i * rh
        for j, text in enumerate(row):
            c.rect(xs[j], y - rh, xs[j + 1] - xs[j], rh)
            c.drawString(xs[j] + 3, y - 14, text)
    y = top - len(rows) * rh - 30
    for text in statement:
        c.drawString(36, y, text)
        y -= 13
    if jurat:
        c.drawString(36, y, jurat)
        y -= 13
    y -= 20
    c.drawString(40, y, captions[0][0])
    c.drawString(320, y, captions[0][1])
    c.drawString(40, y - 12, captions[1][0])
    c.drawString(320, y - 12, captions[1][1])
    c.drawCentredString(W / 2, 30, foot)
    c.showPage()
    c.save()


def read(path):
    with pdfplumber.open(path) as pdf:
        page = pdf.pages[0]
        ref = PageRef(
            str(path),
            0,
            hashlib.sha256(path.read_bytes()).hexdigest(),
            PageKind.PDF_TEXT,
            float(page.width),
            float(page.height),
        )
        return read_text_page(page, ref)


WITNESS_CAPTIONS = (("10/05/2026", "Wanda Q. Witness"), ("Date", "Signature of witness"))


@pytest.mark.parametrize(
    "what,statement,captions,jurat,form,expect",
    [
        (
            "nominating, from 2017-11-22",
            NOMINATING_NEW,
            WITNESS_CAPTIONS,
            None,
            "witness",
            {
                "witness_name": "Wanda Q. Witness",
                "residence": "3 Oak St, Elmwood Falls",
                "stated_count": "2",
                "date": "10/05/2026",
                "signature": "Wanda Q. Witness",
            },
        ),
        (
            "nominating, until 2017-11-22",
            NOMINATING_OLD,
            WITNESS_CAPTIONS,
            None,
            "witness",
            {
                "witness_name": "Wanda Q. Witness",
                "residence": "3 Oak St",
                "village": "Elmwood Falls",
                "county": "Albany",
                "stated_count": "2",
            },
        ),
        (
            "notary's statement",
            NOTARY,
            (
                ("Date: 10/05/2026", "Nora Notary, Notary Public"),
                ("", "(Signature and official title of officer administering oath)"),
            ),
            None,
            "notary",
            {"stated_count": "2", "date": "10/05/2026", "signature": "Nora Notary, Notary Public"},
        ),
        (
            "2-202 authenticating affidavit",
            AFFIDAVIT,
            (("", "Wanda Q. Witness"), ("", "(signature of witness)")),
            "Sworn to before me This 5th day of October, 2026",
            "affidavit",
            {
                "witness_name": "Wanda Q. Witness",
                "residence": "3 Oak St",
                "stated_count": "2",
                "date": "October 5, 2026",
                "signature": "Wanda Q. Witness",
            },
        ),
    ],
)
def test_statements(tmp_path, what, statement, captions, jurat, form, expect):
    path = tmp_path / "sheet.pdf"
    draw(path, statement, captions, jurat)
    sheet = read(path)
    assert sheet.witness is not None, what
    assert sheet.witness.form == form, what
    for name, text in expect.items():
        got = getattr(sheet.witness, name)
        assert got is not None and got.text == text, (what, name, got)
    assert sheet.witness.stated_count_value == 2
    assert [ln.text("residence") for ln in sheet.lines] == ["12 Maple Ave", "4 Elm St"]
    assert sheet.sheet_number_value == 2


def test_page_no_at_the_foot(tmp_path):
    """The notary form ends 'Page No. ......': read as the sheet's number."""
    path = tmp_path / "sheet.pdf"
    draw(
        path,
        NOTARY,
        (
            ("Date: 10/05/2026", "N. Notary"),
            ("", "(Signature and official title of officer administering oath)"),
        ),
        foot="Page No. 7",
    )
    assert read(path).sheet_number_value == 7


@pytest.mark.parametrize(
    ("lines", "lost", "form"),
    [(NOMINATING_NEW, [0], "witness"), (NOTARY, [0], "notary"), (AFFIDAVIT, [0, 2], "affidavit")],
    ids=["witness", "notary", "affidavit"],
)
def test_a_statement_whose_opening_is_lost_is_known_by_its_wording(lines, lost, form):
    """A statement's opening lines misread (as OCR may misread a scan's) or its heading set in
    other words: it is still that statement, known by the rest of its wording, and its
    blanks are read. A table's row, or one phrase alone, is no statement."""
    from pipeline.forms import STANDARD_STATEMENTS, statement_form

    misread = str.maketrans({"e": "3", "E": "3", "o": "0", "O": "0"})
    text = "\n".join(line.translate(misread) if k in lost else line for k, line in enumerate(lines))
    assert all(st.opening.search(text) is None for st in STANDARD_STATEMENTS)
    found = statement_form(text)
    assert found is not None and found[0].form == form
    statement, _, end = found
    assert any((m := p.search(text, end)) and m["x"].strip() == "2" for p in statement.counts)
    assert statement_form("10/03/2026  Rhoda D Juniper  73 Willow Way, Greenfield") is None
    for one in ("over the age of eighteen", "being by me duly sworn", "sworn to before me"):
        assert statement_form(f"12 Main St {one}") is None
