"""The signature table of a born-digital page, found from the page's structure: its column
titles, its rules (a full grid, horizontal rules only, or none) and its text rows.

    table = find_table(words, rules, stop)   # a TextTable, or None
    cells = table.cells(words, objects)      # per row, per column: the words and drawn ink

1. The title row: a band of text lines (a title may take several lines) whose blocks of words
   place, through the shared vocabulary (`pipeline.columns.place_title`), at least a date and a
   signature column. The topmost such band is the table's.
2. The columns: between the table's vertical rules when it has them; else between the titles,
   at the gap the entries leave (a column's entries start at its left edge).
3. The rows: between the horizontal rules below the titles when there are any; else on a
   lattice fitted to the printed line numbers (down to the last number), or to the entries'
   text lines down to the last entry: the blank rows under it are marked by nothing on the
   page, so none is guessed. The table says what it doubts (`doubts`): entries that do not
   keep to one spacing, or something drawn between its last row and the statement (a
   signature pasted or drawn in a row with no typed entry) that no row holds.

Pure geometry on pdfplumber's word and object dicts (x0, x1, top, bottom in points, y down); it
knows nothing of the statute, the statement or the fields' meaning beyond the column roles.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .columns import TitleMatch, place_title
from .forms import find_sheet_number

__all__ = [
    "UNMARKED_ROWS",
    "Cell",
    "Rule",
    "TextTable",
    "find_table",
    "merged",
    "rules_of",
    "text_lines",
]

Obj = Mapping[str, Any]

LINE_TOL = 3.0  # words whose tops differ by no more than this are on one text line
TITLE_LEADING = 11.5  # a title's lines are no further apart than this (body text: 12 pt)
WORD_GAP = 5.0  # words of one title closer than this along a line belong together
# A word this far from the one before it may start an entry; nearer, it goes on the entry
# ("September 21, 2026" is one date, not a date and a signature).
ENTRY_APART = 8.0
MIN_ROW = 10.0  # rules closer than this do not make a row (a double rule)
DEFAULT_ROW = 16.0  # a table without rules: the least and the most a row's height is taken as
MAX_ROW = 60.0
# The doubt of a table without rules that ends at its last entry or number with something
# drawn below it, above the statement.
UNMARKED_ROWS = (
    "something is drawn below the last row of a table without rules, above the statement:"
    " it may be in a row that nothing on the page marks"
)


@dataclass(frozen=True, slots=True)
class Rule:
    """A straight rule: horizontal (`y` its height, x0..x1 its extent) or vertical."""

    horizontal: bool
    pos: float  # y of a horizontal rule, x of a vertical one
    lo: float  # its extent along the other axis
    hi: float


@dataclass(frozen=True, slots=True)
class Block:
    """A column title: its words' text, its box, and what it places."""

    text: str
    x0: float
    x1: float
    top: float
    bottom: float
    match: TitleMatch | None

    @property
    def center(self) -> float:
        return (self.x0 + self.x1) / 2


@dataclass(frozen=True, slots=True)
class Cell:
    words: tuple[Obj, ...]
    ink: tuple[Obj, ...]  # images and strokes drawn in the cell
    box: tuple[float, float, float, float]  # x0, top, x1, bottom

    @property
    def text(self) -> str:
        return " ".join(w["text"] for line in text_lines(self.words) for w in line)


