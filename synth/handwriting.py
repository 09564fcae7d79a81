"""Handwriting for synthetic sheets: handwriting-style fonts, drawn with jitter.

People fill petition lines by hand. The born-digital stand-in draws each entry as TEXT in a
handwriting-style TrueType font (so a born-digital PDF's text layer still holds it, which is
how a filled-in PDF form behaves) with a little jitter in size, slant and baseline; a scan of
the page rasterizes it. Signatures use the more cursive of the fonts. A printed statement's
blanks (the witness's name, residence, the count, ...) are written in among its printed words
by `write_in_text`, which wraps the line where the writing makes it too wide.

The fonts are vendored under `synth/fonts/` (their Debian packages' copyright files
and licences beside them: SIL OFL for DKG, Breip and Humor Sans; GPL with the font exception
for Rufscript and the SJ fonts; and 32 Google Fonts faces from fontsource's npm packages, SIL
OFL or Apache 2.0, for the recognizer's training and calibration only), so every machine
draws the same sheets; a system copy (/usr/share/fonts) is used when the vendored one is
missing.

The fonts are split once and for all (`font_part`): the development part, on which the
reading is tuned (thresholds, calibration), and the held-out part, on which it is measured
(bench/handwriting.py). "all" is HAND_FONTS, the corpus's fonts since the corpus began.

reportlab embeds TrueType outlines only, so the OpenType/CFF faces of fonts-bwht,
fonts-dancingscript and fonts-comic-neue cannot be used; fonts-femkeklaver draws hollow
(outlined) letters, which no pen makes, so it is left out. With no font file found the
generator falls back to reportlab's built-in Helvetica (entries) and Helvetica-Oblique
(signatures), and the truth records which font every field was drawn in.
"""

from __future__ import annotations

import functools
import logging
import math
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from PIL import ImageFont
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfbase.ttfonts import TTFError, TTFont
from reportlab.pdfgen.canvas import Canvas

__all__ = [
    "BUILTIN_HAND",
    "BUILTIN_SIGNATURE",
    "CALIBRATION_FONTS",
    "DEV_FONTS",
    "FONT_DIRS",
    "FONT_PARTS",
    "GAP",
    "HAND_FONTS",
    "HELD_OUT_FONTS",
    "TRAINING_FONTS",
    "Hand",
    "HandFont",
    "Stroke",
    "available_fonts",
    "draw_handwritten",
    "font_part",
    "font_path",
    "font_split",
    "pick_hand",
    "write_in",
    "write_in_text",
]

log = logging.getLogger(__name__)

VENDORED = Path(__file__).resolve().parent / "fonts"
FONT_DIRS = (VENDORED, Path("/usr/share/fonts"), Path("/usr/local/share/fonts"))


@dataclass(frozen=True, slots=True)
class HandFont:
    """A handwriting-style font: the name reportlab knows it by and the file it comes from."""

    name: str  # reportlab font name; recorded in truth.json
    file: str  # path below a font dir, "" for a built-in font
    package: str  # the package that ships it (Debian's, or npm's @fontsource/...), "" if built in
    script: bool  # cursive enough to stand for a signature


