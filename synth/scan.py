"""Synthetic scans: a born-digital case's sheets rasterized and degraded like real scans.

`scan_case(src, dst, style, seed)` turns a generated case (PDF sheets + truth.json) into the
same case scanned: the register, case.toml and truth are the same, the sheets folder holds
images instead of PDFs, and truth.json says which file and page each sheet went to and what
was done to it.

Styles:

- "clean-300": 300 dpi grayscale (sometimes bilevel), straight, clean.
- "degraded": a seeded mix of skew up to ±3°, pages upside down, 200 dpi, blur, speckle,
  JPEG artifacts, uneven light, and faint or broken table rules.
- "degraded-heldout": defects the reader was never developed on (`HELDOUT_DEFECTS`): fold
  creases across the page, punched holes, a shadow along an edge, grey low-contrast paper, a
  received stamp, and the keystone of a page photographed at an angle; with the skew most scans
  have and at most one of the development defects. For measuring, never for tuning.

Files: single pages as PNG, JPEG, TIFF or an image-only PDF; two-page files as a multi-page
TIFF or an image-only multi-page PDF. Every choice comes from `random.Random(seed)`, so the
same seed gives the same images.
"""

from __future__ import annotations

import dataclasses
import io
import json
import logging
import random
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pypdfium2 as pdfium
from PIL import Image

__all__ = [
    "SCAN_STYLES",
    "Degradation",
    "degrade",
    "pick_degradation",
    "render_page",
    "scan_case",
    "write_pages",
]

log = logging.getLogger(__name__)

SCAN_STYLES = ("clean-300", "degraded", "degraded-heldout")
# The defects of "degraded" (the reader is developed on these) and of "degraded-heldout" (it is
# only measured on these).
DEV_DEFECTS = ("skew", "upside_down", "dpi", "blur", "speckle", "jpeg", "light", "faint", "broken")
HELDOUT_DEFECTS = ("fold", "punch", "shadow", "paper", "stamp", "photo")
POINTS_PER_INCH = 72.0


@dataclass(frozen=True, slots=True)
class Degradation:
    """What is done to one page. Zero / False / None: not done."""

    dpi: int = 300
    bilevel: bool = False  # thresholded to black and white, as many office scanners save
    skew: float = 0.0  # degrees, counter-clockwise
    upside_down: bool = False
    blur: float = 0.0  # Gaussian sigma, pixels
    speckle: float = 0.0  # share of pixels turned to dust
    jpeg_quality: int | None = None  # JPEG artifacts at this quality
    uneven_light: float = 0.0  # 0..1: how much darker the darkest corner is
    faint_rules: float = 0.0  # 0..1: how much lighter the table's rules are
    broken_rules: float = 0.0  # 0..1: share of the rules' length lost
    # held-out defects ("degraded-heldout"); absent from truth when not done
    folds: tuple[float, ...] = ()  # creases across the page, at these shares of its height
    punch_holes: bool = False  # three punched holes down the left edge, dark (the lid open)
    edge_shadow: float = 0.0  # 0..1: how dark a shadow along one edge is at the edge
    paper: int = 0  # the paper's grey (255 white) on low-contrast paper, its ink lightened too
    stamp: bool = False  # a received stamp, boxed, in the top right corner
    keystone: float = 0.0  # a photo at an angle: corners moved by up to this share of the width


def pick_degradation(rng: random.Random, style: str) -> Degradation:
    """One page's treatment for a style. A degraded page gets two to five defects."""
    if style == "clean-300":
        return Degradation(dpi=300, bilevel=rng.random() < 0.3)
    if style == "degraded-heldout":
        return _pick_heldout(rng)
    if style != "degraded":
        raise ValueError(f"scan style must be one of {', '.join(SCAN_STYLES)}, not {style!r}")
    chosen = set(rng.sample(DEV_DEFECTS, k=rng.randint(2, 5)))
    if rng.random() < 0.7:
        chosen.add("skew")  # hardly any scan is perfectly straight
    return _with_dev_defects(rng, chosen)


