"""Accuracy of the whole pipeline against the synthetic corpus's ground truth.

Runs the real pipeline (`pipeline.run.check_case`, no Prefect) over every case of a corpus and
compares what it read, matched and decided with truth.json, overall, per input style
(born-digital, clean scan, degraded scan) and per petition kind. Prints two tables and writes
the per-line disagreements, worst first, to a CSV. Always exits 0: it measures, it does not
judge.

    .venv/bin/python bench/accuracy.py                     # 3 fresh cases x 3 styles (CI)
    .venv/bin/python bench/accuracy.py --cases 60 --jobs 2 # the large corpus, on demand
    .venv/bin/python bench/accuracy.py --corpus DIR        # a corpus already generated
    .venv/bin/python bench/accuracy.py --csv /tmp/d.csv      # default bench/out/disagreements.csv
    .venv/bin/python bench/accuracy.py --hand-kinds all    # every other-kind variant by hand
    .venv/bin/python bench/accuracy.py --split heldout     # only the held-out layout families

The 9-902 cases are set in the layout families of synth/layouts.py: `--split both`
(the default) alternates development and held-out cases, `dev` or `heldout` takes one side,
`classic` today's form only. The other kinds' signature tables are set as the same split's
families set them (`layouts.kind_style`; with `both` their variants alternate). Every group is
printed whole and then per split, and a last table puts the development and held-out figures
side by side (layouts and fonts: tune on the first, report the second).

The other three petition kinds (synth/kinds.py) come typed, every variant in every
style, and filled in by hand (handwriting fonts; the statements' blanks too): one variant a kind
by default (`--hand-kinds sample`), every variant with `--hand-kinds all`, none with
`--hand-kinds none`. Their groups are printed apart ("kinds typed ...", "kinds by hand ...").

The figures:

- rows: table rows found / rows in truth (blank rows included), matched by (file, page, row);
  `signed` the same for the rows truth says are signed (a signed row read as blank is lost);
  `invented`: rows read that truth does not have; "rows the page shows" the same without the
  blank rows after the last entry of a table printed with neither rules nor line numbers
  (nothing on the page marks them, `synth.truth.rows_the_page_shows`); a blank row read past
  truth's in such a table is the reader's guess at its empty space, not counted invented.
- CER per column: Levenshtein distance / truth characters, over the rows found. The signature
  column's truth is the name as signed; a reader that only tells ink from no ink scores high.
- match P / R / F1: the register id the pipeline matched against truth's, over signed rows
  (a row not read counts as not matched).
- review: share of the signed rows found that went to review.
- wrong: rows decided (valid or invalid) whose truth status differs, without review. Must be 0.
- |dvalid|: mean absolute error of the valid count per case; verdict: share of cases whose
  verdict equals truth's (the side-by-side table also counts the verdicts that are wrong, not
  merely undetermined: a proven bound never is).
- per sheet (side-by-side table): the sheet number read right, or wrong without a flag (no
  SHEET_NUMBER_MISSING / _DUPLICATE / SHEET_FIELD_LOW_CONFIDENCE); the columns placed right
  (the fields they give), or wrong without a flag (LAYOUT_DOUBT, SHEET_NOT_READ); blank rows
  read as signed.

Synthetic data only (synth); no real person's data.
"""

from __future__ import annotations

import argparse
import csv
import json
import logging
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from rapidfuzz.distance import Levenshtein

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(ROOT))

from pipeline.case import load_case  # noqa: E402
from pipeline.columns import role_field  # noqa: E402
from pipeline.records import FIELD_NAMES, MatchDecision, Sheet, SufficiencyReport  # noqa: E402
from pipeline.run import check_case  # noqa: E402
from synth.corpus import ALL_STYLES, STYLES, generate_corpus  # noqa: E402
from synth.kinds import VARIANTS as KIND_VARIANTS  # noqa: E402
from synth.kinds import generate_kind  # noqa: E402
from synth.layouts import SPLITS  # noqa: E402
from synth.scan import scan_case  # noqa: E402
from synth.truth import blank_rows_marked, rows_the_page_shows, town_lost  # noqa: E402
from synth.varied import Variation  # noqa: E402

log = logging.getLogger("bench.accuracy")

