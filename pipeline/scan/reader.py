"""Read a scanned petition sheet: clean it, find the table, read every cell, the header, the
Statement of Witness and the sheet number.

The steps, for one page:

1. load the image at its resolution (`images`), even the lighting, turn a sideways page,
   deskew, filter speckle, binarize (`clean`);
2. find the ruled tables (`table`; a nominating petition has a candidates table above the
   signatures), erase the rules from the grey image OCR reads, and read a table's header row
   to map columns to fields (`pipeline.columns.map_header`): the first table whose titles map
   Date and Signature is the signature table; when none does, the page is tried upside down
   (first, when its ink sits low on the page), then turned the other way;
3. for every row between the rules (blank rows included: a row is never dropped), measure the
   ink of each cell (`ink`); read inked cells with per-field settings (digits only for ward and
   election district, date characters for dates, one text line each); a cell without ink is
   empty for sure; the signature is decided from the ink, not from OCR;
4. OCR the text above the table (title, village, county, proposition) and below it (the
   Statement of Witness, its date and signature, and "Sheet No. n" at the foot) a text line at
   a time and only as far as its blanks go (`blocks`: the statement's closing wording is not
   read), and pick the blanks out with the text-layer reader's patterns, anchored on the
   statute's wording.

Every field keeps the engine's confidence (0..1) and its box in points (1/72 in) on the
upright, deskewed page. Nothing is guessed silently: an inked cell that reads as nothing gets
confidence 0, and the `FIELD_LOW_CONFIDENCE` rule sends such lines to a person.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cache, partial
from pathlib import Path

import cv2
import numpy as np
from rapidfuzz import fuzz

from ..forms import (
    COUNTIES,
    HEADER_VILLAGE,
    PROPOSITION,
    SIGNATURE_CAPTIONS,
    STANDARD_STATEMENTS,
    TITLE,
    VILLAGES,
    WITNESS,
    Statement,
    prose_pattern,
    statement_form,
)
from ..records import (
    Box,
    Field,
    Lattice,
    PageKind,
    PageRef,
    Sheet,
    SheetHeader,
    SignatureLine,
    Source,
    WitnessStatement,
)
from ..rules.reading import threshold_for
from . import cells  # a cell's crop and its re-reads when unsure
from .blocks import (
    BlockPage,
    inked_lines,
    line_pieces,
    read_lines,
    runs_of,
    text_lines,
    touching_parts,
    without_specks,
)
from .clean import (
    FAINT_RULE_RATIO,
    RULE_RATIO,
    Cleaned,
    binarize,
    clean_page,
    rotate_quarter,
)
from .context import ReadContext
from .engine import (
    DATE_CHARS,
    DIGITS,
    ChoiceOcrEngine,
    ImageOcrEngine,
    OcrEngine,
    OcrText,
    Psm,
    Rect,
    Word,
)
from .images import load_page_image
from .ink import measure_ink
from .layer import LayerWord, layer_words, on_cleaned_page
from .sheetno import Caption, NumberRead, find_captions, level_runs, number_text, read_number
from .table import (
    DASH_GAP_IN,
    RULE_BAND_IN,
    Grid,
    dashed_rules,
    find_grids,
    from_column_tops,
    near_rows,
    rule_across,
    rule_masks,
    table_span,
    tables_apart,
    title_rows_above,
    title_rows_below,
    title_rows_guessed,
    with_dashed_rows,
    within_columns,
    without_short_foot,
)
from .textgrid import text_grids
from .titles import (
    LINE_NO,
    SIGNATURE_RESIDENCE,
    STREET,
    TOWN,
    Columns,
    kind_of_content,
    map_title,
    place_columns,
    with_content,
)

__all__ = ["CELL_SETTINGS", "SIGNED_PLACEHOLDER", "read_image_page", "read_scan"]

log = logging.getLogger(__name__)

SIGNED_PLACEHOLDER = "[signed]"
POINTS_PER_INCH = 72.0

# Per field: page-segmentation mode and character whitelist.
CELL_SETTINGS: dict[str, tuple[Psm, str]] = {
    "date": (Psm.SINGLE_LINE, DATE_CHARS),
    "ward": (Psm.SINGLE_LINE, DIGITS),
    "election_district": (Psm.SINGLE_LINE, DIGITS),
    "signature": (Psm.SINGLE_LINE, ""),
    "name": (Psm.SINGLE_LINE, ""),
    "residence": (Psm.SINGLE_LINE, ""),
}
# Fields read with each character's alternatives (the closed-world stage scores the values
# they can hold against them): a date, a name, a residence, a signature's text, a ward or
# election district.
LATTICE_FIELDS = frozenset({"date", "name", "residence", "signature", "ward", "election_district"})
# The witness's date and signature are the words this far (inches) above their caption.
CAPTION_REACH_IN = 0.35
# Cells are read this far (inches) inside their rules.
CELL_INSET_IN = 0.02
_DOTS = re.compile(r"^[.\u2026_\s,:;'`|-]*$")


@dataclass(frozen=True, slots=True)
class _Layout:
    """The page turned upright, with its table and what OCR reads."""

    cleaned: Cleaned
    grid: Grid | None
    ocr_gray: np.ndarray  # the grey page with the table's rules erased
    ink: np.ndarray  # the binary page with the rules erased
    columns: Columns  # what each column holds
    flipped: bool  # turned 180 degrees after cleaning
    rules: tuple[np.ndarray, np.ndarray]  # the page's horizontal and vertical rule images
    # where the statement's wording begins, when the table's foot rows held it (the table
    # ends there: no rows below it are looked for)
    statement_at: int | None = None


# ---------------------------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------------------------


def _pt(px: float, dpi: float) -> float:
    return round(px * POINTS_PER_INCH / dpi, 2)


def _box(x0: float, y0: float, x1: float, y1: float, dpi: float) -> Box:
    return Box(_pt(x0, dpi), _pt(y0, dpi), _pt(x1, dpi), _pt(y1, dpi))


def _clean_text(text: str) -> str:
    t = re.sub(r"\s+", " ", text or "").strip()
    return "" if _DOTS.match(t) else t


_ROMAN_TAIL = re.compile(r"(?<=\s)[Il1|]{2,3}$")
_I_INSIDE = re.compile(r"(?<=[A-Za-z])I(?=[a-z])")
_L_INITIAL = re.compile(r"\bl(?=[a-z])")
_II_INITIAL = re.compile(r"\bIi(?=[a-z])")
# Fields where every word is capitalized (people's names and street names).
CAPITALIZED_FIELDS = frozenset({"name", "signature", "residence", "witness_name"})


def _fix_il(text: str, capitalized: bool) -> str:
    """Undo sans-serif confusions of capital I and small l: "EImwood" -> "Elmwood"; in a name,
    "llse" -> "Ilse" and a final "llI" -> "III"."""
    text = _I_INSIDE.sub("l", text)
    if capitalized:
        text = _L_INITIAL.sub("I", text)
        text = _II_INITIAL.sub("Il", text)
        text = _ROMAN_TAIL.sub(lambda m: "I" * len(m.group(0)), text)
    return text


def _words_box(words: Sequence[Word], dpi: float) -> Box | None:
    if not words:
        return None
    return _box(
        min(w.box[0] for w in words),
        min(w.box[1] for w in words),
        max(w.box[2] for w in words),
        max(w.box[3] for w in words),
        dpi,
    )


def _mean_conf(words: Sequence[Word]) -> float:
    total = sum(len(w.text) for w in words)
    if not total:
        return 1.0
    return sum(w.confidence * len(w.text) for w in words) / total


@dataclass(frozen=True, slots=True)
class _Spanned:
    """OCR text with each word's character span, so a regex match maps back to its words."""

    text: str
    spans: tuple[tuple[int, int, Word], ...]

    @classmethod
    def of(cls, ocr: OcrText, words: Sequence[Word] | None = None) -> _Spanned:
        parts: list[str] = []
        spans = []
        pos = 0
        last_line = None
        for w in words if words is not None else ocr.words:
            if parts:
                sep = " " if w.line == last_line else "\n"
                parts.append(sep)
                pos += 1
            spans.append((pos, pos + len(w.text), w))
            parts.append(w.text)
            pos += len(w.text)
            last_line = w.line
        return cls("".join(parts), tuple(spans))

    def words_in(self, start: int, end: int) -> list[Word]:
        return [w for a, b, w in self.spans if a < end and b > start]

    def field(
        self, name: str, m: re.Match[str] | None, group: str, dpi: float, offset: int = 0
    ) -> Field | None:
        if m is None:
            return None
        start, end = m.start(group) + offset, m.end(group) + offset
        words = self.words_in(start, end)
        text = _fix_il(_clean_text(m.group(group)), name in CAPITALIZED_FIELDS)
        conf = _mean_conf(words) if text else 1.0
        return Field(name, text, round(conf, 3), Source.OCR, _words_box(words, dpi))


# ---------------------------------------------------------------------------------------------
# Layout: upright page, table, column fields
# ---------------------------------------------------------------------------------------------


def _erase_rules(
    cleaned: Cleaned, masks: tuple[np.ndarray, np.ndarray], grid: Grid | None, dpi: float
) -> tuple[np.ndarray, np.ndarray]:
    """The grey page for OCR and the binary page for the ink test, with the table's rules
    erased: only the strokes along the grid's lines (elsewhere a long horizontal "stroke" may
    be the tops of bold capitals)."""
    if grid is None:
        return cleaned.gray, cleaned.binary
    pad = max(4, int(dpi * 0.05))
    hgt, wid = cleaned.binary.shape
    x0, x1 = max(0, grid.xs[0] - pad), min(wid, grid.xs[-1] + pad + 1)
    y0, y1 = max(0, grid.ys[0] - pad), min(hgt, grid.ys[-1] + pad + 1)
    band = max(3, int(dpi * RULE_BAND_IN))
    rules = np.zeros_like(cleaned.binary)
    rules[:, x0:x1] = near_rows(masks[0], grid.ys, dpi)[:, x0:x1]
    for x in grid.xs:
        a, b = max(0, x - band), min(wid, x + band + 1)
        rules[y0:y1, a:b] |= masks[1][y0:y1, a:b]
    if grid.method != "rules":  # ruled across only, found by its text or on dashes:
        # broken rules too (dashes too short to be found as rules), across and down
        rules |= dashed_rules(cleaned.binary, table_span(grid, dpi), dpi)
        rules |= dashed_rules(cleaned.binary, (x0, y0, x1, y1), dpi, across=True)
    k = max(3, int(dpi * 0.01) | 1)
    rules = cv2.dilate(rules, np.ones((k, k), np.uint8))
    gray = cleaned.gray.copy()
    gray[rules > 0] = 255
    ink = cv2.bitwise_and(cleaned.binary, cv2.bitwise_not(rules))
    return gray, ink


