"""Synthetic training crops for the recognizer: dates (in the ways people write them) and
short numbers, drawn in the development handwriting fonts (synth.handwriting.DEV_FONTS) less
the calibration ones, Google Fonts' training faces (synth.handwriting.TRAINING_FONTS: 26
hands), a script face and every other print family on the machine, a character
at a time as a hand writes (size, width, tilt, spacing, a wandering baseline), slanted, redrawn
with another pen (finer, broader, a broad nib), warped, now and then in block capitals, and
scanned (tones, blur, noise, binarizing, JPEG, a rule's remnant), cut to their ink as the
reader cuts a cell (`scan.reader`: the grey image of the cell's ink alone). Neither the
held-out handwriting fonts nor the calibration fonts (synth.handwriting.CALIBRATION_FONTS,
on whose writing the recognizer's weight and the dates' thresholds are fitted) are ever drawn
(`fonts` refuses them), so both stay unseen.

Synthetic data only: no real person's writing.
"""

from __future__ import annotations

import datetime as dt
import functools
import random
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ..closedworld.values import date_forms
from .model import encode
from .strokes import Hand, draw

__all__ = [
    "PRINT_FONTS",
    "SCRIPT_FONTS",
    "calibration_fonts",
    "fonts",
    "sample",
    "text_for",
]

FONT_DIR = Path("/usr/share/fonts")
# Ordinary print faces, where the machine has them (a missing one is skipped): every family
# the machine has that is no handwriting font of the benchmarks' (DejaVu, Liberation, Noto,
# and the URW base 35: Gothic, Bookman, C059, P052, Nimbus).
PRINT_FONTS = (
    "truetype/dejavu/DejaVuSans.ttf",
    "truetype/dejavu/DejaVuSans-Oblique.ttf",
    "truetype/dejavu/DejaVuSans-Bold.ttf",
    "truetype/dejavu/DejaVuSansCondensed.ttf",
    "truetype/dejavu/DejaVuSansCondensed-Oblique.ttf",
    "truetype/dejavu/DejaVuSerif.ttf",
    "truetype/dejavu/DejaVuSerif-Italic.ttf",
    "truetype/dejavu/DejaVuSansMono.ttf",
    "truetype/dejavu/DejaVuSans-ExtraLight.ttf",
    "truetype/liberation/LiberationSans-Regular.ttf",
    "truetype/liberation/LiberationSans-Italic.ttf",
    "truetype/liberation/LiberationSerif-Regular.ttf",
    "truetype/liberation/LiberationSerif-Italic.ttf",
    "truetype/liberation/LiberationSansNarrow-Regular.ttf",
    "truetype/liberation/LiberationSansNarrow-Italic.ttf",
    "truetype/liberation/LiberationMono-Regular.ttf",
    "truetype/noto/NotoSansMono-Regular.ttf",
    *(
        f"opentype/urw-base35/{face}.otf"
        for face in (
            "URWGothic-Book",
            "URWGothic-BookOblique",
            "URWGothic-Demi",
            "URWGothic-DemiOblique",
            "URWBookman-Light",
            "URWBookman-LightItalic",
            "URWBookman-Demi",
            "URWBookman-DemiItalic",
            "C059-Roman",
            "C059-Italic",
            "C059-BdIta",
            "P052-Roman",
            "P052-Italic",
            "P052-BoldItalic",
            "NimbusSans-Regular",
            "NimbusSans-Italic",
            "NimbusSans-BoldItalic",
            "NimbusRoman-Italic",
            "NimbusSansNarrow-Oblique",
            "NimbusMonoPS-Italic",
        )
    ),
)
# Script faces among the machine's fonts, drawn as handwriting is (URW Z003, a chancery hand).
SCRIPT_FONTS = ("opentype/urw-base35/Z003-MediumItalic.otf",)
# The share of crops written in block capitals ("OCT 8"), as many people write.
BLOCK_CAPITALS = 0.15
# Of every crop, this share in a handwriting or script font (the rest in print).
HAND_SHARE = 0.6
# Of every crop, this share with its digits and marks drawn from strokes (`strokes`: the forms
# hands give them that the fonts lack), whatever its font.
STROKE_SHARE = 0.35


