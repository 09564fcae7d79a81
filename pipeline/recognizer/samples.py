"""Synthetic training crops for the recognizer: dates (in the ways people write them) and
short numbers, drawn in the development handwriting fonts (synth.handwriting.DEV_FONTS) and
ordinary print fonts, with strong augmentation, cut to their ink as the reader cuts a cell
(`scan.reader`: the grey image of the cell's ink alone). The held-out handwriting fonts are
never drawn (`fonts` refuses them), so the benchmarks' held-out part stays unseen.

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

__all__ = ["PRINT_FONTS", "fonts", "sample", "text_for"]

PRINT_DIR = Path("/usr/share/fonts/truetype")
# Ordinary print faces, where the machine has them (a missing one is skipped).
PRINT_FONTS = (
    "dejavu/DejaVuSans.ttf",
    "dejavu/DejaVuSans-Oblique.ttf",
    "dejavu/DejaVuSans-Bold.ttf",
    "dejavu/DejaVuSansCondensed.ttf",
    "dejavu/DejaVuSansCondensed-Oblique.ttf",
    "dejavu/DejaVuSerif.ttf",
    "dejavu/DejaVuSerif-Italic.ttf",
    "dejavu/DejaVuSansMono.ttf",
    "dejavu/DejaVuSans-ExtraLight.ttf",
    "liberation/LiberationSans-Regular.ttf",
    "liberation/LiberationSans-Italic.ttf",
    "liberation/LiberationSerif-Regular.ttf",
    "liberation/LiberationSerif-Italic.ttf",
    "liberation/LiberationSansNarrow-Regular.ttf",
    "liberation/LiberationSansNarrow-Italic.ttf",
    "liberation/LiberationMono-Regular.ttf",
    "noto/NotoSansMono-Regular.ttf",
)
# Of every crop, this share in a handwriting font (the rest in print).
HAND_SHARE = 0.7


def fonts() -> tuple[list[Path], list[Path]]:
    """The development handwriting fonts' files and the print fonts' found here."""
    from synth.handwriting import DEV_FONTS, HELD_OUT_FONTS, font_path

    hand = [p for p in map(font_path, DEV_FONTS) if p is not None]
    held = {p.name for p in map(font_path, HELD_OUT_FONTS) if p is not None}
    prints = [PRINT_DIR / f for f in PRINT_FONTS if (PRINT_DIR / f).is_file()]
    assert not held & {p.name for p in hand + prints}, "a held-out font among the training fonts"
    return hand, prints


def text_for(rng: random.Random) -> str:
    """A date in one of the ways it is written (`closedworld.values.date_forms`: every form
    the closed world scores), now and then a short number (a sheet number, a count)."""
    if rng.random() < 0.12:
        return str(rng.choice([rng.randint(1, 9), rng.randint(1, 30), rng.randint(1, 150)]))
    day = dt.date(2015, 1, 1) + dt.timedelta(days=rng.randrange(365 * 16))
    text = rng.choice(date_forms(day))
    if rng.random() < 0.1:  # no space after a comma, or two spaces
        text = text.replace(", ", rng.choice([",", ",  "]))
    return text


def _render(rng: random.Random, text: str, font: Path) -> np.ndarray:
    """`text` drawn a character at a time (spacing, baseline and size jittered), ink 255 on
    0, at about 48 px a line, loosely cropped."""
    size = rng.randrange(40, 57, 4)
    face = _face(font, size)
    small = _face(font, size - 4)
    width = int(size * (len(text) + 4) * 0.9)
    img = Image.new("L", (width, size * 3), 0)
    draw = ImageDraw.Draw(img)
    x, base = size * 0.5, size * 1.9
    spacing = rng.uniform(-0.04, 0.12) * size
    wobble = rng.uniform(0, 0.06) * size
    for ch in text:
        f = small if rng.random() < 0.15 else face
        draw.text((x, base + rng.uniform(-wobble, wobble)), ch, fill=255, font=f, anchor="ls")
        x += f.getlength(ch) + spacing + (rng.uniform(0.1, 0.5) * size if ch == " " else 0)
    return np.asarray(img)


@functools.lru_cache(maxsize=256)
def _face(font: Path, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(font), size=size)


def _elastic(rng: random.Random, img: np.ndarray) -> np.ndarray:
    """A smooth random displacement of the strokes (a hand's unevenness)."""
    h, w = img.shape
    amp = rng.uniform(0.0, 0.06) * h
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
    rng: random.Random, hand: Sequence[Path], prints: Sequence[Path]
) -> tuple[np.ndarray, str]:
    """One training crop (grey uint8, ink dark on light) and its label (lowercase)."""
    while True:
        text = text_for(rng)
        if encode(text) is not None:
            break
    font = rng.choice(list(hand) if rng.random() < HAND_SHARE or not prints else list(prints))
    ink = _render(rng, text, font)
    # slant (shear), then stroke width, then the hand's unevenness
    h, w = ink.shape
    slope = rng.uniform(-0.15, 0.45)
    matrix = np.array([[1, -slope, slope * h * 0.6], [0, 1, 0]], np.float32)
    ink = cv2.warpAffine(ink, matrix, (w + int(abs(slope) * h), h))
    k = rng.choice([0, 0, 1, 2, 3, -1, -2])
    if k:
        kernel = np.ones((abs(k) + 1, abs(k) + 1), np.uint8)
        ink = cv2.dilate(ink, kernel) if k > 0 else cv2.erode(ink, kernel)
        if not ink.any():
            ink = _render(rng, text, font)
    if rng.random() < 0.3:  # rotation by a degree or two
        h, w = ink.shape
        rot = cv2.getRotationMatrix2D((w / 2, h / 2), rng.uniform(-3, 3), 1.0)
        ink = cv2.warpAffine(ink, rot, (w, h))
    ys, xs = np.nonzero(ink > 60)
    if not len(ys):
        return sample(rng, hand, prints)
    ink = ink[max(0, ys.min() - 8) : ys.max() + 9, max(0, xs.min() - 8) : xs.max() + 9]
    # to the scan's size: 300 or 200 dpi cells hold ink 20-60 px high
    target = rng.uniform(22, 60) * (ink.shape[0] / max(1, ys.max() - ys.min() + 1))
    scale = target / ink.shape[0]
    ink = cv2.resize(
        ink, (max(8, int(ink.shape[1] * scale)), max(8, int(target))), interpolation=cv2.INTER_AREA
    )
    gray = _scanned(rng, _elastic(rng, ink))
    if np.count_nonzero(gray < 128) < 0.02 * gray.size:  # the ink faded away: draw another
        return sample(rng, hand, prints)
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