KINDS = (
    "permissive_referendum",
    "independent_nomination",
    "incorporation",
    "improvement_district",
)
CSV_FIELDS = (
    "case",
    "style",
    "kind",
    "file",
    "page",
    "line",
    "field",
    "truth",
    "read",
    "distance",
    "status_truth",
    "status_got",
    "codes_truth",
    "codes_got",
    "voter_truth",
    "voter_got",
    "silent_wrong",
)


@dataclass(frozen=True, slots=True)
class RowResult:
    """One table row: truth's and the pipeline's view of it (either may be missing)."""

    file: str
    page: int
    line_no: int
    truth_status: str | None  # None: a row the pipeline invented
    got_status: str | None  # None: a row the pipeline did not read
    truth_fields: dict[str, str]
    got_fields: dict[str, str]
    truth_voter: str | None
    got_voter: str | None
    truth_codes: tuple[str, ...]
    got_codes: tuple[str, ...]
    shown: bool = True  # False: a blank row nothing on its page marks (rows_the_page_shows)

    @property
    def signed(self) -> bool:
        return self.truth_status not in (None, "blank")

    @property
    def silent_wrong(self) -> bool:
        """Decided (valid or invalid) without review, and not as truth has it."""
        return self.got_status in ("valid", "invalid") and self.got_status != self.truth_status


@dataclass(frozen=True, slots=True)
class SheetResult:
    """One sheet: its number and its table's columns, as truth has them and as read, and
    whether the reader sent them to a person."""

    file: str
    page: int
    truth_number: int | None
    got_number: int | None  # None: not read (or the sheet not read at all)
    number_flagged: bool  # the number went to a person (missing, unsure, duplicate)
    truth_columns: tuple[str, ...]  # the fields its columns give, sorted
    got_columns: tuple[str, ...]
    layout_flagged: bool  # LAYOUT_DOUBT or SHEET_NOT_READ

    @property
    def number_right(self) -> bool:
        return self.got_number == self.truth_number

    @property
    def columns_right(self) -> bool:
        return self.got_columns == self.truth_columns


@dataclass(frozen=True, slots=True)
class CaseResult:
    case: str
    style: str
    kind: str
    rows: tuple[RowResult, ...]
    truth_valid: int
    got_valid: int
    truth_verdict: str
    got_verdict: str
    seconds: float
    errors: tuple[str, ...] = field(default=())
    fill: str = ""  # the other kinds: "typed" or "hand"; "" for the 9-902 corpus
    sheets: tuple[SheetResult, ...] = ()
    family: str = "classic"  # the layout family (synth/layouts.py)
    split: str = "dev"  # its split: "dev" or "heldout"


def compare(case: str, style: str, truth: dict[str, Any], report: SufficiencyReport) -> CaseResult:
    """Line-by-line comparison of a report with its truth, keyed by (file name, page, row)."""
    where = {s.page.page_id: (Path(s.page.path).name, s.page.page_index) for s in report.sheets}
    got = {}
    for j in report.lines:
        file, page = where[j.line.page_id]
        voter = None
        if j.match is not None and j.match.decision is MatchDecision.MATCH:
            voter = j.match.voter_id
        got[(file, page, j.line.line_no)] = (j, voter)
    rows: list[RowResult] = []
    seen = set()
    rules = truth.get("layout", {}).get("rules")
    marked = {
        (Path(sheet["file"]).name, sheet["page_index"]): blank_rows_marked(sheet, rules)
        for sheet in truth["sheets"]
    }
    for sheet in truth["sheets"]:
        file, page = Path(sheet["file"]).name, sheet["page_index"]
        shown = rows_the_page_shows(sheet, rules)
        for k, ln in enumerate(sheet["lines"]):
            key = (file, page, ln["line_no"])
            seen.add(key)
            hit = got.get(key)
            j, voter = hit if hit is not None else (None, None)
            rows.append(
                RowResult(
                    file,
                    page,
                    ln["line_no"],
                    ln["expected_status"],
                    None if j is None else j.status.value,
                    dict(ln["fields"]),
                    {} if j is None else {f.name: f.text for f in j.line.fields},
                    ln["voter_id"],
                    voter,
                    tuple(ln["defects"]),
                    () if j is None else tuple(sorted({f.code for f in j.findings})),
                    shown=k < shown,
                )
            )
    for key, (j, voter) in got.items():
        if key not in seen:
            rows.append(
                RowResult(
                    key[0],
                    key[1],
                    key[2],
                    None,
                    j.status.value,
                    {},
                    {f.name: f.text for f in j.line.fields},
                    None,
                    voter,
                    (),
                    tuple(sorted({f.code for f in j.findings})),
                    # a blank row read below an unruled table's entries: a guess at empty space
                    shown=j.status.value != "blank" or marked.get(key[:2], True),
                )
            )
    return CaseResult(
        sheets=_sheet_results(truth, report),
        case=case,
        style=style,
        kind=truth.get("kind", "permissive_referendum"),
        rows=tuple(rows),
        truth_valid=truth["expected"]["valid"],
        got_valid=report.totals.valid,
        truth_verdict=truth["expected"]["verdict"],
        got_verdict=report.verdict.value,
        seconds=0.0,
        errors=tuple(f"{Path(e.path).name}: {e.problem}" for e in report.file_errors),
    )


