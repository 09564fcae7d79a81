"""pipeline.report: the JSON document, its schema, the CSV, the printable HTML, and the
"lines in == lines judged" check. Built on tests/factories.sample_report (made-up data)."""

from __future__ import annotations

import copy
import csv
import dataclasses
import datetime as dt
import json
from pathlib import Path

import pytest

from pipeline.records import (
    ComparisonLevel,
    Field,
    LineStatus,
    MatchDecision,
    ReviewAction,
    Severity,
    ShareOfValuation,
    Source,
    Totals,
    Verdict,
)
from pipeline.report import (
    CSV_COLUMNS,
    SCHEMA_VERSION,
    ReportInvariantError,
    ReportSchemaError,
    check_report_invariants,
    jsonable,
    load_schema,
    render_html,
    report_to_dict,
    validate_report_dict,
    write_report,
)

try:
    from tests.factories import CASE_NAME, sample_report
except ImportError:  # tests/ is not a package: pytest puts tests/ itself on sys.path
    from factories import CASE_NAME, sample_report

pytest.importorskip("jsonschema")


@pytest.fixture(scope="module")
def report():
    return sample_report()


@pytest.fixture(scope="module")
def doc(report):
    return report_to_dict(report)


@pytest.fixture(scope="module")
def written(report, tmp_path_factory):
    return write_report(report, tmp_path_factory.mktemp("out") / "nested" / "report")


# ---- the document and its schema ----------------------------------------------------------


def test_sample_document_is_valid(doc):
    validate_report_dict(doc)
    assert doc["schema_version"] == SCHEMA_VERSION == "2.0"
    assert doc["case"] == {
        "name": CASE_NAME,
        "petition_kind": "permissive_referendum",
        "label": "permissive referendum",
        "statute": "Village Law § 9-902",
    }
    assert doc["verdict"]["value"] == "undetermined"
    assert doc["tool"]["name"] == "petitions" and doc["tool"]["version"]
    counts = [f.name for f in dataclasses.fields(Totals) if f.name != "threshold"]
    assert list(doc["totals"]) == [
        *counts,
        "threshold",
        "required",
        "denominator",
        "threshold_rule",
    ]
    assert doc["totals"]["threshold"] == "signatures" and doc["totals"]["required"] == 4


def test_a_share_of_valuation_is_reported_as_one_not_as_zero_signatures(report):
    """The threshold is a sum type: a valuation kind's totals say "valuation" and require no
    count (null, not 0), and the schema holds each side to its shape."""
    rule = "owners of at least half the assessed valuation (Town Law § 191)"
    totals = dataclasses.replace(report.totals, threshold=ShareOfValuation(rule))
    assert totals.required is None and totals.denominator is None
    doc = report_to_dict(dataclasses.replace(report, totals=totals))
    t = doc["totals"]
    assert (t["threshold"], t["required"], t["denominator"], t["threshold_rule"]) == (
        "valuation",
        None,
        None,
        rule,
    )
    validate_report_dict(doc)
    for wrong in ({"required": 0}, {"threshold": "signatures"}):
        with pytest.raises(ReportSchemaError):
            validate_report_dict({**doc, "totals": {**t, **wrong}})


def test_document_is_plain_json(doc):
    # No NaN, no dates, no sets: strict JSON round trip is lossless.
    assert json.loads(json.dumps(doc, allow_nan=False)) == doc
    gap = next(f for f in doc["findings"] if f["code"] == "SHEET_NUMBERING_GAP")
    assert gap["page_id"] is None and gap["line_no"] is None
    assert gap["evidence"] == {"missing": [2], "numbers_found": [1, 3]}
    inactive = next(line for line in doc["lines"] if "SIGNER_INACTIVE" in line["finding_codes"])
    assert inactive["findings"][0]["evidence"]["inactive_date"] == "2025-11-04"


@pytest.mark.parametrize(
    "break_it, where",
    [
        (lambda d: d["lines"][0].__setitem__("status", "maybe"), "lines/0/status"),
        (lambda d: d.pop("totals"), "totals"),
        (lambda d: d["lines"][2]["match"].pop("candidates"), "candidates"),
        (lambda d: d["sheets"][0].__setitem__("surprise", 1), "surprise"),
        (lambda d: d["findings"][0].__setitem__("severity", "FATAL"), "severity"),
        (lambda d: d["verdict"].__setitem__("value", "probably"), "verdict"),
        (lambda d: d["lines"][0]["fields"]["name"].__setitem__("source", "guess"), "source"),
        (lambda d: d["totals"].__setitem__("valid", "3"), "valid"),
    ],
)
def test_broken_document_fails_validation(doc, break_it, where):
    broken = copy.deepcopy(doc)
    break_it(broken)
    with pytest.raises(ReportSchemaError) as info:
        validate_report_dict(broken)
    assert where in str(info.value)


