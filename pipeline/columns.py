"""The columns of a signature table: what a printed column title stands for, and what a column's
content looks like. Shared by the text-layer reader (pipeline/textlayer.py) and the scan reader
(pipeline/scan/), so this module knows nothing of PDFs or images.

Village Law § 9-902(8) requires "the correct date of signing, the full name of the signer, his
present residence, the ward if any and the village election district if any"; its statutory
form prints the columns Date | Signature-Residence | Ward if any | Village Election District if
any. Print shops set the same form in many ways, so a column is placed by its title through one
vocabulary (`COLUMN_TITLES`), exactly (`HEADER_PATTERNS`) or, for a title set or read a little
differently, by fuzzy matching (RapidFuzz), and where the title says nothing, by its content
(`role_by_content`).

A column has a *role*: one of the line's fields (`records.FIELD_NAMES`), or a part of one:

- `street` and `town`: the residence split over two columns ("Street and Number" | "Town" or
  "City/Village"); `join_parts` joins them into the line's `residence` for matching;
- `signature_residence`: the statute's combined column, the signature above and the residence
  below in one cell; read, it gives the line's `signature` and `residence`;
- `line_number`: the printed "No." column, which checks the rows and is no field of the line.

API: `place_title(text) -> TitleMatch | None`; `map_header(text) -> field | None` (the field a
title's role fills); `role_field(role)`; `join_parts({role: text}) -> {field: text}`;
`role_by_content(texts) -> role | None`; `NEEDED_FIELDS`: the fields without which a line
cannot be judged, so a table whose columns do not give them is not placed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from rapidfuzz import fuzz
from rapidfuzz import process as rf_process
from rapidfuzz.distance import Levenshtein

from .records import FIELD_NAMES

__all__ = [
    "COLUMN_TITLES",
    "FUZZY_TITLE_SCORE",
    "HEADER_PATTERNS",
    "NEEDED_FIELDS",
    "PART_ROLES",
    "ROLES",
    "TitleMatch",
    "is_title_word",
    "join_parts",
    "map_header",
    "normalize_header",
    "place_title",
    "role_by_content",
    "role_field",
]

# Roles that are a part of a field or no field at all, with the field they fill (None: none).
PART_ROLES: dict[str, str | None] = {
    "street": "residence",
    "town": "residence",
    "signature_residence": "signature",
    "line_number": None,
}
ROLES: tuple[str, ...] = FIELD_NAMES + tuple(PART_ROLES)
# A table gives a judgeable line only with these (a date and a signature on every kind).
NEEDED_FIELDS = ("date", "signature")

# The places a town column may name, alone or several ("Town or City", "City, Town or Village").
_PLACE = r"(town|city|village|municipality|hamlet|post office)"
# Whom a signature or a printed name is of ("Signature of Registered Voter", "Name of Owner").
_WHO = r"((the )?(registered |qualified |property )?(signer|elector|voter|owner|petitioner))"

# (pattern over the normalized title, its abbreviations spelled out (`_spelled`), role). Order
# matters: the more specific patterns come first ("Signature and Residence" before
# "Residence", "Street and Number" before "Number", "Election District" before "No.").
HEADER_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(p), f)
    for p, f in (
        (r"^signature\s*[-/&]?\s*(and\s+)?(residence|address)$", "signature_residence"),
        (
            r"^(date|date signed|date of signing|signing date|date of signature)"
            r"( mo/day/yr| month/day/year| mm/dd/yy(yy)?)?$",
            "date",
        ),
        (
            rf"^({_WHO}'?s? )?signatures?( of {_WHO})?$|^sign here$",
            "signature",
        ),
        (
            rf"^((printed|print|full|print your) )?name( printed| print)?( of {_WHO})?$|"
            r"^name of signer printed$",
            "name",
        ),
        (
            r"^(street (and|&) (house )?number|(house )?number (and|&) street|street address|"
            r"street)$",
            "street",
        ),
        (rf"^{_PLACE}(( or |/| ){_PLACE})*$", "town"),
        (
            r"^((present|home|full|place of|post office) )?(residence|address)( address)?"
            r"([ -]street (and|&) number|[ -]number (and|&) street| where registered)?$",
            "residence",
        ),
        (r"^ward( if any)?( number)?( if any)?$", "ward"),
        (
            r"^((village |town )?(election )?district|e ?d)( if any)?( number)?( if any)?$",
            "election_district",
        ),
        (r"^(amount of )?(assessed )?(valuation|value)( credited)?( of property)?$", "valuation"),
        (r"^(number|line|line number)$", "line_number"),
    )
)
# Abbreviations spelled out before the patterns and the fuzzy match ("Elec. Dist. No." is
# "election district number"; "Street & No." is "street and number"; "ED #" is "e d number").
_ABBREVIATIONS = {
    "dist": "district",
    "distr": "district",
    "elec": "election",
    "elect": "election",
    "wd": "ward",
    "vill": "village",
    "vil": "village",
    "res": "residence",
    "resid": "residence",
    "addr": "address",
    "sig": "signature",
    "no": "number",
    "nbr": "number",
    "num": "number",
    "#": "number",
    "&": "and",
    "st": "street",
    "str": "street",
    "ed": "e d",
}

# The vocabulary: the titles printed forms use, normalized and spelled out, per role. The
# fuzzy fallback compares a title with these; the synthetic corpus prints these and others (its
# held-out families use spellings not listed here, which is what the fuzzy match is for).
COLUMN_TITLES: dict[str, tuple[str, ...]] = {
    "date": ("date", "date of signing", "date signed", "date of signature"),
    "signature": (
        "signature",
        "signature of signer",
        "signature of elector",
        "signature of voter",
        "signature of registered voter",
        "signature of owner",
        "sign here",
    ),
    "name": ("printed name", "print name", "name printed", "name", "full name", "name of signer"),
    "residence": (
        "residence",
        "residence address",
        "address",
        "present residence",
        "residence street and number",
        "home address",
        "place of residence",
        "residence where registered",
    ),
    "street": ("street and number", "street address", "house number and street"),
    "town": ("town", "city/village", "town or city", "village"),
    "ward": ("ward", "ward if any"),
    "election_district": ("election district", "village election district if any", "e d"),
    "valuation": ("assessed valuation", "amount of assessed valuation"),
    "signature_residence": ("signature and residence", "signature-residence"),
    "line_number": ("number", "line number"),
}
# Every title here is one `HEADER_PATTERNS` gives the same role exactly (a test holds them to
# it), so a title one OCR slip away from an exact one lands where the exact one would.
_KNOWN = {title: role for role, titles in COLUMN_TITLES.items() for title in titles}
# A fuzzy title match at or above this RapidFuzz score places the column (OCR slips, reworded
# titles: "riinted Name", "Signature of the Elector").
FUZZY_TITLE_SCORE = 82.0
assert all(role in ROLES for _, role in HEADER_PATTERNS)
assert set(COLUMN_TITLES) == set(ROLES)


@dataclass(frozen=True, slots=True)
class TitleMatch:
    """A column title placed: its role, the field it fills, and how sure (100: exact)."""

    role: str
    field: str | None
    score: float

    @property
    def exact(self) -> bool:
        return self.score >= 100.0


def normalize_header(text: str) -> str:
    """Lower-case, drop parentheses, dots and colons and the quote marks at a word's edges (a
    speck OCR read as one: "\u2018Ward No."; "Voter's" keeps its apostrophe), collapse line
    breaks and spaces."""
    t = text.lower().replace("\u2019", "'")
    t = _EDGE_QUOTES.sub(" ", t)
    t = re.sub(r"[().:,*]", " ", t)
    t = re.sub(r"\s*-\s*", "-", t)
    t = re.sub(r"\s*/\s*", "/", t)
    t = re.sub(r"#", " # ", t)
    t = re.sub(r"\s+", " ", t).strip()
    return t


_EDGE_QUOTES = re.compile(r"(?<!\w)['\"`\u2018\u201c\u201d]+|['\"`\u2018\u201c\u201d]+(?!\w)")


def _spelled(normalized: str) -> str:
    """A normalized title with its abbreviations spelled out (`_ABBREVIATIONS`)."""
    return " ".join(_ABBREVIATIONS.get(w, w) for w in normalized.split())


def role_field(role: str) -> str | None:
    """The line's field a role fills (a field is its own role)."""
    return PART_ROLES.get(role, role)


