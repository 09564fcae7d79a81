"""The printed text around the signature table, read a text line at a time and only as far as
it is needed.

The header above the table and the statement below it are mostly fixed wording. Tesseract's
time grows with the characters it recognizes, not with the page's size, so the way to spend
less on them is to read less of them: the block is cut into its text lines (runs of inked
rows), the lines are read from the top until the caller has every blank it looks for, then,
for the statement, from the foot up until the caption under the witness's date and signature
and the blanks above it have been read. What lies between (the statement's closing wording,
"I understand that this statement will be accepted ... as if I had been duly sworn") is not
read. When the caller never has what it looks for, every line is read: nothing is lost, only
the time is not saved.

The blocks are printed text, read at BLOCK_DPI at most: 9-13 pt type reads as well at 200 dpi
as at 300, and tesseract's thresholding and layout work cost less. Word boxes come back in
the page's pixels.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from .engine import OcrEngine, OcrText, Psm, Rect, Word

__all__ = [
    "BLOCK_DPI",
    "BlockPage",
    "inked_lines",
    "line_pieces",
    "read_lines",
    "runs_of",
    "text_lines",
    "touching_parts",
    "without_specks",
]

# The printed blocks are read at this resolution at most.
BLOCK_DPI = 200.0
# Inked rows closer than this (inches) are one text line (a dotted i, a comma's tail).
LINE_JOIN_IN = 0.02
# A run of inked rows shorter than this (inches) is a speck or a rule's remnant, not text.
LINE_MIN_IN = 0.04
# A row is inked when it holds at least this much ink (inches along the row).
ROW_INK_IN = 0.01
# A text line is read this far (inches) above and below its ink, within half the gap to its
# neighbours.
LINE_PAD_IN = 0.04
# A run of inked rows no taller than this (inches, padding included) is one line of 9-13 pt
# type and is read in tesseract's single-line mode, which skips its page-layout analysis
# (~7% less time on the blocks); a taller run (two lines touching on a skewed page, a tall
# handwritten blank) is read as a block: forced to one line it reads as noise.
ONE_LINE_MAX_IN = 0.3


@dataclass(frozen=True, slots=True)
class BlockPage:
    """The page handed to the engine for the blocks (scaled down to BLOCK_DPI when finer)."""

    engine: OcrEngine
    scale: float  # block-page pixels per page pixel
    dpi: float  # of the page (not of the block page)

    @classmethod
    def of(cls, engine: OcrEngine, ocr_gray: np.ndarray, dpi: float) -> BlockPage:
        if dpi <= BLOCK_DPI * 1.2:
            engine.set_page(ocr_gray, dpi)
            return cls(engine, 1.0, dpi)
        scale = BLOCK_DPI / dpi
        small = cv2.resize(ocr_gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        engine.set_page(small, BLOCK_DPI)
        return cls(engine, scale, dpi)

    def read(self, rect: Rect, whitelist: str = "") -> OcrText:
        """One rectangle of the page (page pixels) as a block of text (as one line when it is
        one line tall); boxes in page pixels."""
        psm = Psm.SINGLE_LINE if rect[3] <= self.dpi * ONE_LINE_MAX_IN else Psm.SINGLE_BLOCK
        if self.scale == 1.0:
            return self.engine.read(rect, psm, whitelist)
        s = self.scale
        x, y, w, h = (int(round(v * s)) for v in rect)
        read = self.engine.read((x, y, max(1, w), max(1, h)), psm, whitelist)
        return OcrText(
            tuple(
                Word(
                    wd.text,
                    wd.confidence,
                    (
                        int(round(wd.box[0] / s)),
                        int(round(wd.box[1] / s)),
                        int(round(wd.box[2] / s)),
                        int(round(wd.box[3] / s)),
                    ),
                    wd.line,
                )
                for wd in read.words
            )
        )


def runs_of(flags: np.ndarray, join: float = 0.0) -> list[tuple[int, int]]:
    """(start, end) of the runs of True, end exclusive; runs fewer than `join` apart are one."""
    edges = np.flatnonzero(np.diff(np.concatenate(([0], flags.astype(np.int8), [0]))))
    out: list[list[int]] = []
    for a, b in zip(edges[::2].tolist(), edges[1::2].tolist(), strict=True):
        if out and a - out[-1][1] < join:
            out[-1][1] = b
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]


def inked_lines(
    ink: np.ndarray, dpi: float, join_in: float = LINE_JOIN_IN, min_in: float = LINE_MIN_IN
) -> list[tuple[int, int]]:
    """(top, bottom) of the text lines of a binary image (ink 255): runs of rows that hold
    ink, runs closer than `join_in` (inches) joined, shorter than `min_in` dropped."""
    inked = np.count_nonzero(ink, axis=1) >= max(2, dpi * ROW_INK_IN)
    return [(a, b) for a, b in runs_of(inked, dpi * join_in) if b - a >= dpi * min_in]


def text_lines(ink: np.ndarray, rect: Rect, dpi: float) -> list[Rect]:
    """The text lines of a block (x, y, w, h in page pixels), top to bottom: runs of rows of
    the binary page (ink 255) that hold ink. Lines that touch (tight leading, a descender on
    an ascender) stay one piece, which tesseract reads as a block all the same."""
    x, y, w, h = rect
    runs = inked_lines(ink[y : y + h, x : x + w], dpi)
    pad = int(dpi * LINE_PAD_IN)
    out = []
    for k, (a, b) in enumerate(runs):
        top = a - pad if k == 0 else max(a - pad, (runs[k - 1][1] + a) // 2)
        bottom = b + pad if k == len(runs) - 1 else min(b + pad, (b + runs[k + 1][0]) // 2)
        top, bottom = max(0, top), min(h, bottom)
        out.append((x, y + top, w, bottom - top))
    return out


# Ink no bigger than this (inches) either way is a speck.
SPECK_IN = 0.025
# Pieces of a text line closer than this (inches) are one (`line_pieces`).
PIECE_JOIN_IN = 0.3


def without_specks(binary: np.ndarray, dpi: float) -> np.ndarray:
    """The page without its specks (ink no bigger than SPECK_IN either way), which the
    cleaner leaves when they are few: scattered over a column's gap they would close it, and
    one beside the titles would be taken for a title. Dots and full stops go too; only the
    geometry is read from this image."""
    _, labels, stats, _ = cv2.connectedComponentsWithStats(binary, connectivity=8)
    small = np.maximum(stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT]) < dpi * SPECK_IN
    small[0] = False  # the background
    if not small[1:].any():
        return binary
    out = binary.copy()
    out[small[labels]] = 0
    return out


def line_pieces(ink: np.ndarray, rect: Rect, dpi: float) -> list[Rect]:
    """A text line's pieces (x, y, w, h): its letters' ink, specks left out (`without_specks`),
    in runs more than PIECE_JOIN_IN apart, each padded as a line is. A scan's specks strewn
    along a line that holds only a short caption at one end ("Sheet No. 1" at the top right)
    can leave tesseract reading nothing from the whole line; its pieces alone read."""
    x, y, w, h = rect
    letters = without_specks(ink[y : y + h, x : x + w], dpi)
    pad = int(dpi * LINE_PAD_IN)
    return [
        (x + max(0, a - pad), y, min(w, b + pad) - max(0, a - pad), h)
        for a, b in runs_of(np.count_nonzero(letters, axis=0) > 0, dpi * PIECE_JOIN_IN)
    ]


# A row of a text line holding at most this share of the ink of its fullest row is a valley
# between two lines that touch (a signature's descender reaching down through the caption
# under it): the line is parted there (`touching_parts`) when the ink either side of it is
# at least PART_MIN_IN tall, a line of type (the rows above a short word's x-height, a
# capital's and a "t"'s stems alone, are not). A blurred scan's tail through its caption
# (`bench/handwriting.py`, development fonts): 19-24 px of ink a row against 375 in the
# fullest, 5-6%; a line of type's rows above its x-height hold 7% and more, but under
# PART_MIN_IN of them.
VALLEY_SHARE = 0.1
PART_MIN_IN = 0.06


def touching_parts(ink: np.ndarray, rect: Rect, dpi: float) -> list[Rect]:
    """A text line (x, y, w, h) parted at its valleys (VALLEY_SHARE), top to bottom: lines
    that touch, which tesseract may read as one ("Signature of Witness" under a signature
    whose tail runs through it, read as part of the signature's words); [rect] when it has
    no valley with a line's worth of ink either side."""
    x, y, w, h = rect
    counts = np.count_nonzero(without_specks(ink[y : y + h, x : x + w], dpi), axis=1)
    if not counts.any():
        return [rect]
    full = counts > counts.max() * VALLEY_SHARE
    tall = dpi * PART_MIN_IN
    cuts, start = [], 0
    for a, b in runs_of(~full):
        if _extent(full[start:a]) >= tall and _extent(full[b:]) >= tall:
            cut = a + int(np.argmin(counts[a:b]))
            cuts.append(cut)
            start = cut
    edges = [0, *cuts, h]
    return [(x, y + t, w, b - t) for t, b in zip(edges, edges[1:], strict=False) if b > t]


def _extent(flags: np.ndarray) -> int:
    """Rows from the first True to the last (0 when none)."""
    hit = np.flatnonzero(flags)
    return int(hit[-1] - hit[0] + 1) if len(hit) else 0


def _numbered(reads: dict[int, OcrText]) -> OcrText:
    """The lines' reads in page order, their text lines numbered through."""
    words: list[Word] = []
    base = 0
    for k in sorted(reads):
        lines = {w.line for w in reads[k].words}
        renumber = {n: base + i for i, n in enumerate(sorted(lines))}
        words.extend(Word(w.text, w.confidence, w.box, renumber[w.line]) for w in reads[k].words)
        base += len(lines)
    return OcrText(tuple(words))


def _read_line(page: BlockPage, rect: Rect, pieces: Callable[[Rect], list[Rect]] | None) -> OcrText:
    """One text line; read as nothing, its `pieces` one by one (`line_pieces`), as one line."""
    read = page.read(rect)
    if read.words or pieces is None:
        return read
    parts = pieces(rect)
    if not parts or parts == [rect]:
        return read
    words = [w for part in parts for w in page.read(part).words]
    return OcrText(tuple(Word(w.text, w.confidence, w.box, 0) for w in words))


def read_lines(
    page: BlockPage,
    lines: Sequence[Rect],
    head_done: Callable[[OcrText], bool],
    foot_anchor: Callable[[Sequence[Word]], bool] | None = None,
    reach: float = 0.0,
    pieces: Callable[[Rect], list[Rect]] | None = None,
    parts: Callable[[Rect], list[Rect]] | None = None,
) -> OcrText:
    """Read a block's `lines`: from the top until `head_done` (given everything read so far)
    says the rest of the head is not needed; then, with `foot_anchor`, from the bottom up
    until a text line it accepts has been read and every line reaching within `reach` pixels
    above that line's top. Without `foot_anchor` the reading ends with the head. A line read
    as nothing is read again by its `pieces` when given (`line_pieces`); a line of the foot
    read without the anchor, again by its `parts` when given and it has more than one
    (`touching_parts`: the anchor may be a caption a signature's tail joined to it)."""
    reads: dict[int, OcrText] = {}
    top = len(lines)
    for k, rect in enumerate(lines):
        reads[k] = _read_line(page, rect, pieces)
        if head_done(_numbered(reads)):
            top = k + 1
            break
    if foot_anchor is None:
        return _numbered(reads)
    anchor_top: float | None = None
    for k in range(len(lines) - 1, top - 1, -1):
        x, y, w, h = lines[k]
        if anchor_top is not None and y + h < anchor_top - reach:
            break
        reads[k] = _read_line(page, lines[k], pieces)
        if anchor_top is None:
            tops = _anchor_tops(reads[k], foot_anchor)
            split = parts(lines[k]) if parts is not None and not tops else []
            if len(split) > 1:
                again = _numbered({i: _read_line(page, r, pieces) for i, r in enumerate(split)})
                found = _anchor_tops(again, foot_anchor)
                if found:
                    reads[k], tops = again, found
            if tops:
                anchor_top = min(tops)
    return _numbered(reads)


def _anchor_tops(read: OcrText, foot_anchor: Callable[[Sequence[Word]], bool]) -> list[int]:
    """The tops of the text lines of `read` that `foot_anchor` accepts."""
    by_line: dict[int, list[Word]] = {}
    for wd in read.words:
        by_line.setdefault(wd.line, []).append(wd)
    return [min(w.box[1] for w in ws) for ws in by_line.values() if foot_anchor(ws)]
