"""How long `petitions check` takes on the bundled case, each a fresh shell (a new process, a
fresh page cache, a fresh Prefect home): the default command with no Prefect server configured,
the default with one configured (a `prefect server start` this script starts), the plain
engine (`--engine local`), and the flow with no server (`--engine prefect`: Prefect starts a
temporary server for the run). The configurations take turns, run by run (a machine's load
drifts: each figure sees the same), the server up throughout, after one run of each that is
not counted (it writes the modules' bytecode, as an installed program has it, and warms the
file cache). Prints each wall time, the command's CPU time, and their ratios to
`--engine local`.

    .venv/bin/python bench/check_time.py [--runs 2] [--no-server]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
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


def _cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def run(args: list[str], tmp: Path, env: dict[str, str]) -> tuple[float, float]:
    """One `petitions check` of a fresh copy of the case (so nothing is in its page cache):
    its wall time and its CPU time (the server's not counted)."""
    case = Path(tempfile.mkdtemp(dir=tmp)) / "case"
    shutil.copytree(CASE, case, ignore=shutil.ignore_patterns(".petitions-cache"))
    cpu, started = _cpu(), time.perf_counter()
    subprocess.run(
        [str(PETITIONS), "check", str(case / "case.toml"), "--out", str(case / "out"), *args],
        check=True,
        env=env,
        stdout=subprocess.DEVNULL,
    )
    return time.perf_counter() - started, _cpu() - cpu


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
        # a user's shell writes bytecode once; a shell that forbids it compiles every module anew
        # each run, the same for every configuration, which flattens their ratios
        dropped = ("PREFECT_API_URL", "PYTHONDONTWRITEBYTECODE")
        base = {k: v for k, v in os.environ.items() if k not in dropped}
        base |= {"PREFECT_HOME": str(tmp / "prefect-home"), "DO_NOT_TRACK": "1"}
        configs: dict[str, tuple[list[str], dict[str, str]]] = {
            "--engine local": (["--engine", "local"], base),
            "default, no server configured": ([], base),
        }
        if args.temporary:
            configs["--engine prefect, no server"] = (["--engine", "prefect"], base)
        figures: dict[str, list[tuple[float, float]]] = {label: [] for label in configs}
        print(f"petitions check fixtures/demo/case.toml, {args.runs} runs each in turn, wall")
        print("time of the whole command in a fresh process, and its CPU time")
        with contextlib.ExitStack() as stack:
            if not args.no_server:
                api = stack.enter_context(local_server(log_path=tmp / "server.log"))
                configs["default, a server configured"] = ([], {**base, "PREFECT_API_URL": api})
                figures["default, a server configured"] = []
            for argv, env in configs.values():
                run(argv, tmp, env)  # not counted
            print(f"load {os.getloadavg()[0]:.2f} at the start")
            for _ in range(args.runs):
                for label, (argv, env) in configs.items():
                    figures[label].append(run(argv, tmp, env))
        local = statistics.median(w for w, _ in figures["--engine local"])
        local_cpu = statistics.median(c for _, c in figures["--engine local"])
        for label, times in figures.items():
            med = statistics.median(w for w, _ in times)
            cpu = statistics.median(c for _, c in times)
            each = ", ".join(f"{w:.2f}" for w, _ in times)
            locals_ = figures["--engine local"]
            ratios = sorted(w / lw for (w, _), (lw, _) in zip(times, locals_, strict=True))
            print(
                f"  {label:<30} median {med:6.2f} s ({each})  {med / local:5.2f}x local"
                f" (run by run {ratios[0]:.2f}-{ratios[-1]:.2f}x);"
                f"  CPU {cpu:5.2f} s {cpu / local_cpu:5.2f}x"
            )
        print(f"load {os.getloadavg()[0]:.2f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