def fonts() -> tuple[list[Path], list[Path]]:
    """The training fonts found here: the development handwriting fonts less the calibration
    ones, with the script faces; and the print fonts. Neither a held-out font nor a
    calibration font is ever among them."""
    from synth.handwriting import (
        CALIBRATION_FONTS,
        DEV_FONTS,
        HELD_OUT_FONTS,
        TRAINING_FONTS,
        font_path,
    )

    kept = [f for f in DEV_FONTS + TRAINING_FONTS if f not in CALIBRATION_FONTS]
    hand = [p for p in map(font_path, kept) if p is not None]
    hand += [FONT_DIR / f for f in SCRIPT_FONTS if (FONT_DIR / f).is_file()]
    unseen = CALIBRATION_FONTS + HELD_OUT_FONTS
    barred = {p.name for p in map(font_path, unseen) if p is not None}
    prints = [FONT_DIR / f for f in PRINT_FONTS if (FONT_DIR / f).is_file()]
    assert not barred & {p.name for p in hand + prints}, "a held-out or calibration font"
    return hand, prints


def calibration_fonts() -> list[Path]:
    """The calibration fonts' files found here (synth.handwriting.CALIBRATION_FONTS: never
    trained on, `fonts`)."""
    from synth.handwriting import CALIBRATION_FONTS, font_path

    return [p for p in map(font_path, CALIBRATION_FONTS) if p is not None]


def text_for(rng: random.Random) -> str:
    """A date in one of the ways it is written (`closedworld.values.date_forms`: every form
    the closed world scores), now and then a short number (a sheet number, a count)."""
    if rng.random() < 0.12:
        return str(rng.choice([rng.randint(1, 9), rng.randint(1, 30), rng.randint(1, 150)]))
    day = dt.date(2015, 1, 1) + dt.timedelta(days=rng.randrange(365 * 16))
    text = rng.choice(date_forms(day))
    if rng.random() < 0.1:  # no space after a comma, or two spaces
        text = text.replace(", ", rng.choice([",", ",  "]))
    if rng.random() < BLOCK_CAPITALS:
        text = text.upper()
    return text


def _render(rng: random.Random, text: str, font: Path, pen: Hand | None = None) -> np.ndarray:
    """`text` drawn a character at a time, as a hand writes it: each character's size, width,
    tilt and spacing jittered, the baseline wandering smoothly (a slow wave and a drift), ink
    255 on 0, at about 48 px a line, loosely cropped. With a `pen` (a writer's
    `strokes.Hand`), its digits and marks are drawn from strokes in its forms, the letters in
    the font."""
    size = rng.randrange(40, 57, 4)
    width = int(size * (len(text) + 4) * 1.2)
    img = np.zeros((size * 3, width), np.uint8)
    x, base = size * 0.5, size * 1.9
    spacing = rng.uniform(-0.06, 0.14) * size
    wide = rng.uniform(0.8, 1.25)  # the hand's width
    tilt = rng.uniform(0, 7)  # each character's tilt, degrees
    wave, period = rng.uniform(0, 0.08) * size, rng.uniform(2.0, 6.0) * size
    phase, drift = rng.uniform(0, 2 * np.pi), rng.uniform(-0.06, 0.06)
    jitter = rng.uniform(0, 0.04) * size
    for ch in text:
        if ch == " ":
            x += _face(font, size).getlength(" ") + rng.uniform(0.1, 0.5) * size
            continue
        f = _face(font, max(12, int(size * rng.uniform(0.88, 1.08))))
        y = base + wave * np.sin(phase + x / period) + drift * x + rng.uniform(-jitter, jitter)
        drawn = None if pen is None else draw(rng, pen, ch, size * rng.uniform(0.62, 0.76))
        if drawn is not None:
            g, ox, oy, advance = drawn
            _stamp(img, g, int(x + ox), int(y + oy))
            x += advance + spacing
            continue
        glyph = _glyph(f, ch, wide * rng.uniform(0.9, 1.1), rng.uniform(-tilt, tilt))
        if glyph is None:
            continue
        g, ox, oy = glyph
        if not _stamp(img, g, int(x + ox), int(y + oy)):
            continue
        x += f.getlength(ch) * wide + spacing
    return img


