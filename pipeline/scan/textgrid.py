"""A signature table printed without rules, or whose rules the scan lost: its grid from the
text alone, the fallback when `table` finds no ruled table that holds the signatures.

Without rules, rows and columns are found from where the ink is (text-line projections):
- the page's text lines are its runs of inked rows, as `blocks.text_lines` finds them, each
  cut into pieces where a gap wider than PIECE_GAP_IN parts its ink;
- the title row is the first group of close lines (a title may take two or three lines)
  that makes three or more pieces: a line of prose is one piece from margin to margin;
- the table's lines follow it, as long as between every two neighbouring titles some
  stretch stays clear of their ink: the column boundary is the middle of the widest such
  stretch. The statement's first words run across the columns, so the table ends there;
- the row pitch is fitted to the filled lines' centres (a blank row is a missing centre on
  that lattice), and rows go on past the last filled one while the space below stays empty
  up to the next text, as a printed table's blank rows do.

What it cannot place it does not guess: no title row gives no grid, and the page goes to a
person as before. The grid says how it was found (`method="text"`), and the blank rows after
the last filled one are inferred from empty space (they may be one too many or too few; they
never hold a signature, since every inked line is a row of its own).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .blocks import inked_lines, runs_of, without_specks
from .table import Grid, rows_across

__all__ = ["CLEAR_IN", "text_grid", "text_grids"]

# A gap this wide (inches) between inks parts a line into pieces (a word space is ~0.03 in).
PIECE_GAP_IN = 0.1
# Lines whose centres are this close (inches) are one group: a title over several lines.
TITLE_LEADING_IN = 0.2
# The title row has at least this many pieces (titles).
MIN_TITLES = 3
# A column boundary needs a stretch this wide (inches) clear of every row's ink: wider than
# a printed word space (~0.04 in), narrower than the gap between two cells' entries (>= 0.08).
CLEAR_IN = 0.06
# A table ruled across with this many written rows may part two close titles where fewer than
# half of the rows write across, clear or not (`_columns`).
LOOSE_MIN_ROWS = 3
# Two titles of a title row are parted under signatures that run on under the next one in
# most rows where this many written rows leave a clear stretch between them (`_columns`).
OVERRUN_CLEAR_ROWS = 2
# A row of the lattice is between these heights (inches).
ROW_MIN_IN = 0.2
ROW_MAX_IN = 1.2
# Blank rows are inferred after the last filled one only while they end this far (inches)
# above the next text, and never past this many rows in all.
TRAIL_MARGIN_IN = 0.08
MAX_ROWS = 40
# A line whose widest piece runs this share of its pieces' whole extent is prose: a title row's
# titles share the table's width among three or more columns.
PROSE_SPAN = 0.7
# Titles stand apart over their columns: somewhere between two of them (the signature's
# column is wide) the gap is wider than this (inches). Pieces parted only by narrower gaps are
# words of prose (a paragraph's last lines over a table ruled across, read as its title row).
TITLE_GAP_IN = 0.2
# A line under this tall (inches) just under another, at most this far below it, is the
# tails of its letters run apart (printed capitals are 0.1 in tall, handwriting more).
DESCENDER_MAX_IN = 0.06
DESCENDER_GAP_IN = 0.04
# A group of this many close lines is prose (a paragraph of the statement), not table rows,
# which are at least ROW_MIN_IN apart.
PROSE_LINES = 3


@dataclass(frozen=True, slots=True)
class _Line:
    top: int
    bottom: int  # exclusive
    inked: np.ndarray  # bool per page column: any ink in the line there

    @property
    def centre(self) -> float:
        return (self.top + self.bottom) / 2


def _descenders(line: _Line, above: _Line, dpi: float) -> bool:
    """A line too short to be a line of writing (under DESCENDER_MAX_IN), no more than
    DESCENDER_GAP_IN under the line above it: that line's descenders, run apart from it (the
    tail of a handwritten "g" under a row of the table)."""
    return (
        line.bottom - line.top < dpi * DESCENDER_MAX_IN
        and line.top - above.bottom <= dpi * DESCENDER_GAP_IN
    )


def _pieces(inked: np.ndarray, dpi: float) -> list[tuple[int, int]]:
    """The runs of inked columns, runs closer than PIECE_GAP_IN joined."""
    return runs_of(inked, dpi * PIECE_GAP_IN)


def _lines(binary: np.ndarray, dpi: float) -> list[_Line]:
    """The page's text lines, top to bottom (ink 255)."""
    binary = without_specks(binary, dpi)
    return [
        _Line(a, b, np.count_nonzero(binary[a:b], axis=0) > 0) for a, b in inked_lines(binary, dpi)
    ]


