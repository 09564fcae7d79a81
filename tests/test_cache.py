"""The page cache: a page read once is not read again; matching and judging always re-run.
On the bundled synthetic case (born-digital: fast) and one synthetic scan."""

from __future__ import annotations

import io
import pickle
import shutil
from pathlib import Path

import pytest

from pipeline.cache import PageCache, reader_version
from pipeline.case import load_case
from pipeline.ingest import discover
from pipeline.progress import ProgressBar, terminal_progress
from pipeline.report import report_to_dict
from pipeline.run import check_case, collect_pages, ingest_one, page_cache, read_sheets
from pipeline.scan.context import ReadContext

SAMPLE = Path(__file__).resolve().parents[1] / "fixtures" / "corpus-sample" / "case-000"


def _cache(case_path: Path) -> PageCache:
    """A fresh cache for the test (a copied case may carry the fixture's own cache folder)."""
    return PageCache.in_folder(case_path.parent / "test-cache")


def _doc(report) -> dict:
    doc = report_to_dict(report)
    doc.pop("generated_at")
    return doc


def _pages(case):
    files, _ = discover(case.sheets)
    pages, _ = collect_pages(zip(files, map(ingest_one, files), strict=True))
    return pages


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


class Counting:
    """A mapper that counts the pages it was given to read."""

    def __init__(self) -> None:
        self.pages = 0

    def __call__(self, fn, items):
        for item in items:
            if hasattr(item, "content_hash"):
                self.pages += 1
            yield fn(item)


@pytest.mark.slow  # three checks of the demo case (5.5 s); the fast path keeps the re-check's
# own test below (`test_a_recheck_opens_no_file_through_the_mapper`)
def test_recheck_reads_nothing_again_and_reports_the_same(demo_case):
    """Checked with a progress bar on a terminal, then again from the cache: the same report
    as a plain check, and no page read the second time."""
    case = load_case(demo_case)
    assert page_cache(case).root.is_relative_to(demo_case.parent / ".petitions-cache")
    cache = _cache(demo_case)
    assert terminal_progress(io.StringIO()) is None
    out = Tty()
    bar = terminal_progress(out)
    assert isinstance(bar, ProgressBar)
    first = check_case(case, cache=cache, progress=bar)
    bar.close()
    text = out.getvalue()
    assert "pages read" in text and "lines matched" in text and "sheet-05-06.pdf p2" in text
    n = len(_pages(case))
    assert cache.count() == n
    again = Counting()
    second = check_case(case, mapper=again, cache=cache)
    assert again.pages == 0
    assert _doc(second) == _doc(first) == _doc(check_case(case))


@pytest.mark.slow
def test_a_case_that_gained_a_sheet_reads_that_page_only(demo_case):
    sheets = demo_case.parent / "sheets"
    held_back = demo_case.parent / "sheet-04.pdf"
    shutil.move(sheets / "sheet-04.pdf", held_back)
    case = load_case(demo_case)
    cache = _cache(demo_case)
    assert read_sheets(_pages(case), cache=cache).pages_read == 5
    shutil.move(held_back, sheets / "sheet-04.pdf")
    counting = Counting()
    report = check_case(case, mapper=counting, cache=cache)
    assert counting.pages == 1
    assert _doc(report) == _doc(check_case(case))


@pytest.mark.slow
def test_a_run_stopped_half_way_keeps_the_pages_it_finished(demo_case):
    """Each page is stored as soon as it is read: a run that dies after two pages leaves two
    entries, and the next run reads only the others, to the uninterrupted run's report."""
    case = load_case(demo_case)
    cache = _cache(demo_case)
    pages = _pages(case)

    def dies_after_two(fn, items):
        for i, item in enumerate(items):
            if i == 2:
                raise KeyboardInterrupt
            yield fn(item)

    with pytest.raises(KeyboardInterrupt):
        read_sheets(pages, mapper=dies_after_two, cache=cache)
    assert cache.count() == 2
    counting = Counting()
    report = check_case(case, mapper=counting, cache=cache)
    assert counting.pages == len(pages) - 2
    assert _doc(report) == _doc(check_case(case))


