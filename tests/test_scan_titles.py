"""A table's columns placed by their titles and their content (pipeline/scan/titles.py)."""

from __future__ import annotations

import pytest

from pipeline.scan.titles import (
    LINE_NO,
    SIGNATURE_RESIDENCE,
    STREET,
    TOWN,
    kind_of_content,
    map_title,
    place_columns,
    with_content,
)


@pytest.mark.parametrize(
    ("title", "kind"),
    [
        ("riinted Name", "name"),  # a letter OCR garbled
        ("Village Election\nDistrict\n(if any)", "election_district"),
        ("Date Signed", "date"),
        ("Date of\nSigning", "date"),
        ("Signature of\nElector", "signature"),
        ("Signature\nElector", "signature"),  # a word lost
        ("Sign Here", "signature"),
        ("No.", LINE_NO),
        ("E.D.", "election_district"),
        ("Street and\nNumber", STREET),
        ("City/Village", TOWN),
        ("City / Village", TOWN),
        ("Signature and\nResidence", SIGNATURE_RESIDENCE),
        ("Signature-Residence", SIGNATURE_RESIDENCE),
        ("Residence (Street and Number)", "residence"),
        ("\u2018Ward No.", "ward"),  # a speck before the title read as a quote mark
        ('"Date', "date"),
        ("Voter's Signature", "signature"),
        ("Remarks", None),
        ("", None),
    ],
)
def test_titles_map_to_column_kinds(title: str, kind: str | None) -> None:
    assert map_title(title) == kind


def test_a_split_residence_and_a_line_number_column_are_placed() -> None:
    cols = place_columns(["No.", "Date", "Signature", "Street and Number", "Town", "Ward"])
    assert cols.kinds == (LINE_NO, "date", "signature", STREET, TOWN, "ward")
    assert cols.fields == ("date", "signature", "residence", "ward")
    assert cols.doubts == ()


def test_a_combined_cell_gives_signature_and_residence_unless_residence_has_its_own() -> None:
    combined = place_columns(["Date", "Signature and Residence", "E.D."])
    assert combined.fields == ("date", "signature", "residence", "election_district")
    own = place_columns(["Date", "Signature-Residence", "Residence"])
    assert own.kinds == ("date", "signature", "residence")


def test_what_cannot_be_placed_is_a_doubt() -> None:
    cols = place_columns(["Date", "Signature", "Remarks"])
    assert "a column titled 'Remarks' could not be placed" in cols.doubts
    assert "no residence column was found" in cols.doubts
    assert place_columns(["Date", "Signature", "Printed Name", "Residence"]).doubts == ()


def test_a_title_word_a_column_boundary_cut_goes_whole_to_the_right() -> None:
    # Held-out 1139: "Village" and "Election District No." set close, the boundary between
    # their columns fell inside "Election" and took its "t": read as cut, the village's
    # column was placed as the district and the district's (a second one) as nothing.
    titles = ["Signing Date", "Signature", "Number and Street", "Village Elec", "ion District No"]
    cols = place_columns(titles)
    assert cols.kinds[-2:] == (TOWN, "election_district")
    assert cols.doubts == ()
    # a cut inside one title moves nothing where the word's kind is another column's
    cut = place_columns(["Date of Sig", "nature", "Signature", "Residence"])
    assert cut.kinds == ("date", None, "signature", "residence")
    # nor where the two parts do not make a title word
    assert place_columns(["Date", "Signature", "Residence Town", "xyz"]).kinds[-1] is None


def test_an_unplaced_column_is_typed_by_its_content() -> None:
    cols = place_columns(["Date", "Signature", "Printed Name", "Adrs"])
    kind = kind_of_content([("12 Elm St", 0.9), ("7 Mill Rd", 0.95), ("310 Orchard Ln", 0.9)])
    assert kind == "residence"
    placed = with_content(cols, 3, kind)
    assert placed.kinds[3] == "residence" and placed.doubts == ()
    # content that does not agree, or small numbers (ward or district?), places nothing
    assert kind_of_content([("12 Elm St", 0.9), ("10/3/26", 0.9)]) is None
    assert kind_of_content([("3", 0.9), ("2", 0.9)]) is None
    assert kind_of_content([("10/3/26", 0.9), ("9-30-2026", 0.8)]) == "date"
    assert kind_of_content([("", 0.0), ("Jnh Q", 0.3)]) == "signature"
    # a kind the table already has is not given twice
    assert with_content(cols, 3, "date") == cols


def test_ink_in_a_second_column_is_no_second_signature() -> None:
    # A "Signature-Residence" column gives the signature: an untitled column of handwriting
    # (dates whose title was not read) is not typed as a signature column beside it, so the
    # sheet's Date column stays unplaced (a doubt, the sheet to a person), never read as ink.
    cols = place_columns(["", "Signature-Residence", "Ward", "Election District"])
    assert with_content(cols, 0, "signature") == cols
    assert with_content(cols, 0, "date").kinds[0] == "date"