def _inset(grid: Grid, row: int, col: int, dpi: float) -> tuple[int, int, int, int]:
    x0, y0, x1, y1 = grid.cell(row, col)
    m = max(2, int(round(dpi * CELL_INSET_IN)))
    return x0 + m, y0 + m, max(x0 + m + 1, x1 - m), max(y0 + m + 1, y1 - m)


def _ink_rect(ink: np.ndarray, x0: int, y0: int, x1: int, y1: int, dpi: float) -> Rect | None:
    """The part of a region that holds ink, with a margin, kept off the page's edges (tesseract
    misreads a rectangle that touches the image's right edge), as (x, y, width, height)."""
    hgt, wid = ink.shape
    x0, y0 = max(1, x0), max(1, y0)
    x1, y1 = min(wid - 1, x1), min(hgt - 1, y1)
    if x1 - x0 < 4 or y1 - y0 < 4:
        return None
    region = ink[y0:y1, x0:x1]
    rows = np.flatnonzero(region.max(axis=1))
    cols = np.flatnonzero(region.max(axis=0))
    if rows.size == 0:
        return None
    m = max(4, int(dpi * 0.05))
    ax0, ay0 = max(x0, x0 + int(cols[0]) - m), max(y0, y0 + int(rows[0]) - m)
    ax1, ay1 = min(x1, x0 + int(cols[-1]) + 1 + m), min(y1, y0 + int(rows[-1]) + 1 + m)
    return ax0, ay0, ax1 - ax0, ay1 - ay0


def _header_columns(grid: Grid, layout_ink: np.ndarray, engine: OcrEngine, dpi: float) -> Columns:
    """The columns placed by their titles (`titles.place_columns`); an unplaced column that
    holds writing is typed by a few of its cells (`titles.kind_of_content`) when the titles
    placed others (a table of something else is not read cell by cell). A placed column whose
    title cell holds two titles set apart is a doubt (`_titles_set_apart`)."""
    titles = []
    for col in range(len(grid.xs) - 1):
        x0, y0, x1, y1 = _inset(grid, 0, col, dpi)
        text = engine.read((x0, y0, x1 - x0, y1 - y0), Psm.SINGLE_BLOCK).text
        found = measure_ink(layout_ink[y0:y1, x0:x1], dpi)
        if map_title(text) is None and found.present and found.bbox is not None:
            # a short title ("E.D.") alone in a wide cell, or one the block read made nothing
            # of (a blurred "Date" in a shaded row's cell, its edges grey, read "bee"): read
            # again from its ink as one line, kept when it places a column
            rect = cells.ink_rect((x0, y0, x1, y1), found.bbox, dpi)
            again = engine.read(rect, Psm.SINGLE_LINE).text
            if not text.strip() or map_title(again) is not None:
                text = again
        titles.append(text)
    columns = place_columns(titles)
    if sum(k is not None for k in columns.kinds) < 2:
        return columns
    doubts = [
        doubt
        for col, kind in enumerate(columns.kinds)
        if kind is not None
        and (doubt := _titles_set_apart(grid, col, layout_ink, engine, dpi, columns)) is not None
    ]
    for col, kind in enumerate(columns.kinds):
        if kind is not None:
            continue
        columns = with_content(columns, col, _content_kind(grid, col, layout_ink, engine, dpi))
        if (
            columns.kinds[col] is None
            and not titles[col].strip()
            and _inked(grid, col, layout_ink, dpi)
        ):
            doubts.append(f"column {col + 1} has writing but no title that could be read")
    return replace(columns, doubts=columns.doubts + tuple(doubts))


# Two titles set side by side in one column's title cell stand this far apart (inches) at least,
# and twice as far as any two words of the cell (a title's word space is 0.03-0.045 in; the
# cells' padding between two titles twice that or more). Letters closer than WORD_JOIN_IN are
# one word.
TITLES_APART_IN = 0.07
WORD_JOIN_IN = 0.025


def _titles_set_apart(
    grid: Grid, col: int, ink: np.ndarray, engine: OcrEngine, dpi: float, columns: Columns
) -> str | None:
    """A doubt when one column's title cell holds two titles: its words parted at the widest
    gap between them where it stands out (TITLES_APART_IN wide at least, twice any other),
    and the two parts, each read alone, placing columns of different kinds that no other
    column of `columns` places. Two columns were then taken for one, their entries run
    together in its cells, and the title may read as one the vocabulary knows (held-out 1139
    and 1143: tables ruled across only, 200 dpi, whose towns ran on under "Election District
    No." in most rows, so no clear stretch parted 'Village' from it; the column was read as
    the statute's "Village Election District No." and the towns were lost without a word).
    The start of the next title's word cut off into the cell is none ('Village Elec' |
    'ion District No': the district is the next column's, `titles._recut`). A title over two
    lines is read as one: its lines' words overlap."""
    x0, y0, x1, y1 = _inset(grid, 0, col, dpi)
    cell = without_specks(ink[y0:y1, x0:x1], dpi)
    words = runs_of(np.count_nonzero(cell, axis=0) > 0, dpi * WORD_JOIN_IN)
    gaps = [b - a for (_, a), (b, _) in zip(words, words[1:], strict=False)]
    if not gaps:
        return None
    k = int(np.argmax(gaps))
    if gaps[k] < dpi * TITLES_APART_IN or any(2 * g > gaps[k] for g in gaps[:k] + gaps[k + 1 :]):
        return None
    others = {kind for j, kind in enumerate(columns.kinds) if j != col}
    read: dict[str, str] = {}
    for a, b in ((words[0][0], words[k][1]), (words[k + 1][0], words[-1][1])):
        found = measure_ink(cell[:, a:b], dpi)
        if not found.present or found.bbox is None:
            continue
        rect = cells.ink_rect((x0 + a, y0, x0 + b, y1), found.bbox, dpi)
        text = engine.read(rect, Psm.SINGLE_LINE).text
        kind = map_title(text)
        if kind is not None and kind not in others:
            read.setdefault(kind, " ".join(text.split()))
    if len(read) < 2:
        return None
    return (
        f"column {col + 1} holds two titles, "
        + " and ".join(repr(t) for t in read.values())
        + ": two columns' entries may run together in it"
    )


def _inked(grid: Grid, col: int, ink: np.ndarray, dpi: float) -> bool:
    """Any body cell of the column holds ink."""
    for row in range(1, len(grid.ys) - 1):
        x0, y0, x1, y1 = _inset(grid, row, col, dpi)
        if measure_ink(ink[y0:y1, x0:x1], dpi).present:
            return True
    return False


CONTENT_SAMPLE = 3  # inked cells read to type an untitled column


def _content_kind(
    grid: Grid, col: int, ink: np.ndarray, engine: OcrEngine, dpi: float
) -> str | None:
    reads = []
    for row in range(1, len(grid.ys) - 1):
        x0, y0, x1, y1 = _inset(grid, row, col, dpi)
        found = measure_ink(ink[y0:y1, x0:x1], dpi)
        if not found.present or found.bbox is None:
            continue
        rect = cells.ink_rect((x0, y0, x1, y1), found.bbox, dpi)
        read = engine.read(rect, Psm.SINGLE_LINE)
        reads.append((read.text, read.confidence))
        if len(reads) == CONTENT_SAMPLE:
            break
    return kind_of_content(reads)