def test_schema_enums_follow_the_records():
    defs = load_schema()["$defs"]
    assert set(defs["line"]["properties"]["status"]["enum"]) == {s.value for s in LineStatus}
    assert set(defs["finding"]["properties"]["severity"]["enum"]) == {s.value for s in Severity}
    assert set(defs["field"]["properties"]["source"]["enum"]) == {s.value for s in Source}
    assert set(defs["match"]["properties"]["decision"]["enum"]) == {d.value for d in MatchDecision}
    assert set(defs["decision"]["properties"]["action"]["enum"]) == {a.value for a in ReviewAction}
    assert set(defs["field_evidence"]["properties"]["level"]["enum"]) == {
        c.value for c in ComparisonLevel
    }
    top = load_schema()
    assert set(top["properties"]["verdict"]["properties"]["value"]["enum"]) == {
        v.value for v in Verdict
    }
    assert top["$id"] == "https://petitions.invalid/schema/report-2.0.json"


def test_review_queue_and_lines_in_sheet_order(report, doc):
    order = [(line["page_id"], line["line_no"]) for line in doc["lines"]]
    expected = [(s.page.page_id, line.line_no) for s in report.sheets for line in s.lines]
    assert order == expected
    assert doc["review_queue"] == [
        line["line_id"] for line in doc["lines"] if line["status"] == "needs_review"
    ]
    assert len(doc["review_queue"]) == 1
    queued = next(line for line in doc["lines"] if line["line_id"] == doc["review_queue"][0])
    assert len(queued["match"]["candidates"]) == 3
    assert queued["match"]["candidates"][0]["evidence"][0]["level"] == "close"


def test_decision_and_reviewer_field(doc):
    decided = [line for line in doc["lines"] if line["decision"]]
    assert len(decided) == 1
    d = decided[0]
    assert d["decision"]["action"] == "correct"
    assert d["decision"]["decided_at"].startswith("2026-03-30T14:05")
    assert d["fields"]["residence"] == {
        "text": "14 Mill St",
        "confidence": 1.0,
        "source": "reviewer",
        "box": d["fields"]["residence"]["box"],
    }
    # fields come out in canonical order even after replace_field moved one to the end
    assert list(d["fields"]) == [
        "date",
        "signature",
        "name",
        "residence",
        "ward",
        "election_district",
    ]


def test_jsonable_converts_awkward_values():
    value = {
        "when": dt.datetime(2026, 1, 2, 3, 4, tzinfo=dt.UTC),
        "ids": {"b", "a"},
        "nan": float("nan"),
        "level": ComparisonLevel.CLOSE,
        3: (1, 2),
        "path": Path("a/b"),
    }
    assert jsonable(value) == {
        "when": "2026-01-02T03:04:00+00:00",
        "ids": ["a", "b"],
        "nan": None,
        "level": "close",
        "3": [1, 2],
        "path": "a/b",
    }


# ---- writing ------------------------------------------------------------------------------


def test_objections_list_every_invalid_line_with_its_grounds(doc, written):
    invalid = [line["line_id"] for line in doc["lines"] if line["status"] == "invalid"]
    assert [o["line_id"] for o in doc["objections"]] == invalid
    for o in doc["objections"]:
        assert o["grounds"] and all(g["code"] for g in o["grounds"])
    rows = list(csv.DictReader(written["objections"].open(encoding="utf-8")))
    assert len(rows) == sum(len(o["grounds"]) for o in doc["objections"])
    assert {r["line_id"] for r in rows} == set(invalid)
    html = written["html"].read_text(encoding="utf-8")
    assert "Objections" in html


def test_write_report_writes_four_files(written):
    assert set(written) == {"json", "csv", "html", "objections"}
    for path in written.values():
        assert path.is_file() and path.stat().st_size > 0
    assert written["json"].name == "report.json"
    assert written["csv"].name == "lines.csv"
    assert written["html"].name == "report.html"


def test_json_round_trip(report, written):
    assert json.loads(written["json"].read_text(encoding="utf-8")) == report_to_dict(report)


