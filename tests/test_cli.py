"""End to end through the CLI (plain-function engine; the Prefect flow has its own test)."""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest

from pipeline.cli import DEMO_CASE, main
from pipeline.errors import ExitCode


def truth(case_path: Path) -> dict:
    return json.loads((case_path.parent / "truth.json").read_text())["expected"]


def report(out: Path) -> dict:
    return json.loads((out / "report.json").read_text())


def test_demo_command_checks_the_bundled_case_to_its_ground_truth(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "d"
    assert main(["demo", "--engine", "local", "--out", str(out)]) == 0
    doc, want = report(out), truth(DEMO_CASE)
    assert doc["verdict"]["value"] == want["verdict"]
    for key in ("lines_read", "blank", "valid", "invalid", "needs_review", "required"):
        assert doc["totals"][key] == want[key], key
    assert (out / "lines.csv").is_file() and (out / "report.html").is_file()
    assert "verdict: " in capsys.readouterr().out
    assert gc.isenabled()  # only the program itself pauses its collector (cli._freeze_imports)


def test_a_file_that_is_not_a_pdf_is_reported_and_the_batch_goes_on(demo_case, tmp_path, capsys):
    sheets = demo_case.parent / "sheets"
    (sheets / "sheet-00-scanner-log.pdf").write_text("this is not a PDF\n")
    out = tmp_path / "out"
    code = main(["check", str(demo_case), "--out", str(out), "--engine", "local"])
    assert code == ExitCode.PARTIAL
    err = capsys.readouterr().err
    assert "sheet-00-scanner-log.pdf" in err and "not a readable PDF" in err
    doc = report(out)
    assert [e["path"].endswith("sheet-00-scanner-log.pdf") for e in doc["file_errors"]] == [True]
    assert doc["totals"]["lines_read"] == truth(demo_case)["lines_read"]


def test_missing_register(demo_case, tmp_path, capsys):
    (demo_case.parent / "register.csv").unlink()
    code = main(["check", str(demo_case), "--out", str(tmp_path / "o"), "--engine", "local"])
    assert code == ExitCode.INPUT_MISSING
    assert "register.csv: the register file does not exist" in capsys.readouterr().err


def test_register_that_is_not_a_register(demo_case, tmp_path, capsys):
    (demo_case.parent / "register.csv").write_bytes(b"%PDF-1.4\x00\xff\xfe binary")
    code = main(["check", str(demo_case), "--out", str(tmp_path / "o"), "--engine", "local"])
    assert code == ExitCode.UNREADABLE_INPUT
    assert "register.csv" in capsys.readouterr().err


def test_bad_case_file(tmp_path, capsys):
    bad = tmp_path / "case.toml"
    bad.write_text('name = "x"\nkind = "recall"\n')
    assert main(["check", str(bad), "--out", str(tmp_path / "o")]) == ExitCode.CASE_FILE
    err = capsys.readouterr().err
    assert "kind" in err and "municipality" in err and "problem(s)" in err


def test_bad_command_line(capsys):
    with pytest.raises(SystemExit) as info:
        main(["check"])
    assert info.value.code == ExitCode.USAGE


def test_decisions_are_applied(demo_case, tmp_path):
    out = tmp_path / "first"
    main(["check", str(demo_case), "--out", str(out), "--engine", "local"])
    doc = report(out)
    target = next(line for line in doc["lines"] if line["status"] == "invalid")
    log = tmp_path / "decisions.jsonl"
    log.write_text(
        json.dumps(
            {
                "line_id": target["line_id"],
                "action": "accept",
                "reviewer": "test",
                "decided_at": "2026-10-12T14:03:00+00:00",
            }
        )
        + "\n"
    )
    out2 = tmp_path / "second"
    main(
        ["check", str(demo_case), "--out", str(out2), "--engine", "local", "--decisions", str(log)]
    )
    doc2 = report(out2)
    line2 = next(line for line in doc2["lines"] if line["line_id"] == target["line_id"])
    assert line2["status"] == "valid" and line2["decision"]["reviewer"] == "test"
    assert doc2["totals"]["valid"] >= doc["totals"]["valid"]


def test_malformed_decisions_stop_the_run(demo_case, tmp_path, capsys):
    log = tmp_path / "decisions.jsonl"
    log.write_text(
        '{"line_id": "x", "action": "maybe", "reviewer": "t", '
        '"decided_at": "2026-10-12T14:03:00+00:00"}\n'
    )
    code = main(
        [
            "check",
            str(demo_case),
            "--out",
            str(tmp_path / "o"),
            "--engine",
            "local",
            "--decisions",
            str(log),
        ]
    )
    assert code == ExitCode.UNREADABLE_INPUT
    assert "decisions.jsonl line 1" in capsys.readouterr().err


@pytest.mark.slow
def test_pages_in_several_processes_give_the_same_report(demo_case, tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    assert main(["check", str(demo_case), "--out", str(one), "--engine", "local"]) == 0
    assert (
        main(["check", str(demo_case), "--out", str(two), "--engine", "local", "--jobs", "2"]) == 0
    )
    a, b = report(one), report(two)
    assert a["totals"] == b["totals"] and a["verdict"] == b["verdict"]
    assert [ln["status"] for ln in a["lines"]] == [ln["status"] for ln in b["lines"]]


def test_a_worker_interrupted_before_its_initializer_ends_quietly_and_says_so(capfd) -> None:
    # Ctrl-C can reach a pool worker between its fork and its initializer (under load): it
    # had Python's own handler then, printed its KeyboardInterrupt's traceback, and the
    # check read the broken pool as an internal error (exit 70, not 130). The check's own
    # handler, which a forked worker has from birth, ends a worker quietly and says so; in
    # the check's process it is Python's own.
    import multiprocessing
    import os
    import signal

    from pipeline.cli import _interrupt_handler

    interrupted = multiprocessing.RawValue("b", 0)
    handler = _interrupt_handler(interrupted, os.getpid())
    previous = signal.signal(signal.SIGINT, handler)
    try:
        worker = multiprocessing.get_context("fork").Process(
            target=lambda: os.kill(os.getpid(), signal.SIGINT)  # before any initializer
        )
        worker.start()
        worker.join(30)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert worker.exitcode == -signal.SIGINT and interrupted.value == 1
    assert "Traceback" not in capfd.readouterr().err
    with pytest.raises(KeyboardInterrupt):
        handler(signal.SIGINT, None)