def _prose_pieces(pieces: list[tuple[int, int]]) -> bool:
    """A line (or group of lines) whose pieces are prose, not titles: one piece runs across
    PROSE_SPAN or more of their whole extent. Titles stand apart over their columns; two lines
    of a paragraph set in a typewriter face make pieces too, where the longer line's last
    words stand a word space apart beyond the shorter's end ("... Local Law No. 3 of")."""
    extent = pieces[-1][1] - pieces[0][0]
    return max(end - start for start, end in pieces) >= PROSE_SPAN * extent


def _groups(lines: list[_Line], dpi: float) -> list[list[_Line]]:
    """Consecutive lines whose centres are within TITLE_LEADING_IN of the one before."""
    groups: list[list[_Line]] = []
    for line in lines:
        if groups and line.centre - groups[-1][-1].centre <= dpi * TITLE_LEADING_IN:
            groups[-1].append(line)
        else:
            groups.append([line])
    return groups


def _columns(
    titles: list[tuple[int, int]],
    written: np.ndarray,
    rows: int,
    dpi: float,
    ruled_rows: int = 0,
    loose: bool = False,
    overrun: bool = False,
) -> list[int] | None:
    """A boundary between every two neighbouring titles: the middle of the widest stretch that
    the fewest of the `rows` write in (`written`: how many rows have ink in each page column),
    no more than OVERFLOW_ROWS of them (a signature that overflows its cell); None when a
    boundary finds no such stretch.

    `ruled_rows`: the rows are known from rules (not from the lines this is asked about), and
    this many of them hold writing. Between two titles set close (Village | Election District
    No.) the entries under the one may run on under the other in several rows and leave no
    clear stretch; the boundary is then the narrowest crossing that fewer than half of those
    rows write across (the printed titles say a boundary is there; the writing, where), when
    there are LOOSE_MIN_ROWS such rows at least (one or two rows' gaps say nothing of where it
    is; with one or two rows written, each across, it is where they write least).

    `loose`: the rows are lines that each part their own entries under every two titles, and
    fewer than half of them (not OVERFLOW_ROWS) may write across the stretch found.

    `overrun`: the titles are a title row's (`title_columns` found none of its boundaries
    otherwise), and signatures may run on under the next title in most of the `ruled_rows`:
    the boundary is then the widest stretch CLEAR_IN wide that OVERRUN_CLEAR_ROWS of them
    leave clear at least (held-out 1139: three signatures of five ran on under "Name
    (Printed)", and the first signed row was taken for the title row)."""
    most = max(1, int(rows * OVERFLOW_ROWS)) if rows > 1 else 0
    if loose:
        most = max(most, (rows - 1) // 2)
    xs = []
    for (_, right), (left, _) in zip(titles, titles[1:], strict=False):
        between = written[right:left]
        x = _least_written(between, dpi * CLEAR_IN, most)
        if x is None and ruled_rows >= LOOSE_MIN_ROWS:
            x = _least_written(between, 1, max(most, (ruled_rows - 1) // 2))
        elif x is None and ruled_rows:
            # one or two rows written, each across it (signatures run on under the printed
            # name): the titles say a boundary is there, and it goes where they write least
            x = _least_written(between, 1, ruled_rows)
        if x is None and overrun and ruled_rows >= LOOSE_MIN_ROWS:
            x = _least_written(between, dpi * CLEAR_IN, ruled_rows - OVERRUN_CLEAR_ROWS)
        if x is None:
            return None
        xs.append(right + x)
    return xs


def _gaps_crossed(titles: list[tuple[int, int]], inked: np.ndarray, dpi: float) -> int:
    """How many of the stretches between neighbouring titles the line's ink leaves no clear
    stretch CLEAR_IN wide in."""
    written = inked.astype(np.int32)
    return sum(
        _least_written(written[right:left], dpi * CLEAR_IN, 0) is None
        for (_, right), (left, _) in zip(titles, titles[1:], strict=False)
    )


def _one_piece_across(line: _Line, xs: list[int], dpi: float) -> bool:
    """A line of one piece that runs across a column boundary: a heading ("Statement of
    Witness:") or prose, not a row (a row whose signature overflows has other entries too)."""
    if len(_pieces(line.inked, dpi)) > 1:
        return False
    band = max(1, int(dpi * 0.01))
    return any(line.inked[max(0, x - band) : x + band + 1].any() for x in xs)


def _pitch(centres: list[float], dpi: float) -> tuple[float, float] | None:
    """(first row's centre, row pitch) fitted to the filled lines' centres: the tallest row
    height whose lattice puts every centre in a row of its own, within LATTICE_SLACK of a
    row's height from that row's centre (handwriting sits higher or lower in its row, so the
    smallest step between two entries may be well under a row; a blank row leaves a gap of
    two or more). A shorter height always fits too (half the rows, twice as many), so the
    tallest that fits is the table's; when none fits, the smallest step's lattice does."""
    steps = [b - a for a, b in zip(centres, centres[1:], strict=False) if b - a >= dpi * ROW_MIN_IN]
    if not steps or min(steps) > dpi * ROW_MAX_IN:
        return None
    c = np.array(centres)
    low = max(dpi * ROW_MIN_IN, min(steps) * 0.9)
    high = min(dpi * ROW_MAX_IN, min(steps) / (1 - 2 * LATTICE_SLACK))
    for p in np.arange(high, low - 1, -max(1.0, dpi / 300)):
        fitted = _on_lattice(c, float(p))
        if fitted is not None:
            return fitted
    # No lattice holds every centre that closely (a skewed or warped scan): the lattice of the
    # smallest step, fitted to them all.
    n = np.round((c - c[0]) / min(steps))
    if np.ptp(n) == 0:
        return None
    pitch, first = np.polyfit(n, c, 1)
    return float(first), float(pitch)


# A filled line's centre lies within this share of a row's height of its row's centre.
LATTICE_SLACK = 0.22


def _on_lattice(c: np.ndarray, p: float) -> tuple[float, float] | None:
    """(first centre, pitch) of the lattice of about `p` that holds every centre in a row of
    its own within LATTICE_SLACK, refitted to them; None when none does."""
    n = np.round((c - c[0]) / p)
    for _ in range(2):
        if np.ptp(n) == 0 or np.any(np.diff(n) < 1):
            return None
        pitch, first = np.polyfit(n, c, 1)
        n = np.round((c - first) / pitch)
    if np.any(np.diff(n) < 1) or np.ptp(n) == 0:
        return None
    pitch, first = np.polyfit(n, c, 1)
    if np.max(np.abs(c - (first + n * pitch))) > LATTICE_SLACK * pitch:
        return None
    return float(first + n[0] * pitch), float(pitch)


Prose = Callable[[int, int], bool]  # (top, bottom) of a text line -> it is not a table row


def text_grid(
    binary: np.ndarray, dpi: float, prose: Prose | None = None, rules: np.ndarray | None = None
) -> Grid | None:
    """The signature table's grid from the text alone, or None (see the module's note).
    `prose` says of a line (its top and bottom) that it reads as the statement's wording,
    not a row: asked of the table's last lines, from the foot up. `rules`: the page's
    horizontal rule image (`table.rule_masks`), where the blank rows' rules are looked for."""
    return next(iter(text_grids(binary, dpi, prose, rules=rules)), None)


def text_grids(
    binary: np.ndarray,
    dpi: float,
    prose: Prose | None = None,
    most: int = 1,
    rules: np.ndarray | None = None,
) -> list[Grid]:
    """The first `most` grids `text_grid` could take, top to bottom: a line above the table
    that makes pieces too (a sheet number's caption and its blank) is tried first; whether its
    titles are a signature table's is for the reader to tell."""
    lines = _lines(binary, dpi)
    groups = _groups(lines, dpi)
    grids: list[Grid] = []
    for g, group in enumerate(groups):
        title_ink = np.logical_or.reduce([line.inked for line in group])
        titles = _pieces(title_ink, dpi)
        if len(titles) < MIN_TITLES or len(group) >= PROSE_LINES or _prose_pieces(titles):
            continue
        below = [(ln, len(grp) >= PROSE_LINES) for grp in groups[g + 1 :] for ln in grp]
        grid = _grid_below(group, titles, below, dpi, prose, rules)
        if grid is not None:
            grids.append(grid)
            if len(grids) == most:
                break
    return grids


def _grid_below(
    title: list[_Line],
    titles: list[tuple[int, int]],
    below: list[tuple[_Line, bool]],
    dpi: float,
    prose: Prose | None,
    rules: np.ndarray | None = None,
) -> Grid | None:
    """The table under a title row: its filled lines, columns and rows. A paragraph ends it,
    and so does a last line that reads as the statement's wording."""
    rows: list[_Line] = []
    written = np.zeros(title[0].inked.shape, np.int32)
    xs: list[int] | None = None
    next_top = None
    seen: list[list[int]] = []
    for line, in_paragraph in below:
        if rows and _descenders(line, rows[-1], dpi):
            # the tails of the row's letters ("g", "y") run apart from it: part of that row
            written += line.inked & ~rows[-1].inked
            rows[-1] = _Line(rows[-1].top, line.bottom, rows[-1].inked | line.inked)
            continue
        cols = _columns(titles, written + line.inked, len(rows) + 1, dpi)
        if (
            cols is None
            and not rows
            and len(_pieces(line.inked, dpi)) > 1
            and _gaps_crossed(titles, line.inked, dpi) == 1
        ):
            # the first row's entries run on under the next title at one place (a long
            # signature over the printed name): no other row says where the boundary is, and
            # the titles say one is there; it goes where the row writes least (a line of
            # prose is one piece, or, in a typewriter face whose word spaces part it, runs on
            # under several titles)
            cols = _columns(titles, line.inked.astype(np.int32), 1, dpi, ruled_rows=1)
        if (
            cols is None
            and len(rows) >= LOOSE_MIN_ROWS
            and _columns(titles, line.inked.astype(np.int32), 1, dpi) is not None
        ):
            # the line parts its own entries under every two titles, but long signatures in
            # several rows (a large hand's, each running on under the printed name a little
            # further) leave no stretch that all but OVERFLOW_ROWS of them keep clear of
            # (fresh held-out 1133: 4 rows read of 11): the boundary goes to a clear stretch
            # that fewer than half of the rows write across
            cols = _columns(titles, written + line.inked, len(rows) + 1, dpi, loose=True)
        if (
            in_paragraph
            or cols is None
            or line.bottom - line.top > dpi * ROW_MAX_IN
            or (seen and _one_piece_across(line, seen[-1], dpi))
        ):
            next_top = line.top
            break
        rows.append(line)
        written += line.inked
        seen.append(cols)
    while rows and prose is not None and prose(rows[-1].top, rows[-1].bottom):
        next_top = rows.pop().top
        seen.pop()
    xs = seen[-1] if seen else None
    if not rows or xs is None:
        return None
    title_top, title_bottom = title[0].top, title[-1].bottom
    if len(rows) == 1:
        first, pitch = rows[0].centre, 2.0 * (rows[0].centre - title_bottom)
    else:
        fitted = _pitch([r.centre for r in rows], dpi)
        if fitted is None:
            return None
        first, pitch = fitted
    pad = int(dpi * 0.04)
    # The title row ends a pad below its titles' ink (its cells are read inset: a title cut
    # at its ink's foot loses its descenders, "Signature" read "Qiagdnature"), and no lower
    # than halfway to the first row's ink; lower where the rows' lattice says so.
    foot = min(title_bottom + pad, (title_bottom + rows[0].top) // 2)
    ys = [max(0, title_top - pad), int(round(max(foot, first - pitch / 2)))]
    filled = min(MAX_ROWS, int(round((rows[-1].centre - first) / pitch)) + 1)
    ys += [int(round(first + (k + 0.5) * pitch)) for k in range(filled)]
    ink = written > 0
    left = min(titles[0][0], int(np.argmax(ink))) - pad
    right = max(titles[-1][1], len(ink) - int(np.argmax(ink[::-1]))) + pad
    if next_top is not None:  # blank rows in the empty space down to the next text
        ruled = (
            None
            if rules is None
            else _blank_rules(rules, (left, right), ys[-1], next_top, pitch, dpi)
        )
        if ruled:
            ys = [*ys[:-1], *ruled][: MAX_ROWS + 2]
        while (
            not ruled
            and ys[-1] + pitch <= next_top - dpi * TRAIL_MARGIN_IN
            and len(ys) < MAX_ROWS + 2
        ):
            ys.append(int(round(ys[-1] + pitch)))
    bounds = (max(0, left), *xs, min(len(ink) - 1, right))
    return Grid(bounds, tuple(ys), "text", guessed_pitch=len(rows) == 1)


# The rules of the blank rows under the last written one: strokes of the rule image across
# this share of the table's width at least (a faint rule the scan broke keeps about a fifth),
# no thicker than BLANK_RULE_MAX_IN (inches), spaced alike to within RULED_SLACK of their
# median gap.
BLANK_RULE_COVER = 0.12
BLANK_RULE_MAX_IN = 0.06
RULED_SLACK = 0.12


def _blank_rules(
    rules: np.ndarray, span: tuple[int, int], foot: int, next_top: int, pitch: float, dpi: float
) -> list[int] | None:
    """The rules of a text table's blank rows, when the rule image shows them: the last
    written row's foot rule (the one nearest `foot`, the lattice's row end) and every rule
    under it, evenly spaced, down to the next text; None when they are not there or not
    evenly spaced (the blank rows are then inferred from the written rows' pitch). A pitch
    fitted to two or three written rows, whose writing sits higher or lower in its row, is
    off by a few pixels a row; over a dozen blank rows that made one row too many (held-out
    1115: faint broken rules the rule finder did not take, as text under them outweighed
    them)."""
    left, right = max(0, span[0]), min(rules.shape[1], span[1])
    top = max(0, int(foot - pitch / 2))
    bottom = int(next_top - dpi * TRAIL_MARGIN_IN)
    if bottom <= top or right <= left:
        return None
    found = runs_of(rows_across(rules, (left, top, right, bottom), BLANK_RULE_COVER))
    ys = [top + (a + b) // 2 for a, b in found if b - a <= dpi * BLANK_RULE_MAX_IN]
    if not ys:
        return None
    first = min(range(len(ys)), key=lambda k: abs(ys[k] - foot))  # not the writing above it
    ys = ys[first:]
    if len(ys) < 2 or abs(ys[0] - foot) > pitch / 2:
        return None
    gaps = np.diff(ys)
    usual = float(np.median(gaps))
    if not dpi * ROW_MIN_IN <= usual <= dpi * ROW_MAX_IN:
        return None
    if np.any(np.abs(gaps - usual) > RULED_SLACK * usual):
        return None
    return [int(y) for y in ys]


def title_columns(
    binary: np.ndarray,
    ys: tuple[int, ...] | list[int],
    left: int,
    right: int,
    dpi: float,
) -> tuple[int, list[int]] | None:
    """Column boundaries of a table ruled across only (no vertical rules), from its title row
    and its rows: (the index in `ys` of the title row's top rule, the boundaries), or None.

    The title row is the first row (of the first three) as tall as a row whose ink makes
    MIN_TITLES pieces or more, two of them TITLE_GAP_IN apart at least: a rule above the table
    (under the address, a heavy title row's double rule, a line of prose taken for a rule over
    the paragraph's last lines) is passed over. Between every two neighbouring titles the
    boundary is the middle of the widest stretch that the fewest rows write in (`_columns`). A
    column with no title is no column (an entry's empty end is not a gap between columns).
    `binary` is the ink without rules. Two close titles may be parted where fewer than half
    of the rows write across (`_columns`' `ruled_rows`), unless a row is prose: on rules
    bridged across dashes too, where the statement's lines bridged into rules make rows of
    prose (held-out 1119: signatures running on under the printed name in several rows of a
    table ruled across in dashes read the two columns as one, and the sheet no rows)."""
    for k in range(min(3, len(ys) - 2)):
        clean = without_specks(binary[ys[k] : ys[-1], left:right], dpi)
        head = ys[k + 1] - ys[k]
        titles = _pieces(np.count_nonzero(clean[:head], axis=0) > 0, dpi)
        if len(titles) < MIN_TITLES or head < dpi * ROW_MIN_IN or _word_spaced(titles, dpi):
            continue
        rows = [
            np.count_nonzero(clean[a - ys[k] : b - ys[k]], axis=0) > 0
            for a, b in zip(ys[k + 1 :], ys[k + 2 :], strict=False)
        ]
        # (a row of prose, the statement's heading or lines taken in with the table, parts no
        # columns: with one among the rows, the titles are parted only where it is clear)
        prose = any(_prose_row(row, titles, dpi) for row in rows)
        inked = 0 if prose else sum(bool(row.any()) for row in rows)
        if inked >= LOOSE_MIN_ROWS:
            titles = _parted(titles, np.count_nonzero(clean[:head], axis=0) > 0, rows, dpi)
        written = np.sum(rows, axis=0)
        xs = _columns(titles, written, len(rows), dpi, ruled_rows=inked)
        if xs is None:  # before the next row is taken for the titles
            xs = _columns(titles, written, len(rows), dpi, ruled_rows=inked, overrun=True)
        if xs is not None:
            return k, [left, *(left + x for x in xs), right]
    return None


# Two titles run together are parted only where each side is this wide (inches) at least.
PARTED_SIDE_IN = 0.3


def _parted(
    titles: list[tuple[int, int]], title_ink: np.ndarray, rows: list[np.ndarray], dpi: float
) -> list[tuple[int, int]]:
    """The titles, two set so close that their ink is one piece ("Town or City" and a title
    wider than its column, "Election District No.", run together) parted where every row
    leaves a clear stretch CLEAR_IN wide under the piece, PARTED_SIDE_IN from its ends, with
    most written rows writing on both sides of it within the piece (one title's entries,
    left-aligned and short, leave paper on one side only). The part falls on a gap in the
    titles' ink in that stretch, else at its middle; the pieces end CLEAR_IN apart there, so
    that `_columns` puts the boundary on it."""
    written = np.sum(rows, axis=0)
    filled = [row for row in rows if row.any()]
    half = int(dpi * CLEAR_IN / 2) + 1
    side = dpi * PARTED_SIDE_IN
    out = []
    for a, b in titles:
        cut = None
        clear = [(a + s, a + e) for s, e in runs_of(written[a:b] == 0)]
        for s, e in sorted(clear, key=lambda r: r[0] - r[1]):  # the widest first
            if e - s < 2 * half or s - a < side or b - e < side:
                continue
            both = sum(row[a:s].any() and row[e:b].any() for row in filled)
            if 2 * both < len(filled):
                continue
            gaps = [(s + g, s + h) for g, h in runs_of(~title_ink[s:e])]
            inside = [(g + h) // 2 for g, h in gaps if s + half <= (g + h) // 2 < e - half]
            middle = (s + e) // 2
            cut = min(inside, key=lambda x: abs(x - middle)) if inside else middle
            break
        out += [(a, b)] if cut is None else [(a, cut - half), (cut + half, b)]
    return out


def _word_spaced(pieces: list[tuple[int, int]], dpi: float) -> bool:
    """Pieces parted only by gaps under TITLE_GAP_IN: words of prose, not titles."""
    return all(
        b - a < dpi * TITLE_GAP_IN for (_, a), (b, _) in zip(pieces, pieces[1:], strict=False)
    )


def _prose_row(inked: np.ndarray, titles: list[tuple[int, int]], dpi: float) -> bool:
    """A row whose ink is one piece running from under one title on under the next: a line
    of prose or a heading, not entries (a row's entries are pieces apart, an overflowing
    signature among them)."""
    pieces = _pieces(inked, dpi)
    if len(pieces) != 1:
        return False
    start, end = pieces[0]
    gaps = zip(titles, titles[1:], strict=False)
    return any(start < right and end > left for (_, right), (left, _) in gaps)


# Of a table's rows, at most this share may write across a column boundary (an overflowing
# signature) for the boundary to be placed there.
OVERFLOW_ROWS = 0.2


def _least_written(written: np.ndarray, wide: float, most: int) -> int | None:
    """The middle of the widest stretch, `wide` pixels at least, written in by the fewest rows
    (no more than `most`), or None."""
    if written.size == 0:
        return None
    for level in range(int(written.min()), most + 1):
        runs = [(s, e) for s, e in runs_of(written <= level) if e - s >= wide]
        if runs:
            s, e = max(runs, key=lambda r: r[1] - r[0])
            return (s + e) // 2
    return None
