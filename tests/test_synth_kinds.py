"""The generator of the other petition kinds (synth.kinds): deterministic, and the real
pipeline agrees with its truth, line by line, for every kind and variant.

All data here are synthetic (synth.kinds); no real person's data."""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pdfplumber
import pytest
from reportlab.pdfbase import pdfmetrics

from matchers.register import NYSBOE_45_FIELDS
from pipeline.case import load_case
from pipeline.dates import parse_written_date
from pipeline.records import PageKind, PageRef
from pipeline.report import report_to_dict, validate_report_dict
from pipeline.run import check_case
from pipeline.textlayer import read_text_page
from synth import handwriting as hw
from synth.kinds import VARIANTS, generate_kind, main
from synth.scan import render_page
from tests.test_corpus import _row_ink

CASES = [(kind, variant) for kind, variants in VARIANTS.items() for variant in variants]
SEED = 7
# On the fast path, one variant of each kind: a threshold edge, sheet and witness defects, and
# the valuation of two towns. Every other variant runs with the slow tests (.ci/run runs them),
# on this seed and on ten others.
# The fast path checks one case end to end (the one with the most defects planted); every
# case runs in the slow step (.ci/run), on ten seeds.
FAST_CASES = {("independent_nomination", "sheet-defects")}


def _fast_or_slow(cases: list[tuple[str, str]], fast: set[tuple[str, str]]) -> list[Any]:
    return [pytest.param(*case, marks=() if case in fast else pytest.mark.slow) for case in cases]


