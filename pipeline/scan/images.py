"""Load one page of a scan as a greyscale image, keeping its resolution.

Image files (PNG, JPEG, single and multi-page TIFF) are read with Pillow; their DPI comes from
the file, or, when the file does not say, is estimated from the pixel size on the assumption
that the sheet is US Letter or Legal (8.5 in wide). An image-only PDF page is rendered with
pypdfium2 at the resolution of the largest image embedded on it (so the scan is neither
upsampled nor thrown away), capped at MAX_RENDER_DPI.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass

import numpy as np
from PIL import Image, UnidentifiedImageError

from ..errors import UnreadableInputError
from ..records import PageKind, PageRef

__all__ = ["PageImage", "estimate_dpi", "load_page_image", "pdf_image_dpi", "pixel_identity"]

log = logging.getLogger(__name__)

DEFAULT_RENDER_DPI = 300.0
MIN_RENDER_DPI = 150.0
MAX_RENDER_DPI = 400.0
PAPER_SHORT_IN = 8.5  # Letter and Legal are both 8.5 inches wide


@dataclass(frozen=True, slots=True)
class PageImage:
    gray: np.ndarray  # 8-bit greyscale, C-contiguous
    dpi: float
    dpi_estimated: bool
    identity: str | None = None  # an image file's page: the hash of its pixels (pixel_identity)


def pixel_identity(mode: str, size: tuple[int, int], pixels: bytes | memoryview) -> str:
    """An image page's identity: the hash of every decoded pixel (not a reduced decode: two
    sheets differing in one mark are two pages, and a page taken for a copy of another would
    not be read), so a sheet re-saved with the same pixels is the same page."""
    h = hashlib.sha256(f"{mode} {size[0]}x{size[1]}\n".encode())
    h.update(pixels)
    return h.hexdigest()


def estimate_dpi(width_px: int, height_px: int) -> float:
    """DPI of a page scan whose file does not say: its short side is taken as 8.5 inches."""
    return min(width_px, height_px) / PAPER_SHORT_IN


def _load_image_file(ref: PageRef) -> PageImage:
    try:
        with Image.open(ref.path) as img:
            img.seek(ref.page_index)
            dpi_info = img.info.get("dpi")
            img.load()
            if img.mode == "L":  # decoded once: the identity hashes the pixels read
                gray = np.ascontiguousarray(np.asarray(img))
                identity = pixel_identity(img.mode, img.size, gray.data)
            else:
                identity = pixel_identity(img.mode, img.size, img.tobytes())
                gray = np.asarray(img.convert("L"))
    except (UnidentifiedImageError, OSError, EOFError, ValueError, SyntaxError) as err:
        raise UnreadableInputError(
            f"{ref.path} page {ref.page_index + 1}: not a readable image ({err})"
        ) from None
    dpi = float(dpi_info[0]) if dpi_info and dpi_info[0] and float(dpi_info[0]) > 1 else None
    if dpi is None or dpi < 50:  # absent, or a bogus 1 or 72 written by some software
        return PageImage(gray, estimate_dpi(gray.shape[1], gray.shape[0]), True, identity)
    return PageImage(gray, dpi, False, identity)


def pdf_image_dpi(page: object, width_pt: float) -> float | None:
    """Resolution of the largest image drawn on a pypdfium2 page, in pixels per inch."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c

    best: tuple[float, float] | None = None
    assert isinstance(page, pdfium.PdfPage)
    for obj in page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_IMAGE], max_depth=2):
        try:
            px_w, px_h = obj.get_px_size()
            left, bottom, right, top = obj.get_bounds()
        except (AttributeError, pdfium.PdfiumError, ValueError):  # a malformed image: skip it
            continue
        drawn_w = abs(right - left)
        if drawn_w <= 0 or px_w <= 0:
            continue
        area = drawn_w * abs(top - bottom)
        dpi = px_w / (drawn_w / 72.0)
        if best is None or area > best[0]:
            best = (area, dpi)
    return best[1] if best else None


def _load_pdf_page(ref: PageRef) -> PageImage:
    import pypdfium2 as pdfium

    try:
        pdf = pdfium.PdfDocument(ref.path)
    except (pdfium.PdfiumError, OSError) as err:
        raise UnreadableInputError(f"{ref.path}: not a readable PDF ({err})") from None
    try:
        page = pdf[ref.page_index]
        width_pt = page.get_width()
        dpi = pdf_image_dpi(page, width_pt)
        estimated = dpi is None
        dpi = min(MAX_RENDER_DPI, max(MIN_RENDER_DPI, dpi or DEFAULT_RENDER_DPI))
        bitmap = page.render(scale=dpi / 72.0, grayscale=True)
        gray = np.array(np.squeeze(bitmap.to_numpy()), dtype=np.uint8)
        page.close()
    finally:
        pdf.close()
    return PageImage(np.ascontiguousarray(gray), dpi, estimated)


def load_page_image(ref: PageRef) -> PageImage:
    """The page as a greyscale image with its DPI. Raises UnreadableInputError."""
    if ref.kind is PageKind.IMAGE:
        return _load_image_file(ref)
    return _load_pdf_page(ref)
