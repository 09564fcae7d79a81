"""How long `petitions check` takes on the bundled case, each a fresh shell (a new process, a
fresh page cache, a fresh Prefect home): the default command with no Prefect server configured,
the default with one configured (a `prefect server start` this script starts), the plain
engine (`--engine local`), and the flow with no server (`--engine prefect`: Prefect starts a
temporary server for the run). Prints each wall time and its ratio to `--engine local`.

    .venv/bin/python bench/check_time.py [--runs 2] [--no-server]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from flows.server import local_server  # noqa: E402

CASE = REPO / "fixtures" / "demo"
PETITIONS = Path(sys.executable).with_name("petitions")


def run(args: list[str], tmp: Path, env: dict[str, str]) -> float:
    """One `petitions check` of a fresh copy of the case (so nothing is in its page cache)."""
    case = Path(tempfile.mkdtemp(dir=tmp)) / "case"
    shutil.copytree(CASE, case, ignore=shutil.ignore_patterns(".petitions-cache"))
    started = time.perf_counter()
    subprocess.run(
        [str(PETITIONS), "check", str(case / "case.toml"), "--out", str(case / "out"), *args],
        check=True,
        env=env,
        stdout=subprocess.DEVNULL,
    )
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--no-server", action="store_true", help="skip the runs with a server")
    parser.add_argument(
        "--temporary", action="store_true", help="also time --engine prefect with no server"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        base = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
        base |= {"PREFECT_HOME": str(tmp / "prefect-home"), "DO_NOT_TRACK": "1"}
        figures: dict[str, list[float]] = {}

        def timed(label: str, argv: list[str], env: dict[str, str]) -> None:
            figures[label] = [run(argv, tmp, env) for _ in range(args.runs)]

        print(f"petitions check fixtures/demo/case.toml, {args.runs} runs each, wall time of the")
        print(f"whole command in a fresh process; load {os.getloadavg()[0]:.2f} at the start")
        timed("--engine local", ["--engine", "local"], base)
        timed("default, no server configured", [], base)
        if args.temporary:
            timed("--engine prefect, no server", ["--engine", "prefect"], base)
        if not args.no_server:
            with local_server(log_path=tmp / "server.log") as api:
                served = {**base, "PREFECT_API_URL": api}
                timed("default, a server configured", [], served)
        local = statistics.median(figures["--engine local"])
        for label, times in figures.items():
            med = statistics.median(times)
            each = ", ".join(f"{t:.2f}" for t in times)
            print(f"  {label:<32} median {med:6.2f} s  ({each})  {med / local:5.2f}x local")
        print(f"load {os.getloadavg()[0]:.2f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
