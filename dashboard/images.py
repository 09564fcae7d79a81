"""Pictures for the reviewer: a sheet's page as PNG, and a line's crop.

A scanned line's crop was written by the check (`crops/`); a born-digital line's is cut here
from the page's picture by the line's box (PDF points). Pictures are made once and kept in
the report folder (`pages/`); nothing is read again for its text.
"""

from __future__ import annotations

import threading
from pathlib import Path

from PIL import Image

from pipeline.records import PageKind, PageRef, Sheet, SignatureLine

__all__ = ["crop_png", "page_png"]

VIEW_DPI = 110
_lock = threading.Lock()


def page_png(out_dir: Path, page: PageRef) -> Path:
    """The page as a PNG at VIEW_DPI, made on first use."""
    path = Path(out_dir) / "pages" / f"{page.page_id}.png"
    with _lock:
        if path.is_file():
            return path
        path.parent.mkdir(parents=True, exist_ok=True)
        if page.kind in (PageKind.PDF_TEXT, PageKind.PDF_IMAGE, PageKind.PDF_OCR):
            import pypdfium2 as pdfium

            pdf = pdfium.PdfDocument(page.path)
            try:
                img = pdf[page.page_index].render(scale=VIEW_DPI / 72).to_pil()
            finally:
                pdf.close()
        else:
            with Image.open(page.path) as src:
                src.seek(page.page_index)
                img = src.convert("L")
                scale = VIEW_DPI / (page.dpi or 300)
                img = img.resize((max(1, int(img.width * scale)), max(1, int(img.height * scale))))
        tmp = path.with_suffix(".tmp")
        img.save(tmp, format="PNG")
        tmp.replace(path)
        return path


def crop_png(out_dir: Path, sheet: Sheet, line: SignatureLine) -> Path:
    """The line's crop written by the check, or one cut from the page's picture."""
    if line.crop_path and Path(line.crop_path).is_file():
        return Path(line.crop_path)
    path = Path(out_dir) / "pages" / "lines" / f"{line.line_id}.png"
    if path.is_file():
        return path
    page = page_png(out_dir, sheet.page)
    with Image.open(page) as img:
        if line.box is None:
            crop = img.copy()
        else:
            k = img.width / sheet.page.width if sheet.page.width else VIEW_DPI / 72
            b = line.box
            crop = img.crop(
                (int(b.x0 * k) - 4, int(b.top * k) - 4, int(b.x1 * k) + 4, int(b.bottom * k) + 4)
            )
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    crop.save(tmp, format="PNG")
    tmp.replace(path)
    return path