_NUMBER_FLAGS = frozenset(
    {"SHEET_NUMBER_MISSING", "SHEET_NUMBER_DUPLICATE", "SHEET_FIELD_LOW_CONFIDENCE"}
)
_LAYOUT_FLAGS = frozenset({"LAYOUT_DOUBT", "SHEET_NOT_READ"})


def _fields_of(roles: Iterable[str]) -> tuple[str, ...]:
    out = {role_field(r) for r in roles}
    if "signature_residence" in roles:
        out.add("residence")
    return tuple(sorted(f for f in out if f))


def _got_columns(t: dict[str, Any], sheet: Sheet) -> tuple[str, ...]:
    """The fields a sheet's columns gave, its residence not among them when its town column
    was lost (`synth.truth.town_lost`)."""
    got = set(sheet.columns)
    if town_lost(t, [line.text("residence") for line in sheet.lines]):
        got.discard("residence")
    return tuple(sorted(got))


def _sheet_results(truth: dict[str, Any], report: SufficiencyReport) -> tuple[SheetResult, ...]:
    """Per truth sheet: the number and the columns read, and the sheet-level flags raised."""
    by_place = {(Path(s.page.path).name, s.page.page_index): s for s in report.sheets}
    codes: dict[str, set[str]] = {}
    for f in report.findings:
        if f.page_id is not None and f.line_no is None:
            codes.setdefault(f.page_id, set()).add(f.code)
    out = []
    for t in truth["sheets"]:
        key = (Path(t["file"]).name, t["page_index"])
        got = by_place.get(key)
        flags = codes.get(got.page.page_id, set()) if got is not None else set(_LAYOUT_FLAGS)
        roles = t.get("columns") or [f for f in FIELD_NAMES if f in t["lines"][0]["fields"]]
        out.append(
            SheetResult(
                file=key[0],
                page=key[1],
                truth_number=t["sheet_number"],
                got_number=None if got is None else got.sheet_number_value,
                number_flagged=bool(flags & _NUMBER_FLAGS) or got is None,
                truth_columns=_fields_of(roles),
                got_columns=() if got is None else _got_columns(t, got),
                layout_flagged=bool(flags & _LAYOUT_FLAGS),
            )
        )
    return tuple(out)


def run_entry(root: str, entry: dict[str, Any]) -> CaseResult:
    """Check one corpus folder with the real pipeline and compare it with its truth."""
    folder = Path(root) / entry["path"]
    truth = json.loads((folder / "truth.json").read_text(encoding="utf-8"))
    start = time.perf_counter()
    report = check_case(load_case(folder / "case.toml"))
    result = compare(entry["case"], entry["style"], truth, report)
    return replace(
        result,
        seconds=time.perf_counter() - start,
        fill=entry.get("fill", ""),
        family=entry.get("family") or "classic",
        split=entry.get("split") or "dev",
    )


# -- figures ------------------------------------------------------------------------------------


def _ratio(num: float, den: float) -> float | None:
    return num / den if den else None


