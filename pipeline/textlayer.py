"""Read a born-digital petition sheet from its PDF text layer and its drawn objects (pdfplumber).

One page is one sheet (Village Law § 9-902(8)). From the page this reads:

- the header above the table: the title, and the blanks of "To the Board of Trustees of this
  Village of ... County of ..., State of New York" and "... the following proposed act or
  resolution ... be submitted to a vote";
- the signature table, found from the page's structure (`pipeline.texttable`: its titles
  through the shared vocabulary, its rules, or its text rows when it has none), columns placed
  by their titles or their content (`pipeline.columns`); every row under the titles becomes
  one `SignatureLine`, blank rows included (a row is never dropped). A street column and a
  town column are joined into the residence; a combined signature-and-residence cell gives the
  signature (above) and the residence (below);
- a cell's ink is whatever is drawn in it: text, an image (a pasted signature) or vector
  strokes (a drawn one). No text is not no signature: a signature cell with no text and no
  drawn object, on a line that has other entries, is looked at on the rendered page
  (pypdfium2) for ink the text layer does not explain;
- the statement at the foot (witness, notary, affidavit), by regexes anchored on the statute's
  wording, and its date and signature from what is drawn just above their captions;
- the sheet number, by its caption ("Sheet No.", "Page No.", "Page 3 of 6", ...) anywhere on
  the page (9-902(8) asks for it at the foot).

Problems (no table, no statement, an empty blank) are returned as data for the judge to turn
into findings; a table or column the reader could not place is a `Sheet.layout_doubts` reason
(the sheet goes to a person), never taken as a missing entry. Nothing here raises for a
malformed sheet. The caller opens the file.
"""

from __future__ import annotations

import copy
import logging
import re
from collections.abc import Mapping, Sequence
from typing import Any

from pdfplumber.page import Page

from .columns import join_parts, role_by_content, role_field
from .forms import (
    COUNTIES,
    HEADER_VILLAGE,
    PROPOSITION,
    SIGNATURE_CAPTIONS,
    STANDARD_STATEMENTS,
    TITLE,
    VILLAGES,
    Statement,
    find_sheet_number,
    statement_form,
)
from .records import (
    Box,
    Field,
    PageRef,
    Sheet,
    SheetHeader,
    SignatureLine,
    Source,
    WitnessStatement,
)
from .texttable import Cell, TextTable, find_table, rules_of, text_lines

__all__ = ["SIGNED", "read_text_page", "text_layer_usable"]

log = logging.getLogger(__name__)

# A page whose text layer has fewer real words than this is treated as a scan.
MIN_WORDS = 5
MIN_ALNUM_CHARS = 20

_DOTS = re.compile(r"^[.\u2026_\s]*$")


def text_layer_usable(page: Page) -> bool:
    """True when the page carries a real text layer.

    A scan saved as PDF has no characters at all (or a few stray ones from a scanner's stamp);
    a born-digital sheet has hundreds. The test: at least MIN_ALNUM_CHARS letters or digits
    forming at least MIN_WORDS words of two or more letters/digits. It does not judge OCR'd
    text layers (an invisible layer over a scan counts as usable)."""
    chars = page.chars
    alnum = sum(1 for ch in chars if ch.get("text", "").isalnum())
    if alnum < MIN_ALNUM_CHARS:
        return False
    words = page.extract_words()
    real = sum(1 for w in words if sum(c.isalnum() for c in w["text"]) >= 2)
    return real >= MIN_WORDS


def _clean(text: str | None) -> str:
    """Collapse whitespace; a blank printed as dots (or underscores) is empty."""
    t = re.sub(r"\s+", " ", text or "").strip()
    return "" if _DOTS.match(t) else t


def _field(name: str, text: str | None, box: Box | None = None) -> Field:
    return Field(name=name, text=_clean(text), confidence=1.0, source=Source.TEXT_LAYER, box=box)


def _box(bbox: Sequence[float] | None) -> Box | None:
    if bbox is None:
        return None
    x0, top, x1, bottom = bbox
    return Box(float(x0), float(top), float(x1), float(bottom))


