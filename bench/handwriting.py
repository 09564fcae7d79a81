"""Hand-filled scans read in the closed world (pipeline.closedworld): development fonts against
held-out fonts, side by side, with printed sheets timed in the same run.

Three synthetic 9-902 corpora (synth; no real person's data), each scanned clean and degraded:
filled in by hand in the development fonts (seed S), in the held-out fonts (seed S+1: other
people, other layouts), and typed (seed S+2, clean scans only: the time per printed sheet). The
fonts' split is fixed (synth.handwriting.font_part). Prints, per part and style: signed lines
sent to review (and the share truth itself sends: a missing witness residence, a duplicate
signer; and the share of the lines truth decides, valid or invalid, that wait for a person:
the review the reading adds), signed lines decided (valid or invalid, without review), lines
decided wrongly
(valid/invalid against truth: must be 0; the outcome's accuracy on the lines decided), verdicts
wrong (decided and not truth's), dates right to the day on the lines decided (a line whose
unsure date makes the same of it in law on every likely day is decided on its likeliest day:
`rules.reading.date_settled`), residences right, signers matched to the right voter (of the
decided lines whose match was decided: given a voter or found not registered), sheet
numbers and stated counts right (the rest flagged), the seconds per sheet, the sheets with a
sheet-level doubt (a review finding truth does not give the sheet: it sends every line to a
person), the witnesses' dates right / decided (not flagged) / dated in truth; then why lines
wait for a person (their review findings, the sheets' doubts, and each witness's date flagged:
what was read and the days it may be), and the reliability of the
probabilities of the fields the closed-world stage resolved on the held-out fonts (a table, and
a plot in bench/out/).

    .venv/bin/python bench/handwriting.py --cases 3           # the figures in the README
    .venv/bin/python bench/handwriting.py --cases 4 --fit     # calibrate on the dev fonts only
    .venv/bin/python bench/handwriting.py --cases 4 --fit --fonts calibration --seed 2101

`--fonts calibration` fits on sheets written in the development fonts the recognizer never
trained on (synth.handwriting.CALIBRATION_FONTS): writing it did not see, as it does not see
the held-out fonts, so the dates' recognizer weight, temperature and threshold fitted there
hold on unseen writing (fitted on the fonts it trained on, they trust it too much). The dates
are fitted on a grid of the recognizer's weight, the cap on the lattices' costs and the
lattices' own weight (DATE_GRID; where the lattices weigh less than 1, at temperature 1: the
two weights set the scale), each row printed with the dates it puts at or above the date's
threshold in use.

`--fit` reads the development corpus only and prints, per field, the temperature and "none
of these" cost that give the truth the highest likelihood, and the lowest threshold at which
no field decided on the development fonts is wrong: the values of
`pipeline.closedworld.resolve.PARAMS` and `pipeline.rules.reading.RESOLVED_THRESHOLDS`. A
name's "none" is fitted beside its growth with the reads' doubt (`none_per_char`, kept as
`PARAMS` has it; chosen on the development fonts by the review it leaves at 0 wrong).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import logging
import math
import pickle
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
for extra in (ROOT, ROOT / "bench"):
    if str(extra) not in sys.path:  # run as a script from anywhere
        sys.path.insert(0, str(extra))

from accuracy import CaseResult, compare, figures  # noqa: E402

from matchers.normalize import normalize_address  # noqa: E402
from pipeline.case import load_case  # noqa: E402
from pipeline.closedworld import (  # noqa: E402
    Params,
    chain_posteriors,
    line_evidence,
    posterior,
    world_of,
)
from pipeline.closedworld.resolve import (  # noqa: E402
    LATTICE_DATE,
    PARAMS,
    date_evidence,
    evidence,
    params_for,
    sure_day,
    witness_date_field,
    witness_evidence,
)
from pipeline.closedworld.values import name_forms  # noqa: E402
from pipeline.dates import parse_written_date  # noqa: E402
from pipeline.recognizer import greedy, relative_costs  # noqa: E402
from pipeline.records import SufficiencyReport  # noqa: E402
from pipeline.rules.reading import RESOLVED_THRESHOLDS, threshold_for  # noqa: E402
from pipeline.run import (  # noqa: E402
    collect_pages,
    discover,
    finish,
    ingest_one,
    input_hashes,
    load_register,
    read_one,
    split_results,
)
from synth.corpus import generate_corpus  # noqa: E402
from synth.varied import Variation  # noqa: E402

OUT = ROOT / "bench" / "out"
SCANS = ("clean-scan", "degraded-scan")
PARTS = ("dev", "heldout")
# The stage as it is, and its reads without the project's recognizer (their labels' suffix).
VARIANTS = {"recognizer": "", "lattice": " [tess]"}
BINS = tuple(k / 10 for k in range(11))
# The "none of these" costs tried. A date's and a name's no higher than NONE_CAP: about two
# characters read surely and matching no value (2 x -log(0.02)), so that a clear date outside
# the window stays as written, and a clearly read given name one or two letters from a
# registered neighbour's is not made theirs, although the development set has few such cases
# to fit on (its dates lie in or near the window; its unregistered signers' names are unlike
# any voter's). The others are fitted higher too.
NONE_CAP = 8.0
TEMPERATURES = (0.3, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0)
NONE_COSTS = (2.0, 3.0, 4.0, 5.0, 6.0, 7.0, NONE_CAP)
CAPPED = ("date", "name")
# The weights of the project's recognizer's costs tried for the dates (`Params.frames_weight`).
FRAMES_WEIGHTS = (0.0, 0.1, 0.2, 0.3, 0.5, 1.0)
# The fields whose recognizer weight is fitted beside the dates' (`Params.frames_weight`).
NUMBERS = ("ward", "election_district")
# The caps tried on a date's lattices' costs when the recognizer read it (`Params.lattice_cap`).
LATTICE_CAPS = (8.0, 10.0, 12.0, 16.0, math.inf)
# The weights tried on a date's lattices' costs beside the recognizer's (`Params.lattice_weight`;
# below 1, at the cap 8 and the recognizer's weights these take).
LATTICE_WEIGHTS = (0.5, 0.33, 0.25, 0.1)
LIGHT_FRAMES_WEIGHTS = (0.2, 0.3, 0.4, 0.5, 0.6)
DATE_GRID = (
    *((1.0, w, cap) for w in FRAMES_WEIGHTS for cap in (LATTICE_CAPS if w else (math.inf,))),
    *((lw, w, 8.0) for lw in LATTICE_WEIGHTS for w in LIGHT_FRAMES_WEIGHTS),
)


@dataclass(frozen=True, slots=True)
class Checked:
    """One case folder checked: the accuracy bench's comparison and what this bench adds."""

    part: str  # "dev", "heldout" or "printed"
    variant: str  # "recognizer" (the stage as it is) or "lattice" (its reads' frames dropped)
    result: CaseResult
    sheets: int
    read_seconds: float  # reading the pages (OCR)
    seconds: float  # the whole check
    fields: tuple[tuple[str, float, bool], ...]  # resolved fields: (name, probability, right)
    sheet_numbers: tuple[int, int, int]  # right, flagged (below threshold or missing), total
    stated_counts: tuple[int, int, int]
    dates: tuple[int, int]  # right, decided lines with a date in truth
    residences: tuple[int, int]
    reasons: tuple[str, ...]  # review codes of the signed lines in review
    # sheets with a sheet-level review finding truth does not give the sheet, and its codes
    sheet_doubts: tuple[str, ...]
    witness_dates: tuple[int, int, int]  # right and decided (not flagged), dated in truth
    # the witnesses' dates dated in truth but flagged: what was read, and the days it may be
    witness_unsure: tuple[str, ...]
    # per unsure date with a day in the closed world in truth: the truth's rank among the
    # days (0 first) under tesseract's lattices alone, the recognizer alone and the two
    # together; and whether the recognizer's own best-path reading is the truth's day
    date_ranks: tuple[tuple[int, int, int, bool], ...] = ()