def _try_layout(
    cleaned: Cleaned,
    dpi: float,
    engine: OcrEngine,
    flipped: bool,
    statements: tuple[Statement, ...] = STANDARD_STATEMENTS,
) -> _Layout:
    """The page's signature table in this orientation. A page may hold several ruled tables
    (the nominating petition's candidates table above its signatures): each is tried, the
    tallest first, until one's header row maps Date and Signature; then a table without
    rules (`textgrid`)."""
    rules_ink = binarize(cleaned.gray, RULE_RATIO)  # the rules' own threshold (faint rules)
    masks = rule_masks(rules_ink, dpi)
    tried: list[_Layout] = []
    # a ruled table whose columns are in doubt waits on a table printed without rules that
    # reads without any (`_ruled_or_unruled`)
    ruled: _Layout | None = None
    untitled: list[Grid] = []  # the ruled grids whose title rows placed no columns
    for grid in find_grids(cleaned.binary, dpi, masks):
        tried.append(_layout_for(cleaned, masks, grid, dpi, engine, flipped, statements))
        if _good(tried[-1]):
            if not tried[-1].columns.doubts:
                return tried[-1]
            ruled = tried[-1]
            break
        # the rule over its titles lost: the row taken for the title row is the first row
        for titled in title_rows_above(masks, grid, dpi, cleaned.binary):
            tried.append(_layout_for(cleaned, masks, titled, dpi, engine, flipped, statements))
            if _good(tried[-1]):
                return tried[-1]
        # lines of prose above it taken for its first rules: the title row a row or two down
        for titled in title_rows_below(grid):
            tried.append(_layout_for(cleaned, masks, titled, dpi, engine, flipped, statements))
            if _good(tried[-1]):
                return tried[-1]
        untitled.append(grid)
        # two tables run together: each alone
        for part in tables_apart(cleaned.binary, dpi, masks, grid):
            tried.append(_layout_for(cleaned, masks, part, dpi, engine, flipped, statements))
            if _good(tried[-1]):
                return tried[-1]
    # No ruled table holds the signatures: the table may be printed without rules.
    engine.set_page(cleaned.gray, dpi)
    prose = partial(_statement_line, engine, cleaned.gray.shape[1], statements)
    unruled: list[Grid | None] = [*text_grids(cleaned.binary, dpi, prose, TEXT_TABLES, masks[0])]
    if ruled is not None:
        return _ruled_or_unruled(ruled, unruled, cleaned, masks, dpi, engine, flipped, statements)
    if not unruled and not tried:  # a page with no table at all is laid out once
        unruled = [None]
    doubted: _Layout | None = None  # read by its text, with doubts (`_doubts`)
    for maybe in unruled:
        layout = _layout_for(cleaned, masks, maybe, dpi, engine, flipped, statements)
        tried.append(layout)
        if _good(layout):
            if maybe is None or _doubts(layout) == (0, False):
                return layout
            doubted = doubted or layout
    # Nor by its text: its rules may be dashes both ways (printed so, or a faint copy), too
    # broken for either; they are bridged across a dash's gap and the tables looked for again.
    dashed = rule_masks(rules_ink, dpi, DASH_GAP_IN)
    # The statement's lines bridge into strokes too: the table ends where its column rules do.
    # A paragraph over it bridges too: failing the whole grid, it starts where they do (or a
    # row above, a shaded title row hiding its column rules).
    for found in find_grids(cleaned.binary, dpi, dashed):
        for each in _bridged_grids(found, dashed[1], dpi):
            tried.append(_layout_for(cleaned, dashed, each, dpi, engine, flipped, statements))
            if _good(tried[-1]) and (doubted is None or _doubts(tried[-1]) < _doubts(doubted)):
                return tried[-1]
    # Nor on bridged rules: its rules may be too faint for RULE_RATIO (a light grey rule
    # blurred by the scan), whole at a fainter threshold; the long-stroke filter keeps the
    # noise it lets in out of the rules.
    if doubted is None:
        faint = rule_masks(binarize(cleaned.gray, FAINT_RULE_RATIO), dpi)
        for grid in find_grids(cleaned.binary, dpi, faint):
            even = without_short_foot(grid)
            tried.append(_layout_for(cleaned, faint, even, dpi, engine, flipped, statements))
            if _good(tried[-1]):
                return tried[-1]
    # Last, no rule over or beside a ruled table's titles left: a title row guessed over its
    # first rule, kept only when it places every column it titles (fresh seed 9998)
    if doubted is None:
        for grid in untitled:
            for titled in title_rows_guessed(masks, grid, dpi, cleaned.binary):
                guess = _layout_for(cleaned, masks, titled, dpi, engine, flipped, statements)
                tried.append(guess)
                if _good(guess) and not guess.columns.doubts:
                    return guess
    best = doubted or max(tried, key=_score)
    if best is not tried[-1]:
        engine.set_page(best.ocr_gray, dpi)
    return best


def _ruled_or_unruled(
    ruled: _Layout,
    unruled: list[Grid | None],
    cleaned: Cleaned,
    masks: tuple[np.ndarray, np.ndarray],
    dpi: float,
    engine: OcrEngine,
    flipped: bool,
    statements: tuple[Statement, ...],
) -> _Layout:
    """A ruled table whose columns are in doubt, or the first table found by its text that
    places as many columns and finds as many rows with no doubt at all. Long flat signature
    strokes on a table printed without rules pass for rules (held-out 1141: a degraded 200 dpi
    scan, its "rules" the signatures' tails, read as 9 columns with 5 unplaced and 4 rows of
    7; read by its text, 4 columns placed and 7 rows). A ruled table's doubt (a "Remarks"
    column) is often its own: it stands unless the text says better (dev 1123: a ruled
    table's title 'ion District No' cut from 'Election', its text table 10 rows of 12)."""
    for grid in unruled:
        layout = _layout_for(cleaned, masks, grid, dpi, engine, flipped, statements)
        if (
            _good(layout)
            and _doubts(layout) == (0, False)
            and _score(layout) >= _score(ruled)
            and _rows(layout) >= _rows(ruled)
        ):
            return layout
    engine.set_page(ruled.ocr_gray, dpi)
    return ruled


def _rows(layout: _Layout) -> int:
    return 0 if layout.grid is None else layout.grid.n_rows


def _bridged_grids(found: Grid, vert: np.ndarray, dpi: float) -> list[Grid]:
    """The grids a table found on bridged rules is tried as, in turn: ended where its column
    rules end, then started where they start (`table.within_columns`, `from_column_tops`),
    none when no row is left. A table ruled across only has no column rules to end it: its
    rows are the rules' own (`table.find_grid` keeps only thin lines across most of it), and
    rows that read as the statement's wording are cut off as on any table
    (`_without_statement_rows`)."""
    if found.method == "rules+projection":
        return [found]
    ended = within_columns(found, vert, dpi)
    return [] if ended is None else [ended, *from_column_tops(ended, vert, dpi)]


# Tables found by their text alone tried on a page, top to bottom (a line above the table may
# make pieces like a title row's).
TEXT_TABLES = 2