def _stamp(img: np.ndarray, ink: np.ndarray, x0: int, y0: int) -> bool:
    """The ink laid on `img` with its top left at (x0, y0); False (nothing laid) where it
    would not fit."""
    h, w = ink.shape
    if x0 < 0 or y0 < 0 or y0 + h > img.shape[0] or x0 + w > img.shape[1]:
        return False
    np.maximum(img[y0 : y0 + h, x0 : x0 + w], ink, out=img[y0 : y0 + h, x0 : x0 + w])
    return True


def _glyph(
    face: ImageFont.FreeTypeFont, ch: str, wide: float, degrees: float
) -> tuple[np.ndarray, float, float] | None:
    """One character's ink (255 on 0) stretched `wide` across and turned `degrees`, with the
    offset of its box from the pen's position on the baseline."""
    left, top, right, bottom = face.getbbox(ch, anchor="ls")
    if right <= left or bottom <= top:
        return None
    pad = 4
    im = Image.new("L", (int(right - left) + 2 * pad, int(bottom - top) + 2 * pad), 0)
    ImageDraw.Draw(im).text((pad - left, pad - top), ch, fill=255, font=face, anchor="ls")
    g = np.asarray(im)
    h, w = g.shape
    g = cv2.resize(g, (max(2, int(round(w * wide))), h), interpolation=cv2.INTER_LINEAR)
    h, w = g.shape
    rot = cv2.getRotationMatrix2D((w / 2, h / 2), degrees, 1.0)
    g = cv2.warpAffine(g, rot, (w, h))
    return g, (left - pad) * wide, float(top - pad)


