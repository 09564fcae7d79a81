"""Reading one cell of the signature table: where its ink is, and the re-reads of a cell the
first read is unsure of.

Every cell is read once, as one text line, over its ink plus a margin. When that read's
confidence is below the level at which the field would go to review anyway
(`pipeline.rules.reading.threshold_for`), the cell is read again in a way that suits its field;
printed cells are nearly always sure, so they cost no second read. A re-read that wins keeps
its confidence below the review threshold (RE_READ_CAP): it improves the text the matcher and
the reviewer see, and the line still goes to a person.

Measured on the handwriting-font cells of the scanned corpus of `bench/accuracy.py --cases 2
--seed 1` (clean and degraded scans, 1,008 cells), CER date / name / residence / district:

- tesseract's LSTM alone (`engine`) instead of LSTM + legacy: 45/55/44/49% -> 42/44/41/65%;
- names, residences and dates re-read deslanted (the shear that makes the ink's columns most
  uneven, `slant`), as a line and as one "word" (PSM 8), keeping the most confident read;
  a ward or district number (one or two digits: an LSTM line that short often reads as
  nothing) drawn three times side by side and read as a line (`tile`): -> 36/35/25/40%;
- names and residences written in block capitals given in title case, the form the register
  uses ("ODETTE C DOVECOTE" -> "Odette C Dovecote"; Roman numerals and compass points stay):
  -> 36/26/20/40%.

Tried and dropped (no gain or worse): upscaling the crop (x1.5-x3), downscaling (x0.5: a point
better for names, worse for dates and digits), white padding of the first read, Otsu
binarization of the already clean grey, dilating thin strokes, PSM 8 or 13 as the first read
(a stray quote before printed names), re-reading undeslanted as one word (the deslanted reads
do better), deslanting digits before tiling (worse), re-reading dates with digits only or
preferring a re-read that parses as a date (under a point), switching the dictionaries off
(no change under the LSTM).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

import cv2
import numpy as np

from .. import recognizer
from ..records import Lattice
from ..rules.reading import threshold_for
from .engine import (
    DIGITS,
    ChoiceOcrEngine,
    ImageOcrEngine,
    OcrEngine,
    OcrText,
    Psm,
    Rect,
    Word,
    lattice_of,
)

__all__ = [
    "RE_READ_CAP",
    "TILES",
    "WORD_FIELDS",
    "block_capitals_to_title",
    "count_suffix_strokes",
    "ink_rect",
    "recognized",
    "reread",
    "shear",
    "slant",
    "tile",
    "untile",
]

# Margin (inches) kept around a cell's ink for the read.
INK_MARGIN_IN = 0.03
# Copies of a short number drawn side by side for the digits' re-read, and the gap between them
# as a share of the digits' height.
TILES = 3
TILE_GAP = 0.6
WORD_FIELDS = frozenset({"name", "residence"})
# Fields re-read deslanted, as a line and as one "word", with their whitelists. A date's
# re-reads use none: tesseract's alternatives then tell the closed-world stage more (on the
# development fonts' unsure dates, the day read right 66% of the time against 59% with the
# date characters' whitelist; bench/handwriting.py's corpus, 145 dates).
RESLANTED: dict[str, str] = {"name": "", "residence": "", "date": ""}
# A re-read's confidence stays this far below the field's review threshold: the first read was
# unsure, and the best of several reads overstates how sure it is (on the handwriting-font
# cells, 15 of the 17 residences re-read at 0.80 or more were wrong). So a re-read improves the
# text the matcher and the reviewer see, and the line still goes to a person.
RE_READ_CAP = 0.01
# White margin (pixels) around a composed image.
PAD_PX = 8
DIGIT_FIELDS = frozenset({"ward", "election_district"})
# Slopes tried when deslanting (right-leaning writing is positive), the smallest first so that
# a tie keeps the writing as it is.
SLANTS = tuple(sorted((round(float(s), 2) for s in np.linspace(-0.2, 0.7, 19)), key=abs))
# Words kept in capitals when a field written in block capitals is put in title case.
KEEP_CAPS = frozenset({"II", "III", "IV", "N", "S", "E", "W", "NE", "NW", "SE", "SW"})


def count_suffix_strokes(
    text: str, conf: float, words: Sequence[Word], ink: np.ndarray, name: str
) -> tuple[str, float]:
    """A name ending in a generational suffix of I's ("II", "III"), its I's counted in the ink.

    In sans-serif print the strokes stand so close that tesseract drops one at a confidence
    it trusts ("Oakhurst II" for "III" at 0.84-0.90: the scan benchmark's only unflagged name
    errors, 3 of 2,400 fields). The suffix's word box is cut from the binary page (`ink`, the
    engine's page geometry) and its upright strokes counted: columns inked over most of the
    box's height, in runs. When the count differs from the reading, the count is written and
    the field stays below its review threshold for a person to confirm; a count that is not
    two or three (strokes run together under blur) only lowers the confidence."""
    tokens = text.split(" ")
    if len(tokens) < 2 or tokens[-1] not in ("II", "III") or not words:
        return text, conf
    last = words[-1]
    if not re.fullmatch(r"[Il1|]{2,3}", last.text):
        return text, conf
    x0, y0, x1, y1 = last.box
    crop = ink[max(0, y0) : y1, max(0, x0) : x1]
    if crop.size == 0:
        return text, conf
    tall = np.count_nonzero(crop, axis=0) >= 0.6 * crop.shape[0]
    strokes = int(np.count_nonzero(np.diff(np.concatenate(([0], tall.astype(np.int8)))) == 1))
    if strokes == len(tokens[-1]):
        return text, conf
    unsure = min(conf, threshold_for(name) - RE_READ_CAP)
    if strokes in (2, 3):
        return " ".join([*tokens[:-1], "I" * strokes]), unsure
    return text, unsure


def ink_rect(cell: Rect, ink_bbox: tuple[int, int, int, int], dpi: float) -> Rect:
    """The inked part of a cell (x0, y0, x1, y1 on the page) with a margin, clipped to the cell,
    as (x, y, width, height): less for tesseract to look at than the whole cell."""
    x0, y0, x1, y1 = cell
    m = max(2, int(dpi * INK_MARGIN_IN))
    bx0, by0 = max(x0, x0 + ink_bbox[0] - m), max(y0, y0 + ink_bbox[1] - m)
    bx1, by1 = min(x1, x0 + ink_bbox[2] + m), min(y1, y0 + ink_bbox[3] + m)
    return bx0, by0, bx1 - bx0, by1 - by0


def block_capitals_to_title(text: str) -> str:
    """A name or address written in block capitals, in title case ("SILAS ELDERBERRY JR" ->
    "Silas Elderberry Jr"); text with small letters in most words is left as read."""
    words = text.split(" ")
    letters = [c for c in text if c.isalpha()]
    if len(letters) < 3 or sum(c.isupper() for c in letters) < 0.75 * len(letters):
        return text
    return " ".join(w if w in KEEP_CAPS else _title_word(w) for w in words)


def _title_word(word: str) -> str:
    return "-".join(p[:1] + p[1:].lower() for p in word.split("-"))


def tile(crop: np.ndarray, copies: int = TILES) -> np.ndarray:
    """The ink of a short number drawn `copies` times side by side on white, with a margin: a
    line long enough for tesseract's LSTM to read."""
    hgt = crop.shape[0]
    gap = np.full((hgt, max(2, int(hgt * TILE_GAP))), 255, np.uint8)
    parts: list[np.ndarray] = []
    for k in range(copies):
        parts += [crop, gap] if k < copies - 1 else [crop]
    row = np.hstack(parts)
    pad = max(4, hgt // 3)
    return np.pad(row, pad, constant_values=255)


def untile(text: str, copies: int = TILES) -> str:
    """The number read from a tiled image when it read the same `copies` times, else ""."""
    joined = "".join(text.split())
    if not joined or len(joined) % copies:
        return ""
    one = joined[: len(joined) // copies]
    return one if joined == one * copies else ""


def _digits_by_vote(text: str) -> tuple[str, float]:
    """For a tiled read that is not the same value three times: the commonest digit, with the
    share of the read it makes up (a confidence factor)."""
    joined = "".join(text.split())
    if not joined:
        return "", 0.0
    digit, count = Counter(joined).most_common(1)[0]
    return digit, count / len(joined)


def reread(
    engine: OcrEngine,
    name: str,
    ink: np.ndarray,
    dpi: float,
    first: OcrText,
) -> tuple[str, float, tuple[Lattice, ...]]:
    """The cell's text and confidence: the first read's, or, when that read is unsure and the
    field has re-reads, the most confident of them all, with its confidence kept below the
    field's review threshold (see RE_READ_CAP). `ink` is the grey image of the cell's ink
    alone (no margin), from which the re-reads compose their images. Also what the reads saw
    (their lattices, for the closed-world stage) when the engine gives characters'
    alternatives and the reading stays unsure: the first read's, then the re-reads'."""
    threshold = threshold_for(name)
    if first.confidence >= threshold or not isinstance(engine, ImageOcrEngine):
        return first.text, first.confidence, _lattices(first)
    if name in DIGIT_FIELDS:
        digits, share, tiled = _reread_digits(engine, ink, dpi)
        reads = [(digits, share)]
        seen = _lattices(first) + _lattices(tiled)
    elif name in RESLANTED:
        upright = np.pad(shear(ink, slant(ink)), PAD_PX, constant_values=255)
        again = [_read_image(engine, upright, dpi, psm, RESLANTED[name]) for psm in RESLANT_PSMS]
        reads = [(a.text, a.confidence) for a in again]
        seen = tuple(lat for read in (first, *again) for lat in _lattices(read))
    else:
        return first.text, first.confidence, _lattices(first)
    text, conf = max(reads, key=lambda r: r[1])
    # A lone digit is what the first read does worst: the tiled read wins whenever it read one.
    better = conf > first.confidence or name in DIGIT_FIELDS
    if not text.strip() or not better:
        return first.text, first.confidence, seen
    return text, min(conf, threshold - RE_READ_CAP), seen


RESLANT_PSMS = (Psm.SINGLE_LINE, Psm.SINGLE_WORD)


# Fields the project's own recognizer reads too (`pipeline.recognizer`), when unsure.
RECOGNIZED = frozenset({"date", *DIGIT_FIELDS})


def recognized(name: str, ink: np.ndarray) -> recognizer.Frames:
    """What the project's recognizer sees of an unsure cell's ink (`Field.frames`), for the
    fields it reads (RECOGNIZED); () for the others."""
    return recognizer.frames_of(ink) if name in RECOGNIZED else ()


def _read_image(
    engine: ImageOcrEngine, image: np.ndarray, dpi: float, psm: Psm, wl: str
) -> OcrText:
    if isinstance(engine, ChoiceOcrEngine):
        return engine.read_image_choices(image, dpi, psm, wl)
    return engine.read_image(image, dpi, psm, wl)


def _lattices(read: OcrText) -> tuple[Lattice, ...]:
    lattice = lattice_of(read)
    return (lattice,) if lattice else ()


def _reread_digits(
    engine: ImageOcrEngine, ink: np.ndarray, dpi: float
) -> tuple[str, float, OcrText]:
    """The digits drawn three times and read as one line: the value when all three agree,
    else the commonest digit with its share of the read as a confidence factor; and the read."""
    tiled = _read_image(engine, tile(ink), dpi, Psm.SINGLE_LINE, DIGITS)
    value = untile(tiled.text)
    if value:
        return value, tiled.confidence, tiled
    digit, share = _digits_by_vote(tiled.text)
    return digit, tiled.confidence * share, tiled


def shear(gray: np.ndarray, slope: float) -> np.ndarray:
    """The image sheared so that a stroke leaning right by `slope` (pixels across per pixel up)
    stands upright: each row moves right by slope x its depth below the top row."""
    hgt, wid = gray.shape
    shift = slope * (hgt - 1)
    offset = max(0.0, -shift)
    matrix = np.array([[1.0, slope, offset], [0.0, 1.0, 0.0]], np.float32)
    out_w = wid + int(np.ceil(abs(shift)))
    out = cv2.warpAffine(gray, matrix, (out_w, hgt), flags=cv2.INTER_LINEAR, borderValue=255)
    return np.asarray(out, np.uint8)


def slant(gray: np.ndarray) -> float:
    """The slope of the writing's strokes: the shear that makes the columns of ink the most
    uneven (upright strokes pile their ink into few columns)."""
    ink = np.where(gray < 128, 0, 255).astype(np.uint8)
    best, best_slope = -1.0, 0.0
    for slope in SLANTS:
        cols = (shear(ink, slope) < 128).sum(axis=0).astype(np.float64)
        score = float((cols**2).sum())
        if score > best:
            best, best_slope = score, float(slope)
    return best_slope
