"""The sufficiency report: one `SufficiencyReport` written as JSON, CSV and printable HTML.

    report_to_dict(report)        -> the JSON document (schema: pipeline/schema/report.schema.json,
                                     documented for people in docs/report-schema.md)
    validate_report_dict(doc)     -> checks a document against that schema (needs jsonschema)
    render_html(report)           -> the printable report a village clerk files
    write_report(report, out_dir) -> report.json, lines.csv, report.html, objections.csv

Every file is built from the same dict, so the three always agree. Before anything is written the
report is checked for "lines in == lines judged": every row read from every sheet is judged exactly
once and the totals add up. A report that fails that check is a bug upstream, never something to
print for a clerk, so it raises `ReportInvariantError` instead of writing.
"""

from __future__ import annotations

import csv
import dataclasses
import datetime as dt
import decimal
import enum
import errno
import fcntl
import json
import logging
import math
import os
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from importlib import metadata, resources
from pathlib import Path, PurePath
from typing import Any

import orjson

from .errors import ExitCode, OutputBusyError, OutputError, PetitionError
from .records import (
    FIELD_NAMES,
    Box,
    Field,
    Finding,
    JudgedLine,
    LineStatus,
    Match,
    ReviewDecision,
    Sheet,
    SignatureCount,
    SufficiencyReport,
    Totals,
    ValuationResult,
    WitnessStatement,
)

__all__ = [
    "CSV_COLUMNS",
    "SCHEMA_VERSION",
    "ReportInvariantError",
    "ReportSchemaError",
    "check_report_invariants",
    "jsonable",
    "load_schema",
    "render_html",
    "render_html_dict",
    "report_to_dict",
    "review_by_reason",
    "validate_report_dict",
    "write_report",
]

log = logging.getLogger(__name__)

SCHEMA_VERSION = "2.0"
"""Version of the JSON document. A minor bump adds optional keys; a major bump changes meaning."""

TOOL_NAME = "petitions"

CSV_COLUMNS = (
    "sheet_number",
    "line_no",
    "line_id",
    "status",
    "finding_codes",
    "voter_id",
    "date",
    "signature",
    "name",
    "residence",
    "ward",
    "election_district",
    "min_confidence",
    "source",
    "match_decision",
    "match_score",
    "reason",
)

_SCHEMA_RESOURCE = ("schema", "report.schema.json")


class ReportInvariantError(PetitionError):
    """The report's totals disagree with its lines (a line was dropped, counted twice or
    miscounted upstream). Nothing is written: a wrong count must never reach a clerk."""

    exit_code = ExitCode.INTERNAL

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        lines = "\n".join(f"  - {p}" for p in problems)
        super().__init__(
            f"the sufficiency report is inconsistent ({len(problems)} problem(s)):\n{lines}\n"
            "This is a bug in the pipeline, not in the petition: no report was written. "
            "Please report it with the case file and the command line."
        )


class ReportSchemaError(PetitionError):
    """The JSON document does not match pipeline/schema/report.schema.json."""

    exit_code = ExitCode.INTERNAL

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        lines = "\n".join(f"  - {p}" for p in problems)
        super().__init__(
            f"the report document does not match schema {SCHEMA_VERSION} "
            f"({len(problems)} problem(s)):\n{lines}\n"
            "This is a bug in the pipeline; docs/report-schema.md describes the expected document."
        )


# --------------------------------------------------------------------------------------------
# Invariants
# --------------------------------------------------------------------------------------------


