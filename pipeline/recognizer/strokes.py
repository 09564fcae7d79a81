"""Digits and date marks drawn as a pen draws them, from strokes, not from a font: the shapes
a hand gives them that no training font has (an open-topped 4 written in two strokes, a 7
crossed at its middle, a 1 with a flag and a foot, a 9 with a curved tail), so the recognizer
learns the digits' forms rather than its few handwriting fonts' (held-out hands: an open 4
written as a "u" with a stem read as "11", its sheet read as sheet 1).

Each form is a few strokes through points in a box one unit tall (0 the top, 1 the
baseline), drawn as a smooth curve through its points (Catmull-Rom), every point moved a
little, at the hand's width and with a pen of the hand's weight. A writer keeps one form per
character (`Hand`): all the 4s of one crop are alike.

Synthetic data only: no real person's writing.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import cv2
import numpy as np

__all__ = ["FORMS", "Hand", "draw"]

Stroke = tuple[tuple[float, float], ...]
Form = tuple[Stroke, ...]

# The forms of each character, x from its left edge and y from its top, in units of its
# height. The first of each is the usual school form.
FORMS: dict[str, tuple[Form, ...]] = {
    "0": (
        (((0.28, 0.0), (0.06, 0.2), (0.02, 0.55), (0.12, 0.88), (0.3, 1.0), (0.48, 0.85),
          (0.54, 0.5), (0.46, 0.12), (0.26, 0.0), (0.14, 0.08)),),
        (((0.3, 0.02), (0.1, 0.3), (0.1, 0.8), (0.3, 1.0), (0.5, 0.7), (0.48, 0.2),
          (0.3, 0.02)),),
    ),
    "1": (
        (((0.25, 0.0), (0.25, 1.0)),),
        (((0.02, 0.22), (0.28, 0.0), (0.28, 1.0)),),
        (((0.05, 0.2), (0.28, 0.0), (0.28, 1.0)), ((0.05, 1.0), (0.5, 1.0))),
    ),
    "2": (
        (((0.04, 0.24), (0.2, 0.03), (0.4, 0.02), (0.53, 0.2), (0.46, 0.45), (0.04, 1.0),
          (0.58, 1.0)),),
        (((0.05, 0.2), (0.3, 0.0), (0.52, 0.18), (0.4, 0.5), (0.15, 0.85), (0.05, 1.0),
          (0.3, 0.92), (0.6, 1.0)),),
    ),
    "3": (
        (((0.04, 0.1), (0.3, 0.0), (0.5, 0.13), (0.44, 0.36), (0.22, 0.47), (0.5, 0.6),
          (0.52, 0.85), (0.3, 1.0), (0.03, 0.9)),),
        (((0.04, 0.0), (0.5, 0.0), (0.22, 0.4), (0.5, 0.58), (0.52, 0.85), (0.28, 1.0),
          (0.03, 0.9)),),
    ),
    "4": (
        (((0.42, 1.0), (0.42, 0.0), (0.0, 0.66), (0.58, 0.66)),),
        (((0.08, 0.0), (0.04, 0.62), (0.58, 0.62)), ((0.44, 0.18), (0.44, 1.0))),
        (((0.05, 0.05), (0.06, 0.6), (0.5, 0.6)), ((0.48, 0.0), (0.48, 1.0))),
        (((0.1, 0.0), (0.02, 0.64), (0.58, 0.6)), ((0.42, 0.3), (0.4, 1.0))),
        (((0.06, 0.0), (0.08, 0.8), (0.6, 0.76)), ((0.46, 0.02), (0.48, 1.05))),
    ),
    "5": (
        (((0.1, 0.0), (0.07, 0.42), (0.3, 0.37), (0.5, 0.55), (0.5, 0.82), (0.3, 1.0),
          (0.03, 0.92)), ((0.1, 0.0), (0.52, 0.0))),
        (((0.52, 0.0), (0.1, 0.0), (0.07, 0.42), (0.3, 0.37), (0.5, 0.55), (0.5, 0.82),
          (0.3, 1.0), (0.03, 0.92)),),
    ),
    "6": (
        (((0.46, 0.02), (0.22, 0.2), (0.06, 0.6), (0.1, 0.92), (0.3, 1.0), (0.48, 0.85),
          (0.46, 0.6), (0.26, 0.52), (0.07, 0.68)),),
        (((0.4, 0.0), (0.12, 0.45), (0.06, 0.8), (0.28, 1.0), (0.5, 0.8), (0.3, 0.55),
          (0.08, 0.7)),),
    ),
    "7": (
        (((0.02, 0.0), (0.56, 0.0), (0.2, 1.0)),),
        (((0.02, 0.0), (0.56, 0.0), (0.22, 1.0)), ((0.14, 0.5), (0.48, 0.5))),
        (((0.02, 0.14), (0.06, 0.0), (0.56, 0.02), (0.3, 1.0)),),
    ),
    "8": (
        (((0.46, 0.12), (0.27, 0.0), (0.08, 0.12), (0.12, 0.35), (0.4, 0.6), (0.48, 0.85),
          (0.27, 1.0), (0.05, 0.85), (0.12, 0.6), (0.4, 0.35), (0.46, 0.12)),),
        (((0.27, 0.48), (0.08, 0.28), (0.27, 0.0), (0.46, 0.25), (0.27, 0.48), (0.05, 0.72),
          (0.27, 1.0), (0.5, 0.75), (0.27, 0.48)),),
    ),
    "9": (
        (((0.48, 0.3), (0.3, 0.47), (0.08, 0.36), (0.1, 0.1), (0.3, 0.0), (0.48, 0.14),
          (0.48, 0.3), (0.46, 1.0)),),
        (((0.48, 0.28), (0.28, 0.45), (0.07, 0.3), (0.24, 0.0), (0.48, 0.12), (0.48, 0.3),
          (0.4, 0.75), (0.18, 1.0)),),
        (((0.46, 0.08), (0.26, 0.0), (0.06, 0.2), (0.2, 0.42), (0.46, 0.3)),
         ((0.48, 0.02), (0.48, 0.7), (0.4, 0.95), (0.2, 1.0), (0.08, 0.9))),
    ),
    "/": ((((0.42, -0.05), (0.0, 1.05)),),),
    "-": ((((0.0, 0.55), (0.36, 0.53)),),),
    ",": ((((0.1, 0.9), (0.12, 1.02), (0.02, 1.2)),),),
    ".": ((((0.05, 0.96), (0.08, 1.0)),),),
}  # fmt: skip


@dataclass(frozen=True)
class Hand:
    """One writer: a form per character, how wide they write, how heavy the pen, how much the
    strokes wander."""

    forms: dict[str, int]
    wide: float
    weight: float  # the pen's width, a share of the height
    wobble: float  # how far each point strays, a share of the height

    @classmethod
    def drawn(cls, rng: random.Random) -> Hand:
        return cls(
            {ch: rng.randrange(len(forms)) for ch, forms in FORMS.items()},
            rng.uniform(0.8, 1.3),
            rng.uniform(0.05, 0.12),
            rng.uniform(0.01, 0.05),
        )


def draw(
    rng: random.Random, hand: Hand, ch: str, height: float
) -> tuple[np.ndarray, float, float, float] | None:
    """The character `ch` drawn `height` px tall (the baseline at the box's foot) in `hand`:
    its ink (255 on 0), the offset of its box from the pen's position on the baseline, and
    how far the pen moves on. None for a character with no form (letters: a font draws them)."""
    forms = FORMS.get(ch)
    if forms is None:
        return None
    form = forms[hand.forms[ch] % len(forms)]
    thick = max(1, int(round(hand.weight * height)))
    pad = thick + 2
    scale_x = height * hand.wide * rng.uniform(0.9, 1.1)
    curves = [
        _curve([(x * scale_x, y * height) for x, y in _moved(rng, stroke, hand.wobble)])
        for stroke in form
    ]
    points = np.concatenate(curves)
    left, top = points.min(axis=0)
    right, bottom = points.max(axis=0)
    w, h = int(np.ceil(right - left)) + 2 * pad, int(np.ceil(bottom - top)) + 2 * pad
    ink = np.zeros((h, w), np.uint8)
    for curve in curves:
        at = np.round((curve - (left - pad, top - pad)) * 4).astype(np.int32)  # 2 bits subpixel
        cv2.polylines(ink, [at], False, 255, thick, cv2.LINE_AA, shift=2)
    advance = (right - min(0.0, left)) + height * rng.uniform(0.1, 0.25)
    return ink, float(left - pad), float(top - pad - height), float(advance)


def _moved(rng: random.Random, stroke: Stroke, wobble: float) -> list[tuple[float, float]]:
    return [(x + rng.gauss(0, wobble), y + rng.gauss(0, wobble)) for x, y in stroke]


def _curve(points: list[tuple[float, float]], steps: int = 8) -> np.ndarray:
    """A Catmull-Rom curve through the points (a straight stroke for two)."""
    p = np.asarray(points, np.float64)
    if len(p) == 2:
        return p
    p = np.vstack([2 * p[0] - p[1], p, 2 * p[-1] - p[-2]])
    t = np.linspace(0, 1, steps, endpoint=False)[:, None]
    out = []
    for k in range(1, len(p) - 2):
        a, b, c, d = p[k - 1], p[k], p[k + 1], p[k + 2]
        out.append(
            0.5
            * (
                2 * b
                + (-a + c) * t
                + (2 * a - 5 * b + 4 * c - d) * t**2
                + (-a + 3 * b - 3 * c + d) * t**3
            )
        )
    out.append(p[-2][None, :])
    return np.concatenate(out)