def _read(case_toml: Path) -> tuple[Any, list[Any], list[Any], list[Path]]:
    case = load_case(case_toml)
    files, errors = discover(case.sheets)
    pages, page_errors = collect_pages(zip(files, map(ingest_one, files), strict=True))
    sheets, read_errors = split_results(map(read_one, pages))
    return case, sheets, errors + page_errors + read_errors, files


def _same_date(a: str, b: str, ref: Any) -> bool:
    return parse_written_date(a, ref) == parse_written_date(b, ref) is not None


def _field_right(name: str, got: str, want: str, ref: Any) -> bool:
    if name == "date":
        return _same_date(got, want, ref)
    if name == "residence":
        return normalize_address(got) == normalize_address(want)
    if name in ("ward", "election_district"):
        return (got.lstrip("0") or got) == (want.lstrip("0") or want)
    return False  # names are judged by the voter the matcher then picks (below)


def check_one(part: str, root: str, entry: dict[str, Any]) -> list[Checked]:
    """Read and check one folder; compare with truth. The sheets as read are judged twice:
    with the recognizer (`[matching] recognizer = true`, the default), and with what it saw
    dropped and the switch off (tesseract's lattices alone), on the same reads."""
    folder = Path(root) / entry["path"]
    truth = json.loads((folder / "truth.json").read_text(encoding="utf-8"))
    start = time.perf_counter()
    case, sheets, errors, files = _read(folder / "case.toml")
    read_s = time.perf_counter() - start
    register = load_register(case)
    writes = _name_writers(register.entries.values())
    ranks = _date_ranks(case, sheets, register, truth)
    out = []
    on, off = (
        case.model_copy(update={"matching": case.matching.model_copy(update={"recognizer": v})})
        for v in (True, False)
    )
    # both variants judge every folder, so that their rows count the same sheets (a folder
    # whose dates the recognizer saw none of is judged alike by both)
    variants = [("recognizer", on, sheets), ("lattice", off, [_without_frames(s) for s in sheets])]
    for variant, judged, read in variants:
        began = time.perf_counter()
        report = finish(judged, read, errors, register, (), input_hashes(case, files))
        seconds = read_s + time.perf_counter() - began
        result = replace(compare(entry["case"], entry["style"], truth, report), seconds=seconds)
        details = _details(report, truth, result, case.dates.filed, writes)
        out.append(Checked(part, variant, result, len(sheets), read_s, seconds, *details, ranks))
    return out


