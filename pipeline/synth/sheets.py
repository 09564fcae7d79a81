"""Draw synthetic petition sheets as born-digital PDFs with reportlab.

Each page is one sheet "substantially in the following form" of Village Law § 9-902(8): the
address to the Board of Trustees, the petition body naming the act or resolution, the signature
table (Date, Signature, Printed Name, Residence, Ward (if any), Village Election District
(if any)), the Statement of Witness with its blanks filled in, and "Sheet No. n" at the foot
(9-902(8): sheets numbered consecutively beginning with number one at the foot of each sheet).

A signature is the signer's name in an oblique font: the born-digital stand-in for ink.
Canvases are made with `invariant=1`, so the same plan gives byte-identical PDFs.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from reportlab.lib.pagesizes import letter
from reportlab.lib.utils import simpleSplit
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas

from .handwriting import Hand, Stroke, draw_handwritten, write_in_text

__all__ = [
    "COLUMNS",
    "LinePlan",
    "SheetLayout",
    "SheetPlan",
    "WitnessPlan",
    "draw_sheet",
    "write_pdf",
]

log = logging.getLogger(__name__)

# (printed title, canonical field, width in points); the widths add up to the table's width.
COLUMNS: tuple[tuple[str, str, float], ...] = (
    ("Date", "date", 60.0),
    ("Signature", "signature", 118.0),
    ("Printed Name", "name", 118.0),
    ("Residence", "residence", 136.0),
    ("Ward (if any)", "ward", 42.0),
    ("Village Election District (if any)", "election_district", 66.0),
)
_HEADER_LINES = {
    "ward": ("Ward", "(if any)"),
    "election_district": ("Village Election", "District", "(if any)"),
}
BLANK = ".........."  # an unfilled blank of the statutory form

PAGE_W, PAGE_H = letter
MARGIN = 36.0
HEADER_ROW_H = 32.0
ROW_H = 22.0
CELL_FONT = 8.0


@dataclass(frozen=True, slots=True)
class LinePlan:
    """One row as drawn: canonical field -> text ("" for an empty cell)."""

    fields: tuple[tuple[str, str], ...]

    def get(self, name: str) -> str:
        return dict(self.fields).get(name, "")

    @property
    def blank(self) -> bool:
        return not any(text for _, text in self.fields)


@dataclass(frozen=True, slots=True)
class WitnessPlan:
    name: str
    residence: str
    stated_count: str  # as written in the "(fill in number)" blank
    date_text: str
    signature: str  # "" when the witness did not sign
    village: str | None = None  # the village the witness states; None: the sheet's village


@dataclass(frozen=True, slots=True)
class SheetPlan:
    number: int | None  # None: no number printed at the foot
    village: str
    county: str
    proposition: str
    lines: tuple[LinePlan, ...]
    witness: WitnessPlan | None
    # The table's columns: (printed title, canonical field, width). A "\n" in a title breaks it
    # over lines; the widths add up to the table's width.
    columns: tuple[tuple[str, str, float], ...] = COLUMNS
    # Handwriting: one hand per line (None for a blank line) and the witness's; None draws
    # every entry in Helvetica (the demo's look). `jitter_seed` seeds the baseline wobble.
    hands: tuple[Hand | None, ...] | None = None
    witness_hand: Hand | None = None
    jitter_seed: int = 0
    # With a witness hand: the statement's blanks (name, residence, village, county, count)
    # written in it too, not typed.
    written_statement: bool = False
    # False: the table printed without rules (titles and entries where a ruled table has them).
    ruled: bool = True


@dataclass(frozen=True, slots=True)
class SheetLayout:
    """Where things were drawn, in PDF points with the origin top-left (y down), as
    `pipeline.records.Box` has it: a row's box, and how each filled field was drawn."""

    row_boxes: tuple[tuple[float, float, float, float], ...]  # x0, top, x1, bottom
    strokes: tuple[tuple[tuple[str, Stroke], ...], ...]  # per row: (field, stroke)
    witness_strokes: tuple[tuple[str, Stroke], ...] = ()


def _fit(text: str, font: str, size: float, width: float) -> float:
    """The largest font size <= size at which text fits the width (never below 5 pt)."""
    while size > 5 and stringWidth(text, font, size) > width:
        size -= 0.25
    return size


def _or_blank(text: str) -> str:
    return text if text else BLANK