def figures(results: Sequence[CaseResult]) -> dict[str, Any]:
    """The benchmark's figures over a group of cases."""
    rows = [r for c in results for r in c.rows]
    true_rows = [r for r in rows if r.truth_status is not None]
    found = [r for r in true_rows if r.got_status is not None]
    shown = [r for r in true_rows if r.shown]
    shown_found = [r for r in shown if r.got_status is not None]
    signed = [r for r in true_rows if r.signed]
    signed_found = [r for r in signed if r.got_status not in (None, "blank")]
    invented = [r for r in rows if r.truth_status is None and r.shown]
    blank_signed = [r for r in found if r.truth_status == "blank" and r.got_status != "blank"]
    sheets = [sh for c in results for sh in c.sheets]
    cer: dict[str, float | None] = {}
    for name in FIELD_NAMES:
        dist = chars = 0
        for r in found:
            if name in r.truth_fields:
                want, have = r.truth_fields[name], r.got_fields.get(name, "")
                dist += Levenshtein.distance(want, have)
                chars += len(want)
        cer[name] = _ratio(dist, chars)
    tp = sum(1 for r in signed if r.truth_voter and r.got_voter == r.truth_voter)
    fp = sum(1 for r in rows if r.got_voter and r.got_voter != r.truth_voter)
    fn = sum(1 for r in signed if r.truth_voter and r.got_voter != r.truth_voter)
    precision, recall = _ratio(tp, tp + fp), _ratio(tp, tp + fn)
    f1 = (
        2 * precision * recall / (precision + recall)
        if precision is not None and recall is not None and precision + recall
        else None
    )
    return {
        "cases": len(results),
        "rows_true": len(true_rows),
        "rows_found": len(found),
        "rows_recall": _ratio(len(found), len(true_rows)),
        "rows_shown": len(shown),
        "rows_shown_found": len(shown_found),
        "rows_shown_recall": _ratio(len(shown_found), len(shown)),
        "signed_true": len(signed),
        "signed_recall": _ratio(len(signed_found), len(signed)),
        "invented": len(invented),
        "blank_signed": len(blank_signed),
        "sheets": len(sheets),
        "numbers_right": _ratio(sum(sh.number_right for sh in sheets), len(sheets)),
        "numbers_silently_wrong": sum(
            not sh.number_right and not sh.number_flagged for sh in sheets
        ),
        "columns_right": _ratio(sum(sh.columns_right for sh in sheets), len(sheets)),
        "columns_silently_wrong": sum(
            not sh.columns_right and not sh.layout_flagged for sh in sheets
        ),
        "cer": cer,
        "match_precision": precision,
        "match_recall": recall,
        "match_f1": f1,
        "review_share": _ratio(
            sum(1 for r in signed_found if r.got_status == "needs_review"), len(signed_found)
        ),
        "truth_review_share": _ratio(
            sum(1 for r in signed if r.truth_status == "needs_review"), len(signed)
        ),
        "silent_wrong": sum(1 for r in rows if r.silent_wrong),
        "valid_error": _ratio(sum(abs(c.got_valid - c.truth_valid) for c in results), len(results)),
        "verdict_accuracy": _ratio(
            sum(c.got_verdict == c.truth_verdict for c in results), len(results)
        ),
        "verdicts_wrong": sum(
            1
            for c in results
            if c.got_verdict != c.truth_verdict and c.got_verdict != "undetermined"
        ),
        "seconds": sum(c.seconds for c in results),
    }


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _num(x: float | None, digits: int = 2) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def groups(results: Sequence[CaseResult]) -> list[tuple[str, list[CaseResult]]]:
    """The groups the tables print; each group with cases of both splits is followed by its
    development and held-out parts, side by side."""
    base: list[tuple[str, list[CaseResult]]] = [("overall", list(results))]
    for style in ALL_STYLES:
        base.append((f"style {style}", [c for c in results if c.style == style]))
    for kind in KINDS:
        base.append((f"kind {kind}", [c for c in results if c.kind == kind]))
    for fill, label in (("typed", "kinds typed"), ("hand", "kinds by hand")):
        for style in ALL_STYLES:
            picked = [c for c in results if c.fill == fill and c.style == style]
            base.append((f"{label}, {style}", picked))
    families = sorted({c.family for c in results})
    for fam in families:
        base.append((f"family {fam}", [c for c in results if c.family == fam]))
    out: list[tuple[str, list[CaseResult]]] = []
    for name, picked in base:
        if not picked:
            continue
        out.append((name, picked))
        splits = [(sp, [c for c in picked if c.split == sp]) for sp in SPLITS]
        if sum(bool(p) for _, p in splits) > 1:
            out += [(f"  {name} [{sp}]", p) for sp, p in splits if p]
    return out


