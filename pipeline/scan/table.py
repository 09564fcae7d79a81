"""Find the signature table on a cleaned page: its ruled lines, rows and columns.

The rules are found by morphology: an opening with a long thin kernel keeps only strokes longer
than any letter, horizontal and vertical separately. Rows of the rule image whose ink spans a
good part of the page are horizontal rules; the table is the longest run of such rules at a
row's spacing, and its columns are the vertical rules crossing it. Faint or broken rules still
leave enough of the row profile to be found; a missing row rule is restored by splitting a
row that is a whole multiple of the usual row height. When there are no usable vertical rules,
the columns come from the gaps in the ink of the table's rows (a text-projection fallback).

A page may hold several tables (the nominating petition's candidates table above its
signatures). Two rules belong to one table when a vertical rule runs between them, so the
page is cut into bands between tables (`table_bands`) and each band's grid found alone
(`find_grids`); the same test keeps a line of text just above or below a table from being
taken for its header row or its last row.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import cv2
import numpy as np

from .blocks import runs_of

__all__ = [
    "RULE_BAND_IN",
    "DASH_GAP_IN",
    "Grid",
    "dashed_rules",
    "find_grid",
    "find_grids",
    "near_rows",
    "rows_across",
    "rule_across",
    "rule_masks",
    "table_bands",
    "table_span",
    "title_rows_above",
    "title_rows_below",
    "title_rows_guessed",
    "within_columns",
    "with_dashed_rows",
    "without_short_foot",
]

log = logging.getLogger(__name__)

# A horizontal rule is at least this long (inches); a vertical one at least this tall.
H_RULE_MIN_IN = 0.5
V_RULE_MIN_IN = 0.16
# Breaks up to this long (inches) in a dashed or broken rule are bridged.
BRIDGE_IN = 0.06
# Along a rule printed or scanned as dashes, gaps up to this long (inches) are one rule.
DASH_GAP_IN = 0.12
# A rule is at most this thick (inches); a thicker long stroke is smeared text, unless it
# runs this long (inches): a heavy rule or a shaded title row's edge.
RULE_MAX_IN = 0.04
HEAVY_RULE_MIN_IN = 4.0
# A column rule thicker than RULE_MAX_IN (a blurred scan) is still a rule when it runs at least
# this tall (inches): two of the shortest rows a table has.
RULED_COLUMN_MIN_IN = 1.0
# A row of the rule image is a rule when its strokes cover this share of the longest rule's
# length (faint, broken rules keep a fifth of their length; the run of rules is then trimmed to
# the vertical rules, so text lines above or below the table do not join it).
RULE_COVER = 0.2
STRONG_COVER = 0.4
# A faint rule has ink on at most this share of its length just above and below it.
THIN_INK = 0.10
# A faint rule above the table's first strong rule is its header row's top when it is at most
# this many body rows above it (taller, it is a text line above the table).
HEADER_MAX_ROWS = 1.8
# A gap between two rules is inside a table when a vertical rule covers this share of it.
SPAN_COVER = 0.5
# A faint candidate this close (inches) to a strong rule is not another rule.
NEAR_STRONG_IN = 0.2
# How far (inches) above or below a row rule the vertical rules are looked for.
REACH_IN = 0.2
# Rules are looked for at this resolution at most.
MASK_DPI = 150.0
# A table ruled across only: its rules run at least this share of its longest rule (a line of
# prose smeared into a "rule" runs less than half of it).
ACROSS_COVER = 0.55
# A table ruled across only ends at its last rule no further than this many rows below the
# one before.
LAST_ROW_MAX = 1.12
# A table row is between these heights (inches).
ROW_MIN_IN = 0.15
ROW_MAX_IN = 1.2


@dataclass(frozen=True, slots=True)
class Grid:
    """A table: x positions of its column boundaries and y positions of its row boundaries
    (pixels, ascending). Row 0 (ys[0]..ys[1]) is the header row."""

    xs: tuple[int, ...]
    ys: tuple[int, ...]
    method: str  # "rules", "rules+dashes" (on down its broken rules), "rules+projection", "text"
    # found by its text from one entry: its row height is a guess (`textgrid`), not measured
    guessed_pitch: bool = False

    @property
    def n_rows(self) -> int:
        return max(0, len(self.ys) - 2)  # body rows, the header excluded

    def cell(self, row: int, col: int) -> tuple[int, int, int, int]:
        """(x0, y0, x1, y1) of a cell; row 0 is the header row."""
        return self.xs[col], self.ys[row], self.xs[col + 1], self.ys[row + 1]


def rule_masks(
    binary: np.ndarray, dpi: float, bridge_in: float = BRIDGE_IN
) -> tuple[np.ndarray, np.ndarray]:
    """Horizontal and vertical rule images (255 on the rules), the size of `binary`. Found at
    MASK_DPI at most (a quarter of the work at 300 dpi) and scaled back up. `bridge_in`: the
    breaks along a rule bridged (DASH_GAP_IN for rules printed or scanned as dashes)."""
    if dpi <= MASK_DPI * 1.2:
        return _rule_masks(binary, dpi, bridge_in)
    scale = MASK_DPI / dpi
    small = cv2.resize(binary, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    _, small = cv2.threshold(small, 40, 255, cv2.THRESH_BINARY)
    size = (binary.shape[1], binary.shape[0])
    return tuple(  # type: ignore[return-value]
        cv2.resize(m, size, interpolation=cv2.INTER_NEAREST)
        for m in _rule_masks(small, MASK_DPI, bridge_in)
    )


def _rule_masks(binary: np.ndarray, dpi: float, bridge_in: float) -> tuple[np.ndarray, np.ndarray]:
    h_len = max(8, int(dpi * H_RULE_MIN_IN))
    v_len = max(6, int(dpi * V_RULE_MIN_IN))
    # Bridge small breaks along a rule before keeping only long strokes.
    bridge = max(3, int(dpi * bridge_in))
    horiz = cv2.morphologyEx(binary, cv2.MORPH_CLOSE, np.ones((1, bridge), np.uint8))
    horiz = cv2.morphologyEx(horiz, cv2.MORPH_OPEN, np.ones((1, h_len), np.uint8))
    vert = cv2.morphologyEx(binary, cv2.MORPH_CLOSE, np.ones((bridge, 1), np.uint8))
    vert = cv2.morphologyEx(vert, cv2.MORPH_OPEN, np.ones((v_len, 1), np.uint8))
    # A rule is thin: drop strokes thicker than RULE_MAX_IN across (text smeared by blur and
    # bridging into a long band).
    t = max(5, int(dpi * RULE_MAX_IN))
    thick_h = _short(
        cv2.morphologyEx(horiz, cv2.MORPH_OPEN, np.ones((t, 1), np.uint8)), binary, dpi
    )
    horiz = cv2.subtract(horiz, cv2.dilate(thick_h, np.ones((3, 3), np.uint8)))
    thick_v = _smeared(cv2.morphologyEx(vert, cv2.MORPH_OPEN, np.ones((1, t), np.uint8)), t, dpi)
    vert = cv2.subtract(vert, cv2.dilate(thick_v, np.ones((3, 3), np.uint8)))
    return horiz, vert


def _smeared(thick: np.ndarray, t: int, dpi: float) -> np.ndarray:
    """The thick vertical strokes that are smeared text. A column rule blurred a little past
    RULE_MAX_IN across is kept as a rule: a stroke at most twice that wide on average that
    runs RULED_COLUMN_MIN_IN tall (a blurred scan's rules; a line of text is a fifth of that
    tall, and text smeared down across lines is a paragraph wide)."""
    _, labels, stats, _ = cv2.connectedComponentsWithStats(thick, connectivity=8)
    tall = stats[:, cv2.CC_STAT_HEIGHT] >= dpi * RULED_COLUMN_MIN_IN
    narrow = stats[:, cv2.CC_STAT_AREA] <= 2 * t * stats[:, cv2.CC_STAT_HEIGHT]
    return _without(thick, labels, tall & narrow)


def _short(thick: np.ndarray, binary: np.ndarray, dpi: float) -> np.ndarray:
    """The thick horizontal strokes that are smeared text. A heavy rule (a title row set off
    by a heavy rule or shading) is kept as a rule: a thick stroke HEAVY_RULE_MIN_IN long, or
    one on a line of the page inked without a break for that long (a heavy rule whose
    thickness wavers a pixel about the opening's size leaves thick pieces shorter than that;
    a line of text has gaps between its words)."""
    n, labels, stats, _ = cv2.connectedComponentsWithStats(thick, connectivity=8)
    heavy = dpi * HEAVY_RULE_MIN_IN
    long = stats[:, cv2.CC_STAT_WIDTH] >= heavy
    for k in np.flatnonzero(~long)[1:]:
        top, hgt = stats[k, cv2.CC_STAT_TOP], stats[k, cv2.CC_STAT_HEIGHT]
        row = binary[top + hgt // 2] > 0
        long[k] = _longest_run(row) >= heavy
    return _without(thick, labels, long)


def _without(image: np.ndarray, labels: np.ndarray, rules: np.ndarray) -> np.ndarray:
    """The image less its connected components (`labels`) marked in `rules` (the background,
    label 0, never)."""
    rules[0] = False
    if not rules.any():
        return image
    out = image.copy()
    out[rules[labels]] = 0
    return out


def _longest_run(flags: np.ndarray) -> int:
    """The length of the longest run of True."""
    return max((end - start for start, end in runs_of(flags)), default=0)


def _peaks(profile: np.ndarray, threshold: float) -> list[tuple[int, int]]:
    """Runs of indices where profile >= threshold, as (start, end) inclusive."""
    above = profile >= threshold
    runs = []
    start = None
    for i, a in enumerate(above):
        if a and start is None:
            start = i
        elif not a and start is not None:
            runs.append((start, i - 1))
            start = None
    if start is not None:
        runs.append((start, len(above) - 1))
    return runs


def _centres(runs: Sequence[tuple[int, int]], merge: int) -> list[int]:
    """Centres of runs, runs closer than `merge` pixels merged into one."""
    merged: list[list[int]] = []
    for a, b in runs:
        if merged and a - merged[-1][1] <= merge:
            merged[-1][1] = b
        else:
            merged.append([a, b])
    return [(a + b) // 2 for a, b in merged]


def _row_rules(horiz: np.ndarray, dpi: float) -> tuple[list[int], list[int], int, int]:
    """The table's strong horizontal rules (the longest run of rules covering STRONG_COVER of
    the longest, spaced like table rows), the weak candidates (RULE_COVER), and the table's
    left and right x."""
    prof = horiz.sum(axis=1, dtype=np.int64) // 255
    if prof.max() < dpi * 1.5:  # no rule as long as 1.5 inches
        return [], [], 0, 0
    merge = max(2, int(dpi * 0.02))
    strong = _centres(_peaks(prof, prof.max() * STRONG_COVER), merge=merge)
    weak = _centres(_peaks(prof, prof.max() * RULE_COVER), merge=merge)
    best: list[int] = []
    run: list[int] = []
    for y in strong:
        if run and (y - run[-1] > dpi * ROW_MAX_IN * 1.2):
            run = []
        run.append(y)
        if len(run) > len(best):
            best = list(run)
    if len(best) < 2:
        return [], [], 0, 0
    band = horiz[best[0] : best[-1] + 1]
    cols = np.nonzero(band.max(axis=0))[0]
    return best, weak, int(cols[0]), int(cols[-1])


def _thin_line(y: int, horiz: np.ndarray, binary: np.ndarray, dpi: float) -> bool:
    """A rule is a thin line with paper beside it (0.03 to 0.07 in away) on at least one side
    (the other may hold the writing of the row it closes); a long smear of text inside a row
    has the letters' ink on both sides."""
    xs = np.flatnonzero(horiz[y])
    if xs.size == 0:
        return False
    offsets = [max(2, int(dpi * off_in)) for off_in in (0.03, 0.05, 0.07)]

    def clear(sign: int) -> bool:
        for off in offsets:
            yy = y + sign * off
            if not 0 <= yy < binary.shape[0]:
                return False
            if np.count_nonzero(binary[yy, xs]) > THIN_INK * xs.size:
                return False
        return True

    return clear(-1) or clear(1)


