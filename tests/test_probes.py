"""The bad-input corpus (tests/probes.py) and the faults around a run.

Fast: each class met at the function that refuses it, the command line's handler (exit 70 with
one line and a log file, Ctrl-C 130, the report folder's errors and lock), atomic and escaped
report writing, and one whole batch of bad sheets in one check. Slow (`-m slow`): every probe as
a subprocess with bounded time and memory, the heavy ones included, and kill -9 mid-check.
All inputs are synthetic (the bundled fixtures, changed).
"""

from __future__ import annotations

import csv
import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from pipeline import cli
from pipeline.errors import ExitCode, OutputBusyError, OutputError
from pipeline.ingest import discover
from pipeline.report import locked_out_dir, write_report
from pipeline.run import ingest_one
from tests import probes
from tests.factories import sample_report

# -- each class where it is refused ----------------------------------------------------------


@pytest.mark.parametrize(
    "name,problem",
    [
        ("fifo", "FIFO"),
        ("decompression-bomb", "too many pixels"),
        ("one-pixel-image", "too small"),
        ("12000-pixels-wide", "over the limit"),
        ("69-inch-page", "inches"),
        ("password-pdf", "password-protected"),
        ("not-a-pdf", "not a readable PDF"),
        ("cyclic-page-tree", "not a readable PDF"),
    ],
)
def test_a_bad_sheet_is_one_clear_file_error(tmp_path, name, problem):
    (probe,) = [p for p in probes.PROBES if p.name == name]
    probe.build(tmp_path)
    bad = (
        tmp_path
        / "case"
        / "sheets"
        / next(n for n in os.listdir(tmp_path / "case" / "sheets") if n.startswith("sheet-99"))
    )
    files, errors = discover([bad])
    results = [ingest_one(f) for f in files]
    (error,) = errors + [r for r in results if not isinstance(r, list)]
    assert str(bad) in error.problem and problem in error.problem


def test_a_device_named_as_a_sheet_is_refused_unopened():
    files, errors = discover([Path("/dev/zero")])
    assert files == [] and "a device" in errors[0].problem


# -- the command line: handler, exit codes, report folder -----------------------------------


def _check(case: Path, out: Path) -> int:
    return cli.main(["check", str(case), "--out", str(out), "--engine", "local"])


def test_an_unexpected_exception_is_exit_70_with_one_line_and_a_log(
    demo_case, tmp_path, capsys, monkeypatch
):
    def bug(path):
        raise ZeroDivisionError("a bug\nwith a second line")

    monkeypatch.setattr("pipeline.case.load_case", bug)
    assert _check(demo_case, tmp_path / "out") == ExitCode.INTERNAL
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "while reading the case file" in err and str(demo_case) in err
    (log,) = (tmp_path / "out").glob("petitions-error-*.log")
    assert "ZeroDivisionError" in log.read_text() and "Traceback" in log.read_text()


def test_ctrl_c_is_exit_130_quietly(demo_case, tmp_path, capsys, monkeypatch):
    def interrupted(path):
        raise KeyboardInterrupt

    monkeypatch.setattr("pipeline.case.load_case", interrupted)
    assert _check(demo_case, tmp_path / "out") == ExitCode.INTERRUPTED
    assert capsys.readouterr().err.strip() == "petitions: interrupted"


def test_out_that_is_a_file_is_exit_73(demo_case, tmp_path, capsys):
    (tmp_path / "out").write_text("a file")
    assert _check(demo_case, tmp_path / "out") == ExitCode.OUTPUT
    assert "names a file" in capsys.readouterr().err


def test_a_second_check_into_the_same_folder_is_refused(demo_case, tmp_path, capsys):
    with locked_out_dir(tmp_path / "out"):
        assert _check(demo_case, tmp_path / "out") == ExitCode.BUSY
        with (
            pytest.raises(OutputBusyError, match=f"process {os.getpid()}"),
            locked_out_dir(tmp_path / "out"),
        ):
            pass
    assert "another `petitions check`" in capsys.readouterr().err


def test_a_full_disk_leaves_the_previous_report_whole(tmp_path, monkeypatch):
    out = tmp_path / "out"
    write_report(sample_report(), out)
    before = (out / "report.json").read_bytes()

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("pipeline.report._write_objections", full)
    with pytest.raises(OutputError, match="the disk is full"):
        write_report(sample_report(), out)
    assert (out / "report.json").read_bytes() == before
    assert not list(out.glob(".report-*"))


def test_every_csv_text_cell_and_html_value_is_escaped(tmp_path):
    report = sample_report()
    hostile = '=HYPERLINK("http://example.invalid","x")<script>'
    lines = tuple(replace(j, voter_id=hostile) if j.voter_id else j for j in report.lines)
    write_report(replace(report, lines=lines), tmp_path)
    with (tmp_path / "lines.csv").open(encoding="utf-8", newline="") as f:
        cells = [c for row in csv.reader(f) for c in row]
    assert "'" + hostile in cells and hostile not in cells
    assert "<script>" not in (tmp_path / "report.html").read_text(encoding="utf-8")