def _pick_heldout(rng: random.Random) -> Degradation:
    """Two to four held-out defects, the usual skew (70%), and one development defect half the
    time (a real scan has several kinds of trouble at once)."""
    chosen = set(rng.sample(HELDOUT_DEFECTS, k=rng.randint(2, 4)))
    dev = {"skew"} if rng.random() < 0.7 else set()
    if rng.random() < 0.5:
        dev.add(rng.choice([k for k in DEV_DEFECTS if k != "upside_down"]))
    base = _with_dev_defects(rng, dev)
    return dataclasses.replace(
        base,
        folds=tuple(
            round(rng.uniform(0.25, 0.75), 3) for _ in range(rng.randint(1, 2)) if "fold" in chosen
        ),
        punch_holes="punch" in chosen,
        edge_shadow=round(rng.uniform(0.3, 0.7), 2) if "shadow" in chosen else 0.0,
        paper=rng.randint(200, 232) if "paper" in chosen else 0,
        stamp="stamp" in chosen,
        keystone=round(rng.uniform(0.01, 0.03), 3) if "photo" in chosen else 0.0,
    )


def _with_dev_defects(rng: random.Random, chosen: set[str]) -> Degradation:
    return Degradation(
        dpi=200 if "dpi" in chosen else 300,
        skew=round(rng.uniform(-3.0, 3.0), 2) if "skew" in chosen else 0.0,
        upside_down="upside_down" in chosen,
        blur=round(rng.uniform(0.6, 1.6), 2) if "blur" in chosen else 0.0,
        speckle=round(rng.uniform(0.0005, 0.003), 4) if "speckle" in chosen else 0.0,
        jpeg_quality=rng.randint(15, 45) if "jpeg" in chosen else None,
        uneven_light=round(rng.uniform(0.2, 0.45), 2) if "light" in chosen else 0.0,
        faint_rules=round(rng.uniform(0.5, 0.8), 2) if "faint" in chosen else 0.0,
        broken_rules=round(rng.uniform(0.2, 0.5), 2) if "broken" in chosen else 0.0,
    )


def render_page(pdf_path: Path, page_index: int, dpi: int) -> Image.Image:
    """One PDF page as a grayscale image at `dpi`."""
    pdf = pdfium.PdfDocument(str(pdf_path))
    try:
        page = pdf[page_index]
        image = page.render(scale=dpi / POINTS_PER_INCH, grayscale=True).to_pil()
        page.close()
    finally:
        pdf.close()
    return image.convert("L")


def _rules_mask(ink: np.ndarray, dpi: int) -> tuple[np.ndarray, np.ndarray]:
    """The long straight horizontal and vertical strokes: the table's rules."""
    length = max(20, int(dpi * 0.4))
    horizontal = cv2.morphologyEx(
        ink, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (length, 1))
    )
    vertical = cv2.morphologyEx(
        ink, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (1, length))
    )
    return horizontal > 0, vertical > 0