def _without_frames(sheet: Any) -> Any:
    """The sheet as read with what the project's recognizer saw dropped."""
    lines = tuple(
        replace(ln, fields=tuple(replace(f, frames=()) for f in ln.fields)) for ln in sheet.lines
    )
    witness = sheet.witness
    if witness is not None and witness.date is not None:
        witness = replace(witness, date=replace(witness.date, frames=()))
    return replace(sheet, lines=lines, witness=witness)


def _rank(cost: np.ndarray, want: int) -> int:
    """The place of value `want` when the values are sorted by cost (ties: the worst place)."""
    return int((cost <= cost[want]).sum()) - 1


def _date_ranks(
    case: Any, sheets: Sequence[Any], register: Any, truth: dict[str, Any]
) -> tuple[tuple[int, int, int, bool], ...]:
    """For every unsure date the recognizer saw whose true day is in the closed world: the
    truth's rank under tesseract's lattices alone, the recognizer alone and both (the
    stage's own weights), and whether the recognizer's best path reads the true day."""
    if not any(f.frames for s in sheets for ln in s.lines for f in ln.fields):
        return ()
    world = world_of(case, list(register.entries.values()))
    ref = case.dates.filed
    lattice_only = LATTICE_DATE
    tl = {
        (Path(s["file"]).name, s["page_index"], ln["line_no"]): ln
        for s in truth["sheets"]
        for ln in s["lines"]
    }
    out = []
    for sheet in sheets:
        key = (Path(sheet.page.path).name, sheet.page.page_index)
        pairs = [
            (ln.get("date"), (tl.get((*key, ln.line_no)) or {}).get("fields", {}).get("date"))
            for ln in sheet.lines
            if not ln.blank
        ]
        witness = (_truth_sheet(truth, sheet).get("witness") or {}).get("date")
        pairs.append((witness_date_field(sheet), witness))
        for field, want in pairs:
            day = parse_written_date(want, ref) if want else None
            if field is None or not field.frames or day not in world.day_index:
                continue
            both = date_evidence(field, world)
            alone = date_evidence(field, world, lattice_only)
            if both is None or alone is None:
                continue
            k = world.day_index[day]  # type: ignore[index]
            seen, _ = relative_costs(field.frames, list(world.dates.forms))
            by_value = np.full(len(world.dates.values), np.inf)
            np.minimum.at(by_value, np.asarray(world.dates.owner), seen)
            where = {int(v): i for i, v in enumerate(both.values)}
            where_alone = {int(v): i for i, v in enumerate(alone.values)}
            read = parse_written_date(greedy(np.asarray(field.frames)), ref)
            out.append(
                (
                    _rank(alone.cost, where_alone[k]),
                    _rank(by_value, k),
                    _rank(both.cost, where[k]),
                    read == day,
                )
            )
    return tuple(out)


def _name_writers(entries: Any) -> dict[str, set[str]]:
    """Each way of writing a name (casefolded) -> the voters who may write it so."""
    out: dict[str, set[str]] = {}
    for e in entries:
        for form in name_forms(e):
            out.setdefault(form.casefold(), set()).add(e.voter_id)
    return out


def _details(
    report: SufficiencyReport,
    truth: dict[str, Any],
    result: CaseResult,
    ref: Any,
    writes: dict[str, set[str]],
) -> tuple[Any, ...]:
    tl = {
        (Path(s["file"]).name, s["page_index"], ln["line_no"]): ln
        for s in truth["sheets"]
        for ln in s["lines"]
    }
    where = {s.page.page_id: (Path(s.page.path).name, s.page.page_index) for s in report.sheets}
    fields: list[tuple[str, float, bool]] = []
    reasons: list[str] = []
    for j in report.lines:
        want = tl.get((*where[j.line.page_id], j.line.line_no))
        if want is None or j.line.blank:
            continue
        for f in j.line.fields:
            if f.resolved:
                right = _field_right(f.name, f.text, want["fields"].get(f.name, ""), ref)
                if f.name in ("name", "signature"):  # the voter truth says signed writes so
                    right = want["voter_id"] in writes.get(f.text.casefold(), set())
                fields.append((f.name, f.confidence, right))
        if j.status.value == "needs_review":
            codes = sorted({_named(x) for x in j.findings if x.severity.value == "review"})
            reasons.append(" + ".join(codes) or "match")
    decided = [r for r in result.rows if r.signed and r.got_status in ("valid", "invalid")]
    dates = [r for r in decided if r.truth_fields.get("date")]
    res = [r for r in decided if r.truth_fields.get("residence")]
    witnessed = _witness_dates(report, truth, ref, fields)
    unsure_witnesses = _unsure_witness_dates(report, truth, ref)
    return (
        tuple(fields),
        _sheet_figure(report, truth, "number"),
        _sheet_figure(report, truth, "count"),
        (
            sum(
                _same_date(r.got_fields.get("date", ""), r.truth_fields["date"], ref) for r in dates
            ),
            len(dates),
        ),
        (
            sum(
                normalize_address(r.got_fields.get("residence", ""))
                == normalize_address(r.truth_fields["residence"])
                for r in res
            ),
            len(res),
        ),
        tuple(reasons),
        _sheet_doubts(report, truth),
        witnessed,
        unsure_witnesses,
    )


