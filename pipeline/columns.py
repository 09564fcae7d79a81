"""Map a printed column title of the signature table to a canonical field name.

Village Law § 9-902(8) requires "the correct date of signing, the full name of the signer, his
present residence, the ward if any and the village election district if any"; its statutory
form prints the columns Date | Signature-Residence | Ward if any | Village Election District if
any. Sheets in the wild print them in many spellings, so the mapping is a table of patterns,
tried in order, first match wins. Used by the text-layer reader and by the OCR reader, so this
module knows nothing of PDFs.
"""

from __future__ import annotations

import re

from .records import FIELD_NAMES

__all__ = ["HEADER_PATTERNS", "map_header", "normalize_header"]

# (pattern over the normalized title, canonical field). Order matters: the more specific
# patterns come first ("Signature-Residence" before "Residence", "Printed Name" before "Name",
# "Election District" before a bare "District").
HEADER_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(p), f)
    for p, f in (
        # The statute's own combined column: the signature is what makes the line; the
        # residence written in the same cell is read with it (9-902(8) form).
        (r"^signature\s*[-/&]?\s*(and\s+)?residence$", "signature"),
        (r"^(date|date signed|date of signing)$", "date"),
        (r"^(signature|signature of signer|signer'?s signature|sign here)$", "signature"),
        (r"^(printed name|print name|name printed|name of signer|full name|name)$", "name"),
        (r"^(residence|residence address|address|present residence|home address)$", "residence"),
        (r"^ward( if any)?$", "ward"),
        (
            r"^((village )?election district( if any)?|e ?d|ed( if any)?|district( if any)?)$",
            "election_district",
        ),
        (r"^(amount of )?(assessed )?(valuation|value)( credited)?$", "valuation"),
    )
)
assert all(f in FIELD_NAMES for _, f in HEADER_PATTERNS)


def normalize_header(text: str) -> str:
    """Lower-case, drop parentheses, dots and colons, collapse line breaks and spaces."""
    t = text.lower().replace("\u2019", "'")
    t = re.sub(r"[().:,*]", " ", t)
    t = re.sub(r"\s*-\s*", "-", t)
    t = re.sub(r"\s+", " ", t).strip()
    return t


def map_header(text: str) -> str | None:
    """The canonical field (one of records.FIELD_NAMES) a column title stands for, or None.

    Case-insensitive and tolerant of line breaks and extra spaces: "Village Election\\nDistrict
    (if any)" -> "election_district", "E.D." -> "election_district", "Signature-Residence"
    (the combined column of the 9-902(8) form) -> "signature"."""
    t = normalize_header(text or "")
    if not t:
        return None
    for pattern, field in HEADER_PATTERNS:
        if pattern.match(t):
            return field
    return None
