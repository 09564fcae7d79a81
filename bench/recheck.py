"""A scheduled re-check: the first check of a scanned case, the same case again unchanged, and
the case after two sheets were added; the page cache (`pipeline.cache`) remembers what was read.

Synthetic data only (`bench/scan_speed.py`'s scanned case: invented village, voters and
signers, under eight degradations). Each check is what `petitions check --engine local --jobs N`
runs, in this process: a process pool started for it, the stages, the judging inputs kept and
the report written by the orchestrator's last stage (`check_case(write=True)`). Prints the
wall time of each, the pages each one read (counted as they are handed to the pool), and the
re-check's speed-up over the first check; checks that the reports agree with an uncached check.

    OMP_THREAD_LIMIT=1 .venv/bin/python bench/recheck.py [--sheets 40] [--added 2] [--workers 2]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

os.environ.setdefault("OMP_THREAD_LIMIT", "1")  # before tesserocr is imported anywhere

sys.path.insert(0, str(Path(__file__).resolve().parent))

from scan_speed import build_case  # noqa: E402

from pipeline.cache import PageCache  # noqa: E402
from pipeline.case import load_case  # noqa: E402
from pipeline.records import PageRef  # noqa: E402
from pipeline.report import report_to_dict  # noqa: E402
from pipeline.run import check_case  # noqa: E402
from pipeline.scan.context import ReadContext  # noqa: E402


class CountingPool:
    """A process pool's `map` that counts the pages handed to it to read."""

    def __init__(self, pool: ProcessPoolExecutor) -> None:
        self.pool = pool
        self.pages = 0

    def __call__(self, fn, items):
        items = list(items)
        self.pages += sum(isinstance(i, PageRef) for i in items)
        return self.pool.map(fn, items)


def check(case_path: Path, out: Path, workers: int, cache: PageCache | None):
    """(wall seconds, pages read, report document without its timestamp)."""
    t0 = time.perf_counter()
    case = load_case(case_path)
    with ProcessPoolExecutor(workers) as pool:
        mapper = CountingPool(pool)
        context = ReadContext(crops_dir=out / "crops")
        report = check_case(
            case, mapper=mapper, context=context, keep_in=out, cache=cache, write=True
        )
    seconds = time.perf_counter() - t0
    doc = report_to_dict(report)
    doc.pop("generated_at")
    return seconds, mapper.pages, doc


def _without_crop_paths(doc: dict) -> dict:
    """Crops live in each run's own out folder: compare the reports without their paths."""
    text = repr(doc)
    for part in ("out-first", "out-again", "out-added", "out-plain"):
        text = text.replace(part, "out")
    return {"doc": text}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sheets", type=int, default=40)
    ap.add_argument("--added", type=int, default=2)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--keep", type=Path, default=None, help="keep the generated case here")
    args = ap.parse_args(argv)

    tmp = Path(tempfile.mkdtemp(prefix="recheck-"))
    root = args.keep or tmp
    try:
        t = time.perf_counter()
        case_path = build_case(root, args.sheets + args.added, args.seed, 300.0)
        print(
            f"scanned case: {args.sheets} sheets (+{args.added} added later), seed {args.seed}, "
            f"made in {time.perf_counter() - t:.0f} s; {args.workers} processes; "
            f"load {os.getloadavg()[0]:.2f}"
        )
        sheets = sorted((case_path.parent / "sheets").iterdir())
        aside = root / "later"
        aside.mkdir(exist_ok=True)
        for f in sheets[args.sheets :]:
            shutil.move(f, aside / f.name)
        cache = PageCache.in_folder(root / "cache")
        out = case_path.parent

        first_s, first_n, first = check(case_path, out / "out-first", args.workers, cache)
        again_s, again_n, again = check(case_path, out / "out-again", args.workers, cache)
        for f in sorted(aside.iterdir()):
            shutil.move(f, case_path.parent / "sheets" / f.name)
        added_s, added_n, added = check(case_path, out / "out-added", args.workers, cache)
        _, plain_n, plain = check(case_path, out / "out-plain", args.workers, None)

        print(f"  first check          {first_s:7.2f} s   pages read {first_n:3d}")
        print(f"  re-check, unchanged  {again_s:7.2f} s   pages read {again_n:3d}")
        print(
            f"  re-check, +{args.added} sheets   {added_s:7.2f} s   pages read {added_n:3d}   "
            f"(uncached check of the same case read {plain_n})"
        )
        speedup = first_s / again_s
        print(f"  speed-up of the unchanged re-check: {speedup:.1f}x (target 20x)")
        same = _without_crop_paths(again) == _without_crop_paths(first)
        same_added = _without_crop_paths(added) == _without_crop_paths(plain)
        print(
            f"  reports identical: re-check = first check {same}; "
            f"+{args.added} = uncached {same_added}"
        )
        ok = same and same_added and again_n == 0 and added_n == args.added and speedup >= 20
        return 0 if ok else 1
    finally:
        if args.keep is None:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
