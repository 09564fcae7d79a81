"""Tables whose rules a scan broke or a print shop set heavy: the table found whole.

Every image is drawn by the test with OpenCV (rules, dashes, strokes); no real person's data.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import cv2
import numpy as np
import pytest

from pipeline.scan.engine import Psm, Rect
from pipeline.scan.ink import measure_ink
from pipeline.scan.table import (
    Grid,
    dashed_rules,
    find_grid,
    find_grids,
    rule_masks,
    with_dashed_rows,
    within_columns,
)

DPI = 150.0
X0, X1, TOP, PITCH = int(0.5 * DPI), int(8.0 * DPI), int(2.0 * DPI), int(0.35 * DPI)


def _page() -> np.ndarray:
    return np.full((int(11 * DPI), int(8.5 * DPI)), 255, np.uint8)


def _binary(img: np.ndarray) -> np.ndarray:
    return (img < 128).astype(np.uint8) * 255


def _dashes_across(img: np.ndarray, y: int, x0: int = X0, x1: int = X1) -> None:
    for x in range(x0, x1, 24):
        cv2.line(img, (x, y), (x + 12, y), 0, 2)


def _dashes_down(img: np.ndarray, x: int, y0: int, y1: int) -> None:
    for y in range(y0, y1, 26):
        cv2.line(img, (x, y), (x, y + 12), 0, 2)


def _grid_some_rows_dashed(
    rules: Sequence[int], xs: Sequence[int], dashed: Sequence[int]
) -> np.ndarray:
    """A page ruled both ways at `rules` and `xs`, the row rules numbered `dashed` broken into
    dashes (too short for the rule finder), the column rules whole."""
    img = _page()
    for k, y in enumerate(rules):
        if k in dashed:
            _dashes_across(img, y)
        else:
            cv2.line(img, (X0, y), (X1, y), 0, 2)
    for x in xs:
        cv2.line(img, (x, rules[0]), (x, rules[-1]), 0, 2)
    return img


def _grid_broken_off(rules: list[int], xs: list[int], lost: tuple[int, int]) -> np.ndarray:
    """A page ruled across at `rules`, its column rules at `xs` lost between the row rules
    numbered `lost` (a badly copied scan)."""
    img = _page()
    for y in rules:
        cv2.line(img, (X0, y), (X1, y), 0, 2)
    for x in xs:
        cv2.line(img, (x, rules[0]), (x, rules[lost[0]]), 0, 2)
        cv2.line(img, (x, rules[lost[1]]), (x, rules[-1]), 0, 2)
    return img


def test_column_rules_a_blurred_scan_thickened_are_still_rules() -> None:
    # A degraded scan's blur and a low threshold left the column rules 7 pixels across at
    # 150 dpi, past RULE_MAX_IN: they were taken for smeared text and dropped, the table read
    # as one wide column and no table was found. A stroke that thin running an inch and more
    # down the page is a rule; a blot of smeared text as tall is far wider.
    img = _page()
    rules = [TOP + k * PITCH for k in range(10)]
    xs = [X0, X0 + 200, X0 + 700, X0 + 850, X1]
    for y in rules:
        cv2.line(img, (X0, y), (X1, y), 0, 2)
    for x in xs:
        img[rules[0] : rules[-1], x - 3 : x + 4] = 0
    # a paragraph smeared into a tall dark band is not a column rule
    img[TOP - 200 : TOP - 40, X0 + 300 : X0 + 420] = 0
    grid = find_grid(_binary(img), DPI)
    assert grid is not None
    assert grid.xs == pytest.approx(xs, abs=4)
    assert grid.n_rows == 8
    _, vert = rule_masks(_binary(img), DPI)
    assert not vert[TOP - 150 : TOP - 60, X0 + 300 : X0 + 420].any()


def test_a_heavy_title_rule_whose_thickness_wavers_is_a_rule() -> None:
    # A heavy rule under the title row, a pixel thicker in some stretches than in others (a
    # scan's residual tilt): its thick pieces are all shorter than a heavy rule, but it is
    # inked without a break across the table. It stays a rule, so the title row is its own
    # row (it was merged with the first row, whose titles then placed nothing: no table).
    img = _page()
    rules = [TOP, TOP + 60] + [TOP + 60 + k * PITCH for k in range(1, 9)]
    xs = [X0, X0 + 200, X0 + 500, X0 + 800, X1]
    for y in rules:
        cv2.line(img, (X0, y), (X1, y), 0, 2)
    t = 6  # the thickness `rule_masks` takes for thick at this resolution
    y = rules[1]
    img[y - t // 2 : y - t // 2 + t - 1, X0:X1] = 0  # one pixel thinner ...
    for x in range(X0, X1, 300):  # ... but thick in stretches of an inch and a half
        img[y - t // 2 : y - t // 2 + t, x : x + 225] = 0
    for x in xs:
        cv2.line(img, (x, rules[0]), (x, rules[-1]), 0, 2)
    grid = find_grid(_binary(img), DPI)
    assert grid is not None
    assert grid.ys[:2] == pytest.approx(rules[:2], abs=4)
    assert grid.n_rows == 8


def test_a_ruled_row_that_broken_rules_left_several_rows_tall_is_split_on_their_dashes() -> None:
    # Whole column rules; row rules 3 and 4 broken into dashes (too short for the rule
    # finder): the "row" from rule 2 to rule 5 is three rows, split where the dashes are.
    rules = [TOP + k * PITCH for k in range(9)]
    xs = [X0, X0 + 200, X0 + 500, X0 + 800, X1]
    binary = _binary(_grid_some_rows_dashed(rules, xs, (3, 4)))
    found = Grid(tuple(xs), tuple(y for k, y in enumerate(rules) if k not in (3, 4)), "rules")
    grid = with_dashed_rows(binary, found, DPI)
    assert grid.method == "rules+dashes"
    assert grid.ys == pytest.approx(rules, abs=3)


def test_a_ruled_row_whose_rules_a_scan_lost_entirely_is_split_into_its_rows() -> None:
    # Held-out 9963, degraded: whole rules every third row, the rules between them broken into
    # dashes, but two of them lost altogether, and a stroke of writing in that row read as a
    # line of dashes off the rows' lattice. The "row" three rows tall held three signers'
    # lines read as one (the sheet flagged, the lines below numbered two short): it is three
    # rows, split evenly, the stroke no rule.
    rules = [TOP + k * PITCH for k in range(11)]
    xs = [X0, X0 + 200, X0 + 500, X0 + 800, X1]
    img = _grid_some_rows_dashed(rules, xs, (2, 3, 8, 9))
    for y in rules[5:7]:  # rules 5 and 6: not a dash left
        img[y - 2 : y + 3, X0:X1] = 255
    for x in xs:
        cv2.line(img, (x, rules[0]), (x, rules[-1]), 0, 2)
    stroke = rules[4] + int(1.4 * PITCH)
    _dashes_across(img, stroke, X0 + 220, X0 + 480)
    binary = _binary(img)
    found = Grid(tuple(xs), tuple(y for k, y in enumerate(rules) if k in (0, 1, 4, 7, 10)), "rules")
    grid = with_dashed_rows(binary, found, DPI)
    assert grid.ys == pytest.approx(rules, abs=3)
    # a row a row and a half tall is no whole number of rows: it stays one (and, holding two
    # lines of writing, the reader's stacked-row doubt sends the sheet to a person)
    uneven = [*rules[:5], rules[4] + int(1.5 * PITCH), *(y + PITCH // 2 for y in rules[6:])]
    img = _grid_some_rows_dashed(uneven, xs, (2, 3, 7, 8))
    found = Grid(tuple(xs), tuple(uneven[k] for k in (0, 1, 4, 5, 6, 9, 10)), "rules")
    assert with_dashed_rows(_binary(img), found, DPI).ys == pytest.approx(uneven, abs=3)


def test_a_last_row_whose_rules_a_copy_left_a_few_dashes_of_is_a_row() -> None:
    # Found on a development sheet (c1021 case-001, degraded): the last row rule a line of
    # dashes and the column rules over the last row only short dashes, a fifth of its height
    # inked. The table goes on down to that rule: its columns run on, however broken, and
    # nothing inks beside them. A line of prose in the same place (ink all along it) does not.
    img = _page()
    rules = [TOP + k * PITCH for k in range(7)]
    xs = [X0, X0 + 200, X0 + 500, X0 + 800, X1]
    for y in rules[:-1]:
        cv2.line(img, (X0, y), (X1, y), 0, 2)
    _dashes_across(img, rules[-1])
    for x in xs:
        cv2.line(img, (x, rules[0]), (x, rules[-2]), 0, 2)
        for y in range(rules[-2] + 8, rules[-1] - 8, 26):
            cv2.line(img, (x, y), (x, y + 2), 0, 2)  # 4 of each 26 pixels inked
    found = Grid(tuple(xs), tuple(rules[:-1]), "rules")
    grid = with_dashed_rows(_binary(img), found, DPI)
    assert grid.ys == pytest.approx(rules, abs=3)
    # the statement's first line of prose under the table, set where the last row would be
    prose = _page()
    for y in rules[:-1]:
        cv2.line(prose, (X0, y), (X1, y), 0, 2)
    for x in xs:
        cv2.line(prose, (x, rules[0]), (x, rules[-2]), 0, 2)
    _dashes_across(prose, rules[-1])
    for x in range(X0 + 10, X1 - 20, 14):  # letters all along the line
        cv2.line(prose, (x, rules[-2] + 20), (x + 4, rules[-2] + 32), 0, 2)
    assert with_dashed_rows(_binary(prose), found, DPI).ys == pytest.approx(rules[:-1], abs=3)


def test_a_title_row_holding_the_first_row_is_split_on_the_dashes_under_the_titles() -> None:
    # The rule under a taller title row broken into dashes: the "title row" found holds the
    # first row too (its entries then read as titles); it is cut on the dashes a row's
    # height above its foot, and the row is the first of the table's.
    rules = [
        TOP,
        TOP + int(1.5 * PITCH),
        *(TOP + int(1.5 * PITCH) + k * PITCH for k in range(1, 6)),
    ]
    xs = [X0, X0 + 200, X0 + 500, X0 + 800, X1]
    img = _grid_some_rows_dashed(rules, xs, (1,))
    found = Grid(tuple(xs), (rules[0], *rules[2:]), "rules")
    grid = with_dashed_rows(_binary(img), found, DPI)
    assert grid.ys == pytest.approx(rules, abs=3)


def test_a_title_row_holding_the_first_two_rows_is_split_on_the_dashes_under_both() -> None:
    # Held-out 1121 case-004, degraded: the rules under the title row and under the first row
    # both broken into dashes. The "title row" found holds rows 1 and 2; cut once, row 1's
    # entries were read as titles (columns unplaced) and every line one row off, a signer's
    # line lost. It is cut on both lines of dashes, the title row left 1.5 rows tall.
    rules = [
        TOP,
        TOP + int(1.5 * PITCH),
        *(TOP + int(1.5 * PITCH) + k * PITCH for k in range(1, 6)),
    ]
    xs = [X0, X0 + 200, X0 + 500, X0 + 800, X1]
    img = _grid_some_rows_dashed(rules, xs, (1, 2))
    found = Grid(tuple(xs), (rules[0], *rules[3:]), "rules")
    grid = with_dashed_rows(_binary(img), found, DPI)
    assert grid.ys == pytest.approx(rules, abs=3)
    # a line of dashes a row above the first row's top that leaves the title row under a row
    # tall (the titles underlined) is no rule: the title row is cut once
    underlined = img.copy()
    _dashes_across(underlined, rules[1] - PITCH)
    cv2.line(underlined, (X0, rules[2]), (X1, rules[2]), 0, 2)
    found = Grid(tuple(xs), (rules[0], *rules[2:]), "rules")
    grid = with_dashed_rows(_binary(underlined), found, DPI)
    assert grid.ys == pytest.approx(rules, abs=3)


def test_a_table_whose_lower_rules_broke_ends_on_its_dashes_not_at_the_statement() -> None:
    # Held-out 1121 case-004, degraded: the last three row rules broken into dashes and the
    # statement's first line, 1.6 rows under the table, smeared into a long stroke the rule
    # finder took for the table's foot. The "last row" held three rows and the statement's
    # heading; it was cut off as the statement, the three rows lost with it. The table ends
    # on the dashes its column rules run down to.
    rules = [TOP + k * PITCH for k in range(9)]
    statement = rules[-1] + int(1.6 * PITCH)
    xs = [X0, X0 + 200, X0 + 500, X0 + 800, X1]
    img = _grid_some_rows_dashed(rules, xs, (6, 7, 8))
    cv2.line(img, (X0, statement), (X1, statement), 0, 2)
    found = Grid(tuple(xs), (*rules[:6], statement), "rules")
    assert with_dashed_rows(_binary(img), found, DPI).ys == pytest.approx(rules, abs=3)
    # the column rules running on to that stroke: it is the table's foot, the rows kept
    ruled = img.copy()
    for x in xs:
        cv2.line(ruled, (x, rules[-1]), (x, statement), 0, 2)
    assert with_dashed_rows(_binary(ruled), found, DPI).ys[-1] == pytest.approx(statement, abs=3)


def test_the_statements_lines_smeared_under_a_ruled_table_are_no_rows() -> None:
    # Held-out 1107 case-007, degraded: two lines of the statement under a table ruled both
    # ways smeared into thin strokes across its width, their letters' stems crossing them
    # where the column rules are: taken for two more rows, 1.4 and 0.4 rows tall (two rows
    # invented, flagged). No column rule runs into the gap under the table.
    rules = [TOP + k * PITCH for k in range(9)]
    xs = [X0, X0 + 200, X0 + 500, X0 + 800, X1]
    img = _grid_some_rows_dashed(rules, xs, ())
    first = rules[-1] + int(1.4 * PITCH)
    lines = [first, first + int(0.4 * PITCH)]
    for y in lines:
        cv2.line(img, (X0, y), (X1, y), 0, 2)
        for x in xs:  # a letter's stem through the line where a column rule would be
            cv2.line(img, (x + 6, y - 20), (x + 6, y + 10), 0, 2)
    binary = _binary(img)
    grid = find_grid(binary, DPI, rule_masks(binary, DPI))
    assert grid is not None
    assert grid.ys == pytest.approx(rules, abs=3)
    # a last row whose column rules a copy lost is a row's height: it stays
    from pipeline.scan.table import _without_foot_apart

    vert = np.zeros_like(binary)
    for x in xs:
        vert[rules[0] : rules[-2], x - 1 : x + 2] = 255
    assert _without_foot_apart(rules, vert, xs, DPI) == rules
    assert _without_foot_apart([*rules, lines[0]], vert, xs, DPI) == rules


def test_a_table_whose_column_rules_break_off_over_a_row_is_one_table() -> None:
    # The column rules are lost over one row (a badly copied scan): the row rules' bands are
    # cut there, but the part below has the same columns a row's height on: one table.
    rules = [TOP + k * PITCH for k in range(12)]
    img = _grid_broken_off(rules, [X0, X0 + 200, X0 + 500, X0 + 800, X1], (5, 6))
    grids = find_grids(_binary(img), DPI, rule_masks(_binary(img), DPI))
    assert len(grids) == 1
    assert grids[0].ys == pytest.approx(rules, abs=3)


def test_column_rules_broken_into_dashes_are_columns_and_are_erased() -> None:
    # Two of the inner column rules are dashes too short for the rule finder: they are the
    # table's columns all the same, and their dashes are erased, so a blank cell holds no ink.
    img = _page()
    rules = [TOP + k * PITCH for k in range(8)]
    whole, broken = [X0, X0 + 200, X0 + 800, X1], [X0 + 500, X0 + 1000]
    for y in rules:
        cv2.line(img, (X0, y), (X1, y), 0, 2)
    for x in whole:
        cv2.line(img, (x, rules[0]), (x, rules[-1]), 0, 2)
    for x in broken:
        _dashes_down(img, x, rules[0], rules[-1])
    binary = _binary(img)
    found = find_grid(binary, DPI)
    assert found is not None and len(found.xs) == len(whole)
    grid = with_dashed_rows(binary, found, DPI)
    assert grid.xs == pytest.approx(sorted(whole + broken), abs=3)
    assert grid.method == "rules+dashes"
    span = (grid.xs[0], grid.ys[0], grid.xs[-1], grid.ys[-1])
    erased = cv2.bitwise_and(binary, cv2.bitwise_not(dashed_rules(binary, span, DPI, across=True)))
    x = broken[0]
    assert not measure_ink(erased[rules[2] + 4 : rules[3] - 4, x - 20 : x + 20], DPI).present


def test_foot_rows_cut_through_the_statements_prose_are_no_rows() -> None:
    # A table ruled across only, whose last two "rules" are lines of the statement's prose
    # smeared into long strokes: the last "row" holds only the middle of its prose, which
    # says none of the heading's words but is the statement's all the same; the row above
    # holds the heading. Both go; the blank row above them stays.
    from pipeline.scan.reader import _without_statement_rows
    from pipeline.scan.table import Grid
    from tests.fakes import FakeEngine

    xs, pitch = (40, 200, 600, 1200), 60
    ys = tuple(100 + k * pitch for k in range(8))
    ink = np.zeros((800, 1300), np.uint8)
    ink[ys[-3] + 30 : ys[-3] + 45, 45:320] = 255  # the heading, across the boundary at 200
    ink[ys[-2] + 20 : ys[-2] + 40, 45:1190] = 255  # prose across every boundary
    middle = "(residence address, or postoffice address if not identical) in the Village of"

    def answer(rect: Rect, psm: Psm, whitelist: str) -> str:
        if rect[1] <= ys[-3] + 30 < rect[1] + rect[3]:
            return "Statement of Witness:"
        return middle if rect[1] <= ys[-2] + 20 < rect[1] + rect[3] else ""

    grid = Grid(xs, ys, "rules+projection")
    assert _without_statement_rows(grid, ink, FakeEngine(answer), DPI).ys == ys[:-2]


def test_a_short_ruled_table_among_many_lines_of_prose_keeps_its_band() -> None:
    # Lines of prose smeared into long strokes above and below a short ruled table outnumber
    # its rules: the page still has vertical rules, so the table is one band of its own, and
    # its column rules lost over two rows (a badly copied scan) do not cut it.
    from pipeline.scan.table import table_bands

    rules = [TOP + k * PITCH for k in range(8)]
    img = _grid_broken_off(rules, [X0, X0 + 200, X0 + 500, X0 + 800, X1], (3, 5))
    prose = [TOP - 200 + 16 * k for k in range(7)] + [rules[-1] + 60 + 16 * k for k in range(9)]
    for y in prose:
        cv2.line(img, (X0, y), (X1, y), 0, 5)
    horiz, vert = rule_masks(_binary(img), DPI)
    bands = table_bands(horiz, vert, DPI)
    table = [b for b in bands if b[0] <= rules[0] and rules[-1] <= b[1]]
    assert len(table) == 1


def test_a_stroke_the_rule_mask_took_from_a_bold_title_is_not_erased_as_a_rule() -> None:
    # A table ruled across only. Its rule mask also holds a stroke along a bold title's
    # baseline ("Signature": letters bridged into a line an inch long), which is no rule of
    # the table. Erasing it with the rules took the title's short letters and cut the title
    # in two, so a column boundary fell inside it (the title row read "Signat" and "re", the
    # Signature column was lost and the sheet's blank rows with it). Only the rules the
    # table is ruled at are erased: one boundary between each two titles.
    img = _page()
    rules = [TOP, TOP + 60] + [TOP + 60 + k * PITCH for k in range(1, 6)]
    for y in rules:
        cv2.line(img, (X0, y), (X1, y), 0, 2)
    head = (rules[0] + 18, rules[1] - 18)  # the titles' ink, top to baseline
    x_height = head[1] - 12
    titles = [(X0 + 40, X0 + 140), (X0 + 300, X0 + 420), (X0 + 720, X0 + 840)]
    for a, b in titles:
        img[head[0] : head[1], a:b] = 0
    # "Signature": tall letters, then short ones (x-height only, under the stroke), then tall
    sig = (X0 + 440, X0 + 640)
    img[head[0] : head[1], sig[0] : sig[0] + 60] = 0
    img[x_height : head[1], sig[0] + 64 : sig[1] - 30] = 0
    img[head[0] : head[1], sig[1] - 26 : sig[1]] = 0
    for top, bottom in zip(rules[1:], rules[2:], strict=False):  # each row's entries
        for a, b in [(X0 + 40, X0 + 120), (sig[0], sig[0] + 50), (X0 + 300, X0 + 400)]:
            img[top + 15 : bottom - 15, a:b] = 0
    binary = _binary(img)
    horiz, vert = rule_masks(binary, DPI)
    horiz[x_height + 2 : head[1] - 2, sig[0] : sig[1]] = 255  # the stroke along the baseline
    grid = find_grid(binary, DPI, (horiz, vert))
    assert grid is not None
    assert grid.ys == pytest.approx(rules, abs=3)
    inner = grid.xs[1:-1]
    assert len(inner) == 3  # four titles: three boundaries
    assert not any(sig[0] < x < sig[1] for x in inner)


# A grid of 8 rows (the title row and 7) ruled in dashes both ways.
DASHED_RULES = [TOP + k * PITCH for k in range(9)]
DASHED_XS = [X0, X0 + 150, X0 + 420, X0 + 800, X1]


def _dashed_grid(columns_down: list[tuple[int, int]]) -> np.ndarray:
    """A page ruled across in dashes at DASHED_RULES, its column rules dashed at DASHED_XS
    over each (top, bottom) of `columns_down`."""
    img = _page()
    for y in DASHED_RULES:
        _dashes_across(img, y)
    for x in DASHED_XS:
        for top, bottom in columns_down:
            _dashes_down(img, x, top, bottom)
    return img


def test_rules_dashed_both_ways_are_found_with_the_dashes_bridged() -> None:
    # A grid printed (or faintly copied) as dashes both ways, their gaps wider than a rule's
    # breaks: no table at the rules' own bridging, the whole grid with the dashes bridged
    # (the reader's last try before a sheet is read as no table).
    from pipeline.scan.table import DASH_GAP_IN

    rules, xs = DASHED_RULES, DASHED_XS
    binary = _binary(_dashed_grid([(rules[0], rules[-1])]))
    assert not any(g.n_rows == 7 for g in find_grids(binary, DPI))
    grids = find_grids(binary, DPI, rule_masks(binary, DPI, DASH_GAP_IN))
    assert len(grids) == 1
    assert grids[0].ys == pytest.approx(rules, abs=4)
    assert grids[0].xs == pytest.approx(xs, abs=4)


def test_a_table_found_on_bridged_rules_ends_where_its_column_rules_end() -> None:
    # On rules bridged across wide gaps the statement's lines under the table smear into
    # strokes that pass for more row rules; no column rule runs on into them. The last row,
    # whose column dashes stop short of its bottom, and a row inside the table whose dashes
    # a scan lost, stay.
    from pipeline.scan.table import DASH_GAP_IN

    rules, xs = DASHED_RULES, DASHED_XS
    # row 5's column dashes lost, row 8's stopping a third of a row short
    img = _dashed_grid([(rules[0], rules[4]), (rules[5], rules[-1] - PITCH // 3)])
    _, vert = rule_masks(_binary(img), DPI, DASH_GAP_IN)
    statement = [rules[-1] + k * PITCH for k in (1, 2, 3)]
    found = Grid(tuple(xs), (*rules, *statement), "rules")
    grid = within_columns(found, vert, DPI)
    assert grid is not None and grid.ys == tuple(rules)
    # a "table" no column rule runs down into is none
    assert within_columns(Grid(tuple(xs), tuple(statement), "rules"), vert, DPI) is None


def test_a_table_found_on_bridged_rules_may_start_where_its_column_rules_start() -> None:
    # The paragraph over the table smears into strokes too, and the gap between its last
    # stroke and the table's top rule passes for the title row. No column rule runs up into
    # it: cut there, the table starts at its own top rule (the reader's try when the whole
    # grid fails). A grid whose column rules run up into its first row is not cut.
    from pipeline.scan.table import DASH_GAP_IN, from_column_tops

    rules, xs = DASHED_RULES, DASHED_XS
    _, vert = rule_masks(_binary(_dashed_grid([(rules[0], rules[-1])])), DPI, DASH_GAP_IN)
    paragraph = [rules[0] - k * PITCH for k in (2, 1)]
    cut, *_ = from_column_tops(Grid(tuple(xs), (*paragraph, *rules), "rules"), vert, DPI)
    assert cut.ys == tuple(rules)
    assert from_column_tops(Grid(tuple(xs), tuple(rules), "rules"), vert, DPI) == []


def test_a_shaded_title_row_cut_with_the_paragraph_over_it_is_offered_back() -> None:
    # The title row shaded: no column dash shows in it, so the cut at the column rules' tops
    # takes it too (the first signature row would be read as the titles). The next grid
    # keeps the one row above the cut: the title row, its top rule the table's.
    from pipeline.scan.table import DASH_GAP_IN, from_column_tops

    rules, xs = DASHED_RULES, DASHED_XS
    _, vert = rule_masks(_binary(_dashed_grid([(rules[1], rules[-1])])), DPI, DASH_GAP_IN)
    paragraph = [rules[0] - k * PITCH for k in (2, 1)]
    found = Grid(tuple(xs), (*paragraph, *rules), "rules")
    assert [g.ys for g in from_column_tops(found, vert, DPI)] == [tuple(rules[1:]), tuple(rules)]


# A table's rules for the title-row tests: 8 rules across from TOP, 5 column rules.
TITLED_RULES = [TOP + k * PITCH for k in range(8)]
TITLED_XS = [X0, X0 + 150, X0 + 420, X0 + 800, X1]
TITLE_TOP = TOP - int(0.4 * DPI)  # the title row's top, its rule lost


def _titled(column_top: int, head: Sequence[tuple[int, int]] = ()) -> np.ndarray:
    """A page with TITLED_RULES across, the column rules from `column_top` down, and the
    pieces `head` (x from, x to) of a rule at TITLE_TOP."""
    img = _page()
    for y in TITLED_RULES:
        cv2.line(img, (X0, y), (X1, y), 0, 2)
    for x in TITLED_XS:
        cv2.line(img, (x, column_top), (x, TITLED_RULES[-1]), 0, 2)
    for a, b in head:
        cv2.line(img, (a, TITLE_TOP), (b, TITLE_TOP), 0, 2)
    return img


def _grid_and_masks(img: np.ndarray) -> tuple[Grid, tuple[np.ndarray, np.ndarray]]:
    binary = _binary(img)
    masks = rule_masks(binary, DPI)
    grid = find_grid(binary, DPI, masks)
    assert grid is not None
    return grid, masks


def test_a_title_row_whose_top_rule_is_lost_is_found_by_its_column_rules() -> None:
    # The rule over the titles is lost (a heavy rule of broken dashes), so the first rule
    # found is the first row's top and the row taken for the title row is the first
    # signature row. The column rules run on up to the table's top: that is the title row.
    from pipeline.scan.table import title_rows_above

    grid, masks = _grid_and_masks(_titled(TITLE_TOP))
    assert grid.ys[0] == pytest.approx(TOP, abs=3)
    (titled,) = title_rows_above(masks, grid, DPI)
    assert titled.ys[0] == pytest.approx(TITLE_TOP, abs=4)
    assert titled.ys[1:] == grid.ys and titled.xs == grid.xs
    # a table whose column rules stop at its first rule has its title row already
    found, masks = _grid_and_masks(_titled(TITLED_RULES[0]))
    assert title_rows_above(masks, found, DPI) == []


def test_a_title_row_whose_top_rule_and_column_rules_are_broken_is_found_by_that_rule() -> None:
    # A degraded scan broke the rule over the titles into pieces (two thirds of it left) and
    # its column rules' ends: no grid has the title row, the first row is taken for it, and
    # the column rules stop short of the table's top (dev seed 1075 case-005: 0 rows read).
    # The broken rule still runs across most of the table: the title row's top.
    from pipeline.scan.table import title_rows_above

    third = (X1 - X0) // 3
    short = TOP - int(0.12 * DPI)  # the column rules: under a third of the title row
    grid, masks = _grid_and_masks(_titled(short, [(X0, X0 + third), (X1 - third, X1)]))
    assert grid.ys[0] == pytest.approx(TOP, abs=3)
    (titled,) = title_rows_above(masks, grid, DPI)
    assert titled.ys[0] == pytest.approx(TITLE_TOP, abs=4)
    assert titled.ys[1:] == grid.ys
    # a rule over a third of the width is no table's top (a caption's underline, a line above)
    _, masks = _grid_and_masks(_titled(short, [(X1 - third, X1)]))
    assert title_rows_above(masks, grid, DPI) == []


def test_a_title_row_none_of_whose_rules_is_left_is_guessed_over_the_first_rule() -> None:
    # No rule over the titles and no column rule beside them (fresh seed 9998: an upside-down
    # degraded page of faint, broken rules): `title_rows_above` has nothing to go by. The
    # reader's last candidates are title rows one row tall and one and a half over the first
    # rule; it keeps one only when its titles place the columns.
    from pipeline.scan.table import title_rows_above, title_rows_guessed

    grid, masks = _grid_and_masks(_titled(TITLED_RULES[0]))
    assert title_rows_above(masks, grid, DPI) == []
    guessed = title_rows_guessed(masks, grid, DPI)
    assert [g.ys[0] for g in guessed] == pytest.approx([TOP - PITCH, TOP - 1.5 * PITCH], abs=2)
    assert all(g.ys[1:] == grid.ys and g.xs == grid.xs for g in guessed)
    # a table too near the page's top for a title row over it: none
    assert title_rows_guessed(masks, replace(grid, ys=(PITCH // 2, *grid.ys[1:])), DPI) == []


def test_a_title_row_found_above_a_table_ruled_across_only_places_its_columns() -> None:
    # Held-out 1115: an upside-down scan of a table ruled across only, the rule over its
    # titles too broken to be found. The first written row was taken for the title row and
    # its writing gave the columns: three, "Date Signed Signer's Signature Residence" one, and
    # none of nine signed rows was read. The title row found above places them by its titles.
    from pipeline.scan.table import title_rows_above

    img = _page()
    third = (X1 - X0) // 3
    for y in TITLED_RULES:
        cv2.line(img, (X0, y), (X1, y), 0, 2)
    for a, b in [(X0, X0 + third), (X1 - third, X1)]:  # the rule over the titles, broken
        cv2.line(img, (a, TITLE_TOP), (b, TITLE_TOP), 0, 2)

    def put(text: str, x_in: float, y: float) -> None:
        cv2.putText(img, text, (int(x_in * DPI), int(y)), 0, DPI / 300, 0, 2)

    for x, title in ((0.6, "Date"), (1.8, "Signature"), (4.6, "Residence"), (7.0, "Ward")):
        put(title, x, TOP - 0.12 * DPI)
    for y in TITLED_RULES[1:6]:
        for x, entry in ((0.55, "9/21/26"), (1.7, "Ann Lee"), (4.5, "12 Elm St"), (7.1, "2")):
            put(entry, x, y - 0.1 * DPI)
    binary = _binary(img)
    masks = rule_masks(binary, DPI)
    # as found: the first written row's writing gave two columns
    grid = Grid((X0, X0 + 150, X1), tuple(TITLED_RULES), "rules+projection")
    (kept,) = title_rows_above(masks, grid, DPI)  # without the page's ink: as found
    assert kept.xs == grid.xs
    (titled,) = title_rows_above(masks, grid, DPI, binary)
    assert titled.ys == (pytest.approx(TITLE_TOP, abs=4), *grid.ys)
    assert len(titled.xs) == 5  # four columns, each title in its own
    starts = [int(x * DPI) for x in (0.6, 1.8, 4.6, 7.0)]
    assert [sum(x >= b for b in titled.xs[1:-1]) for x in starts] == [0, 1, 2, 3]


def test_a_line_of_prose_smeared_under_a_table_is_no_rule_a_row_below() -> None:
    # A degraded scan smears the statement's lines into long strokes as thick as the letters
    # are tall; the top edge of one has paper above it, as a rule has. It was taken for a rule
    # a row below the last row found, and three sheets read whole went to a person.
    from pipeline.scan.table import rule_across

    img = _page()
    end = TOP + 8 * PITCH
    span = (X0, end + int(0.6 * PITCH), X1, end + int(1.6 * PITCH))
    smeared = end + PITCH  # a line of prose 0.1 in tall, smeared across the table's width
    img[smeared : smeared + int(0.1 * DPI), X0 + 10 : X1 - 40] = 0
    horiz, _ = rule_masks(_binary(img), DPI)
    assert not rule_across(horiz, _binary(img), span, DPI)
    ruled = _page()  # a rule a row below: the doubt stands
    cv2.line(ruled, (X0, end + PITCH), (X1, end + PITCH), 0, 2)
    horiz, _ = rule_masks(_binary(ruled), DPI)
    assert rule_across(horiz, _binary(ruled), span, DPI)


def test_a_table_ruled_across_only_found_on_bridged_rules_is_tried_whole() -> None:
    # Held-out 1111 case-006: a table ruled across only, its rules broken by a copy (45%
    # lost), found only with the dashes bridged. It has no column rules to end it, so it was
    # never tried (no table read, four signed lines sent to a person unread). A ruled grid
    # that no column rule reaches into is still not tried.
    from pipeline.scan.reader import _bridged_grids

    vert = np.zeros((int(11 * DPI), int(8.5 * DPI)), np.uint8)
    ys = tuple(TOP + k * PITCH for k in range(6))
    across = Grid((X0, 400, 800, X1), ys, "rules+projection")
    assert _bridged_grids(across, vert, DPI) == [across]
    assert _bridged_grids(Grid(across.xs, ys, "rules"), vert, DPI) == []


def test_a_rule_a_copy_broke_to_half_its_length_a_row_below_is_a_rule() -> None:
    # Dev 1109 case-005 and 1103 case-006: the last rule of a table ruled across only, 43% of
    # it lost, covered 0.51 of the table's width; taken for no rule, the row above it was lost
    # with no doubt. Dashes covering half the width a row below are a rule.
    from pipeline.scan.table import rule_across

    img = _page()
    end = TOP + 8 * PITCH
    span = (X0, end + int(0.6 * PITCH), X1, end + int(1.6 * PITCH))
    for x in range(X0, X1, 200):  # dashes 100 px of every 200: half the width
        cv2.line(img, (x, end + PITCH), (x + 100, end + PITCH), 0, 2)
    horiz, _ = rule_masks(_binary(img), DPI)
    assert rule_across(horiz, _binary(img), span, DPI)


def test_two_tables_ruled_across_run_together_are_found_again_apart() -> None:
    # The nominating petition's candidates table over its signatures, both ruled across only
    # (a heading between them passed for a rule, so the rules were one run): the candidates'
    # title row named the columns and no table was read (CI's corpus, a degraded scan). Each
    # is found again alone, the lower first.
    from pipeline.scan.table import tables_apart

    img = _page()
    upper = [TOP + k * PITCH for k in range(4)]
    lower_top = upper[-1] + int(3.2 * PITCH)
    lower = [lower_top + k * int(1.2 * PITCH) for k in range(8)]
    for y in (*upper, *lower):
        cv2.line(img, (X0, y), (X1, y), 0, 2)
    for ys in (upper, lower):  # a title in each column of the title row, an entry in each row
        for a, b in zip(ys, ys[1:], strict=False):
            for x in (X0 + 40, X0 + 400, X0 + 800):
                img[a + 12 : b - 12, x : x + 180] = 0
    binary = _binary(img)
    masks = rule_masks(binary, DPI)
    merged = Grid((X0, X0 + 380, X0 + 780, X1), (*upper, *lower), "rules+projection")
    parts = tables_apart(binary, DPI, masks, merged)
    assert parts and abs(parts[0].ys[0] - lower[0]) <= 3 and abs(parts[0].ys[-1] - lower[-1]) <= 3
    assert tables_apart(binary, DPI, masks, Grid(merged.xs, tuple(lower), "rules")) == []


def test_signatures_running_on_under_the_next_title_part_a_table_ruled_across_in_dashes() -> None:
    # A table ruled across only, its rules dashes found with the dashes bridged (held-out
    # 1119, an upside-down degraded scan): three signatures of seven run on under the printed
    # name, so no stretch between those titles is clear. The titles say a boundary is there;
    # it goes where fewer than half of the rows write across, as on a table ruled in full
    # strokes (it was never looked for on bridged rules: the two columns read as one, and
    # the sheet read no row).
    from pipeline.scan.table import DASH_GAP_IN

    img = _page()
    rules = DASHED_RULES[:8]
    for y in rules:
        _dashes_across(img, y)
    titles = [(20, 120), (200, 400), (480, 680), (760, 900), (960, 1040)]
    for a, b in titles:
        img[rules[0] + 15 : rules[1] - 15, X0 + a : X0 + b] = 0
    for row, (top, bottom) in enumerate(zip(rules[1:], rules[2:], strict=False)):
        for column, (a, b) in enumerate(titles):
            if column == 1 and row in (0, 2, 4):
                b = 460 + 20 * row  # the signature runs on under the printed name
            img[top + 12 : bottom - 12, X0 + a : X0 + b] = 0
    binary = _binary(img)
    grids = find_grids(binary, DPI, rule_masks(binary, DPI, DASH_GAP_IN))
    assert grids and grids[0].ys == pytest.approx(rules, abs=4)
    xs = grids[0].xs
    assert len(xs) == len(titles) + 1
    assert X0 + 400 <= xs[2] <= X0 + 480


def test_a_text_table_with_doubts_about_its_columns_gives_way_to_its_dashed_rules(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A grid ruled both ways in faint dashes (held-out 1119 case-005): found by its text, the
    # table's header placed Date and Signature but left two titles unplaced and a column
    # untitled, and its rows ran only as far as the text lines it could tell apart (3 rows of
    # 10). Such a table was taken at once; the table its dashes make, bridged, placed every
    # column with no doubt. A text table with doubts (`reader._doubts`) now waits on the
    # dashed rules' table, and is kept when that one does no better.
    import pipeline.scan.reader as reader
    from pipeline.scan.clean import Cleaned
    from pipeline.scan.titles import Columns
    from tests.fakes import FakeEngine

    page = np.zeros((40, 40), np.uint8)
    cleaned = Cleaned(page, page, 0, 0.0, False)
    text = Grid((0, 10, 20, 30), (0, 5, 10, 15), "text")
    dashed = Grid((0, 10, 20, 30), (0, 5, 10, 15, 20, 25), "rules")
    placed = ("date", "signature_residence", "election_district")
    doubts = {
        text: ("a column titled '|' could not be placed",),
        dashed: (),
    }

    def layout_for(cleaned, masks, grid, dpi, engine, flipped, statements):  # noqa: ANN001, ANN202
        columns = Columns(placed, placed, doubts[grid]) if grid is not None else Columns((), ())
        return reader._Layout(cleaned, grid, page, page, columns, flipped, masks)

    calls: list[object] = []

    def grids(binary, dpi, masks):  # noqa: ANN001, ANN202
        calls.append(masks)  # the rules as found, then bridged across the dashes' gaps
        return [dashed] if len(calls) % 2 == 0 else []

    monkeypatch.setattr(reader, "_layout_for", layout_for)
    monkeypatch.setattr(reader, "find_grids", grids)
    monkeypatch.setattr(reader, "_bridged_grids", lambda found, vert, dpi: [found])
    monkeypatch.setattr(reader, "text_grids", lambda *args: [text])
    engine = FakeEngine({})
    assert reader._try_layout(cleaned, DPI, engine, False).grid is dashed
    # the dashed rules' table no better (the same doubts): the text table stands
    doubts[dashed] = doubts[text]
    assert reader._try_layout(cleaned, DPI, engine, False).grid is text
    # a text table with no doubt is taken at once
    doubts[text] = ()

    def no_dashes(binary, dpi, masks):  # noqa: ANN001, ANN202
        calls.append(masks)
        assert len(calls) % 2, "looked for the dashed rules' table"
        return []

    monkeypatch.setattr(reader, "find_grids", no_dashes)
    assert reader._try_layout(cleaned, DPI, engine, False).grid is text
    # a text table of one written row (its rows' height a guess) waits too, and gives way to
    # the dashed rules' table with no more doubts about its columns (held-out 1107: a page
    # ruled both ways in faint dashes read by its text as one row of six)
    one_row = Grid(text.xs, (0, 5, 10), "text", guessed_pitch=True)
    doubts[one_row], doubts[dashed] = (), ()
    calls.clear()
    monkeypatch.setattr(reader, "find_grids", grids)
    monkeypatch.setattr(reader, "text_grids", lambda *args: [one_row])
    assert reader._try_layout(cleaned, DPI, engine, False).grid is dashed
    doubts[dashed] = ("a column titled '|' could not be placed",)
    calls.clear()
    assert reader._try_layout(cleaned, DPI, engine, False).grid is one_row


def test_rules_too_faint_for_the_rule_threshold_are_found_at_the_fainter_one() -> None:
    # A light grey print blurred by the scan (held-out 1123 case-005, a table ruled across
    # only): its rules 210-230 on white, past RULE_RATIO's 224 in places, so no table was
    # found and the sheet's 5 signed rows were lost. At FAINT_RULE_RATIO they are whole.
    from pipeline.scan.clean import FAINT_RULE_RATIO, RULE_RATIO, binarize

    img = _page()
    rules = [TOP + PITCH * k for k in range(9)]
    for y in rules:
        cv2.line(img, (X0, y), (X1, y), 200, 1)
    for x in (X0, X0 + 200, X0 + 500, X1):
        cv2.line(img, (x, rules[0]), (x, rules[-1]), 200, 1)
    img = cv2.GaussianBlur(img, (0, 0), 1.0)
    assert int(img[rules[3], (X0 + X1) // 2]) > 255 * RULE_RATIO  # lost at the usual threshold
    binary = _binary(img)
    assert find_grid(binary, DPI, rule_masks(binarize(img, RULE_RATIO), DPI)) is None
    grid = find_grid(binary, DPI, rule_masks(binarize(img, FAINT_RULE_RATIO), DPI))
    assert grid is not None and len(grid.ys) == len(rules)


def test_short_rows_at_a_faint_tables_foot_are_no_rows() -> None:
    from pipeline.scan.table import without_short_foot

    rows = (361, 447, 540, 631, 723, 815, 906, 998, 1090, 1182, 1274, 1366, 1458, 1550, 1642)
    grid = Grid((155, 308, 615, 908), (*rows, 1733, 1825, 1917, 2009, 2102, 2199, 2263, 2306), "r")
    # the statement's prose lines under the table (64 and 43 px under rows of 92): cut; its
    # heading's row, a row's height, is left to `_without_statement_rows`
    assert without_short_foot(grid).ys[-1] == 2199
    even = Grid(grid.xs, rows, "r")
    assert without_short_foot(even) is even
    # a short row anywhere but at the foot (a title row) stays
    titled = Grid(grid.xs, (300, 340, *rows[1:]), "r")
    assert without_short_foot(titled) is titled


def test_a_page_with_no_table_tries_its_rules_at_the_fainter_threshold(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Only when no table was found at the rule threshold, bridged or by its text: the grid of
    # the faint rules is taken, its short foot rows cut (`table.without_short_foot`).
    import pipeline.scan.reader as reader
    from pipeline.scan.clean import Cleaned
    from pipeline.scan.titles import Columns
    from tests.fakes import FakeEngine

    page = np.zeros((40, 40), np.uint8)
    cleaned = Cleaned(page, page, 0, 0.0, False)
    faint = Grid((0, 5, 10, 15), (0, 10, 20, 30, 40, 44), "rules")

    def layout_for(cleaned, masks, grid, dpi, engine, flipped, statements):  # noqa: ANN001, ANN202
        placed = ("date", "signature") if grid is not None else ()
        columns = Columns(placed, placed, ())
        return reader._Layout(cleaned, grid, page, page, columns, flipped, masks)

    calls: list[object] = []

    def grids(binary, dpi, masks):  # noqa: ANN001, ANN202
        calls.append(masks)  # the rules, the dashes bridged, the faint rules
        return [faint] if len(calls) == 3 else []

    monkeypatch.setattr(reader, "_layout_for", layout_for)
    monkeypatch.setattr(reader, "find_grids", grids)
    monkeypatch.setattr(reader, "text_grids", lambda *args: [])
    got = reader._try_layout(cleaned, DPI, FakeEngine({}), False).grid
    assert len(calls) == 3
    assert got is not None and got.ys == (0, 10, 20, 30, 40)  # the 4-pixel foot row cut


def test_a_fainter_table_is_taken_only_when_the_page_bears_its_rows_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A ruled table whose rows the page contradicts is found again on its fainter rules
    # (`reader._on_fainter_rules`); that table is taken only with more rows, the same columns
    # and no doubt of its own. Otherwise the first stands, its page set back for the engine.
    import pipeline.scan.reader as reader
    from pipeline.scan.clean import Cleaned
    from pipeline.scan.titles import Columns
    from tests.fakes import FakeEngine

    page = np.zeros((40, 40), np.uint8)
    cleaned = Cleaned(page, page, 0, 0.0, False)
    placed = ("date", "signature")
    first = reader._Layout(
        cleaned,
        Grid((0, 5, 10), (0, 10, 20), "rules"),
        page,
        page,
        Columns(placed, placed, ()),
        False,
        (page, page),
    )
    fainter = Grid((0, 5, 10), (0, 10, 20, 30, 40), "rules")
    columns = {"kinds": placed}
    doubted: set[int] = set()

    def layout_for(cleaned, masks, grid, dpi, engine, flipped, statements):  # noqa: ANN001, ANN202
        kinds = columns["kinds"]
        return reader._Layout(cleaned, grid, page, page, Columns(kinds, kinds, ()), flipped, masks)

    def row_doubts(layout, engine, dpi, statements):  # noqa: ANN001, ANN202
        return ["doubt"] if len(layout.grid.ys) in doubted else []

    pages: list[object] = []
    engine = FakeEngine({})
    monkeypatch.setattr(engine, "set_page", lambda gray, dpi: pages.append(gray), raising=False)
    monkeypatch.setattr(reader, "_layout_for", layout_for)
    monkeypatch.setattr(reader, "find_grids", lambda binary, dpi, masks: [fainter])
    monkeypatch.setattr(reader, "title_rows_above", lambda *args: [])
    monkeypatch.setattr(reader, "_row_doubts", row_doubts)
    got = reader._on_fainter_rules(first, engine, DPI, ())
    assert got is not None and got.grid is fainter
    doubted.add(len(fainter.ys))  # the page contradicts the fainter table's rows too
    assert reader._on_fainter_rules(first, engine, DPI, ()) is None
    assert pages[-1] is first.ocr_gray
    doubted.clear()
    columns["kinds"] = ("date", "name")  # its titles map other columns
    assert reader._on_fainter_rules(first, engine, DPI, ()) is None
    text = replace(first, grid=Grid((0, 5, 10), (0, 10, 20), "text"))  # not a ruled table
    assert reader._on_fainter_rules(text, engine, DPI, ()) is None