def _named(f: Any) -> str:
    """A review finding's code, with the fields it names read unsure ("FIELD_LOW_CONFIDENCE
    (date)")."""
    fields = f.evidence.get("fields")
    return f.code + (f" ({', '.join(sorted(fields))})" if fields else "")


def _truth_sheet(truth: dict[str, Any], sheet: Any) -> dict[str, Any]:
    """Truth's record of a sheet read ({} when truth has none)."""
    key = (Path(sheet.page.path).name, sheet.page.page_index)
    return next((s for s in truth["sheets"] if (Path(s["file"]).name, s["page_index"]) == key), {})


def _sheet_doubts(report: SufficiencyReport, truth: dict[str, Any]) -> tuple[str, ...]:
    """Per sheet, the sheet-level review findings truth does not give it, joined ("" when
    none; the fields read unsure named): the doubts that send every line of a sheet to a
    person."""
    out = []
    for sheet in report.sheets:
        planted = set(_truth_sheet(truth, sheet).get("defects", ()))
        codes = {
            _named(f)
            for f in report.findings
            if f.page_id == sheet.page.page_id
            and f.severity.value == "review"
            and f.code not in planted
        }
        out.append(" + ".join(sorted(codes)))
    return tuple(out)


def _witness_dates(
    report: SufficiencyReport, truth: dict[str, Any], ref: Any, fields: list[Any]
) -> tuple[int, int, int]:
    """The witnesses' dates read right and not flagged, not flagged, dated in truth; each date
    the closed-world stage resolved joins `fields` (as a "date", for the reliability table)."""
    right = decided = total = 0
    for sheet in report.sheets:
        want = (_truth_sheet(truth, sheet).get("witness") or {}).get("date")
        got = sheet.witness.date if sheet.witness is not None else None
        if not want:
            continue
        total += 1
        day = parse_written_date(got.text, ref) if got is not None else None
        ok = day is not None and day.isoformat() == want
        if got is not None and got.resolved:
            fields.append(("date", got.confidence, ok))
        if got is not None and got.confidence >= threshold_for("date", got.resolved):
            decided += 1
            right += ok
    return right, decided, total


def _unsure_witness_dates(
    report: SufficiencyReport, truth: dict[str, Any], ref: Any
) -> tuple[str, ...]:
    """Per witness date dated in truth but flagged (below its threshold): the sheet, truth's
    day, what was read and how surely, and the days the closed world left it (or that it left
    it as read: "none of these" likelier than any day)."""
    out = []
    for sheet in report.sheets:
        want = (_truth_sheet(truth, sheet).get("witness") or {}).get("date")
        got = sheet.witness.date if sheet.witness is not None else None
        if not want or got is None or got.confidence >= threshold_for("date", got.resolved):
            continue
        days = ", ".join(f"{d} {p:.2f}" for d, p in got.alternatives[:3])
        how = f"days {days}" if got.resolved else "left as read (none of these likelier)"
        out.append(
            f"{Path(sheet.page.path).name} p{sheet.page.page_index + 1}: truth {want}, "
            f"read {got.text!r} at {got.confidence:.2f}, {how}"
        )
    return tuple(out)


def _sheet_figure(report: SufficiencyReport, truth: dict[str, Any], what: str) -> tuple[int, ...]:
    """Sheets whose number (or stated count) was read right and not flagged, flagged, all."""
    right = flagged = total = 0
    for sheet in report.sheets:
        want = _truth_sheet(truth, sheet)
        if not want:
            continue
        if what == "number":
            field, expected = sheet.sheet_number, want.get("sheet_number")
            value = sheet.sheet_number_value
        else:
            w = sheet.witness
            field = w.stated_count if w is not None else None
            expected = (want.get("witness") or {}).get("stated_count")
            value = w.stated_count_value if w is not None else None
        if expected is None:
            continue
        total += 1
        name = "sheet_number" if what == "number" else "stated_count"
        if field is None or field.confidence < threshold_for(name):
            flagged += 1
        elif value == expected:
            right += 1
    return right, flagged, total


