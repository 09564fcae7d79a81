"""Synthetic scans: a born-digital case's sheets rasterized and degraded like real scans.

`scan_case(src, dst, style, seed)` turns a generated case (PDF sheets + truth.json) into the
same case scanned: the register, case.toml and truth are the same, the sheets folder holds
images instead of PDFs, and truth.json says which file and page each sheet went to and what
was done to it.

Styles:

- "clean-300": 300 dpi grayscale (sometimes bilevel), straight, clean.
- "degraded": a seeded mix of skew up to ±3°, pages upside down, 200 dpi, blur, speckle,
  JPEG artifacts, uneven light, and faint or broken table rules.

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

SCAN_STYLES = ("clean-300", "degraded")
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


def pick_degradation(rng: random.Random, style: str) -> Degradation:
    """One page's treatment for a style. A degraded page gets two to five defects."""
    if style == "clean-300":
        return Degradation(dpi=300, bilevel=rng.random() < 0.3)
    if style != "degraded":
        raise ValueError(f"scan style must be one of {', '.join(SCAN_STYLES)}, not {style!r}")
    kinds = ["skew", "upside_down", "dpi", "blur", "speckle", "jpeg", "light", "faint", "broken"]
    chosen = set(rng.sample(kinds, k=rng.randint(2, 5)))
    if rng.random() < 0.7:
        chosen.add("skew")  # hardly any scan is perfectly straight
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


def degrade(image: Image.Image, d: Degradation, seed: int) -> Image.Image:
    """Apply a degradation to a page rendered at d.dpi. Deterministic for a seed."""
    gen = np.random.default_rng(seed)
    a: np.ndarray = np.asarray(image, dtype=np.float32)
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
    if d.blur:
        a = cv2.GaussianBlur(a, (0, 0), d.blur)
    out = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8), "L")
    if d.skew:
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
    if style == "degraded":
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
            sheet["scan"] = dataclasses.asdict(d)
        write_pages(dst / out_name, pages, dpi, quality)
    truth["style"] = "clean-scan" if style == "clean-300" else "degraded-scan"
    truth["scan_style"] = style
    truth["scan_seed"] = seed
    (dst / "truth.json").write_text(
        json.dumps(truth, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    (dst / "README.md").write_text(_readme(truth, style, seed), encoding="utf-8")
    log.info("scanned case written to %s (%s)", dst, style)
    return dst / "case.toml"


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