def rule_across(
    horiz: np.ndarray, binary: np.ndarray, span: tuple[int, int, int, int], dpi: float
) -> bool:
    """A rule in the span (left, top, right, bottom) of the page: a stroke of the rule image
    ACROSS_RULE of the span's width long, no thicker than RULE_MAX_IN, a thin line with paper
    beside it (a line of prose under a table smears into a long stroke too, as thick as its
    letters are tall, with their ink on both sides)."""
    across = rows_across(horiz, span, ACROSS_RULE)
    top = span[1]
    thick = max(2, int(dpi * RULE_MAX_IN))
    return any(
        _thin_line(top + y, horiz, binary, dpi)
        for a, b in runs_of(across)
        if b - a <= thick
        for y in range(a, b)
    )


# A horizontal rule this share of a table's width long is a row rule: a table's last rule that
# a copy broke (43% of it lost) keeps half its length (0.51 of the width on dev 1109 and 1103,
# where 0.6 lost the row above it with no doubt).
ACROSS_RULE = 0.45


def rows_across(horiz: np.ndarray, span: tuple[int, int, int, int], share: float) -> np.ndarray:
    """Per row of the span (left, top, right, bottom): whether the rule image covers `share`
    of its width there."""
    left, top, right, bottom = span
    return np.count_nonzero(horiz[top:bottom, left:right], axis=1) >= share * (right - left)


def _pitch(ys: list[int], candidates: list[int], dpi: float) -> float:
    """The body rows' height: the strong rules' gaps (the header row excluded) are whole
    multiples of it; among the divisions that fit, the one the faint candidates agree with.
    A division finer than the shortest gap must be seen in at least half of the gaps (a faint
    rule on its lattice inside them): one stroke of large writing halfway down one row is no
    sign that every row is two (a row split in two reads a signer's line as two, silently;
    two rows read as one raise the stacked-row doubt)."""
    body = np.diff(ys[1:]) if len(ys) > 2 else np.diff(ys)
    if len(body) == 0:
        return dpi * 0.3
    base = float(np.min(body))
    options = [base / k for k in (1, 2, 3, 4) if base / k >= dpi * ROW_MIN_IN]
    if not options:
        return base
    run = ys[1:] if len(ys) > 2 else ys

    def seen(p: float) -> bool:
        inside = sum(
            any(a < y < b - 0.5 * p and _whole_rows(y - a, p) for y in candidates)
            for a, b in zip(run, run[1:], strict=False)
        )
        return 2 * inside >= len(run) - 1

    def fits(p: float) -> bool:
        return all(_whole_rows(float(g), p) for g in body) and (p == base or seen(p))

    def votes(p: float) -> int:
        return sum(
            1
            for y in candidates
            for a in ys
            if 0 < y - a < p * 4.5 and abs((y - a) / p - round((y - a) / p)) < 0.12
        )

    fitting = [p for p in options if fits(p)] or options[:1]
    return max(fitting, key=lambda p: (votes(p), -fitting.index(p)))


def _join(
    ys: list[int],
    candidates: list[int],
    bottoms: list[int],
    cover: np.ndarray,
    ruled: Callable[[int, int], bool],
    dpi: float,
) -> list[int]:
    """The strong run `ys` with the faint candidates that sit where rows end: inside the run at
    whole multiples of the row height from a strong rule; beyond its ends one at a time, each a
    row's height (0.8 to 1.25 rows) past the current end, above the top (the header row, often
    taller) up to HEADER_MAX_ROWS rows when the table's vertical rules run up to it (`ruled`:
    a line of text above the table is not its header). Below the table the vertical rules may
    have faded out before the last rule: there `bottoms` (thin lines, met by the verticals or
    not) count, unless the verticals run down to the end and stop there."""
    pitch = _pitch(ys, candidates, dpi)
    merged = sorted(set(ys) | set(_on_lattice(ys, candidates, pitch)))
    out = [merged[0]]
    for y in merged[1:]:
        if y - out[-1] >= dpi * ROW_MIN_IN:
            out.append(y)
        elif cover[y] > cover[out[-1]]:
            out[-1] = y  # two "rules" closer than a row: the longer one is the rule
    while True:
        # Where the vertical rules still run down to the current end, a rule below must be
        # reached by them too (a line of text under the table is not its last row).
        faded = len(out) < 2 or not ruled(out[-2], out[-1])
        below = [
            y
            for y in bottoms
            if 0.8 * pitch <= y - out[-1] <= 1.25 * pitch and (faded or ruled(out[-1], y))
        ]
        if not below:
            break
        out.append(min(below))
    while True:
        above = [
            y
            for y in candidates
            if 0.8 * pitch <= out[0] - y <= HEADER_MAX_ROWS * pitch and ruled(y, out[0])
        ]
        if not above:
            break
        out.insert(0, max(above))
    return out