def draw_sheet(c: Canvas, plan: SheetPlan) -> SheetLayout:
    """Draw one sheet on the canvas's current page, end the page, and say where rows went."""
    rng = random.Random(plan.jitter_seed)
    columns = plan.columns
    y = PAGE_H - 48
    c.setFont("Helvetica-Bold", 13)
    c.drawCentredString(PAGE_W / 2, y, "PETITION FOR A PERMISSIVE REFERENDUM")
    y -= 22
    c.setFont("Helvetica", 9.5)
    c.drawString(
        MARGIN,
        y,
        f"To the Board of Trustees of the Village of {_or_blank(plan.village)} "
        f"County of {_or_blank(plan.county)}, State of New York.",
    )
    y -= 18
    body = (
        f"We, the undersigned, duly qualified electors of the village of {_or_blank(plan.village)} "
        "respectfully petition that the following proposed act or resolution "
        f"{_or_blank(plan.proposition)} be submitted to a vote of the qualified electors of the "
        "village for their approval or rejection as provided by law."
    )
    for text in simpleSplit(body, "Helvetica", 9.5, PAGE_W - 2 * MARGIN):
        c.drawString(MARGIN, y, text)
        y -= 12

    # The signature table, every cell border ruled (unless the plan says not) so a line-based
    # table finder sees it.
    top = y - 6
    xs = [MARGIN]
    for _, _, w in columns:
        xs.append(xs[-1] + w)
    ys = [top, top - HEADER_ROW_H]
    for _ in plan.lines:
        ys.append(ys[-1] - ROW_H)
    c.setLineWidth(0.6)
    for yy in ys if plan.ruled else ():
        c.line(xs[0], yy, xs[-1], yy)
    for xx in xs if plan.ruled else ():
        c.line(xx, ys[0], xx, ys[-1])
    c.setFont("Helvetica-Bold", 8)
    for (title, field, _), x0, x1 in zip(columns, xs, xs[1:], strict=False):
        parts = tuple(title.split("\n")) if "\n" in title else _HEADER_LINES.get(field, (title,))
        first = top - (HEADER_ROW_H - 9 * len(parts)) / 2 - 7.5
        for k, part in enumerate(parts):
            c.drawCentredString((x0 + x1) / 2, first - 9 * k, part)
    hands = plan.hands or (None,) * len(plan.lines)
    strokes: list[tuple[tuple[str, Stroke], ...]] = []
    for line, row_top, hand in zip(plan.lines, ys[1:], hands, strict=False):
        base = row_top - ROW_H + 7
        drawn: list[tuple[str, Stroke]] = []
        for (_, field, w), x0 in zip(columns, xs, strict=False):
            text = line.get(field)
            if not text:
                continue
            if hand is None:
                font = "Helvetica-Oblique" if field == "signature" else "Helvetica"
                size = _fit(text, font, CELL_FONT, w - 6)
                c.setFont(font, size)
                c.drawString(x0 + 3, base, text)
                drawn.append((field, Stroke(font, size, 0.0, 0.0)))
                continue
            sig = field == "signature"
            drawn.append(
                (
                    field,
                    draw_handwritten(
                        c,
                        rng,
                        text,
                        x0 + 3 + rng.uniform(0, 3),
                        base + 1,
                        w - 8,
                        hand.signature_font if sig else hand.entry_font,
                        (CELL_FONT + (2.5 if sig else 1.0)) * hand.scale,
                        hand.slant + (6.0 if sig else 0.0),
                        hand.wobble,
                        band=(row_top - ROW_H + 1.5, row_top - 1.5),
                    ),
                )
            )
        strokes.append(tuple(drawn))

    y = ys[-1] - 22
    witness_strokes: tuple[tuple[str, Stroke], ...] = ()
    if plan.witness is not None:
        witness_strokes = _draw_witness(c, plan, plan.witness, y, rng)

    if plan.number is not None:
        c.setFont("Helvetica", 9)
        c.drawCentredString(PAGE_W / 2, 30, f"Sheet No. {plan.number}")
    c.showPage()
    boxes = tuple(
        (xs[0], PAGE_H - a, xs[-1], PAGE_H - b) for a, b in zip(ys[1:], ys[2:], strict=False)
    )
    return SheetLayout(boxes, tuple(strokes), witness_strokes)