def _statement_line(
    engine: OcrEngine, width: int, statements: tuple[Statement, ...], top: int, bottom: int
) -> bool:
    """A text line (of the page the engine has) that reads as the wording of one of the
    `statements` (`forms.prose_pattern`), not as a signature row: the table ends above it."""
    pad = max(2, (bottom - top) // 4)
    text = engine.read(
        (1, max(0, top - pad), width - 2, bottom - top + 2 * pad), Psm.SINGLE_LINE
    ).text
    return bool(prose_pattern(statements).search(text))


def _layout_for(
    cleaned: Cleaned,
    masks: tuple[np.ndarray, np.ndarray],
    grid: Grid | None,
    dpi: float,
    engine: OcrEngine,
    flipped: bool,
    statements: tuple[Statement, ...] = STANDARD_STATEMENTS,
) -> _Layout:
    if grid is not None:  # faint dashes too: the rules' own binarization
        grid = with_dashed_rows(binarize(cleaned.gray, RULE_RATIO), grid, dpi)
    ocr_gray, ink = _erase_rules(cleaned, masks, grid, dpi)
    engine.set_page(ocr_gray, dpi)
    columns = Columns((), ())
    statement_at = None
    if grid is not None:
        trimmed = _without_statement_rows(grid, ink, engine, dpi, statements)
        if trimmed is not grid:  # the rules erased again: the statement's lines kept whole
            statement_at, grid = grid.ys[len(trimmed.ys) - 1], trimmed
            ocr_gray, ink = _erase_rules(cleaned, masks, grid, dpi)
            engine.set_page(ocr_gray, dpi)
        columns = _header_columns(grid, ink, engine, dpi)
    return _Layout(cleaned, grid, ocr_gray, ink, columns, flipped, masks, statement_at)


# A row's writing runs across a column boundary (and may be the statement's wording) when no
# stretch this wide (inches) parts it there: wider than a word space of a typewriter face set
# bold (0.06 in; "Statement of Witness:" passed for two cells' entries at textgrid.CLEAR_IN), as
# what is read there, not this, tells a row from the statement.
STATEMENT_SPACE_IN = 0.1


def _without_statement_rows(
    grid: Grid,
    ink: np.ndarray,
    engine: OcrEngine,
    dpi: float,
    statements: tuple[Statement, ...] = STANDARD_STATEMENTS,
) -> Grid:
    """The table without the rows at its foot that hold the statement's wording: a line of its
    prose smeared into a long stroke passes for a row rule under a table ruled across only,
    and the heading above it ("Statement of Witness:") then sits in a "row". Such a row's
    writing runs across a column boundary and reads as the statement's wording
    (`forms.prose_pattern`); a row of the table (an overflowing signature crosses a boundary
    too) does not say "statement", "witness", "sworn", ... The rows are looked at from the
    foot up, and the first that is not the statement's ends the looking."""
    ys = list(grid.ys)
    m = max(2, int(round(dpi * CELL_INSET_IN)))
    clear = dpi * STATEMENT_SPACE_IN
    while len(ys) > 3:
        top, bottom = ys[-2] + m, ys[-1] - m
        inked: np.ndarray = np.any(ink[top:bottom, grid.xs[0] : grid.xs[-1]], axis=0)
        inner = [x - grid.xs[0] for x in grid.xs[1:-1]]
        crossed = any(_written_across(inked, x, clear) for x in inner)
        if bottom - top < 2 or not crossed:
            break
        rect = (grid.xs[0], top, grid.xs[-1] - grid.xs[0], bottom - top)
        if not _statement_in(engine, rect, statements):
            break
        ys.pop()
    return grid if len(ys) == len(grid.ys) else replace(grid, ys=tuple(ys))


def _statement_in(engine: OcrEngine, rect: Rect, statements: tuple[Statement, ...]) -> bool:
    """The band `rect` of the page the engine has reads as the wording of one of `statements`
    (`forms.prose_pattern`): the statement, not a row of the table."""
    return bool(prose_pattern(statements).search(engine.read(rect, Psm.SINGLE_BLOCK).text))


def _written_across(inked: np.ndarray, x: int, clear: float) -> bool:
    """Whether writing runs across column `x` of a band's inked columns: ink on both sides
    with no stretch `clear` wide free of it between (a word space or a gap between letters
    that the boundary happens to fall in is no parting: `clear` is wider than any word space,
    `STATEMENT_SPACE_IN`)."""
    left = np.flatnonzero(inked[: x + 1])
    right = np.flatnonzero(inked[x:])
    return bool(len(left) and len(right)) and int(x + right[0] - left[-1]) < clear


def _good(layout: _Layout) -> bool:
    return layout.columns.has("date") and layout.columns.has("signature")


def _doubts(layout: _Layout) -> tuple[int, bool]:
    """What a layout leaves in doubt, least first: its columns' doubts, then whether its rows'
    height is a guess from one written row (a text table's). A table read by its text with
    either waits on the table its dashed rules make, bridged (held-out 1119: titles unplaced
    and 3 rows of 10; held-out 1107: one row read of six, ruled in faint dashes both ways)."""
    guessed = layout.grid is not None and layout.grid.guessed_pitch
    return len(layout.columns.doubts), guessed


def _score(layout: _Layout) -> int:
    return sum(c is not None for c in layout.columns.kinds) * 10 + (layout.grid is not None)


def _flip(cleaned: Cleaned) -> Cleaned:
    return Cleaned(
        rotate_quarter(cleaned.gray, 2),
        rotate_quarter(cleaned.binary, 2),
        (cleaned.quarter_turns + 2) % 4,
        cleaned.skew,
        cleaned.speckled,
        cleaned.warp,
        cleaned.warped,
    )


def _bottom_heavy(binary: np.ndarray) -> bool:
    """More ink in the page's lower half than in its upper half. A petition prints its title,
    its text and its table from the top and leaves its foot mostly blank, so such a page is
    likely upside down (only the order in which the orientations are tried depends on it)."""
    sample = binary[::4, ::4]
    half = sample.shape[0] // 2
    return bool(np.count_nonzero(sample[half:]) > np.count_nonzero(sample[:half]))


def _upright_layout(
    gray: np.ndarray,
    dpi: float,
    engine: OcrEngine,
    statements: tuple[Statement, ...] = STANDARD_STATEMENTS,
) -> _Layout:
    """The page turned so that the table's titles read: as cleaned and upside down (the more
    likely of the two first), then on the other side. The first orientation whose header row
    maps Date and Signature wins; failing that, the one that mapped the most columns."""
    cleaned = clean_page(gray, dpi)
    tried: list[_Layout] = []
    for quarter_turns in (cleaned.quarter_turns, (cleaned.quarter_turns + 1) % 4):
        if quarter_turns != cleaned.quarter_turns:
            cleaned = clean_page(gray, dpi, quarter_turns=quarter_turns)
        first = _bottom_heavy(cleaned.binary)
        for flipped in (first, not first):
            page = _flip(cleaned) if flipped else cleaned
            tried.append(_try_layout(page, dpi, engine, flipped, statements))
            if _good(tried[-1]):
                return tried[-1]
    best = max(tried, key=_score)
    engine.set_page(best.ocr_gray, dpi)
    return best


# ---------------------------------------------------------------------------------------------
# Rows
# ---------------------------------------------------------------------------------------------


def _read_cell(
    name: str, rect: tuple[int, int, int, int], layout: _Layout, engine: OcrEngine, dpi: float
) -> Field:

    x0, y0, x1, y1 = rect
    box = _box(x0, y0, x1, y1, dpi)
    ink = measure_ink(layout.ink[y0:y1, x0:x1], dpi)
    if not ink.present:
        return Field(name, "", round(ink.confidence, 3), Source.OCR, box)
    if name == "signature" and layout.columns.has("name"):
        # Signed or not is the ink's call; with a printed-name column the signature's text is
        # not needed (the matcher reads the name), so it is not OCR'd.
        return Field(name, SIGNED_PLACEHOLDER, round(ink.confidence, 3), Source.OCR, box)
    psm, whitelist = CELL_SETTINGS.get(name, (Psm.SINGLE_LINE, ""))
    assert ink.bbox is not None
    read_rect = cells.ink_rect(rect, ink.bbox, dpi)
    ix0, iy0, ix1, iy1 = ink.bbox
    ink_gray = layout.ocr_gray[y0 + iy0 : y0 + iy1, x0 + ix0 : x0 + ix1]
    if name in LATTICE_FIELDS and isinstance(engine, ChoiceOcrEngine):
        first = engine.read_choices(read_rect, psm, whitelist)  # type: ignore[attr-defined]
    else:
        first = engine.read(read_rect, psm, whitelist)
    raw, conf, seen = cells.reread(engine, name, ink_gray, dpi, first)
    text = _clean_text(raw)
    if not whitelist:
        text = _fix_il(text, name in CAPITALIZED_FIELDS)
    if name in cells.WORD_FIELDS:
        text = cells.block_capitals_to_title(text)
    if name == "name" and raw == first.text:  # the first read's word boxes are this text's
        text, conf = cells.count_suffix_strokes(text, conf, first.words, layout.ink, name)
    if name == "signature":
        # Signed or not is the ink's call; the text is kept when OCR could read it (and what
        # tesseract saw of it, for the closed-world stage to read the name).
        return Field(
            name,
            text or SIGNED_PLACEHOLDER,
            round(ink.confidence, 3),
            Source.OCR,
            box,
            seen if text else (),
        )
    conf = conf if text else 0.0  # ink that reads as nothing: unreadable
    # What tesseract saw is kept for the closed-world stage when the reading is unsure, and
    # for a residence however sure (one that writes no address of the town's is checked
    # against them: `closedworld.resolve._read_surely`).
    lattices = seen if conf < threshold_for(name) or name == "residence" else ()
    # and what the project's recognizer sees of it: of a ward's or district's number even
    # when tesseract saw nothing in its ink (a lone stroke, a "1", it often reads as nothing)
    unsure = bool(lattices) or (name in cells.DIGIT_FIELDS and conf < threshold_for(name))
    frames = cells.recognized(name, ink_gray) if unsure else ()
    return Field(name, text, round(conf, 3), Source.OCR, box, lattices, frames=frames)


def _read_signature_residence(
    rect: tuple[int, int, int, int], layout: _Layout, engine: OcrEngine, dpi: float
) -> tuple[Field, Field]:
    """A combined "Signature and Residence" cell: the signature written above, the residence
    printed below it. Its lowest text line is read as the residence, the ink above it is the
    signature. One line alone is the residence when it reads as one (a house number and a
    street: the signature is then in doubt) and the signature otherwise (the residence is
    then unread): either way the line goes to a person."""
    x0, y0, x1, y1 = rect
    box = _box(x0, y0, x1, y1, dpi)
    ink = measure_ink(layout.ink[y0:y1, x0:x1], dpi)
    if not ink.present:
        empty = round(ink.confidence, 3)
        return (
            Field("signature", "", empty, Source.OCR, box),
            Field("residence", "", empty, Source.OCR, box),
        )
    runs = inked_lines(layout.ink[y0:y1, x0:x1], dpi)
    a, b = runs[-1] if runs else (0, y1 - y0)
    pad = int(dpi * 0.02)
    low = (x0, max(y0, y0 + a - pad), x1, min(y1, y0 + b + pad))
    residence = _read_cell("residence", low, layout, engine, dpi)
    above = measure_ink(layout.ink[y0 : low[1], x0:x1], dpi) if len(runs) >= 2 else None
    if above is not None and above.present:
        return Field(
            "signature", SIGNED_PLACEHOLDER, round(above.confidence, 3), Source.OCR, box
        ), residence
    if _ADDRESS_START.match(residence.text):
        return Field("signature", "", 0.5, Source.OCR, box), residence
    unread = Field("residence", "", 0.0, Source.OCR, residence.box)
    return Field("signature", SIGNED_PLACEHOLDER, round(ink.confidence, 3), Source.OCR, box), unread


_ADDRESS_START = re.compile(r"^\d+[A-Za-z]?\s+[A-Za-z]")


def _joined_residence(parts: Sequence[Field]) -> Field:
    """A residence printed in two columns (street and number, then town) as one field for
    matching: "12 Elm St, Maplewood", as sure as its least sure part. A town with no street
    is no residence."""
    street = parts[0]
    if street.empty:
        return Field("residence", "", street.confidence, Source.OCR, street.box)
    texts = [p.text for p in parts if p.text]
    boxes = [p.box for p in parts if p.box is not None]
    box = None
    if boxes:
        box = Box(
            min(b.x0 for b in boxes),
            min(b.top for b in boxes),
            max(b.x1 for b in boxes),
            max(b.bottom for b in boxes),
        )
    conf = min(p.confidence for p in parts if p.text)
    return Field("residence", ", ".join(texts), round(conf, 3), Source.OCR, box)


def _line_fields(layout: _Layout, row: int, engine: OcrEngine, dpi: float) -> tuple[Field, ...]:
    """One row's fields in column order, a split residence joined where its street is."""
    grid = layout.grid
    assert grid is not None
    fields: list[Field] = []
    residence: list[Field] = []
    at = None
    for col, kind in enumerate(layout.columns.kinds):
        if kind is None or kind == LINE_NO:
            continue
        rect = _inset(grid, row, col, dpi)
        if kind == SIGNATURE_RESIDENCE:
            sig, res = _read_signature_residence(rect, layout, engine, dpi)
            fields += [sig, res]
        elif kind in ("residence", STREET, TOWN):
            residence.append(_read_cell("residence", rect, layout, engine, dpi))
            at = len(fields) if at is None else at
            if kind == TOWN and len(residence) == 1:  # a town before its street
                residence.append(residence.pop())
        else:
            fields.append(_read_cell(kind, rect, layout, engine, dpi))
    if residence:
        fields.insert(
            at or 0, residence[0] if len(residence) == 1 else _joined_residence(residence)
        )
    return tuple(fields)


def _numbering_doubts(layout: _Layout, engine: OcrEngine, dpi: float) -> list[str]:
    """A printed line-number column checks the rows found: every row has its number, and each
    reads as its row's (the rows are numbered from 1; "95" for row 9 does). A number read
    surely that disagrees is a doubt; so are NUMBERS_OFF or more that disagree by one shift,
    read however unsurely (a lost rule the grid spread the rows over: rows 10 and 11 of 11
    found numbered 11 and 12). A number no row of the table could be printed with (0, or
    further from its row than the table has rows: "1527" read from a speckled "12.") is a
    misread, and unsure misreads that follow no one shift ("8" for 11, "5" for 7) say nothing
    of the rows."""
    grid = layout.grid
    assert grid is not None
    if LINE_NO not in layout.columns.kinds:
        return []
    col = layout.columns.kinds.index(LINE_NO)
    rows = range(1, len(grid.ys) - 1)
    unnumbered = []
    for row in rows:
        x0, y0, x1, y1 = _inset(grid, row, col, dpi)
        if not measure_ink(layout.ink[y0:y1, x0:x1], dpi).present:
            unnumbered.append(row)
    if unnumbered:
        return [f"rows {', '.join(map(str, unnumbered))} have no printed line number"]
    off: dict[int, tuple[str, float]] = {}
    for row in rows:
        x0, y0, x1, y1 = _inset(grid, row, col, dpi)
        read = engine.read((x0, y0, x1 - x0, y1 - y0), Psm.SINGLE_LINE, DIGITS)
        text = read.text.strip().rstrip(".")
        # a number read as nothing ("1." often is) says nothing, and one read as the row's
        # with more after it ("95" for "9.": its full stop, or a stroke beside it, read as a
        # digit) agrees with it
        if (
            text.isdigit()
            and not text.lstrip("0").startswith(str(row))
            and 1 <= int(text) <= row + len(rows)
        ):
            off[row] = (text, read.confidence)
    sure = [row for row, (_, conf) in off.items() if conf >= NUMBER_SURE]
    if sure:
        return [f"row {sure[0]} is numbered {off[sure[0]][0]} on the sheet, not {sure[0]}"]
    shifts = Counter(int(text) - row for row, (text, _) in off.items())
    if shifts and max(shifts.values()) >= NUMBERS_OFF:
        said = ", ".join(f"{row} as {text}" for row, (text, _) in off.items())
        return [f"the line numbers do not follow the rows found: rows {said}"]
    return []


NUMBER_SURE = 0.8  # a printed line number read this surely contradicts the rows found
# As many line numbers read, however unsurely, that are not their rows' by one shift contradict
# them too (one alone may be a misread: "7" for a blurred "1.").
NUMBERS_OFF = 2
# The page's own evidence of a row below the last one found is looked for this many rows
# (the usual row height) below it.
ROWS_BELOW_REACH = 1.25


def _rows_below(
    layout: _Layout,
    engine: OcrEngine,
    dpi: float,
    statements: tuple[Statement, ...] = STANDARD_STATEMENTS,
) -> list[str]:
    """The page's own evidence of table rows below the last row found (a faint or broken last
    rule, a table cut short): the column rules run on below it; a rule across the table's
    width lies a row's height below it (unless what lies there reads as the statement's
    wording: the foot of its first line's letters passes for a thin rule); the line-number
    column has a number below it (ink within it that does not read as words alone: the first
    word of the statement's first line, "I,", is none; nor is ink that begins with a letter
    where the band reads as the statement's wording: its heading over an "I," read as "I1.").
    Each is a doubt: the lines not found are not dropped silently."""
    grid = layout.grid
    assert grid is not None
    if len(grid.ys) < 3 or layout.statement_at is not None:
        return []
    pitch = float(np.median(np.diff(grid.ys[1:])))
    horiz, vert = layout.rules
    hgt = horiz.shape[0]
    end = grid.ys[-1]
    top, bottom = end + max(2, int(pitch * 0.2)), min(hgt, end + int(pitch * ROWS_BELOW_REACH))
    if bottom - top < 2:
        return []
    left, right = grid.xs[0], grid.xs[-1]
    doubts = []
    inner = grid.xs[1:-1]
    if grid.method in ("rules", "rules+dashes") and inner:
        band = max(2, int(dpi * 0.02))
        seg = vert[top : min(hgt, end + int(pitch * 0.8))]
        run_on = sum(
            bool(
                (np.count_nonzero(seg[:, max(0, x - band) : x + band + 1], axis=0)).max()
                >= SPAN_ON * seg.shape[0]
            )
            for x in inner
        )
        if seg.shape[0] >= 2 and run_on * 2 > len(inner):
            doubts.append(f"the table's column rules run on below its last row found ({end})")
    below = (left, end + int(pitch * 0.6), right, bottom)
    # whether the band, to the foot of the text line its bottom cuts, reads as the statement's
    # wording: read once, when a doubt asks
    foot = _line_foot(layout.ink, bottom, left, right, dpi)
    statement = cache(
        partial(_statement_in, engine, (left, top, right - left, foot - top), statements)
    )
    if (
        grid.method != "text"
        and rule_across(horiz, layout.cleaned.binary, below, dpi)
        and not statement()
    ):
        doubts.append("a rule across the table lies a row below its last row found")
    if LINE_NO in layout.columns.kinds:
        col = layout.columns.kinds.index(LINE_NO)
        x0, x1 = grid.xs[col], grid.xs[col + 1]
        if _within_column(layout.ink[top:bottom], x0, x1, dpi):
            said = engine.read((x0, top, x1 - x0, bottom - top), Psm.SINGLE_BLOCK).text
            if not _words_alone(said) and not (said.strip()[:1].isalpha() and statement()):
                doubts.append("the line-number column has a number below the last row found")
    return doubts


# A text line cut by a band's bottom ends this far (inches) below it at most.
LINE_FOOT_IN = 0.25

# Two lines of writing stacked in one cell are this tall (inches) each at least, and parted by
# paper this tall at least: a written entry's letters, not a descender or a dot.
STACKED_LINE_IN = 0.07
STACKED_GAP_IN = 0.04
STACKED_WIDE_IN = 0.2  # ... and this wide (specks left aside: a degraded scan's speckle)


def _stacked_rows(layout: _Layout, dpi: float) -> list[str]:
    """Rows whose cells hold two lines of writing, one above the other, in two columns or more
    (a date over a date, a residence over a residence; each line of ink STACKED_LINE_IN tall
    and STACKED_WIDE_IN wide at least): two rows whose rule the scan lost (a
    faint, broken rule), read as one line. A doubt: the sheet goes to a person, the lines are
    not read as one silently. A line of ink touching the cell's top or foot is the row above's
    or below's running over; the signature's cell (a flourish) and a combined signature and
    residence cell (two lines by design) are not counted."""
    grid = layout.grid
    assert grid is not None
    looked = [
        col
        for col, kind in enumerate(layout.columns.kinds)
        if kind not in (None, "signature", SIGNATURE_RESIDENCE)
    ]
    doubts = []
    for row in range(1, len(grid.ys) - 1):
        stacked = 0
        for col in looked:
            x0, y0, x1, y1 = _inset(grid, row, col, dpi)
            cell = without_specks(layout.ink[y0:y1, x0:x1], dpi)
            lines = [
                (a, b)
                for a, b in inked_lines(cell, dpi, STACKED_GAP_IN, STACKED_LINE_IN)
                if a > 0
                and b < cell.shape[0]
                and np.ptp(np.flatnonzero(cell[a:b].any(axis=0))) >= dpi * STACKED_WIDE_IN
            ]
            stacked += len(lines) >= 2
        if stacked >= 2:
            doubts.append(
                f"row {row} holds two lines of writing in {stacked} columns (two rows, a rule"
                " between them lost?)"
            )
    return doubts


# A ruled table's rows are alike: a body row this much shorter than their median is a doubt.
SHORT_ROW = 0.65


def _short_rows(grid: Grid) -> list[str]:
    """Body rows of a ruled table much shorter than the others (SHORT_ROW of their median): a
    row cut in two by a stroke read as a rule (a large hand's baseline) reads one signer's
    line as two, one of them maybe read as signed. A doubt: the sheet goes to a person. A
    table found by its text alone guesses its rows' heights, and is not looked at."""
    if not grid.method.startswith("rules") or len(grid.ys) < 4:
        return []
    heights = np.diff(grid.ys[1:])
    usual = float(np.median(heights))
    return [
        f"row {k + 1} is {h / usual:.0%} as tall as the table's rows (a row cut in two?)"
        for k, h in enumerate(heights)
        if h < SHORT_ROW * usual
    ]


def _line_foot(ink: np.ndarray, y: int, left: int, right: int, dpi: float) -> int:
    """The first row at or below `y` with no ink between `left` and `right` (LINE_FOOT_IN
    below `y` at most): the foot of the text line `y` cuts, so that it is read whole."""
    limit = min(ink.shape[0], y + int(dpi * LINE_FOOT_IN))
    blank = np.flatnonzero(np.count_nonzero(ink[y:limit, left:right], axis=1) == 0)
    return y + int(blank[0]) if blank.size else limit


def _words_alone(text: str) -> bool:
    """Text with letters and no digit: no line number ("I," and "ST", not "7." nor "I7")."""
    return any(ch.isalpha() for ch in text) and not any(ch.isdigit() for ch in text)


def _within_column(ink: np.ndarray, x0: int, x1: int, dpi: float) -> bool:
    """Writing inside the column x0..x1 of a band of the page, words that run on past the
    column's right edge left out (the statement's heading under the table is not a number)."""
    m = max(2, int(round(dpi * CELL_INSET_IN)))
    region = ink[:, x0 + m : min(ink.shape[1], x1 + int(dpi * 0.5))]
    if region.size == 0 or not region.any():
        return False
    words = cv2.dilate(region, np.ones((1, max(3, int(dpi * 0.06))), np.uint8))
    _, labels, stats, _ = cv2.connectedComponentsWithStats(words, connectivity=8)
    inside = stats[:, cv2.CC_STAT_LEFT] + stats[:, cv2.CC_STAT_WIDTH] <= x1 - x0 - 2 * m
    inside[0] = False
    return measure_ink(np.where(inside[labels], region, 0).astype(np.uint8), dpi).present


# Column rules that cover this share of the space below the last row run on into another row.
SPAN_ON = 0.6


def _count_beyond_rows(witness: WitnessStatement, rows: int) -> list[str]:
    """The witness counts more signatures than the table has rows found (blank ones included):
    rows were missed, whatever the count's own finding says of the witness."""
    stated = witness.stated_count_value
    if stated is not None and stated > rows:
        return [f"the statement counts {stated} signatures, more than the {rows} rows found"]
    return []


def _read_rows(
    layout: _Layout, ref: PageRef, engine: OcrEngine, dpi: float, crops_dir: Path | None
) -> tuple[SignatureLine, ...]:
    grid = layout.grid
    assert grid is not None
    lines = []
    for row in range(1, len(grid.ys) - 1):
        fields = _line_fields(layout, row, engine, dpi)
        blank = all(f.empty for f in fields)
        y0, y1 = grid.ys[row], grid.ys[row + 1]
        line_no = row
        crop_path = None
        if crops_dir is not None:
            crop_path = _write_crop(
                layout.cleaned.gray[y0 : y1 + 1, grid.xs[0] : grid.xs[-1] + 1],
                crops_dir,
                f"{ref.page_id}-{line_no:02d}.png",
            )
        lines.append(
            SignatureLine(
                page_id=ref.page_id,
                line_no=line_no,
                fields=fields,
                box=_box(grid.xs[0], y0, grid.xs[-1], y1, dpi),
                blank=blank,
                crop_path=crop_path,
            )
        )
    return tuple(lines)


def _write_crop(img: np.ndarray, crops_dir: Path, name: str) -> str:
    path = crops_dir / name
    if not path.exists():  # named by the page's content hash: the same crop is written once
        crops_dir.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(path), img)
    return str(path)


