"""The shared column vocabulary (pipeline/columns.py) and sheet-number captions (pipeline/forms.py).
Synthetic titles and values only."""

from __future__ import annotations

import pytest

from pipeline.columns import join_parts, place_title, role_by_content
from pipeline.forms import SHEET_CAPTIONS, find_sheet_number


@pytest.mark.parametrize(
    ("title", "role", "exact"),
    [
        ("Date of Signing", "date", True),
        ("Signature of Elector", "signature", True),
        ("Signature of Voter", "signature", True),
        ("Signature and Residence", "signature_residence", True),
        ("Residence (Street and Number)", "residence", True),
        ("Street and Number", "street", True),
        ("Town or City", "town", True),
        ("City/Village", "town", True),
        ("No.", "line_number", True),
        ("E.D.", "election_district", True),
        ("Assessed Valuation", "valuation", True),
        # abbreviations, "No." and "#" suffixes, places alone or several
        ("Dist.", "election_district", True),
        ("Election Dist. No.", "election_district", True),
        ("Election District No.", "election_district", True),
        ("Elec. Dist.", "election_district", True),
        ("ED #", "election_district", True),
        ("Village Election\nDistrict\n(if any)", "election_district", True),
        ("Wd. No.", "ward", True),
        ("Street & No.", "street", True),
        ("House No. and Street", "street", True),
        ("Residence (Street & No.)", "residence", True),
        ("Place of Residence", "residence", True),
        ("Town/City", "town", True),
        ("City, Town or Village", "town", True),
        ("Signature of Registered Voter", "signature", True),
        ("Owner's Signature", "signature", True),
        ("Name of Owner", "name", True),
        ("Line No.", "line_number", True),
        ("Sheet No.", None, False),
        ("riinted Name", "name", False),  # an OCR slip
        ("Signature of the Elector", "signature", True),
        ("Signatures of Electors", "signature", False),  # reworded
        ("Notes", None, False),
        ("Remarks", None, False),
        ("", None, False),
    ],
)
def test_place_title(title: str, role: str | None, exact: bool) -> None:
    m = place_title(title)
    assert (m.role if m else None) == role
    if m is not None:
        assert m.exact is exact


@pytest.mark.parametrize(
    ("title", "role"),
    [
        # titles no pattern accepts, placed by what their words say
        ("Name of Signer (Signature required. Printed name may be added)", "signature"),
        ("Enter Town or City (Except NYC enter county)", "town"),
        ("Month/Day/Year", "date"),
        ("Print Your Name Here", "name"),
        ("Voter's Address", "residence"),
        ("Sign Your Name", "signature"),
        ("Village of Residence", "town"),  # the place first (the whole title: a residence)
        ("Residence (Town)", "residence"),
        ("Signature of Signer, Residence", "signature_residence"),
        ("Address (Street, Number, Apt.)", "residence"),
        ("Village Electon Distrct", "election_district"),  # two slips
        ("Signature of Resident", "signature"),  # whose signature, not a residence
        # two titles run together, a column of no line field, prose: nothing placed
        ("Town or City Election District No.", None),
        ("Town or CitElection District No", None),  # ... read as OCR read them
        ("District (Village)", None),  # a place after it: forms print it before
        ("Name and Address", None),
        ("Signature Printed Name", None),
        ("Date of Birth", None),
        ("Signature of Witness", None),
        ("Tax Map No.", None),
        ("Apt. No.", None),
        ("Telephone", None),
        ("- - -", None),  # no word at all
        # a title cell that took in entries under its title (a rule under the titles lost)
        ("Date 9/17/26 9/17/26", None),
        ("Printed Name Lins R Byfely Lak Sollowby", None),
        ("V0ter's Address", "residence"),  # a letter read as a figure is a slip
        ("Remarks", None),
        ("Horne Street Address", "street"),  # "Horne" is one slip from "phone": no veto
        (
            "we the undersigned qualified voters of the town of elmwood residing at the addresses",
            None,
        ),
    ],
)
def test_a_title_no_pattern_accepts_is_placed_by_its_words(title: str, role: str | None) -> None:
    m = place_title(title)
    assert (m.role if m else None) == role
    assert m is None or not m.exact