# -- figures -----------------------------------------------------------------------------------


def _pct(num: float, den: float) -> str:
    return f"{100 * num / den:5.1f}%" if den else "    -"


def _match_decided(row: Any) -> bool:
    return bool(row.got_voter) or "SIGNER_NOT_REGISTERED" in row.got_codes


def table(checked: Sequence[Checked]) -> str:
    head = (
        f"{'group':24} {'sheets':>6} {'signed':>6} {'review':>7} {'truth':>6} {'held':>6} "
        f"{'decided':>7} {'wrong':>5} "
        f"{'verdict✗':>8} "
        f"{'dates':>7} {'resid.':>7} {'voter':>7} {'sheet#':>7} {'count':>7} {'s/sheet':>8}"
        f" {'doubt':>6} {'w.date':>11}"
    )
    lines = [head]
    groups = [(p, v, s) for p in (*PARTS, "printed") for v in VARIANTS for s in SCANS]
    for part, variant, style in groups:
        cs = [
            c
            for c in checked
            if c.part == part and c.variant == variant and c.result.style == style
        ]
        if not cs:
            continue
        results = [c.result for c in cs]
        fig = figures(results)
        rows = [r for c in results for r in c.rows]
        decided = [r for r in rows if r.signed and r.got_status in ("valid", "invalid")]
        # the lines truth itself decides (valid or invalid) that wait for a person: the
        # review the reading adds to the rules' own (a missing witness residence, a duplicate)
        clear = [r for r in rows if r.signed and r.truth_status in ("valid", "invalid")]
        held = sum(r.got_status == "needs_review" for r in clear)
        # a line decided invalid for a defect of its own (no residence) with its signer left
        # unmatched is not a match decided: only lines given a voter, or found not registered
        voters = [r for r in decided if r.truth_voter and _match_decided(r)]
        voter_right = sum(r.got_voter == r.truth_voter for r in voters)
        wrong_verdicts = sum(
            c.got_verdict not in ("undetermined", c.truth_verdict) for c in results
        )
        dr, dn = map(sum, zip(*(c.dates for c in cs), strict=True))
        rr, rn = map(sum, zip(*(c.residences for c in cs), strict=True))
        sr, _, sn = map(sum, zip(*(c.sheet_numbers for c in cs), strict=True))
        cr, _, cn = map(sum, zip(*(c.stated_counts for c in cs), strict=True))
        sheets = sum(c.sheets for c in cs)
        per_sheet = sum(c.seconds for c in cs) / max(1, sheets)
        doubts = [d for c in cs for d in c.sheet_doubts]
        wr, wd, wn = map(sum, zip(*(c.witness_dates for c in cs), strict=True))
        lines.append(
            f"{part + VARIANTS[variant] + ', ' + style:24} {sheets:6d} {fig['signed_true']:6d} "
            f"{_pct(fig['review_share'] or 0, 1):>7} {_pct(fig['truth_review_share'] or 0, 1):>6} "
            f"{_pct(held, len(clear)):>6} {len(decided):7d} {fig['silent_wrong']:5d} "
            f"{wrong_verdicts:8d} {_pct(dr, dn):>7} {_pct(rr, rn):>7} "
            f"{_pct(voter_right, len(voters)):>7} {_pct(sr, sn):>7} {_pct(cr, cn):>7} "
            f"{per_sheet:8.2f} {_pct(sum(map(bool, doubts)), len(doubts)):>6} "
            f"{wr:3d}/{wd:3d}/{wn:3d}"
        )
    return "\n".join(lines)


def ranks(checked: Sequence[Checked], part: str) -> str:
    """The unsure dates' truth ranks: tesseract's lattices alone, the recognizer alone, both."""
    got = [r for c in checked if c.part == part and c.variant == "recognizer" for r in c.date_ranks]
    if not got:
        return f"dates the recognizer saw ({part}): none"
    out = [f"unsure dates the recognizer saw, true day in the closed world ({part}: {len(got)})"]
    out.append("  scored by            truth first   in top 3   median rank")
    for k, name in enumerate(("tesseract lattices", "recognizer alone", "both (the stage)")):
        col = sorted(r[k] for r in got)
        out.append(
            f"  {name:20} {_pct(sum(v == 0 for v in col), len(col)):>11} "
            f"{_pct(sum(v < 3 for v in col), len(col)):>10} {col[len(col) // 2]:12d}"
        )
    out.append(
        f"  recognizer's best path reads the true day: {_pct(sum(r[3] for r in got), len(got))}"
    )
    return "\n".join(out)