def test_another_reader_version_or_a_damaged_entry_is_read_again(demo_case, caplog):
    case = load_case(demo_case)
    pages = _pages(case)[:2]
    cache = _cache(demo_case)
    assert cache.version == reader_version() and len(cache.version) == 16
    assert read_sheets(pages, cache=cache).pages_read == 2
    assert read_sheets(pages, cache=cache).pages_read == 0
    other = PageCache(cache.folder, "0" * 16)
    assert read_sheets(pages, cache=other).pages_read == 2
    damaged = next(cache.root.glob("*/*.pickle"))
    damaged.write_bytes(b"not a pickle")
    assert read_sheets(pages, cache=cache).pages_read == 1
    assert "could not be loaded" in caplog.text
    # an entry whose page is not the one asked for is never trusted
    entry = pickle.loads(next(cache.root.glob("*/*.pickle")).read_bytes())
    assert entry.sheet.page.content_hash in {p.content_hash for p in pages}


@pytest.mark.slow
def test_a_renamed_file_is_the_same_page(demo_case):
    case = load_case(demo_case)
    cache = _cache(demo_case)
    read_sheets(_pages(case), cache=cache)
    sheets = demo_case.parent / "sheets"
    (sheets / "sheet-01.pdf").rename(sheets / "sheet-01-renamed.pdf")
    read = read_sheets(_pages(case), cache=cache)
    assert read.pages_read == 0
    assert any(s.page.path.endswith("sheet-01-renamed.pdf") for s in read.sheets)


@pytest.mark.tesseract
@pytest.mark.slow
@pytest.mark.ops
def test_a_scan_from_the_cache_brings_its_line_crops(tmp_path):
    """A scanned page's line images come back with its reading, into the new run's crops
    folder; read once without crops, it is read again when crops are wanted."""
    case_dir = tmp_path / "case"
    shutil.copytree(SAMPLE / "clean-scan", case_dir)
    case = load_case(case_dir / "case.toml")
    pages = _pages(case)
    cache = _cache(case_dir / "case.toml")
    assert read_sheets(pages, cache=cache).pages_read == 1  # no crops wanted
    first = read_sheets(pages, context=ReadContext(crops_dir=tmp_path / "crops-1"), cache=cache)
    assert first.pages_read == 1
    second = read_sheets(pages, context=ReadContext(crops_dir=tmp_path / "crops-2"), cache=cache)
    assert second.pages_read == 0
    lines = [ln for ln in second.sheets[0].lines if ln.crop_path]
    assert lines and all(Path(ln.crop_path).parent == tmp_path / "crops-2" for ln in lines)
    assert all(Path(ln.crop_path).is_file() for ln in lines)
    assert [ln.fields for ln in second.sheets[0].lines] == [
        ln.fields for ln in first.sheets[0].lines
    ]


def test_progress_bar_estimates_the_time_left():
    out = Tty()
    bar = ProgressBar(out, every=0)
    bar.start("pages read", 4, done=1)
    bar.advance("a.pdf p1")
    assert "2/4" in out.getvalue() and "left" in out.getvalue()
    bar.advance("b.pdf p1", 2)
    assert out.getvalue().endswith("\n")


def test_a_file_ingested_before_is_not_opened_again(demo_case, monkeypatch):
    """A file's pages are remembered by its bytes (a PDF is parsed to list them); a file that
    changed is ingested again."""
    from pipeline import run

    cache = _cache(demo_case)
    sheet = demo_case.parent / "sheets" / "sheet-01.pdf"
    first = run.ingest_one(sheet, cache=cache)
    moved = sheet.with_name("sheet-01-moved.pdf")
    sheet.rename(moved)

    def no_opening(path, limits=None, file_sha256=None):
        raise AssertionError(f"{path} opened again")

    monkeypatch.setattr(run, "ingest_file", no_opening)
    again = run.ingest_one(moved, cache=cache)
    assert [r.content_hash for r in again] == [r.content_hash for r in first]
    assert all(r.path == str(moved) for r in again)
    with moved.open("ab") as f:
        f.write(b"\n% changed\n")
    with pytest.raises(AssertionError, match="opened again"):
        run.ingest_one(moved, cache=cache)


