"""The review dashboard as a person uses it: Playwright driving a real Chromium (Debian's
`chromium` package; Playwright's own browser download is not used). Marked `browser`: run with
`pytest -m browser` (.ci/run does). Without a Chromium they skip with the reason, except in CI
(CI=true), where a missing browser fails. They take the README's screenshots into docs/.

Fixture: the bundled synthetic demo case (tests/dashboard_fixtures.py), no real person."""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from .dashboard_fixtures import PASSWORD, REVIEW_LINES, make_workspace

pytestmark = pytest.mark.browser

DOCS = Path(__file__).resolve().parents[1] / "docs"
CHROMIUM = next(
    (
        p
        for p in ("/usr/bin/chromium", "/usr/bin/chromium-browser", shutil.which("chromium") or "")
        if p and Path(p).is_file()
    ),
    None,
)


def _need_chromium() -> str:
    if CHROMIUM is None:
        if os.environ.get("CI") == "true":
            pytest.fail("no Chromium found in CI: apt-get install chromium")
        pytest.skip("no Chromium found (apt-get install chromium): browser tests skipped")
    try:
        import playwright  # noqa: F401
    except ImportError:
        if os.environ.get("CI") == "true":
            pytest.fail("playwright is not installed in CI")
        pytest.skip("playwright is not installed (pip install -e '.[test]')")
    return CHROMIUM


class Server:
    """The dashboard under uvicorn in a thread, stopped and started again like a process."""

    def __init__(self, root: Path) -> None:
        self.root = root
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._server = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        import uvicorn

        from dashboard.accounts import Accounts
        from dashboard.app import create_app, session_secret

        from .dashboard_fixtures import FAST_HASH

        users = self.root / "users.sqlite"
        app = create_app(self.root, Accounts(users, FAST_HASH), secret=session_secret(users))
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)
        self._thread.start()
        for _ in range(200):
            if self._server.started:
                return
            time.sleep(0.05)
        raise RuntimeError("the dashboard did not start")

    def stop(self) -> None:
        assert self._server is not None and self._thread is not None
        self._server.should_exit = True
        self._thread.join(10)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    _need_chromium()
    srv = Server(make_workspace(tmp_path_factory.mktemp("browser")))
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def browser(server: Server):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=_need_chromium(), args=["--no-sandbox"])
        yield b
        b.close()


def _login(page, server: Server, name: str, password: str = PASSWORD) -> None:
    page.goto(f"{server.url}/login")
    page.fill("#name", name)
    page.fill("#password", password)
    page.click("button[type=submit]")


def _logout(page) -> None:
    """Log out and wait for the login page (the logout's cookie must land before the next
    login's page is fetched, or that page's CSRF token belongs to the old session)."""
    page.click("text=Log out")
    page.wait_for_url("**/login")
    page.wait_for_selector("#name")


def _on_line(page, line_id: str) -> None:
    page.wait_for_url(f"**/line/{line_id}")
    page.wait_for_selector(f"img[src$='{line_id}/crop.png']")
    # The keys are bound by keys.js once the page has loaded: a key pressed while the page is
    # still parsing is lost (seen on a loaded CI machine: the correction was never typed).
    page.wait_for_load_state("load")


def _text(page, selector: str) -> str:
    return page.locator(selector).inner_text().strip()


