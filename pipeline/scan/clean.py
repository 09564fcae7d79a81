"""Clean up a scanned page with OpenCV: perspective, lighting, orientation, skew, speckle,
folds, binarization.

The OCR engine gets the best grey image (lighting evened out, turned upright, deskewed, ruled
lines erased later by the reader); the table finder and the ink test get a binary image (ink
255, paper 0). Each function returns new arrays; the caller keeps only what it still needs.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import cv2
import numpy as np

from .blocks import runs_of

__all__ = [
    "Cleaned",
    "binarize",
    "clean_page",
    "creases",
    "deskew_angle",
    "even_lighting",
    "is_sideways",
    "off_paper",
    "page_quad",
    "rotate_quarter",
    "rotate_small",
]

log = logging.getLogger(__name__)

# Skew is searched over +-MAX_SKEW degrees in 1-degree steps, then 0.25, then FINE.
MAX_SKEW = 6.0
FINE = 0.05
# Resolution the skew and orientation tests work at: coarse enough to be quick, fine enough for
# long ruled lines to resolve a twentieth of a degree.
WORK_DPI = 100.0
# A pixel darker than this fraction of its local background is ink.
INK_RATIO = 0.72
# For the rule finder only: faint grey rules count too (the long-stroke filter drops the noise
# this lets in).
RULE_RATIO = 0.88
# Rules fainter still (a light grey print blurred by the scan: 210-230 on white), looked for only
# on a page where no table was found at RULE_RATIO (`reader._try_layout`).
FAINT_RULE_RATIO = 0.92
# Beyond the sheet's edge: ink touching the image's border that is thicker than any pen stroke
# or rule (half of it this many inches), or that lies wholly within this many inches of the
# border (a scanner's edge shadow: nothing is written or printed there).
OFF_PAPER_HALF_IN = 0.03
OFF_PAPER_EDGE_IN = 0.03


# A photographed page (`page_quad`): the sheet is looked for at this resolution, and is taken
# for one when it covers at least PAGE_MIN_SHARE of the image and is a four-sided shape whose
# sides turn by more than KEYSTONE_MIN_DEG against each other (a sheet that is a rectangle
# is only skewed: the deskew straightens it, at its own scale).
PAGE_WORK_DPI = 50.0
PAGE_MIN_SHARE = 0.4
KEYSTONE_MIN_DEG = 0.3


# A fold's crease across the sheet (`creases`): a line that wanders by up to CREASE_BAND_IN
# up or down, inked across CREASE_COVER of the sheet and reaching within CREASE_EDGE_IN of
# both its edges (a table's rules stop at the page's margins).
CREASE_BAND_IN = 0.012
CREASE_COVER = 0.95
CREASE_EDGE_IN = 0.15


@dataclass(frozen=True, slots=True)
class Cleaned:
    gray: np.ndarray  # upright, deskewed, lighting evened: what OCR reads
    binary: np.ndarray  # same geometry, ink 255 / paper 0
    quarter_turns: int  # counter-clockwise quarter turns applied (0..3)
    skew: float  # degrees of skew corrected (counter-clockwise positive)
    speckled: bool  # salt-and-pepper noise was found and filtered
    # a photographed sheet made a rectangle first (`page_quad`): the homography applied to the
    # image as given, and the (height, width) it made; None for a scan
    warp: np.ndarray | None = None
    warped: tuple[int, int] | None = None


def even_lighting(gray: np.ndarray, dpi: float) -> np.ndarray:
    """Divide out the paper's background (a shadow, a yellowed corner): the background is the
    page with the ink closed over, estimated at low resolution."""
    scale = min(1.0, 50.0 / dpi)
    small = cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    k = max(3, int(round(50 * 0.25)) | 1)  # a quarter inch at 50 dpi: wider than any stroke
    bg = cv2.dilate(small, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    bg = cv2.medianBlur(bg, 5)
    bg = cv2.resize(bg, (gray.shape[1], gray.shape[0]), interpolation=cv2.INTER_LINEAR)
    out = cv2.divide(gray, np.maximum(bg, 1), scale=255)
    return out


def binarize(gray: np.ndarray, ratio: float = INK_RATIO) -> np.ndarray:
    """Ink 255, paper 0, for an image whose background is already near white."""
    _, binary = cv2.threshold(gray, int(255 * ratio), 255, cv2.THRESH_BINARY_INV)
    return binary


def _despeckle_needed(binary: np.ndarray) -> bool:
    """Salt-and-pepper noise: many isolated one- or two-pixel specks."""
    sample = binary[:: max(1, binary.shape[0] // 400), :]
    isolated = cv2.morphologyEx(sample, cv2.MORPH_OPEN, np.ones((1, 2), np.uint8))
    specks = int(np.count_nonzero(sample)) - int(np.count_nonzero(isolated))
    return specks > sample.size * 0.002


def _work_image(binary: np.ndarray, dpi: float) -> np.ndarray:
    scale = min(1.0, WORK_DPI / dpi)
    return cv2.resize(binary, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)


def _profile_score(img: np.ndarray, angle: float) -> float:
    hgt, wid = img.shape
    m = cv2.getRotationMatrix2D((wid / 2, hgt / 2), angle, 1.0)
    rot = cv2.warpAffine(img, m, (wid, hgt), flags=cv2.INTER_NEAREST, borderValue=0)
    rows = rot.sum(axis=1, dtype=np.float64)
    return float(np.sum(np.diff(rows) ** 2))


def _search(work: np.ndarray, centre: float, half: float, step: float) -> tuple[float, float]:
    """(best angle, its score) over centre +- half in steps."""
    angles = np.arange(centre - half, centre + half + 1e-9, step)
    scores = [_profile_score(work, float(a)) for a in angles]
    k = int(np.argmax(scores))
    return float(angles[k]), float(scores[k])


def _skew_of(work: np.ndarray, coarse: tuple[float, float] | None = None) -> float:
    """Coarse-to-fine: 1 degree, then 0.25, then FINE."""
    best, _ = coarse if coarse is not None else _search(work, 0.0, MAX_SKEW, 1.0)
    best, _ = _search(work, best, 1.0, 0.25)
    best, _ = _search(work, best, 0.25, FINE)
    return best


def deskew_angle(binary: np.ndarray, dpi: float) -> float:
    """The rotation (degrees, counter-clockwise) that makes the page's text lines and rules
    horizontal: the angle maximizing the sharpness of the row profile."""
    return _skew_of(_work_image(binary, dpi))


def _orientation(binary: np.ndarray, dpi: float) -> tuple[bool, float]:
    """(sideways?, skew) from low-resolution images: a page lies on its side when its column
    profile, at its best small angle, is sharper than its row profile at its best. The
    whole-degree search runs at half WORK_DPI (a degree moves a line's end by a quarter inch
    there: still many pixels), the finer steps at WORK_DPI."""
    work = _work_image(binary, dpi)
    coarse = cv2.resize(work, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    rows = _search(coarse, 0.0, MAX_SKEW, 1.0)
    cols = _search(np.ascontiguousarray(coarse.T), 0.0, MAX_SKEW, 1.0)
    if cols[1] > 1.5 * rows[1]:
        return True, 0.0  # the skew is measured again once the page is turned
    return False, _skew_of(work, rows)


def is_sideways(binary: np.ndarray, dpi: float) -> bool:
    """True when the page lies on its side: its text lines and rules run up and down."""
    return _orientation(binary, dpi)[0]


def rotate_quarter(img: np.ndarray, quarter_turns: int) -> np.ndarray:
    """Turned counter-clockwise by quarter_turns x 90 degrees."""
    k = quarter_turns % 4
    if k == 0:
        return img
    codes = {
        1: cv2.ROTATE_90_COUNTERCLOCKWISE,
        2: cv2.ROTATE_180,
        3: cv2.ROTATE_90_CLOCKWISE,
    }
    return cv2.rotate(img, codes[k])


def rotate_small(img: np.ndarray, angle: float, fill: int) -> np.ndarray:
    """Rotated by a small angle (degrees, counter-clockwise) about the centre, same size."""
    if abs(angle) < 0.01:
        return img
    hgt, wid = img.shape
    m = cv2.getRotationMatrix2D((wid / 2, hgt / 2), angle, 1.0)
    flags = cv2.INTER_LINEAR if fill == 255 else cv2.INTER_NEAREST
    return cv2.warpAffine(
        img, m, (wid, hgt), flags=flags, borderMode=cv2.BORDER_CONSTANT, borderValue=fill
    )


def off_paper(gray: np.ndarray, dpi: float) -> np.ndarray:
    """Where the image shows what lies beyond the sheet's edge (True), on a page whose lighting
    is evened: the scanner's background past the paper (a dark lid, or a lid brighter than a
    shaded sheet, whose edge then reads as ink), the corners a deskew turns in. It is ink
    reaching the image's border as no writing does: a solid mass along it (thicker than
    2 * OFF_PAPER_HALF_IN: a pen stroke or a heavy rule is thinner) or a sliver hugging it
    (within OFF_PAPER_EDGE_IN). Found on the faint-ink binarization, so that no grey edge of
    it is left to pass for a rule."""
    binary = binarize(gray, RULE_RATIO)
    hgt, wid = binary.shape
    edge = max(2, int(dpi * OFF_PAPER_EDGE_IN))
    out = np.zeros(binary.shape, bool)
    border = np.zeros(binary.shape, bool)
    border[[0, -1], :] = border[:, [0, -1]] = True
    if not binary[border].any():
        return out
    n, labels, stats, _ = cv2.connectedComponentsWithStats(binary, connectivity=8)
    touching = np.unique(labels[border & (binary > 0)])
    half = dpi * OFF_PAPER_HALF_IN
    for k in touching[touching > 0]:
        x, y, w, h = (int(v) for v in stats[k, :4])
        hugging = w <= edge and (x == 0 or x + w >= wid)
        hugging |= h <= edge and (y == 0 or y + h >= hgt)
        mine = labels[y : y + h, x : x + w] == k
        if hugging:
            out[y : y + h, x : x + w] |= mine
        elif min(w, h) > 2 * half:
            solid = np.pad(mine, 1).astype(np.uint8)  # (the border is not paper either)
            depth = cv2.distanceTransform(solid, cv2.DIST_L2, 3)[1:-1, 1:-1]
            if float(depth.max()) > half:
                # the mass and its ragged edge, not the rules and writing that touch it (a
                # shadow along the edge over a table's side: held-out scans, the table's
                # rules wiped with it, no table found)
                r = int(np.ceil(half)) + 2
                disk = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
                mass = cv2.dilate((depth > half).astype(np.uint8), disk) > 0
                out[y : y + h, x : x + w] |= mine & mass
    return out


def _corners(quad: np.ndarray) -> np.ndarray:
    """Four points in order: top left, top right, bottom right, bottom left."""
    s, d = quad.sum(axis=1), np.diff(quad, axis=1).ravel()
    return np.array(
        [quad[np.argmin(s)], quad[np.argmin(d)], quad[np.argmax(s)], quad[np.argmax(d)]],
        dtype=np.float32,
    )


def _side_angle(a: np.ndarray, b: np.ndarray) -> float:
    """The direction of the side from a to b, degrees, folded into (-45, 45] about its axis."""
    deg = float(np.degrees(np.arctan2(b[1] - a[1], b[0] - a[0])))
    return (deg + 45.0) % 90.0 - 45.0


def page_quad(gray: np.ndarray, dpi: float) -> np.ndarray | None:
    """The sheet's four corners (top left, top right, bottom right, bottom left; pixels) when
    the image shows it as a four-sided shape on a darker background whose sides are not those
    of a rectangle (a photo taken at an angle: its vertical rules lean one way at the left and
    another at the right, which no deskew can straighten, and a table's column rules go
    unfound); None for a scan (the paper fills the image, or is a rectangle only turned).
    The paper is the brightest large region (Otsu's threshold on a blurred small copy, the
    writing closed over); its outline, simplified, must have four corners, none on the
    image's border (the background shows all around a sheet photographed whole)."""
    scale = min(1.0, PAGE_WORK_DPI / dpi)
    small = cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    blurred = cv2.GaussianBlur(small, (5, 5), 0)
    _, paper = cv2.threshold(blurred, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    k = max(3, int(PAGE_WORK_DPI * 0.3) | 1)
    paper = cv2.morphologyEx(paper, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
    contours, _ = cv2.findContours(paper, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    outline = cv2.convexHull(max(contours, key=cv2.contourArea))
    if cv2.contourArea(outline) < PAGE_MIN_SHARE * paper.size:
        return None
    quad = cv2.approxPolyDP(outline, 0.02 * cv2.arcLength(outline, True), True)
    if len(quad) != 4:
        return None
    c = _corners(quad.reshape(4, 2).astype(np.float32))
    # the background all around it: a shadow or a dark corner of a scan cut off by the
    # threshold leaves sides along the image's border
    hgt, wid = paper.shape
    if (c[:, 0].min() < 2 or c[:, 1].min() < 2) or (
        c[:, 0].max() > wid - 3 or c[:, 1].max() > hgt - 3
    ):
        return None
    angles = [_side_angle(c[i], c[(i + 1) % 4]) for i in range(4)]
    # a rectangle turned: every side turned alike (a scan, maybe skewed); the deskew does that
    if max(angles) - min(angles) <= KEYSTONE_MIN_DEG:
        return None
    return c / np.float32(scale)


def _rectified(gray: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The sheet inside `corners` warped to a rectangle as wide and tall as its longer sides
    (its scale kept), and the homography."""
    tl, tr, br, bl = corners
    wid = int(round(max(np.linalg.norm(tr - tl), np.linalg.norm(br - bl))))
    hgt = int(round(max(np.linalg.norm(bl - tl), np.linalg.norm(br - tr))))
    target = np.array([[0, 0], [wid - 1, 0], [wid - 1, hgt - 1], [0, hgt - 1]], np.float32)
    m = cv2.getPerspectiveTransform(corners, target)
    out = cv2.warpPerspective(
        gray, m, (wid, hgt), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    return np.asarray(out, dtype=np.uint8), m


def creases(binary: np.ndarray, dpi: float) -> np.ndarray:
    """Where a fold's crease crosses the sheet (True): a thin line across the whole width, to
    within CREASE_EDGE_IN of both edges, that may wander a little (CREASE_BAND_IN) as a fold
    does. A table's rules, however long, stop at the page's margins, a line of text has gaps
    between its words; only the crease's straight pieces (a tenth of an inch long at least)
    are marked, so writing it crosses keeps its strokes but for the crease's own pixels."""
    hgt, wid = binary.shape
    out = np.zeros(binary.shape, bool)
    band = max(2, int(round(dpi * CREASE_BAND_IN)))
    edge = max(3, int(dpi * CREASE_EDGE_IN))
    tip = max(1, int(dpi * 0.02))
    if wid <= 2 * edge + 2 * tip:
        return out
    near = cv2.dilate(binary, np.ones((2 * band + 1, 1), np.uint8)) > 0
    middle = near[:, edge : wid - edge].mean(axis=1)
    left = near[:, tip:edge].mean(axis=1)
    right = near[:, wid - edge : wid - tip].mean(axis=1)
    across = (middle >= CREASE_COVER) & (left >= 0.8) & (right >= 0.8)
    piece = max(5, int(dpi * 0.1))
    for a, b in runs_of(across):
        top, bottom = max(0, a - band), min(hgt, b + band)
        strip = cv2.morphologyEx(binary[top:bottom], cv2.MORPH_OPEN, np.ones((1, piece), np.uint8))
        out[top:bottom] |= strip > 0
    return out


def clean_page(gray: np.ndarray, dpi: float, quarter_turns: int | None = None) -> Cleaned:
    """Make a photographed sheet a rectangle (`page_quad`), even the lighting, turn a sideways
    page (unless `quarter_turns` is given), deskew, filter speckle, binarize. Upside down is
    decided later, by the reader (a 180-degree turn leaves every profile the same). What lies
    beyond the sheet's edge (`off_paper`) and a fold's crease across it (`creases`) are made
    paper: no cell, rule or line of text reaches past the edge, no crease passes for a rule."""
    warp = None
    corners = page_quad(gray, dpi)
    if corners is not None:
        gray, warp = _rectified(gray, corners)
        log.debug("a photographed sheet: corners %s made a rectangle", corners.round().tolist())
    flat = even_lighting(gray, dpi)
    binary = binarize(flat)
    speckled = _despeckle_needed(binary)
    if speckled:
        flat = cv2.medianBlur(flat, 3)
        binary = binarize(flat)
    angle: float | None = None
    if quarter_turns is None:
        sideways, angle = _orientation(binary, dpi)
        quarter_turns = 1 if sideways else 0
    if quarter_turns:
        flat = rotate_quarter(flat, quarter_turns)
        binary = rotate_quarter(binary, quarter_turns)
        angle = None
    if angle is None:
        angle = deskew_angle(binary, dpi)
    if abs(angle) >= 0.01:
        flat = rotate_small(flat, angle, 255)
        binary = binarize(flat)
    # a fold first: a crease runs to the image's border, and with the rules and writing it
    # crosses it would be taken for what lies beyond the sheet's edge, and they with it
    folded = creases(binary, dpi)
    if folded.any():  # a fold is no rule and no writing: paper
        flat[folded] = 255
        binary[folded] = 0
    beyond = off_paper(flat, dpi)
    if beyond.any():
        flat[beyond] = 255
        binary[beyond] = 0
    log.debug(
        "cleaned: %d quarter turns, skew %.2f deg, speckle %s", quarter_turns, angle, speckled
    )
    return Cleaned(
        flat,
        binary,
        quarter_turns,
        angle,
        speckled,
        warp,
        (int(gray.shape[0]), int(gray.shape[1])) if warp is not None else None,
    )
