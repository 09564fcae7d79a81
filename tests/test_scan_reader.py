"""The scan reader on rasterized synthetic sheets (the bundled demo case: invented people, no
real person's data): with a fake engine (no tesseract) and with tesseract itself."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pipeline.records import FileError, PageKind, PageRef, Source
from pipeline.scan.context import ReadContext
from pipeline.scan.engine import DIGITS, Psm, Rect
from pipeline.scan.metrics import compare_to_truth
from pipeline.scan.reader import (
    SIGNED_PLACEHOLDER,
    _header_columns,
    _titles_set_apart,
    read_scan,
)
from pipeline.scan.table import Grid
from pipeline.scan.titles import Columns
from synth.degrade import Degrade, degrade, rasterize_pdf
from synth.sheets import COLUMNS, MARGIN
from tests.fakes import CrashingEngine, FakeEngine, reading

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "fixtures" / "demo"
TRUTH = json.loads((DEMO / "truth.json").read_text(encoding="utf-8"))


def _ref(name: str, page_index: int = 0) -> PageRef:
    return PageRef(
        path=str(DEMO / "sheets" / name),
        page_index=page_index,
        content_hash=f"{abs(hash((name, page_index))):064x}"[:64],
        kind=PageKind.IMAGE,
        width=612.0,
        height=792.0,
        dpi=None,
    )


def _page(name: str, dpi: float, page_index: int = 0) -> np.ndarray:
    return rasterize_pdf(DEMO / "sheets" / name, dpi)[page_index]


def _title_engine(dpi: float) -> FakeEngine:
    """Answers the header row with the printed titles (by the cell's x position on the
    synthetic layout; only where the upright page has its header row, so an upside-down page
    reads no titles), digits for digit cells, a word for other cells, nothing for blocks."""
    edges = [MARGIN]
    for _, _, w in COLUMNS:
        edges.append(edges[-1] + w)

    def answer(rect: Rect, psm: Psm, whitelist: str) -> str:
        x, y, w, h = rect
        cx = (x + w / 2) * 72 / dpi
        if psm is Psm.SINGLE_BLOCK and h * 72 / dpi < 40:
            if y * 72 / dpi > 300:
                return ""
            for (title, _, _), a, b in zip(COLUMNS, edges, edges[1:], strict=False):
                if a <= cx < b:
                    return title
            return ""
        if whitelist == DIGITS:
            return "1"
        return "Text" if psm is Psm.SINGLE_LINE else ""

    return FakeEngine(answer, confidence=0.9)


def test_every_row_found_and_blank_rows_blank_without_tesseract(tmp_path: Path) -> None:
    dpi = 150.0
    truth = TRUTH["sheets"][0]
    sheet = read_scan(
        _page("sheet-01.pdf", dpi), dpi, _ref("sheet-01.pdf"), reading(_title_engine(dpi), tmp_path)
    )
    assert sheet.columns == ("date", "signature", "name", "residence", "ward", "election_district")
    assert len(sheet.lines) == len(truth["lines"])
    for line, t in zip(sheet.lines, truth["lines"], strict=True):
        assert line.blank == t["blank"], line.line_no
        assert line.crop_path is not None and Path(line.crop_path).exists()
        for f in line.fields:
            assert f.source is Source.OCR and 0.0 <= f.confidence <= 1.0 and f.box is not None
        if not t["blank"]:
            sig = line.get("signature")
            assert sig is not None and sig.text in ("Text", SIGNED_PLACEHOLDER)
        # an undated line: the date cell has no ink, so its date is empty for sure
        if not t["blank"] and not t["fields"]["date"]:
            date = line.get("date")
            assert date is not None and date.text == "" and date.confidence > 0.9
    # boxes are in points on the page
    assert sheet.lines[0].box is not None and 30 < sheet.lines[0].box.x0 < 45


def test_upside_down_page_is_turned_without_tesseract() -> None:
    dpi = 150.0
    img = degrade(_page("sheet-01.pdf", dpi), Degrade(rotate=180), dpi)
    sheet = read_scan(img, dpi, _ref("sheet-01.pdf"), reading(_title_engine(dpi)))
    assert len(sheet.lines) == 10
    assert [line.blank for line in sheet.lines] == [t["blank"] for t in TRUTH["sheets"][0]["lines"]]


def test_engine_failure_propagates() -> None:
    with pytest.raises(RuntimeError):
        page = _page("sheet-01.pdf", 100.0)
        read_scan(page, 100.0, _ref("sheet-01.pdf"), reading(CrashingEngine()))


def test_page_without_table_has_no_lines() -> None:
    dpi = 100.0
    blank = np.full((1100, 850), 255, np.uint8)
    sheet = read_scan(blank, dpi, _ref("sheet-01.pdf"), reading(FakeEngine()))
    assert sheet.lines == () and sheet.witness is None and sheet.sheet_number is None


@pytest.mark.tesseract
def test_reads_a_clean_sheet_with_tesserocr() -> None:
    pytest.importorskip("tesserocr")
    dpi = 200.0
    truth = TRUTH["sheets"][0]
    sheet = read_scan(_page("sheet-01.pdf", dpi), dpi, _ref("sheet-01.pdf"), ReadContext())
    assert sheet.sheet_number_value == truth["sheet_number"]
    assert (
        sheet.witness is not None
        and sheet.witness.stated_count_value == truth["witness"]["stated_count"]
    )
    assert sheet.header.village is not None and sheet.header.village.text == "Elmwood Falls"
    line = sheet.lines[0]
    expected = truth["lines"][0]["fields"]
    for name in ("date", "name", "residence", "ward", "election_district"):
        assert line.text(name) == expected[name], name
    assert all(f.confidence > 0.5 for f in line.fields)


def _read_all(case_specs: Degrade, dpi: float) -> object:
    sheets = []
    for t in TRUTH["sheets"]:
        img = degrade(_page(Path(t["file"]).name, dpi, t["page_index"]), case_specs, dpi)
        ref = _ref(Path(t["file"]).name, t["page_index"])
        sheets.append(read_scan(img, dpi, ref, ReadContext()))
    return compare_to_truth(sheets, TRUTH, DEMO)


@pytest.mark.tesseract
@pytest.mark.slow
@pytest.mark.parametrize(
    "spec",
    [Degrade(), Degrade(rotate=180), Degrade(skew=3.0), Degrade(skew=-3.0), Degrade(rotate=90)],
    ids=["straight", "upside-down", "skew+3", "skew-3", "sideways"],
)
def test_degraded_pages_read_as_well_as_straight(spec: Degrade) -> None:
    pytest.importorskip("tesserocr")
    acc = _read_all(spec, 300.0)
    assert acc.lines_found == acc.lines_truth == 60  # type: ignore[attr-defined]
    assert acc.lines_invented == 0 and acc.blank_as_signed == 0  # type: ignore[attr-defined]
    assert acc.sheet_numbers_right == 6  # type: ignore[attr-defined]
    assert acc.counts_wrong_unflagged == 0  # type: ignore[attr-defined]
    for column in ("date", "residence", "ward", "election_district"):
        assert acc.cer(column) <= 0.01, column  # type: ignore[attr-defined]
    assert acc.cer("name") <= 0.02  # type: ignore[attr-defined]


@pytest.mark.tesseract
@pytest.mark.slow
@pytest.mark.parametrize(
    ("kind", "variant"),
    [("independent_nomination", "sufficient"), ("incorporation", "owners-sufficient")],
)
def test_other_kinds_scans_find_every_line(tmp_path: Path, kind: str, variant: str) -> None:
    """The nominating petition (a candidates table above the signatures) and the 2-202
    petition (faint, broken rules under uneven light), scanned degraded: every line of every
    sheet found, none invented, blank lines blank. Seed 1 gave sheets that were not read."""
    pytest.importorskip("tesserocr")
    from pipeline.ingest import ingest_file, read_page
    from synth.kinds import generate_kind
    from synth.scan import scan_case

    generate_kind(tmp_path / "born", kind, variant, 1)
    case = scan_case(tmp_path / "born", tmp_path / "scan", "degraded", 1).parent
    truth = json.loads((case / "truth.json").read_text(encoding="utf-8"))
    for t in truth["sheets"]:
        refs = ingest_file(case / t["file"])
        sheet = read_page(next(r for r in refs if r.page_index == t["page_index"]))
        assert [(line.line_no, line.blank) for line in sheet.lines] == [
            (line["line_no"], line["blank"]) for line in t["lines"]
        ], t["file"]


@pytest.mark.tesseract
@pytest.mark.slow  # (the fast path reads text tables in tests/test_scan_units.py)
@pytest.mark.parametrize(
    "spec", [Degrade(), Degrade(rotate=180, skew=2.0)], ids=["clean", "turned"]
)
def test_sheets_printed_without_rules_are_read(tmp_path: Path, spec: Degrade) -> None:
    """A table printed without rules (`textgrid`), upright and upside down and skewed: every
    line found, none invented, blank lines blank, the sheet numbers and the cells read."""
    pytest.importorskip("tesserocr")
    from synth import generate_case

    generate_case(tmp_path, seed=4, n_sheets=2, ruled=False)
    truth = json.loads((tmp_path / "truth.json").read_text(encoding="utf-8"))
    dpi = 200.0
    sheets = []
    for t in truth["sheets"]:
        path = tmp_path / t["file"]
        img = degrade(rasterize_pdf(path, dpi)[t["page_index"]], spec, dpi)
        ref = PageRef(str(path), t["page_index"], f"{len(sheets):064x}", PageKind.IMAGE, 612, 792)
        sheets.append(read_scan(img, dpi, ref, ReadContext()))
    acc = compare_to_truth(sheets, truth, tmp_path)
    assert acc.lines_found == acc.lines_truth == 20  # type: ignore[attr-defined]
    assert acc.lines_invented == 0 and acc.blank_as_signed == 0  # type: ignore[attr-defined]
    assert acc.sheet_numbers_right == 2  # type: ignore[attr-defined]
    for column in ("date", "name", "residence", "ward", "election_district"):
        assert acc.cer(column) <= 0.02, column  # type: ignore[attr-defined]


def test_rows_lost_below_the_table_are_a_doubt_not_dropped() -> None:
    # The last row rule wiped out (a faded scan): the table found ends a row short, and the
    # column rules running on below it say so: the sheet goes to a person.
    from pipeline.scan.clean import clean_page
    from pipeline.scan.table import find_grid

    dpi = 150.0
    img = _page("sheet-01.pdf", dpi)
    grid = find_grid(clean_page(img, dpi).binary, dpi)
    assert grid is not None
    whole = read_scan(img, dpi, _ref("sheet-01.pdf"), reading(_title_engine(dpi)))
    assert len(whole.lines) == grid.n_rows and not whole.layout_doubts
    y = grid.ys[-1]
    img[y - 3 : y + 4, grid.xs[0] - 5 : grid.xs[-1] + 5] = 255
    cut = read_scan(img, dpi, _ref("sheet-01.pdf"), reading(_title_engine(dpi)))
    assert len(cut.lines) < grid.n_rows
    assert any("below its last row" in d for d in cut.layout_doubts)


@pytest.mark.tesseract
def test_rows_whose_rules_are_too_faint_are_found_on_the_fainter_rules() -> None:
    # The last two row rules printed a light grey (past RULE_RATIO, within FAINT_RULE_RATIO:
    # fresh held-out 1127, a blurred scan of grey rules): the table found at the rule threshold
    # ends two rows short, and its column rules running on below say so. The table found
    # again on the fainter rules has every row, and nothing on the page says otherwise: it is
    # taken, with no doubt left.
    from pipeline.scan.clean import FAINT_RULE_RATIO, RULE_RATIO, clean_page
    from pipeline.scan.table import find_grid

    dpi = 150.0
    img = _page("sheet-01.pdf", dpi)
    grid = find_grid(clean_page(img, dpi).binary, dpi)
    assert grid is not None
    grey = int(255 * (RULE_RATIO + FAINT_RULE_RATIO) / 2)  # 229: between the two thresholds
    for y in grid.ys[-2:]:
        band = img[y - 2 : y + 3, grid.xs[0] - 5 : grid.xs[-1] + 5]
        band[band < grey] = grey
    faint = read_scan(img, dpi, _ref("sheet-01.pdf"), reading(_title_engine(dpi)))
    assert len(faint.lines) == grid.n_rows and not faint.layout_doubts
    assert [line.blank for line in faint.lines] == [t["blank"] for t in TRUTH["sheets"][0]["lines"]]


def _numbered_sheet(path: Path, last: str, last_rules: bool) -> None:
    """A one-page sheet whose table has a line-number column and 6 rows, the sixth numbered
    `last`, drawn without its rules unless `last_rules` (a dash-dot rule a scan left too faint
    to be found, held-out 1123 and 1133). Synthetic, no real person's data."""
    from reportlab.lib.pagesizes import letter
    from reportlab.pdfgen.canvas import Canvas

    canvas = Canvas(str(path), pagesize=letter)
    canvas.setFont("Helvetica-Bold", 14)
    canvas.drawString(150, 740, "PETITION FOR A PERMISSIVE REFERENDUM")
    xs, top, row = (60, 110, 210, 400, 560), 690, 36
    canvas.setFont("Helvetica-Bold", 9)
    for x, title in zip(xs, ("No.", "Date of Signature", "Signature", "Residence"), strict=False):
        canvas.drawString(x + 6, top - 16, title)
    canvas.setFont("Helvetica", 10)
    for k in range(1, 7):
        canvas.drawString(xs[0] + 6, top - 28 - (k - 0.5) * row, last if k == 6 else f"{k}.")
    drawn = 6 if last_rules else 5
    foot = top - 24 - drawn * row
    for y in (top, top - 24, *(top - 24 - k * row for k in range(1, drawn + 1))):
        canvas.line(xs[0], y, xs[-1], y)
    for x in xs:
        canvas.line(x, top, x, foot)
    canvas.setFont("Helvetica", 10)
    canvas.drawString(60, foot - row - 40, "Statement of Witness:")
    canvas.drawString(60, foot - row - 56, "I, Flora Ashgrove state: I am over the age of eighteen")
    canvas.save()