def reasons(checked: Sequence[Checked], part: str, variant: str) -> str:
    mine = [c for c in checked if c.part == part and c.variant == variant]
    count = Counter(r for c in mine for r in c.reasons)
    total = sum(count.values())
    label = f"{part}{VARIANTS[variant]}"
    out = [f"why signed lines wait for a person ({label}, {total} lines):"]
    out += [f"  {n:5d}  {reason}" for reason, n in count.most_common(12)]
    doubts = Counter(d for c in mine for d in c.sheet_doubts if d)
    out.append(
        f"  sheets with a sheet-level doubt truth does not give them: {sum(doubts.values())}"
    )
    out += [f"  {n:5d}  {reason}" for reason, n in doubts.most_common(6)]
    unsure = [w for c in mine for w in c.witness_unsure]
    out.append(
        f"  witnesses' dates flagged: {len(unsure)} (left as read: holds its sheet; "
        "resolved: holds each dated line its days may change)"
    )
    out += [f"         {w}" for w in unsure[:12]]
    return "\n".join(out)


def reliability(checked: Sequence[Checked], part: str) -> tuple[str, list[tuple[float, int, int]]]:
    """The resolved fields of `part` binned by probability: (bin start, count, right)."""
    fields = [f for c in checked if c.part == part and c.variant == "recognizer" for f in c.fields]
    rows = []
    for lo, hi in zip(BINS[:-1], BINS[1:], strict=True):
        sel = [ok for _, p, ok in fields if lo <= p < hi or (hi == 1.0 and p >= 1.0)]
        rows.append((lo, len(sel), sum(sel)))
    out = [f"reliability of the resolved fields' probabilities ({part}; {len(fields)} fields)"]
    out.append("  probability   fields   right")
    for lo, n, right in rows:
        out.append(f"  {lo:.1f}-{lo + 0.1:.1f}     {n:6d}   {_pct(right, n)}")
    out.append("  at or above each field's threshold (decided), by field:")
    for name in sorted({f[0] for f in fields}):
        mine = [ok for n, p, ok in fields if n == name and p >= threshold_for(n, True)]
        wrong = [(round(p, 3), n) for n, p, ok in fields if n == name and not ok and p >= 0.9]
        out.append(
            f"    {name:18} {len(mine):4d} decided, {len(mine) - sum(mine)} wrong"
            + (f"  (wrong at >= 0.9: {wrong[:4]})" if wrong else "")
        )
    return "\n".join(out), rows


def plot(rows: Sequence[tuple[float, int, int]], path: Path, title: str) -> None:
    """The reliability diagram as a PNG (Pillow: share right against the bin's probability)."""
    from PIL import Image, ImageDraw

    size, pad = 420, 50
    img = Image.new("RGB", (size + 2 * pad, size + 2 * pad), "white")
    d = ImageDraw.Draw(img)
    x0, y0, x1, y1 = pad, pad, pad + size, pad + size
    d.rectangle((x0, y0, x1, y1), outline="black")
    d.line((x0, y1, x1, y0), fill=(160, 160, 160))  # perfect calibration
    for lo, n, right in rows:
        if not n:
            continue
        share = right / n
        bx0 = x0 + lo * size + 4
        bx1 = x0 + (lo + 0.1) * size - 4
        d.rectangle((bx0, y1 - share * size, bx1, y1), fill=(70, 110, 190))
        d.text((bx0, y1 - share * size - 12), str(n), fill="black")
    d.text((x0, 15), title, fill="black")
    d.text((x0, y1 + 10), "probability given (bins of 0.1)", fill="black")
    d.text((5, y0), "share right", fill="black")
    path.parent.mkdir(parents=True, exist_ok=True)
    img.save(path)


# -- fitting on the development fonts ---------------------------------------------------------


