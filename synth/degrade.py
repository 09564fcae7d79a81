"""Synthetic scans for tests and the benchmark: born-digital sheets rasterized and degraded.

The sheets come from `synth` (invented people, no real person's data). Each page is
rendered with pypdfium2 at a chosen resolution and then degraded the way a scanner and a
photocopier degrade paper: turned upside down, skewed a few degrees, blurred, speckled, saved as
a lossy JPEG, lit unevenly, its ruled lines made faint and broken. `write_scan_case` turns a
synthetic case (case.toml, register.csv, sheets/*.pdf, truth.json) into the same case whose
sheets are scans, with truth.json's file names rewritten, so the whole pipeline can be checked
against the generator's ground truth.
"""

from __future__ import annotations

import json
import logging
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
    "Degrade",
    "degrade",
    "rasterize_pdf",
    "save_scan",
    "write_scan_case",
    "write_searchable_pdf",
]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Degrade:
    """How to spoil one page. The defaults leave it clean."""

    rotate: int = 0  # 0, 90, 180 or 270 degrees, clockwise
    skew: float = 0.0  # degrees, counter-clockwise positive
    blur: float = 0.0  # Gaussian sigma in pixels
    speckle: float = 0.0  # fraction of pixels flipped to black or white
    jpeg_quality: int = 0  # 0: no JPEG round trip
    uneven_light: float = 0.0  # 0..1: how much darker one corner gets
    faint_rules: bool = False  # ruled lines lightened to grey and broken
    seed: int = 0


def rasterize_pdf(path: Path, dpi: float) -> list[np.ndarray]:
    """Every page of a PDF as a greyscale image at `dpi`."""
    pdf = pdfium.PdfDocument(str(path))
    try:
        pages = []
        for i in range(len(pdf)):
            page = pdf[i]
            bitmap = page.render(scale=dpi / 72.0, grayscale=True)
            pages.append(np.array(np.squeeze(bitmap.to_numpy())))
            page.close()
        return pages
    finally:
        pdf.close()


def _faint_rules(img: np.ndarray, rng: np.random.Generator, dpi: float) -> np.ndarray:
    """Long horizontal and vertical rules lightened to grey and broken by short gaps."""
    ink = (img < 128).astype(np.uint8)
    long_px = max(10, int(dpi * 0.4))
    h = cv2.morphologyEx(
        ink, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (long_px, 1))
    )
    v = cv2.morphologyEx(
        ink, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (1, long_px))
    )
    rules = cv2.bitwise_or(h, v).astype(bool)
    out = img.copy()
    out[rules] = np.maximum(out[rules], 175)
    gap = max(2, int(dpi * 0.03))
    ys, xs = np.nonzero(h)
    for _ in range(int(img.shape[1] / dpi * 6)):
        if len(ys) == 0:
            break
        k = int(rng.integers(len(ys)))
        y, x = ys[k], xs[k]
        out[max(0, y - 3) : y + 4, x : x + gap][rules[max(0, y - 3) : y + 4, x : x + gap]] = 255
    return out


def degrade(img: np.ndarray, spec: Degrade, dpi: float = 300.0) -> np.ndarray:
    """A degraded copy of a clean greyscale page."""
    rng = np.random.default_rng(spec.seed)
    out = _faint_rules(img, rng, dpi) if spec.faint_rules else img.copy()
    if spec.uneven_light:
        hgt, wid = out.shape
        yy, xx = np.mgrid[0:hgt, 0:wid].astype(np.float32)
        shade = 1.0 - spec.uneven_light * (xx / wid + yy / hgt) / 2
        out = (out.astype(np.float32) * shade).clip(0, 255).astype(np.uint8)
    if spec.skew:
        hgt, wid = out.shape
        m = cv2.getRotationMatrix2D((wid / 2, hgt / 2), spec.skew, 1.0)
        out = cv2.warpAffine(
            out,
            m,
            (wid, hgt),
            flags=cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=255,
        )
    if spec.blur:
        out = cv2.GaussianBlur(out, (0, 0), spec.blur)
    if spec.speckle:
        noise = rng.random(out.shape)
        out[noise < spec.speckle / 2] = 0
        out[noise > 1 - spec.speckle / 2] = 255
    rot = {90: cv2.ROTATE_90_CLOCKWISE, 180: cv2.ROTATE_180, 270: cv2.ROTATE_90_COUNTERCLOCKWISE}
    if spec.rotate in rot:
        out = cv2.rotate(out, rot[spec.rotate])
    if spec.jpeg_quality:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, spec.jpeg_quality])
        decoded = cv2.imdecode(buf, cv2.IMREAD_GRAYSCALE) if ok else None
        if decoded is not None:
            out = decoded
    return out


