"""Ingest: from the case's sheet paths to pages, and from a page to a Sheet.

`discover` expands folders into files (in name order: the order sheets are filed). `ingest_file`
opens one file and lists its pages, each identified by the hash of its content. `read_page` reads
one page into a Sheet: a PDF page with a text layer is read from that layer with pdfplumber, no
OCR. Scanned pages (image files, image-only PDF pages) are read by `pipeline.scan` with OCR.

A file that cannot be read becomes a FileError; the rest of the batch goes on.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from pathlib import Path

import pdfplumber
from pdfminer.pdfparser import PDFSyntaxError
from pdfplumber.utils.exceptions import PdfminerException
from PIL import Image, ImageSequence, UnidentifiedImageError

from .errors import UnreadableInputError
from .records import FileError, PageKind, PageRef, Sheet
from .scan.context import ReadContext
from .scan.reader import read_image_page
from .textlayer import read_text_page, text_layer_usable

__all__ = ["PDF_SUFFIXES", "IMAGE_SUFFIXES", "discover", "ingest_file", "read_page", "sha256_file"]

log = logging.getLogger(__name__)

PDF_SUFFIXES = frozenset({".pdf"})
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".tif", ".tiff"})
POINTS_PER_INCH = 72.0


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def discover(paths: Sequence[Path]) -> tuple[list[Path], list[FileError]]:
    """The sheet files under the given paths, folders expanded in name order. Files of a kind we
    cannot read are reported, not skipped silently (hidden files and README files excepted)."""
    files: list[Path] = []
    errors: list[FileError] = []
    for p in paths:
        if p.is_dir():
            children = sorted(c for c in p.iterdir() if c.is_file())
        elif p.exists():
            children = [p]
        else:
            errors.append(FileError(str(p), "does not exist"))
            continue
        for c in children:
            suffix = c.suffix.lower()
            if suffix in PDF_SUFFIXES or suffix in IMAGE_SUFFIXES:
                files.append(c)
            elif c.name.startswith(".") or c.stem.upper() == "README":
                continue
            else:
                errors.append(
                    FileError(
                        str(c), f"not a sheet file (expected PDF, PNG, JPEG or TIFF): {c.name}"
                    )
                )
    return files, errors


def _pdf_page_hash(page: pdfplumber.page.Page) -> str:
    """Hash of what is drawn on the page: its content streams and its images' data."""
    h = hashlib.sha256()
    contents = page.page_obj.contents or []
    for stream in contents:
        h.update(stream.get_data())
    for image in page.images:
        stream = image.get("stream")
        if stream is not None:
            h.update(stream.get_rawdata() or b"")
    return h.hexdigest()


# A page whose largest image covers this share of it is a scan, whatever text it carries.
SCAN_IMAGE_COVER = 0.8


def _scan_with_earlier_ocr(page: pdfplumber.page.Page) -> bool:
    """A scan whose text layer is an earlier OCR (invisible text laid over a page-size image):
    that text is someone else's guess, with no confidence to go by, and the table's rules are
    in the image, not in the PDF; the page is read from its image, the layer only placing
    the printed wording's blanks when it is good enough (`pipeline.scan.layer`)."""
    area = float(page.width) * float(page.height)
    if area <= 0:
        return False
    for image in page.images:
        drawn = (float(image["x1"]) - float(image["x0"])) * (
            float(image["bottom"]) - float(image["top"])
        )
        if drawn >= SCAN_IMAGE_COVER * area:
            return True
    return False


def _ingest_pdf(path: Path) -> list[PageRef]:
    refs = []
    try:
        pdf = pdfplumber.open(path)
    except (PdfminerException, PDFSyntaxError, OSError) as err:
        raise UnreadableInputError(f"{path}: not a readable PDF ({err})") from None
    with pdf:
        if not pdf.pages:
            raise UnreadableInputError(f"{path}: the PDF has no pages")
        for i, page in enumerate(pdf.pages):
            kind = PageKind.PDF_IMAGE
            if text_layer_usable(page):
                kind = PageKind.PDF_OCR if _scan_with_earlier_ocr(page) else PageKind.PDF_TEXT
            refs.append(
                PageRef(
                    path=str(path),
                    page_index=i,
                    content_hash=_pdf_page_hash(page),
                    kind=kind,
                    width=float(page.width),
                    height=float(page.height),
                )
            )
            page.close()
    return refs


def _ingest_image(path: Path) -> list[PageRef]:
    """An image file's pages from its headers alone: the pixels are decoded once, when the page
    is read (decoding here too cost a 300-dpi PNG sheet ~30 ms). A page's identity is the
    file's bytes and the page's place in it: the same file uploaded twice is found; a page
    re-saved in another format is not (its pixels would have to be decoded to compare)."""
    refs = []
    try:
        img = Image.open(path)
        file_hash = sha256_file(path)
    except (UnidentifiedImageError, OSError) as err:
        raise UnreadableInputError(f"{path}: not a readable image ({err})") from None
    with img:
        for i, frame in enumerate(ImageSequence.Iterator(img)):
            dpi_info = frame.info.get("dpi")
            dpi = float(dpi_info[0]) if dpi_info and dpi_info[0] else None
            # Unknown resolution: assume a Letter page's width (8.5 in) was scanned.
            effective = dpi or frame.width / 8.5
            refs.append(
                PageRef(
                    path=str(path),
                    page_index=i,
                    content_hash=hashlib.sha256(f"{file_hash}#{i}".encode()).hexdigest(),
                    kind=PageKind.IMAGE,
                    width=frame.width / effective * POINTS_PER_INCH,
                    height=frame.height / effective * POINTS_PER_INCH,
                    dpi=dpi,
                )
            )
    return refs


def ingest_file(path: Path) -> list[PageRef]:
    """The pages of one sheet file. Raises UnreadableInputError naming the file and the problem."""
    path = Path(path)
    if path.suffix.lower() in PDF_SUFFIXES:
        return _ingest_pdf(path)
    return _ingest_image(path)


def read_page(ref: PageRef, context: ReadContext | None = None) -> Sheet:
    """One page read into a Sheet. Text-layer PDF pages are read with pdfplumber; scans (image
    files, image-only PDF pages) by the scan reader (`pipeline.scan`) with the context's OCR
    engine (`ReadContext()`: tesseract in-process, when none is given), which writes each
    line's crop into the context's `crops_dir` when it has one."""
    if ref.kind is PageKind.PDF_TEXT:
        try:
            with pdfplumber.open(ref.path) as pdf:
                page = pdf.pages[ref.page_index]
                try:
                    return read_text_page(page, ref)
                finally:
                    page.close()
        except (PdfminerException, PDFSyntaxError, OSError) as err:
            raise UnreadableInputError(
                f"{ref.path} page {ref.page_index + 1}: cannot be read ({err})"
            ) from None
    log.debug("page %s of %s is a scan: reading it with OCR", ref.page_index + 1, ref.path)
    return read_image_page(ref, context if context is not None else ReadContext())