# Known handwriting faces (TrueType outlines only), with the package that installs them.
HAND_FONTS: tuple[HandFont, ...] = (
    HandFont("DKG", "truetype/fifthhorseman/dkg.ttf", "fonts-dkg-handwriting", False),
    HandFont("DKG-Italic", "truetype/fifthhorseman/dkgIt.ttf", "fonts-dkg-handwriting", True),
    HandFont("DKG-BoldItalic", "truetype/fifthhorseman/dkgBI.ttf", "fonts-dkg-handwriting", True),
    HandFont("Breip", "truetype/breip/Breip.ttf", "fonts-breip", True),
    HandFont("DKG-Bold", "truetype/fifthhorseman/dkgBd.ttf", "fonts-dkg-handwriting", False),
    HandFont("HumorSans", "truetype/humor-sans/Humor-Sans.ttf", "fonts-humor-sans", False),
)
# Faces used only by the held-out part (so the corpus's "all" stays as it was).
_MORE_FONTS: tuple[HandFont, ...] = (
    HandFont("Rufscript", "truetype/rufscript/Rufscript010.ttf", "fonts-rufscript", True),
    HandFont("SteveHand", "truetype/sjfonts/SteveHand.ttf", "fonts-sjfonts", True),
    HandFont("Delphine", "truetype/sjfonts/Delphine.ttf", "fonts-sjfonts", False),
)
# Google Fonts' handwriting faces (fontsource's npm packages, WOFF converted to TrueType by
# fontTools; SIL OFL or Apache 2.0, their licences in synth/fonts/licenses/fontsource/), drawn
# in by no corpus part but the calibration: the project's recognizer trains on
# TRAINING_FONTS and is calibrated on writing it never saw, CALIBRATION_FONTS. Split by
# designer before any was measured, so that no calibration face shares a hand with a training
# one: six designers' faces for the calibration, the other designers' (Kimberly Geswein's
# sixteen among them) for training.
_FONTSOURCE_SCRIPTS = frozenset(
    ("cedarville-cursive", "marck-script", "mr-dafoe", "nothing-you-could-do", "zeyada")
)


def _fontsource(name: str) -> HandFont:
    file = f"truetype/fontsource/{name}.ttf"
    return HandFont(name, file, f"@fontsource/{name}", name in _FONTSOURCE_SCRIPTS)


_FONTSOURCE_TRAINING: tuple[HandFont, ...] = tuple(
    map(_fontsource, (
        "annie-use-your-telescope", "architects-daughter", "caveat", "cedarville-cursive",
        "covered-by-your-grace", "crafty-girls", "dawning-of-a-new-day", "give-you-glory",
        "gloria-hallelujah", "homemade-apple", "indie-flower", "just-another-hand", "kalam",
        "la-belle-aurore", "loved-by-the-king", "marck-script", "mr-dafoe",
        "nothing-you-could-do", "reenie-beanie", "rock-salt", "schoolbell",
        "shadows-into-light", "sue-ellen-francisco", "swanky-and-moo-moo",
        "waiting-for-the-sunrise", "zeyada",
    ))
)  # fmt: skip
_FONTSOURCE_CALIBRATION: tuple[HandFont, ...] = tuple(
    map(_fontsource, (
        "gochi-hand", "handlee", "nanum-pen-script", "neucha", "patrick-hand", "short-stack",
    ))
)  # fmt: skip
_BY_NAME = {
    f.name: f for f in HAND_FONTS + _MORE_FONTS + _FONTSOURCE_TRAINING + _FONTSOURCE_CALIBRATION
}
# The fixed split: whole families on one side, so no held-out hand was seen while tuning.
DEV_FONTS: tuple[HandFont, ...] = tuple(
    _BY_NAME[n] for n in ("DKG", "DKG-Italic", "DKG-BoldItalic", "Breip", "DKG-Bold")
)
HELD_OUT_FONTS: tuple[HandFont, ...] = tuple(
    _BY_NAME[n] for n in ("HumorSans", "Rufscript", "SteveHand", "Delphine")
)
# The faces the project's recognizer is never trained on (`pipeline.recognizer.samples`): a
# development font, Breip, and six of Google Fonts'. Its calibration is fitted on writing in
# them, writing it did not see, as it did not see the held-out fonts ("calibration": a part
# of its own, to fit on; bench/handwriting.py --fit).
CALIBRATION_FONTS: tuple[HandFont, ...] = (_BY_NAME["Breip"], *_FONTSOURCE_CALIBRATION)
# The handwriting faces the recognizer trains on beside the development fonts less the
# calibration ones (`pipeline.recognizer.samples.fonts`): no corpus part draws in them.
TRAINING_FONTS: tuple[HandFont, ...] = _FONTSOURCE_TRAINING
FONT_PARTS = ("all", "dev", "heldout", "calibration")
BUILTIN_HAND = HandFont("Helvetica", "", "", False)
BUILTIN_SIGNATURE = HandFont("Helvetica-Oblique", "", "", True)


def font_path(font: HandFont) -> Path | None:
    """The font's file (vendored, else installed), None for a built-in or a missing one."""
    if not font.file:
        return None
    return next((base / font.file for base in FONT_DIRS if (base / font.file).is_file()), None)


