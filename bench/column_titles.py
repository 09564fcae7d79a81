"""Column titles printed forms use, placed by `pipeline.columns.place_title`: how many are placed
right, how many wrong (a column read as another: must be 0) and how many left unplaced (the
sheet goes to a person for its columns), on a development list (tuned on) and a held-out list
(written before the vocabulary's word layer was built, and never tuned on), each as printed and
with OCR slips (one character per title dropped, doubled or swapped for a look-alike, five
draws a title, seeded).

    .venv/bin/python bench/column_titles.py            # the figures
    .venv/bin/python bench/column_titles.py --list     # every title not placed right

The titles are the wordings of real New York forms and print shops' variants of them, typed
here; no person's data. A role in {street, residence} counts either way where the title alone
cannot say whether a town column stands beside it; a title of no line field ("Tax Map No.")
is right when nothing is placed.
"""

from __future__ import annotations

import argparse
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pipeline.columns import place_title  # noqa: E402

# (title, its role; None: no line field's column, nothing is to be placed)
DEV: tuple[tuple[str, str | None], ...] = (
    ("Name of Signer (Signature required. Printed name may be added)", "signature"),
    ("Enter Town or City (Except NYC enter county)", "town"),
    ("Enter Town or City", "town"),
    ("Month/Day/Year", "date"),
    ("Print Your Name Here", "name"),
    ("Voter's Address", "residence"),
    ("Current Address", "residence"),
    ("Residence Address (No P.O. Box)", "residence"),
    ("Signature (in ink)", "signature"),
    ("Sign Your Name", "signature"),
    ("Mo. Day Yr.", "date"),
    ("Village of Residence", "town"),
    ("Legal Residence", "residence"),
    ("Address (Street, Number, Apt.)", "residence"),
    ("Print Full Name", "name"),
    ("Street Address and Apt. No.", "street"),
    ("Signature of Signer, Residence", "signature_residence"),
    ("Address of Property", "residence"),
    ("Tax Map No.", None),
    ("Date", "date"),
    ("Date of Signing", "date"),
    ("Signature of Elector", "signature"),
    ("Printed Name", "name"),
    ("Residence (Street and Number)", "residence"),
    ("Street and Number", "street"),
    ("Town or City", "town"),
    ("City/Village", "town"),
    ("Ward", "ward"),
    ("Election District", "election_district"),
    ("E.D.", "election_district"),
    ("No.", "line_number"),
    ("Assessed Valuation", "valuation"),
    ("Signature and Residence", "signature_residence"),
    ("Village Election District (if any)", "election_district"),
)

# Written before the word layer, not looked at while it was built.
HELDOUT: tuple[tuple[str, str | None], ...] = (
    ("Date (mm/dd/yyyy)", "date"),
    ("Today's Date", "date"),
    ("Signature of Resident", "signature"),
    ("Your Signature", "signature"),
    ("Printed Name (Last, First)", "name"),
    ("Name in Print", "name"),
    ("Permanent Residence", "residence"),
    ("Residential Address", "residence"),
    ("Home Street Address", "street"),
    ("City, Town or Village", "town"),
    ("Town of Residence", "town"),
    ("Election Dist. No.", "election_district"),
    ("District No.", "election_district"),
    ("Ward (if applicable)", "ward"),
    ("Signature and Address of Signer", "signature_residence"),
    ("Line #", "line_number"),
    ("Assessed Value of Property", "valuation"),
    ("Date of Signing (Month/Day/Year)", "date"),
    ("Name of Voter (Print)", "name"),
    ("Elector's Signature", "signature"),
    ("Address Where Registered", "residence"),
    ("Signature of Property Owner", "signature"),
    ("Owner's Printed Name", "name"),
    ("Street & House No.", "street"),
)

_STREETISH = {"street", "residence"}
_LOOKALIKE = {"i": "l", "l": "1", "o": "0", "e": "c", "n": "m", "m": "rn", "a": "o", "S": "5"}


def _right(got: str | None, want: str | None) -> bool:
    return got == want or (got in _STREETISH and want in _STREETISH)


def _slips(title: str, rng: random.Random, draws: int) -> list[str]:
    """The title with one OCR slip each: a letter dropped, doubled or read as a look-alike."""
    out = []
    letters = [k for k, ch in enumerate(title) if ch.isalpha()]
    for _ in range(draws):
        k = rng.choice(letters)
        kind = rng.choice(("drop", "double", "lookalike"))
        ch = title[k]
        new = "" if kind == "drop" else ch * 2 if kind == "double" else _LOOKALIKE.get(ch, ch)
        out.append(title[:k] + new + title[k + 1 :])
    return out


@dataclass
class Tally:
    right: int = 0
    wrong: int = 0
    unplaced: int = 0
    misses: list[tuple[str, str | None, str | None]] = field(default_factory=list)


def score(titles: tuple[tuple[str, str | None], ...], slips: int, seed: int) -> Tally:
    rng = random.Random(seed)
    tally = Tally()
    for title, want in titles:
        for text in [title] if not slips else _slips(title, rng, slips):
            m = place_title(text)
            got = None if m is None else m.role
            if _right(got, want):
                tally.right += 1
                continue
            if got is None:
                tally.unplaced += 1
            else:
                tally.wrong += 1
            tally.misses.append((text, want, got))
    return tally


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="every title not placed right")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    print(f"{'':28}{'right':>14}{'wrong':>8}{'unplaced':>10}")
    for name, titles in (("dev", DEV), ("held out", HELDOUT)):
        for label, slips in (("as printed", 0), ("one OCR slip (x5)", 5)):
            t = score(titles, slips, args.seed)
            n = t.right + t.wrong + t.unplaced
            right = f"{t.right}/{n} ({100 * t.right / n:.1f}%)"
            print(f"{name + ', ' + label:28}{right:>14}{t.wrong:>8}{t.unplaced:>10}")
            if args.list:
                for text, want, got in t.misses:
                    print(f"    {text!r}: {want} -> {got}")


if __name__ == "__main__":
    main()