def check_report_invariants(report: SufficiencyReport) -> None:
    """Raise `ReportInvariantError` listing every count that disagrees.

    Lines in == lines judged: `totals.lines_read`, the judged lines and the sheets' rows are the
    same number and the same line ids, each once; the statuses add up to `lines_read` and each
    status total is the number of lines with that status.
    """
    t = report.totals
    problems: list[str] = []
    n_judged = len(report.lines)
    n_rows = sum(len(s.lines) for s in report.sheets)
    if not (t.lines_read == n_judged == n_rows):
        problems.append(
            f"lines read disagree: totals.lines_read = {t.lines_read}, judged lines = {n_judged}, "
            f"rows on the sheets = {n_rows}"
        )
    status_sum = t.valid + t.invalid + t.needs_review + t.blank
    if status_sum != t.lines_read:
        problems.append(
            f"statuses do not add up: valid {t.valid} + invalid {t.invalid} + needs_review "
            f"{t.needs_review} + blank {t.blank} = {status_sum}, but lines_read = {t.lines_read}"
        )
    if t.signed != t.lines_read - t.blank:
        problems.append(
            f"totals.signed = {t.signed}, but lines_read - blank = {t.lines_read - t.blank}"
        )
    counted = Counter(jl.status for jl in report.lines)
    for status, total in (
        (LineStatus.VALID, t.valid),
        (LineStatus.INVALID, t.invalid),
        (LineStatus.NEEDS_REVIEW, t.needs_review),
        (LineStatus.BLANK, t.blank),
    ):
        if counted[status] != total:
            problems.append(
                f"totals.{status.value} = {total}, but {counted[status]} judged line(s) "
                f"have status {status.value}"
            )
    judged_ids = Counter(jl.line.line_id for jl in report.lines)
    row_ids = Counter(line.line_id for s in report.sheets for line in s.lines)
    twice = sorted(i for i, n in judged_ids.items() if n > 1)
    if twice:
        problems.append(f"line(s) judged more than once: {', '.join(twice)}")
    not_judged = sorted(set(row_ids) - set(judged_ids))
    if not_judged:
        problems.append(f"row(s) read but not judged: {', '.join(not_judged)}")
    not_read = sorted(set(judged_ids) - set(row_ids))
    if not_read:
        problems.append(f"line(s) judged but on no sheet: {', '.join(not_read)}")
    if problems:
        raise ReportInvariantError(problems)


# --------------------------------------------------------------------------------------------
# The JSON document
# --------------------------------------------------------------------------------------------


def _tool_version() -> str:
    try:
        return metadata.version(TOOL_NAME)
    except metadata.PackageNotFoundError:
        return "0+unknown"