def _register(font: HandFont) -> bool:
    """Register the font with reportlab once; False when its file is missing or unusable."""
    path = font_path(font)
    if path is None:
        return False
    if font.name in pdfmetrics.getRegisteredFontNames():
        return True
    try:
        pdfmetrics.registerFont(TTFont(font.name, str(path)))
    except TTFError as err:  # e.g. a CFF-flavoured file under a .ttf name
        log.debug("cannot use font %s: %s", path, err)
        return False
    return True


@functools.lru_cache(maxsize=4096)
def _ink(font: HandFont, text: str, size: float) -> tuple[float, float]:
    """How far the ink of `text` rises above and falls below its baseline, in points: the
    glyphs' real outlines (FreeType, through Pillow), not the font's declared metrics, which
    handwriting fonts often understate."""
    path = font_path(font)
    if path is None:
        ascent, descent = pdfmetrics.getAscentDescent(font.name, size)
        return float(ascent), float(-descent)
    scale = 10.0
    face = ImageFont.truetype(str(path), size=max(1, round(size * scale)))
    _, top, _, bottom = face.getbbox(text, anchor="ls")
    return -top / scale, max(0.0, bottom / scale)


def font_split(font: HandFont) -> str:
    """The part of the fixed split a font belongs to: "dev" or "heldout" (the built-ins, and
    any font not in either part, are development)."""
    return "heldout" if font in HELD_OUT_FONTS else "dev"


def font_part(part: str) -> tuple[HandFont, ...]:
    """The fonts of one part of the fixed split: "dev", "heldout", "calibration" (of the
    development fonts, those the recognizer never trains on), or "all" (HAND_FONTS)."""
    if part == "all":
        return HAND_FONTS
    if part == "dev":
        return DEV_FONTS
    if part == "heldout":
        return HELD_OUT_FONTS
    if part == "calibration":
        return CALIBRATION_FONTS
    raise ValueError(f"unknown font part {part!r}; one of {', '.join(FONT_PARTS)}")


def available_fonts(use_system: bool = True, part: str = "all") -> tuple[HandFont, ...]:
    """The handwriting fonts of `part` found here (vendored or installed, in their part's
    order); the built-ins when none is, or when `use_system` is False (for output that must
    not depend on the machine)."""
    found = tuple(f for f in font_part(part) if use_system and _register(f))
    if not found:
        return (BUILTIN_HAND, BUILTIN_SIGNATURE)
    return found


@dataclass(frozen=True, slots=True)
class Hand:
    """One signer's handwriting: a font for the entries, one for the signature, and how their
    writing wanders (size scale, slant in degrees, baseline wobble in points)."""

    entry_font: HandFont
    signature_font: HandFont
    scale: float
    slant: float
    wobble: float


def pick_hand(rng: random.Random, fonts: Sequence[HandFont]) -> Hand:
    """A signer's hand, drawn from the installed fonts."""
    scripts = [f for f in fonts if f.script] or list(fonts)
    return Hand(
        entry_font=rng.choice(list(fonts)),
        signature_font=rng.choice(scripts),
        scale=rng.uniform(0.9, 1.15),
        slant=rng.uniform(-4.0, 12.0),
        wobble=rng.uniform(0.0, 1.6),
    )


@dataclass(frozen=True, slots=True)
class Stroke:
    """How one field was drawn: recorded in truth.json."""

    font: str
    size: float
    slant: float
    baseline: float  # offset from the row's baseline, points (positive is up)
    width: float = 0.0  # how far the entry runs from its start, points (for laying out text)


