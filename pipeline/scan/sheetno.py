"""The sheet's number on a scan: its caption found among the words OCR read wherever the page
prints it ("Sheet No. 3", "Page No. 3", "Page 3 of 12", "Sheet # 3", "Petition Sheet 3", at
the top or the foot), and the number read from the page's ink where the caption puts it.

The caption is found by where its words sit, not by OCR's text lines: a caption at the top
of the page is often read in one block with the heading below it, its number on another
"line" ("Page No.\\n5 PETITION ..."). Its words are matched loosely ("Paqe", "Sheel", "N0.",
"#3"), and a caption is taken only when a number mark ("No.", "#", "Number"), a number or
its blank follows the noun, so that the statement's "this petition sheet containing ..." is
not one.

The number's ink is read three ways (as a line and as a word, digits only, and drawn three
times side by side: what tesseract's LSTM reads a lone handwritten digit best from), each
read's characters' alternatives kept (`Field.lattices`) so that the case's closed world
(`pipeline.closedworld.sheetno`) can read the number among the sheets the case has. The
field's confidence here is the reader's alone: below the review threshold whenever the reads
disagree, the number was written into a printed blank, or only a caption was found.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from rapidfuzz import fuzz

from .. import recognizer
from ..records import Lattice
from . import cells
from .engine import (
    DIGITS,
    ChoiceOcrEngine,
    ImageOcrEngine,
    OcrEngine,
    OcrText,
    Psm,
    Word,
    lattice_of,
)
from .ink import measure_ink

__all__ = ["Caption", "NumberRead", "find_captions", "read_number"]

# The caption's noun ("Sheet", "Page") is a word this like it (rapidfuzz's ratio, 0-100):
# "Sheel", "Paqe" are, "Street" (72.7) is not.
NOUNS = {"sheet": 80.0, "page": 75.0}
MARKS = ("no", "number", "nbr", "nr", "#")
_MARK_HEAD = re.compile(r"^(?:no|n0|nº|number|nbr|nr|#)[.:]?", re.I)
# A number as OCR may read it: digits, letters it confuses with them, a printed blank's
# underscores.
_NUMBERISH = re.compile(r"^[_.:]*[0-9lIiOoSsZBb|]{1,3}[_.:,]*$|^_[_.:]*$")
_LOOKALIKES = str.maketrans(
    {"l": "1", "I": "1", "i": "1", "|": "1", "O": "0", "o": "0", "S": "5", "s": "5"}
    | {"Z": "2", "B": "8", "b": "6"}
)
# A word after the blank ("of", "Town"): what OCR makes of a handwritten digit ("_]", ")",
# "_%") is no word, and the number's reach goes on over it.
_WORDLIKE = re.compile(r"[A-Za-z]{2,}")
# "of" in "Page 5 of 6", as OCR reads it too: its "o" as a zero ("50f 6" for "5 of 6")
_OF = ("of", "0f")
# ... read at this confidence at least and no taller than this times the caption: a printed
# word. What OCR makes of a handwritten digit may be letters too ("LU" at 0.07 for a written
# 2; "Vi" at 0.67, twice the caption's height, for an 8), and the blank's reach goes on over it.
PRINTED_WORD = 0.5
PRINTED_HEIGHT = 1.5
# A written number's ink is looked for this far above and below its caption at most (times
# the caption's height).
WRITTEN_REACH = 1.5
ROW_GAP_IN = 0.5  # words further apart than this are not one caption
NUMBER_REACH_IN = 0.9  # the number's blank reaches this far right of its caption at most
RULE_RUN_IN = 0.12  # ink running level this far is a printed blank's rule, not a digit
MARGIN = 0.6  # the white margin round the number's ink, times its height
UNSURE = 0.5  # the reader's confidence in a number it did not read for sure


@dataclass(frozen=True, slots=True)
class Caption:
    """A sheet-number caption on the page: its words, the words OCR read where its number goes,
    where to look for the number's ink (x0, y0, x1, y1, page pixels) and the number of sheets
    it prints ("of 12"), if any."""

    label: str  # "Page No.", "Sheet"
    words: tuple[Word, ...]
    number: tuple[Word, ...]
    said: str  # what OCR read of the number in them ("5", "__4__", "b")
    rect: tuple[int, int, int, int]
    of: int | None
    blank: bool  # the number's blank is printed ("Sheet No. ____"): it was written in
    of_confidence: float = 0.0  # OCR's confidence in the number of sheets
    # the number OCR read stands taller than printed words beside the caption
    # (PRINTED_HEIGHT): written by hand
    written: bool = False


@dataclass(frozen=True, slots=True)
class NumberRead:
    """The number's digits as the reader reads them ("" when it read none), its confidence,
    what tesseract saw (`Field.lattices`; a tiled read's lattice says the number three times)
    and what the project's recognizer saw of the same ink (`Field.frames`; () without its
    weights)."""

    digits: str
    confidence: float
    lattices: tuple[Lattice, ...]
    frames: recognizer.Frames = ()


def _norm(text: str) -> str:
    return text.lower().strip(".,:;()[]'\"")


_LETTERS = re.compile(r"^[(\[]?([A-Za-z]+)")


def _noun(text: str) -> tuple[str, bool] | None:
    """The caption noun the word begins with ("Sheet#3" -> "sheet") and whether a number mark
    is glued to it ("SheetNo."), or None."""
    m = _LETTERS.match(text)
    t = m.group(1).lower() if m else ""
    for noun, like in NOUNS.items():
        for mark in ("number", "no", ""):  # a glued mark first: "sheetno" is like "sheet" too
            if mark and not t.endswith(mark):
                continue
            head = t[: len(t) - len(mark)]
            if len(head) >= len(noun) - 1 and fuzz.ratio(head, noun) >= like:
                return noun, bool(mark)
    return None


def _on_row(anchor: Word, words: Sequence[Word]) -> list[Word]:
    """The words on `anchor`'s row: their middles within its height (and a third more)."""
    h = anchor.box[3] - anchor.box[1]
    lo, hi = anchor.box[1] - 0.3 * h, anchor.box[3] + 0.3 * h
    return [w for w in words if lo <= (w.box[1] + w.box[3]) / 2 <= hi]