def _draw_witness(
    c: Canvas, plan: SheetPlan, w: WitnessPlan, y: float, rng: random.Random
) -> tuple[tuple[str, Stroke], ...]:
    """The Statement of Witness of 9-902(8), its blanks filled in (or dotted when empty)."""
    c.setFont("Helvetica-Bold", 9.5)
    c.drawString(MARGIN, y, "Statement of Witness:")
    y -= 15
    statement = (
        f"I, {_or_blank(w.name)} state: I am over the age of eighteen years and now reside at "
        f"{_or_blank(w.residence)} (residence address, or postoffice address if not identical) "
        f"in the Village of {_or_blank(plan.village if w.village is None else w.village)} "
        "in the State of New York, County of "
        f"{_or_blank(plan.county)}. Each of the electors whose names are subscribed to this "
        f"petition sheet containing {_or_blank(w.stated_count)} (fill in number) signatures, "
        "subscribed his name in my presence."
    )
    affidavit = (
        "I understand that this statement will be accepted for all purposes as the equivalent "
        "of an affidavit and, if it contains a material false statement, shall subject me to "
        "the same penalties as if I had been duly sworn."
    )
    hand = plan.witness_hand
    strokes: list[tuple[str, Stroke]] = []
    paragraphs: tuple[str, ...] = (statement, affidavit)
    if hand is not None and plan.written_statement:
        y, strokes = _write_statement(c, plan, w, y, hand, rng)
        paragraphs = (affidavit,)
    c.setFont("Helvetica", 9)
    for para in paragraphs:
        for text in simpleSplit(para, "Helvetica", 9, PAGE_W - 2 * MARGIN - 12):
            c.drawString(MARGIN + 12, y, text)
            y -= 11.5
        y -= 4
    y -= 22
    if hand is not None and w.date_text:
        stroke = draw_handwritten(
            c,
            rng,
            w.date_text,
            MARGIN + 24,
            y,
            150,
            hand.entry_font,
            10 * hand.scale,
            hand.slant,
            hand.wobble,
        )
        strokes.append(("date", stroke))
    else:
        c.setFont("Helvetica", 10)
        c.drawString(MARGIN + 24, y, _or_blank(w.date_text))
    if w.signature and hand is not None:
        stroke = draw_handwritten(
            c,
            rng,
            w.signature,
            PAGE_W / 2 + 40,
            y,
            200,
            hand.signature_font,
            12 * hand.scale,
            hand.slant + 6,
            hand.wobble,
        )
        strokes.append(("signature", stroke))
    elif w.signature:
        c.setFont("Helvetica-Oblique", 11)
        c.drawString(PAGE_W / 2 + 40, y, w.signature)
    else:
        c.setFont("Helvetica", 10)
        c.drawString(PAGE_W / 2 + 40, y, BLANK * 2)
    y -= 13
    c.setFont("Helvetica", 8)
    c.drawString(MARGIN + 40, y, "Date")
    c.drawString(PAGE_W / 2 + 60, y, "Signature of Witness")
    return tuple(strokes)


def _write_statement(
    c: Canvas, plan: SheetPlan, w: WitnessPlan, y: float, hand: Hand, rng: random.Random
) -> tuple[float, list[tuple[str, Stroke]]]:
    """The statement's first paragraph with its blanks written in the witness's hand (an
    empty blank stays dotted); returns where the next paragraph starts and the strokes."""
    template = (
        "I, {name} state: I am over the age of eighteen years and now reside at {residence} "
        "(residence address, or postoffice address if not identical) in the Village of "
        "{village} in the State of New York, County of {county}. Each of the electors whose "
        "names are subscribed to this petition sheet containing {count} (fill in number) "
        "signatures, subscribed his name in my presence."
    )
    blanks = {
        "name": w.name,
        "residence": w.residence,
        "village": plan.village if w.village is None else w.village,
        "county": plan.county,
        "count": w.stated_count,
    }
    width = PAGE_W - 2 * MARGIN - 12
    y, strokes = write_in_text(c, rng, hand, template, blanks, MARGIN + 12, y, width, leading=14)
    return y - 18, strokes


def write_pdf(path: Path, plans: Sequence[SheetPlan]) -> list[SheetLayout]:
    """Write the sheets as the pages of one PDF, byte-identical for the same plans; return
    where each sheet's rows were drawn."""
    c = Canvas(str(path), pagesize=letter, invariant=1, pageCompression=1)
    c.setTitle("Synthetic petition sheets (no real person's data)")
    c.setAuthor("petitions synthetic generator")
    layouts = [draw_sheet(c, plan) for plan in plans]
    c.save()
    log.debug("wrote %d sheet(s) to %s", len(plans), path)
    return layouts
