"""How long `petitions check` takes on the bundled case: the Prefect flow (first run in a fresh
Prefect home, then a second) and the plain-function engine. Prints its figures.

    .venv/bin/python bench/check_time.py [--runs 2]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CASE = REPO / "fixtures" / "demo" / "case.toml"
PETITIONS = Path(sys.executable).with_name("petitions")


def run(engine: str, out: Path, env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(
        [str(PETITIONS), "check", str(CASE), "--out", str(out), "--engine", engine],
        check=True,
        env=env,
        stdout=subprocess.DEVNULL,
    )
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PREFECT_HOME": str(Path(tmp) / "prefect-home")}
        print(f"petitions check {CASE.relative_to(REPO)} (wall time of the whole command)")
        for engine in ("prefect", "local"):
            for i in range(args.runs):
                seconds = run(engine, Path(tmp) / f"out-{engine}-{i}", env)
                label = (
                    "first run, fresh Prefect home"
                    if engine == "prefect" and i == 0
                    else (f"run {i + 1}")
                )
                print(f"  engine={engine:<8} {label:<32} {seconds:6.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