def place_title(text: str, *, min_score: float = FUZZY_TITLE_SCORE) -> TitleMatch | None:
    """The role of a printed column title: exactly by `HEADER_PATTERNS`, else the closest
    title of `COLUMN_TITLES` if it scores at least `min_score` (RapidFuzz ratio over the
    normalized text), else None."""
    t = _spelled(normalize_header(text or ""))
    if not t:
        return None
    for pattern, role in HEADER_PATTERNS:
        if pattern.match(t):
            return TitleMatch(role, role_field(role), 100.0)
    if len(t) < 3:  # "E", "Nc": too short to say
        return None
    said = _title_words(t)
    if len(said) > TITLE_MAX_WORDS:
        return None  # a line of prose ("We, the undersigned, qualified voters of the Town")
    if any(w.kind == "veto" for w in said):
        return None  # "Date of Birth", "Signature of Witness": no column of the line's
    by_words = _by_words(said) if _title_like(said) else None
    if by_words is not None:
        return by_words
    best = rf_process.extractOne(t, list(_KNOWN), scorer=fuzz.ratio)
    if best is None or best[1] < min_score:
        return None
    role = _KNOWN[best[0]]
    return TitleMatch(role, role_field(role), min(99.0, float(best[1])))


# The words a title is read by (`_by_words`), each with what it says. A title's word is one of
# these when it is, or is one OCR slip from it (RapidFuzz ratio, `_WORD_SCORE`).
_TITLE_WORDS: dict[str, str] = (
    dict.fromkeys(("signature", "signatures", "sign"), "sign")
    | dict.fromkeys(("date", "month", "day", "year", "mo", "yr", "mm", "dd", "yy", "yyyy"), "date")
    | dict.fromkeys(("today",), "date")
    | dict.fromkeys(("name", "print", "printed"), "name")
    | dict.fromkeys(("residence", "address", "residential", "domicile"), "residence")
    | dict.fromkeys(("street", "house"), "street")
    | dict.fromkeys(("town", "city", "village", "municipality", "hamlet", "county"), "place")
    | dict.fromkeys(("ward",), "ward")
    | dict.fromkeys(("district", "election"), "district")
    | dict.fromkeys(("line", "number"), "line")
    | dict.fromkeys(("assessed", "valuation", "value"), "valuation")
    # whose: "Signature of Resident" is a signature, "Address of Signer" an address
    | dict.fromkeys(
        ("signer", "elector", "electors", "voter", "owner", "petitioner", "resident"), "who"
    )
    | dict.fromkeys(("property", "registered", "qualified", "signing", "signed"), "who")
    # a column no line's field is in: the title is no field's, whatever else it says
    | dict.fromkeys(
        ("birth", "phone", "telephone", "email", "party", "enrollment", "witness", "notary"),
        "veto",
    )
    | dict.fromkeys(("remarks", "notes", "comments", "office", "clerk", "sheet", "page"), "veto")
    | dict.fromkeys(("zip", "postal", "tax", "map", "parcel"), "veto")
)
# A title is a few words: a block of more is prose, whatever its words say.
TITLE_MAX_WORDS = 10
_WORD_SCORE = {4: 75.0, 5: 80.0}  # by the word's length: 4 letters, 5 or more (shorter: exact)
_ALL_WORDS = list(_TITLE_WORDS)
_NOT_VETO = [w for w, kind in _TITLE_WORDS.items() if kind != "veto"]