def _on_lattice(ys: list[int], candidates: list[int], pitch: float) -> list[int]:
    """The candidates inside the run of rules `ys` a whole number of rows (`pitch`, within 0.15
    of a row) from the rule above or below them, where those two rules are a whole number of
    rows apart: a gap of one row and a half is no run of rows whose rules faded (a line of the
    statement under the table, long enough to pass for a rule, lies so from its last rule)."""
    inside = []
    for y in candidates:
        if not ys[0] < y < ys[-1] or y in ys:
            continue
        a, b = max(z for z in ys if z < y), min(z for z in ys if z > y)
        if _whole_rows(b - a, pitch) >= 2 and (
            _whole_rows(y - a, pitch) or _whole_rows(b - y, pitch)
        ):
            inside.append(y)
    return inside


def _whole_rows(d: float, pitch: float) -> int:
    """How many rows of height `pitch` the distance `d` is, within 0.15 of a row; 0 when it is
    no whole number of rows (or under one)."""
    k = round(d / pitch)
    return k if k >= 1 and abs(d - k * pitch) < 0.15 * pitch else 0


def _fill_missing_rows(ys: list[int], dpi: float) -> list[int]:
    """Split a body row that is a whole multiple of the usual row height (a lost rule)."""
    if len(ys) < 4:
        return ys
    gaps = np.diff(ys[1:])  # body rows only: the header row may be taller
    usual = float(np.median(gaps))
    if usual < dpi * ROW_MIN_IN:
        return ys
    out = ys[:2]
    for a, b in zip(ys[1:], ys[2:], strict=False):
        k = int(round((b - a) / usual))
        if k >= 2 and abs((b - a) - k * usual) < usual * 0.25:
            out.extend(int(round(a + (b - a) * j / k)) for j in range(1, k))
        out.append(b)
    return out


def _column_rules(
    vert: np.ndarray, top: int, bottom: int, left: int, right: int, dpi: float
) -> list[int]:
    """The vertical rules down half of the run of row rules from `top` to `bottom`, or down
    half of the longest vertical rule when that is COLUMN_MIN_IN long at least (lines of
    prose just above or below the table may have joined the run: it is not all table)."""
    band = vert[top : bottom + 1, :]
    prof = band.sum(axis=0, dtype=np.int64) // 255
    tall = max(0.5 * float(prof.max(initial=0)), dpi * COLUMN_MIN_IN)
    threshold = min((bottom - top) * 0.5, tall)
    xs = _centres(_peaks(prof, threshold), merge=max(2, int(dpi * 0.03)))
    xs = [x for x in xs if left - dpi * 0.1 <= x <= right + dpi * 0.1]
    return xs


# A table's column rules are found by the longest of them when it is this long (inches).
COLUMN_MIN_IN = 1.5


