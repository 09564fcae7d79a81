"""The flow on a Dask LocalCluster of 2 workers against 1, on the scan benchmark's sheets
(`bench/scan_speed.py`'s synthetic scanned case: invented village, voters and signers, under
eight degradations). Pages are read across the workers; the register is matched once.

A Prefect server is started for the runs (or the configured one, `PREFECT_API_URL`, is used).
The page cache is off: every run reads every page. Prints each run's wall time (the cluster's
start included, and without it: the flow's time from its first task) and the speed-up; the two
reports must agree.

    OMP_THREAD_LIMIT=1 .venv/bin/python bench/dask_speed.py [--sheets 16] [--workers 2]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_THREAD_LIMIT", "1")
os.environ.setdefault("OPENCV_FOR_THREADS_NUM", "1")

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from flows.server import configured_api_url, local_server  # noqa: E402


def one_run(case_path: Path, out: Path, workers: int) -> tuple[float, dict]:
    from flows.check import check_petition
    from flows.runners import dask_runner
    from pipeline.report import report_to_dict

    flow = check_petition.with_options(task_runner=dask_runner(workers=workers))
    t = time.perf_counter()
    report = flow(str(case_path), str(out), None, False)
    seconds = time.perf_counter() - t
    doc = report_to_dict(report)
    doc.pop("generated_at")
    return seconds, doc


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sheets", type=int, default=16)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=6)
    args = ap.parse_args(argv)
    from scan_speed import build_case

    tmp = Path(tempfile.mkdtemp(prefix="dask-speed-"))
    try:
        case_path = build_case(tmp, args.sheets, args.seed, 300.0)
        with contextlib.ExitStack() as stack:
            api = configured_api_url() or stack.enter_context(
                local_server(log_path=tmp / "server.log")
            )
            os.environ["PREFECT_API_URL"] = api
            os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
            print(
                f"{args.sheets} scanned sheets (seed {args.seed}); Prefect API {api}; "
                f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}"
            )
            one_s, one = one_run(case_path, tmp / "out-1", 1)
            many_s, many = one_run(case_path, tmp / "out-n", args.workers)
        same = repr(one).replace("out-1", "out") == repr(many).replace("out-n", "out")
        print(f"  1 worker            {one_s:7.2f} s  ({args.sheets / one_s * 60:5.1f} sheets/min)")
        print(
            f"  {args.workers} workers           {many_s:7.2f} s  "
            f"({args.sheets / many_s * 60:5.1f} sheets/min)"
        )
        print(
            f"  speed-up {one_s / many_s:.2f}x on {args.workers} workers; reports identical: {same}"
        )
        print(f"  load {os.getloadavg()[0]:.2f} at the end")
        return 0 if same else 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
