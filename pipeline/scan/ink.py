"""Is there ink in a cell? Decided from the pixels, not from OCR.

A cell's ink is the binary image inside the cell (ruled lines already erased, a margin kept off
the borders) after dropping specks: connected components smaller than a dot of a pen, or
reaching less than STROKE_MIN_IN either way (dust and JPEG noise: a pen's stroke runs on, so
scattered specks never add up to writing, however many a dirty scan leaves in a cell). The cell
is inked when what remains covers at least MIN_INK_AREA_IN2 square inches. The confidence grows
with the distance from that threshold, so a cell with a faint mark or a smudge is uncertain and
goes to a person.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

__all__ = ["Ink", "measure_ink"]

# A component smaller than this (square inches) is a speck, not a pen stroke: about a 0.5 pt
# dot. Measured on the synthetic scans: speckle at 1% gives components of 1-4 px at 300 dpi.
MIN_COMPONENT_IN2 = 0.0001
# A pen stroke reaches at least this far (inches) across or down. Measured on the development
# degraded scans (bench/scan_layouts.py, seed 31): the dust left in blank cells reaches 3-4 px
# at 200 dpi (0.02 in); the smallest entry, a written "1", 12 px (0.06 in).
STROKE_MIN_IN = 0.03
# A stroke no thicker than this (inches) along a cell's edge is a remnant of its ruled line.
RULE_REMNANT_IN = 0.02
# A cell holds writing when its strokes cover at least this much (square inches). The smallest
# real entry, a single digit "1" in 8 pt type, covers about 0.0008 in2.
MIN_INK_AREA_IN2 = 0.0004


@dataclass(frozen=True, slots=True)
class Ink:
    area_in2: float  # ink after speck removal
    present: bool
    confidence: float  # 0..1: how sure `present` is
    bbox: tuple[int, int, int, int] | None  # x0, y0, x1, y1 of the ink, relative to the cell


def measure_ink(binary_cell: np.ndarray, dpi: float) -> Ink:
    """The ink in one cell of a binary image (ink 255)."""
    if binary_cell.size == 0 or not binary_cell.any():
        return Ink(0.0, False, 1.0, None)
    px_in2 = (1.0 / dpi) ** 2
    n, _, stats, _ = cv2.connectedComponentsWithStats(binary_cell, connectivity=8)
    areas = stats[1:, cv2.CC_STAT_AREA]
    keep = areas * px_in2 >= MIN_COMPONENT_IN2
    reach = np.maximum(stats[1:, cv2.CC_STAT_WIDTH], stats[1:, cv2.CC_STAT_HEIGHT])
    keep &= reach >= dpi * STROKE_MIN_IN
    # A piece of a ruled line the eraser missed (faint, dashed): thin, lying along an edge.
    left, top = stats[1:, cv2.CC_STAT_LEFT], stats[1:, cv2.CC_STAT_TOP]
    width, height = stats[1:, cv2.CC_STAT_WIDTH], stats[1:, cv2.CC_STAT_HEIGHT]
    hgt, wid = binary_cell.shape
    thin = max(2, int(round(dpi * RULE_REMNANT_IN)))
    flat = (height <= thin) & (width >= 2 * height) & ((top == 0) | (top + height >= hgt))
    upright = (width <= thin) & (height >= 2 * width) & ((left == 0) | (left + width >= wid))
    keep &= ~(flat | upright)
    area = float(areas[keep].sum()) * px_in2
    present = area >= MIN_INK_AREA_IN2
    # Ratio to the threshold: 0 or >= 4x the threshold is sure; near 1x is a coin toss.
    ratio = area / MIN_INK_AREA_IN2
    confidence = min(1.0, 1.0 - ratio / 2) if not present else min(1.0, 0.5 + (ratio - 1) / 6)
    bbox = None
    if keep.any():
        s = stats[1:][keep]
        x0 = int(s[:, cv2.CC_STAT_LEFT].min())
        y0 = int(s[:, cv2.CC_STAT_TOP].min())
        x1 = int((s[:, cv2.CC_STAT_LEFT] + s[:, cv2.CC_STAT_WIDTH]).max())
        y1 = int((s[:, cv2.CC_STAT_TOP] + s[:, cv2.CC_STAT_HEIGHT]).max())
        bbox = (x0, y0, x1, y1)
    return Ink(area, present, max(0.0, confidence), bbox)