def _breaks(n: int, share: float, gen: np.random.Generator, dpi: int) -> np.ndarray:
    """A 1-D mask of gaps along a rule: runs of a few millimetres, `share` of the length."""
    mask = np.zeros(n, dtype=bool)
    run = max(4, dpi // 20)
    for start in range(0, n, run):
        if gen.random() < share:
            mask[start : start + int(run * gen.uniform(0.5, 1.5))] = True
    return mask


def _fold(a: np.ndarray, y0: int, gen: np.random.Generator, dpi: int) -> None:
    """A crease across the page near row y0: a thin dark line that wanders a little, shaded on
    one side (the paper's two faces meet at an angle under the scanner's light)."""
    h, w = a.shape
    xs = np.arange(w)
    wander = (dpi * 0.01 * np.sin(xs / w * gen.uniform(2, 6) + gen.uniform(0, 6))).astype(int)
    band = max(2, int(dpi * 0.06))
    side = 1 if gen.random() < 0.5 else -1
    for k in range(band):  # the shaded side fades away from the crease
        ys = np.clip(y0 + wander + side * k, 0, h - 1)
        a[ys, xs] *= 1 - 0.12 * (1 - k / band)
    for k in range(max(1, dpi // 150)):
        ys = np.clip(y0 + wander + k, 0, h - 1)
        a[ys, xs] *= 0.55


def _punch_holes(a: np.ndarray, dpi: int) -> None:
    """Three holes 1/4 inch across, 4.25 inches apart, half an inch in from the left edge,
    scanned dark (the lid open over them)."""
    h, _ = a.shape
    r = int(dpi * 0.125)
    for y in (h // 2 - int(dpi * 4.25), h // 2, h // 2 + int(dpi * 4.25)):
        if 0 <= y < h:
            cv2.circle(a, (int(dpi * 0.5), y), r, 35.0, -1)


def _edge_shadow(a: np.ndarray, dark: float, gen: np.random.Generator, dpi: int) -> None:
    """A shadow along one edge (a page not flat on the glass), darkest at the edge."""
    h, w = a.shape
    edge = int(gen.integers(0, 4))
    width = int(dpi * gen.uniform(0.4, 1.0))
    ramp = (1 - np.arange(width) / width) ** 2 * dark
    shade = 1 - ramp
    if edge == 0:
        a[:, :width] *= shade[None, :]
    elif edge == 1:
        a[:, w - width :] *= shade[::-1][None, :]
    elif edge == 2:
        a[:width, :] *= shade[:, None]
    else:
        a[h - width :, :] *= shade[::-1][:, None]


def _stamp(a: np.ndarray, gen: np.random.Generator, dpi: int) -> None:
    """A clerk's received stamp in grey ink, boxed, a little tilted, in the top right corner."""
    h, w = a.shape
    layer = np.zeros((int(dpi * 1.0), int(dpi * 2.2)), np.uint8)
    lh, lw = layer.shape
    t = max(2, dpi // 100)
    cv2.rectangle(layer, (t, t), (lw - t, lh - t), 255, t)
    scale = dpi / 150
    cv2.putText(layer, "RECEIVED", (int(lw * 0.1), int(lh * 0.45)), 0, scale * 0.9, 255, t)
    day = f"OCT {int(gen.integers(1, 28))} 2026"
    cv2.putText(layer, day, (int(lw * 0.12), int(lh * 0.82)), 0, scale * 0.7, 255, t)
    turn = cv2.getRotationMatrix2D((lw / 2, lh / 2), float(gen.uniform(-6, 6)), 1.0)
    tilted = np.asarray(cv2.warpAffine(layer, turn, (lw, lh)), dtype=np.float32) / 255.0
    x0, y0 = w - lw - int(dpi * 0.3), int(dpi * 0.25)
    if x0 < 0 or y0 + lh > h:
        return
    region = a[y0 : y0 + lh, x0 : x0 + lw]
    np.minimum(region, 255 - tilted * 150, out=region)


def _keystone(
    out: Image.Image, share: float, gen: np.random.Generator, skew: float = 0.0
) -> Image.Image:
    """The page photographed at an angle, whole in the frame: shrunk to leave a margin of
    desk (a desk's grey) around it, turned by `skew` degrees on the desk (counter-clockwise),
    each corner then moved by up to `share` of the width."""
    a = np.asarray(out)
    h, w = a.shape
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float32)
    # (room for the corners' moves and the turn: the page stays whole in the frame)
    turned = 0.5 * float(np.hypot(w, h)) * abs(float(np.sin(np.radians(skew))))
    margin = np.float32(2 * share * w + turned + 2)
    inset = np.array([[1, 1], [-1, 1], [-1, -1], [1, -1]], dtype=np.float32) * margin
    dst = src + inset
    if skew:
        turn = cv2.getRotationMatrix2D((w / 2, h / 2), skew, 1.0)
        dst = (dst @ turn[:, :2].T + turn[:, 2]).astype(np.float32)
    dst = dst + gen.uniform(-share, share, (4, 2)).astype(np.float32) * w
    m = cv2.getPerspectiveTransform(src, dst)
    desk = int(gen.integers(60, 200))
    warped = cv2.warpPerspective(a, m, (w, h), flags=cv2.INTER_LINEAR, borderValue=desk)
    return Image.fromarray(warped, "L")


def degrade(image: Image.Image, d: Degradation, seed: int) -> Image.Image:
    """Apply a degradation to a page rendered at d.dpi. Deterministic for a seed."""
    gen = np.random.default_rng(seed)
    a: np.ndarray = np.asarray(image, dtype=np.float32)
    if d.stamp:
        _stamp(a, gen, d.dpi)
    if d.faint_rules or d.broken_rules:
        ink = (a < 160).astype(np.uint8)
        horizontal, vertical = _rules_mask(ink, d.dpi)
        rules = horizontal | vertical
        if d.faint_rules:
            a[rules] = 255 - (255 - a[rules]) * (1 - d.faint_rules)
        if d.broken_rules:
            gaps_x = _breaks(a.shape[1], d.broken_rules, gen, d.dpi)
            gaps_y = _breaks(a.shape[0], d.broken_rules, gen, d.dpi)
            a[horizontal & gaps_x[None, :]] = 255
            a[vertical & gaps_y[:, None]] = 255
    if d.uneven_light:
        h, w = a.shape
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        angle = gen.uniform(0, 2 * np.pi)
        ramp = np.cos(angle) * xx / w + np.sin(angle) * yy / h
        ramp = (ramp - ramp.min()) / max(1e-6, float(ramp.max() - ramp.min()))
        light = 1.0 - d.uneven_light * ramp**1.5  # a lamp to one side: the far corner darkest
        a = a * light
    if d.paper:  # white -> the paper's grey, black -> a grey 60 under it (faded toner)
        a = d.paper - (d.paper - 60.0) * (255.0 - a) / 255.0
    for share in d.folds:
        _fold(a, int(a.shape[0] * share), gen, d.dpi)
    if d.punch_holes:
        _punch_holes(a, d.dpi)
    if d.edge_shadow:
        _edge_shadow(a, d.edge_shadow, gen, d.dpi)
    if d.blur:
        a = cv2.GaussianBlur(a, (0, 0), d.blur)
    out = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8), "L")
    if d.keystone:
        out = _keystone(out, d.keystone, gen, d.skew)  # the page turned on the desk
    if d.skew and not d.keystone:  # (a photo's page is turned on the desk, above)
        out = out.rotate(d.skew, resample=Image.Resampling.BICUBIC, expand=False, fillcolor=255)
    if d.upside_down:
        out = out.rotate(180)
    if d.speckle:
        b = np.asarray(out).copy()
        n = int(b.size * d.speckle)
        ys = gen.integers(0, b.shape[0], n)
        xs = gen.integers(0, b.shape[1], n)
        b[ys, xs] = gen.integers(0, 90, n).astype(np.uint8)
        light_ys = gen.integers(0, b.shape[0], n)
        light_xs = gen.integers(0, b.shape[1], n)
        b[light_ys, light_xs] = 255
        out = Image.fromarray(b, "L")
    if d.jpeg_quality is not None:
        buf = io.BytesIO()
        out.save(buf, "JPEG", quality=d.jpeg_quality)
        buf.seek(0)
        out = Image.open(buf).convert("L")
    if d.bilevel:
        out = out.point(lambda v: 255 if v >= 160 else 0).convert("1")
    return out


def write_pages(path: Path, pages: Sequence[Image.Image], dpi: int, jpeg_quality: int = 85) -> None:
    """Write pages as one image file, by the path's suffix: PNG or JPEG (one page), TIFF (one
    or more pages) or an image-only PDF (one or more pages)."""
    suffix = path.suffix.lower()
    first, rest = pages[0], list(pages[1:])
    if suffix == ".png":
        if rest:
            raise ValueError("a PNG holds one page")
        first.save(path, "PNG", dpi=(dpi, dpi), optimize=True)
    elif suffix in (".jpg", ".jpeg"):
        if rest:
            raise ValueError("a JPEG holds one page")
        first.convert("L").save(path, "JPEG", dpi=(dpi, dpi), quality=jpeg_quality)
    elif suffix in (".tif", ".tiff"):
        compression = "group4" if all(p.mode == "1" for p in pages) else "tiff_deflate"
        first.save(
            path,
            "TIFF",
            save_all=True,
            append_images=rest,
            compression=compression,
            dpi=(dpi, dpi),
        )
    elif suffix == ".pdf":
        # Grey pages are stored as JPEG (DCT) in the PDF, black-and-white ones as CCITT G4.
        extra = {} if any(p.mode == "1" for p in pages) else {"quality": jpeg_quality}
        first.save(
            path,
            "PDF",
            save_all=True,
            append_images=rest,
            resolution=float(dpi),
            **extra,
            title="Synthetic scanned petition sheets (no real person's data)",
            author="petitions synthetic generator",
            creationDate=None,
            modDate=None,
        )
    else:
        raise ValueError(f"cannot write {path.name}: use .png, .jpg, .tif or .pdf")


def _output_names(rng: random.Random, style: str, source: str, n_pages: int) -> str:
    stem = Path(source).stem
    if n_pages > 1:
        return f"{stem}.{rng.choice(('tif', 'pdf'))}"
    if style.startswith("degraded"):
        choices, weights = ("jpg", "png", "tif", "pdf"), (4, 2, 1, 1)
    else:
        choices, weights = ("png", "tif", "pdf", "jpg"), (4, 2, 2, 1)
    return f"{stem}.{rng.choices(choices, weights=weights)[0]}"


def scan_case(src: Path, dst: Path, style: str, seed: int) -> Path:
    """Write `src` (a generated case folder) scanned in `style` into `dst`; return the new
    case.toml. The truth keeps every line; each sheet's entry gets its new file, page and
    `scan` (the degradation applied)."""
    if style not in SCAN_STYLES:
        raise ValueError(f"scan style must be one of {', '.join(SCAN_STYLES)}, not {style!r}")
    rng = random.Random(seed)
    src, dst = Path(src), Path(dst)
    (dst / "sheets").mkdir(parents=True, exist_ok=True)
    for path in src.iterdir():  # the case file, the register or roll: all but sheets and truth
        if path.is_file() and path.name not in ("truth.json", "README.md"):
            shutil.copyfile(path, dst / path.name)
    truth: dict[str, Any] = json.loads((src / "truth.json").read_text(encoding="utf-8"))
    by_file: dict[str, list[dict[str, Any]]] = {}
    for sheet in truth["sheets"]:
        by_file.setdefault(sheet["file"], []).append(sheet)
    for file, sheets in by_file.items():
        sheets.sort(key=lambda s: s["page_index"])
        out_name = "sheets/" + _output_names(rng, style, file, len(sheets))
        pages: list[Image.Image] = []
        dpi = 300
        quality = 85
        for page_index, sheet in enumerate(sheets):
            d = pick_degradation(rng, style)
            if out_name.endswith((".tif", ".pdf")) and pages:
                d = dataclasses.replace(d, dpi=dpi)  # one resolution per multi-page file
            dpi = d.dpi
            quality = min(quality, d.jpeg_quality or 85)
            image = render_page(src / file, sheet["page_index"], d.dpi)
            pages.append(degrade(image, d, rng.randrange(2**32)))
            sheet["file"] = out_name
            sheet["page_index"] = page_index
            sheet["scan"] = _as_truth(d)
        write_pages(dst / out_name, pages, dpi, quality)
    truth["style"] = {"clean-300": "clean-scan", "degraded": "degraded-scan"}.get(
        style, "heldout-scan"
    )
    truth["scan_style"] = style
    truth["scan_seed"] = seed
    (dst / "truth.json").write_text(
        json.dumps(truth, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    (dst / "README.md").write_text(_readme(truth, style, seed), encoding="utf-8")
    log.info("scanned case written to %s (%s)", dst, style)
    return dst / "case.toml"


def _as_truth(d: Degradation) -> dict[str, Any]:
    """A page's degradation as truth records it: the held-out defects only where done (the
    development styles' truth is as it was before they existed)."""
    heldout = ("folds", "punch_holes", "edge_shadow", "paper", "stamp", "keystone")
    return {k: v for k, v in dataclasses.asdict(d).items() if k not in heldout or v}


def _readme(truth: dict[str, Any], style: str, seed: int) -> str:
    return (
        "# Synthetic scanned petition case\n\n"
        "Every file here is synthetic: generated by the `petitions` project's fixture generator\n"
        f"(`synth`, case seed {truth.get('seed')}) and scanned by `synth.scan`\n"
        f"in style {style!r} (scan seed {seed}). No real person's data.\n\n"
        "- `register.csv`: a village register in the NYS BOE 45-field voter-export layout\n"
        "- `sheets/`: the sheets as images (PNG, JPEG, TIFF, image-only PDF)\n"
        "- `case.toml`: the case file\n"
        "- `truth.json`: what the generator intended; each sheet's `scan` says what was done\n"
        "  to its page (row boxes are on the unrotated page, in PDF points)\n"
    )