def _union(boxes: Sequence[Box]) -> Box | None:
    if not boxes:
        return None
    return Box(
        min(b.x0 for b in boxes),
        min(b.top for b in boxes),
        max(b.x1 for b in boxes),
        max(b.bottom for b in boxes),
    )


SIGNED = "[signed]"  # a signature drawn as an image or strokes: ink with no text to read
# Rendered-page ink check: resolution, darkness and the least unexplained dark area (pixels).
RENDER_DPI = 100.0
DARK = 128
MIN_UNSEEN_PX = 60


class _Rendered:
    """The page rendered once, on first need (pypdfium2), to look for ink the text layer and
    the drawn objects do not explain."""

    def __init__(self, page: Page, known: Sequence[dict[str, Any]]) -> None:
        self._page = page
        self._known = known
        self._gray: Any = None

    def _image(self) -> Any:
        if self._gray is None:
            import numpy as np
            import pypdfium2 as pdfium

            stream = self._page.pdf.stream
            stream.seek(0)
            doc = pdfium.PdfDocument(stream.read())
            try:
                pil = doc[self._page.page_number - 1].render(scale=RENDER_DPI / 72).to_pil()
            finally:
                doc.close()
            gray = np.asarray(pil.convert("L")) < DARK
            scale = RENDER_DPI / 72
            for o in self._known:  # what the layer explains; a glyph's ink may reach past
                # its box (handwriting fonts understate their metrics): a third of its size
                pad = 2 + float(o.get("size", 0.0)) * scale / 3
                x0, x1 = int(o["x0"] * scale - pad), int(o["x1"] * scale + pad) + 1
                y0, y1 = int(o["top"] * scale - pad), int(o["bottom"] * scale + pad) + 1
                gray[max(0, y0) : max(0, y1), max(0, x0) : max(0, x1)] = False
            self._gray = gray
        return self._gray

    def unseen_ink(self, box: tuple[float, float, float, float]) -> bool:
        """Dark pixels inside the box (inset from its rules) that nothing in the layer drew."""
        scale = RENDER_DPI / 72
        x0, top, x1, bottom = box
        img = self._image()
        region = img[
            max(0, int((top + 3) * scale)) : max(0, int((bottom - 3) * scale)),
            max(0, int((x0 + 3) * scale)) : max(0, int((x1 - 3) * scale)),
        ]
        return int(region.sum()) >= MIN_UNSEEN_PX


def _stops(words: Sequence[dict[str, Any]], statements: Sequence[Statement]) -> list[float]:
    """Tops of the text lines that open one of the `statements`."""
    out = []
    for line in text_lines(words):
        if statement_form(" ".join(w["text"] for w in line) + "\n", statements) is not None:
            out.append(min(w["top"] for w in line))
    return out


def _locate_table(
    words: Sequence[dict[str, Any]],
    rules: Sequence[Any],
    page_height: float,
    statements: Sequence[Statement],
    drawn: Sequence[Any] = (),
) -> tuple[TextTable | None, float]:
    """The table and where the statement under it starts (the page's foot if none does);
    `drawn`: the page's images and vector paths."""
    for stop in [*_stops(words, statements), page_height]:
        table = find_table(words, rules, stop, drawn)
        if table is not None:
            return table, stop
    return None, page_height


def _split_combined(cell: Cell) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]]]:
    """A combined signature-and-residence cell: the signature's words (above) and the
    residence's (below). One line of text is the signature when it sits in the cell's upper
    part, or when nothing else is drawn there; the residence otherwise."""
    lines = text_lines(cell.words, tol=4.0)
    if cell.ink or not lines:
        return [], [w for line in lines for w in line]
    if len(lines) >= 2:
        return list(lines[0]), [w for line in lines[1:] for w in line]
    words = lines[0]
    for k, w in enumerate(words[:-1]):  # "Wren Oakhurst, 3 Birch Rd": one line, both
        if w["text"].endswith(",") and words[k + 1]["text"][:1].isdigit():
            return list(words[: k + 1]), list(words[k + 1 :])
    x0, top, x1, bottom = cell.box
    middle = (min(w["top"] for w in lines[0]) + max(w["bottom"] for w in lines[0])) / 2
    if middle < top + 0.55 * (bottom - top):
        return list(lines[0]), []
    return [], list(lines[0])


