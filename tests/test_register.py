"""read_register: the NYS BOE export (45 and 47 fields) and the generic CSV.

Test files are written in tmp_path from invented values (no real person's data); the shared
sample is the BOE layout filled with fake values (shared/reference/voter-file-layouts/).
"""

from __future__ import annotations

import csv
import datetime as dt
from pathlib import Path

import pytest

from matchers.register import NYSBOE_45_FIELDS, NYSBOE_47_FIELDS, BadRow, read_register
from pipeline.case import RegisterConfig, RegisterFormat
from pipeline.errors import CaseFileError, InputMissingError, UnreadableInputError

SHARED = Path(__file__).parents[1] / ".." / "shared"
SAMPLE = SHARED / "reference" / "voter-file-layouts" / "nysboe-sample-fake-values.csv"
DATA = Path(__file__).parent / "data"

GENERIC_COLUMNS = {
    "voter_id": "Voter ID",
    "last_name": "Last Name",
    "first_name": "First Name",
    "middle_name": "Middle",
    "suffix": "Suffix",
    "house_number": "House No",
    "street_name": "Street",
    "apartment": "Apt",
    "city": "City",
    "zip5": "Zip",
    "ward": "Ward",
    "election_district": "ED",
    "status": "Status",
    "registration_date": "Registered",
    "inactive_date": "Inactive Since",
}


def nys_row(layout: tuple[str, ...], **values: str) -> list[str]:
    """A row of the given layout, every field empty except those given (by BOE field name)."""
    unknown = set(values) - set(layout)
    assert not unknown, unknown
    return [values.get(name, "") for name in layout]


PERSON = dict(
    LASTNAME="Quillfeather",
    FIRSTNAME="Ansel",
    MIDDLENAME="Bram",
    NAMESUFFIX="JR",
    RADDNUMBER="12",
    RHALFCODE="1/2",
    RAPARTMENT="3B",
    RPREDIRECTION="N",
    RSTREETNAME="MAIN ST",
    RPOSTDIRECTION="SW",
    RCITY="HARROWGATE",
    RZIP5="12345",
    COUNTYCODE="60",
    ED="7",
    TOWNCITY="OLDTOWN",
    WARD="2",
    REGDATE="20010415",
    STATUS="A",
    REASONCODE="",
    INACT_DATE="",
    PURGE_DATE="",
    SBOEID="NY000000000000000001",
)


def write_csv(
    path: Path, rows: list[list[str]], encoding: str = "utf-8", quoting: int = csv.QUOTE_ALL
) -> Path:
    with path.open("w", encoding=encoding, newline="") as fh:
        csv.writer(fh, quoting=quoting, lineterminator="\r\n").writerows(rows)
    return path


def nys(path: Path) -> RegisterConfig:
    return RegisterConfig(path=path, format=RegisterFormat.NYSBOE)


# --------------------------------------------------------------------------------------------
# The shared sample (45 fields, unquoted, single spaces for empty values)
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sample():
    if not SAMPLE.is_file():
        pytest.skip(f"{SAMPLE} is absent (../shared is not mounted)")
    return read_register(nys(SAMPLE))


def test_sample_reads_every_row_as_45_fields(sample):
    assert sample.layout == "nysboe-45"
    assert sample.rows_read == 100
    assert len(sample.entries) == 100
    assert sample.bad_rows == ()
    assert [e.source_row for e in sample.entries] == list(range(1, 101))
    assert len(sample.sha256) == 64


def test_sample_row_1_field_by_field(sample):
    # White,Christopher,Taylor,DVM,5500, , ,N,Julie Greens, ,Cobbmouth,36651,... (file row 1)
    e = sample.entries[0]
    assert (e.last_name, e.first_name, e.middle_name, e.suffix) == (
        "White",
        "Christopher",
        "Taylor",
        "DVM",
    )
    assert (e.house_number, e.half_code, e.apartment) == ("5500", "", "")
    assert (e.pre_direction, e.street_name, e.post_direction) == ("N", "Julie Greens", "")
    assert (e.city, e.zip5) == ("Cobbmouth", "36651")
    assert (e.county_code, e.election_district, e.town_city, e.ward) == (
        "43",
        "19",
        "Annfort",
        "23",
    )
    assert (e.status, e.reason_code) == ("17", "ADJ-INCOMP")
    assert e.registration_date == dt.date(1987, 3, 19)
    assert e.inactive_date == dt.date(2002, 12, 29)
    assert e.purge_date == dt.date(1979, 3, 25)
    assert e.voter_id == "NY000000000516239749"


