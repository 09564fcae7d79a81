"""The review dashboard over HTTP (Starlette's test client; the browser tests drive Chromium):
sessions, CSRF, the login limit, decisions and their audit store, re-judging, sheets,
certification, uploads. Fixtures: the bundled synthetic demo case (tests/dashboard_fixtures)."""

from __future__ import annotations

import json
import shutil
import sqlite3
import time
import warnings
from pathlib import Path

import pytest

from dashboard.accounts import Accounts, LoginLimiter
from dashboard.app import create_app
from pipeline.case import load_case
from pipeline.decisions import load_decisions
from pipeline.run import check_case

from .dashboard_fixtures import FAST_HASH, PASSWORD, REVIEW_LINES, SHEET, csrf_of, make_workspace

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_workspace(tmp_path_factory.mktemp("dash"))


@pytest.fixture
def root(checked: Path, tmp_path: Path) -> Path:
    """A private copy of the checked workspace (each test starts with no decisions)."""
    dest = tmp_path / "ws"
    shutil.copytree(checked, dest)
    return dest


def _app(root: Path, limiter: LoginLimiter | None = None):
    return create_app(
        root, Accounts(root / "users.sqlite", FAST_HASH), secret="s" * 32, limiter=limiter
    )


def _client(root: Path, who: str | None = "rita", **kw) -> tuple[TestClient, str]:
    client = TestClient(_app(root, **kw))
    token = csrf_of(client.get("/login").text)
    if who is None:
        return client, token
    r = client.post("/login", data={"name": who, "password": PASSWORD, "csrf": token})
    assert r.status_code == 200
    return client, csrf_of(r.text)


def _totals(client: TestClient) -> tuple[str, int, int, int]:
    html = client.get("/c/demo/queue").text

    def num(i: str) -> int:
        return int(html.split(f'id="{i}">')[1].split("<")[0])

    verdict = html.split('id="verdict">')[1].split("<")[0].lower()
    return verdict, num("t-valid"), num("t-invalid"), num("t-review")