def _fit_rows(root: str, entry: dict[str, Any]) -> list[tuple[str, Any, Any, Any]]:
    """Every unsure field of one folder: (field, value costs, priors, index of truth's value
    among them or -1 for "none of these"); a sheet's dates as one row ("date", the chain's
    inputs, the days' weights, the truth index of each line's day)."""
    folder = Path(root) / entry["path"]
    truth = json.loads((folder / "truth.json").read_text(encoding="utf-8"))
    case, sheets, _, _ = _read(folder / "case.toml")
    register = load_register(case)
    world = world_of(case, list(register.entries.values()))
    tl = {
        (Path(s["file"]).name, s["page_index"], ln["line_no"]): ln
        for s in truth["sheets"]
        for ln in s["lines"]
    }
    out: list[tuple[str, Any, Any, Any]] = []
    for sheet in sheets:
        filled = [ln for ln in sheet.lines if not ln.blank]
        day_truth = []
        for line in filled:
            want = tl.get((Path(sheet.page.path).name, sheet.page.page_index, line.line_no))
            evs = line_evidence(line, world, recognizer=False)  # the numbers: below
            date = evs.get("date")
            day = parse_written_date(
                (want or {}).get("fields", {}).get("date", ""), case.dates.filed
            )
            day_truth.append(world.day_index.get(day, -1) if (date is not None and want) else None)
            if want is None:
                continue
            # the numbers with what the recognizer saw (some weight: those only it saw too)
            on = {k: replace(p, frames_weight=1.0) for k, p in PARAMS.items() if k in NUMBERS}
            seen = line_evidence(line, world, number_params={**PARAMS, **on})
            weighted = {}
            for key in NUMBERS:
                got = seen.get(key)
                if got is None:
                    continue
                prior = () if got.prior is None else got.prior
                priors = dict(zip(map(int, got.values), prior, strict=False))
                for weight in FRAMES_WEIGHTS:
                    params = replace(PARAMS[key], frames_weight=weight)
                    forms = range(len(got.choices.forms))
                    weighted[key, weight] = evidence(got.field, got.choices, forms, params, priors)
            for (key, weight), ev in weighted.items():
                if ev is not None:  # the recognizer's weight for the numbers, fitted beside
                    values = [ev.choices.values[int(v)] for v in ev.values]
                    text = want["fields"].get(key, "")
                    hits = [k for k, v in enumerate(values) if v == (text.lstrip("0") or text)]
                    out.append((f"{key}@{weight}", ev.cost, ev.prior, hits[0] if hits else -1))
            for name, ev in evs.items():
                if name == "date":
                    continue
                values = [ev.choices.values[int(v)] for v in ev.values]
                text = want["fields"].get(name, "")
                if name == "residence":
                    hits = [
                        k
                        for k, v in enumerate(values)
                        if normalize_address(str(v)) == normalize_address(text)
                    ]
                elif name in ("ward", "election_district"):
                    hits = [k for k, v in enumerate(values) if v == (text.lstrip("0") or text)]
                else:
                    hits = [k for k, v in enumerate(values) if v == want["voter_id"]]
                field = "name" if name == "signature" else name
                # the field's "none" grown for its reads' doubt (`score.for_reading`) is the
                # same, in the posterior, as every value's cost lowered by as much
                grown = params_for(ev).none - PARAMS[field].none
                out.append((field, ev.cost - grown, ev.prior, hits[0] if hits else -1))
        # the witness's date closes the chain, as the stage reads it (`resolve_sheets`)
        w_ev = witness_evidence(sheet, world, case.dates.filed)
        want_w = _truth_sheet(truth, sheet).get("witness") or {}
        w_day = dt.date.fromisoformat(want_w["date"]) if want_w.get("date") else None
        day_truth.append(world.day_index.get(w_day, -1) if w_ev is not None else None)
        if any(t is not None for t in day_truth):
            # the recognizer's weight and the lattices' cap and weight, fitted beside the rest
            for lattice_weight, weight, cap in DATE_GRID:
                chain = _date_chain(
                    sheet, filled, world, case.dates.filed, weight, cap, lattice_weight
                )
                days = np.asarray(world.dates.weights)
                light = f"@{lattice_weight}" if lattice_weight != 1 else ""
                label = f"date@{weight}@{cap}{light}"
                out.append((label, chain, days, day_truth))
    return out


def _date_chain(
    sheet: Any,
    filled: Sequence[Any],
    world: Any,
    filed: dt.date,
    weight: float,
    cap: float,
    lattice_weight: float = 1.0,
) -> list[tuple[Any, int | None]]:
    """A sheet's dates as the stage's chain reads them (its lines', then its witness's), the
    recognizer's costs weighted `weight`, the lattices' capped at `cap` and weighted
    `lattice_weight`."""
    params = replace(
        PARAMS["date"], frames_weight=weight, lattice_cap=cap, lattice_weight=lattice_weight
    )
    dates = [(ln.get("date"), date_evidence(ln.get("date"), world, params)) for ln in filled]
    w = witness_date_field(sheet)
    dates.append((w, witness_evidence(sheet, world, filed, params)))
    return [(ev.cost if ev is not None else None, sure_day(f, world, filed)) for f, ev in dates]


def _outcomes(field: str, rows: Sequence[Any], params: Params) -> list[tuple[float, float, bool]]:
    """(probability of truth, probability of the decision, decision right) per field."""
    got = []
    for _, a, b, truth in rows:
        if field.startswith("date"):
            posts = chain_posteriors(a, b, params)
            pairs = [
                (p, t) for p, t in zip(posts, truth, strict=True) if p is not None and t is not None
            ]
        else:
            pairs = [(posterior(a, b, params), truth)]
        for post, t in pairs:
            probs = dict(post.ranked)
            p_truth = post.none if t < 0 else probs.get(t, 1e-9)
            top = post.best
            if top is not None and top[1] > post.none:
                got.append((p_truth, top[1], top[0] == t))
            else:  # "none of these": left as read, for the review rules (not a decision)
                got.append((p_truth, -1.0, True))
    return got


