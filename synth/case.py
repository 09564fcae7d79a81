"""Generate a whole synthetic case: register, sheets, case.toml, truth.json and a README.

The ground truth is written from what the generator intended, never by running the pipeline,
so the pipeline can be benchmarked against it. Defects are planted with the pipeline's finding
codes; the expected totals follow Village Law § 9-902(1): the petition needs signatures of
electors "in number equal to at least twenty per centum of such electors in the village, as
shown on the register of electors for the previous general village election".
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import logging
import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .people import (
    Village,
    Voter,
    build_register,
    unregistered_signer,
    vary_register,
)
from .register import write_register
from .sheets import LinePlan, SheetLayout, SheetPlan, WitnessPlan, write_pdf
from .truth import LineTruth, format_date
from .varied import VARIED_TARGETS, Variation, plan_varied

__all__ = [
    "FATAL_DEFECTS",
    "TARGETS",
    "TRUTH_SCHEMA",
    "CaseDates",
    "LineTruth",
    "generate_case",
    "main",
]

log = logging.getLogger(__name__)

TRUTH_SCHEMA = "petitions-truth/1"
# Line defects that make a line invalid by themselves (their finding codes in the pipeline).
FATAL_DEFECTS = (
    "SIGNER_NOT_REGISTERED",
    "SIGNER_PURGED",
    "SIGNER_OUTSIDE_VILLAGE",
    "LINE_UNDATED",
    "DATE_AFTER_FILING",
    "DUPLICATE_SIGNER",
    "NO_SIGNATURE",
)
WITNESS_COUNT_MISMATCH = "WITNESS_COUNT_MISMATCH"
TARGETS = ("sufficient", "insufficient", "undetermined")
FIELD_ORDER = ("date", "signature", "name", "residence", "ward", "election_district")


@dataclass(frozen=True, slots=True)
class CaseDates:
    adopted: dt.date = dt.date(2026, 9, 14)
    filed: dt.date = dt.date(2026, 10, 9)
    previous_general_election: dt.date = dt.date(2026, 3, 17)


def _style(rng: random.Random) -> str:
    return rng.choices(("long", "short", "words"), weights=(6, 3, 1))[0]


def _line(date: str, signature: str, name: str, residence: str, ward: str, ed: str) -> LinePlan:
    return LinePlan(
        tuple(zip(FIELD_ORDER, (date, signature, name, residence, ward, ed), strict=True))
    )


def _voter_line(v: Voter, date: str, signed: bool = True) -> LinePlan:
    return _line(date, v.printed_name if signed else "", v.printed_name, v.residence, v.ward, v.ed)


def _filled_counts(
    rng: random.Random, n_sheets: int, rows: int, target: str, required: int
) -> tuple[list[int], int | None]:
    """How many lines each sheet has signed, and (when the target fixes it) the sheet that
    gets the witness-count mismatch."""
    if target == "insufficient":
        per = max(1, min(rows, (required * 2 // 3) // n_sheets))
        if per * n_sheets >= required:
            raise ValueError(
                f"{n_sheets} sheets cannot make an insufficient case when only {required} "
                "signatures are required: use fewer sheets or a larger village_size"
            )
        return [per] * n_sheets, None
    if target == "undetermined":
        # Sheet 1 is full and carries the mismatch: rows - 1 lines in review (one of its lines
        # is undated). The other sheets carry six fatal defects and `required - k` valid lines,
        # so that valid < required <= valid + needs_review.
        review = rows - 1
        other = required - max(1, review // 2) + 6
        if n_sheets < 2 or other > rows * (n_sheets - 1):
            raise ValueError(
                f"cannot fit an undetermined case ({required} required) on {n_sheets} sheets "
                f"of {rows} rows: use more sheets or a smaller village_size"
            )
        counts = [rows] + [other // (n_sheets - 1)] * (n_sheets - 1)
        for i in range(other % (n_sheets - 1)):
            counts[1 + i] += 1
        return counts, 0
    counts = [rows] * n_sheets
    short = rng.sample(range(n_sheets), k=max(1, n_sheets // 2))
    for i in short:
        counts[i] = rows - rng.randint(2, 5)
    return counts, None


def generate_case(
    out_dir: Path,
    seed: int = 902,
    *,
    n_sheets: int = 6,
    village_size: int = 150,
    rows_per_sheet: int = 10,
    target: str = "sufficient",
    dates: CaseDates | None = None,
    village: Village | None = None,
    variation: Variation | None = None,
    ruled: bool = True,
) -> Path:
    """Write a synthetic case into out_dir and return the path of its case.toml.

    Deterministic from `seed`. `target` is "sufficient" (valid lines comfortably above the
    required number, for the default size), "insufficient" (fewer signed lines than required,
    so even if every doubtful line were valid the petition would fail) or "undetermined"
    (valid < required <= valid + needs_review: the review decides). truth.json always states
    the verdict the planted lines give; a "sufficient" target too small to reach it is logged,
    and an impossible "insufficient"/"undetermined" layout raises ValueError.

    With `variation` (`synth.varied.Variation`) the case is the corpus's kind: varied
    rows, columns, handwriting and defects; targets also "just-above" and "just-below"; the
    number of sheets follows from the target (`n_sheets` and `rows_per_sheet` are ignored).
    Without it the output is the demo's, byte for byte. `ruled` False prints the signature
    tables without rules (the same case otherwise: the random draws do not change)."""
    if target not in (TARGETS if variation is None else VARIED_TARGETS):
        allowed = TARGETS if variation is None else VARIED_TARGETS
        raise ValueError(f"target must be one of {', '.join(allowed)}, not {target!r}")
    if n_sheets < 1 or rows_per_sheet < 2:
        raise ValueError("need at least one sheet and two rows per sheet")
    rng = random.Random(seed)
    dates = dates or CaseDates()
    village = village or Village()
    out_dir = Path(out_dir)
    (out_dir / "sheets").mkdir(parents=True, exist_ok=True)

    voters = build_register(
        rng,
        village,
        village_size=village_size,
        election=dates.previous_general_election,
        adopted=dates.adopted,
    )
    if variation is not None:
        voters = vary_register(rng, voters, village)
    write_register(voters, village, out_dir / "register.csv")
    denominator = sum(
        v.elector_on(dates.previous_general_election, village.village_eds) for v in voters
    )
    required = (denominator + 4) // 5

    petition_defects: tuple[str, ...] = ()
    if variation is None:
        sheets_truth = _plan_sheets(
            rng, voters, village, dates, n_sheets, rows_per_sheet, target, required
        )
    else:
        planned, petition_defects = plan_varied(
            rng,
            voters,
            village,
            required,
            target,
            variation,
            adopted=dates.adopted,
            filed=dates.filed,
        )
        sheets_truth = [(p.plan, list(p.lines), p.witness_date, p.defects) for p in planned]
        n_sheets = len(sheets_truth)

    # Files: one PDF per sheet, the last two sheets together in one two-page PDF.
    files: list[tuple[str, list[int]]] = []
    singles = max(0, n_sheets - 2)
    for i in range(singles):
        files.append((f"sheets/sheet-{i + 1:02d}.pdf", [i]))
    if n_sheets - singles == 2:
        files.append(
            (f"sheets/sheet-{n_sheets - 1:02d}-{n_sheets:02d}.pdf", [n_sheets - 2, n_sheets - 1])
        )
    elif n_sheets - singles == 1:
        files.append((f"sheets/sheet-{n_sheets:02d}.pdf", [n_sheets - 1]))

    truth_sheets = []
    for file, idxs in files:
        layouts = write_pdf(
            out_dir / file, [replace(sheets_truth[i][0], ruled=ruled) for i in idxs]
        )
        for page_index, (i, layout) in enumerate(zip(idxs, layouts, strict=True)):
            plan, lines, witness_date, sheet_defects = sheets_truth[i]
            truth_sheets.append(
                _sheet_truth(
                    file,
                    page_index,
                    plan,
                    lines,
                    witness_date,
                    sheet_defects,
                    layout if variation is not None else None,
                )
            )

    all_lines = [t for _, lines, _, _ in sheets_truth for t in lines]
    counts = {
        s: sum(t.status == s for t in all_lines)
        for s in ("blank", "valid", "invalid", "needs_review")
    }
    valid, review = counts["valid"], counts["needs_review"]
    if valid >= required:
        verdict = "sufficient"
    elif valid + review < required:
        verdict = "insufficient"
    else:
        verdict = "undetermined"
    meant = {"just-above": "sufficient", "just-below": "insufficient"}.get(target, target)
    if verdict != meant:
        log.warning("synthetic case: target %s, but the planted lines give %s", target, verdict)
    election = dates.previous_general_election.isoformat()
    how = (
        f"required = ceil(20% of {denominator} electors on the register for the {election} "
        f"general village election) = {required} (Village Law § 9-902(1)); the denominator "
        f"counts register entries in village EDs {', '.join(village.village_eds)}, not status "
        f"17, registered on or before {election} and not purged on or before it. "
        f"{valid} valid, {review} needing review: "
        + {
            "sufficient": "valid >= required, sufficient whatever review decides.",
            "insufficient": "valid + needs_review < required, insufficient even if every "
            "doubtful line is valid.",
        }.get(verdict, "the lines in review decide it.")
    )
    truth: dict[str, Any] = {
        "schema": TRUTH_SCHEMA,
        "seed": seed,
        "synthetic": True,
    }
    if variation is not None:
        truth.update(
            kind="permissive_referendum",
            style="born-digital",
            target=target,
            variation=variation.as_json(),
            petition_defects=list(petition_defects),
        )
        if variation.layouts is not None:  # the family and split its sheets were set in
            truth["layout"] = sheets_truth[0][0].layout.as_json()
    truth |= {
        "sheets": truth_sheets,
        "expected": {
            "lines_read": len(all_lines),
            "blank": counts["blank"],
            "valid": valid,
            "invalid": counts["invalid"],
            "needs_review": review,
            "denominator": denominator,
            "required": required,
            "verdict": verdict,
            "how": how,
        },
    }
    (out_dir / "truth.json").write_text(
        json.dumps(truth, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    case_path = out_dir / "case.toml"
    case_path.write_text(_case_toml(village, dates, seed), encoding="utf-8")
    (out_dir / "README.md").write_text(
        _readme(seed, n_sheets, village_size, target, variation is not None), encoding="utf-8"
    )
    log.info("synthetic case written to %s: %d lines, verdict %s", out_dir, len(all_lines), verdict)
    return case_path


def _plan_sheets(
    rng: random.Random,
    voters: Sequence[Voter],
    village: Village,
    dates: CaseDates,
    n_sheets: int,
    rows: int,
    target: str,
    required: int,
) -> list[tuple[SheetPlan, list[LineTruth], dt.date | None, tuple[str, ...]]]:
    first_sign = dates.adopted + dt.timedelta(days=1)
    last_sign = dates.filed - dt.timedelta(days=1)
    eligible = [
        v
        for v in voters
        if v.ed in village.village_eds and v.status in ("A", "I") and v.reg_date < first_sign
    ]
    rng.shuffle(eligible)
    # Make sure the valid signers include the interesting register entries: an inactive voter,
    # one registered after the previous election, a fractional address, an apartment, a suffix.
    wanted = (
        lambda v: v.status == "I",
        lambda v: v.reg_date > dates.previous_general_election,
        lambda v: bool(v.half_code),
        lambda v: bool(v.apartment),
        lambda v: bool(v.suffix),
    )
    front = []
    for test in wanted:
        hit = next((v for v in eligible if test(v) and v not in front), None)
        if hit is not None:
            front.append(hit)
    eligible = front + [v for v in eligible if v not in front]
    purged = [v for v in voters if v.status == "P" and v.ed in village.village_eds]
    outside = [v for v in voters if v.ed not in village.village_eds and v.status == "A"]
    pool = list(eligible)
    special = {v.sboeid for v in front}

    def take(plain: bool) -> Voter:
        """The next unused eligible voter; `plain` skips the interesting ones, which are kept
        for lines that count (not the mismatch sheet's, not a witness)."""
        for k, v in enumerate(pool):
            if not (plain and v.sboeid in special):
                return pool.pop(k)
        raise ValueError("village_size is too small for this many signed lines")

    registered = {(v.first_name, v.last_name) for v in voters}

    counts, fixed_mismatch = _filled_counts(rng, n_sheets, rows, target, required)
    slots = [(s, r) for s in range(n_sheets) for r in range(counts[s])]
    # The witness-count mismatch goes on the sheet with fewest signed lines (at least 3), so
    # that a handful of lines, not a whole full sheet, wait for review.
    mismatch_sheet = min(range(n_sheets), key=lambda s: (counts[s] < 3, counts[s], s))
    if fixed_mismatch is not None:
        mismatch_sheet = fixed_mismatch
    # Plant one of each defect on distinct filled lines; one of them on the mismatch sheet.
    defects: dict[tuple[int, int], str] = {}
    later_slots = [x for x in slots if x > slots[0]]
    dup_slot = later_slots[-1] if later_slots else None
    if dup_slot is not None and len(slots) >= 9:
        defects[dup_slot] = "DUPLICATE_SIGNER"
    free = [x for x in slots if x not in defects and x[0] != mismatch_sheet]
    rng.shuffle(free)
    on_mismatch = [x for x in slots if x[0] == mismatch_sheet]
    codes = [c for c in FATAL_DEFECTS if c != "DUPLICATE_SIGNER"]
    if on_mismatch and len(slots) >= 9:
        defects[rng.choice(on_mismatch)] = "LINE_UNDATED"
        codes.remove("LINE_UNDATED")
    for code, slot in zip(codes, free, strict=False):
        if len(slots) >= 9:
            defects[slot] = code

    first_valid: dict[str, tuple[Voter, tuple[int, int]]] = {}
    per_sheet: list[tuple[SheetPlan, list[LineTruth], dt.date | None, tuple[str, ...]]] = []
    signed_voters: list[Voter] = []
    for s in range(n_sheets):
        sign_dates = sorted(
            first_sign + dt.timedelta(days=rng.randint(0, (last_sign - first_sign).days))
            for _ in range(counts[s])
        )
        lines: list[LineTruth] = []
        for r in range(counts[s]):
            defect = defects.get((s, r))
            when = format_date(sign_dates[r], _style(rng))
            if defect == "SIGNER_NOT_REGISTERED":
                name, residence, ed = unregistered_signer(rng, registered, village)
                row = _line(when, name, name, residence, village.ward_of(ed), ed)
                lines.append(LineTruth(row, None, (defect,), "invalid"))
                continue
            if defect == "SIGNER_PURGED":
                v = rng.choice(purged)
                lines.append(LineTruth(_voter_line(v, when), v.sboeid, (defect,), "invalid"))
                continue
            if defect == "SIGNER_OUTSIDE_VILLAGE":
                v = rng.choice(outside)
                lines.append(LineTruth(_voter_line(v, when), v.sboeid, (defect,), "invalid"))
                continue
            if defect == "DUPLICATE_SIGNER" and not first_valid:
                defect = None  # nobody to repeat yet: an ordinary line instead
            if defect == "DUPLICATE_SIGNER":
                v = rng.choice([fv for fv, _ in first_valid.values()])
                lines.append(LineTruth(_voter_line(v, when), v.sboeid, (defect,), "invalid"))
                continue
            v = take(plain=s == mismatch_sheet or defect is not None)
            if defect == "LINE_UNDATED":
                when = ""
            elif defect == "DATE_AFTER_FILING":
                late = dates.filed + dt.timedelta(days=rng.randint(1, 4))
                when = format_date(late, _style(rng))
            row = _voter_line(v, when, signed=defect != "NO_SIGNATURE")
            if defect is not None:
                lines.append(LineTruth(row, v.sboeid, (defect,), "invalid"))
                continue
            if s == mismatch_sheet:
                lines.append(LineTruth(row, v.sboeid, (WITNESS_COUNT_MISMATCH,), "needs_review"))
            else:
                lines.append(LineTruth(row, v.sboeid, (), "valid"))
            if s != mismatch_sheet:  # a duplicate repeats a line that counts
                first_valid.setdefault(v.sboeid, (v, (s, r)))
            signed_voters.append(v)
        # A line with its own fatal defect on the mismatch sheet stays invalid, with both codes.
        if s == mismatch_sheet:
            lines = [
                LineTruth(t.plan, t.voter_id, t.defects + (WITNESS_COUNT_MISMATCH,), t.status)
                if t.status == "invalid"
                else t
                for t in lines
            ]
        empty = _line("", "", "", "", "", "")
        lines.extend(LineTruth(empty, None, (), "blank") for _ in range(rows - counts[s]))

        witness_voter = take(plain=True)
        wdate = (max(sign_dates) if sign_dates else first_sign) + dt.timedelta(
            days=rng.randint(0, 1)
        )
        wdate = min(wdate, last_sign)
        filled = counts[s]
        stated = filled
        if s == mismatch_sheet:
            stated = filled + rng.choice((-2, -1, 1, 2))
            if stated <= 0:
                stated = filled + 1
        witness = WitnessPlan(
            name=witness_voter.printed_name,
            residence=witness_voter.residence,
            stated_count=str(stated),
            date_text=format_date(wdate, _style(rng)),
            signature=witness_voter.printed_name,
        )
        sheet_plan = SheetPlan(
            number=s + 1,
            village=village.village,
            county=village.county,
            proposition=_PROPOSITION,
            lines=tuple(t.plan for t in lines),
            witness=witness,
        )
        sheet_defects = (WITNESS_COUNT_MISMATCH,) if s == mismatch_sheet else ()
        per_sheet.append((sheet_plan, lines, wdate, sheet_defects))
    return per_sheet


_PROPOSITION = "Local Law No. 3 of 2026, a local law amending the zoning code"


def _sheet_truth(
    file: str,
    page_index: int,
    plan: SheetPlan,
    lines: Sequence[LineTruth],
    witness_date: dt.date | None,
    sheet_defects: tuple[str, ...],
    layout: SheetLayout | None = None,
) -> dict[str, object]:
    """One sheet's truth. With a layout (varied cases) it also gives the table's columns, each
    row's box on the page (PDF points, origin top-left) and the font each field was drawn in."""
    w = plan.witness
    witness: dict[str, Any] | None = None
    if w is not None:
        witness = {
            "name": w.name,
            "residence": w.residence,
            "stated_count": int(w.stated_count) if w.stated_count else None,
            "date": witness_date.isoformat() if witness_date else None,
            "date_text": w.date_text,
            "signed": bool(w.signature),
            "signature": w.signature,
        }
    out: dict[str, Any] = {
        "file": file,
        "page_index": page_index,
        "sheet_number": plan.number,
        "defects": list(sheet_defects),
        "witness": witness,
        "lines": [
            {
                "line_no": k,
                "blank": t.plan.blank,
                "fields": dict(t.plan.fields),
                "voter_id": t.voter_id,
                "defects": list(t.defects),
                "expected_status": t.status,
            }
            for k, t in enumerate(lines, start=1)
        ],
    }
    if layout is None:
        return out
    out["columns"] = [field for _, field, _ in plan.columns]
    out["column_titles"] = [title for title, _, _ in plan.columns]
    if witness is not None:
        witness["fonts"] = {name: s.font for name, s in layout.witness_strokes}
    for row, box, strokes, t in zip(
        out["lines"], layout.row_boxes, layout.strokes, lines, strict=True
    ):
        row["box"] = [round(v, 2) for v in box]
        row["fonts"] = {name: s.font for name, s in strokes}
        row["strokes"] = {
            name: {"size": s.size, "slant": s.slant, "baseline": s.baseline} for name, s in strokes
        }
        if t.notes:
            row["notes"] = list(t.notes)
    return out


def _q(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)  # a TOML basic string for plain text


def _case_toml(village: Village, dates: CaseDates, seed: int) -> str:
    eds = ", ".join(_q(e) for e in village.village_eds)
    return (
        f"# Synthetic case generated by synth (seed {seed}); no real person's data.\n"
        f"name = {_q(f'Village of {village.village}: referendum petition on Local Law No. 3 of 2026 (synthetic)')}\n"  # noqa: E501
        'kind = "permissive_referendum"\n'
        f"proposition = {_q(_PROPOSITION)}\n"
        'sheets = ["sheets"]\n'
        "\n[municipality]\n"
        f"village = {_q(village.village)}\n"
        f"town = {_q(village.town)}\n"
        f"county = {_q(village.county)}\n"
        f"election_districts = [{eds}]\n"
        "\n[dates]\n"
        f"adopted = {dates.adopted.isoformat()}\n"
        f"filed = {dates.filed.isoformat()}\n"
        f"previous_general_election = {dates.previous_general_election.isoformat()}\n"
        "\n[register]\n"
        'path = "register.csv"\n'
        'format = "nysboe"\n'
    )


def _readme(seed: int, n_sheets: int, village_size: int, target: str, varied: bool = False) -> str:
    if varied:
        return (
            "# Synthetic petition case (varied)\n\n"
            "Every file here is synthetic. It was generated by the `petitions` project's fixture\n"
            f"generator (`synth`, varied mode) from seed {seed} and holds no real\n"
            "person's data: the village, its voters, streets and signers are invented.\n\n"
            "- `register.csv`: a village register in the NYS BOE 45-field voter-export layout\n"
            "- `sheets/`: born-digital petition sheets (Village Law § 9-902(8) form), entries in\n"
            "  handwriting-style fonts\n"
            "- `case.toml`: the case file\n"
            "- `truth.json`: what the generator intended (every line's fields, register id,\n"
            "  planted defects, expected status, row box and fonts; expected totals)\n\n"
            "Regenerate (byte-identical for the same seed and the same installed fonts):\n\n"
            "```\n"
            f"python -m synth --varied --seed {seed} --out <folder>"
            + (f" --village-size {village_size}" if village_size != 150 else "")
            + (f" --target {target}" if target != "sufficient" else "")
            + "\n```\n"
        )
    return (
        "# Synthetic petition case\n\n"
        "Every file here is synthetic. It was generated by the `petitions` project's fixture\n"
        f"generator (`synth`) from seed {seed} and holds no real person's data: the\n"
        "village, its voters, streets and signers are invented from small built-in lists.\n\n"
        "- `register.csv`: a village register in the NYS BOE 45-field voter-export layout\n"
        "- `sheets/`: born-digital petition sheets (Village Law § 9-902(8) form)\n"
        "- `case.toml`: the case file\n"
        "- `truth.json`: what the generator intended (planted defects, expected totals)\n\n"
        "Regenerate (byte-identical for the same seed):\n\n"
        "```\n"
        f"python -m synth --seed {seed} --out <folder>"
        + (f" --sheets {n_sheets}" if n_sheets != 6 else "")
        + (f" --village-size {village_size}" if village_size != 150 else "")
        + (f" --target {target}" if target != "sufficient" else "")
        + "\n```\n"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m synth --seed 902 --out fixtures/demo`."""
    parser = argparse.ArgumentParser(
        prog="python -m synth",
        description="Generate a synthetic petition case (no real person's data).",
    )
    parser.add_argument("--seed", type=int, default=902)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--sheets", type=int, default=6)
    parser.add_argument("--village-size", type=int, default=150)
    parser.add_argument("--rows", type=int, default=10)
    parser.add_argument(
        "--target",
        choices=TARGETS + ("just-above", "just-below"),
        default="sufficient",
        help="just-above and just-below need --varied",
    )
    parser.add_argument(
        "--varied",
        action="store_true",
        help="a corpus-style case: 5-20 rows a sheet, varied columns, handwriting, more defects",
    )
    args = parser.parse_args(argv)
    path = generate_case(
        args.out,
        args.seed,
        n_sheets=args.sheets,
        village_size=args.village_size,
        rows_per_sheet=args.rows,
        target=args.target,
        variation=Variation() if args.varied else None,
    )
    print(path)
    return 0