def _row_after(anchor: Word, words: Sequence[Word], dpi: float) -> list[Word]:
    """The words to the right of `anchor` on its row (their middles within its height), up to
    the first gap wider than ROW_GAP_IN."""
    on_row = _on_row(anchor, words)
    # by where they start (a degraded page's word boxes may overlap their neighbours')
    right = sorted((w for w in on_row if w.box[0] > anchor.box[0]), key=lambda w: w.box[0])
    out: list[Word] = []
    edge = anchor.box[2]
    for w in right:
        if w is anchor or w.box[0] - edge > dpi * ROW_GAP_IN:
            if w is not anchor:
                break
            continue
        out.append(w)
        edge = w.box[2]
    return out


def _split_mark(text: str) -> tuple[str, str]:
    """A token's number mark and what follows it: "No.5" -> ("No.", "5"), "#" -> ("#", "")."""
    m = _MARK_HEAD.match(text)
    return (m.group(0), text[m.end() :]) if m else ("", text)


def _after(w: Word, chars: int) -> tuple[int, int]:
    """The x extent of a word past its first `chars` characters (a glued "No.5", "Page5")."""
    x0, x1 = w.box[0], w.box[2]
    return x0 + (x1 - x0) * chars // max(1, len(w.text)), x1


def find_captions(words: Sequence[Word], dpi: float) -> list[Caption]:
    """Every sheet-number caption among the words, in the order of the words; where there is
    none, a caption noun standing alone on its row (`_alone`: "Petition Sheet" and no word
    after it, a number written into its blank that OCR saw nothing of or read as a mark, "\\"
    for a 1), its number looked for in the blank's reach and read from the ink."""
    out: list[Caption] = []
    alone: list[Caption] = []
    for anchor in words:
        found = _noun(anchor.text)
        if found is None:
            continue
        noun, glued = found
        row = _row_after(anchor, words, dpi)
        # (word, its part that may be the number, the x where that part starts)
        head = _LETTERS.match(anchor.text).end()  # type: ignore[union-attr]
        parts: list[tuple[Word, str, int]] = []
        # where the anchor's own rest may begin: a number written into the blank and read in
        # one word with the caption ("sheetNo._§" for "Sheet No. 8") lies in it. A place by
        # the share of the word's characters errs to the right there (the written digit and
        # the blank are wider than printed letters): a character back, into the mark's last
        # letter at most (its dot is too small to count as ink, `ink.measure_ink`)
        rest_x: int | None = None
        if anchor.text[head:].strip(".:"):
            parts.append((anchor, anchor.text[head:], _after(anchor, head)[0]))
            rest_x = _after(anchor, head - 1)[0]
        parts += [(w, w.text, w.box[0]) for w in row]
        marked = glued
        x0 = anchor.box[2] + 1
        if parts and not glued:
            mark, rest = _split_mark(parts[0][1])
            if mark:
                marked = True
                w = parts[0][0]
                x0 = _after(w, w.text.find(mark) + len(mark))[0] if rest else w.box[2] + 1
                if w is anchor and not rest:
                    # the anchor's rest is its mark alone ("Sheet#"): the number is after the
                    # word, and looking from the noun's last letter on takes the mark's ink
                    # in with it ("#" read as "f4": a written 1 read as 4)
                    rest_x = None
                parts = ([(w, rest, x0)] if rest else []) + parts[1:]
        number: list[Word] = []
        said = ""
        of = None
        of_conf = 0.0
        of_x: int | None = None  # where "of" begins, when the number ran into it ("4of")
        for k, (w, text, _) in enumerate(parts):
            t = _norm(text)
            after = parts[k + 1][1].strip("_.:,") if k + 1 < len(parts) else ""
            if t in _OF or (t.endswith(_OF) and len(t) <= 5 and after.isdigit()):
                of = int(after) if after.isdigit() else None
                of_conf = parts[k + 1][0].confidence if of is not None else 0.0
                if t not in _OF:
                    of_x = _after(w, len(text.rstrip(".,:")) - 2)[0]
                    number.append(w)
                    said += t[:-2]
                    x0 = min(x0, parts[k][2])
                break
            if not _NUMBERISH.match(text) or len(number) >= 2:
                break
            number.append(w)
            said += text
            x0 = min(x0, parts[k][2])
        real = any(ch.isdigit() for ch in said)
        if not real and rest_x is not None:
            x0 = min(x0, rest_x)  # the number is looked for from the anchor's rest on
        blank = any("_" in text for _, text, _ in parts[:3])
        lone = not any(_WORDLIKE.search(t) for _, t, _ in parts) and _alone(anchor, words, dpi)
        if not (marked or real or (number and blank) or of is not None or lone):
            continue  # "this petition sheet containing ...", "Page is": not a caption
        h = anchor.box[3] - anchor.box[1]
        y0, y1 = int(anchor.box[1] - 0.6 * h), int(anchor.box[3] + 0.4 * h)
        if of_x is not None:
            x1 = of_x
        elif real:
            x1 = max(w.box[2] for w in number) + int(dpi * 0.05)
        else:  # a blank, or nothing read: the number is looked for in the blank's reach
            x1 = x0 + int(dpi * NUMBER_REACH_IN)
            beyond = [
                w
                for w in row
                if w not in number
                and w.box[0] > x0 + int(dpi * 0.1)
                and _WORDLIKE.search(w.text)
                and _printed(w, h)
            ]
            if beyond:
                x1 = min(x1, beyond[0].box[0] - 1)
        # a written number reaches above and below its printed caption: as far as the words
        # OCR read in its reach go ("Vi" for a written 8), within WRITTEN_REACH of its height
        top, foot = int(anchor.box[1] - WRITTEN_REACH * h), int(anchor.box[3] + WRITTEN_REACH * h)
        for w in row:
            if w.box[0] < x1 and w.box[2] > x0:
                y0 = min(y0, max(top, w.box[1] - int(0.1 * h)))
                y1 = max(y1, min(foot, w.box[3] + int(0.1 * h)))
        label = noun.capitalize() + (" No." if marked else "")
        rect = (x0, y0, x1, y1)
        written = any(w is not anchor and _tall(w, h) for w in number)
        caption = Caption(label, (anchor,), tuple(number), said, rect, of, blank, of_conf, written)
        (alone if lone and not marked else out).append(caption)
    return out or alone