def fit(rows: Sequence[tuple[str, Any, Any, Any]]) -> str:
    """Per field: the calibration of least negative log-likelihood and the threshold at
    which nothing decided was wrong."""
    out = []
    weighted = sorted({r[0] for r in rows if "@" in r[0]})
    for field in (*weighted, "residence", "name", "ward", "election_district"):
        mine = [r for r in rows if r[0] == field]
        base = field.split("@")[0]
        if not mine:
            continue
        best: tuple[float, float, float, list[tuple[float, float, bool]]] | None = None
        # a date's lattices weighed below 1 (`Params.lattice_weight`): the two weights set the
        # scale, the temperature stays the lattices' own, 1
        temperatures = (1.0,) if field.count("@") == 3 else TEMPERATURES
        for temperature in temperatures:
            for none in NONE_COSTS if base in CAPPED else NONE_COSTS + (11.0, 14.0, 20.0):
                params = replace(PARAMS[base], temperature=temperature, none=none)
                got = _outcomes(field, mine, params)
                nll = -sum(math.log(max(p, 1e-9)) for p, _, _ in got)
                if best is None or nll < best[0]:
                    best = (nll, temperature, none, got)
        assert best is not None
        nll, temperature, none, got = best
        wrong = [p for _, p, ok in got if not ok]
        threshold = min(0.999, max(wrong) + 0.001) if wrong else 0.5
        sure = sum(1 for _, p, ok in got if p >= threshold)
        in_use = RESOLVED_THRESHOLDS.get(base, 0.5)
        used = sum(1 for _, p, _ in got if p >= in_use)
        out.append(
            f"{field:10} fields {len(got):4d}  temperature {temperature}  none {none}  "
            f"nll/field {nll / max(1, len(got)):.3f}  threshold {threshold:.3f}  "
            f"decided at it {sure} ({_pct(sure, len(got)).strip()}), at {in_use} {used}"
        )
    return "\n".join(out)


# -- main --------------------------------------------------------------------------------------


def _corpus(root: Path, part: str, seed: int, cases: int, mapper: Any) -> list[dict[str, Any]]:
    styles = ("clean-scan",) if part == "printed" else SCANS
    variation = Variation(handwriting=False) if part == "printed" else Variation(fonts=part)
    generate_corpus(root / part, seed, cases, styles, variation=variation, mapper=mapper)
    index = json.loads((root / part / "index.json").read_text(encoding="utf-8"))
    return [e for e in index["entries"] if e["style"] in styles]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/handwriting.py", description=__doc__)
    parser.add_argument("--cases", type=int, default=2, help="cases a part (default 2)")
    parser.add_argument("--seed", type=int, default=1202)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--fit", action="store_true", help="calibrate on the dev fonts only")
    parser.add_argument(
        "--refit", action="store_true", help="with --fit: from the last --fit's saved reads"
    )
    parser.add_argument(
        "--fonts",
        default="dev",
        choices=("dev", "calibration"),
        help="with --fit: the fonts written in (calibration: those the recognizer never saw)",
    )
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)
    started = time.perf_counter()
    with (
        tempfile.TemporaryDirectory(prefix="petitions-hand-") as tmp,
        ProcessPoolExecutor(max(1, args.jobs)) as pool,
    ):
        mapper = pool.map if args.jobs > 1 else map
        root = Path(tmp)
        if args.fit:
            saved = args.out / "handwriting-fit-rows.pkl"
            if args.refit and saved.is_file():
                rows = pickle.loads(saved.read_bytes())
            else:
                entries = _corpus(root, args.fonts, args.seed, args.cases, mapper)
                made = mapper(partial(_fit_rows, str(root / args.fonts)), entries)
                rows = [r for rows in made for r in rows]
                saved.parent.mkdir(parents=True, exist_ok=True)
                saved.write_bytes(pickle.dumps(rows))
            print(fit(rows))
            return 0
        checked: list[Checked] = []
        for offset, part in enumerate((*PARTS, "printed")):
            entries = _corpus(root, part, args.seed + offset, args.cases, mapper)
            made = mapper(partial(check_one, part, str(root / part)), entries)
            checked += [c for both in made for c in both]
    print(table(checked))
    print("(" + VARIANTS["lattice"].strip() + ": the same reads, the recognizer's frames dropped)")
    hand = [c for c in checked if c.part in PARTS and c.variant == "recognizer"]
    printed = [c for c in checked if c.part == "printed" and c.variant == "recognizer"]
    per = {
        name: sum(c.seconds for c in cs) / max(1, sum(c.sheets for c in cs))
        for name, cs in (("hand", hand), ("printed", printed))
    }
    if per["printed"]:
        print(
            f"\nseconds per sheet: hand-filled {per['hand']:.2f}, printed {per['printed']:.2f} "
            f"(ratio {per['hand'] / per['printed']:.2f}; target <= 2)"
        )
    for part in PARTS:
        print()
        print(ranks(checked, part))
    # the stage with the recognizer off ([tess]) and as it is by default (on)
    for part in PARTS:
        for variant in ("lattice", "recognizer"):
            print()
            print(reasons(checked, part, variant))
    for part in PARTS:
        text, rows = reliability(checked, part)
        print()
        print(text)
        plot(rows, args.out / f"handwriting-reliability-{part}.png", f"resolved fields, {part}")
    print(f"\nplots in {args.out}; {time.perf_counter() - started:.0f} s in all")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