def split_table(results: Sequence[CaseResult]) -> str:
    """The issue's figures, development and held-out side by side (layouts and fonts)."""
    cols = [(sp, figures([c for c in results if c.split == sp])) for sp in SPLITS]
    cols = [(sp, f) for sp, f in cols if f["cases"]]
    rows: list[tuple[str, Any]] = [
        ("case folders", lambda f: str(f["cases"])),
        ("rows found", lambda f: f"{f['rows_found']}/{f['rows_true']} {_pct(f['rows_recall'])}"),
        (
            "rows the page shows: found",
            lambda f: f"{f['rows_shown_found']}/{f['rows_shown']} {_pct(f['rows_shown_recall'])}",
        ),
        ("signed rows found", lambda f: _pct(f["signed_recall"])),
        ("rows invented", lambda f: str(f["invented"])),
        ("blank rows read as signed", lambda f: str(f["blank_signed"])),
        ("sheet numbers right", lambda f: f"{_pct(f['numbers_right'])} of {f['sheets']}"),
        ("  wrong and not flagged", lambda f: str(f["numbers_silently_wrong"])),
        ("columns placed right", lambda f: _pct(f["columns_right"])),
        ("  wrong and not flagged", lambda f: str(f["columns_silently_wrong"])),
        *[(f"CER {n}", lambda f, n=n: _pct(f["cer"][n])) for n in FIELD_NAMES],
        ("match F1", lambda f: _pct(f["match_f1"])),
        (
            "sent to review (truth)",
            lambda f: f"{_pct(f['review_share'])} ({_pct(f['truth_review_share'])})",
        ),
        ("decided wrongly, no review", lambda f: str(f["silent_wrong"])),
        ("verdicts right", lambda f: _pct(f["verdict_accuracy"])),
        ("  wrong (not undetermined)", lambda f: str(f["verdicts_wrong"])),
    ]
    head = f"{'figure':<30}" + "".join(f"{sp:>22}" for sp, _ in cols)
    body = [f"{label:<30}" + "".join(f"{get(f):>22}" for _, f in cols) for label, get in rows]
    return "\n".join(["Development and held-out layouts and fonts, side by side", head, *body])


def format_tables(results: Sequence[CaseResult]) -> str:
    """The two tables the benchmark prints: reading, then matching and judging."""
    rows = [(name, figures(group)) for name, group in groups(results)]
    width = max(len(name) for name, _ in rows) + 2
    short = {"election_district": "ED", "signature": "sig", "residence": "res", "valuation": "val"}
    cols = [short.get(n, n) for n in FIELD_NAMES]
    lines = [
        "Reading (rows matched to truth by file, page and row; CER = edits / truth chars)",
        f"{'group':<{width}}{'cases':>6}{'rows':>12}{'recall':>8}{'signed':>8}{'invent':>8}"
        + "".join(f"{'CER ' + c:>10}" for c in cols),
    ]
    for name, f in rows:
        lines.append(
            f"{name:<{width}}{f['cases']:>6}{f['rows_found']:>6}/{f['rows_true']:<5}"
            f"{_pct(f['rows_recall']):>8}{_pct(f['signed_recall']):>8}{f['invented']:>8}"
            + "".join(f"{_pct(f['cer'][n]):>10}" for n in FIELD_NAMES)
        )
    lines += [
        "",
        "Matching and judging (wrong = decided valid/invalid without review, against truth)",
        f"{'group':<{width}}{'match P':>9}{'R':>8}{'F1':>8}{'review':>9}{'(truth)':>9}"
        f"{'wrong':>7}{'|dvalid|':>10}{'verdict':>9}{'secs':>8}",
    ]
    for name, f in rows:
        lines.append(
            f"{name:<{width}}{_pct(f['match_precision']):>9}{_pct(f['match_recall']):>8}"
            f"{_pct(f['match_f1']):>8}{_pct(f['review_share']):>9}"
            f"{_pct(f['truth_review_share']):>9}{f['silent_wrong']:>7}"
            f"{_num(f['valid_error'], 1):>10}{_pct(f['verdict_accuracy']):>9}"
            f"{f['seconds']:>8.1f}"
        )
    missing = [k for k in KINDS if not any(c.kind == k for c in results)]
    if missing:
        lines += ["", "No corpus yet for: " + ", ".join(missing) + "."]
    return "\n".join(lines)