def jsonable(value: Any) -> Any:
    """Convert finding evidence (any mapping a rule put together) to plain JSON values:
    dates to ISO strings, enums to their values, sets to sorted lists, dataclasses to dicts,
    non-finite floats to null. Anything else unknown becomes its `str`."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, enum.Enum):
        return jsonable(value.value)
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dt.date | dt.time):  # datetime is a date
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return value.total_seconds()
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, PurePath):
        return str(value)
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, set | frozenset):
        items = [jsonable(v) for v in value]
        return sorted(items, key=lambda v: (type(v).__name__, json.dumps(v, sort_keys=True)))
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    return str(value)


def _box(box: Box | None) -> list[float] | None:
    if box is None:
        return None
    return [float(box.x0), float(box.top), float(box.x1), float(box.bottom)]


def _text(f: Field | None) -> str | None:
    return None if f is None else f.text


def _field(f: Field) -> dict[str, Any]:
    return {
        "text": f.text,
        "confidence": float(f.confidence),
        "source": f.source.value,
        "box": _box(f.box),
    }


def _ordered_fields(fields: Iterable[Field]) -> list[Field]:
    """Canonical field names first, in FIELD_NAMES order, then any others by name."""
    rank = {name: i for i, name in enumerate(FIELD_NAMES)}
    return sorted(fields, key=lambda f: (rank.get(f.name, len(rank)), f.name))


def _finding(f: Finding, *, full: bool) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "code": f.code,
        "severity": f.severity.value,
        "citation": f.citation,
        "message": f.message,
    }
    if full:
        doc["page_id"] = f.page_id
        doc["line_no"] = f.line_no
    doc["evidence"] = jsonable(dict(f.evidence))
    return doc


def _witness(w: WitnessStatement | None) -> dict[str, Any] | None:
    if w is None:
        return None
    return {
        "form": w.form,
        "witness_name": _text(w.witness_name),
        "residence": _text(w.residence),
        "village": _text(w.village),
        "county": _text(w.county),
        "stated_count": w.stated_count_value,
        "date": _text(w.date),
        "signature": _text(w.signature),
    }


def _sheet(s: Sheet) -> dict[str, Any]:
    return {
        "page_id": s.page.page_id,
        "file": s.page.path,
        "page_index": s.page.page_index,
        "content_hash": s.page.content_hash,
        "kind": s.page.kind.value,
        "sheet_number": s.sheet_number_value,
        "sheet_number_text": _text(s.sheet_number),
        "header": {
            "village": _text(s.header.village),
            "county": _text(s.header.county),
            "proposition": _text(s.header.proposition),
        },
        "columns": list(s.columns),
        "witness": _witness(s.witness),
        "line_count": len(s.lines),
        "filled_count": len(s.filled_lines),
    }


def _match(m: Match | None) -> dict[str, Any] | None:
    if m is None:
        return None
    return {
        "decision": m.decision.value,
        "voter_id": m.voter_id,
        "method": m.method,
        "reason": m.reason,
        "probability": m.probability,
        "one_of": list(m.one_of),
        "candidates": [
            {
                "voter_id": c.voter_id,
                "score": float(c.score),
                "display": c.display,
                "evidence": [
                    {
                        "field": e.field,
                        "level": e.level.value,
                        "score": float(e.score),
                        "line_value": e.line_value,
                        "register_value": e.register_value,
                    }
                    for e in c.evidence
                ],
            }
            for c in m.candidates
        ],
    }


def _decision(d: ReviewDecision | None) -> dict[str, Any] | None:
    if d is None:
        return None
    return {
        "action": d.action.value,
        "reviewer": d.reviewer,
        "decided_at": d.decided_at.isoformat(),
        "corrections": {str(k): str(v) for k, v in d.corrections.items()},
        "voter_id": d.voter_id,
        "reason": d.reason,
    }


def _line(jl: JudgedLine) -> dict[str, Any]:
    line = jl.line
    return {
        "line_id": line.line_id,
        "page_id": line.page_id,
        "sheet_number": jl.sheet_number,
        "line_no": line.line_no,
        "status": jl.status.value,
        "blank": line.blank,
        "fields": {f.name: _field(f) for f in _ordered_fields(line.fields)},
        "finding_codes": [f.code for f in jl.findings],
        "findings": [_finding(f, full=False) for f in jl.findings],
        "voter_id": jl.voter_id,
        "match": _match(jl.match),
        "decision": _decision(jl.decision),
        "crop_path": line.crop_path,
    }


def _ordered_lines(report: SufficiencyReport) -> list[JudgedLine]:
    """Sheet order (as in `report.sheets`), then line number. Lines of a page that is on no
    sheet (an upstream bug the invariant check reports) sort last."""
    sheet_rank = {s.page.page_id: i for i, s in enumerate(report.sheets)}
    last = len(sheet_rank)
    return sorted(
        report.lines,
        key=lambda jl: (sheet_rank.get(jl.line.page_id, last), jl.line.page_id, jl.line.line_no),
    )


def _totals(t: Totals) -> dict[str, Any]:
    """The counts, then the threshold as the sum type it is: "signatures" with the count
    required (and its denominator), or "valuation" with neither (the valuation section says
    whether the signers own enough)."""
    counts = {f.name: getattr(t, f.name) for f in dataclasses.fields(t) if f.name != "threshold"}
    return counts | {
        "threshold": "signatures" if isinstance(t.threshold, SignatureCount) else "valuation",
        "required": t.required,
        "denominator": t.denominator,
        "threshold_rule": t.threshold_rule,
    }


def report_to_dict(report: SufficiencyReport) -> dict[str, Any]:
    """The report as the JSON document described by report.schema.json, in a stable order."""
    lines = _ordered_lines(report)
    doc: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "generated_at": report.generated_at.isoformat(),
        "tool": {"name": TOOL_NAME, "version": _tool_version()},
        "case": {
            "name": report.case_name,
            "petition_kind": report.petition_kind,
            "label": report.petition_label,
            "statute": report.statute,
        },
        "verdict": {"value": report.verdict.value, "reason": report.verdict_reason},
        "totals": _totals(report.totals),
        "inputs": {path: report.inputs[path] for path in sorted(report.inputs)},
        "file_errors": [
            {"path": e.path, "page_index": e.page_index, "problem": e.problem}
            for e in report.file_errors
        ],
        "findings": [_finding(f, full=True) for f in report.findings],
        "sheets": [_sheet(s) for s in report.sheets],
        "lines": [_line(jl) for jl in lines],
        "review_queue": [jl.line.line_id for jl in lines if jl.status is LineStatus.NEEDS_REVIEW],
    }
    doc["objections"] = _objections(doc["lines"], doc["sheets"])
    if report.valuation is not None:
        doc["valuation"] = _valuation(report.valuation, report.valuation_best)
    return doc


def _valuation(now: ValuationResult, best: ValuationResult | None) -> dict[str, Any]:
    return {
        "citation": now.citation,
        "explanation": now.explanation,
        "met": now.met,
        "parts": [
            {
                "label": p.label,
                "total": float(p.total),
                "signed": float(p.signed),
                "share": float(p.share),
                "rule": p.rule,
                "met": p.met,
            }
            for p in now.parts
        ],
        "best_parts_met": [p.met for p in (best.parts if best else now.parts)],
    }


# --------------------------------------------------------------------------------------------
# Schema validation
# --------------------------------------------------------------------------------------------


def load_schema() -> dict[str, Any]:
    """The bundled JSON Schema (draft 2020-12) for the report document."""
    resource = resources.files("pipeline").joinpath(*_SCHEMA_RESOURCE)
    schema: dict[str, Any] = json.loads(resource.read_text(encoding="utf-8"))
    return schema


def validate_report_dict(doc: Mapping[str, Any]) -> None:
    """Check `doc` against the bundled schema; raise `ReportSchemaError` listing every problem.

    The tests hold `report_to_dict` to the schema, every petition kind's report included;
    `write_report` does not check again (on 60 scanned sheets it took 70% of the writing,
    0.5 s, serial, and it grows with the lines). jsonschema is a test dependency: when it is
    not installed this does nothing."""
    try:
        import jsonschema
    except ImportError:
        log.debug("jsonschema is not installed: report schema validation skipped")
        return
    schema = load_schema()
    validator_cls = jsonschema.validators.validator_for(schema)
    validator = validator_cls(schema)
    errors = [leaf for e in validator.iter_errors(doc) for leaf in _leaf_errors(e)]
    errors.sort(key=lambda e: [str(p) for p in e.absolute_path])
    if errors:
        problems = []
        for e in errors[:50]:
            where = "/".join(str(p) for p in e.absolute_path) or "(document)"
            message = e.message if len(e.message) <= 200 else e.message[:197] + "..."
            problems.append(f"{where}: {message}")
        if len(errors) > 50:
            problems.append(f"... and {len(errors) - 50} more")
        raise ReportSchemaError(problems)


def _leaf_errors(error: Any) -> Iterable[Any]:
    """An error under "anyOf: [an object, null]" only says the value matched neither; the
    errors inside the object alternative say what is wrong, so report those."""
    if not error.context:
        yield error
        return
    inner = [
        c for c in error.context if not (c.validator == "type" and c.validator_value == "null")
    ]
    for c in inner or error.context:
        yield from _leaf_errors(c)


# --------------------------------------------------------------------------------------------
# HTML
# --------------------------------------------------------------------------------------------

_STATUS_LABEL = {
    "valid": ("\u2713", "Valid"),
    "invalid": ("\u2717", "Invalid"),
    "needs_review": ("?", "Needs review"),
    "blank": ("\u2013", "Blank"),
}


def _grounds(line: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Why an invalid line is invalid: its fatal findings (one per code); a line rejected by a
    reviewer without a fatal finding has the reviewer's rejection as its ground."""
    reasons = [f for f in line["findings"] if f["severity"] == "fatal"]
    if not reasons:
        decision = line["decision"]
        if decision and decision["action"] == "reject":
            reasons = [
                {
                    "code": "REVIEWER_REJECTED",
                    "citation": "",
                    "message": decision["reason"] or "rejected by a reviewer",
                }
            ]
        else:
            reasons = line["findings"][:1] or [
                {"code": "UNSPECIFIED", "citation": "", "message": "no finding recorded"}
            ]
    unique: dict[str, dict[str, Any]] = {}
    for f in reasons:
        unique.setdefault(
            f["code"], {"code": f["code"], "citation": f["citation"], "message": f["message"]}
        )
    return list(unique.values())


