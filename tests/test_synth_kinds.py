"""The generator of the other petition kinds (pipeline.synth.kinds): deterministic, and the real
pipeline agrees with its truth, line by line, for every kind and variant.

All data here are synthetic (pipeline.synth.kinds); no real person's data."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

import pytest

from pipeline.case import load_case
from pipeline.run import check_case
from pipeline.synth.kinds import VARIANTS, generate_kind, main

CASES = [(kind, variant) for kind, variants in VARIANTS.items() for variant in variants]
SEED = 7


def _digest(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.mark.parametrize("kind,variant", CASES)
def test_pipeline_agrees_with_truth(tmp_path: Path, kind: str, variant: str) -> None:
    truth = generate_kind(tmp_path, kind, variant, SEED)
    assert truth == json.loads((tmp_path / "truth.json").read_text(encoding="utf-8"))
    report = check_case(load_case(tmp_path / "case.toml"))
    expected = truth["expected"]
    lines = {(j.sheet_number, j.line.line_no): j for j in report.lines}
    disagreements = []
    for sheet in truth["sheets"]:
        for t in sheet["lines"]:
            j = lines.get((sheet["sheet_number"], t["line_no"]))
            if j is None:
                disagreements.append((sheet["sheet_number"], t["line_no"], "not read"))
                continue
            got = (j.status.value, j.voter_id if j.status.value != "blank" else None)
            want = (t["expected_status"], t["voter_id"])
            if t["expected_status"] == "invalid" and t["voter_id"] is None:
                got = (got[0], None)  # a signer on no list: no id to compare
            if got != want:
                codes = sorted({f.code for f in j.findings})
                disagreements.append((sheet["sheet_number"], t["line_no"], want, got, codes))
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
    got = {(j.sheet_number, j.line.line_no): j.status.value for j in report.lines}
    want = {
        (s["sheet_number"], ln["line_no"]): ln["expected_status"]
        for s in truth["sheets"]
        for ln in s["lines"]
    }
    assert got == want
    assert report.verdict.value == truth["expected"]["verdict"]
