"""A signature table's columns placed: by their printed titles, and by what they hold when a
title does not say.

Titles are matched to a vocabulary (the shared `pipeline.columns.map_header`, then the
variants print shops use, then the closest of them by RapidFuzz ratio, so that a title OCR
garbled a letter of still places its column). Besides the statute's fields a table may have:

- a line-number column ("No."): it holds no field; the reader checks its rows against it;
- a residence split into "Street and Number" and "Town" (or "City/Village"): both are read
  and joined into the line's residence ("12 Elm St, Maplewood") for matching;
- one cell for the signature and the residence ("Signature and Residence", the 9-902(8) form's
  "Signature-Residence"): the signature written above, the residence printed below it.

A column whose title places nothing is typed by its content (`kind_of_content`): a column of
dates, of house numbers and streets, of ink that reads as no print (signatures). What cannot be
placed is said (`Columns.doubts`), and the sheet goes to a person: never a guess.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz
from rapidfuzz import process as rf_process

from ..columns import map_header, normalize_header

__all__ = [
    "LINE_NO",
    "SIGNATURE_RESIDENCE",
    "STREET",
    "TOWN",
    "Columns",
    "kind_of_content",
    "map_title",
    "place_columns",
]

LINE_NO = "line_no"
STREET = "street"
TOWN = "town"
SIGNATURE_RESIDENCE = "signature_residence"

# Printed titles (normalized as `normalize_header` does) -> column kind; tried before the
# shared vocabulary (which reads a combined "Signature-Residence" as the signature only).
KNOWN_TITLES: dict[str, str] = {
    "no": LINE_NO,
    "no.": LINE_NO,
    "line": LINE_NO,
    "line no": LINE_NO,
    "#": LINE_NO,
    "date": "date",
    "date of signing": "date",
    "date signed": "date",
    "signature": "signature",
    "sign here": "signature",
    "signature of signer": "signature",
    "signature of elector": "signature",
    "signature of voter": "signature",
    "signature of petitioner": "signature",
    "signature-residence": SIGNATURE_RESIDENCE,
    "signature and residence": SIGNATURE_RESIDENCE,
    "signature and address": SIGNATURE_RESIDENCE,
    "signature & residence": SIGNATURE_RESIDENCE,
    "signature and residence address": SIGNATURE_RESIDENCE,
    "printed name": "name",
    "print name": "name",
    "name printed": "name",
    "name": "name",
    "name of signer": "name",
    "residence": "residence",
    "residence address": "residence",
    "residence street and number": "residence",
    "present residence": "residence",
    "address": "residence",
    "street and number": STREET,
    "street address": STREET,
    "number and street": STREET,
    "street": STREET,
    "town": TOWN,
    "city/village": TOWN,
    "city or village": TOWN,
    "city/town": TOWN,
    "village": TOWN,
    "city": TOWN,
    "town or city": TOWN,
    "ward": "ward",
    "ward if any": "ward",
    "election district": "election_district",
    "village election district if any": "election_district",
    "village election district": "election_district",
    "e d": "election_district",
    "ed": "election_district",
    "assessed valuation": "valuation",
}
TITLE_MATCH = 80.0
# A column's kind stands for these statute fields on the line.
FIELDS_OF: dict[str, tuple[str, ...]] = {
    STREET: ("residence",),
    TOWN: ("residence",),
    SIGNATURE_RESIDENCE: ("signature", "residence"),
    LINE_NO: (),
}


def map_title(text: str) -> str | None:
    """The column kind a printed title stands for, or None."""
    norm = normalize_header(text or "").replace(" / ", "/")
    if not norm:
        return None
    kind = KNOWN_TITLES.get(norm) or map_header(text)
    if kind is not None:
        return kind
    best = rf_process.extractOne(norm, list(KNOWN_TITLES), scorer=fuzz.ratio)
    if best is not None and best[1] >= TITLE_MATCH:
        return KNOWN_TITLES[best[0]]
    return None


_DATE = re.compile(r"^\s*\d{1,2}\s*[/.-]\s*\d{1,2}\s*[/.-]\s*\d{2,4}\s*$")
_ADDRESS = re.compile(r"^\s*\d+[A-Za-z]?\s+[A-Za-z]")
_SMALL_NUMBER = re.compile(r"^\s*\d{1,2}\s*$")


def kind_of_content(texts: Sequence[tuple[str, float]]) -> str | None:
    """What a column holds, from a few of its inked cells read as print ((text, confidence)
    each): dates, residences (a house number and a street) or signatures (ink that reads as
    no confident print); None when the cells do not agree on one of them (a column of small
    numbers may be a ward or an election district: not guessed)."""
    if not texts:
        return None
    kinds = []
    for text, conf in texts:
        if _DATE.match(text):
            kinds.append("date")
        elif _ADDRESS.match(text) and conf >= 0.6:
            kinds.append("residence")
        elif _SMALL_NUMBER.match(text):
            kinds.append("number")
        elif conf < 0.6 or not text.strip():
            kinds.append("signature")
        else:
            kinds.append("text")
    kind = kinds[0]
    if kind in ("number", "text") or any(k != kind for k in kinds):
        return None
    return kind


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
            for name in FIELDS_OF.get(kind, (kind,)) if kind is not None else ():
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
    kinds: list[str | None] = []
    for title in titles:
        kind = map_title(title)
        if kind in kinds and kind not in (STREET, TOWN):
            kind = None
        kinds.append(kind)
    if SIGNATURE_RESIDENCE in kinds and ("residence" in kinds or STREET in kinds):
        kinds[kinds.index(SIGNATURE_RESIDENCE)] = "signature"
    return _with_doubts(tuple(kinds), tuple(titles))


def with_content(columns: Columns, col: int, kind: str | None) -> Columns:
    """The columns with an untitled (or unplaced) column's kind found from its content."""
    if kind is None or kind in columns.kinds or columns.kinds[col] is not None:
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
