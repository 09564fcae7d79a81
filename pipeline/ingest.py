"""Ingest: from the case's sheet paths to pages, and from a page to a Sheet.

`discover` expands folders into files (in name order: the order sheets are filed). `ingest_file`
opens one file and lists its pages, each identified by the hash of its content. `read_page` reads
one page into a Sheet: a PDF page with a text layer is read from that layer with pdfplumber, no
OCR. Scanned pages (image files, image-only PDF pages) are read by `pipeline.scan` with OCR.

A file that cannot be read becomes a FileError; the rest of the batch goes on. The case's
`[limits]` are checked before the expensive step: a file's type before it is opened (a FIFO or
a device is never read), a PDF's page count and page sizes before any page is parsed, an
image's pixels from its header before it is decoded.
"""

from __future__ import annotations

import hashlib
import logging
import re
import stat
from collections.abc import Sequence
from pathlib import Path

import pdfplumber
import pypdfium2 as pdfium
from PIL import Image, ImageSequence, UnidentifiedImageError

from .case import LimitsConfig
from .errors import PetitionError, UnreadableInputError
from .records import FileError, PageKind, PageRef, Sheet
from .scan.context import ReadContext
from .scan.reader import read_image_page
from .textlayer import read_text_page, text_layer_usable

__all__ = [
    "IMAGE_SUFFIXES",
    "PDF_SUFFIXES",
    "discover",
    "ingest_file",
    "not_a_regular_file",
    "read_page",
    "sha256_file",
]

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


_FOLDER_IN_SHEETS = (
    "a folder inside the sheets folder: its files are not read (name it in the case file's "
    "sheets to read them)"
)


def name_order(path: Path) -> tuple[tuple[str | int, ...], str]:
    """A file's place among its folder's as a person counts them: "sheet 2" before "sheet 10"
    (zero-padded names sort as they did); a scanned stack's order is its files' (the sheet
    numbers' closed world reads each sheet by its neighbours: `closedworld.sheetno`)."""
    parts = re.split(r"(\d+)", path.name)
    return tuple(int(t) if i % 2 else t.casefold() for i, t in enumerate(parts)), path.name


def discover(paths: Sequence[Path]) -> tuple[list[Path], list[FileError]]:
    """The sheet files under the given paths, folders expanded in name order (`name_order`).
    Files of a kind we cannot read are reported, not skipped silently (hidden files and README
    files excepted); so is a folder inside a folder of sheets (its files are not read: not
    followed, a link to a folder cannot loop)."""
    files: list[Path] = []
    errors: list[FileError] = []
    for p in paths:
        if p.is_dir():
            children = sorted(p.iterdir(), key=name_order)
            for c in (c for c in children if c.is_dir() and not c.name.startswith(".")):
                errors.append(FileError(str(c), f"{c}: {_FOLDER_IN_SHEETS}"))
            children = [c for c in children if not c.is_dir()]
        elif p.exists():
            children = [p]
        else:
            errors.append(FileError(str(p), f"{p}: does not exist"))
            continue
        for c in children:
            suffix = c.suffix.lower()
            if not c.name.startswith(".") and (problem := not_a_regular_file(c)):
                errors.append(FileError(str(c), problem))
                continue
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


def not_a_regular_file(path: Path) -> str | None:
    """Why `path` is refused before it is opened (a FIFO or a device would hang the run or
    never end), or None for a regular file."""
    try:
        mode = path.stat().st_mode
    except OSError as err:
        return f"{path}: cannot be opened ({err.strerror})"
    if stat.S_ISREG(mode):
        return None
    what = (
        "a FIFO (named pipe)"
        if stat.S_ISFIFO(mode)
        else "a device"
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
        else "a socket"
        if stat.S_ISSOCK(mode)
        else "not a regular file"
    )
    return f"{path}: {what}, not a regular file: refused without reading it"


def _check_pdf(path: Path, limits: LimitsConfig) -> None:
    """Page count and page sizes from the PDF's page tree (pdfium, fast), before pdfplumber
    parses any page: a 5,000-page file or a 69-inch page is refused, not read for minutes."""
    try:
        doc = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as err:
        if "password" in str(err).lower():
            raise UnreadableInputError(
                f"{path}: the PDF is password-protected; give the sheets without a password"
            ) from None
        raise UnreadableInputError(f"{path}: not a readable PDF ({err})") from None
    try:
        pages = len(doc)
        if pages == 0:
            raise UnreadableInputError(f"{path}: the PDF has no pages")
        if pages > limits.pages_per_file:
            raise UnreadableInputError(
                f"{path}: {pages} pages, over the limit of {limits.pages_per_file} a file "
                "([limits] pages_per_file)"
            )
        most = limits.page_inches * POINTS_PER_INCH
        for i in range(pages):
            try:
                width, height = doc.get_page_size(i)
            except pdfium.PdfiumError as err:
                raise UnreadableInputError(
                    f"{path} page {i + 1}: not a readable PDF page ({err})"
                ) from None
            if not (0 < width <= most and 0 < height <= most):
                raise UnreadableInputError(
                    f"{path} page {i + 1}: {width / POINTS_PER_INCH:.1f} x "
                    f"{height / POINTS_PER_INCH:.1f} inches, not a petition sheet (at most "
                    f"{limits.page_inches:g} in a side: [limits] page_inches)"
                )
    finally:
        doc.close()


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