def draw_handwritten(
    c: Canvas,
    rng: random.Random,
    text: str,
    x: float,
    y: float,
    width: float,
    font: HandFont,
    size: float,
    slant: float,
    wobble: float,
    band: tuple[float, float] | None = None,
) -> Stroke:
    """Draw `text` at (x, y) (PDF coordinates, y up) in `font`, no wider than `width`: each word
    on its own, with a clear gap between words so a text-layer reader splits them as a person
    reads them, the whole entry slanted and its baseline shifted by up to `wobble` points.

    With `band` (bottom, top), the ink stays between those heights: the size shrinks and the
    baseline moves so that no stroke crosses into the row above or below."""
    words = text.split()
    shear_per_pt = abs(math.tan(math.radians(slant)))
    while True:
        shear = shear_per_pt * size * 1.3  # how far a slanted glyph's box leans over
        # A text-layer reader splits words at gaps wider than about 3 pt between glyph boxes,
        # which a slant narrows: leave that much, and the lean, between words.
        space = max(stringWidth(" ", font.name, size), 0.45 * size) + shear + 1.5
        total = sum(stringWidth(w, font.name, size) for w in words) + space * (len(words) - 1)
        up, down = _ink(font, text, size) if band is not None else (0.0, 0.0)
        tall = band is not None and up + down > band[1] - band[0]
        if (total + shear <= width and not tall) or size <= 5.0:
            break
        size -= 0.25
    baseline = rng.uniform(-wobble, wobble)
    if band is not None:  # keep the ink inside the band
        lowest, highest = band[0] + down - y, band[1] - up - y
        baseline = min(max(baseline, lowest), max(lowest, highest))
    c.saveState()
    c.translate(x, y + baseline)
    c.skew(0, slant)
    c.setFont(font.name, size)
    cursor = 0.0
    for w in words:
        c.drawString(cursor, 0, w)
        cursor += stringWidth(w, font.name, size) + space
    c.restoreState()
    return Stroke(
        font.name, round(size, 2), round(slant, 2), round(baseline, 2), round(total + shear, 2)
    )


# Between printed and written words: wider than a text-layer reader's word gap (3 pt), so the
# reader splits them as a person reads them.
GAP = 4.5
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def write_in(
    c: Canvas,
    rng: random.Random,
    hand: Hand,
    text: str,
    x: float,
    y: float,
    signature: bool = False,
) -> Stroke:
    """One blank of a printed statement filled in by hand at (x, y): a little larger than the
    print, the wobble kept small so the entry stays on the printed line (a reader groups
    words into lines within about 3 pt)."""
    font = hand.signature_font if signature else hand.entry_font
    size = (11.5 if signature else 9.5) * min(1.1, hand.scale)
    slant = hand.slant + (6.0 if signature else 0.0)
    return draw_handwritten(c, rng, text, x, y, 260, font, size, slant, min(hand.wobble, 0.8))


def _tokens(template: str) -> list[tuple[str, str]]:
    """A template as ("text", word) and ("blank", name) tokens, in order."""
    out: list[tuple[str, str]] = []
    for k, part in enumerate(_PLACEHOLDER.split(template)):
        if k % 2:
            out.append(("blank", part))
        else:
            out += [("text", w) for w in part.split()]
    return out


def write_in_text(
    c: Canvas,
    rng: random.Random,
    hand: Hand,
    template: str,
    blanks: dict[str, str],
    x0: float,
    y: float,
    width: float,
    *,
    size: float = 9.0,
    leading: float = 15.0,
) -> tuple[float, list[tuple[str, Stroke]]]:
    """A printed text with blanks (`{name}` in the template) filled in by hand: the printed
    words in Helvetica `size`, each blank's entry written in `hand`, wrapped at a word when a
    line would pass `width`. An empty blank, or one holding only dots, is printed as dots.
    Returns the baseline of the last line drawn and each written blank's stroke."""
    strokes: list[tuple[str, Stroke]] = []
    x, run = x0, ""
    for kind, value in _tokens(template):
        if kind == "blank":
            text = blanks.get(value, "")
            if text.strip("."):
                if x + stringWidth(text, hand.entry_font.name, 10) > x0 + width:
                    x, y = x0, y - leading
                stroke = write_in(c, rng, hand, text, x + GAP, y)
                strokes.append((value, stroke))
                x, run = x + 2 * GAP + stroke.width, ""
                continue
            value, x, run = text or "..........", x + GAP, ""  # printed dots
        word = value if not run else " " + value
        w = stringWidth(word, "Helvetica", size)
        if x + w > x0 + width and x > x0:
            x, y, word = x0, y - leading, value
            w = stringWidth(word, "Helvetica", size)
        c.setFont("Helvetica", size)
        c.drawString(x, y, word)
        x += w
        run += word
    return y, strokes
