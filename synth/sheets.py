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
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw
from reportlab.lib.pagesizes import letter
from reportlab.lib.utils import ImageReader, simpleSplit
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas

from .handwriting import (
    BUILTIN_HAND,
    BUILTIN_SIGNATURE,
    Hand,
    Stroke,
    draw_handwritten,
    pick_hand,
    write_in_text,
)

__all__ = [
    "CLASSIC",
    "COLUMNS",
    "Layout",
    "LinePlan",
    "SheetLayout",
    "SheetPlan",
    "WitnessPlan",
    "cell_text",
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
BLACK = (0.0, 0.0, 0.0)


@dataclass(frozen=True, slots=True)
class Layout:
    """How a sheet is set: the paper, the table's rules and rows, the printed wording's place
    and fonts, the sheet number's caption, the pens and how signatures are drawn. The defaults
    are the demo's form (the "classic" family); `synth.layouts` draws others. The
    table's columns are the plan's (`SheetPlan.columns`), whose roles may be parts of a field
    (`pipeline.columns.PART_ROLES`: street and town, a combined signature-and-residence cell,
    a printed line number)."""

    family: str = "classic"
    split: str = "dev"
    page: tuple[float, float] = letter  # width, height in points (landscape: wider than tall)
    margin: float = MARGIN
    rules: str = "grid"  # "grid", "horizontal" (no vertical rules), "none", "heavy-title"
    header_row_h: float = HEADER_ROW_H
    row_h: float = ROW_H
    rule_width: float = 0.6
    print_font: str = "Helvetica"  # the printed form's words ("Helvetica", "Times-Roman", ...)
    bold_font: str = "Helvetica-Bold"
    heading: str = "PETITION FOR A PERMISSIVE REFERENDUM"
    heading_left: bool = False  # the heading flush left (else centred)
    witness_heading: str = "Statement of Witness:"
    witness_indent: float = 12.0
    number_caption: str = "Sheet No. {n}"  # "{n}" the number, "{of}" the number of sheets
    number_at: str = "foot-center"  # "foot-" or "top-" + "left", "center" or "right"
    number_written: bool = False  # the number written by hand after a printed caption
    signature_ink: str = "text"  # "text", "image" (a pasted picture), "vector" (drawn strokes)
    overflow: float = 0.0  # chance a signature runs over its cell's edges
    pens: tuple[tuple[float, float, float], ...] = (BLACK,)

    @property
    def landscape(self) -> bool:
        return self.page[0] > self.page[1]

    def as_json(self) -> dict[str, object]:
        """As truth.json records it."""
        return {
            "family": self.family,
            "split": self.split,
            "page": [round(v, 1) for v in self.page],
            "rules": self.rules,
            "row_h": round(self.row_h, 1),
            "print_font": self.print_font,
            "number_caption": self.number_caption,
            "number_at": self.number_at,
            "number_written": self.number_written,
            "signature_ink": self.signature_ink,
        }


CLASSIC = Layout()


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
    layout: Layout = CLASSIC
    of: int | None = None  # the petition's number of sheets ("Page 3 of 6")


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


def cell_text(line: LinePlan, role: str, row: int) -> str:
    """What a column of role `role` shows on a row: the field, or its part (a residence
    "12 Oak St, Elmwood Falls" split into street and town), or the printed line number."""
    if role == "line_number":
        return str(row)
    residence = line.get("residence")
    if role == "street":
        return residence.rpartition(", ")[0] if ", " in residence else residence
    if role == "town":
        return residence.rpartition(", ")[2] if ", " in residence else ""
    return line.get(role)


def _draw_rules(
    c: Canvas, lay: Layout, xs: Sequence[float], ys: Sequence[float], ruled: bool
) -> None:
    """The table's rules as the layout has them (none when the plan says not ruled)."""
    rules = lay.rules if ruled else "none"
    c.setLineWidth(lay.rule_width)
    if rules == "heavy-title":
        c.setFillGray(0.85)
        c.rect(xs[0], ys[1], xs[-1] - xs[0], ys[0] - ys[1], stroke=0, fill=1)
        c.setFillGray(0)
    for yy in ys if rules != "none" else ():
        c.line(xs[0], yy, xs[-1], yy)
    if rules == "heavy-title":
        c.setLineWidth(2.2)
        c.line(xs[0], ys[0], xs[-1], ys[0])
        c.line(xs[0], ys[1], xs[-1], ys[1])
        c.setLineWidth(lay.rule_width)
    for xx in xs if rules in ("grid", "heavy-title") else ():
        c.line(xx, ys[0], xx, ys[-1])


def _scribble(rng: random.Random, width: float, height: float) -> list[tuple[float, float]]:
    """A signature's stroke as points (x right, y up from the bottom left): loops and a tail,
    as a pen drawn quickly across the cell."""
    n = max(24, int(width / 1.5))
    loops = rng.uniform(4.0, 9.0)
    amp = height * rng.uniform(0.3, 0.45)
    mid = height * 0.5
    span = width * rng.uniform(0.55, 0.95)
    phase = rng.uniform(0, math.pi)
    pts = []
    for k in range(n + 1):
        t = k / n
        swell = 0.55 + 0.45 * math.sin(math.pi * t * rng.uniform(0.9, 1.1) + phase)
        x = span * t + amp * 0.6 * math.cos(2 * math.pi * loops * t)
        y = mid + amp * swell * math.sin(2 * math.pi * loops * t)
        pts.append((max(0.0, min(width, x)), max(0.0, min(height, y))))
    return pts


def _draw_ink_signature(
    c: Canvas,
    rng: random.Random,
    mode: str,
    x: float,
    bottom: float,
    width: float,
    height: float,
    pen: tuple[float, float, float],
) -> Stroke:
    """A signature with no text: a pasted picture ("image") or drawn strokes ("vector"), as a
    sheet filled in on a computer and signed with a drawn or pasted signature has it."""
    pts = _scribble(rng, width, height)
    if mode == "vector":
        c.saveState()
        c.setStrokeColorRGB(*pen)
        c.setLineWidth(rng.uniform(0.7, 1.3))
        path = c.beginPath()
        path.moveTo(x + pts[0][0], bottom + pts[0][1])
        for (ax, ay), (bx, by) in zip(pts[1::2], pts[2::2], strict=False):
            path.curveTo(x + ax, bottom + ay, x + ax, bottom + ay, x + bx, bottom + by)
        c.drawPath(path, stroke=1, fill=0)
        c.restoreState()
        return Stroke("vector", 0.0, 0.0, 0.0, round(width, 2))
    scale = 4  # pixels a point
    img = Image.new("RGBA", (max(1, int(width * scale)), max(1, int(height * scale))), (0, 0, 0, 0))
    draw = ImageDraw.Draw(img)
    colour = tuple(int(255 * v) for v in pen) + (255,)
    flipped = [(px * scale, (height - py) * scale) for px, py in pts]
    draw.line(flipped, fill=colour, width=max(2, int(scale * rng.uniform(0.7, 1.2))), joint="curve")
    c.drawImage(ImageReader(img), x, bottom, width, height, mask="auto")
    return Stroke("image", 0.0, 0.0, 0.0, round(width, 2))


def _draw_entry(
    c: Canvas,
    rng: random.Random,
    lay: Layout,
    field: str,
    text: str,
    hand: Hand | None,
    x0: float,
    w: float,
    base: float,
    band: tuple[float, float],
    pen: tuple[float, float, float],
) -> Stroke:
    """One cell's entry: typed (no hand), or written in the signer's hand, or, for a signature
    on a layout that signs with ink, a picture or strokes."""
    sig = field == "signature"
    if sig and lay.signature_ink != "text":
        return _draw_ink_signature(
            c, rng, lay.signature_ink, x0 + 3, band[0] + 1, w - 8, band[1] - band[0] - 2, pen
        )
    colour = pen != BLACK
    if colour:
        c.setFillColorRGB(*pen)
    if hand is None:
        font = "Helvetica-Oblique" if sig else "Helvetica"
        size = _fit(text, font, CELL_FONT, w - 6)
        c.setFont(font, size)
        c.drawString(x0 + 3, base, text)
        stroke = Stroke(font, size, 0.0, 0.0)
    else:
        over = sig and lay.overflow > 0 and rng.random() < lay.overflow
        stroke = draw_handwritten(
            c,
            rng,
            text,
            x0 + 3 + rng.uniform(0, 3),
            base + 1,
            w * 1.3 if over else w - 8,
            hand.signature_font if sig else hand.entry_font,
            (CELL_FONT + (2.5 if sig else 1.0)) * hand.scale * (1.35 if over else 1.0),
            hand.slant + (6.0 if sig else 0.0),
            hand.wobble,
            band=(band[0], band[1] + 6.0) if over else band,
        )
    if colour:
        c.setFillColorRGB(*BLACK)
    return stroke


# A caption at the sheet's foot sits this far (points) above the paper's edge, and at least
# FOOT_CLEAR under the statement's lowest printed line; where the statement leaves no room,
# the print shop sets it at the top of the sheet instead (never over the statement's words).
FOOT_Y = 30.0
FOOT_CLEAR = 16.0


def _draw_number(
    c: Canvas, plan: SheetPlan, rng: random.Random, lowest: float | None = None
) -> None:
    """The sheet's number under its caption, where the layout puts it; written by hand after
    a printed caption when the layout says so. `lowest`: the baseline of the lowest line
    printed above the foot (the statement's captions)."""
    lay = plan.layout
    page_w, page_h = lay.page
    where, _, side = lay.number_at.partition("-")
    if where == "foot" and lowest is not None and lowest - FOOT_CLEAR < FOOT_Y:
        where = "top"
    y = FOOT_Y if where == "foot" else page_h - 24
    of = str(plan.of) if plan.of else "__"
    if not lay.number_written:
        text = lay.number_caption.format(n=plan.number, of=of)
        c.setFont(lay.print_font, 9)
        if side == "left":
            c.drawString(lay.margin, y, text)
        elif side == "right":
            c.drawRightString(page_w - lay.margin, y, text)
        else:
            c.drawCentredString(page_w / 2, y, text)
        return
    caption, _, rest = lay.number_caption.partition("{n}")
    c.setFont(lay.print_font, 9)
    printed = caption + "______" + rest.format(of=of)
    width = stringWidth(printed, lay.print_font, 9)
    x = {"left": lay.margin, "right": page_w - lay.margin - width}.get(side, (page_w - width) / 2)
    c.drawString(x, y, printed)
    hand = plan.witness_hand or pick_hand(rng, (BUILTIN_HAND, BUILTIN_SIGNATURE))
    at = x + stringWidth(caption, lay.print_font, 9) + 6
    draw_handwritten(
        c, rng, str(plan.number), at, y + 1, 22, hand.entry_font, 11 * hand.scale, hand.slant, 0.5
    )


def draw_sheet(c: Canvas, plan: SheetPlan) -> SheetLayout:
    """Draw one sheet on the canvas's current page, end the page, and say where rows went."""
    rng = random.Random(plan.jitter_seed)
    lay = plan.layout
    page_w, page_h = lay.page
    margin, font, bold = lay.margin, lay.print_font, lay.bold_font
    columns = plan.columns
    y = page_h - 48
    c.setFont(bold, 13)
    if lay.heading_left:
        c.drawString(margin, y, lay.heading)
    else:
        c.drawCentredString(page_w / 2, y, lay.heading)
    y -= 22
    c.setFont(font, 9.5)
    c.drawString(
        margin,
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
    for text in simpleSplit(body, font, 9.5, page_w - 2 * margin):
        c.drawString(margin, y, text)
        y -= 12

    # The signature table, every cell border ruled (unless the plan or layout says not) so a
    # line-based table finder sees it.
    top = y - 6
    xs = [margin]
    for _, _, w in columns:
        xs.append(xs[-1] + w)
    ys = [top, top - lay.header_row_h]
    for _ in plan.lines:
        ys.append(ys[-1] - lay.row_h)
    _draw_rules(c, lay, xs, ys, plan.ruled)
    c.setFont(bold, 8)
    for (title, field, _), x0, x1 in zip(columns, xs, xs[1:], strict=False):
        parts = tuple(title.split("\n")) if "\n" in title else (title,)
        if "\n" not in title and lay.family == CLASSIC.family:
            parts = _HEADER_LINES.get(field, parts)
        first = top - (lay.header_row_h - 9 * len(parts)) / 2 - 7.5
        for k, part in enumerate(parts):
            c.drawCentredString((x0 + x1) / 2, first - 9 * k, part)
    hands = plan.hands or (None,) * len(plan.lines)
    strokes: list[tuple[tuple[str, Stroke], ...]] = []
    tall = max(0.0, lay.row_h - ROW_H)
    for row, (line, row_top, hand) in enumerate(zip(plan.lines, ys[1:], hands, strict=False), 1):
        bottom = row_top - lay.row_h
        base = bottom + 7 + tall * 0.3
        band = (bottom + 1.5, row_top - 1.5)
        pen = lay.pens[0] if len(lay.pens) == 1 else rng.choice(lay.pens)
        drawn: list[tuple[str, Stroke]] = []
        for (_, role, w), x0 in zip(columns, xs, strict=False):
            if role == "line_number":
                c.setFont(font, CELL_FONT)
                c.drawString(x0 + 3, base, f"{row}.")
                continue
            if role == "signature_residence":  # the signature above, the residence below
                split = bottom + lay.row_h * 0.42
                for part, text, b, bnd in (
                    ("signature", line.get("signature"), split + 3, (split, band[1])),
                    ("residence", line.get("residence"), bottom + 4, (band[0], split)),
                ):
                    if text:
                        drawn.append(
                            (part, _draw_entry(c, rng, lay, part, text, hand, x0, w, b, bnd, pen))
                        )
                continue
            text = cell_text(line, role, row)
            if not text:
                continue
            field = "residence" if role in ("street", "town") else role
            stroke = _draw_entry(c, rng, lay, field, text, hand, x0, w, base, band, pen)
            drawn.append((role if field != role else field, stroke))
        strokes.append(tuple(drawn))

    y = ys[-1] - 22
    witness_strokes: tuple[tuple[str, Stroke], ...] = ()
    lowest = None
    if plan.witness is not None:
        witness_strokes, lowest = _draw_witness(c, plan, plan.witness, y, rng)

    if plan.number is not None:
        _draw_number(c, plan, rng, lowest)
    c.showPage()
    boxes = tuple(
        (xs[0], page_h - a, xs[-1], page_h - b) for a, b in zip(ys[1:], ys[2:], strict=False)
    )
    return SheetLayout(boxes, tuple(strokes), witness_strokes)


def _draw_witness(
    c: Canvas, plan: SheetPlan, w: WitnessPlan, y: float, rng: random.Random
) -> tuple[tuple[tuple[str, Stroke], ...], float]:
    """The Statement of Witness of 9-902(8), its blanks filled in (or dotted when empty);
    returns the strokes written and the baseline of its captions (its lowest line)."""
    lay = plan.layout
    page_w = lay.page[0]
    margin, indent, font = lay.margin, lay.witness_indent, lay.print_font
    c.setFont(lay.bold_font, 9.5)
    c.drawString(margin, y, lay.witness_heading)
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
    c.setFont(font, 9)
    for para in paragraphs:
        for text in simpleSplit(para, font, 9, page_w - 2 * margin - indent):
            c.drawString(margin + indent, y, text)
            y -= 11.5
        y -= 4
    y -= 22
    if hand is not None and w.date_text:
        stroke = draw_handwritten(
            c,
            rng,
            w.date_text,
            margin + 24,
            y,
            150,
            hand.entry_font,
            10 * hand.scale,
            hand.slant,
            hand.wobble,
        )
        strokes.append(("date", stroke))
    else:
        c.setFont(font, 10)
        c.drawString(margin + 24, y, _or_blank(w.date_text))
    if w.signature and hand is not None and lay.signature_ink != "text":
        pen = lay.pens[0]
        stroke = _draw_ink_signature(
            c, rng, lay.signature_ink, page_w / 2 + 40, y - 3, 150, 16, pen
        )
        strokes.append(("signature", stroke))
    elif w.signature and hand is not None:
        stroke = draw_handwritten(
            c,
            rng,
            w.signature,
            page_w / 2 + 40,
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
        c.drawString(page_w / 2 + 40, y, w.signature)
    else:
        c.setFont(font, 10)
        c.drawString(page_w / 2 + 40, y, BLANK * 2)
    y -= 13
    c.setFont(font, 8)
    c.drawString(margin + 40, y, "Date")
    c.drawString(page_w / 2 + 60, y, "Signature of Witness")
    return tuple(strokes), y


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
    lay = plan.layout
    width = lay.page[0] - 2 * lay.margin - lay.witness_indent
    x = lay.margin + lay.witness_indent
    y, strokes = write_in_text(c, rng, hand, template, blanks, x, y, width, leading=14)
    return y - 18, strokes


def write_pdf(path: Path, plans: Sequence[SheetPlan]) -> list[SheetLayout]:
    """Write the sheets as the pages of one PDF, byte-identical for the same plans; return
    where each sheet's rows were drawn."""
    c = Canvas(str(path), pagesize=letter, invariant=1, pageCompression=1)
    c.setTitle("Synthetic petition sheets (no real person's data)")
    c.setAuthor("petitions synthetic generator")
    layouts = []
    for plan in plans:
        c.setPageSize(plan.layout.page)
        layouts.append(draw_sheet(c, plan))
    c.save()
    log.debug("wrote %d sheet(s) to %s", len(plans), path)
    return layouts
