"""The case file: validated at the edge, every problem reported at once."""

from __future__ import annotations

import pytest

from pipeline.case import PetitionKind, load_case
from pipeline.errors import CaseFileError, ExitCode

GOOD = """
name = "Village of Testville: referendum (synthetic)"
kind = "permissive_referendum"
proposition = "Local Law No. 1 of 2026"
sheets = ["sheets"]
[municipality]
village = "Testville"
town = "Greenfield"
county = "Albany"
election_districts = ["1", "2"]
[dates]
adopted = 2026-09-14
filed = 2026-10-09
previous_general_election = 2026-03-17
[register]
path = "register.csv"
"""


def write(tmp_path, text):
    (tmp_path / "sheets").mkdir(exist_ok=True)
    p = tmp_path / "case.toml"
    p.write_text(text, encoding="utf-8")
    return p


def test_good_case_resolves_paths_against_its_folder(tmp_path):
    case = load_case(write(tmp_path, GOOD))
    assert case.kind == PetitionKind.PERMISSIVE_REFERENDUM
    assert case.spec.statute == "Village Law § 9-902"
    assert case.register_file.path == tmp_path / "register.csv"
    assert case.sheets == (tmp_path / "sheets",)
    assert case.municipality.election_districts == ("1", "2")
    assert case.denominator_as_of.isoformat() == "2026-03-17"


def test_every_problem_is_reported_at_once(tmp_path):
    bad = (
        GOOD.replace('kind = "permissive_referendum"', 'kind = "recall"')
        .replace("filed = 2026-10-09", "filed = 2026-13-45".replace("2026-13-45", '"soon"'))
        .replace('county = "Albany"', 'county = "Albany"\ncountry = "US"')
        .replace('town = "Greenfield"\n', "")
    )
    with pytest.raises(CaseFileError) as info:
        load_case(write(tmp_path, bad))
    err = info.value
    text = "\n".join(err.problems)
    assert len(err.problems) >= 4, text
    for where in ("kind", "dates.filed", "municipality.country", "municipality.town"):
        assert where in text
    assert err.exit_code == ExitCode.CASE_FILE
    assert str(tmp_path / "case.toml") in err.message


def test_not_toml(tmp_path):
    with pytest.raises(CaseFileError, match="not valid TOML"):
        load_case(write(tmp_path, "name = [unclosed"))


def test_missing_case_file(tmp_path):
    with pytest.raises(CaseFileError, match="does not exist"):
        load_case(tmp_path / "nope.toml")


def test_missing_sheet_folder_is_named(tmp_path):
    text = GOOD.replace('sheets = ["sheets"]', 'sheets = ["sheets", "more-sheets"]')
    with pytest.raises(CaseFileError, match="more-sheets does not exist"):
        load_case(write(tmp_path, text))


def test_filed_before_adopted(tmp_path):
    text = GOOD.replace("filed = 2026-10-09", "filed = 2026-09-01")
    with pytest.raises(CaseFileError, match="before dates.adopted"):
        load_case(write(tmp_path, text))


def test_csv_register_needs_a_column_mapping(tmp_path):
    text = GOOD.replace('path = "register.csv"', 'path = "register.csv"\nformat = "csv"')
    with pytest.raises(CaseFileError, match="register.columns"):
        load_case(write(tmp_path, text))
    text += '[register.columns]\nvoter_id = "ID"\nlast_name = "Last"\nfirst_name = "First"\n'
    case = load_case(write(tmp_path, text))
    assert case.register_file.columns["voter_id"] == "ID"


def test_denominator_given_by_the_clerk(tmp_path):
    case = load_case(write(tmp_path, GOOD + "[denominator]\nelectors = 812\n"))
    assert case.denominator.electors == 812


def test_a_path_that_is_not_a_path_is_named_with_the_other_problems(tmp_path):
    # pydantic's "path_type" error cannot be raised again by its name; it is carried as written
    bad = GOOD.replace('path = "register.csv"', "path = 5").replace('town = "Greenfield"\n', "")
    with pytest.raises(CaseFileError) as info:
        load_case(write(tmp_path, bad))
    text = "\n".join(info.value.problems)
    assert "register.path" in text and "not a valid path" in text, text
    assert "municipality.town" in text, text
