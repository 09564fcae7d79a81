"""A scanned signature table's columns placed: by their printed titles, and by what they hold
when a title does not say.

Titles are placed through the shared vocabulary (`pipeline.columns.place_title`: exact
patterns, then RapidFuzz, so that a title OCR garbled a letter of still places its column).
Besides the statute's fields a table may have (the vocabulary's part roles):

- a line-number column ("No."): it holds no field; the reader checks its rows against it;
- a residence split into "Street and Number" and "Town" (or "City/Village"): both are read
  and joined into the line's residence ("12 Elm St, Maplewood") for matching;
- one cell for the signature and the residence ("Signature and Residence", the 9-902(8) form's
  "Signature-Residence"): the signature written above, the residence printed below it.

A column whose title places nothing is typed by its content (`kind_of_content`): dates, house
numbers and streets, line numbers (`pipeline.columns.role_by_content`), or ink that reads as
no print (signatures). What cannot be placed is said (`Columns.doubts`, the sheet's
`layout_doubts`), and the sheet goes to a person: never a guess.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..columns import PART_ROLES, is_title_word, place_title, role_by_content, role_field

__all__ = [
    "LINE_NO",
    "SIGNATURE_RESIDENCE",
    "STREET",
    "TOWN",
    "Columns",
    "kind_of_content",
    "map_title",
    "place_columns",
    "with_content",
]

LINE_NO = "line_number"
STREET = "street"
TOWN = "town"
SIGNATURE_RESIDENCE = "signature_residence"
assert {LINE_NO, STREET, TOWN, SIGNATURE_RESIDENCE} == set(PART_ROLES)


def _fields_of(kind: str) -> tuple[str, ...]:
    """The line's fields a column of this kind gives (a combined cell gives two)."""
    if kind == SIGNATURE_RESIDENCE:
        return ("signature", "residence")
    field = role_field(kind)
    return () if field is None else (field,)


def map_title(text: str) -> str | None:
    """The column kind (`pipeline.columns` role) a printed title stands for, or None."""
    m = place_title(text)
    return None if m is None else m.role


def kind_of_content(texts: Sequence[tuple[str, float]]) -> str | None:
    """What an untitled column holds, from a few of its inked cells read as print ((text,
    confidence) each): what `pipeline.columns.role_by_content` tells from the text (dates,
    residences, line numbers...), or signatures when every cell is ink that reads as no
    confident print; None when the cells do not say."""
    role = role_by_content([t for t, _ in texts])
    if role is not None:
        return role
    if len(texts) >= 2 and all(conf < UNSURE_PRINT for _, conf in texts):
        return "signature"
    return None


UNSURE_PRINT = 0.6  # a cell read below this is not print (a signature's strokes)


@dataclass(frozen=True, slots=True)
class Columns:
    """The table's columns placed: a kind per grid column (None: nothing the line needs),
    the titles as read, and what could not be placed."""

    kinds: tuple[str | None, ...]
    titles: tuple[str, ...]
    doubts: tuple[str, ...] = ()

    @property
    def fields(self) -> tuple[str, ...]:
        """The statute's fields the table gives, in column order (`Sheet.columns`)."""
        out: list[str] = []
        for kind in self.kinds:
            for name in _fields_of(kind) if kind is not None else ():
                if name not in out:
                    out.append(name)
        return tuple(out)

    def has(self, field: str) -> bool:
        return field in self.fields


def place_columns(titles: Sequence[str]) -> Columns:
    """Kinds for the printed titles. A second column of a kind is not placed (the first
    kept); a combined signature-and-residence column where the residence has its own column
    is read as the signature; a title that places nothing is a doubt unless its column is
    typed by its content later (`with_content`)."""
    titles = _recut(titles)
    kinds: list[str | None] = []
    for title in titles:
        kind = map_title(title)
        if kind in kinds and kind not in (STREET, TOWN):
            kind = None
        kinds.append(kind)
    if SIGNATURE_RESIDENCE in kinds and ("residence" in kinds or STREET in kinds):
        kinds[kinds.index(SIGNATURE_RESIDENCE)] = "signature"
    return _with_doubts(tuple(kinds), tuple(titles))


# A word cut in two by a column boundary this long or longer may have lost a letter to it.
CUT_WORD_SLIP_MIN = 6


def _recut(titles: Sequence[str]) -> tuple[str, ...]:
    """The titles with a column boundary that cut through a word of one moved to that word's
    start. A table ruled across only has its columns parted under titles set close, and the
    cut may fall inside a word: "Village Elec" | "ion District No" (held-out 1139, 1123), read
    as cut, placed the village's column as the district and the district's, a second one, as
    nothing. Where a title ends in the start of a word and its right neighbour begins with the
    rest, neither part a title word and the two together one (give or take a letter the
    boundary took, in a word of CUT_WORD_SLIP_MIN letters or more), the word goes whole to
    the right when both titles then place a column, the right one a kind no other title
    places (a cut inside one title, "Date of Sig" | "nature", makes no second signature)."""
    out = list(titles)
    for k in range(1, len(out)):
        left, right = out[k - 1].split(), out[k].split()
        if len(left) < 2 or not right:
            continue
        start, rest = left[-1], right[0]
        # (a letter under the boundary may be lost to both: "Elec" | "ion")
        slip = int(len(start + rest) >= CUT_WORD_SLIP_MIN)
        if is_title_word(start) or is_title_word(rest) or not is_title_word(start + rest, slip):
            continue
        head, joined = " ".join(left[:-1]), " ".join([start + rest, *right[1:]])
        kind = map_title(joined)
        others = {map_title(t) for j, t in enumerate(out) if j not in (k - 1, k)}
        if map_title(head) is not None and kind is not None and kind not in others:
            out[k - 1], out[k] = head, joined
    return tuple(out)


def with_content(columns: Columns, col: int, kind: str | None) -> Columns:
    """The columns with an untitled (or unplaced) column's kind found from its content; not
    a kind whose fields other columns give already (ink in a second column is no second
    signature where a "Signature and Residence" column gives it)."""
    if kind is None or kind in columns.kinds or columns.kinds[col] is not None:
        return columns
    given = _fields_of(kind)
    if given and all(columns.has(field) for field in given):
        return columns
    kinds = list(columns.kinds)
    kinds[col] = kind
    return _with_doubts(tuple(kinds), columns.titles)


def _with_doubts(kinds: tuple[str | None, ...], titles: tuple[str, ...]) -> Columns:
    doubts = []
    for kind, title in zip(kinds, titles, strict=True):
        shown = " ".join(title.split())
        if kind is None and shown:
            doubts.append(f"a column titled {shown!r} could not be placed")
    fields = Columns(kinds, titles).fields
    if "signature" in fields and "residence" not in fields:
        doubts.append("no residence column was found")
    if TOWN in kinds and STREET not in kinds and "residence" not in kinds:
        doubts.append("a town column was found without its street and number")
    return Columns(kinds, titles, tuple(doubts))
