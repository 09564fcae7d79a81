"""kill -9 during a check, then the same check again: the report is identical to an
uninterrupted run's, and the pages the killed run finished are not read again. On the bundled
synthetic case's sheets scanned (synth.degrade: no real person). Slow (OCR of a
dozen pages in subprocesses): CI runs it in its own step (`-m ops`)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.ops, pytest.mark.tesseract]

REPO = Path(__file__).resolve().parents[1]
PETITIONS = Path(sys.executable).with_name("petitions")


def _check(case: Path, out: Path, *extra: str) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_API")}
    return subprocess.Popen(
        [str(PETITIONS), "-v", "check", str(case), "--out", str(out), "--engine", "local", *extra],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def _doc(out: Path) -> str:
    doc = json.loads((out / "report.json").read_text())
    doc.pop("generated_at")
    return json.dumps(doc, sort_keys=True).replace(str(out), "OUT")


def test_a_killed_check_is_finished_by_the_next_without_reading_its_pages_again(tmp_path):
    from pipeline.cache import PageCache
    from pipeline.case import load_case
    from synth.degrade import Degrade, write_scan_case

    case = write_scan_case(REPO / "fixtures" / "demo", tmp_path / "scan", specs=(Degrade(),))
    pages = 6
    cache = PageCache.in_folder(load_case(case).matching.cache)

    killed = _check(case, tmp_path / "out")
    deadline = time.monotonic() + 120
    while cache.count() < 2 and time.monotonic() < deadline and killed.poll() is None:
        time.sleep(0.05)
    killed.send_signal(signal.SIGKILL)
    killed.wait()
    finished = cache.count()
    assert 2 <= finished < pages, "the check must be killed after some pages, before the last"
    assert not (tmp_path / "out" / "report.json").exists()

    again = _check(case, tmp_path / "out")
    _, err = again.communicate(timeout=300)
    assert again.returncode == 0, err
    read = re.search(r"pages: (\d+) read, (\d+) from the cache", err)
    assert read, err
    assert (int(read[1]), int(read[2])) == (pages - finished, finished)

    plain = _check(case, tmp_path / "plain", "--no-cache")
    _, err = plain.communicate(timeout=300)
    assert plain.returncode == 0, err
    assert _doc(tmp_path / "out") == _doc(tmp_path / "plain")
    crops = sorted(p.name for p in (tmp_path / "out" / "crops").iterdir())
    assert crops == sorted(p.name for p in (tmp_path / "plain" / "crops").iterdir())