# ---------------------------------------------------------------------------------------------
# Header, witness statement, sheet number
# ---------------------------------------------------------------------------------------------


def _read_header(ocr: OcrText, dpi: float) -> SheetHeader:
    sp = _Spanned.of(ocr)
    title_m = TITLE.search(sp.text)
    title = _clean_text(title_m.group(0)) if title_m else None
    m = HEADER_VILLAGE.search(sp.text)
    p = PROPOSITION.search(sp.text)
    return SheetHeader(
        title=title or None,
        village=sp.field("village", m, "v", dpi),
        county=sp.field("county", m, "c", dpi),
        proposition=sp.field("proposition", p, "p", dpi),
    )


def _lines_of(words: Sequence[Word]) -> list[list[Word]]:
    lines: dict[int, list[Word]] = {}
    for w in words:
        lines.setdefault(w.line, []).append(w)
    return [sorted(ws, key=lambda w: w.box[0]) for _, ws in sorted(lines.items())]


def _caption_words(line: Sequence[Word]) -> list[str]:
    return [w.text.lower().strip(".,:;()") for w in line]


def _caption_of(line: Sequence[Word]) -> list[Word] | None:
    """The words of the caption under the statement's date and signature blanks, when the
    row of words holds one: "Date ... Signature of Witness", the 2-202 affidavit's "(signature
    of witness)", the notary's "(Signature and official title of officer administering
    oath)" (`forms.SIGNATURE_CAPTIONS`). Its words are found among the row's, so
    that handwriting reaching down into the caption's line, read in among it ("Date
    Signature Srlwby of Witness"), does not hide it. A "Date" before them is part of it."""
    texts = _caption_words(line)
    for caption in SIGNATURE_CAPTIONS:
        want = [t for t in caption.split() if len(t) > CAPTION_SHORT]
        picked = [w for w, t in zip(line, texts, strict=True) if _like_any(t, want)]
        dates = [w for w, t in zip(line, texts, strict=True) if t == "date"]
        dates = [w for w in dates[:1] if picked and w.box[0] < picked[0].box[0]]
        # Some of its words ("Signature of ig 74", "cA of sajay Witness") on a row that is not
        # the statement's heading ("Statement of Witness:").
        heading = any(_like_any(t, ("statement",)) for t in texts)
        if picked and not heading:
            return dates + picked
    return None


