"""The scan reader on sheets laid out in other ways (synth/layouts.py's families), the
development and the held-out families side by side: tune on the first, report the second.

    OMP_THREAD_LIMIT=1 .venv/bin/python bench/scan_layouts.py --cases 3 --seed 41
    .venv/bin/python bench/scan_layouts.py --dev DIR --heldout DIR   # corpora already made
    .venv/bin/python bench/scan_layouts.py --dev DIR --heldout DIR --fresh DIR [DIR ...] --sheets

Each part is a corpus (`python -m synth.corpus --layouts dev|heldout`) of clean and
degraded scans, and of born-digital PDFs when the corpus has them (scored apart, in a column
of their own: their text layer is read by `pipeline/texttable.py`, not by the scan reader);
every page is read and compared with its truth:

- rows: table rows found / rows in truth (blank rows included); invented: rows read that truth
  does not have; "rows the page shows": the same, truth's blank rows after the last entry of
  a table printed without rules or line numbers left out (nothing on the page marks them:
  no reader can find them, and they hold no signature); blank rows read past truth's in such
  a table are the reader's guess at its empty space, counted apart from rows invented
  (`synth.truth.blank_rows_marked`); blank->signed: a blank row read as signed; lost signed:
  a signed row missing or read as blank;
- missed rows caught: sheets with rows missed that the reader flagged (a layout doubt, no
  table read, or the witness's stated count disagreeing with the lines read), of all such
  sheets, and of those whose missed rows hold signatures; rows doubted needlessly: sheets read
  whole, no row missed nor invented, that a doubt about their rows still sends to a person;
- sheet numbers: read right, flagged (below the review threshold or missing: a person reads
  them), wrong and not flagged (must be 0), after the case's sheets are read among each
  other (`pipeline.closedworld.sheetno`, as `pipeline.run` does); of the flagged, those
  whose number another sheet of the case bears too (a duplicate the corpus plants: the
  number is neither sheet's for sure, and the numbering rule sends both to a person anyway);
  read right, flagged or not: the number the page prints is the one read, however sure;
- columns: sheets whose columns gave every field truth has, or that the reader flagged
  (`layout_doubts`); silent: a field truth has that the reader gave no column and no doubt
  (a town column whose town no residence read has counts: its street column gives the field);
- CER of printed cells (typed in a print font; handwriting-font cells are bench/accuracy.py's).

Whole-pipeline decisions (0 lines decided wrongly) are measured by bench/accuracy.py on the
same corpora (`--corpus DIR`). Synthetic data only; no real person's data.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

os.environ.setdefault("OMP_THREAD_LIMIT", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pipeline.closedworld.sheetno import resolve_sheet_numbers  # noqa: E402
from pipeline.ingest import ingest_file, read_page  # noqa: E402
from pipeline.rules.reading import threshold_for  # noqa: E402
from pipeline.scan.context import ReadContext  # noqa: E402
from pipeline.scan.metrics import cer  # noqa: E402
from synth.truth import blank_rows_marked, rows_the_page_shows, town_lost  # noqa: E402

PRINT_FONTS = ("Helvetica", "Times-Roman", "Courier")
FIELDS = ("date", "name", "residence", "ward", "election_district")
# The reader's doubts that rows were missed (pipeline/scan/reader.py's `_rows_below`, ...).
ROW_DOUBTS = (
    "the table's column rules",
    "a rule across",
    "the line-number column",
    "the line numbers",
    "the statement counts",
    "row ",
)


def make_corpus(out: Path, split: str, cases: int, seed: int) -> Path:
    subprocess.run(
        [sys.executable, "-m", "synth.corpus", "--out", str(out), "--cases", str(cases),
         "--seed", str(seed), "--styles", "clean-scan", "degraded-scan", "born-digital",
         "--layouts", split,
         "--jobs", "2"],
        check=True, cwd=ROOT, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    return out


# The corpus's styles, scored apart: the scans (the scan reader) and born-digital PDFs.
STYLES = {"scan": "*-scan", "born-digital": "born-digital"}


def measure(corpus: Path, verbose: bool = False, style: str = "scan") -> Counter:
    c: Counter = Counter()
    context = ReadContext()
    for truth_path in sorted(corpus.glob(f"case-*/{STYLES[style]}/truth.json")):
        case = truth_path.parent
        truth = json.loads(truth_path.read_text(encoding="utf-8"))
        refs: dict[str, list] = {}
        sheets = []
        for t in truth["sheets"]:
            pages = refs.setdefault(t["file"], ingest_file(case / t["file"]))
            sheets.append(
                read_page(next(r for r in pages if r.page_index == t["page_index"]), context)
            )
        # the case's sheet numbers read among each other, as the pipeline does (pipeline.run)
        numbers = Counter(t["sheet_number"] for t in truth["sheets"])
        for sheet, t in zip(resolve_sheet_numbers(sheets), truth["sheets"], strict=True):
            before = c.copy()
            _score(c, sheet, t, truth.get("layout", {}).get("rules"))
            n = t["sheet_number"]
            if c["number_flagged"] > before["number_flagged"] and n and numbers[n] > 1:
                c["number_flagged_shared"] += 1  # a number another sheet bears too: a defect
            if verbose:
                _print_sheet(case.relative_to(corpus), t, sheet, c - before)
    return c


def _score(c: Counter, sheet, t: dict, rules: str | None = None) -> None:  # type: ignore[no-untyped-def]
    c["sheets"] += 1
    lines = t["lines"]
    c["rows"] += len(lines)
    c["found"] += min(len(sheet.lines), len(lines))
    shown = rows_the_page_shows(t, rules)
    c["rows_shown"] += shown
    c["found_shown"] += min(len(sheet.lines), shown)
    past = sheet.lines[len(lines) :]  # rows read past truth's
    if blank_rows_marked(t, rules):
        c["invented"] += len(past)
    else:  # blank rows read in the empty space below an unruled table's entries: a guess
        c["invented"] += sum(not line.blank for line in past)
        c["guessed"] += sum(line.blank for line in past)
    c["signed"] += sum(not tl["blank"] for tl in lines)
    c["lost_signed"] += sum(not tl["blank"] for tl in lines[len(sheet.lines) :])
    for line, tl in zip(sheet.lines, lines, strict=False):
        c["blank_as_signed"] += tl["blank"] and not line.blank
        c["lost_signed"] += (not tl["blank"]) and line.blank
        fonts = tl.get("fonts", {})
        for name in FIELDS:
            ref = tl["fields"].get(name)
            font = fonts.get(name) or fonts.get("street" if name == "residence" else name, "")
            if not ref or font not in PRINT_FONTS:
                continue
            f = line.get(name)
            c[f"chars_{name}"] += len(ref)
            c[f"edits_{name}"] += round(cer(ref, f.text if f else "") * len(ref))
    if len(sheet.lines) < len(lines):  # rows missed: caught by a doubt or the witness's count
        w = sheet.witness
        miscount = w is not None and w.stated_count_value != len(sheet.filled_lines)
        caught = not sheet.lines or bool(sheet.layout_doubts) or miscount
        signed = any(not tl["blank"] for tl in lines[len(sheet.lines) :])
        c["missed_sheets"] += 1
        c["missed_caught"] += caught
        c["missed_signed_sheets"] += signed
        c["missed_signed_caught"] += signed and caught
    elif len(sheet.lines) == len(lines) and any(
        d.startswith(ROW_DOUBTS) for d in sheet.layout_doubts
    ):
        c["rows_doubted_needlessly"] += 1
    n = t["sheet_number"]
    got = sheet.sheet_number
    if got is not None and sheet.sheet_number_value == n and n is not None:
        c["number_right"] += got.confidence >= threshold_for("sheet_number")
        c["number_flagged"] += got.confidence < threshold_for("sheet_number")
        c["number_read"] += 1
    elif n is None and got is None:
        c["number_right"] += 1
        c["number_read"] += 1
    elif got is None or got.confidence < threshold_for("sheet_number"):
        c["number_flagged"] += 1
    else:
        c["number_wrong"] += 1
    wanted = {f for tl in lines for f, v in tl["fields"].items() if v} - {"signature"}
    missing = wanted - set(sheet.columns)
    if town_lost(t, [line.text("residence") for line in sheet.lines]):
        missing.add("residence (its town)")
    if not sheet.lines:
        c["columns_flagged"] += 1  # SHEET_NOT_READ: a person reads the sheet
    elif missing and not sheet.layout_doubts:
        c["columns_silent"] += 1
    elif sheet.layout_doubts:
        c["columns_flagged"] += 1
    else:
        c["columns_placed"] += 1


def _print_sheet(where: Path, t: dict, sheet, got: Counter) -> None:  # type: ignore[no-untyped-def]
    """One line a sheet that is not read perfectly, or read whole but doubted (its rows, or its
    columns: a sheet a person reads for its layout): what went wrong."""
    bad = {k: got[k] for k in ("invented", "blank_as_signed", "lost_signed", "number_flagged")}
    bad |= {k: got[k] for k in ("number_wrong", "columns_silent", "columns_flagged")}
    bad["doubted_needlessly"] = got["rows_doubted_needlessly"]  # read whole, rows still doubted
    missed = got["rows"] - got["found"]
    if not missed and not any(bad.values()):
        return
    number = sheet.sheet_number.text if sheet.sheet_number else None
    print(
        f"  {where}/{t['file']}: rows {len(sheet.lines)}/{got['rows']}"
        + "".join(f" {k}={v}" for k, v in bad.items() if v)
        + f" number {t['sheet_number']}->{number!r} doubts={list(sheet.layout_doubts)}"
    )


def _pct(a: int, b: int) -> str:
    return f"{100 * a / b:.1f}%" if b else "-"


def report(parts: dict[str, Counter]) -> None:
    rows = [
        ("sheets", lambda c: str(c["sheets"])),
        ("rows found", lambda c: f"{c['found']}/{c['rows']} ({_pct(c['found'], c['rows'])})"),
        (
            "rows the page shows: found",
            lambda c: (
                f"{c['found_shown']}/{c['rows_shown']} ({_pct(c['found_shown'], c['rows_shown'])})"
            ),
        ),
        ("rows invented", lambda c: str(c["invented"])),
        ("  blank, past an unruled table's entries", lambda c: str(c["guessed"])),
        ("blank read as signed", lambda c: str(c["blank_as_signed"])),
        ("signed rows lost", lambda c: f"{c['lost_signed']}/{c['signed']}"),
        ("sheets rows missed: caught", lambda c: f"{c['missed_caught']}/{c['missed_sheets']}"),
        (
            "  signed missed: caught",
            lambda c: f"{c['missed_signed_caught']}/{c['missed_signed_sheets']}",
        ),
        ("rows doubted needlessly", lambda c: str(c["rows_doubted_needlessly"])),
        ("sheet no. right", lambda c: _pct(c["number_right"], c["sheets"])),
        ("  read right, flagged or not", lambda c: _pct(c["number_read"], c["sheets"])),
        ("sheet no. flagged", lambda c: str(c["number_flagged"])),
        ("  of them, numbers two sheets bear", lambda c: str(c["number_flagged_shared"])),
        ("sheet no. wrong, unflagged", lambda c: str(c["number_wrong"])),
        ("columns placed", lambda c: str(c["columns_placed"])),
        ("columns flagged", lambda c: str(c["columns_flagged"])),
        ("columns missed silently", lambda c: str(c["columns_silent"])),
    ]
    for name in FIELDS:
        rows.append(
            (
                f"printed CER {name}",
                lambda c, n=name: _pct(c[f"edits_{n}"], c[f"chars_{n}"]) + f" of {c[f'chars_{n}']}",
            )
        )
    names = [n for n, c in parts.items() if c["sheets"]]
    print(f"{'':28}" + "".join(f"{n:>18}" for n in names))
    for label, fn in rows:
        print(f"{label:28}" + "".join(f"{fn(parts[n]):>18}" for n in names))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=3, help="cases a part (default 3)")
    parser.add_argument("--seed", type=int, default=41)
    parser.add_argument("--dev", type=Path, help="a development corpus already made")
    parser.add_argument("--heldout", type=Path, help="a held-out corpus already made")
    parser.add_argument(
        "--fresh", type=Path, nargs="*", default=[], help="more held-out corpora (other seeds)"
    )
    parser.add_argument("--sheets", action="store_true", help="list every sheet not read right")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="scan-layouts-") as tmp:
        corpora = {}
        for split, given in (("dev", args.dev), ("heldout", args.heldout)):
            corpora[split] = given or make_corpus(Path(tmp) / split, split, args.cases, args.seed)
        for k, fresh in enumerate(args.fresh):
            corpora[f"fresh {k + 1}" if len(args.fresh) > 1 else "fresh"] = fresh
        parts = {}
        for style in STYLES:
            for name, corpus in corpora.items():
                parts[f"{name} {style}"] = measure(corpus, args.sheets, style)
        report(parts)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
