"""Scan reader building blocks without tesseract: cleaning, table finding, ink, images, CER.

Every image here is drawn by the test (lines and boxes with OpenCV) or rendered from the
bundled synthetic demo sheets; no real person's data.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from pipeline.ingest import ingest_file
from pipeline.records import Field, PageKind, Source
from pipeline.scan.clean import clean_page, deskew_angle, even_lighting, is_sideways
from pipeline.scan.engine import OcrText, Psm, Rect, Word
from pipeline.scan.images import estimate_dpi, load_page_image
from pipeline.scan.ink import measure_ink
from pipeline.scan.metrics import cer
from pipeline.scan.table import find_grid, rule_masks
from synth.degrade import Degrade, degrade, save_scan

DPI = 150.0


def _form(dpi: float = DPI, rows: int = 6, faint: bool = False, row_in: float = 0.3) -> np.ndarray:
    """A Letter page with a ruled table (header row + `rows` rows) and some text lines."""
    w, h = int(8.5 * dpi), int(11 * dpi)
    img = np.full((h, w), 255, np.uint8)
    x0, x1 = int(0.5 * dpi), int(8.0 * dpi)
    top = int(2.0 * dpi)
    ys = [top, top + int(0.45 * dpi)] + [
        top + int(0.45 * dpi) + int(row_in * dpi) * k for k in range(1, rows + 1)
    ]
    colour = 170 if faint else 0
    for y in ys:
        cv2.line(img, (x0, y), (x1, y), colour, 2)
    xs = [
        x0,
        x0 + int(0.9 * dpi),
        x0 + int(2.5 * dpi),
        x0 + int(4.5 * dpi),
        x0 + int(6.5 * dpi),
        x1,
    ]
    for x in xs:
        cv2.line(img, (x, ys[0]), (x, ys[-1]), colour, 2)
    for k in range(6):  # text lines above and below the table
        y = int((0.6 + 0.2 * k) * dpi) if k < 3 else ys[-1] + int((0.3 + 0.2 * k) * dpi)
        cv2.putText(
            img, "We the undersigned electors", (x0, y), cv2.FONT_HERSHEY_SIMPLEX, dpi / 300, 0, 2
        )
    cv2.putText(
        img, "Vesta Oakhurst", (xs[1] + 10, ys[2] - 10), cv2.FONT_HERSHEY_SIMPLEX, dpi / 300, 0, 2
    )
    return img


def test_deskew_finds_three_degrees() -> None:
    img = _form()
    skewed = degrade(img, Degrade(skew=3.0), DPI)
    binary = (skewed < 128).astype(np.uint8) * 255
    assert deskew_angle(binary, DPI) == pytest.approx(-3.0, abs=0.15)


def test_sideways_page_is_detected() -> None:
    img = _form()
    binary = (img < 128).astype(np.uint8) * 255
    assert not is_sideways(binary, DPI)
    assert is_sideways(np.ascontiguousarray(np.rot90(binary)), DPI)


def test_even_lighting_flattens_a_shadow() -> None:
    img = _form()
    shaded = degrade(img, Degrade(uneven_light=0.5), DPI)
    flat = even_lighting(shaded, DPI)
    paper = flat[img == 255]
    assert np.percentile(paper, 5) > 200  # the dark corner's paper is paper again


@pytest.mark.parametrize("beyond", ["lid-brighter-than-shade", "dark-lid"])
def test_what_lies_beyond_the_sheets_edge_is_no_ink(beyond: str) -> None:
    """A skewed scan shows the scanner's background past the paper's edge: a lid brighter than
    the sheet's shaded corner (the shaded paper along the edge then reads as ink) or a dark
    lid. Cleaned, nothing past the sheet's edge is ink (no cell, rule or text line may reach
    into it), and the table is found as on the sheet alone."""
    dpi = DPI
    img = _form(dpi=dpi, rows=8)
    if beyond == "dark-lid":
        hgt, wid = img.shape
        pad = int(0.3 * dpi)
        page = np.full((hgt + pad, wid + pad), 40, np.uint8)
        page[:hgt, :wid] = degrade(img, Degrade(uneven_light=0.2, seed=1), dpi)
        page = degrade(page, Degrade(skew=-1.2, seed=2), dpi)
    else:
        page = degrade(img, Degrade(uneven_light=0.4, skew=1.6, seed=1), dpi)
    cleaned = clean_page(page, dpi)
    edge = int(8.1 * dpi)  # the paper ends at 8.5 in, the table's rules at 8.0 in
    assert np.count_nonzero(cleaned.binary[:, edge:]) == 0
    assert np.count_nonzero(cleaned.binary[int(10.9 * dpi) :]) == 0
    grid = find_grid(cleaned.binary, dpi)
    assert grid is not None and grid.n_rows == 8 and len(grid.xs) == 6
    assert grid.xs[-1] < edge


def test_a_folds_crease_and_an_edge_shadow_leave_the_table_whole() -> None:
    # Held-out scans (synth.scan HELDOUT_DEFECTS, "fold" and "shadow"): a crease across the
    # sheet through the title row read as a rule (the titles cut in two, no column placed),
    # and, touching the image's border, it and every rule and title it crossed were taken for
    # what lies beyond the sheet's edge and wiped; a shadow along the left edge over the
    # table's side wiped the rules joined to it the same way.
    from pipeline.scan.clean import creases

    img = _form(rows=8)
    hgt, wid = img.shape
    top = int(2.0 * DPI)
    xs = np.arange(wid)
    crease = top + int(0.2 * DPI) + (2 * np.sin(xs / wid * 5)).astype(int)
    page = img.astype(np.float32)
    page[crease, xs] *= 0.55
    page[crease + 1, xs] *= 0.55
    page[:, : int(0.6 * DPI)] *= np.linspace(0.35, 1.0, int(0.6 * DPI))[None, :] ** 0.5
    page = np.clip(page, 0, 255).astype(np.uint8)
    cleaned = clean_page(page, DPI)
    assert cleaned.binary[crease[wid // 2] - 2 : crease[wid // 2] + 3, wid // 2].max() == 0
    grid = find_grid(cleaned.binary, DPI)
    assert grid is not None and grid.n_rows == 8 and len(grid.xs) == 6
    # the table's own rules, however long, are no crease
    assert not creases((img < 128).astype(np.uint8) * 255, DPI).any()


def _photographed(img: np.ndarray, corners: list[tuple[float, float]], desk: int) -> np.ndarray:
    """The page as a photo taken at an angle: its corners moved to `corners` (shares of the
    width and height) on a desk of grey `desk`."""
    hgt, wid = img.shape
    src = np.array([[0, 0], [wid, 0], [wid, hgt], [0, hgt]], np.float32)
    dst = np.array([[x * wid, y * hgt] for x, y in corners], np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    return np.asarray(cv2.warpPerspective(img, m, (wid, hgt), borderValue=desk), np.uint8)


def test_a_sheet_photographed_at_an_angle_is_made_a_rectangle_before_its_table_is_found() -> None:
    # Held-out scans (synth.scan HELDOUT_DEFECTS, "photo"): a page photographed at an angle
    # leans its column rules one way at the left and another at the right; no deskew
    # straightens both, the rule finder lost the columns, and the sheet was read as no table.
    from pipeline.scan.clean import page_quad

    img = _form(rows=8)
    corners = [(0.04, 0.03), (0.95, 0.06), (0.97, 0.96), (0.02, 0.98)]
    photo = _photographed(img, corners, desk=90)
    found = page_quad(photo, DPI)
    assert found is not None
    hgt, wid = img.shape
    want = np.array([[x * wid, y * hgt] for x, y in corners])
    assert np.abs(found - want).max() < 0.01 * wid
    cleaned = clean_page(photo, DPI)
    assert cleaned.warp is not None
    grid = find_grid(cleaned.binary, DPI)
    assert grid is not None and grid.n_rows == 8 and len(grid.xs) == 6
    # a scan, straight or skewed, on a lid or not, is no photo: nothing is warped
    for page in (
        img,
        degrade(img, Degrade(skew=2.0), DPI),
        degrade(img, Degrade(uneven_light=0.45), DPI),
    ):
        assert page_quad(page, DPI) is None
    assert clean_page(img, DPI).warp is None
    lid = np.full((hgt + 40, wid + 40), 40, np.uint8)
    lid[:hgt, :wid] = img
    assert page_quad(lid, DPI) is None  # a rectangle along the image's border


def test_a_close_paragraph_above_a_ruled_table_is_not_its_title_row() -> None:
    """A paragraph set close above a fully ruled table on a speckled scan: its lines smear into
    long strokes with ink on both sides, and its letters' strokes, bridged from line to line,
    stand where three of the table's column rules are. No column rule runs through the gap
    between it and the table, so its lines are not the table's first rules (they were: the
    table's titles were then read from the paragraph, and the sheet read as no table)."""
    dpi = DPI
    hgt, wid = int(11 * dpi), int(8.5 * dpi)
    binary = np.zeros((hgt, wid), np.uint8)
    horiz, vert = np.zeros_like(binary), np.zeros_like(binary)
    xs = [75, 210, 450, 750, 1200]
    table = [300, 345, *range(390, 390 + 45 * 8, 45)]
    for y in table:
        binary[y - 1 : y + 2, xs[0] : xs[-1]] = horiz[y - 1 : y + 2, xs[0] : xs[-1]] = 255
    for x in xs:
        binary[table[0] : table[-1], x - 1 : x + 2] = 255
        vert[table[0] : table[-1], x - 1 : x + 2] = 255
    for y in (180, 230):  # the paragraph's lines, smeared: the letters' ink above and below
        binary[y - 12 : y + 12, xs[0] : xs[-1] : 2] = 255
        horiz[y - 1 : y + 2, xs[0] : xs[-1]] = 255
    for x in xs[1:4]:  # letters' strokes bridged through the paragraph's lines
        vert[168:242, x - 1 : x + 2] = 255
    grid = find_grid(binary, dpi, (horiz, vert))
    assert grid is not None
    assert grid.ys[0] == table[0] and grid.n_rows == 8


def test_grid_rows_and_columns() -> None:
    cleaned = clean_page(_form(rows=8), DPI)
    grid = find_grid(cleaned.binary, DPI)
    assert grid is not None
    assert grid.n_rows == 8
    assert len(grid.xs) == 6


def test_grid_with_faint_broken_rules_and_skew() -> None:
    img = degrade(_form(rows=8, faint=True), Degrade(faint_rules=True, skew=-2.5, seed=3), DPI)
    cleaned = clean_page(img, DPI)
    from pipeline.scan.clean import RULE_RATIO, binarize

    grid = find_grid(cleaned.binary, DPI, rule_masks(binarize(cleaned.gray, RULE_RATIO), DPI))
    assert grid is not None
    assert grid.n_rows == 8


def test_lost_row_rule_is_restored() -> None:
    img = _form(rows=8)
    grid0 = find_grid((img < 128).astype(np.uint8) * 255, DPI)
    assert grid0 is not None
    y = grid0.ys[5]
    img[y - 2 : y + 3, :] = 255  # erase one row rule entirely
    for x in grid0.xs:  # keep the verticals
        cv2.line(img, (x, grid0.ys[0]), (x, grid0.ys[-1]), 0, 2)
    grid = find_grid((img < 128).astype(np.uint8) * 255, DPI)
    assert grid is not None and grid.n_rows == 8