def test_csv_has_one_row_per_line_read(report, written):
    with written["csv"].open(encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert len(rows) == report.totals.lines_read + 1
    with written["csv"].open(encoding="utf-8", newline="") as fh:
        records = list(csv.DictReader(fh))
    by_id = {jl.line.line_id: jl for jl in report.lines}
    assert [r["status"] for r in records] == [by_id[r["line_id"]].status.value for r in records]
    counts = {s.value: sum(r["status"] == s.value for r in records) for s in LineStatus}
    t = report.totals
    assert counts == {
        "valid": t.valid,
        "invalid": t.invalid,
        "needs_review": t.needs_review,
        "blank": t.blank,
    }
    invalid = next(r for r in records if r["finding_codes"] == "LINE_UNDATED")
    assert invalid["reason"] == "the line has no date of signing"
    assert invalid["date"] == ""
    assert invalid["sheet_number"] == "3"
    corrected = next(r for r in records if r["residence"] == "14 Mill St")
    assert corrected["source"] == "ocr;reviewer"
    assert corrected["min_confidence"] == "0.70"
    assert corrected["match_decision"] == "match"


def test_html_has_verdict_case_and_review_queue(report, written, doc):
    html = written["html"].read_text(encoding="utf-8")
    assert "UNDETERMINED" in html
    assert CASE_NAME in html
    for line_id in doc["review_queue"]:
        assert line_id in html
    assert report.totals.threshold_rule in html
    assert "<script" not in html
    assert "@media print" in html
    assert "http://" not in html and "https://" not in html  # no external assets


def _with_name(report, text):
    """The sample with the first line's name replaced."""
    jl = report.lines[0]
    line = jl.line.replace_field(Field(name="name", text=text, confidence=0.5, source=Source.OCR))
    lines = (dataclasses.replace(jl, line=line),) + report.lines[1:]
    sheet = report.sheets[0]
    sheet = dataclasses.replace(sheet, lines=(line,) + sheet.lines[1:])
    return dataclasses.replace(report, lines=lines, sheets=(sheet,) + report.sheets[1:])


def test_html_escapes_text_read_from_sheets(report, tmp_path):
    hostile = _with_name(report, '<script>alert("x")</script> Smith')
    paths = write_report(hostile, tmp_path)
    html = paths["html"].read_text(encoding="utf-8")
    assert "<script>" not in html
    assert "&lt;script&gt;alert(" in html
    # and the same text cannot become a spreadsheet formula
    formula = _with_name(report, '=HYPERLINK("http://x","click")')
    paths = write_report(formula, tmp_path / "f")
    with paths["csv"].open(encoding="utf-8", newline="") as fh:
        first = next(csv.DictReader(fh))
    assert first["name"].startswith("'=")


def test_render_html_of_a_sufficient_report(report):
    count = dataclasses.replace(report.totals.threshold, required=2)
    totals = dataclasses.replace(report.totals, threshold=count)
    html = render_html(dataclasses.replace(report, totals=totals, verdict=Verdict.SUFFICIENT))
    assert "SUFFICIENT" in html
    assert "1 above the threshold" in html


# ---- lines in == lines judged -------------------------------------------------------------


def test_sample_satisfies_the_invariants(report):
    check_report_invariants(report)


def test_totals_disagreeing_with_lines_raise(report, tmp_path):
    bad = dataclasses.replace(
        report, totals=dataclasses.replace(report.totals, lines_read=10, valid=4)
    )
    with pytest.raises(ReportInvariantError) as info:
        write_report(bad, tmp_path / "out")
    message = str(info.value)
    assert "lines_read = 10" in message
    assert "totals.valid = 4" in message
    assert info.value.exit_code == 70
    assert not (tmp_path / "out").exists()  # nothing written


def test_a_dropped_line_raises(report):
    bad = dataclasses.replace(report, lines=report.lines[:-1])
    with pytest.raises(ReportInvariantError, match="read but not judged"):
        check_report_invariants(bad)


def test_statuses_not_adding_up_raise(report):
    bad = dataclasses.replace(
        report, totals=dataclasses.replace(report.totals, needs_review=2, invalid=2)
    )
    with pytest.raises(ReportInvariantError) as info:
        check_report_invariants(bad)
    assert "totals.needs_review = 2" in str(info.value)
    assert "totals.invalid = 2" in str(info.value)


def test_every_schema_key_is_documented():
    doc_text = (Path(__file__).resolve().parents[1] / "docs" / "report-schema.md").read_text(
        encoding="utf-8"
    )
    schema = load_schema()
    objects = [schema, *schema["$defs"].values()]
    objects += [p for o in objects for p in o.get("properties", {}).values() if "properties" in p]
    keys = {k for o in objects for k in o.get("properties", {})}
    missing = sorted(k for k in keys if f"`{k}`" not in doc_text)
    assert not missing, f"keys missing from docs/report-schema.md: {missing}"