def write_searchable_pdf(
    image: np.ndarray,
    dpi: float,
    words: Sequence[tuple[str, float, float, float, float]],
    path: Path,
) -> Path:
    """A scan saved as a "searchable PDF": the page image with an earlier OCR's invisible text
    laid over it, each word (text, x0, top, x1, bottom in points from the top-left) drawn in
    Helvetica at its box's height and stretched to its width (text render mode 3: invisible),
    as a scanner's OCR or ocrmypdf leaves it."""
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfbase.pdfmetrics import stringWidth
    from reportlab.pdfgen.canvas import Canvas

    hgt, wid = image.shape[:2]
    page_w, page_h = wid * 72 / dpi, hgt * 72 / dpi
    c = Canvas(str(path), pagesize=(page_w, page_h))
    c.drawImage(ImageReader(Image.fromarray(image)), 0, 0, width=page_w, height=page_h)
    for text, x0, top, x1, bottom in words:
        size = max(1.0, bottom - top)
        natural = stringWidth(text, "Helvetica", size) or 1.0
        t = c.beginText()
        t.setTextRenderMode(3)
        t.setFont("Helvetica", size)
        t.setHorizScale(100.0 * (x1 - x0) / natural)
        t.setTextOrigin(x0, page_h - bottom + 0.207 * size)  # Helvetica's descender
        t.textOut(text)
        c.drawText(t)
    c.showPage()
    c.save()
    return path


def save_scan(
    pages: Sequence[np.ndarray], path: Path, dpi: float, *, keep_dpi: bool = True
) -> None:
    """Pages saved as PNG, JPEG, (multi-page) TIFF or an image-only PDF, chosen by suffix."""
    images = [Image.fromarray(p) for p in pages]
    suffix = path.suffix.lower()
    info: dict[str, Any] = {"dpi": (dpi, dpi)} if keep_dpi else {}
    if suffix == ".pdf":
        images[0].save(path, save_all=True, append_images=images[1:], resolution=dpi)
    elif suffix in (".tif", ".tiff"):
        info.update(save_all=True, append_images=images[1:], compression="tiff_lzw")
        images[0].save(path, **info)
    elif suffix in (".jpg", ".jpeg"):
        images[0].save(path, quality=90, **info)
    else:
        images[0].save(path, **info)


def write_scan_case(
    src: Path,
    dest: Path,
    *,
    dpi: float = 300.0,
    specs: Sequence[Degrade] = (Degrade(),),
    suffix: str = ".png",
) -> Path:
    """A copy of the synthetic case in `src` whose sheets are scans; returns the new case.toml.

    Page k of the case (in truth.json order) gets `specs[k % len(specs)]` with its own seed.
    Each page becomes one file `sheets/sheet-NN<suffix>`, except with suffix ".tif" or ".pdf"
    where each source file keeps its pages together (multi-page TIFF, image-only PDF)."""
    src, dest = Path(src), Path(dest)
    (dest / "sheets").mkdir(parents=True, exist_ok=True)
    for name in ("case.toml", "register.csv", "README.md"):
        if (src / name).exists():
            shutil.copy(src / name, dest / name)
    truth = json.loads((src / "truth.json").read_text(encoding="utf-8"))
    by_file: dict[str, list[dict]] = {}
    for sheet in truth["sheets"]:
        by_file.setdefault(sheet["file"], []).append(sheet)
    k = 0
    for file, sheets in by_file.items():
        rendered = rasterize_pdf(src / file, dpi)
        pages = []
        for sheet in sheets:
            base = specs[k % len(specs)]
            spec = Degrade(**{**_asdict(base), "seed": base.seed + k})
            pages.append(degrade(rendered[sheet["page_index"]], spec, dpi))
            sheet["degrade"] = _asdict(spec)
            k += 1
        if suffix in (".tif", ".tiff", ".pdf"):
            name = f"sheets/{Path(file).stem}{suffix}"
            save_scan(pages, dest / name, dpi)
            for sheet in sheets:
                sheet["file"] = name
        else:
            for page, sheet in zip(pages, sheets, strict=True):
                name = f"sheets/sheet-{sheet['sheet_number']:02d}-p{sheet['page_index']}{suffix}"
                save_scan([page], dest / name, dpi)
                sheet["file"] = name
                sheet["page_index"] = 0
    truth["scan"] = {"dpi": dpi, "suffix": suffix}
    (dest / "truth.json").write_text(json.dumps(truth, indent=1) + "\n", encoding="utf-8")
    log.info("scanned case written to %s (%d pages at %s dpi)", dest, k, dpi)
    return dest / "case.toml"


def _asdict(spec: Degrade) -> dict:
    return {name: getattr(spec, name) for name in Degrade.__dataclass_fields__}