# -- one whole batch of bad sheets ------------------------------------------------------------


def test_a_batch_of_bad_sheets_each_said_once_and_every_line_judged(tmp_path, capsys):
    case = probes._copy(probes.DEMO, tmp_path)
    sheets = case / "sheets"
    os.mkfifo(sheets / "sheet-90.pdf")
    (sheets / "sheet-91.png").write_bytes(probes._png(60_000, 60_000))
    (sheets / "sheet-92.png").write_bytes(probes._png(1, 1))
    probes._pdf(sheets / "sheet-93.pdf", encrypt="secret")
    (sheets / os.fsdecode(b"sheet-94-\xff.pdf")).write_bytes(b"junk")
    out = tmp_path / "out"
    assert _check(case / "case.toml", out) == ExitCode.PARTIAL
    err = capsys.readouterr().err
    for n in ("sheet-90.pdf", "sheet-91.png", "sheet-92.png", "sheet-93.pdf", "sheet-94-"):
        assert sum(n in line for line in err.splitlines()) == 1, (n, err)
    assert "Traceback" not in err
    doc = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert doc["totals"]["lines_read"] == len(doc["lines"]) == probes.DEMO_LINES
    assert len(doc["file_errors"]) == 5


# -- every probe, as a user meets it (slow) -------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("probe", probes.PROBES, ids=lambda p: p.name)
def test_probe(probe, tmp_path):
    result = probes.run_probe(probe, tmp_path)
    assert probes.problems(probe, result) == [], result.stderr


def _tree(pid: int) -> set[int]:
    """`pid` and its descendants, from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(ppid, []).append(int(entry))
    found, todo = set(), [pid]
    while todo:
        p = todo.pop()
        found.add(p)
        todo += children.get(p, [])
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.slow
def test_kill_9_mid_check_leaves_no_worker_and_the_rerun_is_the_same_report(tmp_path):
    """Scanned pages in 2 processes; the check is killed with SIGKILL while they read."""
    case = probes._copy(probes.REPO / "fixtures" / "corpus-sample" / "case-000", tmp_path)
    toml = case / "clean-scan" / "case.toml"
    argv = [sys.executable, "-m", "pipeline.cli", "check", str(toml), "--engine", "local"]
    proc = subprocess.Popen(
        [*argv, "--jobs", "2", "--out", str(tmp_path / "killed")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    workers: set[int] = set()
    while time.monotonic() < deadline and len(workers) < 2:
        workers = _tree(proc.pid) - {proc.pid}
        time.sleep(0.2)
    assert workers, "the pool never started"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    time.sleep(2)
    assert not [w for w in workers if _alive(w)], "pool workers outlived the killed check"
    # the re-run goes into the killed run's folder (its lock died with it)
    docs = []
    for out in ("killed", "whole"):
        done = subprocess.run([*argv, "--out", str(tmp_path / out)], capture_output=True)
        assert done.returncode in (0, 5), done.stderr
        text = (tmp_path / out / "report.json").read_text(encoding="utf-8")
        doc = json.loads(text.replace(str(tmp_path / out), "OUT"))
        doc.pop("generated_at", None)
        docs.append(doc)
    assert docs[0] == docs[1]
    shutil.rmtree(tmp_path / "killed", ignore_errors=True)


def test_files_past_the_case_page_limit_are_reported_not_read(tmp_path):
    from pipeline.case import LimitsConfig
    from pipeline.records import PageKind, PageRef
    from pipeline.run import collect_pages

    def refs(name: str, n: int) -> list[PageRef]:
        return [
            PageRef(name, i, f"{name}{i}".ljust(64, "0"), PageKind.IMAGE, 612, 792)
            for i in range(n)
        ]

    results = [
        (Path("a.tif"), refs("a", 3)),
        (Path("b.tif"), refs("b", 3)),
        (Path("c.tif"), refs("c", 1)),
    ]
    pages, errors = collect_pages(results, LimitsConfig(pages_per_case=4))
    assert [p.path for p in pages] == ["a", "a", "a", "c"]
    assert "pages_per_case" in errors[0].problem and errors[0].path == "b.tif"


@pytest.mark.slow
def test_ctrl_c_mid_check_is_130_without_a_traceback(tmp_path):
    case = probes._copy(probes.REPO / "fixtures" / "corpus-sample" / "case-000", tmp_path)
    argv = [sys.executable, "-m", "pipeline.cli", "check", str(case / "clean-scan" / "case.toml")]
    proc = subprocess.Popen(
        [*argv, "--engine", "local", "--jobs", "2", "--out", str(tmp_path / "out")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # the terminal's Ctrl-C: SIGINT to the whole group
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(_tree(proc.pid)) < 3:
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == ExitCode.INTERRUPTED, err
    assert b"Traceback" not in err and err.strip() == b"petitions: interrupted"
