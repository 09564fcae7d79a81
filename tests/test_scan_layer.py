"""A scanned PDF with an earlier OCR's text layer (a "searchable PDF"): the layer places the
printed blanks, tesseract reads their values from the image; a layer that lacks a blank is not
used. Synthetic sheets (invented people, no real person's data)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from pipeline.ingest import ingest_file
from pipeline.records import PageKind, Sheet
from pipeline.scan.clean import Cleaned, rotate_quarter, rotate_small
from pipeline.scan.engine import OcrText, Psm, Rect
from pipeline.scan.layer import _to_cleaned, layer_words
from synth.degrade import rasterize_pdf, write_searchable_pdf
from tests.fakes import reading


@pytest.mark.parametrize(
    ("turns", "skew", "flipped"),
    [(0, 0.0, False), (1, 1.5, False), (2, -2.0, True), (3, 0.7, True)],
)
def test_layer_points_land_where_the_cleaner_moved_the_ink(
    turns: int, skew: float, flipped: bool
) -> None:
    """The layer's boxes follow the page as the cleaner turned and deskewed it: a dot drawn at a
    point is found, after the same turns, where `_to_cleaned` puts the point."""
    img = np.zeros((400, 300), np.uint8)
    x, y = 70, 120
    img[y - 2 : y + 3, x - 2 : x + 3] = 255
    out = rotate_small(rotate_quarter(img, turns), skew, 0)
    if flipped:
        out = rotate_quarter(out, 2)
    ys, xs = np.nonzero(out > 127)
    cleaned = Cleaned(out, out, (turns + (2 if flipped else 0)) % 4, skew, False)
    ((mx, my),) = _to_cleaned(np.array([[x, y]]), img.shape, cleaned, flipped)
    assert abs(mx - xs.mean()) < 1.5 and abs(my - ys.mean()) < 1.5


@pytest.mark.parametrize(("turns", "skew"), [(0, 0.0), (1, 0.8)])
def test_layer_points_follow_a_photographed_sheet_made_a_rectangle(turns: int, skew: float) -> None:
    """A photographed sheet is warped to a rectangle first (`clean.page_quad`): the layer's
    points go through the same homography, then the turns and the deskew."""
    import cv2

    img = np.zeros((400, 300), np.uint8)
    x, y = 70, 120
    img[y - 2 : y + 3, x - 2 : x + 3] = 255
    corners = np.array([[10, 6], [290, 14], [296, 390], [4, 396]], np.float32)
    target = np.array([[0, 0], [259, 0], [259, 379], [0, 379]], np.float32)
    m = cv2.getPerspectiveTransform(corners, target)
    warped = np.asarray(cv2.warpPerspective(img, m, (260, 380)), np.uint8)
    out = rotate_small(rotate_quarter(warped, turns), skew, 0)
    ys, xs = np.nonzero(out > 127)
    cleaned = Cleaned(out, out, turns, skew, False, m, (380, 260))
    ((mx, my),) = _to_cleaned(np.array([[x, y]]), img.shape, cleaned, False)
    assert abs(mx - xs.mean()) < 1.5 and abs(my - ys.mean()) < 1.5


class _Counting:
    """The default engine, counting the characters it recognizes."""

    def __init__(self) -> None:
        from pipeline.scan.engine import TesserocrFactory

        self.inner = TesserocrFactory()()
        self.chars = 0

    def set_page(self, image: np.ndarray, dpi: float) -> None:
        self.inner.set_page(image, dpi)

    def read(self, rect: Rect, psm: Psm, whitelist: str = "") -> OcrText:
        out = self.inner.read(rect, psm, whitelist)
        self.chars += len(out.text)
        return out

    def read_image(self, image: np.ndarray, dpi: float, psm: Psm, whitelist: str = "") -> OcrText:
        out = self.inner.read_image(image, dpi, psm, whitelist)
        self.chars += len(out.text)
        return out


@pytest.fixture(scope="module")
def born_digital(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from synth import generate_case

    out = tmp_path_factory.mktemp("layer")
    generate_case(out, seed=4, n_sheets=1)
    return sorted((out / "sheets").glob("*.pdf"))[0]


def _read(path: Path, kind: PageKind | None = None) -> tuple[Sheet, int]:
    from pipeline.scan.reader import read_image_page

    (ref,) = ingest_file(path)
    engine = _Counting()
    sheet = read_image_page(ref if kind is None else replace(ref, kind=kind), reading(engine))
    return sheet, engine.chars


def _values(sheet: Sheet) -> list[str | None]:
    w = sheet.witness
    assert w is not None
    fields = [
        sheet.header.village,
        sheet.header.county,
        sheet.header.proposition,
        sheet.sheet_number,
    ]
    fields += [
        w.witness_name,
        w.residence,
        w.village,
        w.county,
        w.stated_count,
        w.date,
        w.signature,
    ]
    return [f.text if f is not None else None for f in fields]


@pytest.mark.slow
@pytest.mark.tesseract
def test_a_good_layer_places_the_blanks_and_tesseract_reads_them(
    born_digital: Path, tmp_path: Path
) -> None:
    pytest.importorskip("tesserocr")
    scan = write_searchable_pdf(
        rasterize_pdf(born_digital, 200)[0], 200, layer_words(born_digital, 0), tmp_path / "s.pdf"
    )
    (ref,) = ingest_file(scan)
    assert ref.kind is PageKind.PDF_OCR
    with_layer, chars = _read(scan)
    image_only, chars_image = _read(scan, PageKind.PDF_IMAGE)
    assert _values(with_layer) == _values(image_only)
    assert all(v for v in _values(with_layer))
    assert with_layer.lines == image_only.lines  # the signature lines: always from the image
    assert chars < chars_image * 0.6  # the printed wording was not read again


@pytest.mark.slow
@pytest.mark.tesseract
def test_a_layer_missing_a_blank_is_not_used(born_digital: Path, tmp_path: Path) -> None:
    """An earlier OCR that skipped the witness's handwritten name: the layer is not good
    enough, so the blocks are read from the image (an empty name is never taken from it)."""
    pytest.importorskip("tesserocr")
    words = layer_words(born_digital, 0)
    image = rasterize_pdf(born_digital, 200)[0]
    full = write_searchable_pdf(image, 200, words, tmp_path / "full.pdf")
    name = _read(full)[0].witness.witness_name  # type: ignore[union-attr]
    assert name is not None and name.text
    skipped = [w for w in words if w[0] not in name.text.split()]
    scan = write_searchable_pdf(image, 200, skipped, tmp_path / "s.pdf")
    sheet, chars = _read(scan)
    image_only, chars_image = _read(scan, PageKind.PDF_IMAGE)
    assert _values(sheet) == _values(image_only) and sheet.witness.witness_name.text == name.text  # type: ignore[union-attr]
    assert chars == chars_image