def _pen(rng: random.Random, ink: np.ndarray, size: float) -> np.ndarray:
    """The strokes redrawn with another pen: thinned or thickened by a round tip, or drawn
    with a broad nib at an angle (thick one way, thin the other), or kept."""
    kind = rng.random()
    if kind < 0.3:
        return ink
    if kind < 0.8:  # a round tip, finer or broader
        r = rng.choice([-3, -2, -1, 1, 2, 3, 4])
        disk = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (abs(r) + 1, abs(r) + 1))
        out = cv2.dilate(ink, disk) if r > 0 else cv2.erode(ink, disk)
        return out if out.any() else ink
    # a broad nib: thin the strokes, then draw them with a short line at an angle
    thin = cv2.erode(ink, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
    thin = thin if thin.any() else ink
    n = max(3, int(size * rng.uniform(0.06, 0.14)))
    nib = np.zeros((n, n), np.uint8)
    angle = rng.uniform(0, np.pi)
    c = (n - 1) / 2
    dx, dy = c * np.cos(angle), c * np.sin(angle)
    cv2.line(
        nib, (int(round(c - dx)), int(round(c - dy))), (int(round(c + dx)), int(round(c + dy))), 1
    )
    return cv2.dilate(thin, nib)


@functools.lru_cache(maxsize=256)
def _face(font: Path, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(font), size=size)


def _elastic(rng: random.Random, img: np.ndarray) -> np.ndarray:
    """A smooth random displacement of the strokes (a hand's unevenness)."""
    h, w = img.shape
    amp = rng.uniform(0.0, 0.1) * h
    if amp < 0.4:
        return img
    seed = np.random.default_rng(rng.getrandbits(32))
    sigma = rng.uniform(0.12, 0.3) * h
    dx = cv2.GaussianBlur(seed.standard_normal((h, w)).astype(np.float32), (0, 0), sigma)
    dy = cv2.GaussianBlur(seed.standard_normal((h, w)).astype(np.float32), (0, 0), sigma)
    scale = amp / max(1e-6, float(np.abs(dx).max()))
    xs, ys = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
    return cv2.remap(img, xs + dx * scale, ys + dy * scale * 0.7, cv2.INTER_LINEAR)


def sample(
    rng: random.Random,
    hand: Sequence[Path],
    prints: Sequence[Path],
    strokes: float = STROKE_SHARE,
    text: str | None = None,
) -> tuple[np.ndarray, str]:
    """One training crop (grey uint8, ink dark on light) and its label (lowercase): `text`, or
    one of `text_for`'s; `strokes` of them with their digits drawn from strokes (0: the
    fonts' own, as a check on a font's writing draws them)."""
    while text is None or encode(text) is None:
        text = text_for(rng)
    font = rng.choice(list(hand) if rng.random() < HAND_SHARE or not prints else list(prints))
    pen = Hand.drawn(rng) if rng.random() < strokes else None
    ink = _render(rng, text, font, pen)
    # slant (shear), then the pen, then the hand's unevenness
    h, w = ink.shape
    slope = rng.uniform(-0.25, 0.55)
    matrix = np.array([[1, -slope, slope * h * 0.6], [0, 1, 0]], np.float32)
    ink = cv2.warpAffine(ink, matrix, (w + int(abs(slope) * h), h))
    ink = _pen(rng, ink, h / 3)
    if rng.random() < 0.3:  # rotation by a degree or two
        h, w = ink.shape
        rot = cv2.getRotationMatrix2D((w / 2, h / 2), rng.uniform(-3, 3), 1.0)
        ink = cv2.warpAffine(ink, rot, (w, h))
    ys, xs = np.nonzero(ink > 60)
    if not len(ys):
        return sample(rng, hand, prints, strokes, text)
    ink = ink[max(0, ys.min() - 8) : ys.max() + 9, max(0, xs.min() - 8) : xs.max() + 9]
    # to the scan's size: 300 or 200 dpi cells hold ink 20-60 px high
    target = rng.uniform(22, 60) * (ink.shape[0] / max(1, ys.max() - ys.min() + 1))
    scale = target / ink.shape[0]
    ink = cv2.resize(
        ink, (max(8, int(ink.shape[1] * scale)), max(8, int(target))), interpolation=cv2.INTER_AREA
    )
    gray = _scanned(rng, _elastic(rng, ink))
    if np.count_nonzero(gray < 128) < 0.02 * gray.size:  # the ink faded away: draw another
        return sample(rng, hand, prints, strokes, text)
    return _cut(rng, gray), " ".join(text.casefold().split())


def _scanned(rng: random.Random, ink: np.ndarray) -> np.ndarray:
    """The ink as a scan shows it: paper and ink tones, blur, noise, now and then binarized,
    a ruled line's remnant at an edge."""
    a = ink.astype(np.float32) / 255.0
    if rng.random() < 0.5:
        a = np.asarray(cv2.GaussianBlur(a, (0, 0), rng.uniform(0.3, 1.2)))
    paper, dark = rng.uniform(200, 255), rng.uniform(0, 110)
    g = paper - a * (paper - dark)
    if rng.random() < 0.25:  # a remnant of the cell's rule at an edge
        thick = rng.randint(1, 3)
        tone = rng.uniform(0, 150)
        side = rng.randrange(4)
        if side == 0:
            g[:thick, :] = tone
        elif side == 1:
            g[-thick:, :] = tone
        elif side == 2:
            g[:, :thick] = tone
        else:
            g[:, -thick:] = tone
    if rng.random() < 0.6:
        g = g + np.random.default_rng(rng.getrandbits(32)).normal(0, rng.uniform(2, 25), g.shape)
    if rng.random() < 0.15:  # speckle
        seed = np.random.default_rng(rng.getrandbits(32))
        dots = seed.random(g.shape) < rng.uniform(0.001, 0.01)
        g[dots] = rng.uniform(0, 100)
    g = np.clip(g, 0, 255).astype(np.uint8)
    if rng.random() < 0.25:  # binarized, as some scans are
        g = np.where(g < rng.uniform(110, 170), 0, 255).astype(np.uint8)
    if rng.random() < 0.2:
        ok, buf = cv2.imencode(".jpg", g, [cv2.IMWRITE_JPEG_QUALITY, rng.randint(25, 70)])
        g = np.asarray(cv2.imdecode(buf, cv2.IMREAD_GRAYSCALE))
    return g


def _cut(rng: random.Random, gray: np.ndarray) -> np.ndarray:
    """The crop cut to its ink, as the reader cuts a cell, a pixel or two off either way."""
    ys, xs = np.nonzero(gray < 128)
    if not len(ys):
        return gray
    h, w = gray.shape
    j = lambda: rng.randint(-2, 2)  # noqa: E731
    y0, y1 = max(0, ys.min() + j()), min(h, ys.max() + 1 + j())
    x0, x1 = max(0, xs.min() + j()), min(w, xs.max() + 1 + j())
    if y1 - y0 < 6 or x1 - x0 < 6:
        return gray
    return gray[y0:y1, x0:x1]