def test_sample_row_2_field_by_field(sample):
    # Williams,Adam, , ,322,1/2,377,S,Ashley Lodge,W,Tammyborough,23504, ,... (file row 2)
    e = sample.entries[1]
    assert (e.last_name, e.first_name, e.middle_name, e.suffix) == ("Williams", "Adam", "", "")
    assert (e.house_number, e.half_code, e.apartment) == ("322", "1/2", "377")
    assert (e.pre_direction, e.street_name, e.post_direction) == ("S", "Ashley Lodge", "W")
    assert (e.city, e.zip5) == ("Tammyborough", "23504")
    assert (e.county_code, e.election_district, e.town_city, e.ward) == (
        "68",
        "20",
        "East Daniel",
        "3",
    )
    assert (e.status, e.reason_code) == ("P", "RETURN-MAIL")
    assert e.registration_date == dt.date(2001, 6, 5)
    assert e.inactive_date == dt.date(1974, 4, 24)
    assert e.purge_date == dt.date(1995, 5, 17)
    assert e.voter_id == "NY000000000593137216"
    assert e.source_row == 2


def test_sample_blank_dates_are_none(sample):
    # Row 5: INACT_DATE and PURGE_DATE are " ".
    e = sample.entries[4]
    assert e.voter_id == "NY000000000372393504"
    assert e.inactive_date is None and e.purge_date is None
    assert e.status == "I" and e.reason_code == "MOVED"


# --------------------------------------------------------------------------------------------
# Written files: 45 and 47 fields, bad rows, encodings
# --------------------------------------------------------------------------------------------


def test_quoted_45_field_file(tmp_path):
    other = dict(PERSON, SBOEID="NY000000000000000002", FIRSTNAME="Odile", NAMESUFFIX="")
    path = write_csv(
        tmp_path / "r45.csv",
        [nys_row(NYSBOE_45_FIELDS, **PERSON), nys_row(NYSBOE_45_FIELDS, **other)],
    )
    r = read_register(nys(path))
    assert r.layout == "nysboe-45"
    assert r.rows_read == 2 and len(r.entries) == 2 and r.bad_rows == ()
    e = r.entries[0]
    assert e.voter_id == "NY000000000000000001"
    assert (e.house_number, e.half_code, e.apartment) == ("12", "1/2", "3B")
    assert (e.pre_direction, e.street_name, e.post_direction) == ("N", "MAIN ST", "SW")
    assert e.address == "12 1/2 N MAIN ST SW Apt 3B"
    assert e.registration_date == dt.date(2001, 4, 15)
    assert r.entries[1].first_name == "Odile"


def test_47_field_file(tmp_path):
    row = nys_row(
        NYSBOE_47_FIELDS, **PERSON, RAPARTMENTTYPE="APT", RADDRNONSTD="", LASTVOTERDATE="20221108"
    )
    # Independent of the table in the code: our reading puts RAPARTMENTTYPE, RAPARTMENT and
    # RADDRNONSTD at fields 10-12, and SBOEID second to last.
    assert len(row) == 47
    assert row[9:12] == ["APT", "3B", ""]
    assert row[45] == "NY000000000000000001"
    path = write_csv(tmp_path / "r47.csv", [row])
    r = read_register(nys(path))
    assert r.layout == "nysboe-47"
    e = r.entries[0]
    assert e.voter_id == "NY000000000000000001"
    assert (e.last_name, e.first_name, e.middle_name, e.suffix) == (
        "Quillfeather",
        "Ansel",
        "Bram",
        "JR",
    )
    assert (e.house_number, e.half_code, e.apartment) == ("12", "1/2", "3B")
    assert (e.pre_direction, e.street_name, e.post_direction) == ("N", "MAIN ST", "SW")
    assert (e.city, e.zip5, e.town_city, e.ward, e.election_district, e.county_code) == (
        "HARROWGATE",
        "12345",
        "OLDTOWN",
        "2",
        "7",
        "60",
    )
    assert e.status == "A"
    assert e.registration_date == dt.date(2001, 4, 15)