def _words_text(words: Sequence[Mapping[str, Any]]) -> str:
    return " ".join(w["text"] for line in text_lines(words) for w in line)


def _cell_box(cell: Cell) -> Box:
    return Box(*cell.box)


def _place_by_content(
    table: TextTable, grid: Sequence[Sequence[Cell]]
) -> tuple[list[str | None], list[str]]:
    """Columns no title placed, placed by what they hold (dates, house numbers and streets,
    line numbers); the reasons for any still not placed that hold entries."""
    roles = list(table.roles)
    doubts = []
    for k, role in enumerate(roles):
        if role is not None:
            continue
        texts = [row[k].text for row in grid]
        guess = role_by_content(texts)
        taken = {role_field(r) for r in roles if r is not None}
        if guess is not None and role_field(guess) not in taken:
            roles[k] = guess
        elif any(t.strip() for t in texts) or any(row[k].ink for row in grid):
            title = table.titles[k] or "(untitled)"
            doubts.append(f"a column titled {title!r} was not placed")
    return roles, doubts


def _read_lines(
    table: TextTable,
    grid: Sequence[Sequence[Cell]],
    roles: Sequence[str | None],
    page_id: str,
    rendered: _Rendered,
) -> tuple[tuple[SignatureLine, ...], list[str]]:
    lines = []
    number_problems = 0
    for k, (row, (top, bottom)) in enumerate(zip(grid, table.rows, strict=True), start=1):
        parts: dict[str, str] = {}
        boxes: dict[str, Box] = {}
        inked: dict[str, bool] = {}
        for role, cell in zip(roles, row, strict=True):
            if role is None:
                continue
            if role == "line_number":
                if _words_text(cell.words).rstrip(".") not in (str(k), ""):
                    number_problems += 1
                continue
            if role == "signature_residence":
                sig_words, res_words = _split_combined(cell)
                parts["signature"] = _words_text(sig_words).rstrip(",")
                parts["residence"] = _words_text(res_words)
                inked["signature"] = bool(cell.ink)
                boxes["signature"] = boxes["residence"] = _cell_box(cell)
                continue
            parts[role] = cell.text
            field = role_field(role) or role
            inked[field] = inked.get(field, False) or bool(cell.ink)
            boxes.setdefault(field, _cell_box(cell))
        joined = join_parts(parts)
        order = [f for r in roles if r is not None and (f := role_field(r)) is not None]
        if "signature_residence" in roles:
            order.insert(order.index("signature") + 1, "residence")
        values = {f: joined[f] for f in dict.fromkeys(order) if f in joined}
        anything = any(_clean(v) for v in values.values()) or any(inked.values())
        fields = []
        for name, text in values.items():
            box = boxes.get(name)
            if _clean(text):
                fields.append(_field(name, text, box))
            elif name == "signature" and inked.get(name):
                fields.append(_field(name, SIGNED, box))
            elif (
                name == "signature"
                and anything
                and box is not None
                and rendered.unseen_ink((box.x0, box.top, box.x1, box.bottom))
            ):
                # Ink the text layer does not hold: a person looks at it.
                fields.append(Field(name, SIGNED, 0.5, Source.OCR, box))
            elif inked.get(name):  # drawn, not typed: nothing to read, a person reads it
                fields.append(Field(name, "", 0.0, Source.OCR, box))
            else:
                fields.append(_field(name, "", box))
        blank = all(f.empty for f in fields) and not anything
        row_box = Box(
            min((b.x0 for b in boxes.values()), default=0.0),
            top,
            max((b.x1 for b in boxes.values()), default=0.0),
            bottom,
        )
        lines.append(
            SignatureLine(
                page_id=page_id, line_no=k, fields=tuple(fields), box=row_box, blank=blank
            )
        )
    doubts = []
    if number_problems:
        doubts.append(f"the printed line numbers disagree with the rows read on {number_problems}")
    return tuple(lines), doubts


