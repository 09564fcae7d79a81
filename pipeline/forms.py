"""The printed wording of the petition forms, as patterns both readers anchor on: the text-layer
reader (pipeline/textlayer.py) and the scan reader (pipeline/scan/reader.py).

The statements at the foot of a sheet come in the forms the statutes give: the statement of
witness (Village Law § 9-902(8); the village independent nominating petition's, both versions),
the notary's statement (nominating petition, subd. 2) and the authenticating affidavit
(Village Law § 2-202(1)(e)(4)). Each pattern reads one blank into the group `x` (or the named
groups given). They are loose where OCR differs from a text layer ("1," for "I,", a lost comma).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "AFFIDAVIT",
    "COUNTIES",
    "COUNTS",
    "FOOT_MARKS",
    "HEADER_VILLAGE",
    "JURAT",
    "NAMES",
    "NOTARY",
    "PROPOSITION",
    "RESIDENCES",
    "SHEET_CAPTIONS",
    "SHEET_NUMBERS",
    "SIGNATURE_CAPTIONS",
    "STANDARD_STATEMENTS",
    "TITLE",
    "VILLAGES",
    "WITNESS",
    "Statement",
    "find_sheet_number",
    "prose_pattern",
    "statement_form",
]

_I = re.IGNORECASE
_ID = re.IGNORECASE | re.DOTALL

TITLE = re.compile(r"PETITION\s+FOR\s+A\s+[A-Z ]*REFERENDUM|PETITION\b[^\n]*", _I)
# 9-902(8): "To the Board of Trustees of this Village of ... County of ..., State of New York."
HEADER_VILLAGE = re.compile(
    r"Village\s+of\s+(?P<v>.*?)\s*,?\s*County\s+of\s+(?P<c>.*?)\s*[,.]?\s*State\s+of\s+New\s+York",
    _ID,
)
# 9-902(8): "the following proposed act or resolution ... be submitted to a vote".
PROPOSITION = re.compile(
    r"proposed\s+act\s+or\s+resolution\s+(?P<p>.*?)\s*be\s+submitted\s+to\s+a\s+vote", _ID
)

NAMES = (
    # "I, ... state:" (9-902) / "I, ... state that" (nominating petition); a scan's colon is
    # often read as a period or a comma (held-out 9963: "1, Juno C Underhill state. | am")
    re.compile(r"(?<![A-Za-z])[I1l|]\s*,\s*(?P<x>[^\n]*?)\s*,?\s*state\s*(?:[:;.,]|that\b)", _I),
    # 2-202: "... ss.: NAME being duly sworn"
    re.compile(r"(?:ss\.?:?\s*)?(?P<x>[^\n]*?)\s*,?\s*being\s+duly\s+sworn", _I),
)
RESIDENCES = (
    re.compile(r"reside\s+at\s+(?P<x>.*?)\s*(?:\(\s*(?:residence|street)|\s+in\s+the\s)", _ID),
)
VILLAGES = (re.compile(r"in\s+the\s+Village\s+of\s+(?P<x>.*?)\s+in\s+the\s+State\s+of", _ID),)
COUNTIES = (
    re.compile(
        r"State\s+of\s+New\s+York\s*,?\s*(?:in\s+the\s+)?County\s+of\s+(?P<x>.*?)\s*[.,]\s+Each",
        _ID,
    ),
)
COUNTS = (
    re.compile(r"containing\s+(?P<x>.*?)\s*\(\s*fill\s+in\s+number\s*\)", _ID),  # witness, notary
    re.compile(r"having\s+(?P<x>.*?)\s*(?:\(\s*number\s*\)\s*)?signatures", _ID),  # 2-202
)
# 2-202's jurat: "Sworn to before me This 5th day of October, 2026".
JURAT = re.compile(
    r"Sworn\s+to\s+before\s+me\s+This\s+(?P<d>\d{1,2})\w*\s+day\s+of\s+(?P<m>[A-Za-z]+)\s*,?\s*"
    r"(?P<y>\d{4})",
    _I,
)


@dataclass(frozen=True, slots=True)
class Statement:
    """One statement a sheet's foot may carry, as its form prints it: the words that open it
    and the patterns that read its blanks (each into the group `x`). A petition kind names the
    statements it accepts in its spec (`KindSpec.statements`), so a new kind brings its own
    wording; both readers look for every statement they are given (`ReadContext.statements`),
    so that a sheet carrying another kind's statement is read as carrying it.

    - `form`: the name a sheet's `WitnessStatement.form` records ("witness", "notary", ...);
    - `opening`: its first words;
    - `names`, `residences`, `counts`: its blanks for the signer's name and residence and for
      the number of signatures (the first pattern that matches wins);
    - `jurat`: the wording that dates it, when a jurat does ("Sworn to before me This 5th
      day of October, 2026", groups d, m, y), rather than a date blank above its signature;
    - `outranks`: found beside another statement's opening words, it is this one (the
      notary's statement mentions a sworn statement too);
    - `wording`: phrases of its fixed text after the opening (its body and its captions), by
      which it is known when its opening words are lost (a line OCR misread, a heading set
      in other words or left out): WORDING_MIN of them;
    - `marks`: single words (or two) of its text, as patterns, by which one garbled line cut
      through its prose is known as the statement's and not a signature row: the loose use of
      its wording, where `wording` is the strict one (`prose_pattern`)."""

    form: str
    opening: re.Pattern[str]
    names: tuple[re.Pattern[str], ...] = ()
    residences: tuple[re.Pattern[str], ...] = ()
    counts: tuple[re.Pattern[str], ...] = ()
    jurat: re.Pattern[str] | None = None
    outranks: bool = False
    wording: tuple[re.Pattern[str], ...] = ()
    marks: tuple[str, ...] = ()


def _phrases(*texts: str) -> tuple[re.Pattern[str], ...]:
    """Phrases of a statement's wording, matched with any spacing and line breaks."""
    return tuple(re.compile(t.replace(" ", r"\s+"), _I) for t in texts)


# A statement whose opening words are not found is known by this many of its phrases.
WORDING_MIN = 2


# Village Law § 9-902(8) and the nominating petition (both versions): "Statement of Witness".
WITNESS = Statement(
    "witness",
    re.compile(r"Statement\s+of\s+Witness\s*:?", _I),
    names=NAMES,
    residences=RESIDENCES,
    counts=COUNTS,
    wording=_phrases(
        r"over the age of eighteen",
        r"duly qualified voter",
        r"(?:electors|voters) whose names are subscribed",
        r"subscribed (?:his|her)(?: or her)? name in my presence",
        r"equivalent of an affidavit",
        r"same penalties as if",
        r"signature of (?:the )?witness",
    ),
    marks=(
        r"witness",
        r"subscribed",
        r"eighteen",
        r"in my presence",
        r"penalt",
        r"equivalent",
        r"whose names",
        r"duly\s+qualified",
        r"post\s?office",
        # 9-902(8): "(residence address, or postoffice address if not identical) in the
        # Village of ... in the State of New York": what a band cut through the statement's
        # first lines holds when their other words are garbled (fresh held-out 1137)
        r"if\s+not\s+identical",
        r"in\s+the\s+state\s+of",
    ),
)
# The nominating petition, subd. 2: the notary's statement names no one and gives no residence.
NOTARY = Statement(
    "notary",
    re.compile(r"before\s+me\s+personally\s+came", _I),
    counts=COUNTS,
    outranks=True,
    wording=_phrases(
        r"on the dates? above indicated",
        r"whose signatures appear on this petition",
        r"signed (?:the )?same in my presence",
        r"being by me duly sworn",
        r"foregoing statement made and subscribed",
        r"officer administering (?:the )?oath",
        r"notary public|commissioner of deeds",
    ),
    marks=(
        r"notary",
        r"sworn",
        r"subscribed",
        r"in my presence",
        r"before\s+me",
        r"above\s+indicated",
        r"signatures\s+appear",
        r"personally\s+came",
    ),
)
# Village Law § 2-202(1)(e)(4): the authenticating affidavit, dated by its jurat.
AFFIDAVIT = Statement(
    "affidavit",
    re.compile(r"STATE\s+OF\s+NEW\s+YORK\s*\n|being\s+duly\s+sworn", _I),
    names=NAMES,
    residences=RESIDENCES,
    counts=COUNTS,
    jurat=JURAT,
    wording=_phrases(
        r"\bss\b\.?\s*:",
        r"I know each of the persons",
        r"subscribed to the above sheet",
        r"subscribed the same in my presence",
        r"sworn to before me",
        r"official title of officer",
    ),
    marks=(r"affidavit", r"sworn", r"subscribed", r"in my presence"),
)
# The statements the statutes give: what a reader looks for when it is given no others.
STANDARD_STATEMENTS: tuple[Statement, ...] = (NOTARY, AFFIDAVIT, WITNESS)

# Words a sheet's foot prints whatever its statement: the heading's "Statement", the "I, ..."
# that opens its first blank, the sheet number's caption ("Petition sheet No. __ (fill in
# number)"); and the header's "the undersigned", which a band cut high may hold.
FOOT_MARKS = (r"statement", r"\bI,", r"petition\s+sheet", r"fill\s+in\s+number", r"undersigned")


@functools.lru_cache(maxsize=16)
def prose_pattern(statements: tuple[Statement, ...] = STANDARD_STATEMENTS) -> re.Pattern[str]:
    """A line that reads as the wording of one of `statements` (or of a sheet's foot), not as
    a signature row: a row holds names, addresses and dates, never these words. The loose use
    of the statements' wording (their `marks`): the scan reader runs it on OCR of a band cut
    through the prose at a table's foot, which may hold only its middle lines, garbled."""
    marks = dict.fromkeys([*FOOT_MARKS, *(m for st in statements for m in st.marks)])
    return re.compile("|".join(marks), _I)


# The captions under the statement's date and signature blanks.
SIGNATURE_CAPTIONS = ("signature of witness", "signature and official title")
# 9-902(8): numbered "at the foot of each sheet"; forms print the caption in many ways, at the
# top or the foot: "Sheet No. 3", "Sheet #3", "Page No. 3", "Page 3 of 6", "Page __3__ of __6__",
# "Petition Sheet 3". Group 1 is the number; the blank's underscores may be printed as text.
_BLANK = r"[\s_.:]*"
SHEET_NUMBERS = (
    re.compile(rf"\b(?:Petition\s+)?Sheet\s+(?:No\.?|Number|#){_BLANK}(\d+)(?!\d)", _I),
    re.compile(rf"\b(?:Petition\s+)?Sheet\s+(?:#\s*)?{_BLANK}(\d+)(?!\d)", _I),
    re.compile(rf"\bPage\s+(?:No\.?|Number|#){_BLANK}(\d+)(?!\d)", _I),
    re.compile(rf"\bPage{_BLANK}(\d+)(?!\d)", _I),
)
# A caption with its number's blank, whatever is written in it (the number itself may be
# handwritten, or misread: "Sheet No. b"): a reader that finds the caption but no number in
# SHEET_NUMBERS looks at what follows the caption (`match.end()`) itself.
SHEET_CAPTIONS = re.compile(
    r"\b(?:(?:Petition\s+)?Sheet|Page)\s*(?:No\.?|Number|#)?(?=[\s_.:]|$)", _I
)


def find_sheet_number(text: str) -> tuple[int, int, str] | None:
    """The first sheet-number caption with its number in a text line: (start of the caption, end
    of the number, the number's digits), or None. "Page 3 of 6" -> 3; "Sheet No. __4__" -> 4."""
    for pattern in SHEET_NUMBERS:
        m = pattern.search(text)
        if m:
            return m.start(), m.end(1), m.group(1)
    return None


def statement_form(
    text: str, statements: Sequence[Statement] = STANDARD_STATEMENTS
) -> tuple[Statement, int, int] | None:
    """Which of the `statements` the text holds and the span of its opening words: the one
    whose opening comes first, unless one found that `outranks` the others. When no opening
    is found, the statement WORDING_MIN of whose phrases are (the most of them; the first
    found on a tie), its span empty at the start of the line above its first phrase's (its
    blanks are read from there on: the lost opening's line may hold the first of them, "I,
    ..., state")."""
    found = [(m.start(), m.end(), st) for st in statements if (m := st.opening.search(text))]
    if found:
        start, end, statement = min(found, key=lambda f: (f[0], f[1], f[2].form))
        statement = next((st for _, _, st in found if st.outranks), statement)
        return statement, start, end
    worded = []
    for st in statements:
        starts = [m.start() for p in st.wording if (m := p.search(text))]
        if len(starts) >= WORDING_MIN:
            worded.append((-len(starts), min(starts), st))
    if not worded:
        return None
    _, first, statement = min(worded, key=lambda f: (f[0], f[1], f[2].form))
    line = text.rfind("\n", 0, first)
    start = text.rfind("\n", 0, max(0, line)) + 1
    return statement, start, start
