"""The review dashboard's speed on a case of 5,000 lines with 1,000 in review (synthetic).

    .venv/bin/python bench/dashboard.py [--sheets 500] [--review 0.2] [--seed 2] [--rounds 200]
                                        [--store postgresql://USER@HOST/DB]

Builds the case's judging inputs from records (the bundled demo's case file, one of its
valid lines and the voter it matched, cloned onto 500 sheets of 10 lines with invented ids;
`--seed` picks which lines wait for review and which are dated after the filing), serves the
dashboard under uvicorn in a subprocess pinned to one core (`taskset -c 0`), and drives it
with httpx like a browser: login, then the queue page, then decisions (accept or reject,
each a POST answered by a redirect to the next line's page, followed). Prints p50/p95 for
the queue page and the decision's round trip (decision stored, report judged again, page
sent), beside the same re-judging measured in this process (the peer) and writing the
full report files once (what a decision does not do). `--store`: the audit store in that
PostgreSQL database instead of the report folder's SQLite file.

Seeds: 1 was used while developing; 2 (the default) is held out.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import os
import random
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from pipeline import run  # noqa: E402
from pipeline.case import load_case  # noqa: E402
from pipeline.judging import JudgingInputs, judge_inputs, matched_on, save_judging  # noqa: E402
from pipeline.records import (  # noqa: E402
    Candidate,
    Field,
    LineStatus,
    Match,
    MatchDecision,
    Source,
)
from pipeline.report import write_report  # noqa: E402

PASSWORD = "bench password 1"


def build(folder: Path, sheets: int, review_share: float, seed: int) -> JudgingInputs:
    """The judging inputs of a synthetic case of `sheets` x 10 lines."""
    demo = REPO / "fixtures" / "demo" / "case.toml"
    template = run.check_case(load_case(demo), keep_in=folder / "demo")
    rng = random.Random(seed)
    valid = next(j for j in template.lines if j.status is LineStatus.VALID and j.voter_id)
    base_sheet = next(s for s in template.sheets if s.page.page_id == valid.line.page_id)
    from pipeline.judging import load_judging

    demo_inputs = load_judging(folder / "demo")
    entry = demo_inputs.entries[valid.voter_id]
    out_sheets, matches, keys, entries = [], {}, {}, {}
    total = sheets * 10
    in_review = set(rng.sample(range(total), round(total * review_share)))
    late = set(rng.sample(sorted(set(range(total)) - in_review), total // 50))
    for s in range(sheets):
        page_hash = hashlib.sha256(f"bench-{seed}-{s}".encode()).hexdigest()
        page = dataclasses.replace(base_sheet.page, content_hash=page_hash)
        lines = []
        for n in range(1, 11):
            line = dataclasses.replace(valid.line, page_id=page.page_id, line_no=n)
            if s * 10 + n - 1 in late:  # dated after the filing: invalid
                line = line.replace_field(Field("date", "12/31/2026", 1.0, Source.TEXT_LAYER))
            vid = f"BENCH{seed}{s:05d}{n:02d}"
            other = f"BENCH{seed}{s:05d}{n:02d}X"
            entries[vid] = dataclasses.replace(entry, voter_id=vid)
            entries[other] = dataclasses.replace(entry, voter_id=other, first_name="OTHER")
            cands = (Candidate(vid, 92.0, (), entry.display), Candidate(other, 88.0, (), "OTHER"))
            if s * 10 + n - 1 in in_review:
                m = Match(line.line_id, MatchDecision.REVIEW, None, cands, "bench", "close")
            else:
                m = Match(line.line_id, MatchDecision.MATCH, vid, cands[:1], "bench", "clear")
            matches[line.line_id] = m
            keys[line.line_id] = matched_on(line)
            lines.append(line)
        number = Field("sheet_number", str(s + 1), 1.0, Source.TEXT_LAYER)
        witness = base_sheet.witness
        if witness is not None:
            count = Field("stated_count", "10", 1.0, Source.TEXT_LAYER)
            witness = dataclasses.replace(witness, stated_count=count)
        out_sheets.append(
            dataclasses.replace(
                base_sheet, page=page, lines=tuple(lines), sheet_number=number, witness=witness
            )
        )
    case = demo_inputs.case
    electors = int(total * 0.9) * 5  # 90% of the lines required: the review decides it
    return dataclasses.replace(
        demo_inputs,
        case=case,
        sheets=tuple(out_sheets),
        matches=matches,
        matched_on=keys,
        entries=entries,
        electors=electors,
        petition_findings=(),
    )


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] * 1000


def serve(root: str, port: int, store_url: str | None) -> None:
    import uvicorn

    from dashboard.accounts import Accounts
    from dashboard.app import create_app

    users = Path(root) / "users.sqlite"
    app = create_app(
        Path(root) / "case", Accounts(users), secret="bench-secret" * 3, store_url=store_url
    )
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sheets", type=int, default=500)
    ap.add_argument("--review", type=float, default=0.2)
    ap.add_argument("--seed", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--store", metavar="URL", help="the audit store (default: SQLite)")
    ap.add_argument("--serve", nargs=2, metavar=("ROOT", "PORT"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve:
        serve(args.serve[0], int(args.serve[1]), args.store)
        return

    import httpx

    from dashboard.accounts import Accounts, Role

    tmp = Path(tempfile.mkdtemp(prefix="bench-dashboard-"))
    try:
        inputs = build(tmp, args.sheets, args.review, args.seed)
        save_judging(inputs, tmp / "case")
        Accounts(tmp / "users.sqlite").add("bench", Role.REVIEWER, PASSWORD)
        rules = run.rules_for(inputs.case)

        started = time.perf_counter()
        report = judge_inputs(inputs, [], rules)
        rejudge = [time.perf_counter() - started]
        for _ in range(9):
            started = time.perf_counter()
            judge_inputs(inputs, [], rules)
            rejudge.append(time.perf_counter() - started)
        started = time.perf_counter()
        write_report(report, tmp / "written")
        written = time.perf_counter() - started
        t = report.totals
        print(
            f"case: {t.lines_read} lines, {t.needs_review} in review, {t.valid} valid, "
            f"{t.invalid} invalid, {t.required} required; verdict {report.verdict}; seed "
            f"{args.seed} ({'development' if args.seed == 1 else 'held out'})"
        )

        port = _port()
        pin = ["taskset", "-c", "0"] if shutil.which("taskset") else []
        env = dict(os.environ, PYTHONPATH=str(REPO))
        server = subprocess.Popen(
            [*pin, sys.executable, __file__, "--serve", str(tmp), str(port)]
            + (["--store", args.store] if args.store else []),
            env=env,
        )
        try:
            url = f"http://127.0.0.1:{port}"
            with httpx.Client(base_url=url, timeout=30) as client:
                for _ in range(200):
                    try:
                        client.get("/login")
                        break
                    except httpx.TransportError:
                        time.sleep(0.1)
                html = client.get("/login").text
                token = re.search(r'name="csrf" value="([^"]+)"', html).group(1)
                r = client.post(
                    "/login",
                    data={"name": "bench", "password": PASSWORD, "csrf": token},
                    follow_redirects=True,
                )
                token = re.search(r'name="csrf" value="([^"]+)"', r.text).group(1)
                case_id = "case"
                queue_times = []
                for i in range(max(20, args.rounds // 4) + 3):
                    started = time.perf_counter()
                    r = client.get(f"/c/{case_id}/queue")
                    if i >= 3:
                        queue_times.append(time.perf_counter() - started)
                    assert r.status_code == 200 and r.text.count('class="qrow"') > 0
                ids = re.findall(r'data-href="/c/case/line/([0-9a-f]+-\d+)"', r.text)
                decide_times = []
                for i, line_id in enumerate(ids[: args.rounds]):
                    data = {"action": "accept", "csrf": token}
                    if i % 2:
                        data = {"action": "reject", "reason": "line is illegible", "csrf": token}
                    started = time.perf_counter()
                    r = client.post(
                        f"/c/{case_id}/line/{line_id}/decide", data=data, follow_redirects=True
                    )
                    decide_times.append(time.perf_counter() - started)
                    assert r.status_code == 200 and "/line/" in str(r.url), r.status_code
        finally:
            server.terminate()
            server.wait(10)

        print(
            f"load: {os.getloadavg()[0]:.2f} (1-minute average), server on one core: "
            f"{bool(pin)}, audit store: {'PostgreSQL' if args.store else 'SQLite'}"
        )
        print(
            f"queue page ({t.needs_review} lines): p50 {_pct(queue_times, 50):.0f} ms, "
            f"p95 {_pct(queue_times, 95):.0f} ms over {len(queue_times)} requests "
            f"(target p95 <= 150 ms)"
        )
        print(
            f"decision round trip (POST, re-judge, next line's page): p50 "
            f"{_pct(decide_times, 50):.0f} ms, p95 {_pct(decide_times, 95):.0f} ms over "
            f"{len(decide_times)} decisions (target p95 <= 150 ms)"
        )
        print(
            f"peer, in this process: re-judging {t.lines_read} lines p50 "
            f"{statistics.median(rejudge) * 1000:.0f} ms; writing the report files once "
            f"{written * 1000:.0f} ms"
        )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
