"""Draw the signature pages of the other petition kinds as born-digital PDFs (reportlab).

One page is one sheet: a title, the printed text above the table (the signers' statement, a
candidates table, the committee ...), the ruled signature table, the statement at the foot (a
witness's statement, a notary's, or 2-202's authenticating affidavit) with its date and
signature over their captions, and the sheet's number at the foot.

The statement's lines are drawn as given, one text line each, with the captions laid out as the
born-digital reader expects them (tests/test_textlayer_forms.py): the date and the signature on
one line, their captions 12 points below. Canvases are made with `invariant=1`, so the same plans
give byte-identical PDFs. Synthetic: no real person's data.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from reportlab.lib.pagesizes import letter
from reportlab.lib.utils import simpleSplit
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas

__all__ = ["Foot", "Grid", "PagePlan", "write_pages"]

log = logging.getLogger(__name__)

PAGE_W, PAGE_H = letter
MARGIN = 36.0
TEXT_FONT = 8.5
CELL_FONT = 8.5
HEADER_ROW_H = 20.0
ROW_H = 20.0


@dataclass(frozen=True, slots=True)
class Grid:
    """A ruled table: printed column titles with their widths (points), and the rows' cells."""

    titles: tuple[str, ...]
    widths: tuple[float, ...]
    rows: tuple[tuple[str, ...], ...]
    oblique: tuple[int, ...] = ()  # columns drawn in an oblique font (signatures)


@dataclass(frozen=True, slots=True)
class Foot:
    """The statement at the foot of the sheet. `lines` are drawn one per text line; `jurat` is
    2-202's "Sworn to before me ..." line; `values` are the date and the signature as written
    (left and right), `captions` the printed words under them."""

    lines: tuple[str, ...]
    values: tuple[str, str]
    captions: tuple[str, str]
    jurat: str = ""
    heading: str = ""  # "STATEMENT OF WITNESS", drawn bold before the lines


@dataclass(frozen=True, slots=True)
class PagePlan:
    title: str
    above: tuple[str, ...]  # paragraphs above the first table
    signatures: Grid
    foot: Foot | None
    number_text: str  # "Sheet No. 3", "Page No. 3", or "" for no number
    between: tuple[str, ...] = ()  # paragraphs after `aside` (the committee, "In witness ...")
    aside: Grid | None = None  # a table above the signature table (the candidates)


def _fit(text: str, font: str, size: float, width: float) -> float:
    while size > 5 and stringWidth(text, font, size) > width:
        size -= 0.25
    return size


def _paragraphs(c: Canvas, paragraphs: Sequence[str], y: float) -> float:
    c.setFont("Helvetica", TEXT_FONT)
    for para in paragraphs:
        for text in simpleSplit(para, "Helvetica", TEXT_FONT, PAGE_W - 2 * MARGIN):
            c.drawString(MARGIN, y, text)
            y -= 10.5
        y -= 4
    return y


def _grid(c: Canvas, grid: Grid, top: float) -> float:
    """Draw the table with every cell ruled (a line-based table finder sees each cell); return
    the y of its bottom edge."""
    xs = [MARGIN]
    for w in grid.widths:
        xs.append(xs[-1] + w)
    rows = (grid.titles, *grid.rows)
    c.setLineWidth(0.6)
    y = top
    for i, row in enumerate(rows):
        h = HEADER_ROW_H if i == 0 else ROW_H
        for j, (x0, x1) in enumerate(zip(xs, xs[1:], strict=False)):
            c.rect(x0, y - h, x1 - x0, h)
            text = row[j] if j < len(row) else ""
            if not text:
                continue
            if i == 0:
                font = "Helvetica-Bold"
            elif j in grid.oblique:
                font = "Helvetica-Oblique"
            else:
                font = "Helvetica"
            size = _fit(text, font, CELL_FONT, x1 - x0 - 6)
            c.setFont(font, size)
            c.drawString(x0 + 3, y - h + 6.5, text)
        y -= h
    return y


def _foot(c: Canvas, foot: Foot, y: float) -> None:
    if foot.heading:
        c.setFont("Helvetica-Bold", 9)
        c.drawString(MARGIN, y, foot.heading)
        y -= 13
    c.setFont("Helvetica", 9)
    for text in foot.lines:
        c.drawString(MARGIN, y, text)
        y -= 13
    if foot.jurat:
        c.drawString(MARGIN, y, foot.jurat)
        y -= 13
    y -= 20
    c.setFont("Helvetica", 9)
    if foot.values[0]:
        c.drawString(40, y, foot.values[0])
    if foot.values[1]:
        c.setFont("Helvetica-Oblique", 9)
        c.drawString(320, y, foot.values[1])
    c.setFont("Helvetica", 8)
    if foot.captions[0]:
        c.drawString(40, y - 12, foot.captions[0])
    c.drawString(320, y - 12, foot.captions[1])


def draw_page(c: Canvas, plan: PagePlan) -> None:
    y = PAGE_H - 44
    c.setFont("Helvetica-Bold", 12)
    c.drawCentredString(PAGE_W / 2, y, plan.title)
    y -= 20
    y = _paragraphs(c, plan.above, y)
    if plan.aside is not None:
        y = _grid(c, plan.aside, y - 2) - 16
    y = _paragraphs(c, plan.between, y)
    y = _grid(c, plan.signatures, y - 4)
    if plan.foot is not None:
        _foot(c, plan.foot, y - 24)
    if plan.number_text:
        c.setFont("Helvetica", 9)
        c.drawCentredString(PAGE_W / 2, 30, plan.number_text)
    c.showPage()


def write_pages(path: Path, plans: Sequence[PagePlan]) -> None:
    """The pages as one PDF, byte-identical for the same plans."""
    c = Canvas(str(path), pagesize=letter, invariant=1, pageCompression=1)
    c.setTitle("Synthetic petition sheets (no real person's data)")
    c.setAuthor("petitions synthetic generator (pipeline.synth.kinds)")
    for plan in plans:
        draw_page(c, plan)
    c.save()
    log.debug("wrote %d page(s) to %s", len(plans), path)