def _ingest_pdf(path: Path, limits: LimitsConfig) -> list[PageRef]:
    _check_pdf(path, limits)
    try:
        return _pdf_pages(path)
    except PetitionError:
        raise
    except Exception as err:  # pdfminer's many errors on a hostile file (cycles, nesting)
        log.debug("%s: pdfplumber failed", path, exc_info=True)
        raise UnreadableInputError(
            f"{path}: not a readable PDF ({type(err).__name__}: {str(err)[:120]})"
        ) from None


def _pdf_pages(path: Path) -> list[PageRef]:
    refs = []
    with pdfplumber.open(path) as pdf:
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


def _ingest_image(path: Path, limits: LimitsConfig, file_sha256: str | None) -> list[PageRef]:
    """An image file's pages, from its headers: no pixel is decoded here. Each page's size is
    checked before it is read. Its identity here is the file's bytes and the page's place in
    them (the same file twice is read once); the reader, which decodes the pixels anyway,
    gives the page the hash of its pixels (`pipeline.scan.images.pixel_identity`), so a sheet
    re-saved with the same pixels (another PNG compression, PNG to TIFF) keeps its line ids
    and the reviewers' decisions on them."""
    file_id = file_sha256 or sha256_file(path)
    refs = []
    try:
        img = Image.open(path)
    except Image.DecompressionBombError as err:
        raise UnreadableInputError(
            f"{path}: too many pixels for a sheet ({err}); [limits] image_pixels is "
            f"{limits.image_pixels:,}"
        ) from None
    except (UnidentifiedImageError, OSError, ValueError) as err:
        raise UnreadableInputError(f"{path}: not a readable image ({err})") from None
    with img:
        try:
            for i, frame in enumerate(ImageSequence.Iterator(img)):
                if i >= limits.pages_per_file:
                    raise UnreadableInputError(
                        f"{path}: more than {limits.pages_per_file} pages ([limits] pages_per_file)"
                    )
                _check_pixels(path, i, frame.width, frame.height, limits)
                refs.append(_image_page(path, i, frame, file_id))
        except (OSError, ValueError, SyntaxError, Image.DecompressionBombError) as err:
            raise UnreadableInputError(
                f"{path}: not a readable image ({type(err).__name__}: {str(err)[:120]})"
            ) from None
    return refs


def _check_pixels(path: Path, i: int, width: int, height: int, limits: LimitsConfig) -> None:
    where = f"{path} page {i + 1}: {width} x {height} pixels"
    if width * height > limits.image_pixels or max(width, height) > limits.image_side_pixels:
        raise UnreadableInputError(
            f"{where}, over the limit for a sheet ([limits] image_pixels = "
            f"{limits.image_pixels:,}, image_side_pixels = {limits.image_side_pixels:,})"
        )
    if min(width, height) < limits.image_min_side_pixels:
        raise UnreadableInputError(
            f"{where}, too small to be a scanned sheet ([limits] image_min_side_pixels = "
            f"{limits.image_min_side_pixels})"
        )


def _image_page(path: Path, i: int, frame: Image.Image, file_id: str) -> PageRef:
    dpi_info = frame.info.get("dpi")
    dpi = float(dpi_info[0]) if dpi_info and dpi_info[0] else None
    # Unknown resolution: assume a Letter page's width (8.5 in) was scanned.
    effective = dpi or frame.width / 8.5
    width, height = frame.size
    return PageRef(
        path=str(path),
        page_index=i,
        content_hash=hashlib.sha256(f"file {file_id} page {i}".encode()).hexdigest(),
        kind=PageKind.IMAGE,
        width=width / effective * POINTS_PER_INCH,
        height=height / effective * POINTS_PER_INCH,
        dpi=dpi,
    )


def ingest_file(
    path: Path, limits: LimitsConfig | None = None, file_sha256: str | None = None
) -> list[PageRef]:
    """The pages of one sheet file (`file_sha256`: its bytes' hash, when the caller has it).
    Raises UnreadableInputError naming the file and the problem."""
    path = Path(path)
    limits = limits or LimitsConfig()
    if problem := not_a_regular_file(path):
        raise UnreadableInputError(problem)
    if path.suffix.lower() in PDF_SUFFIXES:
        return _ingest_pdf(path, limits)
    return _ingest_image(path, limits, file_sha256)


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
                    statements = (context or ReadContext()).statements
                    return read_text_page(page, ref, statements)
                finally:
                    page.close()
        except PetitionError:
            raise
        except Exception as err:  # pdfminer's many errors on a hostile file
            log.debug("%s page %d: pdfplumber failed", ref.path, ref.page_index + 1, exc_info=True)
            raise UnreadableInputError(
                f"{ref.path} page {ref.page_index + 1}: cannot be read "
                f"({type(err).__name__}: {str(err)[:120]})"
            ) from None
    log.debug("page %s of %s is a scan: reading it with OCR", ref.page_index + 1, ref.path)
    return read_image_page(ref, context if context is not None else ReadContext())