class _Word(NamedTuple):
    text: str  # the title's word as read
    known: str  # the word of `_TITLE_WORDS` it is, or is one OCR slip from ("" if none)
    kind: str  # what that word says ("" for none)
    score: float  # how surely: 100 for the word itself, less one OCR slip from it


# A word one slip from a word that names no line field ("Horne" is not "phone") must be this
# close to it to take the whole title from its column: a title lost goes to a person
_VETO_SCORE = 88.0


def is_title_word(word: str, edits: int = 0) -> bool:
    """A word titles are read by ("election", "date", "signature"), as printed (any case), or
    `edits` edits from one (Levenshtein)."""
    w = word.casefold()
    if not edits:
        return _TITLE_WORDS.get(w, "veto") != "veto"
    return any(Levenshtein.distance(w, t, score_cutoff=edits) <= edits for t in _NOT_VETO)


def _title_words(t: str) -> list[_Word]:
    """What each word of a normalized title says; "e d" is a district."""
    out = []
    for w in re.findall(r"[a-z0-9]+", t.replace("e d", "district")):
        if w in _TITLE_WORDS:
            out.append(_Word(w, w, _TITLE_WORDS[w], 100.0))
            continue
        need = _WORD_SCORE.get(min(len(w), 5)) if len(w) >= 4 else None
        best = rf_process.extractOne(w, _ALL_WORDS, scorer=fuzz.ratio)
        if best is not None and _TITLE_WORDS[best[0]] == "veto" and best[1] < _VETO_SCORE:
            best = rf_process.extractOne(w, _NOT_VETO, scorer=fuzz.ratio)
        # (as long as the word give or take a slip: "citelection", "Town or City" and
        # "Election" run together, holds "election" but is not it)
        near = best is not None and abs(len(best[0]) - len(w)) <= 2
        if need is not None and best is not None and near and best[1] >= need:
            out.append(_Word(w, best[0], _TITLE_WORDS[best[0]], float(best[1])))
        else:
            out.append(_Word(w, "", "", 100.0))
    return out