def test_a_text_line_inside_a_row_is_not_a_rule() -> None:
    # A row of entries dense enough to smear into a long "rule" (each entry inside its cell,
    # stopping short of the column rules) does not split the row: the rows stay as printed.
    img = _form(rows=8, row_in=0.45)
    grid0 = find_grid((img < 128).astype(np.uint8) * 255, DPI)
    assert grid0 is not None and grid0.n_rows == 8
    y = (grid0.ys[1] + grid0.ys[2]) // 2
    for a, b in zip(grid0.xs, grid0.xs[1:], strict=False):
        cv2.line(img, (a + int(0.08 * DPI), y), (a + (b - a) * 3 // 4, y), 0, 2)
    grid = find_grid((img < 128).astype(np.uint8) * 255, DPI)
    assert grid is not None and grid.ys == grid0.ys


# A letter page's table ruled across with 8 rules broken into short dashes (too short for the
# rule finder), 0.35 in apart from 2 in down, 0.5 to 8 in across.
_X0, _X1, _PITCH = int(0.5 * DPI), int(8.0 * DPI), int(0.35 * DPI)
_DASHED = [int(2.0 * DPI) + k * _PITCH for k in range(8)]


def _dashed_table() -> np.ndarray:
    img = np.full((int(11 * DPI), int(8.5 * DPI)), 255, np.uint8)
    for y in _DASHED:
        for x in range(_X0, _X1, 24):
            cv2.line(img, (x, y), (x + 14, y), 0, 2)
    return img


def test_broken_rules_dashes_are_erased_and_give_the_rows() -> None:
    # A table ruled across with rules broken into short dashes (too short for the rule
    # finder): the dashes lie along lines, and the rows follow those lines, blank ones too.
    from pipeline.scan.table import Grid, dashed_rules, table_span, with_dashed_rows

    img = _dashed_table()
    x0, x1, rules = _X0, _X1, _DASHED
    cv2.putText(img, "Ann Oak", (x0 + 20, rules[1] + 38), cv2.FONT_HERSHEY_SIMPLEX, 0.6, 0, 2)
    binary = (img < 128).astype(np.uint8) * 255
    # a grid found from the text: offset from the rules, ending at the last entry
    xs = (x0, x0 + 200, x0 + 600, x1)
    found = Grid(xs, (rules[0] + 10, rules[1] + 10, rules[2] + 10), "text")
    grid = with_dashed_rows(binary, found, DPI)
    assert grid.ys[1:] == pytest.approx(rules[1:], abs=3)
    erased = cv2.bitwise_and(
        binary, cv2.bitwise_not(dashed_rules(binary, table_span(grid, DPI), DPI))
    )
    for a, b in zip(grid.ys[2:], grid.ys[3:], strict=False):  # the blank rows hold no ink
        assert not measure_ink(erased[a + 4 : b - 4, x0 + 4 : x1 - 4], DPI).present
    assert measure_ink(erased[grid.ys[1] + 4 : grid.ys[2] - 4, x0:x1], DPI).present


def test_a_text_tables_rows_start_on_the_dashes_nearest_its_first_row() -> None:
    # One entry, written low in its row, makes the text grid guess rows taller than the
    # table's: its first row's top lies nearer the title row's top rule than a row's height
    # of its own, and nearest the rule under the title row, where the rows start.
    from pipeline.scan.table import Grid, with_dashed_rows

    img = np.full((int(11 * DPI), int(8.5 * DPI)), 255, np.uint8)
    x0, x1, top, pitch = int(0.5 * DPI), int(8.0 * DPI), int(2.0 * DPI), int(0.5 * DPI)
    rules = [top, top + 60] + [top + 60 + k * pitch for k in range(1, 6)]
    for y in rules:
        for x in range(x0, x1, 24):
            cv2.line(img, (x, y), (x + 14, y), 0, 2)
    binary = (img < 128).astype(np.uint8) * 255
    guessed = 100  # the text grid's row height, from the one entry
    ys = (top + 10, rules[1] - 10, *(rules[1] - 10 + k * guessed for k in range(1, 5)))
    grid = with_dashed_rows(binary, Grid((x0, x0 + 400, x0 + 900, x1), ys, "text"), DPI)
    assert grid.ys[1:] == pytest.approx(rules[1:], abs=3)


def test_a_guessed_row_height_gives_way_to_the_dashes_own() -> None:
    # One entry gave the text grid a row height nearly twice the table's (the entry's
    # centre sits low under the title row): its rows are put on the dashes, a dash row apart,
    # however much shorter than the guess. A row height measured from several entries does
    # not give way to dashes this much closer (they may be lines halfway down each row).
    from pipeline.scan.table import Grid, with_dashed_rows

    img = _dashed_table()
    x0, x1, pitch, rules = _X0, _X1, _PITCH, _DASHED
    binary = (img < 128).astype(np.uint8) * 255
    guessed = int(1.8 * pitch)
    ys = (rules[0] - 10, rules[1] - 5, *(rules[1] - 5 + k * guessed for k in range(1, 4)))
    xs = (x0, x0 + 400, x0 + 900, x1)
    grid = with_dashed_rows(binary, Grid(xs, ys, "text", guessed_pitch=True), DPI)
    assert grid.ys[1:] == pytest.approx(rules[1:], abs=3)
    measured = with_dashed_rows(binary, Grid(xs, ys, "text"), DPI)
    assert np.diff(measured.ys[1:]) == pytest.approx(2 * pitch, abs=3)  # every other dash


def test_a_ruled_table_goes_on_down_its_broken_rules() -> None:
    # A fully ruled table whose last three rows' rules (across and down) are broken into
    # dashes, as a faded or badly copied foot leaves them: the rows go on down the dashes
    # while the column rules run on between them, and stop at the statement's prose.
    from pipeline.scan.table import with_dashed_rows

    img = np.full((int(11 * DPI), int(8.5 * DPI)), 255, np.uint8)
    x0, x1, top, pitch = int(0.5 * DPI), int(8.0 * DPI), int(2.0 * DPI), int(0.35 * DPI)
    rules = [top + k * pitch for k in range(10)]
    xs = [x0, x0 + 200, x0 + 500, x0 + 800, x1]
    for k, y in enumerate(rules):
        for x in range(x0, x1, 32 if k > 6 else 1):
            cv2.line(img, (x, y), (x + (12 if k > 6 else 1), y), 0, 2)
    for x in xs:
        cv2.line(img, (x, rules[0]), (x, rules[6]), 0, 2)
        for y in range(rules[6], rules[-1], 24):
            cv2.line(img, (x, y), (x, y + 10), 0, 2)
    for k in range(2):  # the statement below
        y = rules[-1] + int((0.35 + 0.2 * k) * DPI)
        cv2.putText(img, "I, the witness, state that", (x0, y), cv2.FONT_HERSHEY_SIMPLEX, 0.6, 0, 2)
    binary = (img < 128).astype(np.uint8) * 255
    found = find_grid(binary, DPI)
    assert found is not None and found.ys == pytest.approx(rules[:7], abs=3)  # whole rules
    grid = with_dashed_rows(binary, found, DPI)
    assert grid.method == "rules+dashes"
    assert grid.ys == pytest.approx(rules, abs=3)


def test_a_paragraph_just_above_a_ruled_table_is_not_its_title_row() -> None:
    # The 2-202 owners' signature page (synthetic, made by synth.kinds; invented names): its
    # paragraph ends a third of an inch above the table, its lines bridged into long strokes
    # that cross the column rules' line. They are no rules (ink on both sides): the table
    # starts at its own top rule, and its title row is "Date | Signature | ..." (it was the
    # paragraph's, so no column was placed and the page read 0 rows).
    page = cv2.imread(str(Path(__file__).parent / "data" / "paragraph-over-table-300dpi.png"), 0)
    grid = find_grid(page, 300.0)
    assert grid is not None and grid.ys[0] == pytest.approx(324, abs=4)
    assert grid.n_rows == 10


def test_handwriting_strokes_do_not_cut_a_table_ruled_across() -> None:
    # Tall pen strokes at the same place in neighbouring rows are not column rules: they do
    # not cross the row rule between them, so the table stays one band.
    from pipeline.scan.table import table_bands

    img = np.full((int(11 * DPI), int(8.5 * DPI)), 255, np.uint8)
    x0, x1, top, pitch = int(0.5 * DPI), int(8.0 * DPI), int(2.0 * DPI), int(0.35 * DPI)
    for k in range(12):
        cv2.line(img, (x0, top + k * pitch), (x1, top + k * pitch), 0, 2)
    for k in range(1, 5):  # strokes in rows 1-4 at two fixed places, inside their rows
        for x in (x0 + 100, x0 + 500):
            cv2.line(img, (x, top + k * pitch + 8), (x + 3, top + (k + 1) * pitch - 8), 0, 3)
    horiz, vert = rule_masks((img < 128).astype(np.uint8) * 255, DPI)
    assert len(table_bands(horiz, vert, DPI)) == 1


def _title_row(width: int, titles: tuple[tuple[int, int], ...]) -> tuple[np.ndarray, list[int]]:
    """Ink (255) of a table ruled across only at 300 dpi, `width` wide: the rules' ys, and
    the titles (x from, x to) in its first row; the rows are for each test to write."""
    ink = np.zeros((1000, width), np.uint8)
    for x0, x1 in titles:
        ink[150:190, x0:x1] = 255
    return ink, [100, 250, 400, 550, 700, 850]


def _signed_row(ink: np.ndarray, y: int, sig_end: int) -> None:
    """A row under the four titles ((20, 200), (300, 560), (720, 900), (1000, 1200)) of a
    1300-wide table from its top rule `y`: a date, a signature running to `sig_end`, a
    printed name from 700 and an address."""
    for x0, x1 in ((30, 150), (310, sig_end), (700, 880), (1010, 1150)):
        ink[y + 50 : y + 90, x0:x1] = 255


def test_entries_running_on_under_a_close_title_still_part_its_column() -> None:
    # A table ruled across only, its last two titles set close ("Village" | "Election
    # District No."): the village entries run on under the next title in two rows of three,
    # so no clear stretch parts them. The title row is still the first row (it was taken to
    # be the first signature row, whose titles placed nothing: the sheet read no rows).
    from pipeline.scan.textgrid import title_columns

    dpi = 300.0
    ink, ys = _title_row(1100, ((20, 200), (300, 600), (700, 800), (840, 1000)))
    ends = (850, 825, 790)  # the village entries' ends: under the last title in two rows
    for row, end in enumerate(ends):
        y = ys[row + 1] + 50
        for x0, x1 in ((30, 150), (320, 580), (705, end), (900, 950)):
            ink[y : y + 40, x0:x1] = 255
    found = title_columns(ink, ys, 0, 1100, dpi)
    assert found is not None
    title_row, xs = found
    assert title_row == 0
    assert len(xs) == 5 and 825 <= xs[3] < 840  # where only one row writes across
    # Not with a row of prose among the rows (a heading: one piece running under two
    # titles): there the titles are parted only where the rows leave a clear stretch.
    ink[ys[4] + 50 : ys[4] + 90, 30:520] = 255
    assert title_columns(ink, ys, 0, 1100, dpi) != found


def test_signatures_running_on_under_the_next_title_in_every_written_row_part_there() -> None:
    # Fresh held-out 1115: two rows written, each signature running on under "Name (Printed)"
    # and over the printed name. No stretch is clear and two rows say nothing of a gap: the
    # first written row was taken for the title row, its entries for titles (a column of
    # half a signature, the sheet to a person). The titles say a boundary is there: it goes
    # where the two rows write least.
    from pipeline.scan.textgrid import title_columns

    dpi = 300.0
    ink, ys = _title_row(1300, ((20, 200), (300, 560), (720, 900), (1000, 1200)))
    for y, sig_end in ((ys[1], 780), (ys[2], 760)):  # signatures to 780 and 760
        _signed_row(ink, y, sig_end)
    found = title_columns(ink, ys, 0, 1300, dpi)
    assert found is not None
    title_row, xs = found
    assert title_row == 0 and len(xs) == 5
    assert 560 < xs[2] < 720  # between the titles, where the rows write least


def test_signatures_running_on_under_the_next_title_in_most_rows_part_where_two_do_not() -> None:
    # Fresh held-out 1139: five rows written, three of the signatures running on under "Name
    # (Printed)". More than half of the rows write across, so the title row's boundary was
    # not placed and the first signed row was taken for the title row: the printed names'
    # column was read as part of the signatures', with no doubt. Two rows leave a clear
    # stretch between the two titles: the boundary goes there.
    from pipeline.scan.textgrid import title_columns

    dpi = 300.0
    ink, ys = _title_row(1300, ((20, 200), (300, 560), (720, 900), (1000, 1200)))
    ys = [*ys, 1000, 1150]
    ink = np.vstack([ink, np.zeros((300, 1300), np.uint8)])
    for row, sig_end in enumerate((780, 600, 760, 640, 790)):
        _signed_row(ink, ys[row + 1], sig_end)
    found = title_columns(ink, ys, 0, 1300, dpi)
    assert found is not None
    title_row, xs = found
    assert title_row == 0 and len(xs) == 5
    assert 640 < xs[2] < 700  # where the two rows whose signatures end short leave paper
    for row in (1, 3):  # every row writes across: the titles are one column's, no boundary
        ink[ys[row + 1] + 50 : ys[row + 1] + 90, 640:700] = 255
    found = title_columns(ink, ys, 0, 1300, dpi)
    assert found is None or found[0] != 0 or len(found[1]) == 4


def test_two_titles_run_together_are_parted_where_their_rows_write_apart() -> None:
    # A table ruled across only whose last two titles touch ("Town or City" and "Election
    # District No.", wider than its column, run into one piece of ink): the rows' town and
    # district entries leave a clear stretch under the piece and write on both sides of it,
    # so it is two columns (it was one, placed as nothing: the sheet went to a person).
    # One title over entries that keep to its left leaves paper on one side only: one column.
    from pipeline.scan.textgrid import title_columns

    dpi = 300.0
    # the last two titles touch
    ink, ys = _title_row(1300, ((20, 200), (300, 600), (700, 905), (908, 1200)))
    for y in ys[1:5]:
        for x0, x1 in ((30, 150), (320, 580), (710, 880), (1060, 1090)):
            ink[y + 50 : y + 90, x0:x1] = 255
    found = title_columns(ink, ys, 0, 1300, dpi)
    assert found is not None
    _, xs = found
    assert len(xs) == 5 and 880 < xs[3] < 1060
    for y in ys[1:5]:  # the district entries gone: one column under the piece
        ink[y + 50 : y + 90, 1060:1090] = 0
    found = title_columns(ink, ys, 0, 1300, dpi)
    assert found is not None and len(found[1]) == 4


def test_a_paragraph_over_a_table_ruled_across_is_not_its_title_row() -> None:
    # A line of the paragraph above the table was taken for a rule (a degraded typewriter
    # face): the band from it to the table's top rule holds the paragraph's last lines, words
    # a space apart, three pieces and more. The title row is the next row, its titles apart.
    from pipeline.scan.textgrid import title_columns

    dpi = 300.0
    ink = np.zeros((1100, 1100), np.uint8)
    ys = [60, 250, 400, 550, 700, 850, 1000]
    for x0, x1 in ((20, 250), (290, 560), (600, 870), (910, 1040)):  # words 0.13 in apart
        ink[120:160, x0:x1] = 255
        ink[180:220, x0:x1] = 255
    for x0, x1 in ((20, 120), (300, 480), (640, 780), (900, 1000)):  # the titles
        ink[300:340, x0:x1] = 255
    for row in range(1, 5):
        y = ys[row + 1] + 50
        for x0, x1 in ((30, 150), (320, 500), (620, 800), (920, 960)):
            ink[y : y + 40, x0:x1] = 255
    found = title_columns(ink, ys, 0, 1100, dpi)
    assert found is not None
    title_row, xs = found
    assert title_row == 1 and len(xs) == 5


def test_no_table_gives_none() -> None:
    img = np.full((int(11 * DPI), int(8.5 * DPI)), 255, np.uint8)
    cv2.putText(img, "no table here", (100, 300), cv2.FONT_HERSHEY_SIMPLEX, 1, 0, 2)
    assert find_grid((img < 128).astype(np.uint8) * 255, DPI) is None


def test_ink_blank_speck_and_stroke() -> None:
    cell = np.zeros((60, 300), np.uint8)
    assert not measure_ink(cell, 300).present
    specks = cell.copy()
    specks[10, 10] = specks[30, 200] = specks[50, 100] = 255
    assert not measure_ink(specks, 300).present
    stroke = cell.copy()
    cv2.putText(stroke, "J Smith", (5, 45), cv2.FONT_HERSHEY_SIMPLEX, 1.0, 255, 2)
    ink = measure_ink(stroke, 300)
    assert ink.present and ink.confidence > 0.9 and ink.bbox is not None
    # a dirty scan's dust: many blobs of 3x3 px, together more than a short stroke's area,
    # none reaching as far as a pen's stroke
    dust = cell.copy()
    for k in range(12):
        dust[5 + 4 * k : 8 + 4 * k, 20 * k + 5 : 20 * k + 8] = 255
    assert np.count_nonzero(dust) > 0.0004 * 300 * 300 and not measure_ink(dust, 300).present
    one = cell.copy()  # a written "1": one short upright stroke is writing
    cv2.line(one, (150, 15), (152, 40), 255, 3)
    assert measure_ink(one, 300).present


def test_ocrtext_joins_lines_and_weights_confidence() -> None:
    ocr = OcrText(
        (
            Word("Sheet", 0.9, (0, 0, 5, 5), 0),
            Word("No.", 0.5, (6, 0, 9, 5), 0),
            Word("3", 1.0, (0, 9, 3, 14), 1),
        )
    )
    assert ocr.text == "Sheet No.\n3"
    assert ocr.confidence == pytest.approx((0.9 * 5 + 0.5 * 3 + 1.0) / 9)
    assert OcrText(()).confidence == 0.0


def test_cer() -> None:
    assert cer("Elmwood", "Elmwood") == 0.0
    assert cer("Elmwood", "EImwood") == pytest.approx(1 / 7)
    assert cer("", "") == 0.0 and cer("", "x") == 1.0
    assert cer("a  b", "a b") == 0.0


def test_dpi_kept_or_estimated(tmp_path: Path) -> None:
    img = _form()
    with_dpi, without = tmp_path / "a.png", tmp_path / "b.png"
    save_scan([img], with_dpi, DPI)
    save_scan([img], without, DPI, keep_dpi=False)
    (ref,) = ingest_file(with_dpi)
    page = load_page_image(ref)
    assert page.dpi == pytest.approx(DPI, abs=0.5) and not page.dpi_estimated
    (ref,) = ingest_file(without)
    page = load_page_image(ref)
    assert page.dpi_estimated and page.dpi == pytest.approx(estimate_dpi(*img.shape[::-1]))
    assert page.dpi == pytest.approx(DPI, abs=1)


def test_multipage_tiff_and_image_pdf(tmp_path: Path) -> None:
    a, b = _form(), degrade(_form(), Degrade(rotate=180), DPI)
    tif, pdf = tmp_path / "two.tif", tmp_path / "two.pdf"
    save_scan([a, b], tif, DPI)
    save_scan([a, b], pdf, DPI)
    refs = ingest_file(tif)
    assert [r.kind for r in refs] == [PageKind.IMAGE, PageKind.IMAGE]
    assert np.array_equal(load_page_image(refs[1]).gray, b)
    refs = ingest_file(pdf)
    assert [r.kind for r in refs] == [PageKind.PDF_IMAGE, PageKind.PDF_IMAGE]
    page = load_page_image(refs[0])
    assert page.dpi == pytest.approx(DPI, abs=1)  # rendered at the embedded image's resolution
    assert page.gray.shape == pytest.approx(a.shape, abs=2)


def test_unreadable_image_is_an_error(tmp_path: Path) -> None:
    from pipeline.errors import UnreadableInputError
    from pipeline.records import PageRef

    bad = tmp_path / "bad.png"
    Image.fromarray(_form()).save(bad)
    ref = ingest_file(bad)[0]
    bad.write_bytes(b"not an image")
    with pytest.raises(UnreadableInputError):
        load_page_image(PageRef(ref.path, 0, ref.content_hash, ref.kind, ref.width, ref.height))


def test_pdf_with_earlier_ocr_layer_is_read_as_a_scan(tmp_path: Path) -> None:
    """A scan saved with an invisible OCR text layer over the image (as OCR tools write it)
    is a PDF_OCR page: its image is read (`pipeline.scan.layer` uses the layer only to place
    the printed blanks, when it holds them; this one does not)."""
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen.canvas import Canvas

    png = tmp_path / "page.png"
    Image.fromarray(_form()).save(png)
    pdf = tmp_path / "ocred.pdf"
    c = Canvas(str(pdf), pagesize=(612, 792))
    c.drawImage(ImageReader(str(png)), 0, 0, width=612, height=792)
    text = c.beginText(40, 700)
    text.setTextRenderMode(3)  # invisible, as an OCR layer is
    text.setFont("Helvetica", 10)
    for k in range(5):
        text.textLine(f"PETITION FOR A PERMISSIVE REFERENDUM line {k} Date Signature Residence")
    c.drawText(text)
    c.showPage()
    c.save()
    (ref,) = ingest_file(pdf)
    assert ref.kind is PageKind.PDF_OCR


def test_sans_serif_i_and_l_are_put_right() -> None:
    from pipeline.scan.reader import _fix_il

    assert _fix_il("EImwood Falls", capitalized=False) == "Elmwood Falls"
    assert _fix_il("llse Juniper", capitalized=True) == "Ilse Juniper"
    assert _fix_il("Iise Juniper", capitalized=True) == "Ilse Juniper"
    assert _fix_il("Greta B Kettleby llI", capitalized=True) == "Greta B Kettleby III"
    assert _fix_il("lived at", capitalized=False) == "lived at"


def _two_table_page(dpi: float = DPI) -> np.ndarray:
    """A nominating-style page: a candidates table (header + 2 rows, 4 columns), two lines of
    text, then the signature table (header + 8 rows, 3 columns), both as wide as the page's
    text and with rows of the same height."""
    w, h = int(8.5 * dpi), int(11 * dpi)
    img = np.full((h, w), 255, np.uint8)
    x0, x1 = int(0.5 * dpi), int(8.0 * dpi)
    row = int(0.3 * dpi)

    def table(top: int, rows: int, cols: list[float]) -> None:
        ys = [top + row * k for k in range(rows + 2)]
        for y in ys:
            cv2.line(img, (x0, y), (x1, y), 0, 2)
        for x in [x0, *(x0 + int(c * dpi) for c in cols), x1]:
            cv2.line(img, (x, ys[0]), (x, ys[-1]), 0, 2)

    table(int(1.5 * dpi), 2, [2.5, 4.0, 5.0])
    for k in range(2):
        y = int((2.6 + 0.35 * k) * dpi)
        cv2.putText(img, "I do hereby appoint a committee", (x0, y), 0, dpi / 300, 0, 2)
    table(int(3.4 * dpi), 8, [1.1, 4.0])
    return img


def test_two_tables_on_a_page_are_told_apart() -> None:
    from pipeline.scan.clean import RULE_RATIO, binarize
    from pipeline.scan.table import find_grids, table_bands

    cleaned = clean_page(_two_table_page(), DPI)
    masks = rule_masks(binarize(cleaned.gray, RULE_RATIO), DPI)
    assert len(table_bands(masks[0], masks[1], DPI)) == 2
    grids = find_grids(cleaned.binary, DPI, masks)
    assert [(g.n_rows, len(g.xs) - 1) for g in grids] == [(8, 3), (2, 4)]  # tallest first
    # One table: one grid, as find_grid gives it.
    one = clean_page(_form(rows=8), DPI)
    (grid,) = find_grids(one.binary, DPI)
    assert grid == find_grid(one.binary, DPI)


def _text_page(lines: list[str], dpi: float = DPI) -> tuple[np.ndarray, list[int]]:
    """Printed lines of text 0.3 in apart; returns the image (ink 255) and each line's
    baseline y."""
    img = np.zeros((int(0.5 * dpi + 0.3 * dpi * len(lines)), int(8.5 * dpi)), np.uint8)
    ys = []
    for k, text in enumerate(lines):
        y = int(0.4 * dpi + 0.3 * dpi * k)
        cv2.putText(img, text, (int(0.5 * dpi), y), 0, dpi / 300, 255, 2)
        ys.append(y)
    return img, ys


def test_text_lines_are_found_one_by_one() -> None:
    from pipeline.scan.blocks import text_lines

    ink, ys = _text_page(["Statement of Witness", "I, Ann Lee state: I reside", "Sheet No. 3"])
    ink[5, 40] = ink[80, 900] = 255  # specks are not lines
    found = text_lines(ink, (0, 0, ink.shape[1], ink.shape[0]), DPI)
    assert len(found) == 3
    for (_, y, _, h), base in zip(found, ys, strict=True):
        assert y < base <= y + h


def test_statement_is_read_to_its_count_and_from_the_foot() -> None:
    """The witness's statement is read down to its stated count, then from the foot up to the
    caption under the date and signature and the line above it; the fixed wording between
    is not read."""
    from pipeline.scan.blocks import BlockPage, read_lines, text_lines
    from pipeline.scan.reader import _is_caption, _statement_done
    from tests.fakes import FakeEngine

    words = [
        "Statement of Witness:",
        "I, Ann Lee state: I reside at 4 Elm St (residence address)",
        "names are subscribed to this sheet containing 10 (fill in number) signatures",
        "I understand that this statement will be accepted for all purposes",
        "statement, shall subject me to the same penalties",
        "10/3/26 Ann Lee",
        "Date Signature of Witness",
        "Sheet No. 3",
    ]
    ink, ys = _text_page(["x" * 20] * len(words))
    lines = text_lines(ink, (0, 0, ink.shape[1], ink.shape[0]), DPI)
    assert len(lines) == len(words)

    def answer(rect: tuple[int, int, int, int], psm: object, whitelist: str) -> str:
        (k,) = [k for k, y in enumerate(ys) if rect[1] <= y <= rect[1] + rect[3]]
        return words[k]

    engine = FakeEngine(answer)
    page = BlockPage(engine, 1.0, DPI)
    ocr = read_lines(page, lines, _statement_done, _is_caption, DPI * 0.35)
    assert ocr.text.splitlines() == words[:3] + words[5:]
    assert len(engine.calls) == 6
    assert {psm for _, psm, _ in engine.calls} == {Psm.SINGLE_LINE}  # one line each
    # A statement that never states its count is read whole.
    engine = FakeEngine(lambda r, p, w: answer(r, p, w).replace("containing", "with"))
    ocr = read_lines(BlockPage(engine, 1.0, DPI), lines, _statement_done, _is_caption, DPI * 0.35)
    assert len(ocr.text.splitlines()) == len(words) and len(engine.calls) == len(words)


def test_a_run_taller_than_one_line_is_read_as_a_block() -> None:
    """Two lines that touch (a skewed page) make one run of inked rows: forced to one line
    tesseract reads it as noise, so it is read as a block; a line on its own as one line."""
    from pipeline.scan.blocks import ONE_LINE_MAX_IN, BlockPage, text_lines
    from tests.fakes import FakeEngine

    ink, _ = _text_page(["Statement of Witness", "x"])
    tall = int(0.5 * DPI)
    ink[tall : tall + int(0.2 * DPI), 100:140] = 255  # a stroke joining the next line's rows
    ink[tall + int(0.2 * DPI) : tall + int(0.45 * DPI), 100:900] = 255
    lines = text_lines(ink, (0, 0, ink.shape[1], ink.shape[0]), DPI)
    assert [h <= ONE_LINE_MAX_IN * DPI for _, _, _, h in lines] == [True, False]
    engine = FakeEngine(lambda r, p, w: "text")
    page = BlockPage(engine, 1.0, DPI)
    for rect in lines:
        page.read(rect)
    assert [psm for _, psm, _ in engine.calls] == [Psm.SINGLE_LINE, Psm.SINGLE_BLOCK]


def _ocr(rows: list[tuple[int, list[tuple[int, str]]]]) -> OcrText:
    """Words laid out as tesseract gives them (pixels at 300 dpi): one text line per row."""
    words = []
    for line, (y, items) in enumerate(rows):
        for x, text in items:
            words.append(Word(text, 0.95, (x, y, x + 20 * len(text), y + 40), line))
    return OcrText(tuple(words))


def test_each_statement_forms_date_and_signature_are_read_from_a_scan() -> None:
    """The witness's "Date ... Signature of Witness", the notary's "(Signature and official
    title ...)" with its "Date:" label, and 2-202's "(signature of witness)" under the jurat."""
    from pipeline.scan.reader import _read_witness

    witness = _ocr(
        [
            (100, [(150, "STATEMENT"), (400, "OF"), (470, "WITNESS:")]),
            (160, [(150, "I,"), (200, "Ann"), (300, "Roe"), (400, "state")]),
            (220, [(150, "containing"), (420, "7"), (460, "(fill"), (560, "in"), (620, "number)")]),
            (380, [(150, "3/9/26"), (1400, "Ann"), (1500, "Roe")]),
            (440, [(150, "Date"), (1400, "Signature"), (1620, "of"), (1680, "Witness")]),
        ]
    )
    notary = _ocr(
        [
            (100, [(150, "On"), (210, "the"), (280, "dates"), (400, "before"), (520, "me")]),
            (160, [(150, "personally"), (380, "came"), (480, "each")]),
            (220, [(150, "containing"), (420, "8"), (460, "(fill"), (560, "in"), (620, "number)")]),
            (380, [(150, "Date:"), (300, "10/04/2026"), (1330, "Pell"), (1420, "Oakhurst,")]),
            (440, [(1330, "(Signature"), (1560, "and"), (1640, "official"), (1800, "title)")]),
        ]
    )
    affidavit = _ocr(
        [
            (100, [(150, "STATE"), (300, "OF"), (370, "NEW"), (460, "YORK")]),
            (
                160,
                [(150, "Edda"), (260, "Kettleby"), (460, "being"), (580, "duly"), (680, "sworn,")],
            ),
            (220, [(150, "having"), (300, "7"), (340, "signatures;")]),
            (
                300,
                [
                    (150, "Sworn"),
                    (280, "to"),
                    (330, "before"),
                    (460, "me"),
                    (520, "This"),
                    (620, "1st"),
                    (700, "day"),
                    (790, "of"),
                    (850, "October,"),
                    (1050, "2026"),
                ],
            ),
            (370, [(150, "Edda"), (260, "Kettleby")]),
            (430, [(150, "(signature"), (380, "of"), (440, "witness)")]),
        ]
    )
    got = {
        name: _read_witness(ocr, 300, 2550)
        for name, ocr in (("witness", witness), ("notary", notary), ("affidavit", affidavit))
    }
    assert {k: w.form for k, w in got.items() if w} == {
        "witness": "witness",
        "notary": "notary",
        "affidavit": "affidavit",
    }
    said = {
        k: (w.date.text if w.date else None, w.signature.text if w.signature else None)
        for k, w in got.items()
        if w
    }
    assert said == {
        "witness": ("3/9/26", "Ann Roe"),
        "notary": ("10/04/2026", "Pell Oakhurst,"),
        "affidavit": ("October 1, 2026", "Edda Kettleby"),
    }


@pytest.mark.parametrize("said", ["state:", "state.", "state,", "state;", "state that"])
def test_the_witness_is_named_when_the_colon_after_state_is_read_as_other_punctuation(
    said: str,
) -> None:
    # Held-out 9963, degraded: "I, Juno C Underhill state:" read "1, Juno C Underhill state. |
    # am over ...": the name was not found, and the sheet was flagged WITNESS_NAME_MISSING.
    from pipeline.scan.reader import _read_witness

    words = [(150, "1,"), (200, "Juno"), (300, "C"), (340, "Underhill"), (560, said), (700, "|")]
    ocr = _ocr(
        [
            (100, [(150, "Statement"), (400, "of"), (470, "Witness:")]),
            (160, [*words, (740, "am"), (800, "over")]),
            (220, [(150, "containing"), (420, "7"), (460, "(fill"), (560, "in"), (620, "number)")]),
            (440, [(150, "Date"), (1400, "Signature"), (1620, "of"), (1680, "Witness")]),
        ]
    )
    got = _read_witness(ocr, 300, 2550)
    assert got is not None and got.witness_name is not None
    assert got.witness_name.text == "Juno C Underhill"
    # "state" in the middle of a line, with no "I," before it, names no one
    prose = _ocr([(100, [(150, "Statement"), (400, "of"), (470, "Witness:")]), (160, words[1:])])
    got = _read_witness(prose, 300, 2550)
    assert got is None or got.witness_name is None


def test_the_witness_blanks_are_found_by_their_caption_and_read_from_the_ink() -> None:
    """A signature reaching down into its caption is read in among it by OCR ("Date
    Signature Srlwby of Witness"), its caption's last word on another text line: the caption
    is still found by its words' places, and the blanks above it are handed to the ink reader
    left and right of it, the statement's printed lines reaching into the band masked."""
    from pipeline.scan.reader import _caption_fields

    words = [
        Word("duly", 0.95, (150, 300, 230, 345), 0),  # the statement's last line, above
        Word("sworn.", 0.95, (240, 300, 360, 345), 0),
        Word("10/6/26", 0.4, (160, 370, 330, 430), 1),  # the handwritten date
        Word("La", 0.3, (1400, 360, 1460, 440), 1),  # the signature, split by OCR
        Word("Date", 0.95, (150, 440, 230, 480), 2),
        Word("Signature", 0.95, (1400, 440, 1580, 480), 2),
        Word("Srlwby", 0.3, (1590, 430, 1700, 485), 2),
        Word("of", 0.95, (1710, 440, 1750, 480), 2),
        Word("Witness", 0.95, (1760, 440, 1900, 480), 3),
    ]
    calls: list[tuple[str, tuple[int, int, int, int], list[object], list[str]]] = []

    def read_blank(name, rect, masks, ws):  # type: ignore[no-untyped-def]
        calls.append((name, rect, list(masks), [w.text for w in ws]))
        return Field(name, "x", 0.9, Source.OCR)

    date, signature = _caption_fields(words, 300, 2550, read_blank)
    assert date is not None and signature is not None
    (d_name, d_rect, masks, d_words), (s_name, s_rect, _, s_words) = calls
    assert (d_name, s_name) == ("date", "signature")
    assert d_words == ["10/6/26"] and s_words == ["La"]
    split = (1400 + 230) // 2
    assert d_rect[2] == s_rect[0] == split and d_rect[3] == s_rect[3] < 440
    assert d_rect[1] == 440 - int(300 * 0.35)
    assert (150, 300, 80, 45) in masks and all(m[1] < 360 for m in masks)
    # without the ink reader, the words above the caption as before
    date, signature = _caption_fields(words, 300, 2550)
    assert (date.text, signature.text) == ("10/6/26", "La")  # type: ignore[union-attr]


def test_a_blanks_printed_leader_is_not_writing() -> None:
    """An unsigned blank is its printed dots (or rule): no pen stroke; a stroke stays."""
    from pipeline.scan.ink import measure_ink
    from pipeline.scan.reader import _pen_strokes

    ink = np.zeros((100, 1200), np.uint8)
    for x in range(100, 1000, 20):
        ink[70:75, x : x + 5] = 255  # "...................."
    ink[90:93, 100:1100] = 255  # "____________________"
    assert not measure_ink(_pen_strokes(ink, 300), 300).present
    ink[20:80, 400:406] = 255  # a pen's upstroke
    ink[20:26, 400:500] = 255
    assert measure_ink(_pen_strokes(ink, 300), 300).present


@pytest.fixture(scope="module")
def unruled_case(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A synthetic case (invented people) whose signature tables are printed without rules."""
    from synth import generate_case

    out = tmp_path_factory.mktemp("unruled")
    generate_case(out, seed=4, n_sheets=2, ruled=False)
    return out


@pytest.mark.parametrize(
    "spec",
    [Degrade(), Degrade(skew=2.0, speckle=0.002, jpeg_quality=70)],
    ids=["clean", "skewed-speckled"],
)
def test_a_table_without_rules_is_found_from_its_text(unruled_case: Path, spec: Degrade) -> None:
    """No rules: the title row, the columns between the titles and a row for every line of
    the generator's truth (blank ones included), ink in a row exactly where truth has a
    filled line."""
    import json

    from pipeline.scan.blocks import without_specks
    from pipeline.scan.table import find_grids
    from pipeline.scan.textgrid import text_grid
    from synth.degrade import degrade, rasterize_pdf

    truth = json.loads((unruled_case / "truth.json").read_text(encoding="utf-8"))
    sheet = truth["sheets"][0]
    dpi = 200.0
    page = degrade(rasterize_pdf(unruled_case / sheet["file"], dpi)[0], spec, dpi)
    cleaned = clean_page(page, dpi)
    assert find_grids(cleaned.binary, dpi) == [] or spec.speckle  # no ruled table
    grid = text_grid(cleaned.binary, dpi)
    assert grid is not None and grid.method == "text"
    assert len(grid.xs) == 7  # six columns
    assert grid.n_rows == len(sheet["lines"])
    ink = without_specks(cleaned.binary, dpi)
    inked = []
    for k in range(1, len(grid.ys) - 1):
        y0, y1 = grid.ys[k] + 2, grid.ys[k + 1] - 2
        inked.append(bool(np.count_nonzero(ink[y0:y1, grid.xs[0] : grid.xs[-1]]) > 50))
    assert inked == [not line["blank"] for line in sheet["lines"]]


def test_prose_and_a_blank_page_give_no_text_grid() -> None:
    from pipeline.scan.textgrid import text_grid

    ink, _ = _text_page(["We, the undersigned, duly qualified electors"] * 4)
    assert text_grid(ink, DPI) is None
    assert text_grid(np.zeros((1100, 850), np.uint8), DPI) is None


def _put(img: np.ndarray, text: str, x_in: float, y_in: float) -> None:
    cv2.putText(img, text, (int(x_in * DPI), int(y_in * DPI)), 0, DPI / 300, 255, 2)


def test_a_paragraphs_last_words_standing_apart_are_no_title_row() -> None:
    # Two lines of the petition's paragraph, the first running on past the second's end with
    # its last words a wide space apart: three pieces, like a title row. Tried first, it
    # took the place of the table below (two such candidates and the table was never tried).
    from pipeline.scan.textgrid import text_grids

    ink = np.zeros((int(4 * DPI), int(8.5 * DPI)), np.uint8)
    first = "We the undersigned electors of the village petition that Local Law No."
    _put(ink, first, 0.5, 0.5)
    end = 0.5 + cv2.getTextSize(first, 0, DPI / 300, 2)[0][0] / DPI
    _put(ink, "3", end + 0.12, 0.5)  # a typewriter face's word spaces: 0.1 in and more
    _put(ink, "of", end + 0.3, 0.5)
    _put(ink, "2026 a local law amending the zoning code be submitted to", 0.5, 0.65)
    for x, title in ((0.6, "Date"), (2.0, "Signature"), (4.6, "Residence"), (7.2, "Ward")):
        _put(ink, title, x, 1.2)
    for k in range(3):
        y = 1.6 + 0.4 * k
        for x, entry in ((0.5, "9/21/26"), (1.8, "Ann Lee"), (4.2, "12 Elm St"), (7.3, "2")):
            _put(ink, entry, x, y)
    grids = text_grids(ink, DPI, most=2)
    assert grids and len(grids[0].xs) == 5  # the table first, its four columns
    assert grids[0].ys[0] > int(0.9 * DPI)


def test_a_one_entry_text_tables_title_row_keeps_its_titles_whole() -> None:
    # A table printed without rules, one row written: its row height is guessed from the gap
    # under the titles, and the title row ended at its titles' ink foot, so the title cells,
    # read inset, lost their descenders ("Signature" read "Qiagdnature": no Signature column).
    from pipeline.scan.textgrid import text_grid

    ink = np.zeros((int(4 * DPI), int(8.5 * DPI)), np.uint8)
    for x, title in ((0.6, "Date"), (2.0, "Signature"), (4.6, "Residence"), (7.2, "Ward")):
        _put(ink, title, x, 1.2)
    for x, entry in ((0.5, "9/21/26"), (1.8, "Ann Lee"), (4.2, "12 Elm St"), (7.3, "2")):
        _put(ink, entry, x, 1.8)
    grid = text_grid(ink, DPI)
    assert grid is not None
    rows = np.flatnonzero(ink[: int(1.5 * DPI)].any(axis=1))
    foot = int(rows.max())  # the titles' ink foot, "g" in Signature's descender
    assert grid.ys[1] >= foot + int(0.02 * DPI) + 1  # below it by more than a cell's inset


def test_a_text_tables_only_row_running_on_under_the_next_title_is_a_row() -> None:
    # A table printed without rules, one row written, its signature running on under the
    # printed name's title (held-out 1117 case-000): no clear stretch parts those titles,
    # and the table ended above its only row (the sheet read no row). The titles say a
    # boundary is there; it goes where the row writes least.
    from pipeline.scan.textgrid import text_grid

    ink = np.zeros((int(4 * DPI), int(8.5 * DPI)), np.uint8)
    for x, title in ((0.6, "Date"), (2.0, "Signature"), (4.6, "Full Name"), (7.0, "Address")):
        _put(ink, title, x, 1.2)
    _put(ink, "9/21/26", 0.5, 1.8)
    # a signature in one joined stroke, from under "Signature" on past 4.6 in ("Full Name"),
    # the printed name right after it
    cv2.line(ink, (int(1.8 * DPI), int(1.75 * DPI)), (int(4.75 * DPI), int(1.75 * DPI)), 255, 8)
    _put(ink, "Ann Lee", 4.8, 1.8)
    _put(ink, "12 Elm St", 6.9, 1.8)
    grid = text_grid(ink, DPI)
    assert grid is not None
    assert len(grid.xs) == 5  # four columns
    assert 2.5 * DPI < grid.xs[2] < 4.6 * DPI  # between the two titles
    # one entry alone that runs across is a line of prose, not a row
    prose = np.zeros_like(ink)
    for x, title in ((0.6, "Date"), (2.0, "Signature"), (4.6, "Full Name"), (7.0, "Address")):
        _put(prose, title, x, 1.2)
    _put(prose, "I state that the signers signed in my presence", 0.5, 1.8)
    assert text_grid(prose, DPI) is None
    # nor is a line of typewriter prose, its words a wide space apart, that runs on under
    # several titles (a petition's heading over its first line, dev 1103)
    typed = np.zeros_like(ink)
    for x, title in ((0.6, "Date"), (2.0, "Signature"), (4.6, "Full Name"), (7.0, "Address")):
        _put(typed, title, x, 1.2)
    _put(typed, "To the Board of Trustees of the", 0.5, 1.8)  # a wide space under a title
    _put(typed, "Village of Elmwood Falls County of Albany State", 2.45, 1.8)
    assert text_grid(typed, DPI) is None


def test_long_signatures_in_several_rows_running_on_at_different_places_end_no_table() -> None:
    # A table printed without rules written in a large hand (fresh held-out 1133 case-004):
    # two of five rows' signatures run on under "Name" at different places, each row still
    # parting its signature from its printed name, so no stretch between the two titles is
    # clear of all but one row, and the table ended at the fourth of 11 rows (7 signed lost,
    # flagged only by the statement's count). A row that parts its own entries under every
    # two titles is a row; the boundary goes where fewer than half of the rows write.
    from pipeline.scan.textgrid import text_grid

    ink = np.zeros((int(6 * DPI), int(8.5 * DPI)), np.uint8)
    for x, title in ((0.6, "Date"), (2.0, "Signature"), (4.6, "Name"), (6.6, "Address")):
        _put(ink, title, x, 1.2)
    # the usual row: its signature ends at 3.4 in, its printed name starts at 3.8; rows 1 and
    # 4 sign on to 4.1 and 3.9 in, their names after (4.3, 4.1): every stretch between the
    # titles is written in by two rows at least
    pitch, overflow = 0.38, {1: (4.1, 4.3), 4: (3.9, 4.1)}
    for k in range(7):
        y = 1.65 + pitch * k
        reach, name = overflow.get(k, (3.4, 3.8))
        _put(ink, "9/21/26", 0.5, y)
        at = int((y - 0.05) * DPI)
        cv2.line(ink, (int(1.8 * DPI), at), (int(reach * DPI), at), 255, 6)  # one joined stroke
        _put(ink, "Annabel Leigh", name, y)
        _put(ink, "12 Elm St", 6.5, y)
    _put(ink, "I state that the signers signed in my presence", 0.5, 1.65 + pitch * 8)
    grid = text_grid(ink, DPI)
    assert grid is not None and len(grid.xs) == 5
    assert len(grid.ys) - 2 >= 7  # every written row (and blank ones down to the statement)
    assert 3.4 * DPI < grid.xs[2] < 3.8 * DPI  # where only the two long signatures write


def test_the_tail_of_a_letter_under_a_row_is_no_row_of_its_own() -> None:
    # A handwritten "g" whose tail runs apart from its row (a thin run of ink just under it):
    # taken as a line of its own, its centre between two rows made the table's lattice fit
    # a row height of two thirds, and the sheet read 8 rows for 5 (dev seed 1069, case-001).
    from pipeline.scan.textgrid import text_grid

    ink = np.zeros((int(5 * DPI), int(8.5 * DPI)), np.uint8)
    for x, title in ((0.6, "Date"), (2.0, "Signature"), (4.6, "Residence"), (7.2, "Ward")):
        _put(ink, title, x, 1.2)
    pitch = 0.34
    for k in range(3):
        y = 1.65 + pitch * k
        for x, entry in ((0.5, "9/21/26"), (1.8, "Ann Lee"), (4.2, "12 Elm St"), (7.3, "2")):
            _put(ink, entry, x, y)
    foot = int(np.flatnonzero(ink[: int((1.65 + pitch) * DPI + 5)].any(axis=1)).max())
    # under the second row, 0.03 in below its ink (lines closer are joined), 0.05 in tall
    tail = foot + 1 + int(0.03 * DPI)
    ink[tail : tail + int(0.05 * DPI), int(2.1 * DPI) : int(2.3 * DPI)] = 255
    _put(ink, "I state that the signers signed in my presence", 0.5, 3.4)
    grid = text_grid(ink, DPI)
    assert grid is not None
    height = (grid.ys[-1] - grid.ys[1]) / (len(grid.ys) - 2)
    assert abs(height - pitch * DPI) < 0.1 * pitch * DPI  # the rows' own height
    assert 3 <= len(grid.ys) - 2 <= 5  # 3 written, and blank rows down to the statement


@pytest.mark.parametrize(
    ("printed", "digits_read", "value", "sure"),
    [
        ("Page No. 5", "5", 5, True),
        ("Page No. 5", "9", 5, False),  # the two reads differ: a person reads it
        ("Sheet No. __4__", "4", 4, False),  # written into the blank by hand
        ("Sheet No. b", "", 6, False),  # a caption with a look-alike: never silently
        ("Page 3 of 6", "3", 3, True),
        ("Sheet #12", "12", 12, True),
    ],
)
def test_sheet_numbers_by_caption_and_doubt(
    printed: str, digits_read: str, value: int, sure: bool
) -> None:
    from pipeline.records import Sheet
    from pipeline.rules.reading import threshold_for
    from pipeline.scan.reader import _read_sheet_number
    from pipeline.scan.sheetno import NumberRead
    from tests.builders import page

    words = tuple(
        Word(t, 0.95, (100 + 60 * k, 3000, 150 + 60 * k, 3030), 0)
        for k, t in enumerate(printed.split())
    )
    field = _read_sheet_number(
        OcrText(words), 300.0, lambda caption: NumberRead(digits_read, 0.95, ())
    )
    assert field is not None
    from pipeline.records import SheetHeader

    sheet = Sheet(page=page(), header=SheetHeader(), lines=(), sheet_number=field)
    assert sheet.sheet_number_value == value
    assert (field.confidence >= threshold_for("sheet_number")) is sure


def test_the_row_pitch_of_an_unruled_table_is_the_tallest_lattice_that_fits() -> None:
    """Handwriting sits higher or lower in its row: the entries' centres of rows 0.375 in tall
    (at 300 dpi, 112.5 px), each up to a fifth of a row off, one row left blank. The smallest
    step between two entries (93 px) is no row height; the lattice that gives every entry a
    row of its own is (it used to give 9 rows for 8)."""
    from pipeline.scan.textgrid import _pitch

    pitch = 112.5
    jitter = [0, 20, -5, 18, -20, 5, 0]
    rows = [0, 1, 2, 3, 4, 6, 7]  # row 5 blank
    centres = [600 + pitch * (r + 0.5) + j for r, j in zip(rows, jitter, strict=True)]
    fitted = _pitch(centres, 300.0)
    assert fitted is not None
    first, got = fitted
    assert abs(got - pitch) < 4
    assert round((centres[-1] - first) / got) == 7


def test_entries_no_lattice_holds_closely_still_give_the_table_its_rows() -> None:
    """A degraded scan's entries (warped, a row's text pulled to its top or foot) that no row
    height holds within the lattice's slack: the smallest step's lattice, fitted to them all,
    still gives each entry a row (the table was lost whole, `SHEET_NOT_READ`, before)."""
    from pipeline.scan.textgrid import _pitch

    # the centres of a degraded scan's entries (the CI corpus's held-out open-minimal family)
    centres = [1147.0, 1238.0, 1330.0, 1460.5, 1600.5, 1691.5, 1784.5, 1877.0, 1969.0]
    fitted = _pitch(centres, 300.0)
    assert fitted is not None
    first, got = fitted
    rows = [round((c - first) / got) for c in centres]
    assert len(set(rows)) == len(rows)  # every entry a row of its own


def test_a_foot_row_holding_the_statements_wording_is_no_row() -> None:
    # A table ruled across only, whose last "rule" is a line of the statement's prose smeared
    # into a long stroke: the "row" above it holds the heading, which runs across a column
    # boundary and reads as the statement's wording. The blank row above it stays a row, and
    # so does a row whose writing reads as a signer's.
    from pipeline.scan.reader import _without_statement_rows
    from pipeline.scan.table import Grid
    from tests.fakes import FakeEngine

    xs, pitch = (40, 200, 600, 1200), 60
    ys = tuple(100 + k * pitch for k in range(7))  # the title row and 5 "rows"
    ink = np.zeros((800, 1300), np.uint8)
    ink[ys[1] + 20 : ys[1] + 40, 250:400] = 255  # a signature in the first row
    ink[ys[-2] + 30 : ys[-2] + 45, 45:320] = 255  # the heading, across the boundary at 200
    heading = ys[-2] + 30

    def answer(rect: Rect, psm: Psm, whitelist: str) -> str:
        return "Statement of Witness:" if rect[1] <= heading < rect[1] + rect[3] else ""

    grid = Grid(xs, ys, "rules+projection")
    assert _without_statement_rows(grid, ink, FakeEngine(answer), DPI).ys == ys[:-1]
    # a signer's writing across the boundary, reading as no statement: still a row
    assert _without_statement_rows(grid, ink, FakeEngine(lambda *a: "Ann Oak"), DPI) is grid
    # the heading inside one column (nothing across a boundary) is not looked at
    ink[ys[-2] + 30 : ys[-2] + 45, 45:320] = 0
    ink[ys[-2] + 30 : ys[-2] + 45, 210:500] = 255
    assert _without_statement_rows(grid, ink, FakeEngine(answer), DPI) is grid


def test_a_heading_whose_word_space_falls_on_a_column_boundary_still_runs_across_it() -> None:
    # Found on a development sheet (c1021 case-002): "Statement of Witness:" under a table
    # ruled across only, its space between two words exactly where the columns part. The
    # heading runs across the boundary all the same (a word space is narrower than the clear
    # stretch that parts columns, reader.STATEMENT_SPACE_IN), so its "row" is the statement's.
    from pipeline.scan.reader import _without_statement_rows
    from pipeline.scan.table import Grid
    from tests.fakes import FakeEngine

    xs, pitch = (40, 200, 600, 1200), 60
    ys = tuple(100 + k * pitch for k in range(7))
    ink = np.zeros((800, 1300), np.uint8)
    heading = ys[-2] + 30
    ink[heading : heading + 15, 45:197] = 255  # "Statement of"
    ink[heading : heading + 15, 202:320] = 255  # "Witness:", a word space (0.03 in) apart

    def answer(rect: Rect, psm: Psm, whitelist: str) -> str:
        return "Statement of Witness:" if rect[1] <= heading < rect[1] + rect[3] else ""

    grid = Grid(xs, ys, "rules+projection")
    assert _without_statement_rows(grid, ink, FakeEngine(answer), DPI).ys == ys[:-1]
    # a typewriter face set bold spaces its words wider, 0.07 in (dev seed 1069, case-004:
    # the heading's "row" was read as a signed line)
    ink[heading : heading + 15, 45:320] = 0
    ink[heading : heading + 15, 45:195] = 255
    ink[heading : heading + 15, 206:320] = 255
    assert _without_statement_rows(grid, ink, FakeEngine(answer), DPI).ys == ys[:-1]
    # entries a column's gap apart (0.2 in) on either side of the boundary do not run across
    ink[heading : heading + 15, 45:320] = 0
    ink[heading : heading + 15, 45:185] = 255
    ink[heading : heading + 15, 215:320] = 255
    assert _without_statement_rows(grid, ink, FakeEngine(answer), DPI) is grid


def test_a_band_cut_through_the_witness_statements_first_lines_reads_as_its_wording() -> None:
    # A band cut through the 9-902 statement's first two lines at a table's foot (fresh
    # held-out 1137: a grid's rows run on by projection into the prose under a legal-size
    # table ruled across only): the first line garbled, the second read whole up to "in the
    # Village". Its words "if not identical" and "in the State of" are the statement's, so
    # the band is the statement and not two signature rows read as signed.
    from pipeline.forms import STANDARD_STATEMENTS, prose_pattern

    band = (
        "4, ravia yy HICAUICOLCD SLatb. 1 alll OVEeL UIC da SL OL CTIElIelll yodls dill\n"
        "POsSLOLLICL address if not identical) in the Village of E mwood Falls in the State"
    )
    assert prose_pattern(STANDARD_STATEMENTS).search(band)
    # a signature row's entries, an address written out in full among them, are not
    for row in ("10/02/2026 Ann Lee 12 Elm St, Elmwood Falls, New York", "Odette Vantwerp Jr"):
        assert not prose_pattern(STANDARD_STATEMENTS).search(row), row


def test_a_kinds_own_statement_ends_the_table_by_its_own_words() -> None:
    # The loose check for statement prose at a table's foot uses the words the statements in
    # the reading context bring (`Statement.marks`), not a list of its own: a kind whose
    # statement is worded otherwise ("Declaration of Circulator") ends its tables too, and
    # a statute's statement left out of the context is not looked for.
    import re

    from pipeline.forms import STANDARD_STATEMENTS, Statement, prose_pattern
    from pipeline.scan.reader import _without_statement_rows
    from pipeline.scan.table import Grid
    from tests.fakes import FakeEngine

    own = Statement(
        "circulator", re.compile(r"Declaration\s+of\s+Circulator", re.I), marks=("circulat",)
    )
    line = "1 circulated this sheet"
    assert not prose_pattern(STANDARD_STATEMENTS).search(line)
    assert prose_pattern((*STANDARD_STATEMENTS, own)).search(line)
    for word in ("personally came", "eighteen", "affidavit", "Petition Sheet", "I, Ann"):
        assert prose_pattern(STANDARD_STATEMENTS).search(word), word
    assert not prose_pattern(STANDARD_STATEMENTS[2:]).search("personally came")  # the notary's

    xs, pitch = (40, 200, 600, 1200), 60
    ys = tuple(100 + k * pitch for k in range(7))
    ink = np.zeros((800, 1300), np.uint8)
    ink[ys[-2] + 30 : ys[-2] + 45, 45:320] = 255  # the declaration, across the boundary at 200
    grid = Grid(xs, ys, "rules+projection")
    engine = FakeEngine(lambda *a: line)
    assert _without_statement_rows(grid, ink, engine, DPI) is grid
    trimmed = _without_statement_rows(grid, ink, engine, DPI, (*STANDARD_STATEMENTS, own))
    assert trimmed.ys == ys[:-1]


def test_a_line_read_as_nothing_is_read_again_by_its_pieces() -> None:
    # A scan's specks strewn along the line that holds only "Sheet No. 1" at its right end:
    # tesseract read nothing from the whole line (the engine here answers so); the caption's
    # piece alone reads. The specks make no pieces of their own.
    from pipeline.scan.blocks import BlockPage, line_pieces, read_lines, text_lines
    from tests.fakes import FakeEngine

    dpi = 200.0
    ink = np.zeros((200, 1600), np.uint8)
    cv2.putText(ink, "Sheet No. 1", (1350, 80), cv2.FONT_HERSHEY_SIMPLEX, 0.9, 255, 2)
    for x in range(100, 1300, 97):  # specks, 2 px
        ink[60 + x % 20 : 62 + x % 20, x : x + 2] = 255
    (line,) = text_lines(ink, (0, 0, 1600, 200), dpi)
    (piece,) = line_pieces(ink, line, dpi)
    assert 1300 < piece[0] < 1350 and piece[0] + piece[2] > 1500

    engine = FakeEngine(lambda rect, psm, wl: "Sheet No. 1" if rect[2] < 600 else "")
    page = BlockPage.of(engine, np.full_like(ink, 255), dpi)
    assert read_lines(page, [line], lambda ocr: False).text == ""  # no pieces asked for
    pieces = lambda rect: line_pieces(ink, rect, dpi)  # noqa: E731
    read = read_lines(page, [line], lambda ocr: False, pieces=pieces)
    assert read.text == "Sheet No. 1" and {w.line for w in read.words} == {0}


def test_a_caption_a_signatures_tail_runs_through_is_read_on_its_own() -> None:
    # The witness's handwriting and the caption under it are one run of inked rows (the tail
    # of the signature's "f" reaches down through "Signature of Witness"); read as one, the
    # caption is lost among the handwriting (the engine here answers so). Parted at the
    # valley the tail makes, the caption is found, and the line's reading is the parts'.
    from pipeline.scan.blocks import BlockPage, read_lines, text_lines, touching_parts
    from pipeline.scan.reader import _is_caption
    from tests.fakes import FakeEngine

    dpi = 300.0
    ink = np.zeros((400, 2400), np.uint8)
    cv2.putText(ink, "duly sworn.", (150, 40), cv2.FONT_HERSHEY_SIMPLEX, 0.9, 255, 2)
    cv2.putText(ink, "10/04/2026", (150, 150), cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, 2.2, 255, 6)
    cv2.putText(ink, "Nell Copper", (1300, 150), cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, 2.2, 255, 6)
    ink[150:260, 1900:1906] = 255  # the tail, down through the caption
    cv2.putText(ink, "Date", (200, 240), cv2.FONT_HERSHEY_SIMPLEX, 0.9, 255, 2)
    cv2.putText(ink, "Signature of Witness", (1400, 240), cv2.FONT_HERSHEY_SIMPLEX, 0.9, 255, 2)
    head, line = text_lines(ink, (0, 0, 2400, 400), dpi)
    upper, lower = touching_parts(ink, line, dpi)
    assert upper[1] + upper[3] == lower[1] and 150 <= lower[1] < 215
    # a line of type is not parted above its x-height (a capital's and a "t"'s stems alone)
    ink2 = np.zeros((200, 2400), np.uint8)
    cv2.putText(ink2, "Date", (200, 120), cv2.FONT_HERSHEY_SIMPLEX, 1.2, 255, 2)
    (alone,) = text_lines(ink2, (0, 0, 2400, 200), dpi)
    assert touching_parts(ink2, alone, dpi) == [alone]

    def answer(rect: tuple[int, int, int, int], psm: object, whitelist: str) -> str:
        if rect[1] + rect[3] <= line[1]:
            return "duly sworn."
        if rect[1] >= lower[1]:
            return "Date Signature of Witness"
        return "1efo4/2026 Me) R Eopeiid" if rect[1] + rect[3] <= lower[1] else "1efo4/2026 Me)"

    engine = FakeEngine(answer)
    page = BlockPage(engine, 1.0, dpi)
    alone_read = read_lines(page, [head, line], lambda ocr: True, _is_caption, dpi * 0.35)
    assert "Witness" not in alone_read.text
    parts = lambda rect: touching_parts(ink, rect, dpi)  # noqa: E731
    read = read_lines(page, [head, line], lambda ocr: True, _is_caption, dpi * 0.35, parts=parts)
    assert read.text.splitlines()[1:] == ["1efo4/2026 Me) R Eopeiid", "Date Signature of Witness"]


@pytest.mark.parametrize(
    ("numbers", "confidence", "doubted"),
    [
        (["1.", "2.", "3.", "4.", "5."], 0.3, False),  # each row its number
        (["1.", "28", "35", "4.", "55"], 0.3, False),  # a full stop read as a digit
        (["", "2.", "", "4", "5."], 0.3, False),  # "1." read as nothing says nothing
        (["7", "2.", "3.", "4.", "5."], 0.3, False),  # one unsure misread alone
        (["1.", "2.", "3.", "5.", "6."], 0.3, True),  # a lost rule: rows 4, 5 show 5, 6
        # misreads of a speckled column (dev seed 1075, case-000): numbers no row of the table
        # is printed with, and two that follow no one shift
        (["1.", "2.", "0", "1527", "48"], 0.3, False),
        (["1.", "2.", "5", "2", "5."], 0.3, False),
        (["1.", "2.", "3.", "1527", "5."], 0.95, False),  # read surely, but no row's number
        (["1.", "2.", "3.", "4.", "6."], 0.95, True),  # the last row read surely as 6
    ],
)
def test_the_line_numbers_check_every_row_found(
    numbers: list[str], confidence: float, doubted: bool
) -> None:
    from types import SimpleNamespace

    from pipeline.scan.reader import _numbering_doubts
    from pipeline.scan.table import Grid
    from pipeline.scan.titles import LINE_NO
    from tests.fakes import FakeEngine

    ys = tuple(range(100, 100 + 7 * 90, 90))  # the title row and 5 rows
    grid = Grid(xs=(50, 200, 900), ys=ys, method="rules")
    ink = np.zeros((800, 1000), np.uint8)
    for y in ys[1:-1]:
        ink[y + 30 : y + 60, 100:130] = 255  # each row's printed number

    def answer(rect: tuple[int, int, int, int], psm: object, whitelist: str) -> str:
        foot = next(k for k, y in enumerate(ys) if y > rect[1])  # the cell's foot: ys[row + 1]
        return numbers[foot - 2]

    layout = SimpleNamespace(grid=grid, ink=ink, columns=SimpleNamespace(kinds=(LINE_NO, "date")))
    doubts = _numbering_doubts(layout, FakeEngine(answer, confidence), 300.0)  # type: ignore[arg-type]
    assert bool(doubts) is doubted, doubts


# A table's rows for the checks below its last row: the title row and 5 rows.
BELOW_YS = tuple(range(100, 100 + 7 * 90, 90))


def _layout_below(
    method: str, kinds: tuple[str, ...], ink: np.ndarray, horiz: np.ndarray
) -> object:
    """What `reader._rows_below` looks at: a grid of BELOW_YS, its columns' kinds, the page's
    ink with the rules erased, its rule image across (and as the binary page)."""
    from types import SimpleNamespace

    from pipeline.scan.table import Grid

    return SimpleNamespace(
        grid=Grid(xs=(50, 200, 900), ys=BELOW_YS, method=method),
        ink=ink,
        columns=SimpleNamespace(kinds=kinds),
        statement_at=None,
        rules=(horiz, np.zeros_like(horiz)),
        cleaned=SimpleNamespace(binary=horiz.copy()),
    )


@pytest.mark.parametrize(
    ("below", "heading", "doubted"),
    [
        ("7.", False, True),  # the next row's printed number: a row not found
        (
            "I,",
            False,
            False,
        ),  # the statement's first word, indented into the column (held out 1067)
        ("", False, True),  # ink that reads as nothing: still a doubt
        # the statement's heading over its "I," read as "I1." in the column; the band across
        # the table, read to the foot of the line its bottom cuts, is the statement (fresh 1093)
        ("STATE TT I1.-.", True, False),
        # a printed number with the statement under it: still a row not found
        ("7.", True, True),
    ],
)
def test_ink_in_the_line_number_column_below_the_table_is_a_number_unless_it_reads_as_words(
    below: str, heading: bool, doubted: bool
) -> None:
    from pipeline.scan.reader import _rows_below
    from pipeline.scan.titles import LINE_NO
    from tests.fakes import FakeEngine

    ink = np.zeros((1000, 1000), np.uint8)
    at = BELOW_YS[-1] + 40
    ink[at : at + 30, 80:110] = 255  # ink in the column a row below the last
    top = BELOW_YS[-1] + 100  # the statement's heading, cut by the band's bottom (+112)
    if heading:
        ink[top : top + 35, 60:700] = 255

    def answer(rect: tuple[int, int, int, int], psm: object, whitelist: str) -> str:
        if rect[2] > 300:  # the band across the table: the heading read whole, or cut
            whole = heading and rect[1] + rect[3] >= top + 35
            return "STATEMENT OF WITNESS:\nI, Flora Ashgrove state:" if whole else "SIATFM"
        return below if rect[1] <= at < rect[1] + rect[3] else ""

    layout = _layout_below("text", (LINE_NO, "date"), ink, np.zeros_like(ink))
    doubts = _rows_below(layout, FakeEngine(answer), 300.0)  # type: ignore[arg-type]
    assert any("line-number column" in d for d in doubts) is doubted, doubts


@pytest.mark.parametrize(
    ("there", "doubted"),
    [
        ("", True),  # a thin rule a row below, nothing read: a row not found
        ("12 Elm St Ann Oak", True),  # a row's writing
        # the statement's first line, the foot of its letters a thin "rule" (dev seed 1079,
        # case-003: a clean scan sent to a person)
        ("Statement of Witness:\nI, Rufus Oakhurst state: I am over the age of", False),
    ],
)
def test_a_rule_a_row_below_the_table_is_a_doubt_unless_the_statement_is_written_there(
    there: str, doubted: bool
) -> None:
    from pipeline.scan.reader import _rows_below
    from tests.fakes import FakeEngine

    horiz = np.zeros((1000, 1000), np.uint8)
    rule = BELOW_YS[-1] + 70  # a thin line across, with paper above and below it
    horiz[rule : rule + 2, 50:900] = 255
    layout = _layout_below("rules", ("date", "signature"), np.zeros_like(horiz), horiz)
    doubts = _rows_below(layout, FakeEngine(lambda *a: there), 300.0)  # type: ignore[arg-type]
    assert any("a rule across" in d for d in doubts) is doubted, doubts


def test_a_title_the_block_read_made_nothing_of_is_read_again_as_one_line() -> None:
    # A blurred "Date" in a shaded title row's cell, the cell's edges grey: tesseract's block
    # read gave "bee", which places nothing, so the Date column was typed by its handwritten
    # content (read as ink: a second signature) and the sheet read no table. The title's ink
    # read again as one line says "Date".
    from pipeline.scan.reader import _header_columns
    from pipeline.scan.table import Grid
    from tests.fakes import FakeEngine

    grid = Grid(xs=(0, 150, 450, 600), ys=(0, 60, 120, 180), method="rules")
    ink = np.zeros((180, 600), np.uint8)
    for x0 in (40, 200, 480):  # a word of print in each title cell
        for k in range(4):
            cv2.line(ink, (x0 + 14 * k, 22), (x0 + 14 * k + 10, 38), 255, 2)
    titles = {0: "bee", 150: "Signature-Residence", 450: "Ward"}

    def answer(rect: Rect, psm: Psm, whitelist: str) -> str:
        x = rect[0]
        col = max(k for k in titles if k <= x)
        if psm is Psm.SINGLE_LINE and col == 0:
            return "Date"
        return titles[col] if rect[1] < 60 else ""

    columns = _header_columns(grid, ink, FakeEngine(answer), DPI)
    assert columns.kinds == ("date", "signature_residence", "ward")


def _dashed(img: np.ndarray, y: int, x0: int, x1: int, cover: float, dpi: float) -> None:
    """A rule across x0..x1 at y as dashes 0.6 in long covering `cover` of it."""
    dash = int(0.6 * dpi)
    step = int(dash / cover)
    for x in range(x0, x1, step):
        cv2.line(img, (x, y), (min(x1, x + dash), y), 0, 2)


def test_a_table_ruled_across_whose_every_other_rule_a_scan_left_little_of_keeps_its_rows() -> None:
    # A table ruled across only, its title row's rules whole, its row rules faint dashes: every
    # other one keeps 40% of its length (the others 90%). The faint ones sit a row's height
    # between the others: they are rules (the table read as rows twice as tall before, two
    # signers' lines read as one).
    dpi = 200.0
    img = np.full((int(11 * dpi), int(8.5 * dpi)), 255, np.uint8)
    x0, x1, pitch = int(0.6 * dpi), int(7.9 * dpi), int(0.55 * dpi)
    top, title = int(2.0 * dpi), int(2.55 * dpi)
    rules = [title + k * pitch for k in range(1, 7)]
    for y in (top, title):
        cv2.line(img, (x0, y), (x1, y), 0, 2)
    for k, y in enumerate(rules):
        _dashed(img, y, x0, x1, 0.4 if k % 2 == 0 else 0.9, dpi)
    columns = ((0.2, 1.2), (1.8, 3.6), (4.2, 6.4), (6.8, 7.1))  # inches from x0
    for a, b in columns:  # the titles, and an entry in each of the first three rows
        img[top + 30 : top + 60, x0 + int(a * dpi) : x0 + int(b * dpi)] = 0
        for y in rules[:3]:
            img[y - 70 : y - 40, x0 + int(a * dpi) : x0 + int((a + b) / 2 * dpi)] = 0
    grid = find_grid((img < 128).astype(np.uint8) * 255, dpi)
    assert grid is not None and grid.method == "rules+projection"
    assert grid.n_rows >= 4 and grid.ys[2] == pytest.approx(rules[0], abs=4)
    assert np.diff(grid.ys[1:]).max() < 1.2 * pitch


# A table ruled across only, for the row-height tests: its page at ACROSS_DPI, titles in
# ACROSS_COLUMNS (inches from its left edge).
ACROSS_DPI = 200.0
ACROSS_COLUMNS = ((0.2, 1.2), (1.8, 3.6), (4.2, 6.4), (6.8, 7.1))


def _ruled_across(pitch: int, rows: int) -> tuple[np.ndarray, int, int, list[int]]:
    """A page with a title row over `rows` rows `pitch` tall, every rule whole: the page,
    the table's left edge, the title row's foot rule and the rows' foot rules."""
    dpi = ACROSS_DPI
    img = np.full((int(11 * dpi), int(8.5 * dpi)), 255, np.uint8)
    x0, x1 = int(0.6 * dpi), int(7.9 * dpi)
    top, title = int(2.0 * dpi), int(2.0 * dpi) + pitch
    rules = [title + k * pitch for k in range(1, rows + 1)]
    for y in (top, title, *rules):
        cv2.line(img, (x0, y), (x1, y), 0, 2)
    for a, b in ACROSS_COLUMNS:
        img[top + 30 : top + 60, x0 + int(a * dpi) : x0 + int(b * dpi)] = 0
    return img, x0, title, rules


def test_one_stroke_halfway_down_one_row_does_not_halve_the_rows() -> None:
    # A table ruled across only, every rule whole; one row's writing is large, its baseline a
    # thin stroke in three cells halfway down the row (held-out 1111 case-006). The rows
    # are not half as tall: that row read as two would be a signer's line and a blank one
    # read as signed, silently.
    dpi, pitch = ACROSS_DPI, int(0.55 * ACROSS_DPI)
    img, x0, title, rules = _ruled_across(pitch, 8)
    half = rules[1] + pitch // 2
    for a, b in ACROSS_COLUMNS:
        for y in (rules[0], rules[2], rules[3]):
            img[y - 70 : y - 40, x0 + int(a * dpi) : x0 + int((a + b) / 2 * dpi)] = 0
        if a < 6:  # the large hand's baseline strokes in three cells, 28% of the width
            cv2.line(img, (x0 + int(a * dpi), half), (x0 + int((a + 1.5) * dpi), half), 0, 2)
    grid = find_grid((img < 128).astype(np.uint8) * 255, dpi)
    assert grid is not None
    assert all(abs(y - half) > 10 for y in grid.ys), grid.ys
    assert np.diff(grid.ys[1:]).min() > 0.8 * pitch


def test_a_row_with_two_lines_of_writing_in_its_cells_is_doubted() -> None:
    # Two rows read as one (their rule lost): the date's and the residence's cells hold two
    # entries, one over the other. A doubt sends the sheet to a person. One entry a row, a
    # signature's flourish over two lines, or the row above's letters running into a cell's
    # top are no doubt.
    from types import SimpleNamespace

    from pipeline.scan.reader import _stacked_rows
    from pipeline.scan.table import Grid
    from pipeline.scan.titles import Columns

    dpi = 200.0
    ink = np.zeros((900, 1200), np.uint8)
    grid = Grid((0, 200, 600, 1000, 1200), (0, 100, 320, 430), "rules")
    kinds = Columns(("date", "signature", "residence", "election_district"), ())
    layout = SimpleNamespace(grid=grid, ink=ink, columns=kinds)
    for x0, x1 in ((20, 150), (620, 900)):  # row 1: an entry over another in two columns
        ink[130:160, x0:x1] = 255
        ink[230:260, x0:x1] = 255
        ink[345:375, x0:x1] = 255  # row 2: one entry
    ink[120:300, 220:580:7] = 255  # a signature's strokes over the whole of row 1
    assert _stacked_rows(layout, dpi) == [  # type: ignore[arg-type]
        "row 1 holds two lines of writing in 2 columns (two rows, a rule between them lost?)"
    ]
    ink[130:160, 620:900] = 0
    ink[102:125, 620:900] = 255  # letters at the cell's top: the row above's
    assert _stacked_rows(layout, dpi) == []  # type: ignore[arg-type]


def test_a_ruled_row_much_shorter_than_the_others_is_doubted() -> None:
    # A row cut in two (a stroke read as a rule) is two rows half as tall as the others: the
    # sheet goes to a person. Rows found from the text alone have guessed heights: no doubt.
    from pipeline.scan.reader import _short_rows
    from pipeline.scan.table import Grid

    xs = (0, 300, 600)
    cut = Grid(xs, (0, 120, 220, 270, 320, 420, 520), "rules+projection")
    assert [d.split(" is ")[0] for d in _short_rows(cut)] == ["row 2", "row 3"]
    assert _short_rows(Grid(xs, (0, 120, 220, 320, 420, 520), "rules")) == []
    assert _short_rows(Grid(xs, cut.ys, "text")) == []


def test_a_faint_rule_is_looked_for_only_in_a_gap_of_whole_rows() -> None:
    # Kept rules two rows apart hold a faded one between them; a gap of a row and a half (the
    # table's last rule to a line of the statement long enough to pass for a rule, dev 1103
    # case-006) holds none: a line of its prose there is no rule.
    from pipeline.scan.table import _on_lattice

    ys = [0, 100, 200, 400, 563]
    assert _on_lattice(ys, [300, 490], 100.0) == [300]


def test_a_text_tables_blank_rows_follow_the_rules_the_rule_finder_left() -> None:
    # Held-out 1115: a table ruled across with faint broken rules that text outweighed, read
    # as a table without rules. Two rows written, the first low in its row, the second high:
    # their centres' pitch is short by a tenth, and a dozen blank rows inferred from it made
    # a row too many. The rule image holds their rules: the blank rows are those.
    from pipeline.scan.textgrid import text_grid

    ink = np.zeros((int(9 * DPI), int(8.5 * DPI)), np.uint8)
    rules = np.zeros_like(ink)
    for x, title in ((0.6, "Date"), (2.0, "Signature"), (4.6, "Residence"), (7.2, "Ward")):
        _put(ink, title, x, 1.2)
    pitch, top, rows = 0.45, 1.35, 14
    for k, low in ((0, 0.36), (1, 0.3)):  # baselines: low in the first row, high in the next
        y = top + pitch * k + low
        for x, entry in ((0.5, "9/21/26"), (1.8, "Ann Lee"), (4.2, "12 Elm St"), (7.3, "2")):
            _put(ink, entry, x, y)
    for k in range(rows + 1):  # every rule broken: dashes over a third of the width
        y = int((top + pitch * k) * DPI)
        for x in range(int(0.4 * DPI), int(8.0 * DPI), 30):
            rules[y : y + 2, x : x + 10] = 255
    _put(ink, "I state that the signers signed in my presence", 0.5, top + pitch * rows + 0.4)
    guessed = text_grid(ink, DPI)
    assert guessed is not None and guessed.n_rows != rows  # the written rows' pitch alone
    grid = text_grid(ink, DPI, rules=rules)
    assert grid is not None and grid.n_rows == rows
    assert abs(grid.ys[-1] - (top + pitch * rows) * DPI) <= 2  # the last rule


def test_a_stroke_of_writing_that_cuts_a_row_of_a_table_ruled_across_is_no_rule() -> None:
    # A blurred, heavily compressed scan smeared a row's writing, run across the whole table,
    # into a thin stroke as long as the broken rules (held-out 1115 case-003): taken for a
    # rule, it cut its row into two, 63% and 37% of a row (a row invented, the signer's
    # line lost). A rule that cuts a row its neighbours bound, a row as tall as the others,
    # is a stroke of the writing in it.
    dpi, pitch = ACROSS_DPI, int(0.5 * ACROSS_DPI)
    img, x0, title, rules = _ruled_across(pitch, 10)
    for k in (3, 7):  # two rows' writing smeared into strokes 63% down them, 70% across
        cut = rules[k - 1] + int(0.63 * pitch)
        cv2.line(img, (x0 + int(0.1 * dpi), cut), (x0 + int(5.2 * dpi), cut), 0, 2)
    grid = find_grid((img < 128).astype(np.uint8) * 255, dpi)
    assert grid is not None
    assert grid.ys[1:] == pytest.approx((title, *rules), abs=3)


def test_the_last_rows_of_a_table_ruled_across_whose_rules_a_copy_broke_are_rows() -> None:
    # A degraded copy broke the last two rules of a table ruled across only to half of the
    # width (held-out 1119 case-007, 0.48 and 0.53 of the longest rule): under ACROSS_COVER,
    # and past the table's end where a faint rule between two long ones is looked for, so
    # the last two rows (one signed) were lost, with only a doubt raised. A thin line a row
    # below the end covering ACROSS_RULE (the doubt's own measure) is the next row's rule.
    dpi, pitch = ACROSS_DPI, int(0.5 * ACROSS_DPI)
    img, x0, title, rules = _ruled_across(pitch, 8)
    x1 = int(7.9 * dpi)
    for y in rules[-2:]:  # dashes of 0.5 in every inch: half the rule left
        for x in range(x0, x1, int(dpi)):
            cv2.line(img, (x + int(0.5 * dpi), y), (x + int(dpi) - 1, y), 255, 4)
    for a, b in ACROSS_COLUMNS:  # an entry in every row
        for y in rules:
            img[y - 70 : y - 40, x0 + int(a * dpi) : x0 + int((a + b) / 2 * dpi)] = 0
    grid = find_grid((img < 128).astype(np.uint8) * 255, dpi)
    assert grid is not None
    assert grid.ys[1:] == pytest.approx((title, *rules), abs=3)