def test_each_sheet_file_is_hashed_once_a_run(demo_case, monkeypatch):
    """The sheet files' sha256 is both the page cache's key and the report's record of its
    inputs: each file is hashed once a run, and the report records the same hashes."""
    from pipeline import ingest, run

    hashed: list[Path] = []
    real = ingest.sha256_file

    def counting(path):
        hashed.append(Path(path))
        return real(path)

    monkeypatch.setattr(run, "sha256_file", counting)
    monkeypatch.setattr(ingest, "sha256_file", counting)
    case = load_case(demo_case)
    report = check_case(case, cache=_cache(demo_case))
    sheets = [p for p in hashed if p.parent.name == "sheets"]
    assert len(sheets) == len(set(sheets)) == 5
    assert {k: v for k, v in report.inputs.items() if k.startswith("sheets/")} == {
        f"sheets/{p.name}": real(p) for p in sheets
    }


def _unsure_sheet(crop: str):
    """A sheet whose first line's date was read unsure (10/02 or 10/07), its crop at `crop`."""
    from dataclasses import replace

    from pipeline.records import Field, Source
    from tests.builders import line as make_line
    from tests.builders import sheet as make_sheet

    seen = tuple(((ch, 0.9),) for ch in "10/02/2026")
    seen = (*seen[:4], (("2", 0.6), ("7", 0.45)), *seen[5:])
    date = Field("date", "10/02/2026", 0.3, Source.OCR, None, (seen,))
    first = replace(make_line(1).replace_field(date), crop_path=f"{crop}/l1.png")
    return make_sheet((first, replace(make_line(2), crop_path=f"{crop}/l2.png")))


def test_a_sheet_read_in_the_closed_world_before_is_taken_from_the_cache(tmp_path, monkeypatch):
    """Read in the same world again (another run's crops folder), a sheet comes from the cache,
    as the closed world read it and with this run's crop paths; a register that changed
    reads it anew."""
    from dataclasses import replace

    from pipeline import run
    from pipeline.records import RegisterEntry
    from tests.builders import case as case_config

    case = case_config()
    voters = {
        "NY1": RegisterEntry("NY1", "HALE", "WILLIAM", house_number="48", street_name="Orchard Ln"),
    }
    register = run.RegisterData(voters, 1, "test", ())
    cache = PageCache.in_folder(tmp_path / "cache")
    first = run.read_in_closed_world(case, [_unsure_sheet("/run-1")], register, cache)
    assert first == run.read_in_closed_world(case, [_unsure_sheet("/run-1")], register)
    assert first[0].lines[0].get("date").resolved

    calls = []
    real = run.resolve_sheets
    monkeypatch.setattr(run, "resolve_sheets", lambda s, *a: calls.append(len(s)) or real(s, *a))
    again = run.read_in_closed_world(case, [_unsure_sheet("/run-2")], register, cache)
    assert calls == [0]
    assert [ln.fields for ln in again[0].lines] == [ln.fields for ln in first[0].lines]
    assert [ln.crop_path for ln in again[0].lines] == ["/run-2/l1.png", "/run-2/l2.png"]

    moved = {"NY1": replace(voters["NY1"], house_number="50")}
    run.read_in_closed_world(
        case, [_unsure_sheet("/run-2")], replace(register, entries=moved), cache
    )
    assert calls == [0, 1]


def test_a_recheck_opens_no_file_through_the_mapper(demo_case):
    """Files whose pages the cache lists are taken here: a re-check hands the mapper (a
    process pool's) no file to open, and no page to read."""
    case = load_case(demo_case)
    cache = _cache(demo_case)
    check_case(case, cache=cache)
    handed: list[object] = []

    def mapper(fn, items):
        items = list(items)
        handed.extend(items)
        return map(fn, items)

    check_case(case, mapper=mapper, cache=cache)
    assert handed == []
