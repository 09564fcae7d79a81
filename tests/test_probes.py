"""The bad-input corpus (tests/probes.py) and the faults around a run.

Fast: each class met at the function that refuses it, the command line's handler (exit 70 with
one line and a log file, Ctrl-C 130, the report folder's errors and lock), atomic and escaped
report writing, and one whole batch of bad sheets in one check. Slow (`-m slow`): every probe as
a subprocess with bounded time and memory, the heavy ones included, and kill -9 mid-check.
All inputs are synthetic (the bundled fixtures, changed).
"""

from __future__ import annotations

import contextlib
import csv
import errno
import json
import os
import re
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
@pytest.mark.parametrize("whom", ["group", "workers"])
def test_ctrl_c_mid_check_is_130_without_a_traceback(tmp_path, whom):
    """The terminal's Ctrl-C: SIGINT to the whole group. The pool may break before the
    check's own process raises KeyboardInterrupt; at the extreme the signal reaches only the
    workers, and the run is still interrupted, not an internal error."""
    case = probes._copy(probes.REPO / "fixtures" / "corpus-sample" / "case-000", tmp_path)
    argv = [sys.executable, "-m", "pipeline.cli", "check", str(case / "clean-scan" / "case.toml")]
    proc = subprocess.Popen(
        [*argv, "--engine", "local", "--jobs", "2", "--out", str(tmp_path / "out")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(_tree(proc.pid)) < 3:
        time.sleep(0.2)
    if whom == "group":
        os.killpg(proc.pid, signal.SIGINT)
    else:
        for pid in _tree(proc.pid) - {proc.pid}:
            with contextlib.suppress(ProcessLookupError):  # a child that ended meanwhile
                os.kill(pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == ExitCode.INTERRUPTED, err
    assert b"Traceback" not in err and err.strip() == b"petitions: interrupted"


# -- a register imported into DuckDB (64 MB and more) keeps the stream's guarantees ----------


def _register_probe(name: str) -> probes.Probe:
    (probe,) = [p for p in probes.PROBES if p.name == name]
    return probe


@pytest.mark.parametrize(
    "name",
    ["register-twice", "register-unterminated-quote", "register-quote-takes-the-rest",
     "register-conflicting-id", "register-header-repeated", "register-latin-1"],
)  # fmt: skip
def test_duckdb_reads_a_register_as_the_stream_does(tmp_path, name):
    from pipeline.case import load_case
    from pipeline.run import load_register

    got = {}
    for path in ("memory", "duckdb"):
        argv = _register_probe(name if path == "memory" else f"{name}-duckdb").build(
            tmp_path / path
        )
        data = load_register(load_case(Path(argv[1])))
        doubt = data.doubt
        got[path] = (
            data.electors,
            sorted((f.code, f.evidence.get("count"), f.evidence.get("ids")) for f in data.findings),
            (doubt.unread_rows, doubt.denominator_rows, doubt.conflicting_ids),
        )
    assert got["duckdb"] == got["memory"]


@pytest.mark.parametrize("name", ["register-mostly-junk", "register-one-long-line"])
def test_duckdb_refuses_what_the_stream_refuses(tmp_path, name):
    from pipeline.case import load_case
    from pipeline.errors import UnreadableInputError
    from pipeline.run import load_register

    said = []
    for path in ("memory", "duckdb"):
        argv = _register_probe(name if path == "memory" else f"{name}-duckdb").build(
            tmp_path / path
        )
        with pytest.raises(UnreadableInputError) as err:
            load_register(load_case(Path(argv[1])))
        said.append(str(err.value).replace(str(tmp_path / path), "DIR"))
    # the same line, but for the words of the first bad row's problem

    def gist(text: str) -> str:
        return re.sub(r"\(row (\d+): .*\): not a ", r"(row \1: ...): not a ", text)

    assert gist(said[0]) == gist(said[1])


# -- a careless clerk's inputs, each where it is met ------------------------------------------


def test_a_folder_among_the_sheets_is_said_and_a_link_loop_is_not_followed(tmp_path):
    probes._copy(probes.DEMO, tmp_path)
    probes._subfolder(tmp_path / "case")
    files, errors = discover([tmp_path / "case" / "sheets"])
    assert [Path(f).name for f in files] == [
        "sheet-01.pdf", "sheet-02.pdf", "sheet-03.pdf", "sheet-05-06.pdf"
    ]  # fmt: skip
    assert sorted(Path(e.path).name for e in errors) == ["again", "batch 2"]
    assert all("its files are not read" in e.problem for e in errors)


def test_a_page_turned_by_its_rotate_is_read_as_drawn(tmp_path):
    from pipeline.ingest import read_page

    probes._copy(probes.DEMO, tmp_path)
    upright = read_page(ingest_one(tmp_path / "case" / "sheets" / "sheet-01.pdf")[0])
    probes._rotated_sheet(tmp_path / "case")
    turned = read_page(ingest_one(tmp_path / "case" / "sheets" / "sheet-01.pdf")[0])
    assert len(turned.lines) == len(upright.lines) == 10
    assert [ln.text("name") for ln in turned.lines] == [ln.text("name") for ln in upright.lines]


def test_decisions_that_disagree_at_the_same_moment_are_none_applied():
    import datetime as dt

    from pipeline.judge import latest_decisions
    from pipeline.records import ReviewAction, ReviewDecision

    at = dt.datetime(2026, 10, 12, 14, 6, tzinfo=dt.UTC)

    def d(action: str, who: str, minutes: int = 0) -> ReviewDecision:
        return ReviewDecision("p-01", ReviewAction(action), who, at + dt.timedelta(minutes=minutes))

    (same,) = latest_decisions([d("accept", "a"), d("accept", "b")]).values()
    assert same.action is ReviewAction.ACCEPT and not same.conflict
    (tied,) = latest_decisions([d("accept", "a"), d("reject", "b"), d("accept", "a")]).values()
    assert tied.conflict == ("a", "b") and tied.action is ReviewAction.CORRECT
    (later,) = latest_decisions([d("accept", "a"), d("reject", "b"), d("reject", "c", 1)]).values()
    assert later.action is ReviewAction.REJECT and not later.conflict


@pytest.mark.parametrize("kept", [10_000, 100])
def test_the_duckdb_import_stops_on_junk_after_the_start_too(tmp_path, monkeypatch, kept):
    """Past the stream's look at the first lines: the import's own junk stop, with DuckDB's bad
    records kept (their rows and reasons) or, past `_REJECTS` of them, counted only."""
    import matchers.store as store
    from matchers.register import JunkFileError
    from pipeline.case import load_case

    monkeypatch.setattr(store, "stop_on_junk_at_the_start", lambda *a, **k: None)
    monkeypatch.setattr(store, "_REJECTS", kept)
    case_dir = probes._copy(probes.DEMO, tmp_path)
    probes._write_register(case_dir, probes._register_lines(case_dir) + ["junk,junk\n"] * 1200)
    case = load_case(case_dir / "case.toml")
    with pytest.raises(JunkFileError, match="1,000 of the first 1,166 rows"):
        store.open_store(case.register_file, tmp_path / "cache")