def _caption_rows(words: Sequence[Word]) -> list[list[Word]]:
    """The rows of words that may hold the caption, left to right: about each word that reads
    like one of a caption's ("signature", "witness", "official"), the words whose middles lie
    within its height. Rows as the page places
    them, not as OCR numbered its text lines: handwriting above the caption, read in one block
    with it, mixes the two ("Sheet No. 4 Witness")."""
    out = []
    for w in words:
        if _like_any(_caption_words([w])[0], _ANCHORS):
            row = [v for v in words if w.box[1] <= (v.box[1] + v.box[3]) / 2 <= w.box[3]]
            out.append(sorted(row, key=lambda v: v.box[0]))
    return out


# The caption's words are found as OCR reads them: its short words ("of", "and") may be missed,
# its others read this like (rapidfuzz's ratio, 0-100) their printed form ("Wita€ss").
CAPTION_SHORT = 3
CAPTION_LIKE = 70
_ANCHORS = tuple(t for c in SIGNATURE_CAPTIONS for t in c.split() if len(t) > CAPTION_SHORT)


def _like_any(text: str, words: Sequence[str]) -> bool:
    """A word read (casefolded) like one of `words`, all longer than CAPTION_SHORT (the
    statement's own "signatures", in every form's wording, is not its caption's)."""
    return (
        len(text) > CAPTION_SHORT
        and text != "signatures"
        and any(fuzz.ratio(text, w) >= CAPTION_LIKE for w in words)
    )


# A blank of the statement read from the page (`_read_blank`): its field's name, its rectangle
# (x0, y0, x1, y1, page pixels), the boxes of printed words reaching into it (not part of it)
# and the words OCR read in it.
BlankReader = Callable[[str, tuple[int, int, int, int], Sequence[Rect], Sequence[Word]], Field]
# A printed word whose top lies above a blank's band and whose foot reaches no further than
# this (inches) into it is a line of the statement above the blank, not the blank's writing.
PRINTED_REACH_IN = 0.15


def _caption_fields(
    words: Sequence[Word], dpi: float, page_width: int, read_blank: BlankReader | None = None
) -> tuple[Field | None, Field | None]:
    """The date and signature: what lies just above the caption line (the date left of the
    signature's caption; a "Date:" label and the 2-202 jurat's line, read apart, are not
    part of them). With `read_blank`, each blank is read from the page's ink (a handwritten
    date and a signature read poorly as text in the block, or not at all); else from the
    block's words."""
    lines = _lines_of(words)
    for row in reversed(_caption_rows(words)):  # the lowest: the statement's wording is above
        caption = _caption_of(row)
        if caption is None:
            continue
        texts = _caption_words(caption)
        sig_cap = caption[1 if texts[0] == "date" else 0]  # the signature's (or its first)
        date_cap = caption[0] if texts[0] == "date" else None
        cap_top = min(w.box[1] for w in caption)
        reach = dpi * CAPTION_REACH_IN
        jurat_lines = {ln[0].line for ln in lines if "sworn to" in " ".join(_caption_words(ln))}
        above = [
            w
            for w in words
            if cap_top - reach <= w.box[1] < cap_top - 2
            and w not in row
            and w.line not in jurat_lines
        ]
        split = (sig_cap.box[0] + (date_cap.box[2] if date_cap else 0)) / 2
        if date_cap is None:
            split = min(split, page_width / 2)
        labels = [w for w in above if w.text.lower().startswith("date")]
        date_words = [w for w in above if w.box[2] <= split and w not in labels]
        sig_words = [w for w in above if w.box[0] > split]
        if read_blank is not None:
            top, bottom = int(cap_top - reach), int(cap_top - 2)
            printed = [
                w.box
                for w in words
                if w.line in jurat_lines
                or w in labels
                or (w.box[1] < top and w.box[3] < top + dpi * PRINTED_REACH_IN)
            ]
            masks = [(x0, y0, x1 - x0, y1 - y0) for x0, y0, x1, y1 in printed]
            left = max((w.box[2] for w in labels if w.box[2] <= split), default=0)
            return (
                read_blank("date", (left, top, int(split), bottom), masks, date_words),
                read_blank("signature", (int(split), top, page_width, bottom), masks, sig_words),
            )

        def field(name: str, ws: list[Word]) -> Field:
            ws = sorted(ws, key=lambda w: w.box[0])
            text = _clean_text(" ".join(w.text for w in ws))
            conf = _mean_conf(ws) if text else 1.0
            return Field(name, text, round(conf, 3), Source.OCR, _words_box(ws, dpi))

        return field("date", date_words), field("signature", sig_words)
    return None, None


# A printed blank's leader, left when nothing is written on it: dots no larger than this
# (inches) in a row, a rule no thinner than this long.
LEADER_DOT_IN = 0.03
LEADER_RULE_IN = 0.3


def _pen_strokes(ink: np.ndarray, dpi: float) -> np.ndarray:
    """A blank's ink without its printed leader ("..........", "________"): what a pen put
    there."""
    n, labels, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    width, height = stats[1:, cv2.CC_STAT_WIDTH], stats[1:, cv2.CC_STAT_HEIGHT]
    dot, thin = max(2, dpi * LEADER_DOT_IN), max(2, dpi * RULE_BAND_IN)
    leader = ((width <= dot) & (height <= dot)) | (
        (height <= thin) & (width >= dpi * LEADER_RULE_IN)
    )
    keep = np.concatenate(([False], ~leader))
    return np.where(keep[labels], ink, 0).astype(np.uint8)


def _read_blank(
    name: str,
    rect: tuple[int, int, int, int],
    masks: Sequence[Rect],
    words: Sequence[Word],
    *,
    layout: _Layout,
    engine: OcrEngine,
    dpi: float,
) -> Field:
    """A handwritten blank of the statement (its date, its signature) read from the page's
    ink, printed words reaching into it (`masks`) left out: no ink is an empty blank, for
    sure; a signature's ink is its signing (its confidence the ink test's, as a line's), the
    text OCR read in it (`words`) kept; a date's ink is read as a date cell is, with its
    re-reads and, sure or not, what the recognizer saw, so the closed-world stage can read
    it among the dates it can be (`pipeline.closedworld`)."""
    hgt, wid = layout.ink.shape
    x0, y0 = max(0, rect[0]), max(0, rect[1])
    x1, y1 = min(wid, rect[2]), min(hgt, rect[3])
    box = _box(x0, y0, max(x0, x1), max(y0, y1), dpi)
    if x1 - x0 < 2 or y1 - y0 < 2:
        return Field(name, "", 1.0, Source.OCR, box)
    ink = layout.ink[y0:y1, x0:x1].copy()
    gray = layout.ocr_gray[y0:y1, x0:x1].copy()
    pad = max(1, int(dpi * 0.01))
    for mx, my, mw, mh in masks:
        a, b = max(0, mx - x0 - pad), max(0, my - y0 - pad)
        ink[b : max(b, my + mh - y0 + pad), a : max(a, mx + mw - x0 + pad)] = 0
        gray[b : max(b, my + mh - y0 + pad), a : max(a, mx + mw - x0 + pad)] = 255
    found = measure_ink(_pen_strokes(ink, dpi), dpi)
    if not found.present or found.bbox is None:
        return Field(name, "", round(found.confidence, 3), Source.OCR, box)
    ix0, iy0, ix1, iy1 = found.bbox
    box = _box(x0 + ix0, y0 + iy0, x0 + ix1, y0 + iy1, dpi)
    if name == "signature":
        said = _clean_text(" ".join(w.text for w in sorted(words, key=lambda w: w.box[0])))
        return Field(name, said or SIGNED_PLACEHOLDER, round(found.confidence, 3), Source.OCR, box)
    crop = gray[iy0:iy1, ix0:ix1]
    if not isinstance(engine, ImageOcrEngine):
        said = _clean_text(" ".join(w.text for w in sorted(words, key=lambda w: w.box[0])))
        return Field(name, said, round(_mean_conf(words), 3) if said else 0.0, Source.OCR, box)
    psm, whitelist = CELL_SETTINGS[name]
    image = np.pad(crop, cells.PAD_PX, constant_values=255)
    if isinstance(engine, ChoiceOcrEngine):
        first = engine.read_image_choices(image, dpi, psm, whitelist)
    else:
        first = engine.read_image(image, dpi, psm, whitelist)
    raw, conf, seen = cells.reread(engine, name, crop, dpi, first)
    text = _clean_text(raw)
    conf = conf if text else 0.0  # ink that reads as nothing: unreadable
    # What the recognizer saw is kept even when it was sure: the closed world reads the date
    # with the sheet's lines, whatever tesseract's confidence ("october 3" for October 8 at
    # 0.86 on the held-out fonts).
    # The project's recognizer reads it too when tesseract is unsure of it, as a line's date.
    frames = cells.recognized(name, crop) if seen and conf < threshold_for(name) else ()
    return Field(name, text, round(conf, 3), Source.OCR, box, seen, frames=frames)