def test_a_review_from_login_to_certification(server: Server, browser) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    _login(page, server, "rita", "not her password")
    assert "Wrong name or password" in page.content()

    _login(page, server, "rita")
    page.click("text=referendum petition")  # the bundled case, from the list of cases
    page.wait_for_selector("#queue")
    assert _text(page, "#verdict") == "UNDETERMINED"
    assert "1 more valid make it sufficient" in _text(page, "#settle")
    page.screenshot(path=str(DOCS / "dashboard-queue.png"), full_page=True)

    a, b, c, d = REVIEW_LINES
    page.keyboard.press("j")
    page.keyboard.press("Enter")
    _on_line(page, a)
    page.wait_for_function(
        "() => { const i = document.querySelector('.crop img'); "
        "return i && i.complete && i.naturalWidth > 0; }"
    )
    page.screenshot(path=str(DOCS / "dashboard-line.png"), full_page=True)

    page.keyboard.press("a")  # accept: the verdict follows, the next line opens
    _on_line(page, b)
    assert _text(page, "#verdict") == "SUFFICIENT" and _text(page, "#t-valid") == "39"

    # A busy machine, made certain: the next swap settles 1.5 s after it, and a key pressed in
    # between acts on the new line (CI once lost the "c" below to a blur at settle time).
    page.evaluate("htmx.config.defaultSettleDelay = 1500")
    page.keyboard.press("r")  # reject with a reason
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    _on_line(page, c)
    assert _text(page, "#t-invalid") == "8"

    page.keyboard.press("c")  # correct the date (the first field), Enter saves it
    page.wait_for_function("() => !document.querySelector('.htmx-settling')")
    assert page.evaluate("document.activeElement?.id") == "field_date"
    page.keyboard.type("10/01/2026")
    page.keyboard.press("Enter")
    page.wait_for_selector("text=date = 10/01/2026")
    assert page.input_value("#field_date") == "10/01/2026"

    page.keyboard.press("j")
    _on_line(page, d)
    second = page.locator("#candidates button.choose").nth(1).get_attribute("data-voter")
    page.keyboard.press("2")  # choose the second candidate
    page.wait_for_selector(f"text=voter {second}")

    page.goto(f"{server.url}/c/demo/line/{b}")
    page.keyboard.press("u")  # undo the rejection: one more decision
    page.wait_for_selector("text=(undoes #2)")
    assert _text(page, "#t-invalid") == "7" and _text(page, "#status") == "needs_review"

    server.stop()  # a restart keeps every decision (and the session)
    server.start()
    page.goto(f"{server.url}/c/demo/audit")
    rows = page.locator("#decisions tr").count() - 1
    assert rows == 5
    assert _text(page, "#verdict") == "SUFFICIENT"

    page.goto(f"{server.url}/c/demo/queue")  # a reviewer cannot certify
    assert page.locator("#certify").count() == 0
    token = page.locator("input[name=csrf]").first.get_attribute("value")
    refused = page.request.post(f"{server.url}/c/demo/certify", form={"csrf": token})
    assert refused.status == 403

    _logout(page)
    _login(page, server, "sam")
    page.goto(f"{server.url}/c/demo/queue")
    page.click("#certify")
    page.wait_for_selector("#cert-pdf")
    pdf = page.request.get(f"{server.url}/c/demo/certification.pdf")
    assert pdf.status == 200 and pdf.body().startswith(b"%PDF-")
    pdf_path = server.root / "demo" / "out" / "certification" / "certification-1.pdf"
    assert pdf_path.is_file()
    from .test_dashboard import _pdf_text

    text = _pdf_text(pdf.body())
    assert "rita" in text and "reject" in text and "undo" in text
    page.goto(f"{server.url}/c/demo/line/{c}")
    assert page.locator("#b-accept").is_disabled()  # frozen
    page.close()


def test_security_as_a_browser_meets_it(server: Server, browser) -> None:
    """After the review above: no session, no page; no CSRF token, no decision; an upload
    named ../../x stays in the case; the login limit holds (last: it blocks this address)."""
    context = browser.new_context()
    page = context.new_page()
    for path in (
        "/",
        "/c/demo/queue",
        f"/c/demo/line/{REVIEW_LINES[0]}",
        "/c/demo/audit",
        "/c/demo/certification.pdf",
        "/c/demo/decisions.jsonl",
        "/static/keys.js",
    ):
        r = page.request.get(f"{server.url}{path}", max_redirects=0)
        assert r.status in (401, 303), (path, r.status)
    page.goto(f"{server.url}/c/demo/queue")
    assert page.url.endswith("/login")

    _login(page, server, "sam")
    page.goto(f"{server.url}/c/demo/queue")
    page.fill("input[name=reason]", "a late objection")  # reopen the certified case
    page.click("text=Reopen")
    page.wait_for_selector("#certify")
    refused = page.request.post(
        f"{server.url}/c/demo/line/{REVIEW_LINES[3]}/decide", form={"action": "accept"}
    )
    assert refused.status == 403

    token = page.locator("input[name=csrf]").first.get_attribute("value")
    pdf = (server.root / "demo" / "sheets" / "sheet-02.pdf").read_bytes()
    r = page.request.post(
        f"{server.url}/c/demo/upload",
        multipart={
            "csrf": token,
            "sheets": {"name": "../../x", "mimeType": "application/pdf", "buffer": pdf},
        },
    )
    assert r.status == 200
    stored = [p for p in (server.root / "demo" / "sheets").iterdir() if p.name.endswith("-x.pdf")]
    assert len(stored) == 1 and not (server.root.parent / "x").exists()
    page.goto(f"{server.url}/c/demo/upload")
    page.wait_for_selector("#state:text('ready')", timeout=60_000)  # checked again

    _logout(page)
    # 5 failures a minute from one address: rita's wrong password in the test above counts
    # too while it is less than a minute old (the failures outlive the restart)
    for _ in range(5):
        _login(page, server, "sam", "guessing")
        if "Too many attempts" in page.content():
            break
        assert "Wrong name or password" in page.content()
    _login(page, server, "sam")  # the right password, but too many attempts
    assert "Too many attempts" in page.content()
    context.close()