# What may stand before a caption's noun on its row: "Petition Sheet".
_BEFORE_NOUN = ("petition",)


def _alone(anchor: Word, words: Sequence[Word], dpi: float) -> bool:
    """Whether a caption noun stands alone on its row: no word after it within ROW_GAP_IN (the
    caller's `_row_after`), and before it at most a word like "Petition" with nothing before
    that within the gap. Prose that ends a line with "sheet" ("... this petition sheet") has
    words before it."""
    left = sorted(
        (w for w in _on_row(anchor, words) if w.box[2] <= anchor.box[0]), key=lambda w: -w.box[2]
    )
    gap = dpi * ROW_GAP_IN
    edge, before = anchor.box[0], []
    for w in left:
        if edge - w.box[2] > gap:
            break
        before.append(w)
        edge = w.box[0]
    return not before or (
        len(before) == 1 and any(fuzz.ratio(_norm(before[0].text), w) >= 80 for w in _BEFORE_NOUN)
    )


def _tall(word: Word, caption_height: int) -> bool:
    """Whether a word stands taller than printed words beside the caption (PRINTED_HEIGHT)."""
    return word.box[3] - word.box[1] > PRINTED_HEIGHT * caption_height


def _printed(word: Word, caption_height: int) -> bool:
    """Whether a word on the caption's row reads as printed (PRINTED_WORD, PRINTED_HEIGHT)."""
    return word.confidence >= PRINTED_WORD and not _tall(word, caption_height)