def test_47_non_standard_address_kept_as_street(tmp_path):
    values = {
        k: v
        for k, v in PERSON.items()
        if k not in ("RADDNUMBER", "RHALFCODE", "RSTREETNAME", "RAPARTMENT")
    }
    row = nys_row(NYSBOE_47_FIELDS, **values, RADDRNONSTD="CARETAKER COTTAGE, OLD MILL RD")
    r = read_register(nys(write_csv(tmp_path / "r.csv", [row])))
    assert r.entries[0].street_name == "CARETAKER COTTAGE, OLD MILL RD"


def test_row_with_wrong_field_count_is_a_bad_row(tmp_path):
    good = nys_row(NYSBOE_45_FIELDS, **PERSON)
    short = good[:44]
    path = write_csv(tmp_path / "r.csv", [good, short, good])
    r = read_register(nys(path))
    assert r.rows_read == 3
    assert [e.source_row for e in r.entries] == [1, 3]
    assert len(r.bad_rows) == 1
    assert r.bad_rows[0].row == 2
    assert "44 fields" in r.bad_rows[0].problem


def test_47_field_row_in_a_45_field_file_is_a_bad_row(tmp_path):
    rows = [nys_row(NYSBOE_45_FIELDS, **PERSON), nys_row(NYSBOE_47_FIELDS, **PERSON)]
    r = read_register(nys(write_csv(tmp_path / "r.csv", rows)))
    assert r.layout == "nysboe-45"
    assert [b.row for b in r.bad_rows] == [2]
    assert "nysboe-45" in r.bad_rows[0].problem


@pytest.mark.parametrize("bad_date", ["20011345", "2001041", "April 1", "2001-04-15"])
def test_bad_date_makes_a_bad_row(tmp_path, bad_date):
    rows = [
        nys_row(NYSBOE_45_FIELDS, **PERSON),
        nys_row(NYSBOE_45_FIELDS, **dict(PERSON, INACT_DATE=bad_date)),
    ]
    r = read_register(nys(write_csv(tmp_path / "r.csv", rows)))
    assert len(r.entries) == 1
    assert r.bad_rows[0].row == 2
    assert "INACT_DATE" in r.bad_rows[0].problem and bad_date in r.bad_rows[0].problem


def test_rows_without_id_or_any_name_are_bad_rows_and_one_without_a_surname_is_kept(tmp_path):
    rows = [
        nys_row(NYSBOE_45_FIELDS, **PERSON),
        nys_row(NYSBOE_45_FIELDS, **dict(PERSON, SBOEID="")),
        nys_row(NYSBOE_45_FIELDS, **dict(PERSON, SBOEID="NY2", LASTNAME=" ")),
        nys_row(NYSBOE_45_FIELDS, **dict(PERSON, SBOEID="NY3", LASTNAME="", FIRSTNAME="")),
    ]
    r = read_register(nys(write_csv(tmp_path / "r.csv", rows)))
    assert [(b.row, b.problem) for b in r.bad_rows] == [
        (2, "no SBOEID"),
        (4, "no LASTNAME and no FIRSTNAME"),
    ]
    kept = [e for e in r.entries if e.voter_id == "NY2"]
    assert kept and kept[0].last_name == "" and kept[0].first_name == PERSON["FIRSTNAME"]
    assert r.incomplete == (BadRow(3, "no last name; kept"),)
    assert r.rows_read == len(r.entries) + len(r.bad_rows) == 4