def _digest(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _by_file(report: Any) -> dict[tuple[str, int], Any]:
    """The report's lines by (sheet file name, row): sheet numbers may be missing or twice."""
    files = {s.page.page_id: Path(s.page.path).name for s in report.sheets}
    return {(files[j.line.page_id], j.line.line_no): j for j in report.lines}


def _statuses(report: Any) -> dict[tuple[str, int], str]:
    return {key: j.status.value for key, j in _by_file(report).items()}


def _want(truth: dict) -> dict[tuple[str, int], str]:
    return {
        (Path(s["file"]).name, ln["line_no"]): ln["expected_status"]
        for s in truth["sheets"]
        for ln in s["lines"]
    }


@pytest.mark.parametrize("kind,variant", _fast_or_slow(CASES, FAST_CASES))
def test_pipeline_agrees_with_truth(tmp_path: Path, kind: str, variant: str) -> None:
    truth = generate_kind(tmp_path, kind, variant, SEED)
    assert truth == json.loads((tmp_path / "truth.json").read_text(encoding="utf-8"))
    report = check_case(load_case(tmp_path / "case.toml"))
    expected = truth["expected"]
    lines = _by_file(report)
    disagreements = []
    for sheet in truth["sheets"]:
        for t in sheet["lines"]:
            j = lines.get((Path(sheet["file"]).name, t["line_no"]))
            if j is None:
                disagreements.append((sheet["file"], t["line_no"], "not read"))
                continue
            got = (j.status.value, j.voter_id if j.status.value != "blank" else None)
            want = (t["expected_status"], t["voter_id"])
            if t["expected_status"] == "invalid" and t["voter_id"] is None:
                got = (got[0], None)  # a signer on no list: no id to compare
            if got != want:
                codes = sorted({f.code for f in j.findings})
                disagreements.append((sheet["file"], t["line_no"], want, got, codes))
    assert not disagreements, disagreements
    assert len(report.lines) == expected["lines_read"]
    assert (report.totals.valid, report.totals.needs_review, report.totals.invalid) == (
        expected["valid"],
        expected["needs_review"],
        expected["invalid"],
    )
    assert report.verdict.value == expected["verdict"], report.verdict_reason
    assert report.totals.required == expected["required"]
    assert report.totals.denominator == expected["denominator"]
    validate_report_dict(report_to_dict(report))  # every kind's report keeps to the schema
    if "valuation" in truth:
        assert report.valuation is not None
        got = [(str(p.total), str(p.signed), p.met) for p in report.valuation.parts]
        want = [(p["total"], p["signed"], p["met"]) for p in truth["valuation"]]
        assert got == want


@pytest.mark.parametrize(
    "kind,variant",
    [("improvement_district", "exactly-half"), ("independent_nomination", "old-form")],
)
def test_same_seed_same_bytes(tmp_path: Path, kind: str, variant: str) -> None:
    generate_kind(tmp_path / "a", kind, variant, SEED)
    generate_kind(tmp_path / "b", kind, variant, SEED)
    assert _digest(tmp_path / "a") == _digest(tmp_path / "b")
    generate_kind(tmp_path / "c", kind, variant, SEED + 1)
    assert _digest(tmp_path / "c") != _digest(tmp_path / "a")


def test_truth_plants_what_each_variant_promises(tmp_path: Path) -> None:
    """The variants' defining facts, read from their truth (no pipeline)."""
    planted: dict[tuple[str, str], Counter[str]] = {}
    facts: dict[tuple[str, str], dict] = {}
    for kind, variant in CASES:
        truth = generate_kind(tmp_path / f"{kind}-{variant}", kind, variant, SEED)
        planted[(kind, variant)] = Counter(
            code for s in truth["sheets"] for ln in s["lines"] for code in ln["defects"]
        )
        facts[(kind, variant)] = truth
    nom = planted[("independent_nomination", "sufficient")]
    for code in (
        "SIGNER_NOT_REGISTERED",
        "SIGNER_REGISTERED_AFTER_SIGNING",
        "SIGNER_OUTSIDE_VILLAGE",
        "LINE_UNDATED",
        "RESIDENCE_MISSING",
        "WITNESS_COUNT_MISMATCH",
    ):
        assert nom[code] >= 1, code
    old = facts[("independent_nomination", "old-form")]
    assert old["witness_form"] == "before-2017-11-22"
    assert {s["witness"]["form"] for s in old["sheets"]} == {"witness-old", "notary"}
    assert facts[("independent_nomination", "party-name")]["petition_defects"] == [
        "BODY_NAME_USES_PARTY_NAME"
    ]
    exact = facts[("improvement_district", "exactly-half")]["valuation"][0]
    assert exact["share"] == "0.500000" and exact["met"]
    exact_2202 = facts[("incorporation", "owners-exactly-half")]["valuation"][0]
    assert exact_2202["share"] == "0.500000" and not exact_2202["met"]
    two = facts[("incorporation", "owners-two-towns")]["valuation"]
    assert [p["met"] for p in two] == [True, False]
    short = facts[("improvement_district", "resident-short")]["valuation"]
    assert short[0]["met"] and not short[1]["met"]
    assert facts[("incorporation", "residents")]["sheets"][0]["witness"]["form"] == "affidavit"
    flawed = facts[("independent_nomination", "sheet-defects")]
    numbers = [s["sheet_number"] for s in flawed["sheets"]]
    assert None in numbers and len(set(numbers)) < len(numbers)  # one missing, one twice
    assert max(n for n in numbers if n) > len({n for n in numbers if n})  # and a gap
    assert any(s["witness"]["name"] == "" for s in flawed["sheets"])
    sheet_codes = {c for s in flawed["sheets"] for c in s["defects"]}
    assert sheet_codes == {"SHEET_NUMBER_MISSING", "SHEET_NUMBER_DUPLICATE", "WITNESS_NAME_MISSING"}
    lines = planted[("independent_nomination", "sheet-defects")]
    assert lines["DATE_AFTER_FILING"] == 1 and lines["DATE_AFTER_WITNESS_DATE"] == 2
    witnessed = facts[("improvement_district", "witness-defects")]
    by_code = {c: s for s in witnessed["sheets"] for c in s["defects"]}
    assert set(by_code) == {"WITNESS_NOT_SIGNED", "WITNESS_DATE_MISSING"}
    unsigned, undated = by_code["WITNESS_NOT_SIGNED"], by_code["WITNESS_DATE_MISSING"]
    assert not unsigned["witness"]["signed"] and unsigned["witness"]["signature"] == ""
    assert undated["witness"]["date_text"] == "" and undated["witness"]["signed"]
    assert {ln["expected_status"] for ln in unsigned["lines"]} == {"invalid", "blank"}
    assert "needs_review" in {ln["expected_status"] for ln in undated["lines"]}
    assert all("name" not in ln["fields"] for s in witnessed["sheets"] for ln in s["lines"])
    assert witnessed["expected"]["verdict"] == "undetermined"
    nominated = facts[("independent_nomination", "witness-defects")]
    flaws = {c: s for s in nominated["sheets"] for c in s["defects"]}
    assert set(flaws) == {
        "WITNESS_NOT_OF_VILLAGE",
        "WITNESS_RESIDENCE_MISSING",
        "WITNESS_NOT_SIGNED",
    }
    assert flaws["WITNESS_NOT_OF_VILLAGE"]["witness"]["village"] != "Elmwood Falls"
    assert flaws["WITNESS_RESIDENCE_MISSING"]["witness"]["residence"] == ""
    assert not flaws["WITNESS_NOT_SIGNED"]["witness"]["signed"]
    statuses = {
        c: {ln["expected_status"] for ln in s["lines"]} - {"blank"} for c, s in flaws.items()
    }
    assert statuses == {
        "WITNESS_NOT_OF_VILLAGE": {"needs_review"},
        "WITNESS_RESIDENCE_MISSING": {"needs_review"},
        "WITNESS_NOT_SIGNED": {"invalid"},
    }


def test_threshold_edges_and_a_register_as_hard_as_a_real_one(tmp_path: Path) -> None:
    """just-enough: exactly the required number valid (5% rounded up); one-short: one fewer
    and nothing in review. Their register has a Jr beside his Sr, an apartment, a fractional
    house number, a household, an inactive voter who signs (valid) and a purged one who signs
    (invalid), and a signer who signs twice."""
    for variant, verdict, short in (
        ("just-enough", "sufficient", 0),
        ("one-short", "insufficient", 1),
    ):
        folder = tmp_path / variant
        truth = generate_kind(folder, "independent_nomination", variant, SEED)
        e = truth["expected"]
        assert (e["verdict"], e["valid"] + short, e["needs_review"]) == (verdict, e["required"], 0)
        assert e["required"] == -(-e["denominator"] * 5 // 100)
        assert e["denominator"] * 5 % 100  # 5% is not whole: the rounding up decides it
        codes = Counter(c for s in truth["sheets"] for ln in s["lines"] for c in ln["defects"])
        assert codes["SIGNER_PURGED"] == 1 and codes["DUPLICATE_SIGNER"] == 1
        with (folder / "register.csv").open(encoding="utf-8", newline="") as fh:
            rows = [dict(zip(NYSBOE_45_FIELDS, r, strict=True)) for r in csv.reader(fh)]
        by_id = {r["SBOEID"]: r for r in rows}
        status = {
            by_id[ln["voter_id"]]["STATUS"]: ln["expected_status"]
            for s in truth["sheets"]
            for ln in s["lines"]
            if ln["voter_id"] and "DUPLICATE_SIGNER" not in ln["defects"]
        }
        assert status == {"A": "valid", "I": "valid", "P": "invalid"}
        assert {r["NAMESUFFIX"] for r in rows} >= {"Jr", "Sr"}
        jr, sr = (next(r for r in rows if r["NAMESUFFIX"] == x) for x in ("Jr", "Sr"))
        assert (jr["FIRSTNAME"], jr["LASTNAME"], jr["RADDNUMBER"]) == (
            sr["FIRSTNAME"],
            sr["LASTNAME"],
            sr["RADDNUMBER"],
        )
        assert any(r["RHALFCODE"] == "1/2" for r in rows) and any(r["RAPARTMENT"] for r in rows)
        homes = Counter((r["RADDNUMBER"], r["RSTREETNAME"], r["LASTNAME"]) for r in rows)
        assert sum(n > 1 for n in homes.values()) >= 2  # the Jr's and another household
        signed = {ln["fields"]["signature"] for s in truth["sheets"] for ln in s["lines"]}
        assert any(n.endswith(" Jr") for n in signed)


def test_roll_layout(tmp_path: Path) -> None:
    generate_kind(tmp_path, "improvement_district", "sufficient", SEED)
    rows = (tmp_path / "roll.csv").read_text(encoding="utf-8").splitlines()
    assert rows[0] == (
        "parcel_id,town,property_address,owner_name,mailing_address,resident,assessed_value,"
        "taxable,share_inside"
    )
    text = "\n".join(rows)
    assert "ELMWOOD HOLDINGS LLC" in text and "FAMILY TRUST" in text
    assert ",N," in text  # an exempt parcel or a non-resident owner


def test_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "case"
    argv = ["--kind", "incorporation", "--variant", "owners-exactly-half", "--seed", "7"]
    assert main([*argv, "--out", str(out)]) == 0
    assert "insufficient" in capsys.readouterr().out
    assert (out / "roll.csv").is_file() and (out / "README.md").is_file()
    assert main(["--kind", "incorporation", "--variant", "nope", "--out", str(out)]) == 64


FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "kinds"


@pytest.mark.parametrize(
    "folder", sorted(p.name for p in FIXTURES.iterdir() if p.is_dir()) if FIXTURES.is_dir() else []
)
def test_committed_fixtures_are_current(tmp_path: Path, folder: str) -> None:
    """fixtures/kinds/ is what the generator writes today (regenerate: fixtures/kinds/README.md).
    Owner ids come from matchers' normalization, so a change there changes roll cases' truth."""
    truth = json.loads((FIXTURES / folder / "truth.json").read_text(encoding="utf-8"))
    generate_kind(tmp_path, truth["kind"], truth["variant"], truth["seed"])
    assert _digest(tmp_path) == _digest(FIXTURES / folder), (
        f"fixtures/kinds/{folder} is stale; regenerate it as fixtures/kinds/README.md says"
    )


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(1, 11))
@pytest.mark.parametrize("kind,variant", CASES)
def test_other_seeds_agree(tmp_path: Path, kind: str, variant: str, seed: int) -> None:
    """The same agreement on other seeds (names, addresses and values drawn anew)."""
    truth = generate_kind(tmp_path, kind, variant, seed)
    report = check_case(load_case(tmp_path / "case.toml"))
    assert _statuses(report) == _want(truth)
    assert report.verdict.value == truth["expected"]["verdict"]


# -- filled in by hand -------------------------------------------------------------------------

# One variant of each kind and each statement form (new and old witness, notary, affidavit).
HAND_CASES = [
    ("independent_nomination", "old-form"),
    ("improvement_district", "sufficient"),
    ("incorporation", "residents"),
    ("incorporation", "owners-two-towns"),
    ("independent_nomination", "sheet-defects"),
]
# The blanks each statement form has written in by hand.
WRITTEN = {
    "witness-new": {"name", "residence", "count", "date", "signature"},
    "witness-old": {"name", "residence", "village", "county", "count", "date", "signature"},
    "notary": {"count", "date", "signature"},
    "affidavit": {"county", "name", "residence", "town", "count", "day", "month", "signature"},
}


# The fast path writes by hand the case with the most to draw (the old witness form); the slow
# step (.ci/run) all five.
FAST_HAND = {HAND_CASES[0]}


@pytest.fixture(
    scope="module",
    params=[pytest.param(c, marks=() if c in FAST_HAND else pytest.mark.slow) for c in HAND_CASES],
    ids=lambda kv: f"{kv[0]}-{kv[1]}",
)
def by_hand(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    kind, variant = request.param
    out = tmp_path_factory.mktemp(f"hand-{kind}-{variant}")
    generate_kind(out, kind, variant, SEED, handwriting=True)
    return out


def _truth(folder: Path) -> dict:
    return json.loads((folder / "truth.json").read_text(encoding="utf-8"))


def _written_date(text: str, filed: str) -> dt.date | None:
    return parse_written_date(text, dt.date.fromisoformat(filed))


def test_hand_is_the_typed_case_written_by_hand(by_hand: Path, tmp_path: Path) -> None:
    """The same signers, defects, statuses and verdict as the typed case of the seed; only
    the dates' form differs (each still names the same day) and the truth says how each
    entry was drawn."""
    hand = _truth(by_hand)
    typed = generate_kind(tmp_path, hand["kind"], hand["variant"], SEED)
    assert hand["style"] == "handwriting" and "style" not in typed
    assert hand["expected"] == typed["expected"]
    filed = load_case(by_hand / "case.toml").dates.filed.isoformat()
    forms = set()
    for h, t in zip(hand["sheets"], typed["sheets"], strict=True):
        assert h["defects"] == t["defects"] and h["sheet_number"] == t["sheet_number"]
        for hl, tl in zip(h["lines"], t["lines"], strict=True):
            assert (hl["voter_id"], hl["defects"], hl["expected_status"]) == (
                tl["voter_id"],
                tl["defects"],
                tl["expected_status"],
            )
            for name, text in tl["fields"].items():
                if name == "date" and text:
                    assert _written_date(hl["fields"][name], filed) == _written_date(text, filed)
                else:
                    assert hl["fields"][name] == text
            forms.add(hl["fields"].get("date", "").count("/"))
        w = h["witness"]
        assert w["date"] == t["witness"]["date"]
        if w["form"] != "affidavit":
            assert (
                _written_date(w["date_text"].removeprefix("Date: "), filed).isoformat()
                == (w["date"])
            )
        empty = {k for k in ("county", "name") if w.get(k) == ""}  # left blank: dots
        assert set(w["written"]) == WRITTEN[w["form"]] - empty
    assert len(forms) > 1  # the dates are written more than one way


def _sheets(folder: Path, truth: dict) -> list[tuple[dict, object, object]]:
    out = []
    for sheet in truth["sheets"]:
        pdf = pdfplumber.open(folder / sheet["file"])
        page = pdf.pages[sheet["page_index"]]
        ref = PageRef(sheet["file"], 0, "ab" * 32, PageKind.PDF_TEXT, page.width, page.height)
        out.append((sheet, page, read_text_page(page, ref)))
    return out


def test_hand_text_layer_holds_the_truth(by_hand: Path) -> None:
    """What the handwritten sheets say is what truth says: every line's fields, and the
    statement's blanks as the witness wrote them."""
    truth = _truth(by_hand)
    for sheet, _, read in _sheets(by_hand, truth):
        assert list(read.columns) == sheet["columns"]
        assert [ln.line_no for ln in read.lines] == [ln["line_no"] for ln in sheet["lines"]]
        for got, want in zip(read.lines, sheet["lines"], strict=True):
            assert got.blank == want["blank"]
            assert {f.name: f.text for f in got.fields} == want["fields"]
        w, stmt = sheet["witness"], read.witness
        assert stmt is not None and stmt.stated_count_value == w["stated_count"]
        assert stmt.signature is not None and stmt.signature.text == w["signature"]
        if w["form"] != "notary":
            assert stmt.witness_name is not None and stmt.witness_name.text == w["name"]
            assert stmt.residence is not None and stmt.residence.text == w["residence"]
        if w["form"] in ("witness-new", "witness-old"):
            assert stmt.date is not None and stmt.date.text == w["date_text"]


def _pdf_font(name: str) -> str:
    """The name a PDF gives the font reportlab registered as `name` (a TrueType face's
    PostScript name; the base-14 fonts' own)."""
    face = pdfmetrics.getFont(name).face.name
    return face.decode() if isinstance(face, bytes) else str(face)


def test_hand_fields_drawn_in_their_recorded_fonts(by_hand: Path) -> None:
    """Each filled field's characters, found inside its row, are in the font truth records;
    so are the statement's written blanks."""
    truth = _truth(by_hand)
    known = {f.name for f in hw.HAND_FONTS} | {hw.BUILTIN_HAND.name, hw.BUILTIN_SIGNATURE.name}
    for sheet, page, _ in _sheets(by_hand, truth):
        for ln in sheet["lines"]:
            filled = {k for k, v in ln["fields"].items() if v}
            assert set(ln["fonts"]) == filled and set(ln["fonts"].values()) <= known
            x0, top, x1, bottom = ln["box"]
            inside = page.crop((x0, top, x1, bottom)).chars
            fonts = {c["fontname"].split("+")[-1] for c in inside}
            assert fonts == {_pdf_font(f) for f in ln["fonts"].values()}
            text = "".join(c["text"] for c in inside)
            assert len(text) == sum(len(v.replace(" ", "")) for v in ln["fields"].values())
        written = sheet["witness"]["written"]
        assert set(sheet["witness"]["strokes"]) == set(written)
        hands = {_pdf_font(s["font"]) for s in sheet["witness"]["strokes"].values()}
        if hands & {"Helvetica", "Helvetica-Oblique"}:
            continue  # the built-in fallback: the printed words share the font
        below = sheet["lines"][-1]["box"][3]  # the table's foot
        hand_chars = "".join(
            c["text"]
            for c in page.chars
            if c["fontname"].split("+")[-1] in hands and c["top"] > below
        )
        assert hand_chars == "".join(v.replace(" ", "") for v in written.values())


def test_hand_blank_rows_have_no_ink(by_hand: Path) -> None:
    """Rasterized, a row truth calls blank has no ink; every signed row has some."""
    truth = _truth(by_hand)
    for sheet in truth["sheets"]:
        image = render_page(by_hand / sheet["file"], sheet["page_index"], 100)
        for ln in sheet["lines"]:
            ink = _row_ink(image, ln["box"], 100)
            assert (ink == 0) if ln["blank"] else (ink > 20), (sheet["file"], ln["line_no"])


@pytest.mark.parametrize("kind,variant", _fast_or_slow(HAND_CASES[:3], {HAND_CASES[0]}))
def test_hand_pipeline_agrees_with_truth(tmp_path: Path, kind: str, variant: str) -> None:
    """The born-digital handwritten case reads and judges as its truth says."""
    _hand_agrees(tmp_path, kind, variant, SEED)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(1, 4))
@pytest.mark.parametrize("kind,variant", CASES)
def test_hand_every_variant_agrees(tmp_path: Path, kind: str, variant: str, seed: int) -> None:
    _hand_agrees(tmp_path, kind, variant, seed)


def _hand_agrees(tmp_path: Path, kind: str, variant: str, seed: int) -> None:
    truth = generate_kind(tmp_path, kind, variant, seed, handwriting=True)
    report = check_case(load_case(tmp_path / "case.toml"))
    assert _statuses(report) == _want(truth)
    assert report.verdict.value == truth["expected"]["verdict"]


def test_hand_same_seed_same_bytes(tmp_path: Path) -> None:
    args = ("incorporation", "owners-exactly-half", SEED)
    generate_kind(tmp_path / "a", *args, handwriting=True)
    generate_kind(tmp_path / "b", *args, handwriting=True)
    assert _digest(tmp_path / "a") == _digest(tmp_path / "b")
    generate_kind(tmp_path / "c", *args)
    assert (
        _digest(tmp_path / "c")["sheets/sheet-01.pdf"]
        != _digest(tmp_path / "a")["sheets/sheet-01.pdf"]
    )


@pytest.mark.slow
def test_hand_builtin_font_fallback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No handwriting font installed (a fresh CI machine): the built-ins, recorded as such,
    and the case still reads as its truth says."""
    missing = tuple(hw.HandFont(f"Missing{i}", f"nowhere/{i}.ttf", "", True) for i in range(2))
    monkeypatch.setattr(hw, "HAND_FONTS", missing)
    truth = generate_kind(tmp_path, "improvement_district", "exactly-half", SEED, handwriting=True)
    assert set(truth["fonts"]) <= {"Helvetica", "Helvetica-Oblique"} and truth["fonts"]
    report = check_case(load_case(tmp_path / "case.toml"))
    assert report.verdict.value == truth["expected"]["verdict"]
    assert main(["--kind", "incorporation", "--variant", "residents", "--handwriting",
                 "--builtin-fonts", "--out", str(tmp_path / "cli")]) == 0  # fmt: skip
    assert _truth(tmp_path / "cli")["fonts"] == ["Helvetica", "Helvetica-Oblique"]