def number_text(caption: Caption) -> str:
    """The number OCR read after the caption, letters it confuses with digits mapped."""
    return caption.said.translate(_LOOKALIKES).strip("_.:,")


def read_number(
    caption: Caption, ink: np.ndarray, gray: np.ndarray, engine: OcrEngine, dpi: float
) -> NumberRead | None:
    """The number's ink where the caption puts it, read (`NumberRead`); None when there is no
    ink there (an empty blank) or the engine reads no images of its own."""
    hgt, wid = ink.shape
    x0, y0, x1, y1 = caption.rect
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(wid, x1), min(hgt, y1)
    if x1 - x0 < 2 or y1 - y0 < 2 or not isinstance(engine, ImageOcrEngine):
        return None
    strokes = ink[y0:y1, x0:x1].copy()
    rule = level_runs(ink[y0:y1], x0, x1, dpi)
    strokes[rule] = 0
    found = measure_ink(strokes, dpi)
    if not found.present or found.bbox is None:
        return None
    ix0, iy0, ix1, iy1 = found.bbox
    crop = gray[y0:y1, x0:x1].copy()
    crop[rule] = 255
    crop = crop[iy0:iy1, ix0:ix1]
    # a margin about as wide as the number is tall: a lone handwritten digit is read in it
    image = np.pad(crop, max(cells.PAD_PX, int(crop.shape[0] * MARGIN)), constant_values=255)
    reads = [_read(engine, image, dpi, psm) for psm in (Psm.SINGLE_LINE, Psm.SINGLE_WORD)]
    tiled = _read(engine, cells.tile(crop), dpi, Psm.SINGLE_LINE)
    lattices = tuple(lattice_of(r) for r in (*reads, tiled))
    if isinstance(engine, ChoiceOcrEngine) and any(lattices):
        # a read that saw nothing in the ink is evidence too: the number is hard to read (the
        # closed world averages the reads' costs, so one read's guess counts for less)
        lattices = tuple(
            lat for lat, r in zip(lattices, (*reads, tiled), strict=True) if lat or not r.words
        )
    else:
        lattices = tuple(lat for lat in lattices if lat)
    digits = [_digits(r.text) for r in reads]
    again = cells.untile(tiled.text)
    best = max(reads, key=lambda r: r.confidence)
    text = _digits(best.text) or again
    sure = bool(text) and all(d == text for d in digits) and again in ("", text)
    conf = best.confidence if sure else min(best.confidence, UNSURE)
    return NumberRead(text, round(conf, 3), lattices, recognizer.frames_of(crop))


def level_runs(band: np.ndarray, x0: int, x1: int, dpi: float) -> np.ndarray:
    """The pixels of the number's rect (`x0..x1` of the page's rows `band`) that lie on ink
    running level RULE_RUN_IN or more, or beside it: a printed blank's rule or leaders, no
    part of the number. Runs are measured on the page, past the rect's edges: a blank's rule
    that begins before the rect is whole, and a digit's bar that an edge touches (a "4" the
    rect begins at) is no longer than it is."""
    run = max(3, int(dpi * RULE_RUN_IN))
    a, b = max(0, x0 - run), min(band.shape[1], x1 + run)
    level = cv2.morphologyEx(
        band[:, a:b],
        cv2.MORPH_OPEN,
        np.ones((1, run), np.uint8),
        borderType=cv2.BORDER_CONSTANT,
        borderValue=0,
    )
    return (cv2.dilate(level, np.ones((3, 3), np.uint8)) > 0)[:, x0 - a : x1 - a]


def _read(engine: ImageOcrEngine, image: np.ndarray, dpi: float, psm: Psm) -> OcrText:
    if isinstance(engine, ChoiceOcrEngine):
        return engine.read_image_choices(image, dpi, psm, DIGITS)
    return engine.read_image(image, dpi, psm, DIGITS)


def _digits(text: str) -> str:
    return "".join(ch for ch in text if ch.isdigit())
