"""The synthetic fixture generator: deterministic, and its truth agrees with what it drew.

All data here are synthetic (synth); no real person's data."""

from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path

import pdfplumber
import pytest

from pipeline.case import load_case
from pipeline.records import PageKind, PageRef
from pipeline.textlayer import read_text_page
from synth import FATAL_DEFECTS, NYSBOE_FIELDS, generate_case

CODES = set(FATAL_DEFECTS) | {"WITNESS_COUNT_MISMATCH"}


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("demo")
    generate_case(out, 902)
    return out


@pytest.fixture(scope="module")
def truth(demo: Path) -> dict:
    return json.loads((demo / "truth.json").read_text(encoding="utf-8"))


def _digest(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_same_seed_same_bytes(demo: Path, tmp_path: Path) -> None:
    generate_case(tmp_path, 902)
    assert _digest(tmp_path) == _digest(demo)


def test_other_seed_differs(demo: Path, tmp_path: Path) -> None:
    generate_case(tmp_path, 903)
    assert (tmp_path / "register.csv").read_bytes() != (demo / "register.csv").read_bytes()


def test_case_file_validates(demo: Path) -> None:
    case = load_case(demo / "case.toml")
    assert case.municipality.village == "Elmwood Falls"
    assert case.register_file.path == demo.resolve() / "register.csv"
    assert case.dates.adopted < case.dates.filed


def test_register_layout(demo: Path) -> None:
    raw = (demo / "register.csv").read_bytes()
    assert raw.endswith(b"\r\n")
    assert b"\n" not in raw.replace(b"\r\n", b"")
    text = raw.decode("utf-8")
    with (demo / "register.csv").open(encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))
    assert len(rows) > 150
    for line, row in zip(text.split("\r\n"), rows, strict=False):
        assert len(row) == len(NYSBOE_FIELDS) == 45
        assert line == ",".join(f'"{v}"' for v in row)  # every field quoted
    col = {name: i for i, name in enumerate(NYSBOE_FIELDS)}
    statuses = {r[col["STATUS"]] for r in rows}
    assert {"A", "I", "P", "17"} <= statuses
    assert all(
        r[col["PURGE_DATE"]] and r[col["REASONCODE"]] for r in rows if r[col["STATUS"]] == "P"
    )
    assert any(r[col["RHALFCODE"]] == "1/2" for r in rows)
    assert any(r[col["RAPARTMENT"]] for r in rows)
    assert {"Jr", "Sr"} <= {r[col["NAMESUFFIX"]] for r in rows}
    assert {"5", "6"} & {r[col["ED"]] for r in rows}  # town voters outside the village
    assert any(r[col["REGDATE"]] > "20260317" and r[col["STATUS"]] == "A" for r in rows)
    assert len({r[col["SBOEID"]] for r in rows}) == len(rows)