def _jurat_date(sp: _Spanned, jurat: re.Pattern[str], dpi: float) -> Field | None:
    """A statement dated by its jurat (2-202's affidavit): "Sworn to before me This 1st day of
    October, 2026" -> "October 1, 2026" (as the text-layer reader gives it)."""
    m = jurat.search(sp.text)
    if m is None:
        return None
    words = sp.words_in(m.start(), m.end())
    text = f"{m['m']} {m['d']}, {m['y']}"
    return Field("date", text, round(_mean_conf(words), 3), Source.OCR, _words_box(words, dpi))


def _read_witness(
    ocr: OcrText,
    dpi: float,
    page_width: int,
    read_blank: BlankReader | None = None,
    statements: Sequence[Statement] = STANDARD_STATEMENTS,
) -> WitnessStatement | None:
    """The statement below the table (one of `statements`), its printed blanks picked out by
    its wording, its date and signature above their caption (`_caption_fields`; from the
    page's ink with `read_blank`), or by its jurat."""
    sp = _Spanned.of(ocr)
    found = statement_form(sp.text, statements)
    if found is None:
        return None
    statement, start, end = found
    body = sp.text[end:]

    def grab(patterns: re.Pattern[str] | tuple[re.Pattern[str], ...], name: str) -> Field | None:
        for pattern in patterns if isinstance(patterns, tuple) else (patterns,):
            m = pattern.search(body)
            if m:
                return sp.field(name, m, "x", dpi, offset=end)
        return None

    words_after = [w for a, _, w in sp.spans if a >= start]
    date_f, sig_f = _caption_fields(words_after, dpi, page_width, read_blank)
    if statement.jurat is not None:
        date_f = _jurat_date(sp, statement.jurat, dpi) or date_f
    return WitnessStatement(
        form=statement.form,
        witness_name=grab(statement.names, "witness_name"),
        residence=grab(statement.residences, "residence"),
        village=grab(VILLAGES, "village"),
        county=grab(COUNTIES, "county"),
        stated_count=grab(statement.counts, "stated_count"),
        date=date_f,
        signature=sig_f,
        box=_words_box(words_after, dpi),
    )


def _read_sheet_number(
    ocr: OcrText, dpi: float, read_ink: NumberReader | None, lowest: bool = True
) -> Field | None:
    """The sheet's number by its caption among the words ("Sheet No. 3", "Page No. 3", "Page 3
    of 5", "Sheet #3": `sheetno.find_captions`), where the words sit rather than how OCR
    lined them up: at the foot, the lowest caption; at the top (`lowest` False), the first.

    With `read_ink` the number is read again from the page's ink, digits only, its
    characters' alternatives kept for the case's closed world (`pipeline.closedworld.sheetno`);
    when the reads differ ("5" and "9"), the number was written into the caption's blank or
    stands taller than its printed words (written by hand: tesseract reads a written 3 as "5"
    at 0.86 all three ways), or only a caption was found with something like a number after
    it ("Sheet No. b"), the
    field's confidence is put below the review threshold: a person reads it (or the closed
    world, surely). Nothing is taken for a number silently. The field's text is the caption
    and the number ("Page No. 5"): `Sheet.sheet_number_value` reads its digits."""
    captions = find_captions(ocr.words, dpi)
    if not captions:
        return None
    caption = (max if lowest else min)(captions, key=lambda c: c.words[0].box[1])
    return _number_field(caption, dpi, read_ink)


def _number_field(caption: Caption, dpi: float, read_ink: NumberReader | None) -> Field:
    """The sheet-number field of a caption (`_read_sheet_number`)."""
    words = [*caption.words, *caption.number]
    said = number_text(caption)
    lookalike = said != caption.said.strip("_.:,")
    conf = _mean_conf(words) if said else 0.0
    sure = bool(said) and said.isdigit() and not lookalike
    sure = sure and not caption.blank and not caption.written
    lattices: tuple[Lattice, ...] = ()
    frames: tuple[tuple[float, ...], ...] = ()
    read = read_ink(caption) if read_ink is not None else None
    if read is not None:
        sure = sure and read.digits == said
        if not any(ch.isdigit() for ch in said):
            said = read.digits  # the number was not read with its caption ("dof 8": "4 of 8")
        conf, lattices, frames = read.confidence, read.lattices, read.frames
    digits = "".join(ch for ch in said if ch.isdigit())
    if not sure:
        conf = min(conf, UNSURE_NUMBER)
    if conf >= threshold_for("sheet_number"):
        frames = ()  # read surely: the recognizer's evidence is kept only for a doubt
    box = _words_box(words, dpi)
    text = f"{caption.label} {digits}".strip()
    if caption.of is not None and caption.of_confidence >= threshold_for("sheet_number"):
        text += f" of {caption.of}"  # the case's range (`pipeline.closedworld.sheetno`)
    return Field("sheet_number", text, round(conf, 3), Source.OCR, box, lattices, frames=frames)


UNSURE_NUMBER = 0.5  # a sheet number's confidence when it was not read for sure


# ---------------------------------------------------------------------------------------------
# The page
# ---------------------------------------------------------------------------------------------


def _header_done(ocr: OcrText) -> bool:
    """The header has been read as far as its blanks go: the title, the village and county,
    the proposition (9-902(8)); the lines after them are not read."""
    text = ocr.text
    return all(p.search(text) for p in (TITLE, HEADER_VILLAGE, PROPOSITION))


def _statement_done(ocr: OcrText, statements: Sequence[Statement] = STANDARD_STATEMENTS) -> bool:
    """The witness's (or notary's) statement has been read to its stated count, its last
    blank: what follows is fixed wording down to the date and signature, which are read from
    the foot up. The 2-202 affidavit's jurat follows its count: it is read whole."""
    text = ocr.text
    found = statement_form(text, statements)
    if found is None or found[0].jurat is not None:
        return False
    return any(p.search(text, found[2]) for p in found[0].counts)


def _is_caption(words: Sequence[Word]) -> bool:
    """The caption under the witness's date and signature blanks, as `_caption_fields` finds
    it (another caption, a notary's, does not stop the reading: the lines above it are read)."""
    text = " ".join(_caption_words(words))
    return "signature" in text and "witness" in text


def _read_block(
    page: BlockPage,
    ink: np.ndarray,
    rect: Rect | None,
    dpi: float,
    statements: Sequence[Statement] | None,
) -> OcrText:
    """The header (`statements` None) or the text below the table, where one of `statements`
    is looked for, read a text line at a time and only as far as its blanks go
    (`blocks.read_lines`)."""
    if rect is None:
        return OcrText(())
    lines = text_lines(ink, rect, dpi)
    pieces = partial(line_pieces, ink, dpi=dpi)
    if statements is None:
        return read_lines(page, lines, _header_done, pieces=pieces)
    done = partial(_statement_done, statements=statements)
    parts = partial(touching_parts, ink, dpi=dpi)
    return read_lines(page, lines, done, _is_caption, dpi * CAPTION_REACH_IN, pieces, parts)


def _reread(field: Field, page: BlockPage, dpi: float) -> Field:
    """A blank's value read from the image in the box an earlier OCR's layer gave it."""
    assert field.box is not None
    pad = dpi * 0.03
    b = field.box
    x0, y0 = int(b.x0 * dpi / 72 - pad), int(b.top * dpi / 72 - pad)
    x1, y1 = int(b.x1 * dpi / 72 + pad), int(b.bottom * dpi / 72 + pad)
    ocr = page.read((max(0, x0), max(0, y0), x1 - max(0, x0), y1 - max(0, y0)))
    text = _fix_il(
        _clean_text(" ".join(w.text for w in ocr.words)), field.name in CAPITALIZED_FIELDS
    )
    if not field.text.endswith(_TRAILING):  # the box takes in the comma after "Albany"
        text = text.rstrip("".join(_TRAILING))
    return Field(field.name, text, round(_mean_conf(ocr.words), 3), Source.OCR, field.box)


_TRAILING = (",", ".", ";", ":")
# The number of a sheet-number caption, read from the page's ink (`sheetno.read_number`).
NumberReader = Callable[[Caption], NumberRead | None]


def _blocks_from_layer(
    layer: list[LayerWord],
    shape: tuple[int, int],
    layout: _Layout,
    top: int,
    bottom: int,
    page: BlockPage,
    dpi: float,
    statements: Sequence[Statement] = STANDARD_STATEMENTS,
) -> tuple[SheetHeader, Field | None, WitnessStatement | None] | None:
    """The header, the sheet number and the witness's statement as an earlier OCR's text
    layer places them, every blank's value read again from the image (`layer`); None when the
    layer lacks the form's wording or one of its blanks, or a blank reads as nothing where
    the layer put it: the blocks are then read from the image."""
    ocr = on_cleaned_page(layer, dpi, shape, layout.cleaned, layout.flipped)
    above = OcrText(tuple(w for w in ocr.words if w.box[3] <= top))
    below = OcrText(tuple(w for w in ocr.words if w.box[1] >= bottom))
    header = _read_header(above, dpi)
    number = _read_sheet_number(below, dpi, None)
    witness = _read_witness(below, dpi, shape[1], statements=statements)
    if header.title is None or number is None or witness is None or witness.form != WITNESS.form:
        return None
    blanks: dict[str, Field | None] = {
        "header.village": header.village,
        "header.county": header.county,
        "header.proposition": header.proposition,
        "sheet_number": number,
    }
    names = ("witness_name", "residence", "village", "county", "stated_count", "date", "signature")
    blanks.update({name: getattr(witness, name) for name in names})
    if any(f is None or f.empty or f.box is None for f in blanks.values()):
        return None
    read: dict[str, Field] = {}
    for key, f in blanks.items():
        assert f is not None
        read[key] = _reread(f, page, dpi)
        if read[key].empty:
            return None
    header = replace(
        header,
        village=read["header.village"],
        county=read["header.county"],
        proposition=read["header.proposition"],
    )
    witness = replace(
        witness,
        witness_name=read["witness_name"],
        residence=read["residence"],
        village=read["village"],
        county=read["county"],
        stated_count=read["stated_count"],
        date=read["date"],
        signature=read["signature"],
    )
    return header, read["sheet_number"], witness