def test_latin1_file_reads(tmp_path):
    row = nys_row(NYSBOE_45_FIELDS, **dict(PERSON, LASTNAME="Muñoz", FIRSTNAME="José"))
    path = write_csv(tmp_path / "r.csv", [row], encoding="latin-1")
    assert "Muñoz".encode("latin-1") in path.read_bytes()
    r = read_register(nys(path))
    assert (r.entries[0].last_name, r.entries[0].first_name) == ("Muñoz", "José")


def test_utf8_file_reads(tmp_path):
    row = nys_row(NYSBOE_45_FIELDS, **dict(PERSON, LASTNAME="Muñoz"))
    r = read_register(nys(write_csv(tmp_path / "r.csv", [row], encoding="utf-8-sig")))
    assert r.entries[0].last_name == "Muñoz"
    assert r.entries[0].source_row == 1


def test_header_row_is_not_a_voter(tmp_path):
    rows = [list(NYSBOE_45_FIELDS), nys_row(NYSBOE_45_FIELDS, **PERSON)]
    r = read_register(nys(write_csv(tmp_path / "r.csv", rows)))
    assert r.rows_read == 1 and r.bad_rows == ()
    assert r.entries[0].source_row == 2


def test_nysboe_file_with_no_good_row_is_unreadable(tmp_path):
    path = write_csv(tmp_path / "r.csv", [["a", "b", "c"], ["d", "e"]])
    with pytest.raises(UnreadableInputError) as err:
        read_register(nys(path))
    assert str(path) in err.value.message and "3 fields" in err.value.message


def test_empty_file_is_unreadable(tmp_path):
    path = tmp_path / "empty.csv"
    path.write_text("")
    with pytest.raises(UnreadableInputError, match="no rows"):
        read_register(nys(path))


# --------------------------------------------------------------------------------------------
# Generic CSV
# --------------------------------------------------------------------------------------------


def test_generic_csv_with_mapping():
    path = DATA / "register-generic.csv"
    r = read_register(RegisterConfig(path=path, format=RegisterFormat.CSV, columns=GENERIC_COLUMNS))
    assert r.layout == "csv"
    assert r.rows_read == 7
    # V0006 has no last name: kept (matched on the rest), not a bad row
    assert [e.voter_id for e in r.entries] == ["V0001", "V0002", "V0003", "V0006", "V0007"]
    assert [e.source_row for e in r.entries] == [2, 3, 4, 7, 8]
    a, b, c, _, _ = r.entries
    assert (a.last_name, a.first_name, a.middle_name, a.suffix) == (
        "Quillfeather",
        "Ansel",
        "B",
        "",
    )
    assert (a.house_number, a.street_name, a.city, a.zip5) == (
        "12",
        "Main St",
        "Harrowgate",
        "12345",
    )
    assert (a.ward, a.election_district, a.status) == ("1", "3", "A")
    assert a.registration_date == dt.date(2001, 4, 15)
    assert b.suffix == "Jr" and b.registration_date == dt.date(2019, 4, 16)
    assert c.apartment == "3" and c.registration_date == dt.date(2010, 3, 1)
    assert c.inactive_date == dt.date(2020, 1, 5)
    assert a.inactive_date is None and a.purge_date is None
    problems = {b.row: b.problem for b in r.bad_rows}
    assert set(problems) == {5, 6}
    assert "Voter ID" in problems[5]
    assert "Registered" in problems[6] and "2005-13-01" in problems[6]


def test_generic_csv_missing_mapped_column(tmp_path):
    columns = dict(GENERIC_COLUMNS, ward="Ward Number")
    cfg = RegisterConfig(
        path=DATA / "register-generic.csv", format=RegisterFormat.CSV, columns=columns
    )
    with pytest.raises(UnreadableInputError) as err:
        read_register(cfg)
    assert "Ward Number" in err.value.message
    assert "register-generic.csv" in err.value.message