# Words a title may hold beside the words it is read by: joining words and a form's instructions.
_TITLE_STOP = frozenset(
    ("of", "the", "a", "an", "or", "and", "if", "any", "your", "you", "here", "in", "to", "be")
    + ("by", "as", "at", "for", "on", "is", "are", "may", "must", "enter", "write", "please")
)


def _title_like(said: list[_Word]) -> bool:
    """Words a column title is made of: no number ("9/17/26"), and the words it is read by at
    least as many as the others (joining words and single letters aside). A title row's cell
    that took in a row or two of entries below its title ("Date 9/17/26 9/17/26", "Printed
    Name Lins R Byfely Lak Sollowby"), when a rule under the titles was lost, is no title."""
    if any(w.text.isdigit() for w in said):
        return False  # (a letter read as a figure, "V0ter's", is a slip: the word counts)
    # (a short word one slip from a known one, "Lins" for "line", counts as neither)
    known = sum(bool(w.kind) and w.score >= _WORD_SCORE[5] for w in said)
    other = sum(not w.kind and len(w.text) > 1 and w.text not in _TITLE_STOP for w in said)
    return known >= other


# What a title says when its words name one kind of field ("who" and "line" words qualify).
_KIND_ROLE = {
    "date": "date",
    "sign": "signature",
    "name": "name",
    "residence": "residence",
    "street": "street",
    "place": "town",
    "ward": "ward",
    "district": "election_district",
    "valuation": "valuation",
}


def _by_words(said: list[_Word]) -> TitleMatch | None:
    """A title no pattern accepts, placed by what its words say: "Month/Day/Year" is a date,
    "Enter Town or City" a town, "Residential Address" a residence. Words of two kinds place
    a column only as forms print them together: "Name of Signer (Signature required. Printed
    name may be added)" is a signature (the name first), "Signature of Signer, Residence" the
    combined column, "Village of Residence" a town (the place first), "Residence (Town)" and
    "Street Address, City" a residence, "Village Election District" a district (one place
    word, just before it), "Date of Signature" a date (the date first). Any other mix is two titles
    run together, or a column to flag, not to guess ("Town or City Election District No.",
    "Name and Address"); so is a word that names no line field ("Date of Birth", "Tax Map No.",
    "Sheet No."), a title whose words say nothing, or "No." among words it does not know."""
    kinds = [w.kind for w in said if w.kind]
    if not kinds:
        return None  # no word it knows ("Remarks"), or no word at all ("- - -")
    first = {k: kinds.index(k) for k in kinds if k in _KIND_ROLE}
    fields = set(first)
    before = min(first, key=first.__getitem__) if first else ""
    role: str | None = None
    if len(fields) == 1:
        role = _KIND_ROLE[before]
    elif not fields:
        # "Line No.": line words only, none it does not know
        role = "line_number" if all(w.kind == "line" for w in said) else None
    elif fields == {"date", "sign"}:
        role = "date" if before == "date" else None
    elif fields == {"sign", "name"}:
        # "Name of Signer (Signature required...)", "Sign Your Name"; not "Signature Name"
        role = "signature" if before == "name" or any(w.known == "sign" for w in said) else None
    elif "sign" in fields and fields <= {"sign", "residence", "street", "place"}:
        role = "signature_residence" if before == "sign" else None
    elif fields == {"place", "residence"}:
        role = "town" if before == "place" else "residence"
    elif fields == {"street", "residence"}:
        role = _KIND_ROLE[before]
    elif "street" in fields and fields <= {"street", "residence", "place"}:
        role = "residence"  # the whole address in one column
    elif len(fields) == 2 and "place" in fields and fields & {"ward", "district"}:
        # "Village Election District", "Town Ward": the place word just before the district
        places = [k for k, w in enumerate(said) if w.kind == "place"]
        after = said[places[0] + 1].kind if len(places) == 1 and places[0] + 1 < len(said) else ""
        role = _KIND_ROLE[after] if after in ("ward", "district") else None
    if role is None:
        return None
    sure = min(w.score for w in said if w.kind)
    return TitleMatch(role, role_field(role), min(99.0, sure))