def test_join_parts_street_and_town() -> None:
    got = join_parts(
        {"date": "10/1", "street": "12 Oak St", "town": "Elmwood Falls", "line_number": "3"}
    )
    assert got == {"date": "10/1", "residence": "12 Oak St, Elmwood Falls"}
    assert join_parts({"street": "", "town": ""}) == {"residence": ""}
    assert join_parts({"residence": "4 Elm St"}) == {"residence": "4 Elm St"}


def test_join_parts_residence_beside_a_town_column() -> None:
    """A "Residence" column beside a "Town" column: the town is not dropped, nor said twice."""
    got = join_parts({"residence": "4 Elm St", "town": "Elmwood Falls"})
    assert got == {"residence": "4 Elm St, Elmwood Falls"}
    got = join_parts({"residence": "4 Elm St, Elmwood Falls", "town": "Elmwood Falls"})
    assert got == {"residence": "4 Elm St, Elmwood Falls"}
    assert join_parts({"residence": "", "town": "Elmwood Falls"}) == {"residence": "Elmwood Falls"}


def test_role_by_content() -> None:
    assert role_by_content(["10/2/2026", "Oct 3", "10-4", ""]) == "date"
    assert role_by_content(["12 Oak St", "4B Mill Rd", "190 1/2 Main St"]) == "residence"
    assert role_by_content(["1", "2", "3", "4"]) == "line_number"
    assert role_by_content(["$90,000", "120,500"]) == "valuation"
    assert role_by_content(["2", "1", "2"]) is None  # ward or district: not told apart
    assert role_by_content(["Dana Reyes"]) is None  # too few


@pytest.mark.parametrize(
    ("line", "number"),
    [
        ("Sheet No. 3", "3"),
        ("Sheet No 12", "12"),
        ("Sheet #4", "4"),
        ("Page No. 5", "5"),
        ("Page 3 of 6", "3"),
        ("Page __7__ of __9__", "7"),
        ("Petition Sheet 2", "2"),
        ("Sheet Number: 8", "8"),
        ("this petition sheet containing 8 (fill in number) signatures", None),
        ("Page No. b", None),
    ],
)
def test_find_sheet_number(line: str, number: str | None) -> None:
    got = find_sheet_number(line)
    assert (got[2] if got else None) == number


def test_sheet_caption_without_a_number() -> None:
    m = SHEET_CAPTIONS.search("Page No. b")
    assert m is not None and m.group(0).lower().startswith("page")


# Titles forms print that the exact patterns accept (invented for no form in particular).
PRINTED_TITLES = {
    "Date of Signature": "date",
    "Sign Here": "signature",
    "Signature of Owner": "signature",
    "Full Name": "name",
    "Name of Signer": "name",
    "Home Address": "residence",
    "Place of Residence": "residence",
    "Residence where registered": "residence",
    "House Number and Street": "street",
    "Election District": "election_district",
    "Assessed Valuation": "valuation",
}


def _slipped(title: str) -> str:
    """The title with the letter at its middle lost (a space there: the letter after it)."""
    middle = len(title) // 2
    middle += title[middle] == " "
    return title[:middle] + title[middle + 1 :]


@pytest.mark.parametrize(("title", "role"), sorted(PRINTED_TITLES.items()))
def test_a_title_the_patterns_accept_is_placed_one_letter_misread(title: str, role: str) -> None:
    """A form's title the exact patterns accept, read by OCR with one letter lost, lands where
    the exact one would: the fuzzy vocabulary holds the forms the patterns accept."""
    m = place_title(title)
    assert m is not None and (m.role, m.exact) == (role, True)
    m = place_title(_slipped(title))
    assert m is not None and m.role == role, _slipped(title)


def test_the_fuzzy_vocabulary_agrees_with_the_exact_patterns() -> None:
    """Each title of the fuzzy vocabulary is placed exactly in its own role."""
    from pipeline.columns import COLUMN_TITLES

    for role, titles in COLUMN_TITLES.items():
        for title in titles:
            m = place_title(title)
            assert m is not None and m.role == role and m.exact, title