def test_expected_totals_consistent(truth: dict) -> None:
    e = truth["expected"]
    assert truth["schema"] == "petitions-truth/1" and truth["synthetic"] is True
    assert e["lines_read"] == e["blank"] + e["valid"] + e["invalid"] + e["needs_review"]
    assert e["required"] == -(-e["denominator"] // 5)
    if e["valid"] >= e["required"]:
        assert e["verdict"] == "sufficient"
    elif e["valid"] + e["needs_review"] < e["required"]:
        assert e["verdict"] == "insufficient"
    else:
        assert e["verdict"] == "undetermined"
    lines = [ln for s in truth["sheets"] for ln in s["lines"]]
    assert len(lines) == e["lines_read"]
    for status in ("blank", "valid", "invalid", "needs_review"):
        assert sum(ln["expected_status"] == status for ln in lines) == e[status]
    # The demo is clearly sufficient, and every defect is planted.
    assert e["verdict"] == "sufficient" and e["valid"] >= e["required"] + 5
    planted = {c for ln in lines for c in ln["defects"]}
    assert planted == CODES


def test_line_status_follows_defects(truth: dict) -> None:
    for sheet in truth["sheets"]:
        for ln in sheet["lines"]:
            fatal = set(ln["defects"]) & set(FATAL_DEFECTS)
            if ln["blank"]:
                assert ln["expected_status"] == "blank" and not any(ln["fields"].values())
            elif fatal:
                assert ln["expected_status"] == "invalid"
            elif "WITNESS_COUNT_MISMATCH" in ln["defects"]:
                assert ln["expected_status"] == "needs_review"
            else:
                assert ln["expected_status"] == "valid" and ln["voter_id"]
        filled = sum(not ln["blank"] for ln in sheet["lines"])
        mismatch = sheet["witness"]["stated_count"] != filled
        assert mismatch == ("WITNESS_COUNT_MISMATCH" in sheet["defects"])


def test_valid_lines_agree_with_register(demo: Path, truth: dict) -> None:
    with (demo / "register.csv").open(encoding="utf-8", newline="") as fh:
        rows = {r[43]: r for r in csv.reader(fh)}
    signers = [
        rows[ln["voter_id"]]
        for s in truth["sheets"]
        for ln in s["lines"]
        if ln["expected_status"] == "valid"
    ]
    assert any(r[39] == "I" for r in signers)  # inactive voters are still registered
    assert any(r[35] > "20260317" for r in signers)  # registered after the election
    assert any(r[5] for r in signers) and any(r[6] for r in signers)  # 1/2 and Apt
    for sheet in truth["sheets"]:
        for ln in sheet["lines"]:
            if ln["expected_status"] != "valid":
                continue
            r = rows[ln["voter_id"]]
            name = " ".join(p for p in (r[1], r[2][:1], r[0], r[3]) if p)
            number = f"{r[4]} {r[5]}".strip()
            residence = f"{number} {r[8]}" + (f" Apt {r[6]}" if r[6] else "")
            f = ln["fields"]
            assert (f["name"], f["signature"], f["residence"]) == (name, name, residence)
            assert (f["ward"], f["election_district"]) == (r[25], r[22])
            assert r[39] in ("A", "I")


def test_truth_matches_what_was_drawn(demo: Path, truth: dict) -> None:
    pages: dict[str, list] = {}
    for sheet in truth["sheets"]:
        pages.setdefault(sheet["file"], []).append(sheet)
    assert any(len(v) == 2 for v in pages.values())  # a two-page file is exercised
    for file, sheets in pages.items():
        with pdfplumber.open(demo / file) as pdf:
            assert len(pdf.pages) == len(sheets)
            for sheet in sheets:
                page = pdf.pages[sheet["page_index"]]
                ref = PageRef(
                    file,
                    sheet["page_index"],
                    "ab" * 32,
                    PageKind.PDF_TEXT,
                    float(page.width),
                    float(page.height),
                )
                read = read_text_page(page, ref)
                assert read.sheet_number_value == sheet["sheet_number"]
                assert len(read.lines) == len(sheet["lines"])
                for got, want in zip(read.lines, sheet["lines"], strict=True):
                    assert got.line_no == want["line_no"]
                    assert got.blank == want["blank"]
                    assert {f.name: f.text for f in got.fields} == want["fields"]
                w = sheet["witness"]
                assert read.witness is not None
                assert read.witness.stated_count_value == w["stated_count"]
                assert read.witness.witness_name.text == w["name"]
                assert read.witness.residence.text == w["residence"]
                assert read.witness.date.text == w["date_text"]
                assert read.witness.signature.text == w["signature"]


def test_insufficient_target(tmp_path: Path) -> None:
    generate_case(tmp_path, 7, target="insufficient")
    e = json.loads((tmp_path / "truth.json").read_text(encoding="utf-8"))["expected"]
    assert e["verdict"] == "insufficient"
    assert e["valid"] + e["needs_review"] < e["required"]
    load_case(tmp_path / "case.toml")


def test_undetermined_target(tmp_path: Path) -> None:
    generate_case(tmp_path, 5, target="undetermined")
    e = json.loads((tmp_path / "truth.json").read_text(encoding="utf-8"))["expected"]
    assert e["verdict"] == "undetermined"
    assert e["valid"] < e["required"] <= e["valid"] + e["needs_review"]


def test_impossible_target_raises(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="insufficient"):
        generate_case(tmp_path, 5, n_sheets=12, village_size=20, target="insufficient")


@pytest.mark.parametrize("n_sheets", [1, 2, 3])
def test_few_sheets(tmp_path: Path, n_sheets: int) -> None:
    generate_case(tmp_path, 11, n_sheets=n_sheets, village_size=60)
    truth = json.loads((tmp_path / "truth.json").read_text(encoding="utf-8"))
    assert [s["sheet_number"] for s in truth["sheets"]] == list(range(1, n_sheets + 1))
    assert load_case(tmp_path / "case.toml").sheets


def test_demo_fixture_is_current(demo: Path) -> None:
    """The committed sample equals what the generator makes from its seed."""
    committed = Path(__file__).resolve().parent.parent / "fixtures" / "demo"
    if not (committed / "truth.json").exists():
        pytest.skip("fixtures/demo not generated")
    assert _digest(committed) == _digest(demo)