def map_header(text: str) -> str | None:
    """The canonical field (one of records.FIELD_NAMES) a column title fills, or None; exact
    titles only (`place_title` for the fuzzy match and the role).

    Case-insensitive and tolerant of line breaks and extra spaces: "Village Election\\nDistrict
    (if any)" -> "election_district", "E.D." -> "election_district", "Signature-Residence"
    (the combined column of the 9-902(8) form) -> "signature"; "Street and Number" ->
    "residence" (its street part)."""
    m = place_title(text, min_score=101.0)
    return None if m is None else m.field


def join_parts(parts: Mapping[str, str]) -> dict[str, str]:
    """The line's fields from its cells' text by role: the street (or a residence column beside
    a town column) and the town joined into the residence ("12 Oak St, Elmwood Falls"), the
    line number dropped. A combined
    signature-and-residence cell must be split by the reader first (it gives `signature` and
    `residence`)."""
    out = {role: text for role, text in parts.items() if role in FIELD_NAMES}
    if "street" not in parts and "town" not in parts:
        return out
    street = (out.get("residence", "").strip() or parts.get("street", "")).strip()
    town = parts.get("town", "").strip()
    if town and street.lower().rstrip(" .").endswith(town.lower().rstrip(" .")):
        town = ""  # a residence that names its town already ("12 Oak St, Elmwood Falls")
    out["residence"] = ", ".join(p for p in (street, town) if p)
    return out


_DATE_LIKE = re.compile(
    r"^\s*(\d{1,2}\s*[/.-]\s*\d{1,2}(\s*[/.-]\s*\d{2,4})?|"
    r"(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(st|nd|rd|th)?"
    r"(,?\s*\d{4})?)\s*$",
    re.I,
)
_STREET_LIKE = re.compile(r"^\s*\d+[A-Za-z]?(\s*1/2)?\s+[A-Za-z]", re.I)
_SMALL_NUMBER = re.compile(r"^\s*\d{1,3}\s*$")
_MONEY = re.compile(r"^\s*\$?\s*\d{1,3}(,\d{3})+(\.\d\d)?\s*$|^\s*\$\s*\d+")


def role_by_content(texts: Sequence[str], *, share: float = 0.8) -> str | None:
    """The role a column's filled cells show when its title placed nothing: dates, house
    numbers and streets (`residence`), dollar amounts (`valuation`), or small numbers in
    sequence (`line_number`); None when fewer than `share` of the filled cells agree or when
    too few are filled (under 2). Ward and district digits are not told apart by content."""
    filled = [t for t in texts if t and t.strip(" ._")]
    if len(filled) < 2:
        return None
    need = share * len(filled)
    for role, pattern in (("date", _DATE_LIKE), ("valuation", _MONEY), ("residence", _STREET_LIKE)):
        if sum(bool(pattern.match(t)) for t in filled) >= need:
            return role
    if all(_SMALL_NUMBER.match(t) for t in filled):
        numbers = [int(t) for t in filled]
        if numbers == sorted(numbers) and len(set(numbers)) == len(numbers):
            return "line_number"
    return None