def test_every_route_but_login_needs_a_session(root: Path) -> None:
    app = _app(root)
    client = TestClient(app)
    params = {"case": "demo", "line": REVIEW_LINES[0], "page": SHEET, "path": "app.css"}
    checked = 0
    for route in app.routes:
        if route.path == "/login":
            continue
        url = route.path
        for key, value in params.items():
            url = url.replace(f"{{{key}}}", value).replace(f"{{{key}:path}}", value)
        for method in route.methods - {"HEAD"}:
            r = client.request(method, url, follow_redirects=False)
            assert r.status_code == 401, (method, url, r.status_code)
            checked += 1
        assert getattr(route.endpoint, "guarded", False), route.path
    assert checked >= 25
    r = client.get("/c/demo/queue", headers={"accept": "text/html"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/login"


def test_a_wrong_password_is_refused_and_the_login_limit_holds(root: Path) -> None:
    client, token = _client(root, None, limiter=LoginLimiter(attempts=3, window=60))
    r = client.post("/login", data={"name": "rita", "password": "wrong", "csrf": token})
    assert r.status_code == 401 and "Wrong name or password" in r.text
    for _ in range(2):
        client.post("/login", data={"name": "rita", "password": "wrong", "csrf": token})
    r = client.post("/login", data={"name": "rita", "password": PASSWORD, "csrf": token})
    assert r.status_code == 429  # even the right password, until the window passes
    assert client.get("/c/demo/queue").status_code == 401


def test_the_login_limit_holds_across_a_restart(root: Path) -> None:
    """The failures are kept in the accounts file: a restarted server goes on refusing."""
    client, token = _client(root, None)  # the default limit: 5 a minute, kept in users.sqlite
    for _ in range(5):
        r = client.post("/login", data={"name": "rita", "password": "wrong", "csrf": token})
        assert r.status_code == 401
    again, token = _client(root, None)
    r = again.post("/login", data={"name": "rita", "password": PASSWORD, "csrf": token})
    assert r.status_code == 429
    # another name from another address is not held back; an old failure no longer counts
    limiter = LoginLimiter(attempts=1, window=60, path=root / "users.sqlite")
    assert limiter.blocked("name:rita") and not limiter.blocked("name:sam", "addr:10.0.0.9")
    assert not LoginLimiter(attempts=1, window=0, path=root / "users.sqlite").blocked("name:rita")


def test_a_form_without_its_csrf_token_is_refused(root: Path) -> None:
    client, token = _client(root)
    line = REVIEW_LINES[0]
    assert client.post(f"/c/demo/line/{line}/decide", data={"action": "accept"}).status_code == 403
    bad = {"action": "accept", "csrf": token[::-1]}
    assert client.post(f"/c/demo/line/{line}/decide", data=bad).status_code == 403
    fresh, login_token = _client(root, None)
    r = fresh.post("/login", data={"name": "rita", "password": PASSWORD})
    assert r.status_code == 403
    assert _totals(client)[1] == 38  # nothing was decided
    assert client.get("/c/demo/decisions.jsonl").text == ""


def test_decisions_rejudge_persist_and_export_as_the_check_reads_them(root: Path) -> None:
    client, token = _client(root)
    assert _totals(client) == ("undetermined", 38, 7, 4)
    a, b, c, d = REVIEW_LINES
    client.post(f"/c/demo/line/{a}/decide", data={"action": "accept", "csrf": token})
    assert _totals(client) == ("sufficient", 39, 7, 3)
    client.post(
        f"/c/demo/line/{b}/decide",
        data={
            "action": "reject",
            "reason": "signature does not match the registration record",
            "csrf": token,
        },
    )
    client.post(
        f"/c/demo/line/{c}/decide",
        data={"action": "correct", "field_date": "10/01/2026", "csrf": token},
    )
    client.post(f"/c/demo/line/{b}/undo", data={"csrf": token})
    assert _totals(client) == ("sufficient", 39, 7, 3)
    page = client.get(f"/c/demo/line/{c}").text
    assert 'value="10/01/2026"' in page and "undoes" not in page

    exported = client.get("/c/demo/decisions.jsonl").text
    assert [json.loads(x)["action"] for x in exported.splitlines()] == [
        "accept",
        "reject",
        "correct",
        "correct",
    ]
    # A restarted server finds every decision in the audit store.
    again, _ = _client(root)
    assert _totals(again) == ("sufficient", 39, 7, 3)
    # The exported file, given to a full check, gives the same report as the re-judging.
    path = root / "decisions.jsonl"
    path.write_text(exported, encoding="utf-8")
    report = check_case(load_case(root / "demo" / "case.toml"), load_decisions(path))
    review = again.app.state.workspace.get("demo").review
    assert report.totals == review.report.totals
    assert report.verdict == review.report.verdict
    assert {j.line.line_id: j.status for j in report.lines} == {
        j.line.line_id: j.status for j in review.report.lines
    }


def test_the_store_is_append_only(root: Path) -> None:
    client, token = _client(root)
    client.post(f"/c/demo/line/{REVIEW_LINES[0]}/decide", data={"action": "accept", "csrf": token})
    db = sqlite3.connect(root / "demo" / "out" / "review.sqlite")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        db.execute("UPDATE decisions SET action = 'reject'")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        db.execute("DELETE FROM decisions")


def test_choosing_another_voter_and_correcting_a_name(root: Path) -> None:
    client, token = _client(root)
    line = REVIEW_LINES[2]  # two close candidates
    review = client.app.state.workspace.get("demo").review
    second = review.by_id[line].match.candidates[1].voter_id
    client.post(
        f"/c/demo/line/{line}/decide", data={"action": "correct", "voter_id": second, "csrf": token}
    )
    assert review.by_id[line].voter_id == second
    found = client.get(f"/c/demo/search?q=maple+ave&line={line}").text
    assert "MAPLE AVE" in found
    client.post(
        f"/c/demo/line/{line}/decide",
        data={"action": "correct", "field_name": "Lark Ingleby", "voter_id": "", "csrf": token},
    )
    assert review.by_id[line].line.text("name") == "Lark Ingleby"  # matched again


def test_a_sheet_decision_settles_its_lines(root: Path) -> None:
    client, token = _client(root)
    assert f"/c/demo/sheet/{SHEET}" in client.get("/c/demo/queue").text
    client.post(f"/c/demo/sheet/{SHEET}/decide", data={"action": "accept", "csrf": token})
    assert _totals(client) == ("sufficient", 42, 7, 0)
    client.post(f"/c/demo/sheet/{SHEET}/undo", data={"csrf": token})
    assert _totals(client) == ("undetermined", 38, 7, 4)
    client.post(
        f"/c/demo/sheet/{SHEET}/decide",
        data={"action": "reject", "reason": "witness not qualified", "csrf": token},
    )
    verdict, valid, invalid, review = _totals(client)
    assert review == 0 and invalid > 7 and verdict == "insufficient"


def test_only_a_supervisor_certifies_and_the_case_freezes(root: Path) -> None:
    rita, rtoken = _client(root, "rita")
    rita.post(f"/c/demo/line/{REVIEW_LINES[0]}/decide", data={"action": "accept", "csrf": rtoken})
    assert rita.post("/c/demo/certify", data={"csrf": rtoken}).status_code == 403
    sam, stoken = _client(root, "sam")
    r = sam.post("/c/demo/certify", data={"csrf": stoken, "note": "final"})
    assert r.status_code == 200
    pdf = sam.get("/c/demo/certification.pdf")
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF-")
    text = _pdf_text(pdf.content)
    assert "rita" in text and "accept" in text and "Objections" in text
    frozen = rita.post(
        f"/c/demo/line/{REVIEW_LINES[1]}/decide", data={"action": "accept", "csrf": rtoken}
    )
    assert frozen.status_code == 409
    assert sam.post("/c/demo/reopen", data={"csrf": stoken}).status_code == 400  # needs a reason
    sam.post("/c/demo/reopen", data={"csrf": stoken, "reason": "late objection"})
    ok = rita.post(
        f"/c/demo/line/{REVIEW_LINES[1]}/decide", data={"action": "accept", "csrf": rtoken}
    )
    assert ok.status_code == 200
    record = sam.get("/c/demo/audit").text
    assert "reopen" in record and "late objection" in record


def _pdf_text(data: bytes) -> str:
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(data)
    try:
        return "\n".join(page.get_textpage().get_text_range() for page in pdf)
    finally:
        pdf.close()


def test_a_new_case_is_created_and_uploads_land_inside_it_with_safe_names(root: Path) -> None:
    client, token = _client(root)
    demo = root / "demo"
    r = client.post(
        "/new",
        data={"csrf": token, "name": "Spring petition", "register_kind": "register"},
        files=[
            ("case_file", ("case.toml", (demo / "case.toml").read_bytes(), "text/plain")),
            ("register", ("../reg.csv", (demo / "register.csv").read_bytes(), "text/csv")),
        ],
    )
    assert r.status_code == 200 and "Upload sheets: spring-petition" in r.text
    elsewhere = (demo / "case.toml").read_text().replace('["sheets"]', '["/etc"]').encode()
    r = client.post(
        "/new",
        data={"csrf": token, "name": "Elsewhere", "register_kind": "register"},
        files=[
            ("case_file", ("case.toml", elsewhere, "text/plain")),
            ("register", ("r.csv", (demo / "register.csv").read_bytes(), "text/csv")),
        ],
    )
    assert r.status_code == 400 and "nothing else: it names /etc" in r.text
    assert not (root / "elsewhere").exists()
    case_dir = root / "spring-petition"
    assert (case_dir / "register.csv").is_file() and not (root / "reg.csv").exists()
    sheets = [
        ("sheets", ("../../x", (demo / "sheets" / "sheet-01.pdf").read_bytes(), "application/pdf")),
        ("sheets", ("evil.pdf", b"MZ\x90\x00 not a sheet", "application/pdf")),
    ]
    r = client.post("/c/spring-petition/upload", data={"csrf": token}, files=sheets)
    assert r.status_code == 200 and "not a PDF, PNG, JPEG or TIFF" in r.text
    assert sorted(p.name for p in (case_dir / "sheets").iterdir()) == ["0001-x.pdf"]
    assert not (root.parent / "x").exists() and not (root / "x").exists()
    slot = client.app.state.workspace.get("spring-petition")
    for _ in range(600):  # the check runs in the background
        if not slot.checking:
            break
        time.sleep(0.05)
    assert slot.problem == "" and slot.review is not None
    assert slot.review.report.totals.lines_read == 10  # the one sheet, read
    assert client.get("/c/spring-petition/status").text == "ready"


def test_safe_names_and_content_types() -> None:
    from dashboard.workspace import safe_name, sniff

    assert safe_name("../../x", 3, "pdf") == "0003-x.pdf"
    assert safe_name("..\\..\\a b.PNG", 12, "png") == "0012-a-b.png"
    assert safe_name("....", 1, "tif") == "0001-sheet.tif"
    assert sniff(b"%PDF-1.7") == "pdf" and sniff(b"\x89PNG\r\n\x1a\n..") == "png"
    assert sniff(b"<html>") is None


def test_judging_again_with_the_memo_is_judging_afresh(checked: Path) -> None:
    """Any sequence of line and sheet decisions: the memo's report is the fresh report."""
    import datetime as dt
    import random

    from pipeline.judge import SheetMemo
    from pipeline.judging import judge_inputs, load_judging
    from pipeline.records import ReviewAction, ReviewDecision
    from pipeline.run import rules_for

    inputs = load_judging(checked / "demo" / "out")
    rules = rules_for(inputs.case)
    ids = [line.line_id for s in inputs.sheets for line in s.filled_lines]
    pages = [s.page.page_id for s in inputs.sheets]
    rng = random.Random(5)
    memo: SheetMemo = {}
    decisions: list[ReviewDecision] = []
    at = dt.datetime(2026, 10, 12, tzinfo=dt.UTC)
    for n in range(40):
        target = rng.choice(ids + pages)
        action = rng.choice(list(ReviewAction))
        corrections = {"date": "12/31/2026"} if action is ReviewAction.CORRECT else {}
        if target in pages and action is ReviewAction.CORRECT:
            corrections = {"stated_count": str(rng.randint(1, 12))}
        decisions.append(
            ReviewDecision(
                target,
                action,
                "t",
                at + dt.timedelta(minutes=n),
                corrections,
                None,
                "r" if action is ReviewAction.REJECT else "",
            )
        )
        fast = judge_inputs(inputs, decisions, rules, memo=memo)
        fresh = judge_inputs(inputs, decisions, rules)
        assert fast.totals == fresh.totals and fast.verdict == fresh.verdict
        assert [(j.line.line_id, j.status, j.findings) for j in fast.lines] == [
            (j.line.line_id, j.status, j.findings) for j in fresh.lines
        ]


def test_users_are_added_on_the_command_line(tmp_path: Path, monkeypatch, capsys) -> None:
    import io

    from dashboard.accounts import Role
    from pipeline.cli import main

    users = tmp_path / "u.sqlite"
    monkeypatch.setattr("sys.stdin", io.StringIO("a long password\n"))
    assert main(["users", "add", "clerk", "--role", "supervisor", "--users", str(users)]) == 0
    account = Accounts(users).verify("clerk", "a long password")
    assert account is not None and account.role is Role.SUPERVISOR
    monkeypatch.setattr("sys.stdin", io.StringIO("short\n"))
    assert main(["users", "add", "x", "--role", "reviewer", "--users", str(users)]) == 64
    assert "at least 8 characters" in capsys.readouterr().err
    assert main(["dashboard", str(tmp_path / "missing"), "--users", str(users)]) == 3


def test_judging_inputs_of_another_version_are_refused_with_advice(tmp_path: Path) -> None:
    import pickle

    from pipeline.errors import UnreadableInputError
    from pipeline.judging import JUDGING_FILE, load_judging

    with pytest.raises(UnreadableInputError, match="check the case again"):
        load_judging(tmp_path)
    (tmp_path / JUDGING_FILE).write_bytes(pickle.dumps((1, "old")))
    with pytest.raises(UnreadableInputError, match="another version"):
        load_judging(tmp_path)
    (tmp_path / JUDGING_FILE).write_bytes(b"not a pickle")
    with pytest.raises(UnreadableInputError, match="cannot be read"):
        load_judging(tmp_path)


def test_the_decisions_file_imports_and_the_queue_filters(root: Path, tmp_path: Path) -> None:
    client, token = _client(root, "sam")
    queue = client.get("/c/demo/queue?reason=WITNESS_COUNT_MISMATCH").text
    assert queue.count('class="qrow"') == 4
    assert client.get("/c/demo/queue?reason=LINE_UNDATED").text.count('class="qrow"') == 0
    client.post("/c/demo/assign", data={"csrf": token, "reviewer": "rita", "count": "2"})
    assert client.get("/c/demo/queue?reviewer=rita").text.count('class="qrow"') == 2
    lines = [
        {
            "line_id": REVIEW_LINES[0],
            "action": "accept",
            "reviewer": "clerk@elmwood",
            "decided_at": "2026-10-12T14:03:00+00:00",
        },
        {
            "line_id": SHEET,
            "action": "correct",
            "reviewer": "clerk@elmwood",
            "decided_at": "2026-10-12T14:04:00+00:00",
            "corrections": {"stated_count": "5"},
        },
    ]
    body = "".join(json.dumps(x) + "\n" for x in lines).encode()
    r = client.post(
        "/c/demo/decisions/import",
        data={"csrf": token},
        files={"decisions": ("d.jsonl", body, "application/x-ndjson")},
    )
    assert r.status_code == 200
    assert _totals(client) == ("sufficient", 42, 7, 0)  # the stated count now agrees
    bad = client.post(
        "/c/demo/decisions/import",
        data={"csrf": token},
        files={"decisions": ("d.jsonl", b"{not json\n", "text/plain")},
    )
    assert bad.status_code == 400 and "not JSON" in bad.text


def test_another_reviewers_decision_is_reopened_by_a_supervisor(root: Path) -> None:
    rita, rtoken = _client(root, "rita")
    line = REVIEW_LINES[0]
    rita.post(f"/c/demo/line/{line}/decide", data={"action": "accept", "csrf": rtoken})
    root_accounts = Accounts(root / "users.sqlite", FAST_HASH)
    from dashboard.accounts import Role

    root_accounts.add("rob", Role.REVIEWER, PASSWORD)
    rob, btoken = _client(root, "rob")
    reject = {"action": "reject", "reason": "line is illegible", "csrf": btoken}
    assert rob.post(f"/c/demo/line/{line}/decide", data=reject).status_code == 403
    assert rob.post(f"/c/demo/line/{line}/undo", data={"csrf": btoken}).status_code == 403
    sam, stoken = _client(root, "sam")
    assert sam.post(f"/c/demo/line/{line}/undo", data={"csrf": stoken}).status_code == 200
    assert _totals(sam)[1] == 38


def test_a_store_url_of_another_kind_or_an_unreachable_server_is_one_clear_line(
    tmp_path: Path,
) -> None:
    from dashboard.audit import StoreError, open_store

    with pytest.raises(StoreError, match="not a store URL") as err:
        open_store(tmp_path, "demo", "mysql://clerk:s3cret@db/review")
    assert "s3cret" not in err.value.message
    pytest.importorskip("psycopg", reason="psycopg 3 is not installed (the test extra)")
    url = "postgresql://clerk:s3cret@127.0.0.1:1/review?connect_timeout=2"
    with pytest.raises(StoreError, match="cannot be reached") as err:
        open_store(tmp_path, "demo", url)
    assert "s3cret" not in err.value.message and "clerk:***@" in err.value.message


def _wait_checked(slot) -> None:
    for _ in range(1200):  # the check runs in the background
        if not slot.checking:
            return
        time.sleep(0.05)
    raise AssertionError("the check did not finish")


def test_an_upload_emits_the_event_and_the_triggered_run_s_report_is_reviewed(
    root: Path,
) -> None:
    """With a Prefect server holding the case's deployment, an upload emits
    `petition.sheets.uploaded` with the stored files, and the review reloads from the report
    the triggered run writes (here a fake emitter runs the check, as the deployment would)."""
    import threading

    from dashboard.checking import EventChecker, check

    emitted: list[tuple[Path, list[Path]]] = []

    def emit(case_path: Path, files) -> bool:
        emitted.append((case_path, list(files)))
        out = case_path.parent / "out"
        threading.Thread(target=check, args=(case_path, out, [])).start()
        return True

    demo = root / "demo"
    later = root / "sheet-04.pdf"
    shutil.move(demo / "sheets" / "sheet-04.pdf", later)
    app = create_app(
        root,
        Accounts(root / "users.sqlite", FAST_HASH),
        secret="s" * 32,
        checker=EventChecker("http://127.0.0.1:1/api", emit=emit, poll=0.05),
    )
    client = TestClient(app)
    token = csrf_of(client.get("/login").text)
    token = csrf_of(
        client.post("/login", data={"name": "rita", "password": PASSWORD, "csrf": token}).text
    )
    before = app.state.workspace.get("demo").review.report
    sheet = ("sheets", ("sheet-04.pdf", later.read_bytes(), "application/pdf"))
    r = client.post("/c/demo/upload", data={"csrf": token}, files=[sheet])
    assert r.status_code == 200
    slot = app.state.workspace.get("demo")
    _wait_checked(slot)
    ((case_path, files),) = emitted
    assert case_path == demo / "case.toml"
    assert [f.parent for f in files] == [demo / "sheets"] and files[0].is_file()
    assert slot.problem == ""
    assert slot.review.report is not before and slot.review.report.totals.lines_read == 60
    assert any(s.page.path.endswith(files[0].name) for s in slot.review.report.sheets)


def test_an_event_no_run_answers_is_a_problem_shown_not_a_hang(tmp_path: Path) -> None:
    from dashboard.checking import CheckTimeoutError, EventChecker, check, checker_for

    with pytest.raises(CheckTimeoutError, match="no check of this case finished"):
        EventChecker("http://127.0.0.1:1/api", emit=lambda c, f: True, timeout=0.2, poll=0.05)(
            tmp_path / "case.toml", tmp_path, [], []
        )
    with pytest.raises(CheckTimeoutError, match="could not be sent"):
        EventChecker("http://127.0.0.1:1/api", emit=lambda c, f: False)(
            tmp_path / "case.toml", tmp_path, [], []
        )
    # no server configured, or one without the case's deployment: checked in this process
    assert checker_for(tmp_path / "case.toml", None) is check
    assert checker_for(tmp_path / "case.toml", "http://127.0.0.1:1/api") is check