def _objections(lines: list[dict[str, Any]], sheets: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every invalid line with its grounds, in sheet and line order: what an objector files as
    specifications (9-902(9) gives five days after the filing)."""
    where = {s["page_id"]: s for s in sheets}
    out = []
    for line in lines:
        if line["status"] != LineStatus.INVALID.value:
            continue
        sheet = where.get(line["page_id"], {})
        out.append(
            {
                "line_id": line["line_id"],
                "sheet_number": line["sheet_number"],
                "line_no": line["line_no"],
                "file": sheet.get("file", ""),
                "page_index": sheet.get("page_index", 0),
                "grounds": _grounds(line),
            }
        )
    return out


def _invalid_by_reason(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Invalid lines grouped by the reason that invalidates them. A line with several grounds
    is counted under each of them."""
    groups: dict[str, dict[str, Any]] = {}
    for objection in doc["objections"]:
        for f in objection["grounds"]:
            g = groups.setdefault(f["code"], {**f, "count": 0, "line_ids": []})
            g["count"] += 1
            g["line_ids"].append(objection["line_id"])
    return sorted(groups.values(), key=lambda g: (-g["count"], g["code"]))


def review_by_reason(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The lines awaiting a person grouped by why: each line under the set of its review
    findings' codes (a line waits until every doubt is cleared), the commonest first."""
    lines_by_id = {line["line_id"]: line for line in doc["lines"]}
    groups: dict[tuple[str, ...], list[str]] = {}
    for line_id in doc["review_queue"]:
        codes = sorted(
            {f["code"] for f in lines_by_id[line_id]["findings"] if f["severity"] == "review"}
        )
        groups.setdefault(tuple(codes), []).append(line_id)
    return [
        {"codes": list(codes), "count": len(ids), "line_ids": ids}
        for codes, ids in sorted(groups.items(), key=lambda g: (-len(g[1]), g[0]))
    ]


def _html_context(doc: Mapping[str, Any]) -> dict[str, Any]:
    totals = doc["totals"]
    lines_by_page: dict[str, list[dict[str, Any]]] = {}
    for line in doc["lines"]:
        lines_by_page.setdefault(line["page_id"], []).append(line)
    findings_by_page: dict[str | None, list[dict[str, Any]]] = {}
    for f in doc["findings"]:
        findings_by_page.setdefault(f["page_id"], []).append(f)
    lines_by_id = {line["line_id"]: line for line in doc["lines"]}
    sheet_by_page = {s["page_id"]: s for s in doc["sheets"]}
    invalid_groups = _invalid_by_reason(doc)
    return {
        "doc": doc,
        "totals": totals,
        "margin": None if totals["required"] is None else totals["valid"] - totals["required"],
        "best_case": totals["valid"] + totals["needs_review"],
        "lines_by_page": lines_by_page,
        "petition_findings": findings_by_page.get(None, []),
        "findings_by_page": findings_by_page,
        "sheet_by_page": sheet_by_page,
        "review_lines": [lines_by_id[i] for i in doc["review_queue"]],
        "review_groups": review_by_reason(doc),
        "invalid_groups": invalid_groups,
        "invalid_multi": sum(g["count"] for g in invalid_groups) > totals["invalid"],
        "status_label": _STATUS_LABEL,
        "field_names": FIELD_NAMES,
    }


def _bytecode_cache() -> Any:
    """Jinja's compiled templates kept between runs, in its own per-user folder under the
    temporary directory (keyed by each template's source, so an edited template is compiled
    anew): a re-check's report no longer spends 0.1 s compiling the template. None where that
    folder cannot be made."""
    from jinja2 import FileSystemBytecodeCache

    try:
        return FileSystemBytecodeCache()
    except (OSError, RuntimeError):
        return None


def _environment() -> Any:
    from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

    env = Environment(
        loader=PackageLoader("pipeline", "templates"),
        bytecode_cache=_bytecode_cache(),
        autoescape=select_autoescape(enabled_extensions=("html", "j2", "html.j2")),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["num"] = _fmt_num
    return env


def _fmt_num(value: Any, places: int = 2) -> str:
    if value is None:
        return "\u2014"
    if isinstance(value, float):
        return f"{value:.{places}f}"
    return str(value)


def render_html_dict(doc: Mapping[str, Any]) -> str:
    """Render an already built report document to HTML."""
    template = _environment().get_template("report.html.j2")
    return template.render(**_html_context(doc))


def render_html(report: SufficiencyReport) -> str:
    """The printable sufficiency report (no scripts, no external assets)."""
    return render_html_dict(report_to_dict(report))


# --------------------------------------------------------------------------------------------
# CSV
# --------------------------------------------------------------------------------------------

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _csv_safe(text: str | None) -> str:
    """Text read from a sheet goes to a spreadsheet: a cell starting like a formula
    ("=HYPERLINK(...)") is prefixed with an apostrophe so it shows as text."""
    if not text:
        return ""
    if text.startswith(_FORMULA_START) and not _is_number(text):
        return "'" + text
    return text


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _csv_row(line: Mapping[str, Any]) -> dict[str, Any]:
    fields = line["fields"]
    filled = [f for f in fields.values() if f["text"].strip()]
    confidences = [f["confidence"] for f in filled]
    sources = sorted({f["source"] for f in filled})
    match = line["match"]
    score: float | None = None
    if match and match["candidates"]:
        chosen = line["voter_id"] or match["voter_id"]
        pick = next((c for c in match["candidates"] if c["voter_id"] == chosen), None)
        score = (pick or match["candidates"][0])["score"]
    findings = line["findings"]
    row: dict[str, Any] = {
        "sheet_number": "" if line["sheet_number"] is None else line["sheet_number"],
        "line_no": line["line_no"],
        "line_id": line["line_id"],
        "status": line["status"],
        "finding_codes": ";".join(line["finding_codes"]),
        "voter_id": line["voter_id"] or "",
        "min_confidence": f"{min(confidences):.2f}" if confidences else "",
        "source": ";".join(sources),
        "match_decision": match["decision"] if match else "",
        "match_score": "" if score is None else f"{score:.1f}",
        "reason": _csv_safe(findings[0]["message"]) if findings else "",
    }
    for name in ("date", "signature", "name", "residence", "ward", "election_district"):
        f = fields.get(name)
        row[name] = _csv_safe(f["text"] if f else "")
    return row


def _write_csv(doc: Mapping[str, Any], path: Path) -> None:
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=CSV_COLUMNS)
        writer.writeheader()
        for line in doc["lines"]:
            writer.writerow({k: _cell(v) for k, v in _csv_row(line).items()})


def _cell(value: Any) -> Any:
    """Every text cell escaped, whatever its source (a voter id from the register, a file
    name, a finding's message): a spreadsheet must show text, never run it."""
    return _csv_safe(value) if isinstance(value, str) else value


# --------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------


OBJECTION_COLUMNS = ("sheet_number", "line_no", "line_id", "code", "ground", "citation", "file")


def _write_objections(doc: Mapping[str, Any], path: Path) -> None:
    """One row per ground of each invalid line, in sheet and line order."""
    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(OBJECTION_COLUMNS)
        for o in doc["objections"]:
            for g in o["grounds"]:
                row = (
                    "" if o["sheet_number"] is None else o["sheet_number"],
                    o["line_no"],
                    o["line_id"],
                    g["code"],
                    g["message"],
                    g["citation"],
                    o["file"],
                )
                writer.writerow([_cell(v) for v in row])


def _printable(value: Any) -> Any:
    """The report's text as valid UTF-8: a file name that is not (Python keeps its bytes as
    lone surrogates) is written with the bad bytes replaced, not a crash of the writer."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        return value
    if isinstance(value, dict):
        return {_printable(k): _printable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_printable(v) for v in value]
    return value


def json_text(doc: Mapping[str, Any]) -> str:
    """report.json's text, indented two spaces, non-ASCII as itself: orjson's, the same text as
    `json.dumps(doc, indent=2, ensure_ascii=False)` but for how some floats are spelt (0.00001
    for 1e-05; the same number when read), and a hundred times faster (bench/recheck.py: the
    2 MB report of a 40-sheet case in 1 ms, not 0.1 s). The document has no NaN
    (`report_to_dict` writes it as null); keys that are not strings are written as strings,
    as json does."""
    return orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS).decode()


LOCK_NAME = ".petitions.lock"


@contextmanager
def locked_out_dir(out_dir: Path) -> Iterator[Path]:
    """The report folder, created if missing and locked for one check at a time: a second
    check into the same folder is refused with a clear line (OutputBusyError), and a folder
    that cannot be written is said before any work (OutputError). The lock is an flock on
    LOCK_NAME, released when the check ends, however it ends (kill -9 included)."""
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise OutputError(f"{out_dir}: --out names a file, not a folder for the report")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(out_dir / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as err:
        raise OutputError(_cannot_write(out_dir, err)) from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "?"
            raise OutputBusyError(
                f"{out_dir}: another `petitions check` (process {holder}) is writing this "
                "folder; wait for it or give another --out"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield out_dir
    finally:
        os.close(fd)


def _cannot_write(out_dir: Path, err: OSError) -> str:
    why = {
        errno.ENOSPC: "the disk is full",
        errno.EDQUOT: "the disk quota is used up",
        errno.EROFS: "the file system is read-only",
        errno.EACCES: "permission denied (a read-only folder?)",
        errno.EPERM: "permission denied",
        errno.ENOTDIR: "a part of the path is a file, not a folder",
    }.get(err.errno or 0, err.strerror or str(err))
    return f"{out_dir}: the report cannot be written there: {why}"


def write_report(report: SufficiencyReport, out_dir: Path) -> dict[str, Path]:
    """Check the report's invariants, then write report.json, lines.csv, report.html and
    objections.csv into `out_dir` (created if missing). Returns their paths keyed "json",
    "csv", "html", "objections". The files are written into a temporary folder inside
    `out_dir` and renamed into place: a crash or a full disk never leaves a half-written
    report.json beside the previous run's other files."""
    check_report_invariants(report)
    doc = _printable(report_to_dict(report))
    html = render_html_dict(doc)

    out_dir = Path(out_dir)
    names = {
        "json": "report.json",
        "csv": "lines.csv",
        "html": "report.html",
        "objections": "objections.csv",
    }
    text = json_text(doc)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=".report-", dir=out_dir))
    except OSError as err:
        raise OutputError(_cannot_write(out_dir, err)) from None
    try:
        (work / names["json"]).write_text(text + "\n", encoding="utf-8")
        _write_csv(doc, work / names["csv"])
        _write_objections(doc, work / names["objections"])
        (work / names["html"]).write_text(html, encoding="utf-8")
        # report.json last: where it is new, so are the others
        for name in sorted(names.values(), key=lambda n: n == names["json"]):
            os.replace(work / name, out_dir / name)
    except OSError as err:
        raise OutputError(_cannot_write(out_dir, err)) from None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    log.info(
        "report written to %s: %d lines, verdict %s",
        out_dir,
        report.totals.lines_read,
        report.verdict.value,
    )
    return {key: out_dir / name for key, name in names.items()}