@pytest.mark.tesseract
@pytest.mark.parametrize(
    ("last", "rules", "rows", "doubted"),
    [
        ("6.", True, 6, False),  # every rule printed: the table whole
        ("6.", False, 6, False),  # its last rules lost, "6." below: the row is the table's
        ("9.", False, 5, True),  # a number not the next one: no row added, a doubt
    ],
)
def test_a_row_numbered_below_the_last_rule_found_is_the_tables(
    tmp_path: Path, last: str, rules: bool, rows: int, doubted: bool
) -> None:
    pdf = tmp_path / "sheet.pdf"
    _numbered_sheet(pdf, last, rules)
    dpi = 200.0
    sheet = read_scan(rasterize_pdf(pdf, dpi)[0], dpi, _ref("sheet.pdf"), ReadContext())
    assert sheet.columns == ("date", "signature", "residence")
    assert len(sheet.lines) == rows and all(line.blank for line in sheet.lines)
    assert any("below the last row found" in d for d in sheet.layout_doubts) is doubted


def test_a_ruled_table_in_doubt_yields_to_a_text_table_that_reads_without_doubt(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Held-out 1141: on a degraded 200 dpi scan of a table printed without rules, the
    # signatures' long flat tails passed for rules; that "ruled" table placed a date and a
    # signature column among unplaced ones and read 4 rows of 7, and was taken at once. Read
    # by its text the table places every column with no doubt: that reading stands. A text
    # table in doubt itself, or placing fewer columns, or finding fewer rows, leaves the
    # ruled one (dev 1123: a ruled table's title cut through, its text table 10 rows of 12).
    from pipeline.scan import reader
    from pipeline.scan.clean import Cleaned
    from pipeline.scan.titles import place_columns

    page = np.zeros((40, 40), np.uint8)
    cleaned = Cleaned(page, page, 0, 0.0, False)
    engine = FakeEngine(lambda rect, psm, whitelist: "", confidence=0.9)

    def taken(ruled: list[str], text: list[str], ruled_rows: int = 2, text_rows: int = 5) -> str:
        grids = {
            Grid((0, 10, 20), tuple(range(0, 10 * ruled_rows + 11, 10)), "rules"): ruled,
            Grid((0, 20, 40), tuple(range(0, 10 * text_rows + 11, 10)), "text"): text,
        }
        ruled_grid, text_grid = grids

        def layout(cleaned: Cleaned, masks: Any, grid: Grid, *_: object) -> reader._Layout:
            return reader._Layout(
                cleaned, grid, page, page, place_columns(grids[grid]), False, masks
            )

        monkeypatch.setattr(reader, "_layout_for", layout)
        monkeypatch.setattr(reader, "find_grids", lambda binary, dpi, masks: [ruled_grid])
        monkeypatch.setattr(reader, "text_grids", lambda *a: [text_grid])
        grid = reader._try_layout(cleaned, 200.0, engine, False).grid
        assert grid is not None
        return grid.method

    in_doubt = ["Date", "Fas FF", "Sign Here", "Lal hdl", "Address"]
    assert taken(in_doubt, ["Date", "Sign Here", "Address"]) == "text"
    assert taken(in_doubt, ["Date", "Sign Here", "Remarks"]) == "rules"  # in doubt itself
    assert taken(in_doubt, ["Date", "Sign Here", "Address"], 6, 5) == "rules"  # fewer rows
    more = ["Date", "Name", "Sign Here", "Remarks", "Address"]
    assert taken(more, ["Date", "Sign Here", "Address"]) == "rules"  # fewer columns placed
    assert taken(["Date", "Sign Here", "Address"], ["Date", "Sign Here", "Name", "Address"]) == (
        "rules"  # a ruled table without doubt is taken at once
    )


def _title_row(pieces: dict[int, list[tuple[float, float]]]) -> tuple[Grid, np.ndarray]:
    """A grid of three columns (1, 2 and 3 inches wide) at 200 dpi over an empty body row, the
    title cell of column k inked in the `pieces[k]` spans (inches from the column's left
    edge): black bars where the title's words would be."""
    dpi = 200
    xs = (100, 300, 700, 1300)
    ys = (100, 180, 260)
    ink = np.zeros((400, 1400), np.uint8)
    for col, spans in pieces.items():
        for a, b in spans:
            ink[125:150, xs[col] + int(a * dpi) : xs[col] + int(b * dpi)] = 255
    return Grid(xs, ys, "rules+projection"), ink


def _titles_by_place(rect: Rect, psm: Psm, whitelist: str) -> str:
    """The fake OCR's answer for a rectangle of `_title_row`'s title row, by where it is."""
    x, _, w, _ = rect
    if x + w <= 300:
        return "Date"
    if x + w <= 700:
        return "Residence"
    if x < 760 and w > 400:  # the third column's cell whole
        return "Village Election District No."
    return "Village" if x < 760 else "Election District No."


def test_a_title_cell_holding_two_titles_set_apart_is_a_doubt() -> None:
    # Held-out 1139: a table ruled across only at 200 dpi, the towns written on under
    # "Election District No." in four rows of five: the columns found at the ink's gaps gave
    # one column for 'Village' and 'Election District No.', placed as the statute's "Village
    # Election District No.", and the towns were lost without a word.
    engine = FakeEngine(_titles_by_place)
    grid, ink = _title_row({0: [(0.1, 0.4)], 1: [(0.2, 1.0)], 2: [(0.1, 0.6), (0.75, 2.5)]})
    columns = _header_columns(grid, ink, engine, 200)  # type: ignore[arg-type]
    assert columns.kinds == ("date", "residence", "election_district")
    assert columns.doubts == (
        "column 3 holds two titles, 'Village' and 'Election District No.': two columns' "
        "entries may run together in it",
    )
    # Held-out 1143: the two titles closer (the cells' padding, 0.095 in), but twice as far
    # apart as the words of "Election District No." (0.035 and 0.04 in).
    words = [(0.1, 0.6), (0.695, 1.2), (1.235, 1.8), (1.84, 2.2)]
    grid, ink = _title_row({0: [(0.1, 0.4)], 1: [(0.2, 1.0)], 2: words})
    assert len(_header_columns(grid, ink, engine, 200).doubts) == 1  # type: ignore[arg-type]
    # One title, its words evenly spaced, or set in one piece, is one title.
    for title in ([(0.1, 0.6), (0.635, 1.2), (1.235, 1.8), (1.84, 2.2)], [(0.1, 2.5)]):
        grid, ink = _title_row({0: [(0.1, 0.4)], 1: [(0.2, 1.0)], 2: title})
        assert _header_columns(grid, ink, engine, 200).doubts == ()  # type: ignore[arg-type]


def test_a_title_cell_in_two_pieces_one_placing_nothing_is_one_title() -> None:
    # "Name" and "(Printed)" set far apart: one column's title and its gloss.
    def answer(rect: Rect, psm: Psm, whitelist: str) -> str:
        text = _titles_by_place(rect, psm, whitelist)
        return {"Village": "Name", "Election District No.": "(Printed)"}.get(text, text)

    grid, ink = _title_row({0: [(0.1, 0.4)], 1: [(0.2, 1.0)], 2: [(0.1, 0.6), (0.75, 2.5)]})
    columns = _header_columns(grid, ink, FakeEngine(answer), 200)  # type: ignore[arg-type]
    assert columns.doubts == ()


def test_the_start_of_the_next_columns_title_cut_into_a_cell_is_no_second_title() -> None:
    # Held-out 1123, 1139: 'Village Elec' | 'ion District No', a boundary through the next
    # title's word ('Elec' given back to it by `titles._recut`): the district is that column's.
    grid, ink = _title_row({0: [(0.1, 0.4)], 1: [(0.2, 1.0)], 2: [(0.1, 0.6), (0.75, 1.1)]})
    engine = FakeEngine(_titles_by_place)
    titles = ("Date", "Election District No", "Village")
    cut = Columns(("date", "election_district", "town"), titles)
    assert _titles_set_apart(grid, 2, ink, engine, 200, cut) is None  # type: ignore[arg-type]
    merged = Columns(("date", "residence", "election_district"), titles)
    assert _titles_set_apart(grid, 2, ink, engine, 200, merged) is not None  # type: ignore[arg-type]


def _generated_page(
    tmp_path: Path, kind: str, variant: str, seed: int, name: str
) -> tuple[Any, dict[str, Any]]:
    """One page of a kind's variant generated from its seed and scanned degraded (synthetic,
    invented people): the sheet as read and truth's record of it."""
    from pipeline.run import ingest_one, read_one
    from synth.kinds import generate_kind
    from synth.scan import scan_case

    generate_kind(tmp_path / "born", kind, variant, seed, layouts="dev")
    scan_case(tmp_path / "born", tmp_path / "scan", "degraded", seed)
    refs = ingest_one(tmp_path / "scan" / "sheets" / name)
    assert isinstance(refs, list)
    sheet = read_one(refs[0])
    assert not isinstance(sheet, FileError)
    truth = json.loads((tmp_path / "scan" / "truth.json").read_text(encoding="utf-8"))
    (want,) = [s for s in truth["sheets"] if s["file"].endswith(name)]
    return sheet, want


@pytest.mark.slow
def test_a_table_under_prose_smeared_into_its_first_rules_is_read(tmp_path: Path) -> None:
    """A fresh development seed (9980), degraded: a nominating petition's signatures table
    under the committee paragraph, scanned at 200 dpi, blurred, its rules broken. Two lines of
    the prose above it pass for its first rules, so the row taken for its title row holds
    "I do hereby appoint ...", the titles a row further down: no column was placed and the
    page was read as no table, its lines left to a person. Started two rules down, the title
    row places Date, Signature and Residence. (Generated here: synthetic, invented people.)"""
    sheet, want = _generated_page(
        tmp_path, "independent_nomination", "party-name", 9980, "sheet-02.png"
    )
    signed = [ln for ln in want["lines"] if ln["fields"].get("signature")]
    read = [ln for ln in sheet.lines if not ln.blank]
    assert len(read) == len(signed) == 9
    # each line in its row (the house numbers; the street names read with an OCR slip or two)
    house = [ln.text("residence").split()[0] for ln in read]
    assert house == [ln["fields"]["residence"].split()[0] for ln in signed]


@pytest.mark.slow
def test_an_upside_down_table_whose_title_rules_are_all_lost_is_read(tmp_path: Path) -> None:
    """Fresh seed 9998, degraded: an incorporation petition's owners' page scanned upside
    down, its rules faint and broken, every rule over and beside the titles lost; the first
    owner's row was taken for the title row and the page read as no table. A title row a
    row's height over the first rule places the columns: its 10 rows, 5 signed, are read.
    (Generated here: synthetic, invented people.)"""
    sheet, want = _generated_page(
        tmp_path, "incorporation", "owners-sufficient", 9998, "sheet-03.tif"
    )
    assert len(sheet.lines) == len(want["lines"]) == 10
    signed = [ln["line_no"] for ln in want["lines"] if ln["fields"].get("signature")]
    assert [ln.line_no for ln in sheet.lines if not ln.blank] == signed