def confusion(results: Sequence[CaseResult]) -> str:
    """Truth status x pipeline status over every row ("-": not read / not in truth)."""
    counts = Counter((r.truth_status or "-", r.got_status or "-") for c in results for r in c.rows)
    statuses = ("valid", "invalid", "needs_review", "blank", "-")
    head = "truth \\ got".ljust(14) + "".join(f"{s:>14}" for s in statuses)
    body = [
        t.ljust(14) + "".join(f"{counts.get((t, g), 0):>14}" for g in statuses) for t in statuses
    ]
    return "\n".join(["Line status, truth x pipeline", head, *body])


# -- disagreements --------------------------------------------------------------------------------


def disagreements(results: Iterable[CaseResult]) -> list[dict[str, Any]]:
    """One CSV row per disagreement of a line (a field, the status, the voter, or the whole
    line missing or invented), worst first: silent wrong decisions, then other status
    disagreements, then by edit distance."""
    out = []
    for c in results:
        for r in c.rows:
            base = {
                "case": c.case,
                "style": c.style,
                "kind": c.kind,
                "file": r.file,
                "page": r.page + 1,
                "line": r.line_no,
                "status_truth": r.truth_status or "(not in truth)",
                "status_got": r.got_status or "(not read)",
                "codes_truth": " ".join(r.truth_codes),
                "codes_got": " ".join(r.got_codes),
                "voter_truth": r.truth_voter or "",
                "voter_got": r.got_voter or "",
                "silent_wrong": int(r.silent_wrong),
            }
            if r.got_status is None or r.truth_status is None:
                text = " | ".join(v for v in (r.truth_fields or r.got_fields).values() if v)
                out.append(
                    base
                    | {
                        "field": "line",
                        "truth": text if r.truth_status else "",
                        "read": "" if r.truth_status else text,
                        "distance": len(text),
                    }
                )
                continue
            for name in FIELD_NAMES:
                want, have = r.truth_fields.get(name), r.got_fields.get(name, "")
                if want is not None and want != have:
                    dist = Levenshtein.distance(want, have)
                    out.append(
                        base | {"field": name, "truth": want, "read": have, "distance": dist}
                    )
            if r.truth_status != r.got_status:
                out.append(base | {"field": "status", "truth": "", "read": "", "distance": 0})
            elif (r.truth_voter or None) != (r.got_voter or None):
                out.append(base | {"field": "voter_id", "truth": "", "read": "", "distance": 0})
    out.sort(
        key=lambda d: (
            -d["silent_wrong"],
            d["field"] != "status",
            -d["distance"],
            d["case"],
            d["style"],
            d["file"],
            d["line"],
        )
    )
    return out


def write_csv(rows: Sequence[dict[str, Any]], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=CSV_FIELDS)
        writer.writeheader()
        writer.writerows(rows)


# -- the command ----------------------------------------------------------------------------------


# One variant a kind: the default run's sample of the other kinds scanned by hand.
HAND_SAMPLE = (
    ("independent_nomination", "old-form"),
    ("improvement_district", "sufficient"),
    ("incorporation", "residents"),
)


def generate_other_kinds(
    root: Path, seed: int, styles: Sequence[str], hand: str = "sample", split: str = "classic"
) -> list[dict[str, Any]]:
    """Every variant of the three other petition kinds (synth/kinds.py) typed, and
    filled in by hand `hand` = "all" variants, the "sample" (HAND_SAMPLE: one a kind, to keep
    the CI run short) or "none"; each in `styles` (born-digital, scanned clean and degraded).
    Corpus entries under root/kinds/. `split`: the layout families their signature tables are
    set in ("dev", "heldout", "both": variants alternate; "classic": the kinds' own form)."""
    scans = {
        "clean-scan": "clean-300",
        "degraded-scan": "degraded",
        "heldout-scan": "degraded-heldout",
    }
    entries = []
    n = 0
    for kind, variants in KIND_VARIANTS.items():
        for variant in variants:
            fills = [("typed", f"{kind}-{variant}", False)]
            if hand == "all" or (hand == "sample" and (kind, variant) in HAND_SAMPLE):
                fills.append(("hand", f"{kind}-{variant}-hand", True))
            for fill, case, by_hand in fills:
                layouts = {"classic": None, "both": SPLITS[n % 2]}.get(split, split)
                n += 1
                born = Path("kinds") / case / "born-digital"
                truth = generate_kind(
                    root / born, kind, variant, seed, handwriting=by_hand, layouts=layouts
                )
                where = truth.get("layout", {"family": "classic", "split": "dev"})
                for style in styles:
                    path = born
                    if style in scans:
                        path = born.parent / style
                        scan_case(root / born, root / path, scans[style], seed)
                    entries.append(
                        {"case": case, "style": style, "path": str(path), "kind": kind}
                        | {"fill": fill, "family": where["family"], "split": where["split"]}
                    )
    return entries


