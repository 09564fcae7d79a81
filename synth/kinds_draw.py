"""Draw the signature pages of the other petition kinds as born-digital PDFs (reportlab).

One page is one sheet: a title, the printed text above the table (the signers' statement, a
candidates table, the committee ...), the ruled signature table, the statement at the foot (a
witness's statement, a notary's, or 2-202's authenticating affidavit) with its date and
signature over their captions, and the sheet's number at the foot.

The statement's lines are drawn as given, one text line each, with the captions laid out as the
born-digital reader expects them (tests/test_textlayer_forms.py): the date and the signature on
one line, their captions 12 points below. Canvases are made with `invariant=1`, so the same plans
give byte-identical PDFs. Synthetic: no real person's data.

Typed (the default) every entry is Helvetica. Handwritten (a plan with `hands`), each row's
entries are drawn in its signer's hand (synth/handwriting.py: a handwriting font with
jitter in size, slant and baseline; the signature in a script font), and the statement's blanks
(the witness's name, residence, village, county, the count, the date, the signature; the
jurat's day and month) in the witness's or officer's hand, among the printed words. Each page
says where it drew every row and field (`PageLayout`), which the truth records.
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

from .handwriting import GAP, Hand, Stroke, draw_handwritten, write_in, write_in_text

__all__ = ["KIND_CLASSIC", "Foot", "Grid", "PageLayout", "PagePlan", "PageStyle", "write_pages"]

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
    """The statement at the foot of the sheet. `template` holds its text lines with the blanks
    as `{name}` placeholders and `blanks` what is written in each, so that a handwritten
    statement can draw the printed words and the blanks in different hands; `jurat` is 2-202's
    "Sworn to before me ..." line, a template too; `values` are the date and the signature as
    typed (left and right), `captions` the printed words under them; `date_label` is the
    printed word before a handwritten date ("Date:")."""

    template: tuple[str, ...]
    blanks: tuple[tuple[str, str], ...]
    values: tuple[str, str]
    captions: tuple[str, str]
    jurat: str = ""
    heading: str = ""  # "STATEMENT OF WITNESS", drawn bold before the lines
    date_label: str = ""

    def filled(self, text: str) -> str:
        """A template line with its blanks filled in, as typed."""
        return text.format(**dict(self.blanks))

    @property
    def lines(self) -> tuple[str, ...]:
        return tuple(self.filled(t) for t in self.template)


@dataclass(frozen=True, slots=True)
class PageStyle:
    """How the signature table and the number are set (synth/layouts.py's families);
    the defaults are the kinds' own form."""

    family: str = "classic"
    split: str = "dev"
    rules: str = "grid"  # "grid", "horizontal" (no vertical rules), "none"
    row_h: float = ROW_H
    header_row_h: float = HEADER_ROW_H
    number_at: str = "foot-center"  # "foot-" or "top-" + "left", "center", "right"
    titles: tuple[str, ...] = ()  # the signature table's printed titles ("" keeps the kind's)
    fields: tuple[str, ...] = ()  # the field each of `titles` is for

    def title(self, field: str, own: str) -> str:
        """The title printed over `field`'s column: the family's, or the kind's `own`."""
        return dict(zip(self.fields, self.titles, strict=False)).get(field) or own

    def as_json(self) -> dict[str, object]:
        return {
            "family": self.family,
            "split": self.split,
            "rules": self.rules,
            "row_h": round(self.row_h, 1),
            "number_at": self.number_at,
        }


KIND_CLASSIC = PageStyle()


@dataclass(frozen=True, slots=True)
class PagePlan:
    title: str
    above: tuple[str, ...]  # paragraphs above the first table
    signatures: Grid
    foot: Foot | None
    number_text: str  # "Sheet No. 3", "Page No. 3", or "" for no number
    between: tuple[str, ...] = ()  # paragraphs after `aside` (the committee, "In witness ...")
    aside: Grid | None = None  # a table above the signature table (the candidates)
    fields: tuple[str, ...] = ()  # the signature table's fields, in column order
    # Handwritten: one hand per signature row (None for a blank row) and the statement's
    # writer's; None draws everything typed. `jitter_seed` seeds the baseline wobble.
    hands: tuple[Hand | None, ...] | None = None
    statement_hand: Hand | None = None
    jitter_seed: int = 0
    style: PageStyle = KIND_CLASSIC


Strokes = tuple[tuple[str, Stroke], ...]


@dataclass(frozen=True, slots=True)
class PageLayout:
    """Where a page's entries went, in PDF points with the origin top-left (y down): each
    signature row's box and, handwritten, how each filled field and each statement blank
    was drawn."""

    row_boxes: tuple[tuple[float, float, float, float], ...]  # x0, top, x1, bottom
    strokes: tuple[Strokes, ...] = ()  # per row: (field, stroke)
    statement_strokes: Strokes = ()  # (blank, stroke)


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


def _grid(
    c: Canvas,
    grid: Grid,
    top: float,
    hands: Sequence[Hand | None] | None = None,
    fields: Sequence[str] = (),
    rng: random.Random | None = None,
    style: PageStyle = KIND_CLASSIC,
) -> tuple[float, list[tuple[float, float]], list[Strokes]]:
    """Draw the table with every cell ruled (a line-based table finder sees each cell), or as
    the style rules it; return the y of its bottom edge, each body row's (top, bottom) and,
    with `hands`, the strokes of each row's entries (`fields` names the columns)."""
    xs = [MARGIN]
    for w in grid.widths:
        xs.append(xs[-1] + w)
    rows = (grid.titles, *grid.rows)
    c.setLineWidth(0.6)
    y = top
    spans: list[tuple[float, float]] = []
    strokes: list[Strokes] = []
    for i, row in enumerate(rows):
        h = style.header_row_h if i == 0 else style.row_h
        hand = hands[i - 1] if hands is not None and 0 < i <= len(hands) else None
        drawn: list[tuple[str, Stroke]] = []
        if style.rules == "horizontal":
            c.line(xs[0], y, xs[-1], y)
            c.line(xs[0], y - h, xs[-1], y - h)
        for j, (x0, x1) in enumerate(zip(xs, xs[1:], strict=False)):
            if style.rules == "grid":
                c.rect(x0, y - h, x1 - x0, h)
            text = row[j] if j < len(row) else ""
            if not text:
                continue
            if hand is not None and rng is not None:
                cell = (x0, y - h, x1, y)
                drawn.append((fields[j], _write_cell(c, rng, hand, text, cell, j in grid.oblique)))
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
        if i > 0:
            spans.append((y, y - h))
            strokes.append(tuple(drawn))
        y -= h
    return y, spans, strokes


def _write_cell(
    c: Canvas,
    rng: random.Random,
    hand: Hand,
    text: str,
    cell: tuple[float, float, float, float],
    signature: bool,
) -> Stroke:
    """A cell's entry (x0, bottom, x1, top) in the signer's hand, its ink kept inside the row
    (the signature larger, more slanted, in the hand's script font)."""
    x0, bottom, x1, top = cell
    return draw_handwritten(
        c,
        rng,
        text,
        x0 + 3 + rng.uniform(0, 3),
        bottom + 6.5,
        x1 - x0 - 8,
        hand.signature_font if signature else hand.entry_font,
        (CELL_FONT + (2.5 if signature else 1.0)) * hand.scale,
        hand.slant + (6.0 if signature else 0.0),
        hand.wobble,
        band=(bottom + 1.5, top - 1.5),
    )


def _foot(c: Canvas, foot: Foot, y: float) -> None:
    """The statement typed: each line as one string."""
    if foot.heading:
        c.setFont("Helvetica-Bold", 9)
        c.drawString(MARGIN, y, foot.heading)
        y -= 13
    c.setFont("Helvetica", 9)
    for text in foot.lines:
        c.drawString(MARGIN, y, text)
        y -= 13
    if foot.jurat:
        c.drawString(MARGIN, y, foot.filled(foot.jurat))
        y -= 13
    y -= 20
    c.setFont("Helvetica", 9)
    if foot.values[0]:
        c.drawString(40, y, foot.values[0])
    if foot.values[1]:
        c.setFont("Helvetica-Oblique", 9)
        c.drawString(320, y, foot.values[1])
    _captions(c, foot, y)


def _captions(c: Canvas, foot: Foot, y: float) -> None:
    c.setFont("Helvetica", 8)
    if foot.captions[0]:
        c.drawString(40, y - 12, foot.captions[0])
    c.drawString(320, y - 12, foot.captions[1])


def _foot_handwritten(c: Canvas, foot: Foot, y: float, hand: Hand, rng: random.Random) -> Strokes:
    """The statement with its blanks written in by hand among the printed words: a template
    line wraps (at a word) when the writing makes it too wide for the page."""
    blanks = dict(foot.blanks)
    strokes: list[tuple[str, Stroke]] = []
    if foot.heading:
        c.setFont("Helvetica-Bold", 9)
        c.drawString(MARGIN, y, foot.heading)
        y -= 14
    for template in (*foot.template, *((foot.jurat,) if foot.jurat else ())):
        y, written = write_in_text(c, rng, hand, template, blanks, MARGIN, y, PAGE_W - 2 * MARGIN)
        strokes += written
        y -= 15
    y -= 20
    if blanks.get("date"):
        x = 40.0
        if foot.date_label:
            c.setFont("Helvetica", 9)
            c.drawString(x, y, foot.date_label)
            x += stringWidth(foot.date_label, "Helvetica", 9) + GAP
        strokes.append(("date", write_in(c, rng, hand, blanks["date"], x, y)))
    if blanks.get("signature"):
        stroke = write_in(c, rng, hand, blanks["signature"], 320, y, signature=True)
        strokes.append(("signature", stroke))
    _captions(c, foot, y)
    return tuple(strokes)


def draw_page(c: Canvas, plan: PagePlan) -> PageLayout:
    """Draw one page and end it; say where the signature rows and the entries went."""
    rng = random.Random(plan.jitter_seed)
    y = PAGE_H - 44
    c.setFont("Helvetica-Bold", 12)
    c.drawCentredString(PAGE_W / 2, y, plan.title)
    y -= 20
    y = _paragraphs(c, plan.above, y)
    if plan.aside is not None:
        y = _grid(c, plan.aside, y - 2)[0] - 16
    y = _paragraphs(c, plan.between, y)
    sig = plan.signatures
    y, spans, strokes = _grid(c, sig, y - 4, plan.hands, plan.fields, rng, plan.style)
    statement: Strokes = ()
    if plan.foot is not None and plan.statement_hand is not None:
        statement = _foot_handwritten(c, plan.foot, y - 24, plan.statement_hand, rng)
    elif plan.foot is not None:
        _foot(c, plan.foot, y - 24)
    if plan.number_text:
        c.setFont("Helvetica", 9)
        where, _, side = plan.style.number_at.partition("-")
        ny = 30 if where == "foot" else PAGE_H - 22
        if side == "left":
            c.drawString(MARGIN, ny, plan.number_text)
        elif side == "right":
            c.drawRightString(PAGE_W - MARGIN, ny, plan.number_text)
        else:
            c.drawCentredString(PAGE_W / 2, ny, plan.number_text)
    c.showPage()
    right = MARGIN + sum(sig.widths)
    boxes = tuple((MARGIN, PAGE_H - top, right, PAGE_H - bottom) for top, bottom in spans)
    return PageLayout(boxes, tuple(strokes) if plan.hands is not None else (), statement)


def write_pages(path: Path, plans: Sequence[PagePlan]) -> list[PageLayout]:
    """The pages as one PDF, byte-identical for the same plans; where each page's entries went."""
    c = Canvas(str(path), pagesize=letter, invariant=1, pageCompression=1)
    c.setTitle("Synthetic petition sheets (no real person's data)")
    # the generator's name before it left pipeline/: the committed fixtures' PDFs carry it
    c.setAuthor("petitions synthetic generator (pipeline.synth.kinds)")
    layouts = [draw_page(c, plan) for plan in plans]
    c.save()
    log.debug("wrote %d page(s) to %s", len(plans), path)
    return layouts
