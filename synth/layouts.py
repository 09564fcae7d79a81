"""Layout families: petition sheets set as different campaigns, offices and print shops set the
same statutory form text (Village Law § 9-902(8)), for a corpus whose reader is measured on
layouts it was not tuned on.

A *family* is a way of setting the form: which table rules (a full grid, horizontal rules only,
none, a heavy title row), which columns in which order under which titles, row heights, paper
(letter, legal; portrait, landscape), margins, the heading's and the statement's wording and
place, the sheet number's caption and place (typed or written in), pens, and how a born-digital
sheet is signed (text, a pasted picture, drawn strokes). Each draw from a family is one
`sheets.Layout` and the columns its sheets print.

Every family and every print font belongs to one split, fixed here and recorded in the truth:
`dev` (tune the readers on these) or `heldout` (report on these, never tune on them). The
handwriting fonts' split is handwriting.py's (`font_split`): one split for every benchmark.
Today's form is the `classic` family (dev). Synthetic: no real person's data.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace

from reportlab.lib.pagesizes import landscape, legal, letter

from pipeline.columns import role_field

from .handwriting import HandFont, available_fonts, font_split
from .kinds_draw import PageStyle
from .sheets import CLASSIC, Layout

__all__ = [
    "FAMILIES",
    "PRINT_FONTS",
    "SPLITS",
    "Col",
    "Family",
    "draw_layout",
    "families",
    "hand_font_split",
    "hand_fonts_for",
    "kind_style",
    "max_rows",
]

SPLITS = ("dev", "heldout")
# The printed form's fonts (reportlab built-ins: regular, bold) and their split.
PRINT_FONTS: dict[str, tuple[str, str, str]] = {
    "Helvetica": ("Helvetica", "Helvetica-Bold", "dev"),
    "Courier": ("Courier", "Courier-Bold", "dev"),
    "Times-Roman": ("Times-Roman", "Times-Bold", "heldout"),
}
# Handwriting fonts by name (synth/handwriting.py's HAND_FONTS): each split keeps an
# entry font and a script (signature) font. A font not listed is development.
PAGES = {
    "letter": letter,
    "legal": legal,
    "letter-landscape": landscape(letter),
    "legal-landscape": landscape(legal),
}
BLUE = (0.08, 0.16, 0.55)
NAVY = (0.05, 0.07, 0.3)
BLACK = (0.0, 0.0, 0.0)


def hand_font_split(font: HandFont) -> str:
    """The handwriting font's part of the one fixed split (`handwriting.font_split`)."""
    return font_split(font)


def hand_fonts_for(system_fonts: bool, part: str, split: str) -> tuple[HandFont, ...]:
    """The handwriting fonts a sheet of a layout of `split` is filled in: the fonts of the same
    split of handwriting.py's fixed font split when the corpus asked for "all" fonts, else the
    part it asked for (an explicit choice wins)."""
    return available_fonts(system_fonts, split if part == "all" else part)


@dataclass(frozen=True, slots=True)
class Col:
    """A column a family may print: its role (`pipeline.columns.ROLES`), the titles it is
    printed under ("\\n" breaks a line), its share of the table's width, the chance it is
    printed at all."""

    role: str
    titles: tuple[str, ...]
    weight: float
    p: float = 1.0


@dataclass(frozen=True, slots=True)
class Family:
    name: str
    split: str
    column_sets: tuple[tuple[Col, ...], ...]
    rules: tuple[str, ...] = ("grid",)
    pages: tuple[str, ...] = ("letter",)
    row_h: tuple[float, float] = (22.0, 22.0)
    header_row_h: tuple[float, float] = (32.0, 32.0)
    margins: tuple[float, float] = (36.0, 36.0)
    headings: tuple[str, ...] = ("PETITION FOR A PERMISSIVE REFERENDUM",)
    witness_headings: tuple[str, ...] = ("Statement of Witness:",)
    captions: tuple[str, ...] = ("Sheet No. {n}",)
    number_at: tuple[str, ...] = ("foot-center",)
    written_number: float = 0.0
    signature_ink: tuple[str, ...] = ("text",)
    overflow: float = 0.0
    pens: tuple[tuple[float, float, float], ...] = (BLACK,)


