from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from pipeline.errors import UnreadableInputError
from pipeline.ingest import discover, ingest_file, read_page
from pipeline.records import FileError, PageKind
from pipeline.run import collect_pages, ingest_one, read_one, split_results


def test_discover_reports_files_it_cannot_read(tmp_path):
    (tmp_path / "b.pdf").write_bytes(b"")
    (tmp_path / "a.png").write_bytes(b"")
    (tmp_path / "notes.docx").write_bytes(b"")
    (tmp_path / "README.md").write_text("synthetic")
    (tmp_path / ".DS_Store").write_bytes(b"")
    files, errors = discover([tmp_path, tmp_path / "gone.pdf"])
    assert [f.name for f in files] == ["a.png", "b.pdf"]
    assert sorted(Path(e.path).name for e in errors) == ["gone.pdf", "notes.docx"]


def test_a_folder_s_files_are_taken_as_a_person_counts_them(tmp_path):
    # a stack scanned as "scan 1" .. "scan 10": the order the sheets were in, not "1, 10, 2"
    for name in ("scan 10.pdf", "scan 2.pdf", "scan 1.pdf", "Scan 3.png", "scan-02b.pdf"):
        (tmp_path / name).write_bytes(b"")
    files, _ = discover([tmp_path])
    assert [f.name for f in files] == [
        "scan 1.pdf", "scan 2.pdf", "Scan 3.png", "scan 10.pdf", "scan-02b.pdf"
    ]  # fmt: skip


def test_not_a_pdf(tmp_path):
    bad = tmp_path / "x.pdf"
    bad.write_text("hello")
    with pytest.raises(UnreadableInputError, match="x.pdf: not a readable PDF"):
        ingest_file(bad)
    assert "not a readable PDF" in ingest_one(bad).problem


def test_images_and_multipage_tiff(tmp_path):
    rng = np.random.default_rng(0)
    frames = [Image.fromarray(rng.integers(0, 255, (110, 85), dtype=np.uint8)) for _ in range(3)]
    frames[0].save(tmp_path / "scan.tif", save_all=True, append_images=frames[1:], dpi=(10, 10))
    refs = ingest_file(tmp_path / "scan.tif")
    assert [r.page_index for r in refs] == [0, 1, 2]
    assert all(r.kind is PageKind.IMAGE and r.dpi == 10 for r in refs)
    assert refs[0].width == pytest.approx(85 / 10 * 72)
    assert len({r.content_hash for r in refs}) == 3
    sheet = read_page(refs[0])
    assert sheet.lines == ()  # not read yet: the judge sends it to a person


def test_same_page_twice_is_read_once_and_reported(tmp_path):
    img = Image.fromarray(np.full((110, 85), 200, dtype=np.uint8))
    img.save(tmp_path / "a.png")
    img.save(tmp_path / "b.png")
    files = [tmp_path / "a.png", tmp_path / "b.png"]
    pages, errors = collect_pages((f, ingest_one(f)) for f in files)
    assert len(pages) == 1
    assert "identical to page 1 of" in errors[0].problem


def test_a_page_re_saved_with_the_same_pixels_keeps_its_identity(tmp_path):
    """Line ids (and reviewers' decisions) follow the pixels, not the file's bytes."""
    rng = np.random.default_rng(7)
    img = Image.fromarray(rng.integers(0, 255, (120, 90), dtype=np.uint8))
    img.save(tmp_path / "a.png", compress_level=1)
    img.save(tmp_path / "b.png", compress_level=9, dpi=(300, 300))
    img.save(tmp_path / "c.tif")
    assert (tmp_path / "a.png").read_bytes() != (tmp_path / "b.png").read_bytes()
    files = [tmp_path / n for n in ("a.png", "b.png", "c.tif")]
    sheets = [read_page(ingest_one(f)[0]) for f in files]
    assert len({s.page.content_hash for s in sheets}) == 1
    assert [s.page.path for s in sheets] == [str(f) for f in files]


def test_a_page_re_saved_is_read_but_counted_once(tmp_path):
    """Ingest lists an image's pages from its headers (its pixels are decoded once, by the
    reader): a copy re-saved with other bytes is known as a copy once read, and reported."""
    img = Image.fromarray(np.random.default_rng(3).integers(0, 255, (120, 90), dtype=np.uint8))
    img.save(tmp_path / "a.png", compress_level=1)
    img.save(tmp_path / "b.png", compress_level=9)
    Image.fromarray(np.zeros((120, 90), dtype=np.uint8)).save(tmp_path / "c.png")
    files = [tmp_path / n for n in ("a.png", "b.png", "c.png")]
    pages, errors = collect_pages((f, ingest_one(f)) for f in files)
    assert len(pages) == 3 and not errors
    sheets, errors = split_results(read_one(p) for p in pages)
    assert [s.page.path for s in sheets] == [str(files[0]), str(files[2])]
    assert len(errors) == 1 and errors[0].path == str(files[1])
    assert "identical to page 1 of" in errors[0].problem and "a.png" in errors[0].problem


def test_a_truncated_image_is_reported(tmp_path):
    """The reader decodes an image's pixels; a file cut short fails there, with an error
    naming the file, and the rest of the batch goes on."""
    img = Image.fromarray(np.random.default_rng(1).integers(0, 255, (300, 200), dtype=np.uint8))
    img.save(tmp_path / "whole.png")
    data = (tmp_path / "whole.png").read_bytes()
    (tmp_path / "cut.png").write_bytes(data[: len(data) // 2])
    error = read_one(ingest_one(tmp_path / "cut.png")[0])
    assert isinstance(error, FileError) and "cut.png" in error.path
    assert "not a readable image" in error.problem
    assert read_page(ingest_file(tmp_path / "whole.png")[0]).lines == ()


def test_demo_pdf_pages_have_text_layers():
    from tests.conftest import DEMO

    pdfs = sorted((DEMO / "sheets").glob("*.pdf"))
    assert pdfs
    refs = [r for p in pdfs for r in ingest_file(p)]
    assert all(r.kind is PageKind.PDF_TEXT for r in refs)
    assert len({r.content_hash for r in refs}) == len(refs)