def _read_table(
    page: Page, words: Sequence[dict[str, Any]], ref: PageRef, statements: Sequence[Statement]
) -> tuple[TextTable | None, tuple[SignatureLine, ...], tuple[str, ...], tuple[str, ...], float]:
    """The table, its lines, the fields its columns give, the layout's doubts, and where the
    statement below it starts."""
    rules = rules_of(page.lines, page.rects)
    ink = [*page.images, *page.curves]
    table, stop = _locate_table(words, rules, float(page.height), statements, ink)
    if table is None:
        return None, (), (), (), stop
    known = [*page.chars, *page.images, *page.curves, *page.lines, *page.rects]
    grid = table.cells(words, ink)
    roles, doubts = _place_by_content(table, grid)
    lines, more = _read_lines(table, grid, roles, ref.page_id, _Rendered(page, known))
    doubts = [*table.doubts, *doubts, *more]
    fields = tuple(dict.fromkeys(f.name for ln in lines[:1] for f in ln.fields))
    if not fields:
        fields = tuple(
            dict.fromkeys(f for r in roles if r is not None and (f := role_field(r)) is not None)
        )
    if not {"residence"} & set(fields) and "signature_residence" not in roles:
        doubts.append("no column gives the signer's residence")
    return table, lines, fields, tuple(doubts), stop


def _read_header(text: str) -> SheetHeader:
    title_m = TITLE.search(text)
    title = _clean(title_m.group(0)) if title_m else None
    m = HEADER_VILLAGE.search(text)
    p = PROPOSITION.search(text)
    return SheetHeader(
        title=title or None,
        village=_field("village", m.group("v")) if m else None,
        county=_field("county", m.group("c")) if m else None,
        proposition=_field("proposition", p.group("p")) if p else None,
    )


def _words_field(name: str, words: Sequence[dict[str, Any]]) -> Field:
    words = sorted(words, key=lambda w: w["x0"])
    box = _union([Box(w["x0"], w["top"], w["x1"], w["bottom"]) for w in words])
    return _field(name, " ".join(w["text"] for w in words), box)


def _read_witness(
    text: str,
    words: Sequence[dict[str, Any]],
    below: float,
    page_width: float,
    ink: Sequence[dict[str, Any]] = (),
    statements: Sequence[Statement] = STANDARD_STATEMENTS,
) -> WitnessStatement | None:
    found = statement_form(text, statements)
    if found is None:
        return None
    statement, start, _ = found
    body = text[start:]

    def grab(patterns: Sequence[re.Pattern[str]], name: str) -> Field | None:
        for pattern in patterns:
            m = pattern.search(body)
            if m:
                return _field(name, m.group("x"))
        return None

    # The date and the signature: the words on the line just above the caption.
    stmt_words = [w for w in words if w["top"] > below]
    date_f = sig_f = None
    box = None
    for group in text_lines(stmt_words):
        joined = " ".join(w["text"].lower() for w in group).replace("(", "")
        if not any(caption in joined for caption in SIGNATURE_CAPTIONS):
            continue
        caption_top = min(w["top"] for w in group)
        sig_caption = next(w for w in group if "signature" in w["text"].lower())
        date_caption = next((w for w in group if w["text"].lower().startswith("date")), None)
        above = [w for w in stmt_words if caption_top - 22 <= w["top"] < caption_top - 2]
        split = (sig_caption["x0"] + (date_caption["x1"] if date_caption else 0)) / 2
        if date_caption is None:
            split = min(split, page_width / 2)
        date_words = [
            w for w in above if w["x1"] <= split and not w["text"].lower().startswith("date")
        ]
        date_f = _words_field("date", date_words)
        sig_f = _words_field("signature", [w for w in above if w["x0"] > split])
        if sig_f.empty and any(
            o["x0"] > split and caption_top - 30 <= (o["top"] + o["bottom"]) / 2 < caption_top
            for o in ink
        ):  # signed with a picture or strokes
            sig_f = _field("signature", SIGNED, sig_f.box)
        inside = [w for w in stmt_words if w["top"] <= caption_top + 1]
        if inside:
            box = Box(
                min(w["x0"] for w in inside),
                min(w["top"] for w in inside),
                max(w["x1"] for w in inside),
                max(w["bottom"] for w in group),
            )
        break
    if statement.jurat is not None and (jurat := statement.jurat.search(body)):
        date_f = _field("date", f"{jurat['m']} {jurat['d']}, {jurat['y']}")
    return WitnessStatement(
        form=statement.form,
        witness_name=grab(statement.names, "witness_name"),
        residence=grab(statement.residences, "residence"),
        village=grab(VILLAGES, "village"),
        county=grab(COUNTIES, "county"),
        stated_count=grab(statement.counts, "stated_count"),
        date=date_f,
        signature=sig_f,
        box=box,
    )