def _c(role: str, titles: str | tuple[str, ...], weight: float, p: float = 1.0) -> Col:
    return Col(role, (titles,) if isinstance(titles, str) else titles, weight, p)


FAMILIES: tuple[Family, ...] = (
    # -- development ----------------------------------------------------------------------
    Family("classic", "dev", ()),  # today's form (columns from varied.pick_columns)
    Family(
        "statutory-grid",
        "dev",
        (
            (
                _c("line_number", "No.", 0.35),
                _c("date", ("Date", "Date of\nSigning", "Mo./Day/Yr."), 0.8),
                _c("signature", ("Signature", "Signature of\nElector", "Sign Your\nName"), 1.6),
                _c("name", ("Printed Name", "Name"), 1.5, 0.7),
                _c("residence", ("Residence", "Residence\n(Street and Number)"), 1.8),
                _c("ward", "Ward", 0.5, 0.5),
                _c("election_district", ("Election\nDistrict", "E.D."), 0.6),
            ),
        ),
        rules=("grid", "heavy-title"),
        row_h=(20.0, 26.0),
        header_row_h=(28.0, 36.0),
        margins=(30.0, 48.0),
        headings=("PETITION FOR A PERMISSIVE REFERENDUM", "PERMISSIVE REFERENDUM PETITION"),
        witness_headings=("STATEMENT OF WITNESS", "Statement of Witness:"),
        captions=("Page No. {n}", "Sheet No. {n}"),
        number_at=("foot-right", "top-right"),
        signature_ink=("text", "text", "image"),
        pens=(BLACK, BLUE),
    ),
    Family(
        "horizontal-tall",
        "dev",
        (
            (
                _c("date", ("Date of\nSigning", "Date"), 0.8),
                _c("signature", ("Signature of\nVoter", "Signature"), 1.7),
                _c("name", ("Printed\nName", "Print Your\nName Here"), 1.5, 0.6),
                _c(
                    "residence",
                    ("Residence\n(Street and Number)", "Address", "Voter's\nAddress"),
                    2.0,
                ),
                _c("election_district", "E.D.", 0.5, 0.6),
            ),
        ),
        rules=("horizontal",),
        pages=("letter", "legal"),
        row_h=(34.0, 44.0),
        header_row_h=(30.0, 40.0),
        margins=(36.0, 54.0),
        captions=("Sheet {n} of {of}", "Page {n} of {of}"),
        number_at=("foot-left", "foot-center"),
        signature_ink=("text", "vector"),
        overflow=0.3,
        pens=(BLUE, NAVY, BLACK),
    ),
    Family(
        "open-street-town",
        "dev",
        (
            (
                _c("date", "Date", 0.8),
                _c("signature", "Signature", 1.6),
                _c("name", "Printed Name", 1.5),
                _c("street", "Street and Number", 1.7),
                _c(
                    "town",
                    ("Town", "City/Village", "Enter Town\nor City", "Village of\nResidence"),
                    1.1,
                ),
                _c("ward", "Ward", 0.45, 0.4),
            ),
        ),
        rules=("none", "horizontal"),
        pages=("letter-landscape", "legal-landscape"),
        row_h=(22.0, 30.0),
        header_row_h=(24.0, 30.0),
        captions=("Sheet No. {n}",),
        number_at=("foot-center", "top-right"),
        written_number=0.6,
        pens=(BLACK, BLUE),
    ),
    Family(
        "combined-statutory",
        "dev",
        (
            (
                _c("date", "Date", 0.8),
                _c(
                    "signature_residence",
                    ("Signature-Residence", "Signature of Signer,\nResidence"),
                    2.8,
                ),
                _c("ward", "Ward\n(if any)", 0.6, 0.5),
                _c("election_district", "Village Election\nDistrict\n(if any)", 0.8),
            ),
        ),
        rules=("heavy-title", "grid"),
        row_h=(30.0, 38.0),
        header_row_h=(32.0, 38.0),
        captions=("Sheet No. {n}", "Page No. {n}"),
        number_at=("foot-center",),
        signature_ink=("text", "image", "vector"),
    ),
    # -- held out: never tuned on ---------------------------------------------------------
    Family(
        "legal-landscape-grid",
        "heldout",
        (
            (
                _c("line_number", ("No.", "Line"), 0.35),
                _c("date", ("Date Signed", "Date"), 0.8),
                _c("signature", ("Signature of Voter", "Signature of the Elector"), 1.7),
                _c("name", ("Print Name", "Name of Signer"), 1.5),
                _c("street", ("Address", "Street Address"), 1.7),
                _c("town", ("City/Village", "Town or City"), 1.1),
                _c("ward", "Ward No.", 0.5, 0.5),
                _c("election_district", ("E.D.", "Election Dist."), 0.5),
            ),
        ),
        rules=("grid",),
        pages=("legal-landscape", "letter-landscape"),
        row_h=(22.0, 28.0),
        header_row_h=(26.0, 34.0),
        margins=(28.0, 40.0),
        headings=("PETITION FOR PERMISSIVE REFERENDUM",),
        witness_headings=("STATEMENT OF WITNESS:",),
        captions=("Page {n} of {of}",),
        number_at=("foot-center", "foot-right"),
        signature_ink=("text", "vector", "vector"),
        pens=(BLACK, BLUE),
    ),
    Family(
        "combined-heavy",
        "heldout",
        (
            (
                _c("line_number", "No.", 0.35),
                _c("date", ("Date", "Date of Signature"), 0.8),
                _c("signature_residence", ("Signature and Residence", "Signature & Address"), 2.8),
                _c("election_district", ("Election District", "Dist."), 0.7),
            ),
        ),
        rules=("heavy-title",),
        pages=("legal", "letter"),
        row_h=(38.0, 44.0),
        header_row_h=(28.0, 34.0),
        captions=("Page No. {n}", "Sheet No. {n}"),
        number_at=("top-left", "foot-left"),
        signature_ink=("image", "text"),
        pens=(NAVY, BLACK),
    ),
    Family(
        "print-shop-horizontal",
        "heldout",
        (
            (
                _c("date", ("Date Signed", "Signing Date"), 0.8),
                _c("signature", ("Signature of Signer", "Signer's Signature"), 1.6),
                _c("name", ("Printed Name of Signer", "Name (Printed)"), 1.5, 0.7),
                _c("street", ("Residence (Street & No.)", "Number and Street"), 1.8),
                _c("town", ("Town or City", "Village"), 1.0),
                _c("election_district", ("E.D.", "Election District No."), 0.55, 0.7),
            ),
        ),
        rules=("horizontal",),
        pages=("letter", "legal"),
        row_h=(26.0, 43.0),
        header_row_h=(30.0, 40.0),
        margins=(40.0, 60.0),
        headings=("PETITION", "PETITION FOR A PERMISSIVE REFERENDUM"),
        witness_headings=("STATEMENT OF WITNESS",),
        captions=("Petition Sheet {n}", "Sheet # {n}"),
        number_at=("top-right", "foot-right"),
        written_number=0.5,
        overflow=0.3,
        pens=(BLUE, BLACK),
    ),
    Family(
        "open-minimal",
        "heldout",
        (
            (
                _c("date", "Date", 0.8),
                _c("signature", ("Signature", "Sign Here"), 1.7),
                _c("name", ("Name", "Full Name"), 1.5),
                _c("residence", ("Address", "Home Address"), 2.0),
            ),
        ),
        rules=("none",),
        pages=("letter", "letter-landscape"),
        row_h=(24.0, 32.0),
        header_row_h=(22.0, 28.0),
        captions=("Sheet #{n}", "Page {n}"),
        number_at=("foot-right", "top-left"),
        signature_ink=("text", "image"),
        overflow=0.25,
        pens=(BLACK, BLUE, NAVY),
    ),
)
assert all(f.split in SPLITS for f in FAMILIES)
assert {f.split for f in FAMILIES} == set(SPLITS)