def run(
    corpus: Path,
    mapper: Any = map,
    styles: Sequence[str] = STYLES,
    extra: Sequence[dict[str, Any]] = (),
) -> list[CaseResult]:
    """Check every folder of the corpus in one of `styles`, and the `extra` entries."""
    index = json.loads((corpus / "index.json").read_text(encoding="utf-8"))
    entries = [e for e in [*index["entries"], *extra] if e["style"] in styles]
    return list(mapper(run_entry, [str(corpus)] * len(entries), entries))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="bench/accuracy.py", description="Pipeline accuracy on the synthetic corpus."
    )
    parser.add_argument("--corpus", type=Path, help="an existing corpus (its index.json)")
    parser.add_argument("--cases", type=int, default=3, help="cases to generate (default 3)")
    parser.add_argument("--seed", type=int, default=902)
    parser.add_argument(
        "--styles",
        nargs="+",
        choices=ALL_STYLES,
        default=list(STYLES),
        help="input styles to generate and check (default: the three development styles;"
        " heldout-scan: scans with defects the reader was never developed on)",
    )
    parser.add_argument("--keep", type=Path, help="generate the corpus here and keep it")
    parser.add_argument("--csv", type=Path, default=ROOT / "bench" / "out" / "disagreements.csv")
    parser.add_argument("--jobs", type=int, default=1, help="cases checked in parallel")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON")
    parser.add_argument(
        "--no-kinds",
        action="store_true",
        help="leave out the other petition kinds (generated born-digital, every variant)",
    )
    parser.add_argument(
        "--hand-kinds",
        choices=("none", "sample", "all"),
        default="sample",
        help="the other kinds filled in by hand: one variant a kind (default), every variant, "
        "or none",
    )
    parser.add_argument(
        "--written-statement",
        action="store_true",
        help="9-902 corpus: the witness statement's blanks written by hand too (default typed, "
        "as the committed sample)",
    )
    parser.add_argument(
        "--split",
        choices=("dev", "heldout", "both", "classic"),
        default="both",
        help="9-902 corpus: the layout families and fonts its sheets are set in "
        "(synth/layouts.py): development, held out, both (cases alternate; "
        "default), or the classic form only",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)

    start = time.perf_counter()
    with (
        tempfile.TemporaryDirectory(prefix="petitions-bench-") as tmp,
        ProcessPoolExecutor(max(1, args.jobs)) as pool,
    ):
        mapper = pool.map if args.jobs > 1 else map
        corpus = args.corpus
        gen_seconds = 0.0
        extra: list[dict[str, Any]] = []
        if corpus is None:
            corpus = args.keep or Path(tmp)
            variation = Variation(
                written_statement=args.written_statement,
                layouts=None if args.split == "classic" else args.split,
            )
            generate_corpus(
                corpus, args.seed, args.cases, args.styles, variation=variation, mapper=mapper
            )
            if not args.no_kinds:
                extra = generate_other_kinds(
                    corpus, args.seed, args.styles, args.hand_kinds, args.split
                )
            gen_seconds = time.perf_counter() - start
        results = run(corpus, mapper, args.styles, extra)
    total = time.perf_counter() - start

    print(format_tables(results))
    print()
    print(split_table(results))
    print()
    print(confusion(results))
    rows = disagreements(results)
    write_csv(rows, args.csv)
    unread = sum(1 for c in results for _ in c.errors)
    print()
    print(
        f"{len(results)} case folders; corpus generated in {gen_seconds:.1f}s, checked in "
        f"{total - gen_seconds:.1f}s; {len(rows)} disagreements written to {args.csv}"
        + (f"; {unread} file errors" if unread else "")
    )
    if args.json:
        doc = {name.strip(): figures(group) for name, group in groups(results)}
        args.json.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