def _row_doubts(
    layout: _Layout, engine: OcrEngine, dpi: float, statements: tuple[Statement, ...]
) -> list[str]:
    """What the page itself says against the rows found: their printed numbers, a row below
    the last, two lines of writing in one row, a row cut in two."""
    assert layout.grid is not None
    return [
        *_numbering_doubts(layout, engine, dpi),
        *_rows_below(layout, engine, dpi, statements),
        *_stacked_rows(layout, dpi),
        *_short_rows(layout.grid),
    ]


def _on_fainter_rules(
    layout: _Layout, engine: OcrEngine, dpi: float, statements: tuple[Statement, ...]
) -> _Layout | None:
    """The table found again on its rules at the fainter threshold (FAINT_RULE_RATIO), for a
    ruled table whose rows the page contradicts (`_row_doubts`): some of its row rules a light
    grey the scan's blur left past RULE_RATIO, so that rows were merged or the table ended
    early (fresh held-out 1127: 3 rows found of 7, the line numbers 1-7 printed beside them).
    Taken only when it finds more rows, maps the same columns and the page says nothing
    against its rows; otherwise None, and the first reading stands with its doubts (the page
    is set back to it)."""
    first = layout.grid
    assert first is not None
    if not first.method.startswith("rules"):
        return None
    cleaned = layout.cleaned
    faint = rule_masks(binarize(cleaned.gray, FAINT_RULE_RATIO), dpi)
    for found in find_grids(cleaned.binary, dpi, faint):
        for grid in (found, *title_rows_above(faint, found, dpi, cleaned.binary)):
            grid = without_short_foot(grid)
            if len(grid.ys) <= len(first.ys):
                continue
            tried = _layout_for(cleaned, faint, grid, dpi, engine, layout.flipped, statements)
            if (
                tried.grid is not None
                and len(tried.grid.ys) > len(first.ys)
                and tried.columns.kinds == layout.columns.kinds
                and not tried.columns.doubts
                and not _row_doubts(tried, engine, dpi, statements)
            ):
                return tried
    engine.set_page(layout.ocr_gray, dpi)
    return None


# A row added below the last found (`_numbered_rows_below`) ends at a rule across the table
# this near (in rows) to a row's height below its top, or a row's height below it.
RULE_NEAR_ROWS = 0.25


def _numbered_rows_below(
    layout: _Layout, engine: OcrEngine, dpi: float, statements: tuple[Statement, ...]
) -> _Layout | None:
    """The table with the rows below its last row found that the line-number column numbers:
    a row a row's height below (down to a rule across the table near there, else a row's
    height) is added while its line number reads surely as the next (`_line_number_in`), for
    a table whose last rules the scan left too faint to be found (held-out 1123 and 1133: a
    dash-dot rule under the last row, its number 10 or 11 printed beside it). Taken only when
    rows were added and the page then says nothing against the table's rows (`_row_doubts`);
    otherwise None, and the first reading stands with its doubts."""
    grid = layout.grid
    assert grid is not None
    if (
        LINE_NO not in layout.columns.kinds
        or not isinstance(engine, ImageOcrEngine)
        or len(grid.ys) < 3
        or layout.statement_at is not None
    ):
        return None
    col = layout.columns.kinds.index(LINE_NO)
    pitch = float(np.median(np.diff(grid.ys[1:])))
    horiz = layout.rules[0]
    left, right = grid.xs[0], grid.xs[-1]
    across = np.flatnonzero(np.count_nonzero(horiz[:, left:right], axis=1) * 2 >= right - left)
    ys = list(grid.ys)
    while True:
        end = ys[-1]
        near = across[np.abs(across - (end + pitch)) <= pitch * RULE_NEAR_ROWS]
        if near.size:
            foot = int(near[np.argmin(np.abs(near - (end + pitch)))])
        else:
            foot = end + int(round(pitch))
        if foot > horiz.shape[0]:
            break
        read = _line_number_in(layout, engine, dpi, (grid.xs[col], end, grid.xs[col + 1], foot))
        if read is None or read != len(ys) - 1:
            break
        ys.append(foot)
    if len(ys) == len(grid.ys):
        return None
    extended = replace(layout, grid=replace(grid, ys=tuple(ys)))
    return None if _row_doubts(extended, engine, dpi, statements) else extended


def _line_number_in(
    layout: _Layout, engine: ImageOcrEngine, dpi: float, cell: tuple[int, int, int, int]
) -> int | None:
    """The number printed in a line-number cell (x0, y0, x1, y1) found by no rule, when read
    NUMBER_SURE at least; else None. Only the number's ink is read: the cell's unfound rules
    (the column's dotted rules at its edges, a faint rule across at its foot) are left out,
    as a sheet number's blank's rule is (`sheetno.level_runs`)."""
    x0, y0, x1, y1 = cell
    band = max(2, int(dpi * CELL_INSET_IN * 1.25))
    x0, y0, x1, y1 = x0 + band, y0 + band, x1 - band, y1 - band
    if x1 - x0 < 2 or y1 - y0 < 2:
        return None
    strokes = layout.ink[y0:y1, x0:x1].copy()
    strokes[level_runs(layout.ink[y0:y1], x0, x1, dpi)] = 0
    found = measure_ink(strokes, dpi)
    if not found.present or found.bbox is None:
        return None
    crop = layout.ocr_gray[y0:y1, x0:x1].copy()
    crop[strokes == 0] = 255
    ix0, iy0, ix1, iy1 = found.bbox
    image = np.pad(crop[iy0:iy1, ix0:ix1], cells.PAD_PX, constant_values=255)
    read = engine.read_image(image, dpi, Psm.SINGLE_LINE, DIGITS + ".")
    text = read.text.strip().rstrip(".")
    return int(text) if text.isdigit() and read.confidence >= NUMBER_SURE else None


def read_scan(
    gray: np.ndarray,
    dpi: float,
    ref: PageRef,
    context: ReadContext,
    layer: list[LayerWord] | None = None,
) -> Sheet:
    """Read one page image (8-bit grey at `dpi`) into a Sheet with the context's engine;
    `layer`: the words of an earlier OCR's text layer on it, used when good enough
    (`_blocks_from_layer`)."""
    engine = context.engine()
    layout = _upright_layout(gray, dpi, engine, context.statements)
    hgt, wid = layout.ocr_gray.shape
    grid = layout.grid
    lines: tuple[SignatureLine, ...] = ()
    columns: tuple[str, ...] = ()
    doubts: list[str] = []
    if grid is not None and _good(layout):
        rows_doubted = _row_doubts(layout, engine, dpi, context.statements)
        if rows_doubted:
            found = _on_fainter_rules(layout, engine, dpi, context.statements)
            found = found or _numbered_rows_below(layout, engine, dpi, context.statements)
            if found is not None and found.grid is not None:
                layout, grid, rows_doubted = found, found.grid, []
        lines = _read_rows(layout, ref, engine, dpi, context.crops_dir)
        columns = layout.columns.fields
        doubts = [*layout.columns.doubts, *rows_doubted]
        top, bottom = grid.ys[0], grid.ys[-1]
    else:
        log.info("page %s: no signature table could be read", ref.page_id)
        top, bottom = hgt // 3, hgt // 3
    margin = int(dpi * 0.04)
    header_rect = _ink_rect(layout.ink, 0, 0, wid, top - margin, dpi)
    below_rect = _ink_rect(layout.ink, 0, bottom + margin, wid, hgt, dpi)
    page = BlockPage.of(engine, layout.ocr_gray, dpi)
    blocks = None
    if layer and grid is not None:
        blocks = _blocks_from_layer(
            layer, gray.shape, layout, top, bottom, page, dpi, context.statements
        )
    if blocks is None:
        read_number_ink = partial(
            read_number, ink=layout.ink, gray=layout.ocr_gray, engine=engine, dpi=dpi
        )
        header_ocr = _read_block(page, layout.ink, header_rect, dpi, None)
        below = _read_block(page, layout.ink, below_rect, dpi, context.statements)
        blocks = (
            _read_header(header_ocr, dpi),
            _read_sheet_number(below, dpi, read_number_ink)
            or _read_sheet_number(header_ocr, dpi, read_number_ink, lowest=False),
            _read_witness(
                below,
                dpi,
                wid,
                partial(_read_blank, layout=layout, engine=engine, dpi=dpi),
                context.statements,
            ),
        )
    header, sheet_number, witness = blocks
    if lines and witness is not None:
        doubts += _count_beyond_rows(witness, len(lines))
    return Sheet(
        page=ref,
        header=header,
        lines=lines,
        sheet_number=sheet_number,
        witness=witness,
        columns=columns,
        layout_doubts=tuple(doubts),
    )


def read_image_page(ref: PageRef, context: ReadContext) -> Sheet:
    """Read one scanned page (an image file's page or an image-only PDF page) into a Sheet.

    Raises UnreadableInputError when the file cannot be opened; a page without a readable
    table is a Sheet with no lines (the judge reports SHEET_NOT_READ)."""
    page = load_page_image(ref)
    if page.identity is not None:  # an image file's page is its pixels (pipeline.ingest)
        ref = replace(ref, content_hash=page.identity)
    layer = layer_words(ref.path, ref.page_index) if ref.kind is PageKind.PDF_OCR else None
    return read_scan(page.gray, page.dpi, ref, context, layer)
