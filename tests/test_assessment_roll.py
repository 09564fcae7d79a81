"""The assessment roll reader (synthetic rows; no real parcel or person)."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from matchers.assessment_roll import owner_id, parse_owner_name, read_roll
from pipeline.case import RollConfig
from pipeline.errors import InputMissingError, UnreadableInputError

HEADER = (
    "parcel_id,town,property_address,owner_name,mailing_address,resident,assessed_value,"
    "taxable,share_inside\n"
)
ROWS = [
    '12.1-1-1,Greenfield,12 Mill St,SMITH JOHN A,12 Mill St,Y,"90,000",Y,1',
    '12.1-1-1,Greenfield,12 Mill St,SMITH MARY B,12 Mill St,Y,"90,000",Y,1',
    "12.1-1-2,Greenfield,14 Mill St,SMITH JOHN A,12 Mill St,Y,50000,Y,0.25",
    "12.1-1-3,Greenfield,1 Church Rd,FIRST REFORMED CHURCH,1 Church Rd,N,300000,N,",
    "12.1-1-4,Greenfield,8 Oak Ave,ELMWOOD HOLDINGS LLC,PO Box 9 Albany,N,120000,Y,1",
    "12.1-1-5,Greenfield,9 Oak Ave,DOE JANE,9 Oak Ave,Y,lots,Y,1",
]


def roll(tmp_path, rows=ROWS, header=HEADER):
    path = tmp_path / "roll.csv"
    path.write_text(header + "\n".join(rows) + "\n", encoding="utf-8")
    return read_roll(RollConfig(path=path))


def test_parcels_owners_and_credits(tmp_path):
    r = roll(tmp_path)
    by_id = {h.parcel_id: h for h in r.holdings}
    assert len(by_id) == 4 and r.rows_read == 6
    john = owner_id("SMITH JOHN A", "12 Mill St")
    co_owned = by_id["12.1-1-1"]
    assert co_owned.assessed_value == 90_000 and len(co_owned.owners) == 2
    assert john in co_owned.resident_owners
    assert by_id["12.1-1-2"].share_inside == F(1, 4)
    assert by_id["12.1-1-3"].taxable is False
    assert john in by_id["12.1-1-2"].owners  # one owner, two parcels
    owners = {o.voter_id: o for o in r.owners}
    assert (owners[john].last_name, owners[john].first_name, owners[john].middle_name) == (
        "SMITH",
        "JOHN",
        "A",
    )
    assert (owners[john].house_number, owners[john].street_name) == ("12", "Mill St")
    assert [b.row for b in r.bad_rows] == [7]  # "lots" is no value: kept, with its row number
    assert r.bad_rows[0].problem == "assessed_value 'lots' is not a number"


@pytest.mark.parametrize(
    "name,expected",
    [
        ("SMITH JOHN A", ("SMITH", "JOHN", "A", False)),
        ("VAN DYKE ANNA", ("VAN", "DYKE", "ANNA", False)),  # a known limit: two-word surnames
        ("ELMWOOD HOLDINGS LLC", ("ELMWOOD HOLDINGS LLC", "", "", True)),
        ("JONES FAMILY TRUST", ("JONES FAMILY TRUST", "", "", True)),
        ("", ("", "", "", False)),
    ],
)
def test_parse_owner_name(name, expected):
    assert parse_owner_name(name) == expected


def test_owner_id_is_stable_across_spellings():
    assert owner_id("Smith, John A.", "12 Mill Street") == owner_id("SMITH JOHN A", "12 MILL ST")
    assert owner_id("SMITH JOHN A", "12 Mill St") != owner_id("SMITH JOHN A", "99 Elm St")


def test_rows_of_one_parcel_must_agree(tmp_path):
    rows = ROWS[:1] + ["12.1-1-1,Greenfield,12 Mill St,SMITH MARY B,12 Mill St,Y,80000,Y,1"]
    r = roll(tmp_path, rows)
    assert "differs from its row 2" in r.bad_rows[0].problem


def test_missing_column_and_missing_file(tmp_path):
    with pytest.raises(UnreadableInputError, match="assessed_value"):
        roll(
            tmp_path,
            ["1,Greenfield,x,SMITH JOHN,x,Y,Y,1"],
            header="parcel_id,town,property_address,owner_name,mailing_address,resident,"
            "taxable,share_inside\n",
        )
    with pytest.raises(InputMissingError, match="assessment roll does not exist"):
        read_roll(RollConfig(path=tmp_path / "nope.csv"))
    (tmp_path / "bin.csv").write_bytes(b"%PDF-1.4 \x00\x01")
    with pytest.raises(UnreadableInputError, match="not a CSV"):
        read_roll(RollConfig(path=tmp_path / "bin.csv"))


@pytest.mark.parametrize(
    "name,owners",
    [
        ("SMITH JOHN A & MARY B", ["SMITH JOHN A", "SMITH MARY B"]),
        ("SMITH JOHN AND JONES MARY", ["SMITH JOHN", "SMITH JONES MARY"]),
        ("SMITH JOHN & JONES MARY ANN", ["SMITH JOHN", "JONES MARY ANN"]),
        ("SMITH & SONS INC", ["SMITH & SONS INC"]),
        ("DOE JANE", ["DOE JANE"]),
    ],
)
def test_co_owners_on_one_roll_entry(name, owners):
    from matchers.assessment_roll import split_co_owners

    assert split_co_owners(name) == owners


def test_one_entry_naming_two_owners_makes_two_owners_of_the_parcel(tmp_path):
    r = roll(tmp_path, ["9,Greenfield,9 Oak Ave,DOE JANE & JOHN,9 Oak Ave,Y,80000,Y,1"])
    (parcel,) = r.holdings
    assert len(parcel.owners) == 2 and len(r.owners) == 2
