"""Signature sheets laid out as other print shops lay them out, for the scan reader's tests and
`bench/scan_layouts.py`: synthetic, no real person's data.

The corpus generator (`pipeline.synth`) draws our own form; the sheets clerks receive are set
from the same statutory text in other ways. A `Layout` is one such way: how the table is ruled
(a full grid, horizontal rules only, none), its columns (their order, titles, a line-number
column, an election-district column, a combined "Signature and Residence" cell, a residence
split into "Street and Number" and "Town"), row height (22 pt to 0.6 in), a one- or two-line
title row, paper and margins, the print font, and where and how the sheet number is printed
("Sheet No. 3", "Page No. 3", "Page 3 of 5", at the top or the foot, typed or written in).

`draw_layout_case` writes the sheets as born-digital PDFs with a truth.json that
`pipeline.scan.metrics.compare_to_truth` scores (each line's fields as the statute's fields:
a split residence's truth is its parts joined as the reader joins them, "12 Elm St, Maplewood").

Families are split for measurement (`FAMILIES`): tune on the development part, report the
held-out part, which differs in rules, column sets, titles, row heights, captions and fonts.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from reportlab.lib.pagesizes import landscape, legal, letter
from reportlab.lib.utils import simpleSplit
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas

from ..synth.handwriting import available_fonts, draw_handwritten, pick_hand

__all__ = ["FAMILIES", "Layout", "draw_layout_case", "layouts_for"]

# Column kinds a layout may print: (kind, title variants, relative width).
_TITLES: dict[str, tuple[str, ...]] = {
    "line_no": ("No.", "Line", "#"),
    "date": ("Date", "Date of Signing", "Date Signed"),
    "signature": ("Signature", "Signature of Elector", "Signature of Voter", "Sign Here"),
    "name": ("Printed Name", "Name", "Print Name", "Name Printed"),
    "residence": ("Residence", "Residence (Street and Number)", "Address", "Residence Address"),
    "street": ("Street and Number", "Street Address"),
    "town": ("Town", "City/Village", "Village"),
    "sig_res": ("Signature and Residence", "Signature and Address"),
    "ward": ("Ward", "Ward (if any)"),
    "election_district": ("Election District", "E.D.", "Village Election District (if any)"),
}
_WIDTH = {
    "line_no": 0.35,
    "date": 0.8,
    "signature": 1.6,
    "name": 1.5,
    "residence": 1.9,
    "street": 1.5,
    "town": 0.9,
    "sig_res": 2.6,
    "ward": 0.5,
    "election_district": 0.75,
}


@dataclass(frozen=True, slots=True)
class Layout:
    rules: str  # "grid", "horizontal" or "none"
    columns: tuple[tuple[str, str], ...]  # (kind, printed title) in order
    row_h: float  # points
    title_lines: int  # 1 or 2 lines of column titles
    rows: int
    number_caption: str  # "Sheet No. {n}", "Page No. {n}", "Page {n} of {m}"
    number_at: str  # "top" or "foot"
    number_written: bool  # the number written in by hand on a printed caption
    font: str  # the print font of the form (Helvetica, Times-Roman, Courier)
    paper: str  # "letter", "legal", "letter-landscape"
    margin: float  # points


# Development and held-out families: each is (rules, column kinds, row heights, title lines,
# captions, fonts). The held-out ones are never looked at while tuning.
FAMILIES: dict[str, tuple[tuple, ...]] = {
    "dev": (
        ("grid", ("line_no", "date", "signature", "name", "residence", "election_district")),
        ("horizontal", ("date", "signature", "name", "street", "town", "ward")),
        ("none", ("date", "signature", "name", "residence")),
        ("grid", ("sig_res", "date", "name", "election_district")),
    ),
    "heldout": (
        ("horizontal", ("line_no", "signature", "name", "date", "residence", "election_district")),
        ("grid", ("date", "sig_res", "name", "ward")),
        ("grid", ("line_no", "date", "signature", "name", "street", "town")),
        ("none", ("signature", "name", "residence", "date")),
    ),
}
_ROW_HEIGHTS = {"dev": (22.0, 30.0, 43.0), "heldout": (26.0, 36.0, 43.2)}
_CAPTIONS = {
    "dev": ("Sheet No. {n}", "Page No. {n}", "Page {n} of {m}"),
    "heldout": ("Sheet No. {n}", "Page {n} of {m}", "Page No. {n}", "Sheet {n} of {m}"),
}
_FONTS = {"dev": ("Helvetica", "Courier"), "heldout": ("Times-Roman",)}
_PAPERS = ("letter", "legal", "letter-landscape")


def layouts_for(part: str, seed: int, n: int) -> list[Layout]:
    """`n` layouts of the part ("dev" or "heldout"), drawn with the seed."""
    rng = random.Random(f"{part}:{seed}")
    out = []
    for k in range(n):
        rules, kinds = FAMILIES[part][k % len(FAMILIES[part])]
        row_h = rng.choice(_ROW_HEIGHTS[part])
        if "sig_res" in kinds:  # a signature over a residence needs a taller row
            row_h = max(row_h, 30.0)
        paper = rng.choice(_PAPERS)
        out.append(
            Layout(
                rules=rules,
                columns=tuple((kind, rng.choice(_TITLES[kind])) for kind in kinds),
                row_h=row_h,
                title_lines=rng.choice((1, 2)),
                rows=rng.randint(5, 20 if row_h < 30 else 12),
                number_caption=rng.choice(_CAPTIONS[part]),
                number_at=rng.choice(("top", "foot")),
                number_written=rng.random() < 0.3,
                font=rng.choice(_FONTS[part]),
                paper=paper,
                margin=rng.uniform(30, 54),
            )
        )
    return out


def _page_size(paper: str) -> tuple[float, float]:
    if paper == "legal":
        return legal
    if paper == "letter-landscape":
        return landscape(letter)
    return letter


def _title_parts(title: str, lines: int, width: float, font: str) -> list[str]:
    if lines == 1 or " " not in title:
        return simpleSplit(title, _bold(font), 7.5, width)
    words = title.split()
    half = (len(words) + 1) // 2
    halves = (" ".join(words[:half]), " ".join(words[half:]))
    return [p for h in halves for p in simpleSplit(h, _bold(font), 7.5, width)]


def _fit(text: str, font: str, size: float, width: float) -> float:
    while size > 5 and stringWidth(text, font, size) > width:
        size -= 0.25
    return size


def _bold(font: str) -> str:
    return {"Helvetica": "Helvetica-Bold", "Courier": "Courier-Bold"}.get(font, "Times-Bold")


@dataclass(frozen=True, slots=True)
class _Signer:
    date: str
    signature: str
    name: str
    street: str
    town: str
    ward: str
    district: str


_FIRST = ("Ada", "Basil", "Clara", "Dorian", "Edna", "Felix", "Greta", "Hollis", "Iris", "Jonah")
_LAST = ("Marlowe", "Quill", "Ashdown", "Penhallow", "Birchard", "Tolliver", "Sexton", "Vane")
_STREETS = ("Elm St", "Mill Rd", "Orchard Ln", "Church St", "Maple Ave", "River Rd")


def _signer(rng: random.Random, village: str) -> _Signer:
    name = f"{rng.choice(_FIRST)} {rng.choice(_LAST)}"
    return _Signer(
        date=f"{rng.randint(9, 10)}/{rng.randint(1, 28)}/26",
        signature=name,
        name=name,
        street=f"{rng.randint(2, 480)} {rng.choice(_STREETS)}",
        town=village,
        ward=str(rng.randint(1, 4)),
        district=str(rng.randint(1, 6)),
    )


_STATEMENT = (
    "I, {name} state: I am over the age of eighteen years and now reside at {residence} "
    "(residence address, or postoffice address if not identical) in the Village of {village} "
    "in the State of New York, County of {county}. Each of the electors whose names are "
    "subscribed to this petition sheet containing {count} (fill in number) signatures, "
    "subscribed his name in my presence. I understand that this statement will be accepted "
    "for all purposes as the equivalent of an affidavit and, if it contains a material false "
    "statement, shall subject me to the same penalties as if I had been duly sworn."
)


def _draw(c: Canvas, lay: Layout, number: int, of: int, rng: random.Random) -> dict:
    """One sheet; returns its truth (as `synth.case` writes a sheet's)."""
    fonts = available_fonts()
    pw, ph = _page_size(lay.paper)
    c.setPageSize((pw, ph))
    m = lay.margin
    village, county = "Hollowmere", "Ulster"
    font, bold = lay.font, _bold(lay.font)
    y = ph - m - 12
    caption = lay.number_caption.format(n="{n}", m=of)
    number_y = y if lay.number_at == "top" else m - 8
    if lay.number_at == "top":
        y -= 16
    c.setFont(bold, 12)
    c.drawCentredString(pw / 2, y, "PETITION FOR A PERMISSIVE REFERENDUM")
    y -= 20
    c.setFont(font, 9)
    body = (
        f"To the Board of Trustees of the Village of {village}, County of {county}, State of New "
        f"York. We, the undersigned, duly qualified electors of the village of {village} "
        "respectfully petition that the following proposed act or resolution Local Law No. 3 of "
        "2026 be submitted to a vote of the qualified electors of the village for their "
        "approval or rejection as provided by law."
    )
    for text in simpleSplit(body, font, 9, pw - 2 * m):
        c.drawString(m, y, text)
        y -= 11.5
    # The table.
    total = sum(_WIDTH[k] for k, _ in lay.columns)
    xs = [m]
    for k, _ in lay.columns:
        xs.append(xs[-1] + (pw - 2 * m) * _WIDTH[k] / total)
    parts_of = [
        _title_parts(title, lay.title_lines, x1 - x0 - 4, font)
        for (_, title), x0, x1 in zip(lay.columns, xs, xs[1:], strict=False)
    ]
    title_h = 12 + 9 * max(len(p) for p in parts_of)
    top = y - 6
    rows = min(lay.rows, int((top - title_h - 190) // lay.row_h))
    ys = [top, top - title_h] + [top - title_h - lay.row_h * (i + 1) for i in range(rows)]
    c.setLineWidth(0.7)
    if lay.rules != "none":
        for yy in ys:
            c.line(xs[0], yy, xs[-1], yy)
    if lay.rules == "grid":
        for xx in xs:
            c.line(xx, ys[0], xx, ys[-1])
    c.setFont(bold, 7.5)
    for parts, x0, x1 in zip(parts_of, xs, xs[1:], strict=False):
        first = top - (title_h - 9 * len(parts)) / 2 - 7
        for n_line, part in enumerate(parts):
            c.drawCentredString((x0 + x1) / 2, first - 9 * n_line, part)
    filled = rng.randint(max(1, rows // 2), rows)
    lines = []
    for i in range(rows):
        row_top, row_bottom = ys[i + 1], ys[i + 2]
        s = _signer(rng, village) if i < filled and rng.random() > 0.1 else None
        hand = pick_hand(rng, fonts)
        fields: dict[str, str] = {}
        for (kind, _), x0, x1 in zip(lay.columns, xs, xs[1:], strict=False):
            if kind == "line_no":
                c.setFont(font, 8)
                c.drawString(x0 + 3, row_bottom + 5, f"{i + 1}.")
                continue
            if s is None:
                continue
            text = {
                "date": s.date,
                "signature": s.signature,
                "name": s.name,
                "residence": s.street,
                "street": s.street,
                "town": s.town,
                "sig_res": s.signature,
                "ward": s.ward,
                "election_district": s.district,
            }[kind]
            if kind in ("signature", "sig_res"):  # signed in ink; the rest typed in
                low = row_bottom + 5 + (lay.row_h / 2 - 4 if kind == "sig_res" else 0)
                draw_handwritten(
                    c,
                    rng,
                    text,
                    x0 + 4,
                    low,
                    x1 - x0 - 8,
                    hand.signature_font,
                    10.5 * hand.scale,
                    hand.slant + 6,
                    hand.wobble,
                    band=(row_bottom + 1.5, row_top - 1.5),
                )
            else:
                c.setFont(font, _fit(text, font, 9.0, x1 - x0 - 8))
                c.drawString(x0 + 4, row_bottom + 5, text)
            if kind == "sig_res":  # the residence written under the signature, in print
                c.setFont(font, 8)
                c.drawString(x0 + 4, row_bottom + 4, f"{s.street}, {s.town}")
        if s is not None:
            kinds = {k for k, _ in lay.columns}
            fields = {"date": s.date, "signature": s.signature}
            if "name" in kinds:
                fields["name"] = s.name
            if "street" in kinds or "sig_res" in kinds:
                fields["residence"] = f"{s.street}, {s.town}"
            else:
                fields["residence"] = s.street
            if "ward" in kinds:
                fields["ward"] = s.ward
            if "election_district" in kinds:
                fields["election_district"] = s.district
        lines.append({"line_no": i + 1, "blank": s is None, "fields": fields})
    # The statement of witness below the table.
    y = ys[-1] - 22
    c.setFont(bold, 9)
    c.drawString(m, y, "Statement of Witness:")
    y -= 14
    count = sum(not ln["blank"] for ln in lines)
    witness = {"name": "Orla Penhallow", "residence": "12 Quarry Rd", "stated_count": count}
    c.setFont(font, 8.5)
    text = _STATEMENT.format(
        name=witness["name"],
        residence=witness["residence"],
        village=village,
        county=county,
        count=count,
    )
    for part in simpleSplit(text, font, 8.5, pw - 2 * m - 12):
        c.drawString(m + 12, y, part)
        y -= 11
    y -= 24
    c.setFont(font, 10)
    c.drawString(m + 24, y, "10/30/26")
    c.setFont("Helvetica-Oblique", 11)
    c.drawString(pw / 2 + 40, y, "Orla Penhallow")
    y -= 12
    c.setFont(font, 8)
    c.drawString(m + 40, y, "Date")
    c.drawString(pw / 2 + 60, y, "Signature of Witness")
    # The sheet number.
    label = caption.replace("{n}", "" if lay.number_written else str(number))
    c.setFont(font, 9)
    lx = pw - m - stringWidth(caption.replace("{n}", "000"), font, 9)
    if lay.number_written:
        head = caption.split("{n}")[0]
        c.drawString(lx, number_y, label.replace(head, head + "____ "))
        draw_handwritten(
            c,
            rng,
            str(number),
            lx + stringWidth(head, font, 9) + 2,
            number_y + 1,
            20,
            pick_hand(rng, fonts).entry_font,
            11,
            0,
            0.3,
        )
    else:
        c.drawString(lx, number_y, label)
    c.showPage()
    return {
        "sheet_number": number,
        "witness": {**witness, "date": "2026-10-30", "signed": True},
        "lines": lines,
        "columns": [k for k, _ in lay.columns],
        "column_titles": [t for _, t in lay.columns],
        "layout": {
            "rules": lay.rules,
            "row_h": lay.row_h,
            "paper": lay.paper,
            "font": lay.font,
            "caption": lay.number_caption,
            "at": lay.number_at,
            "written": lay.number_written,
        },
    }


def draw_layout_case(dest: Path, layouts: Sequence[Layout], seed: int = 0) -> Path:
    """One PDF per layout under dest/sheets and dest/truth.json; returns the truth's path."""
    rng = random.Random(seed)
    (dest / "sheets").mkdir(parents=True, exist_ok=True)
    sheets = []
    for k, lay in enumerate(layouts, start=1):
        name = f"sheets/layout-{k:02d}.pdf"
        c = Canvas(str(dest / name), invariant=1)
        c.setTitle("Synthetic petition sheet (no real person's data)")
        truth = _draw(c, lay, k, len(layouts), rng)
        c.save()
        sheets.append({"file": name, "page_index": 0, **truth})
    path = dest / "truth.json"
    path.write_text(json.dumps({"synthetic": True, "sheets": sheets}, indent=1))
    return path