def test_generic_csv_headers_match_case_insensitively(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("VOTER ID,LAST NAME,FIRST NAME\nV1,Quillfeather,Ansel\n")
    cfg = RegisterConfig(
        path=path,
        format=RegisterFormat.CSV,
        columns={"voter_id": "Voter ID", "last_name": "Last Name", "first_name": "First Name"},
    )
    assert read_register(cfg).entries[0].voter_id == "V1"


def test_generic_csv_row_with_extra_fields_is_bad(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text(
        "id,last,first\nV1,Quillfeather,Ansel\nV2,Marchbanks,Odile,extra\nV3,Tremaine,Ysolde,\n"
    )
    cfg = RegisterConfig(
        path=path,
        format=RegisterFormat.CSV,
        columns={"voter_id": "id", "last_name": "last", "first_name": "first"},
    )
    r = read_register(cfg)
    assert [e.voter_id for e in r.entries] == ["V1", "V3"]
    assert [b.row for b in r.bad_rows] == [3]


def test_generic_csv_unknown_field_in_mapping(tmp_path):
    cfg = RegisterConfig(
        path=DATA / "register-generic.csv",
        format=RegisterFormat.CSV,
        columns=dict(GENERIC_COLUMNS, birthday="DOB"),
    )
    with pytest.raises(CaseFileError, match="birthday"):
        read_register(cfg)


# --------------------------------------------------------------------------------------------
# Files that are missing or are not CSV
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", [RegisterFormat.NYSBOE, RegisterFormat.CSV])
def test_missing_file(tmp_path, fmt):
    path = tmp_path / "nowhere.csv"
    cfg = RegisterConfig(path=path, format=fmt, columns=GENERIC_COLUMNS)
    with pytest.raises(InputMissingError) as err:
        read_register(cfg)
    assert err.value.message.startswith(f"{path}: the register file does not exist")


@pytest.mark.parametrize("fmt", [RegisterFormat.NYSBOE, RegisterFormat.CSV])
def test_binary_file_is_unreadable(tmp_path, fmt):
    path = tmp_path / "register.pdf"
    path.write_bytes(b"%PDF-1.4\x00\xff\xfe binary \x00\x01\x02" * 50)
    cfg = RegisterConfig(path=path, format=fmt, columns=GENERIC_COLUMNS)
    with pytest.raises(UnreadableInputError) as err:
        read_register(cfg)
    assert str(path) in err.value.message and "PDF" in err.value.message


def test_binary_file_without_nul_is_unreadable(tmp_path):
    path = tmp_path / "register.bin"
    path.write_bytes(bytes(range(1, 256)) * 40)
    with pytest.raises(UnreadableInputError) as err:
        read_register(nys(path))
    assert str(path) in err.value.message


def test_utf16_file_is_unreadable_with_advice(tmp_path):
    path = tmp_path / "r.txt"
    path.write_text("id,last,first\nV1,Quillfeather,Ansel\n", encoding="utf-16")
    cfg = RegisterConfig(
        path=path,
        format=RegisterFormat.CSV,
        columns={"voter_id": "id", "last_name": "last", "first_name": "first"},
    )
    with pytest.raises(UnreadableInputError, match="UTF-16"):
        read_register(cfg)


def test_generic_seven_digit_date_is_a_bad_row(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("id,last,first,reg\nV1,Quillfeather,Ansel,2019111\nV2,Tremaine,Ysolde,\n")
    cfg = RegisterConfig(
        path=path,
        format=RegisterFormat.CSV,
        columns={
            "voter_id": "id",
            "last_name": "last",
            "first_name": "first",
            "registration_date": "reg",
        },
    )
    r = read_register(cfg)
    assert [e.voter_id for e in r.entries] == ["V2"]
    assert r.bad_rows[0].row == 2 and "2019111" in r.bad_rows[0].problem


def test_rows_kept_without_a_surname_are_a_note_in_the_report(tmp_path):
    from pipeline.run import _bad_rows

    rows = [
        nys_row(NYSBOE_45_FIELDS, **PERSON),
        nys_row(NYSBOE_45_FIELDS, **dict(PERSON, SBOEID="NY2", LASTNAME="")),
    ]
    findings = _bad_rows(read_register(nys(write_csv(tmp_path / "r.csv", rows))))
    assert [f.code for f in findings] == ["REGISTER_INCOMPLETE_ROWS"]
    assert findings[0].evidence["rows"] == [2]