def _read_sheet_number(
    words: Sequence[dict[str, Any]], table_top: float, table_bottom: float
) -> Field | None:
    """The sheet's number by its caption anywhere outside the table: "Sheet No. 3", "Page 3 of
    6", "Sheet # 3", "Page No. __3__" -> 3; the foot first (9-902(8)), then the top.

    The field's text is the printed phrase up to the number ("Sheet No. 3", "Page 3"), so
    `Sheet.sheet_number_value` reads the right digits."""
    groups = text_lines([w for w in words if not table_top <= w["top"] < table_bottom])
    below = [g for g in groups if g[0]["top"] >= table_bottom]
    above = [g for g in groups if g[0]["top"] < table_top]
    for group in [*reversed(below), *above]:
        line = " ".join(w["text"] for w in group)
        found = find_sheet_number(line)
        if found is not None:
            start, end, _ = found
            box = _union([Box(w["x0"], w["top"], w["x1"], w["bottom"]) for w in group])
            return _field("sheet_number", line[start:end], box)
    return None


def read_text_page(
    page: Page, ref: PageRef, statements: Sequence[Statement] = STANDARD_STATEMENTS
) -> Sheet:
    """Read one born-digital sheet, looking for one of `statements` below its table. Never
    raises for a malformed sheet: no table gives `lines=()`, no statement gives
    `witness=None`, for the judge to report. A page turned by its /Rotate (a scanner's or a
    viewer's quarter turn of a sheet drawn upright) is read as drawn when it shows no table as
    displayed."""
    sheet = _read_text_page(page, ref, statements)
    if sheet.lines or not page.rotation:
        return sheet
    drawn = _as_drawn(page)
    again = _read_text_page(drawn, ref, statements)
    drawn.close()
    return again if again.lines else sheet


def _as_drawn(page: Page) -> Page:
    """The page without its /Rotate: its content as drawn (pdfplumber applies the turn)."""
    obj = copy.copy(page.page_obj)
    obj.attrs = {**obj.attrs, "Rotate": 0}
    obj.rotate = 0
    return Page(page.pdf, obj, page_number=page.page_number, initial_doctop=page.initial_doctop)


def _read_text_page(page: Page, ref: PageRef, statements: Sequence[Statement]) -> Sheet:
    words = page.extract_words(extra_attrs=["fontname", "size"])
    table, lines, columns, doubts, stop = _read_table(page, words, ref, statements)
    width, height = float(page.width), float(page.height)
    if table is None:
        log.debug("page %s: no signature table found", ref.page_id)
        header_text = witness_text = page.extract_text() or ""
        table_top = table_bottom = 0.0
    else:
        table_top, table_bottom = table.top, min(table.bottom, stop)
        header_text = page.crop((0, 0, width, max(1.0, table_top))).extract_text() or ""
        below = page.crop((0, min(table_bottom, height), width, height))
        witness_text = below.extract_text() or ""
    ink = [*page.images, *page.curves]
    witness = _read_witness(witness_text, words, table_bottom, width, ink, statements)
    return Sheet(
        page=ref,
        header=_read_header(header_text),
        lines=lines,
        sheet_number=_read_sheet_number(words, table_top, table_bottom),
        witness=witness,
        columns=columns,
        layout_doubts=doubts,
    )