@dataclass(frozen=True, slots=True)
class TextTable:
    titles: tuple[str, ...]  # per column, as printed
    roles: tuple[str | None, ...]  # per column (None: not placed by its title)
    xs: tuple[float, ...]  # column bounds, len(roles) + 1 (outer ones may be infinite)
    rows: tuple[tuple[float, float], ...]  # (top, bottom) of each row under the titles
    top: float  # the title band's top
    ruled_rows: bool  # rows from horizontal rules (else fitted to the text)
    ruled_columns: bool
    doubts: tuple[str, ...] = ()

    @property
    def bottom(self) -> float:
        return self.rows[-1][1] if self.rows else self.top

    def cells(self, words: Sequence[Obj], objects: Sequence[Obj]) -> list[list[Cell]]:
        """Per row, per column: the words that start in the cell (so a signature running over
        its right edge stays its own) and the ink objects whose centre lies in it."""
        out: list[list[Cell]] = []
        for top, bottom in self.rows:
            row_words = [w for w in words if top <= (w["top"] + w["bottom"]) / 2 < bottom]
            row_ink = [o for o in objects if top <= (o["top"] + o["bottom"]) / 2 < bottom]
            column = self._columns_of(row_words)
            cells = []
            for k in range(len(self.roles)):
                x0, x1 = self.xs[k], self.xs[k + 1]
                cw = tuple(w for w in row_words if column[id(w)] == k)
                ci = tuple(o for o in row_ink if x0 <= (o["x0"] + o["x1"]) / 2 < x1)
                box = (
                    x0 if x0 > -1e8 else min((w["x0"] for w in cw), default=0.0),
                    top,
                    x1 if x1 < 1e8 else max((w["x1"] for w in cw), default=0.0),
                    bottom,
                )
                cells.append(Cell(cw, ci, box))
            out.append(cells)
        return out

    def _columns_of(self, row_words: Sequence[Obj]) -> dict[int, int]:
        """Each word's column: the one it starts in, or, for a word that goes on the entry to
        its left (a signature running over its cell: the same pen and size, a word space
        away) and is unlike the cell's own entry, that entry's."""

        def start_column(w: Obj) -> int:
            return next(
                (i for i in range(len(self.roles)) if w["x0"] < self.xs[i + 1] - 1),
                len(self.roles) - 1,
            )

        def pen(w: Obj) -> tuple[Any, float]:
            return w.get("fontname"), round(float(w.get("size", 0.0)), 1)

        column = {id(w): start_column(w) for w in row_words}
        for w in sorted(row_words, key=lambda w: w["x0"]):
            k = column[id(w)]
            if k == 0 or self.roles[k - 1] not in ("signature", "signature_residence"):
                continue  # only a signature runs over its cell
            left = [
                p
                for p in row_words
                if column[id(p)] == k - 1 and p["x1"] <= w["x0"] + 1 and pen(p) == pen(w)
            ]
            if not left:
                continue
            prev = max(left, key=lambda p: p["x1"])
            own = [o for o in row_words if column[id(o)] == k and o is not w]
            if w["x0"] - prev["x1"] <= float(w.get("size", 8.0)) and all(
                pen(o) != pen(w) for o in own
            ):
                column[id(w)] = k - 1
        return column


def text_lines(words: Iterable[Obj], tol: float = LINE_TOL) -> list[list[Obj]]:
    """Words grouped into text lines by their vertical middles (a word written larger or a
    little higher than the printed words beside it stays on their line), each left to right."""
    groups: list[list[Obj]] = []
    middles: list[float] = []
    for w in sorted(words, key=lambda w: ((w["top"] + w["bottom"]) / 2, w["x0"])):
        mid = (w["top"] + w["bottom"]) / 2
        if groups and abs(middles[-1] - mid) <= tol:
            groups[-1].append(w)
            middles[-1] = sum((g["top"] + g["bottom"]) / 2 for g in groups[-1]) / len(groups[-1])
        else:
            groups.append([w])
            middles.append(mid)
    return [sorted(g, key=lambda w: w["x0"]) for g in groups]


def rules_of(lines: Iterable[Obj], rects: Iterable[Obj]) -> list[Rule]:
    """The page's straight rules: its line segments and thin rectangles (a filled box's edges
    are where its rules are drawn too, so a shaded title row adds nothing new)."""
    out = []
    for o in list(lines) + list(rects):
        w, h = o["x1"] - o["x0"], o["bottom"] - o["top"]
        if h <= 2.5 and w > 6:
            out.append(Rule(True, (o["top"] + o["bottom"]) / 2, o["x0"], o["x1"]))
        elif w <= 2.5 and h > 6:
            out.append(Rule(False, (o["x0"] + o["x1"]) / 2, o["top"], o["bottom"]))
        elif w > 6 and h > 6 and o.get("object_type") == "rect":
            out += [
                Rule(True, o["top"], o["x0"], o["x1"]),
                Rule(True, o["bottom"], o["x0"], o["x1"]),
                Rule(False, o["x0"], o["top"], o["bottom"]),
                Rule(False, o["x1"], o["top"], o["bottom"]),
            ]
    return merged(out)


def merged(rules: Iterable[Rule]) -> list[Rule]:
    """Rules on one line joined where they meet (a table drawn cell by cell as boxes)."""
    out: list[Rule] = []
    for r in sorted(rules, key=lambda r: (r.horizontal, round(r.pos), r.lo)):
        last = out[-1] if out else None
        if (
            last is not None
            and last.horizontal == r.horizontal
            and abs(last.pos - r.pos) <= 1.5
            and r.lo <= last.hi + 2
        ):
            out[-1] = Rule(r.horizontal, last.pos, last.lo, max(last.hi, r.hi))
        else:
            out.append(r)
    return out


