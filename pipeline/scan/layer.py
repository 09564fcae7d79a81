"""An earlier OCR's text layer on a scanned PDF page (a scanner's "searchable PDF", ocrmypdf):
its words placed on the page as the scan reader turned and deskewed it.

Someone else's OCR has no confidences to go by, so the reader uses it only for what it is good
at and only where it is good: the printed wording around the table, whose reading costs most
of a sheet's OCR (the header and the statement: ~0.3 s of ~0.7 s). The layer tells where the
blanks are; each blank's value is then read from the image by tesseract, in its box, with its
confidence. The layer is good enough when it holds the form's wording and every blank the
reader looks for; a layer that misses one (an earlier OCR often skips handwriting) is not used
and the blocks are read from the image as for any scan. The signature lines are always read
from the image.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pdfplumber

from .clean import Cleaned
from .engine import OcrText, Word

__all__ = ["LayerWord", "layer_words", "on_cleaned_page"]

# (text, x0, top, x1, bottom) in PDF points from the page's top-left corner.
LayerWord = tuple[str, float, float, float, float]


def layer_words(path: str | Path, page_index: int) -> list[LayerWord]:
    """The words of a PDF page's text layer. An OCR layer places each word by itself, often
    with no space character between them, so letters join a word only when they touch (a
    1-point tolerance, not pdfplumber's 3: a word space at 8-10 pt is 2-3 points)."""
    with pdfplumber.open(path) as pdf:
        page = pdf.pages[page_index]
        try:
            words = page.extract_words(x_tolerance=1.0, keep_blank_chars=False)
        finally:
            page.close()
    return [(w["text"], w["x0"], w["top"], w["x1"], w["bottom"]) for w in words]


def _to_cleaned(
    points: np.ndarray, shape: tuple[int, int], cleaned: Cleaned, flipped: bool
) -> np.ndarray:
    """Points (x, y) of the page as rendered mapped onto the cleaned page: a photographed
    sheet's rectification, the quarter turns, the deskew about the centre, then the half turn
    of an upside-down page, as `clean_page` and the reader applied them to the image."""
    hgt, wid = shape
    turns = (cleaned.quarter_turns - (2 if flipped else 0)) % 4
    if cleaned.warp is not None and cleaned.warped is not None:
        points = cv2.perspectiveTransform(
            points.reshape(-1, 1, 2).astype(np.float64), cleaned.warp
        ).reshape(-1, 2)
        hgt, wid = cleaned.warped
    x, y = points[:, 0].astype(float), points[:, 1].astype(float)
    for _ in range(turns):  # one counter-clockwise quarter turn: (x, y) -> (y, W - 1 - x)
        x, y = y, wid - 1 - x
        hgt, wid = wid, hgt
    if abs(cleaned.skew) >= 0.01:
        m = cv2.getRotationMatrix2D((wid / 2, hgt / 2), cleaned.skew, 1.0)
        x, y = m[0, 0] * x + m[0, 1] * y + m[0, 2], m[1, 0] * x + m[1, 1] * y + m[1, 2]
    if flipped:
        x, y = wid - 1 - x, hgt - 1 - y
    return np.stack([x, y], axis=1)


def on_cleaned_page(
    words: list[LayerWord], dpi: float, shape: tuple[int, int], cleaned: Cleaned, flipped: bool
) -> OcrText:
    """The layer's words as OCR text on the cleaned page (boxes in its pixels, confidence 1.0:
    they only place things; values are read again from the image), numbered into text lines
    by their vertical overlap, top to bottom and left to right."""
    if not words:
        return OcrText(())
    scale = dpi / 72.0
    corners = (
        np.array(
            [(x, y) for _, x0, t, x1, b in words for x, y in ((x0, t), (x1, t), (x0, b), (x1, b))]
        )
        * scale
    )
    mapped = _to_cleaned(corners, shape, cleaned, flipped).reshape(len(words), 4, 2)
    boxes = [
        (int(c[:, 0].min()), int(c[:, 1].min()), int(c[:, 0].max()), int(c[:, 1].max()))
        for c in mapped
    ]
    order = sorted(range(len(words)), key=lambda k: ((boxes[k][1] + boxes[k][3]) / 2, boxes[k][0]))
    out: list[Word] = []
    line, line_mid, line_half = -1, -1e9, 0.0
    for k in order:
        x0, y0, x1, y1 = boxes[k]
        mid = (y0 + y1) / 2
        if abs(mid - line_mid) > max(line_half, (y1 - y0) / 2):
            line, line_mid, line_half = line + 1, mid, (y1 - y0) / 2
        out.append(Word(words[k][0], 1.0, boxes[k], line))
    out.sort(key=lambda w: (w.line, w.box[0]))
    return OcrText(tuple(out))
