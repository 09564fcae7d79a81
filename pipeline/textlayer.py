"""Read a born-digital petition sheet from its PDF text layer (pdfplumber).

One page is one sheet (Village Law § 9-902(8)). From the page this reads:

- the header above the table: the title, and the blanks of "To the Board of Trustees of this
  Village of ... County of ..., State of New York" and "... the following proposed act or
  resolution ... be submitted to a vote";
- the signature table, found by its ruled lines, columns mapped by their printed titles
  (`pipeline.columns.map_header`); every row below the header becomes one `SignatureLine`,
  blank rows included (a row is never dropped);
- the Statement of Witness, by regexes anchored on the statute's wording, and the witness's
  date and signature from the words just above the captions "Date" / "Signature of Witness";
- the sheet number at the foot (9-902(8): "numbered consecutively beginning with number one at
  the foot of each sheet").

Problems (no table, no statement, an empty blank) are returned as data for the judge to turn
into findings; nothing here raises for a malformed sheet. The caller opens the file.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Any

from pdfplumber.page import Page

from .columns import map_header
from .forms import (
    COUNTIES,
    COUNTS,
    HEADER_VILLAGE,
    JURAT,
    NAMES,
    PROPOSITION,
    RESIDENCES,
    SHEET_NUMBERS,
    SIGNATURE_CAPTIONS,
    TITLE,
    VILLAGES,
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

__all__ = ["read_text_page", "text_layer_usable"]

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


def _pick_table(page: Page) -> tuple[Any, list[list[str | None]], list[str | None]] | None:
    """The first table whose header row maps to at least date and signature."""
    for table in page.find_tables():
        rows = table.extract()
        if not rows:
            continue
        columns = [map_header(cell or "") for cell in rows[0]]
        if "date" in columns and "signature" in columns:
            return table, rows, columns
    return None


def _read_lines(
    table: Any, rows: list[list[str | None]], columns: list[str | None], page_id: str
) -> tuple[SignatureLine, ...]:
    lines = []
    for k, (row, cells) in enumerate(zip(table.rows[1:], rows[1:], strict=False), start=1):
        fields = []
        for name, text, bbox in zip(columns, cells, row.cells, strict=False):
            if name is None:
                continue
            fields.append(_field(name, text, _box(bbox)))
        blank = all(f.empty for f in fields)
        lines.append(
            SignatureLine(
                page_id=page_id, line_no=k, fields=tuple(fields), box=_box(row.bbox), blank=blank
            )
        )
    return tuple(lines)


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


def _line_groups(words: Sequence[dict[str, Any]], tol: float = 3.0) -> list[list[dict[str, Any]]]:
    """Words grouped into text lines by their top coordinate."""
    groups: list[list[dict[str, Any]]] = []
    for w in sorted(words, key=lambda w: (w["top"], w["x0"])):
        if groups and abs(groups[-1][0]["top"] - w["top"]) <= tol:
            groups[-1].append(w)
        else:
            groups.append([w])
    return groups


def _words_field(name: str, words: Sequence[dict[str, Any]]) -> Field:
    words = sorted(words, key=lambda w: w["x0"])
    box = _union([Box(w["x0"], w["top"], w["x1"], w["bottom"]) for w in words])
    return _field(name, " ".join(w["text"] for w in words), box)


def _read_witness(
    text: str, words: Sequence[dict[str, Any]], below: float, page_width: float
) -> WitnessStatement | None:
    found = statement_form(text)
    if found is None:
        return None
    form, start, _ = found
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
    for group in _line_groups(stmt_words):
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
        inside = [w for w in stmt_words if w["top"] <= caption_top + 1]
        if inside:
            box = Box(
                min(w["x0"] for w in inside),
                min(w["top"] for w in inside),
                max(w["x1"] for w in inside),
                max(w["bottom"] for w in group),
            )
        break
    if form == "affidavit" and (jurat := JURAT.search(body)):
        date_f = _field("date", f"{jurat['m']} {jurat['d']}, {jurat['y']}")
    return WitnessStatement(
        form=form,
        witness_name=grab(NAMES, "witness_name") if form != "notary" else None,
        residence=grab(RESIDENCES, "residence") if form != "notary" else None,
        village=grab(VILLAGES, "village"),
        county=grab(COUNTIES, "county"),
        stated_count=grab(COUNTS, "stated_count"),
        date=date_f,
        signature=sig_f,
        box=box,
    )


def _read_sheet_number(words: Sequence[dict[str, Any]], page_height: float) -> Field | None:
    """The number printed at the foot: "Sheet No. 3", "Sheet 3" or "Page 3 of 6" -> 3.

    Looks at the lowest text lines first (9-902(8) puts the number at the foot). The field's
    text is the printed phrase up to the number ("Sheet No. 3", "Page 3"), so
    `Sheet.sheet_number_value` reads the right digits."""
    groups = _line_groups([w for w in words if w["top"] > page_height * 0.6])
    for group in reversed(groups):
        line = " ".join(w["text"] for w in sorted(group, key=lambda w: w["x0"]))
        for pattern in SHEET_NUMBERS:
            m = pattern.search(line)
            if m:
                phrase = line[m.start() : m.end(1)]
                box = _union([Box(w["x0"], w["top"], w["x1"], w["bottom"]) for w in group])
                return _field("sheet_number", phrase, box)
    return None


def read_text_page(page: Page, ref: PageRef) -> Sheet:
    """Read one born-digital sheet. Never raises for a malformed sheet: no table gives
    `lines=()`, no statement gives `witness=None`, for the judge to report."""
    words = page.extract_words(extra_attrs=["fontname"])
    picked = _pick_table(page)
    lines: tuple[SignatureLine, ...] = ()
    columns: tuple[str, ...] = ()
    table_bottom = 0.0
    if picked is None:
        log.debug("page %s: no signature table found", ref.page_id)
        header_text = witness_text = page.extract_text() or ""
    else:
        table, rows, mapped = picked
        lines = _read_lines(table, rows, mapped, ref.page_id)
        columns = tuple(c for c in mapped if c is not None)
        table_top, table_bottom = float(table.bbox[1]), float(table.bbox[3])
        header_text = page.crop((0, 0, page.width, table_top)).extract_text() or ""
        below = page.crop((0, min(table_bottom, float(page.height)), page.width, page.height))
        witness_text = below.extract_text() or ""
    witness = _read_witness(witness_text, words, table_bottom, float(page.width))
    return Sheet(
        page=ref,
        header=_read_header(header_text),
        lines=lines,
        sheet_number=_read_sheet_number(words, float(page.height)),
        witness=witness,
        columns=columns,
    )