def families(split: str) -> tuple[Family, ...]:
    """The families of a split ("dev" or "heldout")."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {', '.join(SPLITS)}, not {split!r}")
    return tuple(f for f in FAMILIES if f.split == split)


def max_rows(layout: Layout) -> int:
    """How many rows fit the layout's page under the heading and above the statement."""
    return max(2, int((layout.page[1] - 320 - layout.header_row_h) // layout.row_h))


def draw_layout(
    rng: random.Random, family: Family, classic_columns: tuple[tuple[str, str, float], ...]
) -> tuple[Layout, tuple[tuple[str, str, float], ...]]:
    """One layout drawn from a family, and the columns its table prints (title, role, width in
    points; the widths fill the page between its margins). `classic_columns` are the classic
    family's (the caller's column draw)."""
    if family.name == "classic":
        return replace(CLASSIC, family=family.name, split=family.split), classic_columns
    fonts = [f for f in PRINT_FONTS.values() if f[2] == family.split]
    regular, bold, _ = rng.choice(fonts)
    page = PAGES[rng.choice(family.pages)]
    margin = round(rng.uniform(*family.margins), 1)
    spec = rng.choice(family.column_sets)
    printed = [c for c in spec if c.p >= 1.0 or rng.random() < c.p]
    # A town column prints only beside its street column, and the reverse.
    roles = {c.role for c in printed}
    if ("street" in roles) != ("town" in roles):
        printed = [c for c in printed if c.role not in ("street", "town")]
        if "residence" not in roles:
            printed.append(_c("residence", "Residence", 2.0))
    usable = page[0] - 2 * margin
    total = sum(c.weight for c in printed)
    columns = tuple(
        (rng.choice(c.titles), c.role, round(usable * c.weight / total, 2)) for c in printed
    )
    assert len({role_field(r) for _, r, _ in columns if r != "line_number"}) >= 2
    layout = Layout(
        family=family.name,
        split=family.split,
        page=page,
        margin=margin,
        rules=rng.choice(family.rules),
        header_row_h=round(rng.uniform(*family.header_row_h), 1),
        row_h=round(rng.uniform(*family.row_h), 1),
        print_font=regular,
        bold_font=bold,
        heading=rng.choice(family.headings),
        heading_left=rng.random() < 0.3,
        witness_heading=rng.choice(family.witness_headings),
        witness_indent=rng.choice((0.0, 12.0, 24.0)),
        number_caption=rng.choice(family.captions),
        number_at=rng.choice(family.number_at),
        number_written=rng.random() < family.written_number,
        signature_ink=rng.choice(family.signature_ink),
        overflow=family.overflow,
        pens=family.pens,
    )
    return layout, columns


def kind_style(rng: random.Random, split: str, fields: Sequence[str]) -> PageStyle:
    """How one of the split's families (not the classic) sets another kind's signature table:
    its rules (a heavy title row as a grid), a row height that keeps the statement on the page,
    titles for the kind's columns from the family's (the kind's own where it has none) and the
    number's place."""
    family = rng.choice([f for f in families(split) if f.name != "classic"])
    rules = rng.choice(family.rules)
    titles = []
    for field in fields:
        cols = [c for cs in family.column_sets for c in cs if role_field(c.role) == field]
        cols = [c for c in cols if c.role != "signature_residence"]
        titles.append(rng.choice(cols[0].titles).replace("\n", " ") if cols else "")
    return PageStyle(
        family=family.name,
        split=family.split,
        rules="grid" if rules == "heavy-title" else rules,
        row_h=round(rng.uniform(20.0, min(26.0, family.row_h[1])), 1),
        header_row_h=20.0,
        number_at=rng.choice(family.number_at),
        titles=tuple(titles),
        fields=tuple(fields),
    )
