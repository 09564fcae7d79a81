"""Sheet numbers on scans of the layout families, each case's sheets read in their closed world
(`pipeline.closedworld.sheetno`), corpora side by side (development first: tune on it only).

    OMP_THREAD_LIMIT=1 .venv/bin/python bench/sheet_numbers.py DEV HELDOUT [FRESH ...]
    OMP_THREAD_LIMIT=1 .venv/bin/python bench/sheet_numbers.py DEV [DEV ...] --fit   # the grid

Each corpus is `python -m synth.corpus --cases 8 --seed S --styles clean-scan degraded-scan
--layouts dev|heldout --out DIR`. Only what the number needs is read: the page is turned
upright and its table found, the text above and below it read, but not the table's rows nor
the statement's blanks (`--full` reads them too; the number's field is the same, at several
times the time). Prints, per corpus: numbers right at the review threshold, flagged (below
it, or no number: a person reads them), wrong and not flagged (must be 0), the highest
confidence of a wrong value, the reader's own figure before the case's closed world, the
same reads judged on tesseract's lattices alone ("[tess]": the project's recognizer's
weight 0) and the CPU seconds a sheet of this reading; then the same reads without the
sheets' order (`resolve_numbers(order=False)`: "[no order]") and with each case's sheets
shuffled five ways ("[shuffled]": the worst of them, and the wrong ones of all five, which
must be 0: a case scanned out of order is read on its reads alone). `--fit` prints the
grid's best settings on the corpora given, all development ones (most right with none wrong
and no wrong value above 0.70). Synthetic data only; no real person's data.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import random
import sys
import time
from collections import Counter
from pathlib import Path

os.environ.setdefault("OMP_THREAD_LIMIT", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dataclasses import replace  # noqa: E402

import pipeline.closedworld.sheetno as cw  # noqa: E402
import pipeline.scan.reader as reader  # noqa: E402
from pipeline.closedworld.score import Params  # noqa: E402
from pipeline.ingest import ingest_file, read_page  # noqa: E402
from pipeline.records import Field  # noqa: E402
from pipeline.rules.reading import threshold_for  # noqa: E402
from pipeline.scan.context import ReadContext  # noqa: E402

SURE = threshold_for("sheet_number")
Read = tuple[str, int | None, Field | None]  # case folder, the true number, the field read


def read_corpus(corpus: Path) -> list[Read]:
    context = ReadContext()
    out = []
    for truth_path in sorted(corpus.glob("case-*/*-scan/truth.json")):
        case = truth_path.parent
        truth = json.loads(truth_path.read_text(encoding="utf-8"))
        refs: dict[str, list] = {}
        for t in truth["sheets"]:
            pages = refs.setdefault(t["file"], ingest_file(case / t["file"]))
            sheet = read_page(next(r for r in pages if r.page_index == t["page_index"]), context)
            out.append((str(case), t["sheet_number"], sheet.sheet_number))
    return out


def score(reads: list[Read], verbose: bool = False, order: bool = True) -> Counter:
    c: Counter = Counter()
    for case, group in itertools.groupby(reads, key=lambda r: r[0]):
        rows = list(group)
        numbers = cw.resolve_numbers([r[2] for r in rows], order=order)
        for (_, n, before), got in zip(rows, numbers, strict=True):
            c["sheets"] += 1
            c["alone"] += _right(n, before)
            if _right(n, got):
                c["right"] += 1
                continue
            if got is not None and cw._value(got) != n:
                c["max_wrong"] = max(c["max_wrong"], round(got.confidence * 1000))
            if got is None or got.confidence < SURE:
                c["flagged"] += 1
            else:
                c["wrong"] += 1
            if verbose:
                text = got and (got.text, got.confidence)
                print(f"  {Path(case).name}/{Path(case).parent.name}: {n} read {text}")
    return c


def shuffled(reads: list[Read], seed: int = 0) -> list[Read]:
    """Each case's sheets in a random order (as if scanned out of order): its order says
    little, and must make no number wrong."""
    rng = random.Random(seed)
    out: list[Read] = []
    for _, group in itertools.groupby(reads, key=lambda r: r[0]):
        rows = list(group)
        rng.shuffle(rows)
        out += rows
    return out


def _right(n: int | None, f: Field | None) -> bool:
    if f is None:
        return n is None
    return n is not None and cw._value(f) == n and f.confidence >= SURE


def _share(c: Counter, key: str) -> str:
    return f"{c[key]}/{c['sheets']} ({100 * c[key] / max(1, c['sheets']):.1f}%)"


def fit(reads: list[Read]) -> None:
    """The grid over the recognizer's weight, the temperature, the lattices' cap and "none"
    (the rest as fitted before the recognizer: floor 0.02, "mean", BEYOND_PRIOR 0.25,
    SWITCH_FLOOR 0.2), best first."""
    grid = itertools.product(
        (0.0, 0.25, 0.5, 1.0, 2.0),
        (0.6, 1.0, 2.0),
        (4.0, 6.0, 8.0, math.inf),
        (4.0, 6.0, 8.0),
    )
    found = []
    for weight, temp, cap, none in grid:
        cw.NUMBER_PARAMS = Params(
            temperature=temp, none=none, combine="mean", frames_weight=weight, lattice_cap=cap
        )
        c = score(reads)
        safe = c["wrong"] == 0 and c["max_wrong"] <= 700
        found.append((safe, c["right"], -c["max_wrong"], (weight, temp, cap, none)))
    print("(frames weight, temperature, lattice cap, none)")
    for safe, right, max_wrong, setting in sorted(found, reverse=True)[:12]:
        print(f"safe={safe} right={right} max wrong {-max_wrong / 1000:.3f}: {setting}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpora", type=Path, nargs="+", help="development first")
    ap.add_argument("--fit", action="store_true", help="the calibration grid on them all (dev)")
    ap.add_argument("--full", action="store_true", help="read the rows and statement too")
    ap.add_argument("--sheets", action="store_true", help="list every number not read right")
    args = ap.parse_args(argv)
    if not args.full:  # the table is still found; its rows and the statement are not read
        reader._read_rows = lambda *a, **k: ()  # type: ignore[assignment]
        reader._numbering_doubts = lambda *a, **k: []  # type: ignore[assignment]
        reader._rows_below = lambda *a, **k: []  # type: ignore[assignment]
        reader._read_witness = lambda *a, **k: None  # type: ignore[assignment]
    if args.fit:
        fit([r for corpus in args.corpora for r in read_corpus(corpus)])
        return 0
    head = f"{'':24}{'right':>16}{'flagged':>9}{'wrong':>7}{'max wrong':>11}{'reader alone':>15}"
    print(head + f"{'[tess] right':>16}{'wrong':>7}{'max wrong':>11}  s/sheet")
    tails: list[str] = []
    fitted = cw.NUMBER_PARAMS
    for corpus in args.corpora:
        start = time.process_time()
        reads = read_corpus(corpus)
        cpu = (time.process_time() - start) / max(1, len(reads))
        c = score(reads, args.sheets)
        # the same reads judged on tesseract's lattices alone (the recognizer's weight 0)
        cw.NUMBER_PARAMS = replace(fitted, frames_weight=0.0)
        t = score(reads)
        cw.NUMBER_PARAMS = fitted
        print(
            f"{corpus.name:24}{_share(c, 'right'):>16}{c['flagged']:>9}{c['wrong']:>7}"
            f"{c['max_wrong'] / 1000:>11.3f}{_share(c, 'alone'):>15}"
            f"{_share(t, 'right'):>16}{t['wrong']:>7}{t['max_wrong'] / 1000:>11.3f}{cpu:>9.2f}"
        )
        # the same reads without the sheets' order, and with each case's sheets shuffled
        plain = score(reads, order=False)
        mixed = [score(shuffled(reads, seed)) for seed in range(SHUFFLES)]
        worst = min(mixed, key=lambda m: m["right"])
        tails.append(
            f"{corpus.name:24}{_share(plain, 'right'):>16}{plain['wrong']:>7}"
            f"{plain['max_wrong'] / 1000:>11.3f}"
            f"{_share(worst, 'right'):>16}{sum(m['wrong'] for m in mixed):>7}"
            f"{max(m['max_wrong'] for m in mixed) / 1000:>11.3f}"
        )
    print(f"\n{'':24}{'[no order] right':>16}{'wrong':>7}{'max wrong':>11}"
          f"{'[shuffled] worst':>16}{'wrong':>7}{'max wrong':>11}")  # fmt: skip
    print("\n".join(tails))
    return 0


SHUFFLES = 5  # seeded shuffles of each case's sheets (`shuffled`)


if __name__ == "__main__":
    raise SystemExit(main())