def _cluster(values: Iterable[float], tol: float) -> list[float]:
    out: list[list[float]] = []
    for v in sorted(values):
        if out and v - out[-1][-1] <= tol:
            out[-1].append(v)
        else:
            out.append([v])
    return [sum(c) / len(c) for c in out]


def _blocks(band: Sequence[Sequence[Obj]]) -> list[Block]:
    """The titles in a band of text lines: words joined along a line when close, and across
    lines when one stands over the other."""
    words = [w for line in band for w in line]
    parent = list(range(len(words)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    index = {id(w): i for i, w in enumerate(words)}
    for line in band:
        for a, b in zip(line, line[1:], strict=False):
            if b["x0"] - a["x1"] <= WORD_GAP:
                parent[find(index[id(b)])] = find(index[id(a)])
    for i, a in enumerate(words):  # one over the other, a title line's leading apart
        for b in words[i + 1 :]:
            near = 0 < abs(b["top"] - a["top"]) <= TITLE_LEADING
            if near and a["x0"] <= b["x1"] + 2 and b["x0"] <= a["x1"] + 2:
                parent[find(index[id(b)])] = find(index[id(a)])
    groups: dict[int, list[Obj]] = {}
    for i, w in enumerate(words):
        groups.setdefault(find(i), []).append(w)
    blocks = []
    for ws in groups.values():
        block = _block(ws)
        blocks += [block] if block.match is not None else _parted(ws) or [block]
    return sorted(blocks, key=lambda b: b.x0)


def _block(words: Sequence[Obj]) -> Block:
    text = " ".join(w["text"] for line in text_lines(words) for w in line)
    return Block(
        text,
        min(w["x0"] for w in words),
        max(w["x1"] for w in words),
        min(w["top"] for w in words),
        max(w["bottom"] for w in words),
        place_title(text),
    )


# Where a word may be two run together: a small letter before a capital ("CityElection").
_RUN_TOGETHER = re.compile(r"(?<=[a-z.])(?=[A-Z])")


def _parted(words: Sequence[Obj]) -> list[Block]:
    """A title that places nothing parted in two that each place: two titles set so close that
    their words joined ("Town or City" and "Election District No.", a title wider than its
    column, even in one word, "CityElection"). Parted at an x where a word ends or where a
    word runs two together (its place by its characters' share); [] when no part gives two
    placed titles."""
    pieces: list[Obj] = []
    for w in words:
        cuts = [m.start() for m in _RUN_TOGETHER.finditer(w["text"])]
        if not cuts:
            pieces.append(w)
            continue
        per = (w["x1"] - w["x0"]) / max(1, len(w["text"]))
        for a, b in zip([0, *cuts], [*cuts, len(w["text"])], strict=True):
            part = {"text": w["text"][a:b], "x0": w["x0"] + a * per, "x1": w["x0"] + b * per}
            pieces.append({**w, **part})
    for x in sorted({p["x1"] for p in pieces})[:-1]:
        left = [p for p in pieces if p["x1"] <= x]
        right = [p for p in pieces if p["x0"] >= x]
        if len(left) + len(right) < len(pieces):
            continue  # a word of another line runs across x
        parts = [_block(left), _block(right)]
        joined = _JOINS_LEFT.search(parts[0].text) or _JOINS_RIGHT.match(parts[1].text)
        if not joined and all(b.match is not None for b in parts):
            return parts
    return []


# A word that joins one title's parts ("Name and Address", "Signature of Voter", "Residence
# (Town)"): a title is not parted beside one, at the end of its left part or the start of its
# right.
_JOINS_LEFT = re.compile(r"(\b(and|or|of|with)|[&/,-])\s*$", re.I)
_JOINS_RIGHT = re.compile(r"\s*(\(|(and|or|of|with)\b|[&/,-])", re.I)


def _title_band(lines: Sequence[Sequence[Obj]]) -> list[Block] | None:
    """The topmost band of lines whose titles place a date and a signature."""
    for i in range(len(lines)):
        band = [lines[i]]
        for line in lines[i + 1 : i + 4]:
            if line[0]["top"] - band[-1][0]["top"] > TITLE_LEADING:
                break
            band.append(line)
        blocks = _blocks(band)
        roles = {b.match.role for b in blocks if b.match is not None}
        if "date" in roles and roles & {"signature", "signature_residence"}:
            # Keep only the band's lines down to the last that holds a placed title.
            return blocks
    return None


def _row_rules(
    rules: Sequence[Rule], left: float, right: float, header_bottom: float, stop: float
) -> list[float]:
    """Heights of the horizontal rules that cross the table (most of the titles' width), from
    the one under the titles down, while they keep a row's spacing."""
    width = right - left
    ys = _cluster(
        (
            r.pos
            for r in rules
            if r.horizontal
            and min(r.hi, right) - max(r.lo, left) >= 0.6 * width
            and header_bottom - 1 <= r.pos < stop
        ),
        2.0,
    )
    out: list[float] = []
    for y in ys:
        if out and y - out[-1] < MIN_ROW:
            continue
        out.append(y)
    return out


def _column_rules(
    rules: Sequence[Rule], top: float, bottom: float, left: float, right: float
) -> list[float]:
    """x of the vertical rules through the title band, within the table's reach."""
    return _cluster(
        (
            r.pos
            for r in rules
            if not r.horizontal and r.lo <= bottom and r.hi >= top and left <= r.pos <= right
        ),
        2.0,
    )


def _gap_bounds(blocks: Sequence[Block], body: Sequence[Obj]) -> list[float]:
    """Bounds between adjacent titles, from the entries: a column's entries start at its left
    edge, so the bound is where many entries start just right of it, standing apart from the
    words before them, and few cross it (a signature running over); midway between the titles
    when the entries say nothing (none, or only drawn signatures)."""
    # How far each word stands from the word before it on its line: an entry's first word
    # stands apart, a word inside an entry a word space from the last.
    apart: dict[int, float] = {}
    for line in text_lines(body):
        for prev, w in zip([None, *line], line, strict=False):
            apart[id(w)] = 30.0 if prev is None else min(30.0, w["x0"] - prev["x1"])
    bounds = []
    for a, b in zip(blocks, blocks[1:], strict=False):
        lo, hi = a.x1, b.center
        near = [w for w in body if w["x1"] > lo and w["x0"] < hi + 8]
        if hi <= lo or not near:
            bounds.append((a.x1 + b.x0) / 2)
            continue
        middle = (a.x1 + b.x0) / 2
        best, best_score = middle, None
        x = lo
        while x <= hi:
            starts = sum(
                apart[id(w)] / 10
                for w in near
                if x <= w["x0"] <= x + 8 and apart[id(w)] >= ENTRY_APART
            )
            crossing = sum(1 for w in near if w["x0"] < x < w["x1"])
            score = (starts - 3 * crossing, -abs(x - middle))  # no evidence: midway
            if best_score is None or score > best_score:
                best, best_score = x, score
            x += 0.5
        bounds.append(best)
    return bounds


def _lattice(
    centers: Sequence[float], after: float, title_middle: float
) -> tuple[list[tuple[float, float]], bool]:
    """Rows on one spacing through text-line centres (the entries', or the printed line
    numbers'), down to the last centre, and whether every centre keeps to it. One entry alone
    gives no spacing: its distance from the title row's middle is taken as a row's (half the
    title row and half the first row). The blank rows below the last centre are not guessed
    from the gap down to the statement (the statement's own spacing fills it too)."""
    centers = sorted(centers)
    first = centers[0]
    steps = [b - a for a, b in zip(centers, centers[1:], strict=False) if b - a >= MIN_ROW]
    if not steps:
        pitch = min(max(DEFAULT_ROW, first - title_middle), MAX_ROW)
    else:
        pitch = min(statistics.median(steps), min(steps) * 1.6)
    n = round((centers[-1] - first) / pitch) + 1
    rows = [(max(after, first + (k - 0.5) * pitch), first + (k + 0.5) * pitch) for k in range(n)]
    regular = all(abs((c - first) / pitch - round((c - first) / pitch)) <= 0.3 for c in centers)
    return rows, regular


def _drawn_between(
    objects: Sequence[Obj], top: float, bottom: float, left: float, right: float
) -> bool:
    """Something drawn (a word, an image, a vector path) with its middle between `top` and
    `bottom` and across the table's columns, from `left` to `right`."""
    return any(
        top < (o["top"] + o["bottom"]) / 2 < bottom and o["x1"] > left and o["x0"] < right
        for o in objects
    )


def find_table(
    words: Sequence[Obj], rules: Sequence[Rule], stop: float, drawn: Sequence[Obj] = ()
) -> TextTable | None:
    """The signature table among the page's words (pdfplumber `extract_words`) and rules
    (`rules_of`), above `stop` (the top of the statement below it, or the page's foot);
    `drawn`: the page's images and vector paths (a table without rules is doubted when one
    lies below its last row)."""
    lines = text_lines(w for w in words if w["bottom"] <= stop)
    blocks = _title_band(lines)
    if blocks is None:
        return None
    band_top = min(b.top for b in blocks)
    band_bottom = max(b.bottom for b in blocks)
    placed = [b for b in blocks if b.match is not None]
    left, right = min(b.x0 for b in placed), max(b.x1 for b in placed)
    doubts: list[str] = []

    # Rows first where rules give them: a body's extent bounds the columns' evidence.
    row_ys = _row_rules(rules, left, right, band_bottom, stop)
    ruled_rows = len(row_ys) >= 2
    body_bottom = row_ys[-1] if ruled_rows else stop
    body = [w for w in words if band_bottom < w["top"] and w["bottom"] <= body_bottom]

    # Columns: the vertical rules through the titles, as far as the row rules reach.
    reach = (left - 150, right + 150)
    if ruled_rows:
        spans = [r for r in rules if r.horizontal and abs(r.pos - row_ys[0]) <= 2 and r.hi > left]
        if spans:
            reach = (min(r.lo for r in spans) - 2, max(r.hi for r in spans) + 2)
    vxs = _column_rules(rules, band_top, band_bottom, *reach)
    titles: list[str] = []
    roles: list[str | None] = []
    if len(vxs) >= 3:
        xs = list(vxs)
        for x0, x1 in zip(xs, xs[1:], strict=False):
            inside = [b for b in blocks if x0 <= b.center < x1]
            titles.append(" ".join(b.text for b in inside))
            m = place_title(titles[-1]) if inside else None
            roles.append(None if m is None else m.role)
        ruled_columns = True
    else:
        kept = [b for b in blocks if b.match is not None or b.x0 >= left - 60]
        bounds = _gap_bounds(kept, body)
        xs = [float("-inf"), *bounds, float("inf")]
        titles = [b.text for b in kept]
        roles = [None if b.match is None else b.match.role for b in kept]
        ruled_columns = False

    # Rows.
    if ruled_rows:
        rows = list(zip(row_ys, row_ys[1:], strict=False))
    else:
        numbers = [
            w
            for w in body
            if "line_number" in roles
            and _in_column(w, xs, roles.index("line_number"))
            and w["text"].rstrip(".").isdigit()
        ]
        stop = min(stop, _paragraph_top(body, right - left))
        body = [w for w in body if w["bottom"] <= stop]
        source = numbers if len(numbers) >= 2 else body
        centers = _cluster(((w["top"] + w["bottom"]) / 2 for w in source), 5.0)
        if not centers:
            return TextTable(
                tuple(titles),
                tuple(roles),
                tuple(xs),
                (),
                band_top,
                False,
                ruled_columns,
                ("a table of titles with no rows under them",),
            )
        title_middle = statistics.median((b.top + b.bottom) / 2 for b in placed)
        rows, regular = _lattice(centers, band_bottom, title_middle)
        if not regular:
            doubts.append("the entries do not keep to the rows' spacing (a table without rules)")
        if _drawn_between([*body, *drawn], rows[-1][1], stop, left, right):
            doubts.append(UNMARKED_ROWS)
    return TextTable(
        tuple(titles),
        tuple(roles),
        tuple(xs),
        tuple(rows),
        band_top,
        ruled_rows,
        ruled_columns,
        tuple(doubts),
    )


def _paragraph_top(body: Sequence[Obj], width: float) -> float:
    """The top of the first line of running text under a table without rules (a statement in
    other wording, a note): many words a word space apart across most of the table, which no
    row of entries is (its columns stand apart); or a sheet-number caption."""
    for line in text_lines(body):
        gaps = [b["x0"] - a["x1"] for a, b in zip(line, line[1:], strict=False)]
        wide = line[-1]["x1"] - line[0]["x0"] > 0.5 * width
        caption = find_sheet_number(" ".join(w["text"] for w in line)) is not None
        if caption or (len(line) >= 8 and max(gaps) < 8 and wide):
            return min(w["top"] for w in line)
    return float("inf")


def _in_column(w: Obj, xs: Sequence[float], k: int) -> bool:
    return xs[k] - 1 <= w["x0"] < xs[k + 1] - 1