def _column_gaps(
    ink: np.ndarray, top: int, bottom: int, left: int, right: int, dpi: float
) -> list[int]:
    """Column boundaries from the ink (the rules left out: they cross every gap): the middle
    of every wide vertical gap in the table."""
    band = ink[top : bottom + 1, left : right + 1]
    prof = band.sum(axis=0, dtype=np.int64) // 255
    empty = prof <= max(1, (bottom - top) * 0.01)
    xs = [left, right]
    for a, b in _peaks(empty.astype(np.int64), 1):
        if b - a >= dpi * 0.12 and a > 0 and b < len(prof) - 1:
            xs.append(left + (a + b) // 2)
    return sorted(xs)


def _crossed(ys: list[int], vert: np.ndarray, xs: list[int], dpi: float) -> list[int]:
    """The rules that the table's vertical rules meet: within REACH_IN above or below the rule,
    at least a third of the vertical rules have a stroke. A text line above or below the table
    (smeared into a long stroke) meets none; a faint, broken rule of the table meets most."""
    band = max(2, int(dpi * 0.02))
    reach = int(dpi * REACH_IN)
    cols = np.stack([vert[:, max(0, x - band) : x + band + 1].max(axis=1) for x in xs], axis=1)
    kept = []
    for y in ys:
        window = cols[max(0, y - reach) : y + reach + 1]
        if np.count_nonzero(window.max(axis=0)) * 3 >= len(xs):
            kept.append(y)
    return kept


def _runs_through(y: int, horiz: np.ndarray, xs: Sequence[int], dpi: float) -> bool:
    """A row rule of a fully ruled table runs on through the column rules it crosses (at least
    half of the inner ones, a broken rule having lost some); a line of text inside a row, which
    bridging and a long kernel can turn into a "rule" as long as one, stops short of every
    column rule (an entry is set inside its cell; an overflowing signature crosses one)."""
    inner = xs[1:-1]
    if not inner:
        return True
    band = max(2, int(dpi * 0.01))
    reach = max(3, int(dpi * 0.04))
    rows = horiz[max(0, y - band) : y + band + 1]
    crossing = sum(
        bool(rows[:, max(0, x - reach) : x + reach + 1].max(axis=0).all()) for x in inner
    )
    return crossing * 2 >= len(inner)


def _spanning(
    vert: np.ndarray, top: int, bottom: int, dpi: float, xs: Sequence[int] | None = None
) -> int:
    """How many vertical rules run through the rows between `top` and `bottom`: strokes of
    the vertical-rule image covering SPAN_COVER of that height, at the column positions `xs`
    (within a fiftieth of an inch) or, without `xs`, anywhere across the page."""
    pad = max(1, int(dpi * 0.01))
    seg = vert[top + pad : bottom - pad]
    if seg.shape[0] < 2:
        return 0
    cover = np.count_nonzero(seg, axis=0) >= SPAN_COVER * seg.shape[0]
    if xs is not None:
        band = max(2, int(dpi * 0.02))
        return sum(bool(cover[max(0, x - band) : x + band + 1].any()) for x in xs)
    return len(_centres(_peaks(cover.astype(np.int64), 1), merge=max(2, int(dpi * 0.03))))


def within_columns(grid: Grid, vert: np.ndarray, dpi: float) -> Grid | None:
    """The grid ended where its column rules end: down to the last body row that most of its
    column rules run on into (`_reaching`). Where a table is found on rules bridged across
    wide gaps, the lines of the statement under it bridge into long strokes too and pass for
    more rows; no column rule runs on from the table into the statement, wherever it is set
    and whatever its words. A row the dashes happen to miss inside the table stays (a later
    row is reached). None when no body row is left."""
    reached = [
        _reaching(vert, top, bottom, dpi, grid.xs)
        for top, bottom in zip(grid.ys[1:], grid.ys[2:], strict=False)
    ]
    if not any(reached):
        return None
    last = len(reached) - reached[::-1].index(True)  # body rows kept
    return Grid(grid.xs, grid.ys[: last + 2], grid.method)


def from_column_tops(grid: Grid, vert: np.ndarray, dpi: float) -> list[Grid]:
    """The grid started at the first row its column rules run up into (`_reaching`), then the
    same with the row above that kept; none when they run up into its first row. The lines
    of a paragraph over a table found on rules bridged across wide gaps bridge into strokes
    as the statement's under it do, and the gap over the table's top rule passes for its
    title row. A title row shaded or printed without column rules shows none running up into
    it and is cut too: the second grid keeps it. The reader tries these only when the whole
    grid fails, and keeps the first whose title row places the columns."""
    ys = list(grid.ys)
    while len(ys) > 3 and not _reaching(vert, ys[0], ys[1], dpi, grid.xs, up=True):
        ys.pop(0)
    cut = len(grid.ys) - len(ys)
    if cut == 0:
        return []
    out = [Grid(grid.xs, tuple(ys), grid.method)]
    if cut >= 2:  # (one row cut: the row above is the whole grid's first, tried already)
        out.append(Grid(grid.xs, grid.ys[cut - 1 :], grid.method))
    return out


# A column rule runs on into a row when it is inked without a break from the row's top rule
# down this share of the row (the last dash of a dashed rule may stop short of the bottom).
REACH_SHARE = 0.33


def _reaching(
    vert: np.ndarray, top: int, bottom: int, dpi: float, xs: Sequence[int], *, up: bool = False
) -> bool:
    """Whether most of the column rules at `xs` (within a fiftieth of an inch) run from the
    rule at `top` on down REACH_SHARE of the row below it (`up`: from the rule at `bottom` on
    up that share of the row above it)."""
    band = max(2, int(dpi * 0.02))
    pad = max(1, int(dpi * 0.01))
    reach = max(pad + 2, int((bottom - top) * REACH_SHARE))
    seg = vert[bottom - reach : bottom - pad] if up else vert[top + pad : top + reach]
    if seg.shape[0] < 2:
        return False
    inked = sum(bool(seg[:, max(0, x - band) : x + band + 1].max(axis=1).all()) for x in xs)
    return inked * 2 > len(xs)


def _ruled_through(vert: np.ndarray, ys: Sequence[int], dpi: float) -> list[bool]:
    """For each gap between successive rules: vertical rules run through it, and on across
    the rule above or below it into the neighbouring gap at the same place (within a
    fiftieth of an inch), at two places at least (a table's column rules cross its row rules,
    its borders among them). Tall pen strokes in rows written large run through one gap
    each; two rows' strokes may fall at the same place, but they stop short of the rule."""
    band = max(2, int(dpi * 0.02))
    found = [_gap_columns(vert, top, bottom, dpi) for top, bottom in zip(ys, ys[1:], strict=False)]
    reach = max(2, int(dpi * 0.05))

    def crossing(a: list[int], b: list[int], y: int) -> bool:
        rows = vert[max(0, y - reach) : y + reach + 1]
        places = [x for x in a if any(abs(x - z) <= band for z in b)]
        through = sum(
            bool(rows[:, max(0, x - band) : x + band + 1].max(axis=1).all()) for x in places
        )
        return through >= 2

    return [
        bool(xs)
        and (
            (k > 0 and crossing(xs, found[k - 1], ys[k]))
            or (k + 1 < len(found) and crossing(xs, found[k + 1], ys[k + 1]))
            or len(found) == 1
        )
        for k, xs in enumerate(found)
    ]


def _gap_columns(vert: np.ndarray, top: int, bottom: int, dpi: float) -> list[int]:
    """Where vertical rules run through the gap between two rules (SPAN_COVER of it)."""
    pad = max(1, int(dpi * 0.01))
    seg = vert[top + pad : bottom - pad]
    if seg.shape[0] < 2:
        return []
    cover = np.count_nonzero(seg, axis=0) >= SPAN_COVER * seg.shape[0]
    return _centres(_peaks(cover.astype(np.int64), 1), merge=max(2, int(dpi * 0.03)))


def _rejoined(vert: np.ndarray, ys: Sequence[int], joined: list[bool], dpi: float) -> list[bool]:
    """`joined` with the gaps where a table's column rules break off (a badly copied scan)
    joined again: a run of gaps that no vertical rule runs through, between two gaps that
    vertical rules do join at the same places (two at least, within SAME_COLUMN_IN), each
    gap of the run a row's height (within LAST_ROW_MAX of the joined gaps' median). Two
    tables on one page have columns of their own, or text between them."""
    gaps = np.diff(ys)
    if not any(joined):
        return joined
    pitch = float(np.median(gaps[np.array(joined)]))
    out = list(joined)
    k = 0
    while k < len(out):
        if out[k]:
            k += 1
            continue
        end = k
        while end < len(out) and not out[end]:
            end += 1
        if k > 0 and end < len(out):
            above = _gap_columns(vert, ys[k - 1], ys[k], dpi)
            below = _gap_columns(vert, ys[end], ys[end + 1], dpi)
            same = sum(any(abs(a - b) <= dpi * SAME_COLUMN_IN for b in below) for a in above)
            rows = all(abs(g - pitch) <= (LAST_ROW_MAX - 1) * pitch for g in gaps[k:end])
            if same >= 2 and rows:
                out[k:end] = [True] * (end - k)
        k = end
    return out


def table_bands(horiz: np.ndarray, vert: np.ndarray, dpi: float) -> list[tuple[int, int]]:
    """The page cut into horizontal bands, one per ruled table, top to bottom (a form with a
    candidates table above the signature table, as the nominating petition has, gives two).

    Two successive strong rules belong to one table when a vertical rule runs between them;
    the text between two tables has no stroke that long. A page without vertical rules is cut
    where the gap between rules is much wider than the rows around it. Each band reaches
    halfway to its neighbours, so the faint rules just outside a table stay in its band. One
    band when the page has one table; none when it has no ruled table."""
    prof = horiz.sum(axis=1, dtype=np.int64) // 255
    if prof.max() < dpi * 1.5:
        return []
    ys = _centres(_peaks(prof, prof.max() * STRONG_COVER), merge=max(2, int(dpi * 0.02)))
    if len(ys) < 2:
        return []
    joined = _ruled_through(vert, ys, dpi)
    # no vertical rules: no three rules in a row joined by them (tall pen strokes are not
    # rules; lines of prose above and below a short table may outnumber its rules)
    if not any(a and b for a, b in zip(joined, joined[1:], strict=False)):
        gaps = np.diff(ys)
        joined = [bool(g <= 2.5 * float(np.median(gaps))) for g in gaps]
    else:
        joined = _rejoined(vert, ys, joined, dpi)
    tables: list[list[int]] = [[ys[0]]]
    for y, same in zip(ys[1:], joined, strict=False):
        if same:
            tables[-1].append(y)
        else:
            tables.append([y])
    tables = [t for t in tables if len(t) >= 2]
    bands = []
    for k, t in enumerate(tables):
        top = 0 if k == 0 else (tables[k - 1][-1] + t[0]) // 2
        bottom = horiz.shape[0] if k == len(tables) - 1 else (t[-1] + tables[k + 1][0]) // 2
        bands.append((top, bottom))
    return bands


def find_grid(
    binary: np.ndarray,
    dpi: float,
    masks: tuple[np.ndarray, np.ndarray] | None = None,
) -> Grid | None:
    """The signature table's grid, or None when the page has no ruled table."""
    horiz, vert = masks if masks is not None else rule_masks(binary, dpi)
    ys, weak, left, right = _row_rules(horiz, dpi)
    if len(ys) < 2:
        return None
    xs = _column_rules(vert, ys[0], ys[-1], left, right, dpi)
    if len(xs) >= 3:
        kept = _crossed(ys, vert, xs, dpi)
        ys = kept if len(kept) >= 2 else ys
        # (when most rules stop short of the column rules, the rules are broken, not text)
        through = [y for y in ys if _runs_through(y, horiz, xs, dpi)]
        ys = through if len(through) >= 2 and 2 * len(through) >= len(ys) else ys

        # a paragraph just above (or below) the table, its lines bridged into long strokes
        # that letters carry across the column rules' line, has ink on both sides, and most
        # column rules do not run on to it (a heavy or shaded title row's rule has ink on
        # both sides too, but the column rules run through the title row); when its lines
        # are close, their letters' strokes bridge into "column rules" too, but the gap
        # between it and the table is one no column rule runs through
        def prose(a: int, b: int, y: int) -> bool:
            return not _thin_line(y, horiz, binary, dpi) and _spanning(
                vert, a, b, dpi, xs
            ) * 2 <= len(xs)

        def apart(a: int, b: int, y: int) -> bool:
            return not _thin_line(y, horiz, binary, dpi) and not _spanning(vert, a, b, dpi, xs)

        while len(ys) > 2 and (
            prose(ys[0], ys[1], ys[0]) or (len(ys) > 3 and apart(ys[1], ys[2], ys[0]))
        ):
            ys = ys[1:]
        while len(ys) > 2 and (
            prose(ys[-2], ys[-1], ys[-1]) or (len(ys) > 3 and apart(ys[-3], ys[-2], ys[-1]))
        ):
            ys = ys[:-1]
        ys = _without_foot_apart(ys, vert, xs, dpi)
        near = dpi * NEAR_STRONG_IN
        thin = [
            y
            for y in weak
            if min(abs(y - z) for z in ys) > near
            and _thin_line(y, horiz, binary, dpi)
            and (not ys[0] < y < ys[-1] or _runs_through(y, horiz, xs, dpi))
        ]
        crossed = set(_crossed(thin, vert, xs, dpi))

        def ruled(top: int, bottom: int) -> bool:
            return _spanning(vert, top, bottom, dpi, xs) >= 2

        cover = horiz.sum(axis=1, dtype=np.int64)
        ys = _join(ys, [y for y in thin if y in crossed], thin, cover, ruled, dpi)
    ys = _fill_missing_rows(ys, dpi)
    method = "rules"
    if len(xs) < 3:  # ruled across only: columns under their titles, else at the ink's gaps
        # with no vertical rules to cross, a dense line of prose can pass for a rule: a rule
        # across a table runs most of its width, with paper beside it
        cover = horiz.sum(axis=1, dtype=np.int64)
        band = max(2, int(dpi * 0.01))
        longest = max(_cover(cover, y, band) for y in ys)
        ys = [
            y
            for y in ys
            if _cover(cover, y, band) >= ACROSS_COVER * longest
            and _thin_line(y, horiz, binary, dpi)
        ]
        ys = [y for k, y in enumerate(ys) if k == 0 or y - ys[k - 1] >= dpi * ROW_MIN_IN]
        ys = _without_row_cuts(ys)
        # a faint or broken rule between two of them (dashes a scan left a third of) is a
        # rule where it lies a whole number of rows from them, the rows measured on every
        # thin candidate (a row twice as tall as the others is two rows whose rule faded)
        thin = [
            y
            for y in weak
            if ys
            and min(abs(y - z) for z in ys) > dpi * NEAR_STRONG_IN
            and _thin_line(y, horiz, binary, dpi)
        ]
        if len(ys) >= 3 and thin:
            ys = sorted({*ys, *_on_lattice(ys, thin, _pitch(ys, thin, dpi))})
            ys = _rows_on(ys, thin, [_cover(cover, y, band) / longest for y in thin])
        # a line of prose under the table (the statement's first line) is no last row: the
        # rows of a table are alike, and it lies further down than one row's height
        while len(ys) > 4 and ys[-1] - ys[-2] > LAST_ROW_MAX * float(np.median(np.diff(ys[1:-1]))):
            ys = ys[:-1]
        if len(ys) < 3:
            return None
        ink = _without_rules(binary, horiz, ys, left, right, dpi)
        titled = _titled_columns(ink, ys, left, right, dpi)
        if titled is not None:  # rules above its title row are not the table's
            ys, xs = ys[titled[0] :], titled[1]
        else:
            xs = _column_gaps(ink, ys[0], ys[-1], left, right, dpi)
        method = "rules+projection"
    if abs(xs[0] - left) > dpi * 0.1:
        xs.insert(0, left)
    if abs(xs[-1] - right) > dpi * 0.1:
        xs.append(right)
    if len(xs) < 3 or len(ys) < 3:  # a table is a header row and at least one row
        return None
    return Grid(tuple(xs), tuple(ys), method)


# A row at a faint table's foot less than this share of its rows' median height is no row.
FOOT_ROW_SHARE = 0.8


def without_short_foot(grid: Grid) -> Grid:
    """The table without the rows at its foot shorter than FOOT_ROW_SHARE of its rows' median
    height. At the fainter rule threshold (`reader._try_layout`) the statement's blurred prose
    under a table makes long thin strokes too, a line's height apart, not a row's (held-out
    1123: rows of 64 and 43 px under rows of 92); the heading row left above them is cut as
    the statement's (`reader._without_statement_rows`). A table ruled both ways has its foot
    cut by its column rules instead (`_without_foot_apart`)."""
    ys = list(grid.ys)
    if len(ys) < 4:
        return grid
    median = float(np.median(np.diff(ys)))
    while len(ys) > 3 and ys[-1] - ys[-2] < FOOT_ROW_SHARE * median:
        ys.pop()
    return grid if len(ys) == len(grid.ys) else replace(grid, ys=tuple(ys))


def _without_foot_apart(
    ys: list[int], vert: np.ndarray, xs: Sequence[int], dpi: float
) -> list[int]:
    """The rules of a table ruled both ways, less those under its foot: below the last gap
    that most of its column rules run through, the first gap that none runs through and that
    is no whole number of rows (`_whole_rows`) is no row of the table, and the table ends
    above it. The statement's lines of prose under a degraded copy's table smear into thin
    strokes that its letters' stems cross and that run through the column rules' places, and
    pass for rules (held-out 1107: two rows invented, 1.4 and 0.4 rows tall, the statement's
    heading and first line read as entries). A last row whose column rules a copy lost is a
    row's height, and stays."""
    if len(ys) < 4:
        return ys
    ruled = [2 * _spanning(vert, a, b, dpi, xs) > len(xs) for a, b in zip(ys, ys[1:], strict=False)]
    if True not in ruled:
        return ys
    last = len(ruled) - 1 - ruled[::-1].index(True)
    pitch = float(np.median(np.diff(ys[1:])))
    for k in range(last + 1, len(ruled)):
        if not _spanning(vert, ys[k], ys[k + 1], dpi, xs) and not _whole_rows(
            ys[k + 1] - ys[k], pitch
        ):
            return ys[: k + 1]
    return ys


def _cover(cover: np.ndarray, y: int, band: int) -> int:
    """The rule image's longest cover of a page row within `band` of y."""
    return int(cover[max(0, y - band) : y + band + 1].max())


# A table ruled across only runs on past its last long rule to a thin line this near a row's
# height below it (rows of 1 +- TAIL_SLACK) covering ACROSS_RULE of the longest rule.
TAIL_SLACK = 0.15


def _rows_on(ys: list[int], thin: Sequence[int], covers: Sequence[float]) -> list[int]:
    """The rules of a table ruled across only, run on down past the last one a row at a time
    to the thin candidates (`covers`: each one's share of the longest rule) that lie a row
    below it and cover ACROSS_RULE, the measure `rule_across` raises its doubt on: a copy
    that broke the last rows' rules below ACROSS_COVER lost those rows (held-out 1119, two
    of them, one signed). A line of the statement under the table that lies so is a row the
    reader cuts off as the statement's wording (`reader._without_statement_rows`)."""
    if len(ys) < 3:
        return ys
    pitch = float(np.median(np.diff(ys[1:])))
    out = list(ys)
    while True:
        below = [
            y
            for y, c in zip(thin, covers, strict=True)
            if abs(y - out[-1] - pitch) <= TAIL_SLACK * pitch and c >= ACROSS_RULE
        ]
        if not below:
            return out
        out.append(min(below, key=lambda y: abs(y - out[-1] - pitch)))


# A stroke between two rules a usual row apart (within CUT_SLACK of the rows' median height),
# CUT_MIN of a row or more from both, cuts that row: it is writing, not a rule.
CUT_SLACK = 0.15
CUT_MIN = 0.2


def _without_row_cuts(ys: list[int]) -> list[int]:
    """The rules of a table ruled across only, less the strokes that cut a row in two. With
    no column rules to cross, a row's writing that a blurred, compressed scan smeared into one
    thin stroke across most of the table passes for a rule (held-out 1115: two rows cut 63 /
    37%, a row invented and a signer's line lost); where the kept rules either side of it are
    a row apart, as tall as the table's rows, the row is whole and the stroke is in it. A
    double rule (its strokes close together) and a taller title row keep their rules."""
    if len(ys) < 5:
        return ys
    usual = float(np.median(np.diff(ys)))
    out = [ys[0]]
    for y, below in zip(ys[1:-1], ys[2:], strict=True):
        above = out[-1]
        whole = abs((below - above) - usual) <= CUT_SLACK * usual
        if whole and min(y - above, below - y) >= CUT_MIN * usual:
            continue
        out.append(y)
    return [*out, ys[-1]]


def _without_rules(
    binary: np.ndarray, horiz: np.ndarray, ys: Sequence[int], left: int, right: int, dpi: float
) -> np.ndarray:
    """The page's ink less the table's own rules (those at `ys`, and dashes along them). Only
    the table's own: the mask also holds strokes that are no rule (a bold title's letters
    bridged along their baseline), and erasing those would cut the titles into pieces that
    pass for more columns."""
    rules = cv2.dilate(near_rows(horiz, list(ys), dpi), np.ones((5, 1), np.uint8))
    pitch = int(np.median(np.diff(ys)))
    rules = cv2.bitwise_or(
        rules, dashed_rules(binary, (left, max(0, ys[0] - pitch), right, ys[-1] + pitch), dpi)
    )
    return cv2.bitwise_and(binary, cv2.bitwise_not(rules))


def _titled_columns(
    ink: np.ndarray, ys: Sequence[int], left: int, right: int, dpi: float
) -> tuple[int, list[int]] | None:
    """`textgrid.title_columns` of a table ruled across only (textgrid builds on this
    module's Grid, hence the late import)."""
    from .textgrid import title_columns

    return title_columns(ink, list(ys), left, right, dpi) if len(ys) >= 3 else None


# A broken rule's dashes are at least this long (inches) and cover this share of the table's
# width along one line.
DASH_MIN_IN = 0.05
DASH_COVER = 0.4


def table_span(grid: Grid, dpi: float, rows_past: int = 2) -> tuple[int, int, int, int]:
    """Where a table's broken rules are looked for: (left, top, right, bottom), from above
    its title row down to `rows_past` rows past its last row."""
    pitch = int(np.median(np.diff(grid.ys[1:]))) if len(grid.ys) > 2 else int(dpi * 0.3)
    bottom = grid.ys[-1] + rows_past * pitch
    return grid.xs[0], max(0, grid.ys[0] - pitch // 2), grid.xs[-1], bottom


def _dash_lines(
    binary: np.ndarray, span: tuple[int, int, int, int], dpi: float
) -> tuple[np.ndarray, int, list[int]]:
    """The lines of dashes in a span of the page (left, top, right, bottom): (the span's
    image, its top, the lines' y)."""
    left, top, right, bottom = span
    region = binary[top : min(binary.shape[0], bottom), left:right]
    if region.size == 0:
        return region, top, []
    k = max(3, int(dpi * DASH_MIN_IN))
    flat = cv2.morphologyEx(region, cv2.MORPH_OPEN, np.ones((1, k), np.uint8))
    t = max(4, int(dpi * RULE_MAX_IN * 0.6))
    thick = cv2.morphologyEx(flat, cv2.MORPH_OPEN, np.ones((t, 1), np.uint8))
    flat = cv2.subtract(flat, cv2.dilate(thick, np.ones((3, 3), np.uint8)))
    band = max(2, int(dpi * 0.01))  # a skewed line's dashes are a few pixels off its centre
    prof = np.count_nonzero(cv2.dilate(flat, np.ones((2 * band + 1, 1), np.uint8)), axis=1)
    lines = _centres(_peaks(prof, DASH_COVER * (right - left)), merge=band)
    # a line of prose has letters' bars too, with the letters' ink on both sides
    lines = [y for y in lines if _thin_line(y, flat, region, dpi)]
    return region, top, [top + y for y in lines]


def _with_dashed_columns(binary: np.ndarray, grid: Grid, dpi: float) -> Grid:
    """A ruled table with the column rules broken into dashes too far for `rule_masks` to
    keep them: lines of rule-thin vertical dashes covering DASH_COVER of the table's height
    (the page turned on its side for `_dash_lines`), away from the rules found."""
    xs, ys = grid.xs, grid.ys
    near = dpi * SAME_COLUMN_IN
    added = [
        xs[0] + x
        for x in _column_dash_lines(
            binary[ys[0] : ys[-1], xs[0] : xs[-1] + 1], dpi, [z - xs[0] for z in xs]
        )
        if min(abs(xs[0] + x - z) for z in xs) > near
    ]
    if not added:
        return grid
    return Grid(tuple(sorted((*xs, *added))), ys, "rules+dashes")


def dashed_rules(
    binary: np.ndarray, span: tuple[int, int, int, int], dpi: float, across: bool = False
) -> np.ndarray:
    """The dashes of rules across a table broken too far for `rule_masks` to keep them (they
    were not placed as rules, so the table was found from its text or its titles): along a
    line, rule-thin straight strokes covering DASH_COVER of the table's width. Their pixels
    (255), to be erased before the cells' ink is measured. `across`: the dashes of column
    rules instead, covering DASH_COVER of the span's height."""
    if across:  # the dashes of column rules: the span turned on its side
        out = np.zeros_like(binary)
        left, top, right, bottom = span
        region = binary[top:bottom, left:right]
        if _column_dash_lines(region, dpi):
            side = np.ascontiguousarray(region.T)
            out[top:bottom, left:right] = _dashes(side, (0, 0, *side.shape[::-1]), dpi).T
        return out
    return _dashes(binary, span, dpi, touching=False)


def _column_dash_lines(region: np.ndarray, dpi: float, known: Sequence[int] = ()) -> list[int]:
    """The x of the lines of vertical dashes in a region (`_dash_lines` on it turned on its
    side), looked for only when the region's ink, spread as `_dash_lines` spreads it,
    covers DASH_COVER of its height in one column at least away from the `known` column
    rules (most tables have no such place, and then the looking costs nothing)."""
    if region.size == 0:
        return []
    band = max(2, int(dpi * 0.01))
    spread = cv2.dilate(region, np.ones((1, 2 * band + 1), np.uint8))
    cover = np.count_nonzero(spread, axis=0)
    near = int(dpi * SAME_COLUMN_IN)
    for x in known:
        cover[max(0, x - near) : x + near + 1] = 0
    if cover.max() < DASH_COVER * region.shape[0]:
        return []
    side = np.ascontiguousarray(region.T)
    return _dash_lines(side, (0, 0, side.shape[1], side.shape[0]), dpi)[2]


def _dashes(
    binary: np.ndarray, span: tuple[int, int, int, int], dpi: float, touching: bool = True
) -> np.ndarray:
    """`dashed_rules` along the span's width; `touching`: with the stretch along each line of
    the dashes that touch a rule the other way (a column rule's dash on a row rule: one
    piece with it). Along a row rule's line that might be a line of prose, which the
    letters' bars along it would lose."""
    out = np.zeros_like(binary)
    region, top, lines = _dash_lines(binary, span, dpi)
    if not lines:
        return out
    band = max(2, int(dpi * 0.01))
    t = max(4, int(dpi * RULE_MAX_IN * 0.6))
    # every rule-thin piece along those lines goes (the dashes and their broken-off ends)
    _, labels, stats, centroids = cv2.connectedComponentsWithStats(region, connectivity=8)
    ys = np.array(lines) - top
    near = np.abs(centroids[:, 1][:, None] - ys[None, :]).min(axis=1) <= 3 * band
    near &= stats[:, cv2.CC_STAT_HEIGHT] <= t
    near[0] = False
    pieces = np.where(near[labels], 255, 0).astype(np.uint8)
    if touching:
        k = max(3, int(dpi * DASH_MIN_IN))
        flat = cv2.morphologyEx(region, cv2.MORPH_OPEN, np.ones((1, k), np.uint8))
        for y in ys:
            a, b = max(0, y - band), y + band + 1
            pieces[a:b] = np.maximum(pieces[a:b], flat[a:b])
    left, right = span[0], span[2]
    out[top : top + region.shape[0], left:right] = pieces
    return out


DASHED_ROWS_MAX = 40  # rows followed down the dashes past the last row found, at most


def with_dashed_rows(binary: np.ndarray, grid: Grid, dpi: float) -> Grid:
    """A table's rows put on the lines of dashes its broken rules left, a row's height apart
    (within LAST_ROW_MAX):

    - a table found without its rules (by its text or its titles) places its rows by the
      entries' centres and ends its blank rows where it sees nothing: its rows go on the
      dashes when they run from the title row down, as far apart as the first two (one
      entry gives no row height), and hold every row found between two;
    - a ruled table whose lower rules are broken (a faded or badly copied foot) ends where
      its whole rules end: it goes on down the dashes while its column rules, broken too,
      run on between them (a line of the statement below has no column rules); a row of
      it that broken rules inside leave several rows tall is split on them first
      (`_split_by_dashes`).
    """
    if len(grid.ys) < 3:
        return grid
    _, _, lines = _dash_lines(binary, table_span(grid, dpi, DASHED_ROWS_MAX), dpi)
    ruled = grid.method == "rules"
    if ruled:
        grid = _split_by_dashes(binary, _with_dashed_columns(binary, grid, dpi), lines, dpi)
    pitch = float(np.median(np.diff(grid.ys[1:])))
    anchor = grid.ys[-1] if ruled else grid.ys[1]
    start = [y for y in lines if abs(y - anchor) <= 0.5 * pitch]
    if not start:
        return grid
    chain = [min(start, key=lambda y: abs(y - anchor))]  # (the title row's top is near too)
    if not ruled:  # its pitch is the entries' (one entry gives a guess): the dashes' own
        step = [y - chain[0] for y in lines if ROW_MIN_IN * dpi <= y - chain[0] <= ROW_MAX_IN * dpi]
        # not a line halfway down a row, unless the row height was only guessed
        if step and (grid.guessed_pitch or min(step) >= TEXT_PITCH_MIN * pitch):
            pitch = float(min(step))
    while True:
        below = [y for y in lines if abs(y - chain[-1] - pitch) <= (LAST_ROW_MAX - 1) * pitch]
        if not below or (ruled and not _columns_on(binary, grid.xs, chain[-1], below[0], dpi)):
            break
        chain.append(below[0])
    if ruled:
        if len(chain) < 2:
            return grid
        return Grid(grid.xs, (*grid.ys[:-1], *chain), "rules+dashes")
    centres = [(a + b) / 2 for a, b in zip(grid.ys[1:], grid.ys[2:], strict=False)]
    rows = [sum(a < c < b for c in centres) for a, b in zip(chain, chain[1:], strict=False)]
    if len(chain) < 3 or len(chain) < len(grid.ys) - 1 or max(rows) > 1:
        return grid
    return Grid(grid.xs, (grid.ys[0], *chain), grid.method)


# A row split by the dash lines inside it: every piece within this share of the table's row
# height of it.
SPLIT_SLACK = 0.25


def _split_by_dashes(binary: np.ndarray, grid: Grid, lines: Sequence[int], dpi: float) -> Grid:
    """A ruled table whose row rules are broken in places (a faded or badly copied scan)
    keeps only its whole rules, so a found "row" may be several rows: such a row is split on
    the lines of dashes inside it when they cut it into pieces of the table's row height
    (within SPLIT_SLACK; the height is the commonest step between the rules and the dash
    lines together; a line of dashes off that lattice, a stroke of writing, is no cut). Rows
    that no dashes cut evenly stay as they are. The title row is cut
    when the rule under it is broken and it holds the first row too: on the dash line a row's
    height above its foot; and again a row's height above that one while a title row a row
    tall at least is left above it (a degraded copy broke the rules under the first two rows:
    held-out 1121, the title row read with rows 1 and 2 in it, a signer's line lost). The
    last row, when its dashes do not cut it evenly, may end the table on them
    (`_foot_on_dashes`). A row above the last that no dashes cut on the lattice, a whole
    number of rows tall (`_whole_rows`: within 0.15 of a row), is that many rows whose rules
    the scan lost entirely (held-out 9963, a degraded scan of faint, broken rules: three
    signers' lines read as one, the lines below numbered two short), split evenly as
    `_fill_missing_rows` splits the strong rules' rows."""
    near = dpi * NEAR_STRONG_IN / 2
    body = grid.ys[1:]
    inside = [
        y for y in lines if grid.ys[0] < y < body[-1] and min(abs(y - z) for z in grid.ys) > near
    ]
    if not inside:
        return grid
    steps = np.diff(sorted({*body, *(y for y in inside if y > body[0])}))
    steps = steps[steps >= dpi * ROW_MIN_IN]
    if steps.size == 0:
        return grid
    pitch = float(np.median(steps))
    title_cuts: list[int] = []  # from the foot up
    while True:
        foot = title_cuts[-1] if title_cuts else body[0]
        up = [
            y
            for y in inside
            if grid.ys[0] + dpi * ROW_MIN_IN <= y < foot
            and abs(foot - y - pitch) <= SPLIT_SLACK * pitch
        ]
        # (the lowest: the row's top; under a title row a row tall at least, past the first)
        if not up or (title_cuts and max(up) - grid.ys[0] < (1 - SPLIT_SLACK) * pitch):
            break
        title_cuts.append(max(up))
    ys = [grid.ys[0], *title_cuts[::-1], body[0]]
    for a, b in zip(body, body[1:], strict=False):
        cuts = [y for y in inside if a < y < b]
        # (a line of dashes off the rows' lattice is a stroke of writing, not a rule)
        on = [y for y in cuts if _whole_rows(y - a, pitch) and _whole_rows(b - y, pitch)]
        pieces = np.diff([a, *on, b])
        if on and np.all(np.abs(pieces - pitch) <= SPLIT_SLACK * pitch):
            ys += on
        elif not on and b != body[-1] and (k := _whole_rows(b - a, pitch)) >= 2:
            ys += [int(round(a + (b - a) * j / k)) for j in range(1, k)]
        elif b == body[-1] and (ends := _foot_on_dashes(binary, grid.xs, a, b, cuts, pitch, dpi)):
            ys += ends
            break
        ys.append(b)
    if tuple(ys) == grid.ys:
        return grid
    return Grid(grid.xs, tuple(ys), "rules+dashes")


def _foot_on_dashes(
    binary: np.ndarray,
    xs: Sequence[int],
    top: int,
    bottom: int,
    cuts: Sequence[int],
    pitch: float,
    dpi: float,
) -> list[int]:
    """The rules of the rows a ruled table's last "row" (`top` to `bottom`) holds when the
    table ends inside it: the lines of dashes (`cuts`) that follow each other down from its
    top a row's height apart (within SPLIT_SLACK) with the column rules running on between
    them (`_columns_on`), when what is left below the last of them is no row's height and no
    column rule runs into it. A degraded copy that broke a table's lower rules leaves its
    foot to the next long stroke down, the statement's first line smeared into one: the
    "row" holds the table's last rows and the statement's heading (held-out 1121: three
    rows lost, the statement then cut off as a row with them). Empty when the rows do not
    end there."""
    chain = [top]
    while True:
        below = [y for y in cuts if abs(y - chain[-1] - pitch) <= SPLIT_SLACK * pitch]
        if not below or not _columns_on(binary, xs, chain[-1], below[0], dpi):
            break
        chain.append(below[0])
    rest = bottom - chain[-1]
    if len(chain) < 2 or abs(rest - pitch) <= SPLIT_SLACK * pitch:
        return []
    return [] if _columns_on(binary, xs, chain[-1], bottom, dpi) else chain[1:]


# The dashes' row height is at least this share of the one a table found by its text guessed.
TEXT_PITCH_MIN = 0.6
# A broken column rule inks this share of a row's height at least: a badly copied foot's
# leaves a fifth of it or less (0.3 lost such a last row, development c1021); ink beside
# the rule, not its share, tells a line of prose (`_columns_on`).
BROKEN_COLUMN_COVER = 0.15


def _columns_on(binary: np.ndarray, xs: Sequence[int], top: int, bottom: int, dpi: float) -> bool:
    """The table's inner column rules run on, broken or whole, between two lines: at half of
    them at least, ink along the rule covers BROKEN_COLUMN_COVER of the height between, and
    beside it (a tenth of an inch away) on one side under half as much (lines of prose have
    ink everywhere along them; a row's entries start just right of their column's rule)."""
    inner = xs[1:-1]
    pad = max(2, int(dpi * 0.03))
    seg = binary[top + pad : bottom - pad]
    if not inner or seg.shape[0] < 2:
        return False
    band = max(2, int(dpi * 0.015))
    side = int(dpi * 0.1)

    def cover(x: int) -> int:
        if not 0 <= x < seg.shape[1]:
            return 0
        return int(np.count_nonzero(seg[:, max(0, x - band) : x + band + 1].max(axis=1)))

    on = sum(
        cover(x) >= BROKEN_COLUMN_COVER * seg.shape[0]
        and 2 * min(cover(x - side), cover(x + side)) < cover(x)
        for x in inner
    )
    return on * 2 >= len(inner)


# The rule strokes erased lie within this distance (inches) of the grid's lines (a rule's
# thickness, a residual skew across the width).
RULE_BAND_IN = 0.03


def near_rows(mask: np.ndarray, ys: Sequence[int], dpi: float) -> np.ndarray:
    """The mask's pixels within RULE_BAND_IN of the rows `ys`, nothing else."""
    out = np.zeros_like(mask)
    near = max(3, int(dpi * RULE_BAND_IN))
    for y in ys:
        out[max(0, y - near) : y + near + 1] = mask[max(0, y - near) : y + near + 1]
    return out


# The column rules of a table whose title row lost its top rule reach at least this far
# (inches) above its first rule found, and at most TITLE_ROW_MAX_IN.
TITLE_ROW_MIN_IN = 0.15
TITLE_ROW_MAX_IN = 1.2
# A title row none of whose rules was found is guessed this many of the table's rows tall
# (`title_rows_guessed`).
TITLE_ROWS_GUESSED = (1.0, 1.5)


def title_rows_above(
    masks: tuple[np.ndarray, np.ndarray],
    grid: Grid,
    dpi: float,
    binary: np.ndarray | None = None,
) -> list[Grid]:
    """The grid with a title row above its first rule, each way the page shows one: where a
    heavy or broken rule over the titles was not found, the first rule found is the first
    row's top, and the row taken for the title row is the first signature row. The table's top
    is where most of the inner column rules run on to above that rule, dashed or whole (each
    followed up across gaps of DASH_GAP_IN); or the nearest rule above it, too broken to be
    found as one, that still runs across BROKEN_TOP_SHARE of the table's width (its column
    rules broken too). Only candidates, the column rules' first: the reader keeps one when its
    new title row places the columns. A table ruled across only took its columns from the
    writing of the row taken for its title row; given the page's ink (`binary`) they are
    placed again by the new title row's titles (held-out 1115: an upside-down scan whose
    title rule was lost kept three columns, "Date Signed Signer's Signature Residence" one,
    and read none of its nine signed rows)."""
    horiz, vert = masks
    band = max(2, int(dpi * 0.02))
    gap = int(dpi * DASH_GAP_IN)
    first = grid.ys[0]
    tops = []
    for x in grid.xs[1:-1]:
        inked = vert[: first + 1, max(0, x - band) : x + band + 1].max(axis=1) > 0
        y, top = first, None
        while y > 0 and first - y <= dpi * TITLE_ROW_MAX_IN:
            run = inked[max(0, y - gap) : y]
            if not run.any():
                break
            y = max(0, y - gap) + int(np.flatnonzero(run)[0])
            top = y
        if top is not None and first - top >= dpi * TITLE_ROW_MIN_IN:
            tops.append(top)
    found = []
    if len(tops) * 2 >= len(grid.xs) - 2 and len(tops) >= 2:
        found.append(int(np.median(tops)))
    ruled = _broken_rule_above(horiz, grid, dpi)
    if ruled is not None and all(abs(ruled - y) > dpi * RULE_BAND_IN for y in found):
        found.append(ruled)
    return [_retitled(grid, y, horiz, binary, dpi) for y in found]


def title_rows_guessed(
    masks: tuple[np.ndarray, np.ndarray],
    grid: Grid,
    dpi: float,
    binary: np.ndarray | None = None,
) -> list[Grid]:
    """The grid with a title row guessed over its first rule when no rule over or beside the
    titles is left to find it by (`title_rows_above`): one of the table's rows tall (their
    median), then TITLE_ROWS_GUESSED rows (title rows are often taller). Fresh seed 9998: an
    upside-down degraded page of faint, broken rules, every rule over and beside its titles
    lost, the first signer's row taken for the title row and the page read as no table. Only
    candidates: the reader keeps one when its title row places the columns."""
    if len(grid.ys) < 3:
        return []
    pitch = float(np.median(np.diff(grid.ys[1:])))
    tops = [int(round(grid.ys[0] - rows * pitch)) for rows in TITLE_ROWS_GUESSED]
    return [_retitled(grid, y, masks[0], binary, dpi) for y in tops if y > 0]


# Rules over a table's title row that may be lines of the prose above it, smeared into rules.
TITLE_ROWS_BELOW = 2


def title_rows_below(grid: Grid) -> list[Grid]:
    """The grid started at its second rule, then its third (while a title row and a row are
    left): lines of the prose just above a table, smeared by a blurred low-resolution scan
    into long strokes among its broken rules, pass for its first rules, and the row taken for
    its title row holds prose ("I do hereby appoint ...") while the titles sit a row or two
    down (fresh seed 9980, degraded: a nominating petition's signatures table read as no
    table, its ten lines lost to a person's eye). Only candidates: the reader keeps one when
    its title row places the columns."""
    return [
        replace(grid, ys=grid.ys[k:])
        for k in range(1, TITLE_ROWS_BELOW + 1)
        if len(grid.ys) - k >= 3
    ]


def _retitled(
    grid: Grid, top: int, horiz: np.ndarray, binary: np.ndarray | None, dpi: float
) -> Grid:
    """The grid with the title row from `top` to its first rule; a table ruled across only
    with its columns placed by that row's titles where they place them (`title_rows_above`)."""
    ys = (top, *grid.ys)
    if grid.method != "rules+projection" or binary is None:
        return Grid(grid.xs, ys, grid.method)
    left, right = grid.xs[0], grid.xs[-1]
    titled = _titled_columns(
        _without_rules(binary, horiz, ys, left, right, dpi), ys, left, right, dpi
    )
    if titled is None or titled[0] != 0:  # the new row is no title row: the columns as found
        return Grid(grid.xs, ys, grid.method)
    return Grid(tuple(titled[1]), ys, grid.method)


# A rule over the titles broken into pieces still runs across this share of the table.
BROKEN_TOP_SHARE = 0.5


def _broken_rule_above(horiz: np.ndarray, grid: Grid, dpi: float) -> int | None:
    """The nearest row above the grid's first rule (TITLE_ROW_MIN_IN to TITLE_ROW_MAX_IN above
    it) where the horizontal rules' mask covers BROKEN_TOP_SHARE of the table's width: the
    middle of that run of rows, or None."""
    first, (left, right) = grid.ys[0], (grid.xs[0], grid.xs[-1])
    top = max(0, first - int(dpi * TITLE_ROW_MAX_IN))
    bottom = first - int(dpi * TITLE_ROW_MIN_IN)
    if bottom <= top or right <= left:
        return None
    runs = runs_of(rows_across(horiz, (left, top, right, bottom), BROKEN_TOP_SHARE), 2)
    if not runs:
        return None
    a, b = runs[-1]  # the nearest above the first rule
    return top + (a + b) // 2


def _only_rows(mask: np.ndarray, top: int, bottom: int) -> np.ndarray:
    out = np.zeros_like(mask)
    out[max(0, top) : bottom] = mask[max(0, top) : bottom]
    return out


# Two tables one over the other: a gap between rules this many times the rows' usual height.
TABLE_GAP = 2.2


def tables_apart(
    binary: np.ndarray, dpi: float, masks: tuple[np.ndarray, np.ndarray], grid: Grid
) -> list[Grid]:
    """The tables a grid ran together, found again each alone, the lowest first: where a gap
    between its rules is TABLE_GAP times its rows' usual height or more. Two tables ruled
    across only, one over the other (the nominating petition's candidates over its
    signatures), with a heading between them that passes for a rule, are one run of rules and
    no vertical rule tells them apart; the title row of the upper one then names the columns.
    The reader tries these when the whole grid's titles do not place the signatures."""
    ys = grid.ys
    if len(ys) < 5:
        return []
    usual = float(np.median(np.diff(ys[1:])))
    cuts = [
        (a + b) // 2 for a, b in zip(ys[1:], ys[2:], strict=False) if b - a >= TABLE_GAP * usual
    ]
    if not cuts:
        return []
    horiz, vert = masks
    edges = [0, *cuts, horiz.shape[0]]
    out = []
    for top, bottom in reversed(list(zip(edges, edges[1:], strict=False))):
        banded = (_only_rows(horiz, top, bottom), _only_rows(vert, top, bottom))
        part = find_grid(binary, dpi, banded)
        if part is not None and part.ys != grid.ys:
            out.append(part)
    return out


def find_grids(
    binary: np.ndarray,
    dpi: float,
    masks: tuple[np.ndarray, np.ndarray] | None = None,
) -> list[Grid]:
    """Every ruled table on the page, the tallest first: each band of `table_bands` alone.
    Which one holds the signatures is for the reader to tell from the header row's titles."""
    horiz, vert = masks if masks is not None else rule_masks(binary, dpi)
    bands = table_bands(horiz, vert, dpi)
    if len(bands) <= 1:
        grid = find_grid(binary, dpi, (horiz, vert))
        return [grid] if grid is not None else []
    grids: list[Grid] = []
    for top, bottom in bands:
        banded = (_only_rows(horiz, top, bottom), _only_rows(vert, top, bottom))
        grid = find_grid(binary, dpi, banded)
        if grid is None:
            continue
        if grids and _continues(grids[-1], grid, dpi):
            grid = Grid(grids[-1].xs, (*grids[-1].ys, *grid.ys), grids[-1].method)
            grids.pop()
        grids.append(grid)
    return sorted(grids, key=lambda g: g.ys[0] - g.ys[-1])


# Two tables' column rules are the same when each lies this close (inches) to the other's.
SAME_COLUMN_IN = 0.05


def _continues(upper: Grid, lower: Grid, dpi: float) -> bool:
    """The lower table is the upper one's continuation, cut off from it where its column rules
    are broken (a badly copied scan): the same column rules, and its first rule a row's
    height (within LAST_ROW_MAX) below the upper one's last. A second table on the page (the
    nominating petition's candidates above its signatures) has columns of its own."""
    if len(upper.xs) != len(lower.xs) or len(upper.ys) < 3:
        return False
    if any(abs(a - b) > dpi * SAME_COLUMN_IN for a, b in zip(upper.xs, lower.xs, strict=True)):
        return False
    pitch = float(np.median(np.diff(upper.ys[1:])))
    return abs(lower.ys[0] - upper.ys[-1] - pitch) <= (LAST_ROW_MAX - 1) * pitch
