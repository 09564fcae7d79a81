"""Text normalization for matching names and addresses.

Both sides of a comparison (a petition line and a register entry) go through the same function,
so an abbreviation only has to be consistent, not "right": "123 North Court Street" and
"123 N Ct St" both become "123 N CT ST".

Every rule is a table below. The functions are idempotent (normalizing twice changes nothing),
never raise, and return upper-case text with single spaces and no leading or trailing space;
tests/test_normalize.py checks these properties with hypothesis.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass

__all__ = [
    "ADDRESS_WORDS",
    "DIRECTIONALS",
    "NAME_DROP_WORDS",
    "STREET_SUFFIXES",
    "PersonName",
    "StreetAddress",
    "initial_run_apart",
    "name_readings",
    "name_suffix",
    "normalize_address",
    "normalize_name",
    "soundex",
    "split_person_name",
    "split_street_address",
    "standard_suffix",
    "street_readings",
    "suffix_position",
]

# Letters that Unicode decomposition does not reduce to ASCII ("Ø" has no combining stroke).
_TRANSLITERATE: Mapping[str, str] = {
    "ß": "SS",
    "ẞ": "SS",
    "Æ": "AE",
    "æ": "AE",
    "Œ": "OE",
    "œ": "OE",
    "Ø": "O",
    "ø": "O",
    "Ł": "L",
    "ł": "L",
    "Đ": "D",
    "đ": "D",
    "Ð": "D",
    "ð": "D",
    "Þ": "TH",
    "þ": "TH",
    "ı": "I",
    # Vulgar fractions stand apart from the house number: "12½" is "12 1/2", not "121/2".
    "½": " 1/2",
    "⅓": " 1/3",
    "⅔": " 2/3",
    "¼": " 1/4",
    "¾": " 3/4",
    "⁄": "/",  # FRACTION SLASH, what NFKD makes of the fractions not listed above
}

# Deleted without leaving a space: "O'Brien" -> "OBRIEN", not "O BRIEN".
_APOSTROPHES = frozenset("'’‘`´ʼ")

# Name tokens dropped wherever they stand: generational suffixes and honorifics. A signer rarely
# writes the suffix the register has, so the name comparison ignores it on both sides (a Jr/Sr
# pair at one address then scores the same and goes to review, which is intended).
NAME_DROP_WORDS: frozenset[str] = frozenset(
    {"JR", "SR", "II", "III", "IV", "MR", "MRS", "MS", "DR"}
)

# Address tokens and their abbreviation wherever they stand: the commonest USPS street suffixes,
# directionals, and unit designators (all units become APT so "#3", "Unit 3" and "Apt. 3" agree).
# The whole of Publication 28's suffix list (STREET_SUFFIXES, below) applies only in a street's
# suffix place (`standard_suffix`).
ADDRESS_WORDS: Mapping[str, str] = {
    # street suffixes
    "STREET": "ST",
    "STR": "ST",
    "AVENUE": "AVE",
    "AV": "AVE",
    "AVEN": "AVE",
    "ROAD": "RD",
    "DRIVE": "DR",
    "LANE": "LN",
    "COURT": "CT",
    "PLACE": "PL",
    "BOULEVARD": "BLVD",
    "TERRACE": "TER",
    "CIRCLE": "CIR",
    "PARKWAY": "PKWY",
    "HIGHWAY": "HWY",
    # directionals
    "NORTH": "N",
    "SOUTH": "S",
    "EAST": "E",
    "WEST": "W",
    "NORTHEAST": "NE",
    "NORTHWEST": "NW",
    "SOUTHEAST": "SE",
    "SOUTHWEST": "SW",
    # unit designators ("#" is turned into the word APT before this table is applied)
    "APARTMENT": "APT",
    "APT": "APT",
    "UNIT": "APT",
    "SUITE": "APT",
    "STE": "APT",
    "ROOM": "APT",
    "RM": "APT",
    "FLOOR": "APT",
    "FL": "APT",
}

# USPS Publication 28, Appendix C1 "Street Suffix Abbreviations": each line is the Postal
# Service standard suffix abbreviation, then the primary street suffix name and the commonly
# used street suffixes or abbreviations the publication lists for it (pe.usps.com/text/pub28/
# 28apc_002.htm; written out here, the publication is not in ../shared).
_C1 = """
ALY ALLEY ALLEE ALLY
ANX ANEX ANNEX ANNX
ARC ARCADE
AVE AVENUE AV AVEN AVENU AVN AVNUE
BYU BAYOU BAYOO
BCH BEACH
BND BEND
BLF BLUFF BLUF
BLFS BLUFFS
BTM BOTTOM BOT BOTTM
BLVD BOULEVARD BOUL BOULV
BR BRANCH BRNCH
BRG BRIDGE BRDGE
BRK BROOK
BRKS BROOKS
BG BURG
BGS BURGS
BYP BYPASS BYPA BYPAS BYPS
CP CAMP CMP
CYN CANYON CANYN CNYN
CPE CAPE
CSWY CAUSEWAY CAUSWA
CTR CENTER CEN CENT CENTR CENTRE CNTER CNTR
CTRS CENTERS
CIR CIRCLE CIRC CIRCL CRCL CRCLE
CIRS CIRCLES
CLF CLIFF
CLFS CLIFFS
CLB CLUB
CMN COMMON
CMNS COMMONS
COR CORNER
CORS CORNERS
CRSE COURSE
CT COURT
CTS COURTS
CV COVE
CVS COVES
CRK CREEK
CRES CRESCENT CRSENT CRSNT
CRST CREST
XING CROSSING CRSSNG
XRD CROSSROAD
XRDS CROSSROADS
CURV CURVE
DL DALE
DM DAM
DV DIVIDE DIV DVD
DR DRIVE DRIV DRV
DRS DRIVES
EST ESTATE
ESTS ESTATES
EXPY EXPRESSWAY EXP EXPR EXPRESS EXPW
EXT EXTENSION EXTN EXTNSN
EXTS EXTENSIONS
FALL FALL
FLS FALLS
FRY FERRY FRRY
FLD FIELD
FLDS FIELDS
FLT FLAT
FLTS FLATS
FRD FORD
FRDS FORDS
FRST FOREST FORESTS
FRG FORGE FORG
FRGS FORGES
FRK FORK
FRKS FORKS
FT FORT FRT
FWY FREEWAY FREEWY FRWAY FRWY
GDN GARDEN GARDN GRDEN GRDN
GDNS GARDENS GRDNS
GTWY GATEWAY GATEWY GATWAY GTWAY
GLN GLEN
GLNS GLENS
GRN GREEN
GRNS GREENS
GRV GROVE GROV
GRVS GROVES
HBR HARBOR HARB HARBR HRBOR
HBRS HARBORS
HVN HAVEN
HTS HEIGHTS HT
HWY HIGHWAY HIGHWY HIWAY HIWY HWAY
HL HILL
HLS HILLS
HOLW HOLLOW HLLW HOLLOWS HOLWS
INLT INLET
IS ISLAND ISLND
ISS ISLANDS ISLNDS
ISLE ISLE ISLES
JCT JUNCTION JCTION JCTN JUNCTN JUNCTON
JCTS JUNCTIONS JCTNS
KY KEY
KYS KEYS
KNL KNOLL KNOL
KNLS KNOLLS
LK LAKE
LKS LAKES
LAND LAND
LNDG LANDING LNDNG
LN LANE
LGT LIGHT
LGTS LIGHTS
LF LOAF
LCK LOCK
LCKS LOCKS
LDG LODGE LDGE LODG
LOOP LOOP LOOPS
MALL MALL
MNR MANOR
MNRS MANORS
MDW MEADOW
MDWS MEADOWS MEDOWS
MEWS MEWS
ML MILL
MLS MILLS
MSN MISSION MISSN MSSN
MTWY MOTORWAY
MT MOUNT MNT
MTN MOUNTAIN MNTAIN MNTN MOUNTIN MTIN
MTNS MOUNTAINS MNTNS
NCK NECK
ORCH ORCHARD ORCHRD
OVAL OVAL OVL
OPAS OVERPASS
PARK PARK PRK PARKS
PKWY PARKWAY PARKWY PKWAY PKY PARKWAYS PKWYS
PASS PASS
PSGE PASSAGE
PATH PATH PATHS
PIKE PIKE PIKES
PNE PINE
PNES PINES
PL PLACE
PLN PLAIN
PLNS PLAINS
PLZ PLAZA PLZA
PT POINT
PTS POINTS
PRT PORT
PRTS PORTS
PR PRAIRIE PRR
RADL RADIAL RAD RADIEL
RAMP RAMP
RNCH RANCH RANCHES RNCHS
RPD RAPID
RPDS RAPIDS
RST REST
RDG RIDGE RDGE
RDGS RIDGES
RIV RIVER RVR RIVR
RD ROAD
RDS ROADS
RTE ROUTE
ROW ROW
RUE RUE
RUN RUN
SHL SHOAL
SHLS SHOALS
SHR SHORE SHOAR
SHRS SHORES SHOARS
SKWY SKYWAY
SPG SPRING SPNG SPRNG
SPGS SPRINGS SPNGS SPRNGS
SPUR SPUR SPURS
SQ SQUARE SQR SQRE SQU
SQS SQUARES SQRS
STA STATION STATN STN
STRA STRAVENUE STRAV STRAVEN STRAVN STRVN STRVNUE
STRM STREAM STREME
ST STREET STRT STR
STS STREETS
SMT SUMMIT SUMIT SUMITT
TER TERRACE TERR
TRWY THROUGHWAY
TRCE TRACE TRACES
TRAK TRACK TRACKS TRK TRKS
TRFY TRAFFICWAY
TRL TRAIL TRAILS TRLS
TRLR TRAILER TRLRS
TUNL TUNNEL TUNEL TUNLS TUNNELS TUNNL
TPKE TURNPIKE TRNPK TURNPK
UPAS UNDERPASS
UN UNION
UNS UNIONS
VLY VALLEY VALLY VLLY
VLYS VALLEYS
VIA VIADUCT VDCT VIADCT
VW VIEW
VWS VIEWS
VLG VILLAGE VILL VILLAG VILLG VILLIAGE
VLGS VILLAGES
VL VILLE
VIS VISTA VIST VST VSTA
WALK WALK WALKS
WALL WALL
WAY WAY WY
WAYS WAYS
WL WELL
WLS WELLS
"""
STREET_SUFFIXES: Mapping[str, str] = {
    word: line.split()[0] for line in _C1.strip().splitlines() for word in line.split()
}
DIRECTIONALS: frozenset[str] = frozenset({"N", "S", "E", "W", "NE", "NW", "SE", "SW"})


def suffix_position(words: list[str]) -> int | None:
    """Where a normalized street's suffix stands: its last word, or the one before a trailing
    directional ("MAIN ST N"), when a word that is not a directional comes before it; None
    when the street has no such place ("MILL", "N PARK": the word is the street's name)."""
    k = len(words) - 1
    if k >= 1 and words[k] in DIRECTIONALS:
        k -= 1
    if k >= 1 and any(w not in DIRECTIONALS for w in words[:k]):
        return k
    return None


def standard_suffix(street: str) -> str:
    """A normalized street with its suffix written as USPS Publication 28 (C1) writes it:
    "MAPLE CRESCENT" -> "MAPLE CRES", "MILL ROAD N" -> "MILL RD N", "OAK VALLY" -> "OAK VLY".
    Only the suffix's place is looked up: "MILL RD" and "VALLEY VIEW TER" keep their names (a
    name abbreviated would stop agreeing with the same name misspelt). The store's SQL does the
    same (`matchers.store`, tested to agree)."""
    words = street.split()
    k = suffix_position(words)
    if k is not None:
        words[k] = STREET_SUFFIXES.get(words[k], words[k])
    return " ".join(words)


_UNIT = "APT"
_MAX_PASSES = 4


def _fold(s: str) -> str:
    """Upper case, accents stripped, compatibility forms folded ("ﬁ" -> "FI", "²" -> "2")."""
    if s.isascii():
        return s.upper()  # the same result, without the per-character work
    s = "".join(_TRANSLITERATE.get(ch, ch) for ch in s)
    s = unicodedata.normalize("NFKD", s.upper())
    s = "".join(ch for ch in s if not unicodedata.combining(ch))
    # Upper-casing after decomposition catches letters that decompose to lower case ("ª").
    return "".join(_TRANSLITERATE.get(ch, ch) for ch in s.upper())


def _is_digit(ch: str) -> bool:
    return "0" <= ch <= "9"


# The passes below for an ASCII text in one `str.translate` (the same result, without the
# per-character work): apostrophes deleted, other punctuation a space; an address's "#" a unit,
# its "-" and "/" kept for `_LONE_DASH` to settle.
_ASCII_PUNCTUATION = [chr(c) for c in range(128) if not chr(c).isalnum()]
_ASCII_NAME = str.maketrans({ch: None if ch in _APOSTROPHES else " " for ch in _ASCII_PUNCTUATION})
_ASCII_ADDRESS = str.maketrans(
    {
        ch: None if ch in _APOSTROPHES else f" {_UNIT} " if ch == "#" else " "
        for ch in _ASCII_PUNCTUATION
        if ch not in "-/"
    }
)
_LONE_DASH = re.compile(r"(?<![0-9])[-/]|[-/](?![0-9])")  # not between two digits


def _name_pass(s: str) -> str:
    if s.isascii():
        s = s.upper().translate(_ASCII_NAME)
    else:
        s = "".join(ch for ch in _fold(s) if ch not in _APOSTROPHES)
        # Hyphens (inside a word or not) and all other punctuation separate words.
        s = "".join(ch if ch.isalnum() else " " for ch in s)
    return " ".join(t for t in s.split() if t not in NAME_DROP_WORDS)


def _address_pass(s: str) -> str:
    if s.isascii():
        text = _LONE_DASH.sub(" ", s.upper().translate(_ASCII_ADDRESS))
    else:
        s = "".join(ch for ch in _fold(s) if ch not in _APOSTROPHES)
        out: list[str] = []
        for i, ch in enumerate(s):
            if ch.isalnum():
                out.append(ch)
            elif ch == "#":
                out.append(f" {_UNIT} ")
            elif ch in "-/" and 0 < i < len(s) - 1 and _is_digit(s[i - 1]) and _is_digit(s[i + 1]):
                out.append(ch)  # "37-12" (a Queens house number), "1/2" (a fractional address)
            else:
                out.append(" ")
        text = "".join(out)
    tokens: list[str] = []
    for t in text.split():
        t = ADDRESS_WORDS.get(t, t)
        if t == _UNIT and tokens and tokens[-1] == _UNIT:
            continue  # "APT #3" -> "APT APT 3" -> "APT 3"
        tokens.append(t)
    return " ".join(tokens)


def _to_fixed_point(step: Callable[[str], str], s: str) -> str:
    # A handful of exotic characters need a second pass to settle (a decomposition that yields
    # a character the first pass would have changed). Repeating until nothing changes makes
    # the function idempotent by construction.
    for _ in range(_MAX_PASSES):
        nxt = step(s)
        if nxt == s:
            return nxt
        s = nxt
    return s


def normalize_name(s: str | None) -> str:
    """A person's name for comparison: "Dr. José O'Brien-Smith, Jr." -> "JOSE OBRIEN SMITH".

    Upper case, accents stripped, apostrophes deleted, hyphens and other punctuation turned into
    spaces, the words in NAME_DROP_WORDS (suffixes, honorifics) dropped, spaces collapsed.
    """
    if not s:
        return ""
    return _to_fixed_point(_name_pass, str(s))


# Generational suffixes and the one spelling they compare as.
SUFFIXES: Mapping[str, str] = {
    "JR": "JR",
    "JUNIOR": "JR",
    "SR": "SR",
    "SENIOR": "SR",
    "II": "II",
    "2ND": "II",
    "III": "III",
    "3RD": "III",
    "IV": "IV",
    "4TH": "IV",
}


def name_suffix(s: str | None) -> str:
    """The generational suffix a name carries ("Lark Ingleby, Jr." -> "JR"), or "".

    `normalize_name` drops suffixes so that a signer who leaves one off still matches; the
    matcher uses this to tell a Jr from a Sr when the signer did write one."""
    if not s:
        return ""
    text = unicodedata.normalize("NFKD", str(s)).upper()
    tokens = "".join(ch if ch.isalnum() else " " for ch in text).split()
    for token in reversed(tokens[1:]):  # the first word is a given name, never a suffix
        if token in SUFFIXES:
            return SUFFIXES[token]
    return ""


def normalize_address(s: str | None) -> str:
    """A street address for comparison.

    "12½ North Main Street, Apt. #3" -> "12 1/2 N MAIN ST APT 3".

    Upper case, accents stripped, punctuation removed except a hyphen or slash between digits,
    "#" read as a unit, and each word looked up in ADDRESS_WORDS.
    """
    if not s:
        return ""
    return _to_fixed_point(_address_pass, str(s))


# --------------------------------------------------------------------------------------------
# Splitting a line's free text into parts (for blocking and per-field comparison)
# --------------------------------------------------------------------------------------------

_SOUNDEX_CODES: Mapping[str, str] = {
    **dict.fromkeys("BFPV", "1"),
    **dict.fromkeys("CGJKQSXZ", "2"),
    **dict.fromkeys("DT", "3"),
    "L": "4",
    **dict.fromkeys("MN", "5"),
    "R": "6",
}


def soundex(s: str | None) -> str:
    """A phonetic key of a surname: its first letter and up to three consonant-class digits.

    "ROBERT" and "RUPERT" -> "R163". A simplified American Soundex (H and W are dropped like
    vowels, so letters they separate are not merged twice); the same rule is written in SQL in
    `matchers.store` (`soundex_sql`), and tests check the two agree. Letters only; "" when none.
    """
    letters = [ch for ch in _fold(s or "") if "A" <= ch <= "Z"]
    if not letters:
        return ""
    digits = [_SOUNDEX_CODES.get(ch, "") for ch in letters[1:]]
    out: list[str] = []
    for d in digits:
        if d and (not out or out[-1] != d):
            out.append(d)
    return letters[0] + "".join(out)[:3]


# Words that start a multi-word surname ("De La Cruz", "Van der Berg", "St. John", "Mac Arthur").
# Only taken as part of the surname between the given name and the last word.
SURNAME_PARTICLES: frozenset[str] = frozenset(
    {
        "DE", "DEL", "DELA", "DELLA", "DI", "DA", "DAS", "DOS", "DU", "LA", "LE", "LOS", "LAS",
        "VAN", "VON", "DER", "DEN", "TER", "TEN", "ST", "STE", "SAINT", "MAC", "MC", "IBN", "BIN",
    }
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class PersonName:
    """A signer's name in parts, normalized. `last` may be "" when only one word was written."""

    first: str
    middle: str
    last: str
    suffix: str

    @property
    def full(self) -> str:
        return " ".join(p for p in (self.first, self.middle, self.last) if p)


def split_person_name(s: str | None) -> PersonName:
    """'John A. Smith Jr.' or 'Smith, John A' -> PersonName('JOHN', 'A', 'SMITH', 'JR').

    A comma after the first word means "LAST, FIRST MIDDLE". Otherwise the last word is the
    surname (with the SURNAME_PARTICLES before it: "Maria De La Cruz" -> 'DELACRUZ'), the first
    the given name, anything between the middle name(s). Never raises."""
    if not s:
        return PersonName("", "", "", "")
    # A hyphenated name is one name: "O'Brien-Smith" -> "OBRIENSMITH" (compared squashed).
    raw = re.sub(r"(?<=\w)\s*-\s*(?=\w)", "", str(s))
    suffix = name_suffix(raw)
    head, sep, tail = raw.partition(",")
    if sep and normalize_name(head) and normalize_name(tail):
        tail_words = normalize_name(tail).split()
        if tail_words:
            # "Van Buren, Martin": the surname before the comma, squashed like a hyphenated one
            return PersonName(
                tail_words[0],
                " ".join(tail_words[1:]),
                normalize_name(head).replace(" ", ""),
                suffix,
            )
    words = normalize_name(raw).split()
    if not words:
        return PersonName("", "", "", suffix)
    if len(words) == 1:
        return PersonName("", "", words[0], suffix)
    # "Maria De La Cruz", "Jan van der Berg": the particles before the last word belong to the
    # surname, squashed as the register's "DE LA CRUZ" is compared ("DELACRUZ").
    k = len(words) - 1
    while k > 1 and words[k - 1] in SURNAME_PARTICLES:
        k -= 1
    return PersonName(words[0], " ".join(words[1:k]), "".join(words[k:]), suffix)


def name_readings(s: str | None) -> tuple[PersonName, ...]:
    """The ways a name written without a comma may be read, the usual one first
    (`split_person_name`), then: two words the other way round ("Paterson Madeleine": surname
    first); one word as a given name too ("Robert"); three words with two of them run apart
    ("Francesco Finl Ay", "Jord An Blake", "William Rei D"), each join (not a middle initial),
    and each join with the surname written first ("Van Groesen Chelsea", "Huxley Samant Ha").
    A name with a comma, or of more words, has one reading. The matcher scores every reading
    and keeps a voter's best."""
    first = split_person_name(s)
    if not s or "," in str(s):
        return (first,)
    words = normalize_name(re.sub(r"(?<=\w)\s*-\s*(?=\w)", "", str(s))).split()
    if len(words) == 1:
        return (first, PersonName(words[0], "", "", first.suffix))
    if len(words) == 2 and first.middle == "" and first.first == words[0]:
        return (first, PersonName(words[1], "", words[0], first.suffix))
    if len(words) == 3 and first.middle == words[1] and (len(words[1]) > 1 or len(words[2]) == 1):
        return (
            first,
            PersonName(words[0], "", words[1] + words[2], first.suffix),
            PersonName(words[0] + words[1], "", words[2], first.suffix),
            # a surname of two words written first ("Van Groesen Chelsea", "Nguy En Eliza")
            PersonName(words[2], "", words[0] + words[1], first.suffix),
            # the surname written first, the given name run apart ("Huxley Samant Ha")
            PersonName(words[1] + words[2], "", words[0], first.suffix),
        )
    return (first,)


def initial_run_apart(s: str | None) -> tuple[PersonName, ...]:
    """For three words whose middle one is a single letter ("Cnono R Stitz", "Fenwic K
    William"), the readings with that letter the given name's last, run apart: the first two
    joined as the given name ("CNONOR STITZ") and as a surname written first ("WILLIAM
    FENWICK"). Else none. Not among `name_readings`: a middle initial is far likelier, so the
    matcher reads a name this way only when no voter has its first word as a given name
    (`matchers.lines.line_frame`)."""
    raw = str(s or "").split()
    if len(raw) not in (3, 4) or "," in str(s) or sum(ch.isalpha() for ch in raw[1]) != 1:
        return ()  # most names, cheaply (a fourth word may be a suffix)
    words = normalize_name(re.sub(r"(?<=\w)\s*-\s*(?=\w)", "", str(s))).split()
    first = split_person_name(s)
    if len(words) != 3 or len(words[1]) != 1 or len(words[2]) == 1 or first.middle != words[1]:
        return ()
    joined = words[0] + words[1]
    return (
        PersonName(joined, "", words[2], first.suffix),
        PersonName(words[2], "", joined, first.suffix),
    )


@dataclass(frozen=True, slots=True)
class StreetAddress:
    """A residence in parts, normalized: '12 1/2 N MAIN ST APT 3, Town NY 12345' ->
    house '12 1/2', street 'N MAIN ST', unit '3', zip5 '12345', rest 'TOWN' (place words)."""

    house_number: str
    street: str
    unit: str
    zip5: str

    @property
    def street_line(self) -> str:
        parts = [self.house_number, self.street]
        if self.unit:
            parts += [_UNIT, self.unit]
        return " ".join(p for p in parts if p)


_STATE_WORDS = frozenset({"NY", "NEW YORK"})
_UNIT_STARTS = ("#", "AP", "UN", "SU", "ST")
_ZIP = re.compile(r"(?<![0-9/-])([0-9]{5})(?:-?[0-9]{4})?[^0-9A-Za-z]*$")
# After a comma, a trailing number of 4 or 5 digits is a postcode too (4 digits in much of the
# world, a ZIP whose leading zero a spreadsheet dropped): "..., Bray Park 2621".
_POSTCODE = re.compile(r"(?<![0-9/-])([0-9]{4,5})(?:-?[0-9]{4})?[^0-9A-Za-z]*$")
# A street type run into the street's name ("HARTLEYSTREET"), split off: full words only.
_GLUED_TYPES = ("STREET", "AVENUE", "ROAD", "DRIVE", "PLACE", "CRESCENT", "CIRCUIT", "COURT")


def _unglue(token: str) -> str:
    """'HARTLEYSTREET' -> 'HARTLEY ST' (a street type run into the name), else the token."""
    for word in _GLUED_TYPES:
        if len(token) >= len(word) + 3 and token.endswith(word) and token.isalpha():
            return f"{token[: -len(word)]} {ADDRESS_WORDS.get(word, word)}"
    return token


def _is_unit(part: str) -> bool:
    """A part of a residence after a comma that is a unit ("Apt 3", "#4", "Suite 2")."""
    return part.strip().upper().startswith(_UNIT_STARTS) and normalize_address(part).startswith(
        _UNIT
    )


def split_street_address(s: str | None) -> StreetAddress:
    """Split a residence as written into house number, street, unit and ZIP. Never raises.

    The text after a comma (town, state, ZIP) is dropped except for a 5-digit ZIP; the house
    number is the leading token(s) with a digit ("12", "12A", "37-12", "12 1/2")."""
    if not s:
        return StreetAddress("", "", "", "")
    raw = str(s)
    parts = raw.split(",")
    # Keep a unit written after a comma ("12 Main St, Apt 3, Town"); drop the place after it.
    first = parts[0]
    for part in parts[1:]:
        if _is_unit(part):
            first = f"{first} {part}"
    found = _ZIP.search(raw)
    # (a place whose name starts like a unit, "Stonyfell 3015", keeps its postcode)
    if found is None and len(parts) > 1 and not _is_unit(parts[-1]):
        found = _POSTCODE.search(parts[-1])
    zip5 = found.group(1) if found else ""
    tokens = [_unglue(t) for t in normalize_address(first).split()]
    tokens = " ".join(tokens).split()
    street_tokens = tokens
    while street_tokens and (
        street_tokens[-1] in _STATE_WORDS
        or (street_tokens[-1].replace("-", "").isdigit() and len(street_tokens) > 1)
        and len(street_tokens[-1].replace("-", "")) in (5, 9)
    ):
        street_tokens.pop()
    house: list[str] = []
    while street_tokens and any(ch.isdigit() for ch in street_tokens[0]) and len(house) < 2:
        tok = street_tokens[0]
        if house and "/" not in tok:
            break  # only a fraction follows a house number ("12 1/2")
        house.append(street_tokens.pop(0))
        if "/" in tok:
            break
    unit = ""
    if _UNIT in street_tokens:
        i = street_tokens.index(_UNIT)
        unit = " ".join(street_tokens[i + 1 :])
        street_tokens = street_tokens[:i]
    return StreetAddress(" ".join(house), " ".join(street_tokens), unit, zip5)


def _has_suffix(street: str) -> bool:
    words = street.split()
    k = suffix_position(words)
    return k is not None and words[k] in STREET_SUFFIXES


def street_readings(s: str | None) -> tuple[StreetAddress, ...]:
    """The ways a residence may be read, the usual one first (`split_street_address`), then,
    when its first part has no street suffix or no house number ("110 Torbalea, Milson
    Street, Latrobe": a building's or an estate's name written before the street), each later
    part but the last (the place) whose street ends in a USPS suffix, read as the street (with
    the first part's house number when it has none of its own). The matcher scores every
    reading and keeps a voter's best."""
    first = split_street_address(s)
    if not s or "," not in str(s):
        return (first,)
    parts = str(s).split(",")
    if len(parts) < 3:
        return (first,)
    head = split_street_address(parts[0])
    if head.house_number and _has_suffix(head.street):
        return (first,)
    out = [first]
    for part in parts[1:-1]:
        if _is_unit(part):
            continue
        other = split_street_address(part)
        if not _has_suffix(other.street):
            continue
        reading = StreetAddress(
            other.house_number or head.house_number, other.street, first.unit, first.zip5
        )
        if reading not in out:
            out.append(reading)
    return tuple(out)
