"""The web application (Starlette, Jinja templates, htmx vendored in static/).

Every route but the login page goes through `guard`: no session, no page (401, or the login
page for a browser); every POST must carry the session's CSRF token (a form field or the
X-CSRF-Token header htmx sends). Sessions are signed cookies (itsdangerous, through
Starlette's SessionMiddleware); the signing key is kept beside the accounts file.
"""

from __future__ import annotations

import functools
import logging
import secrets
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
)
from starlette.routing import Route
from starlette.staticfiles import StaticFiles

from pipeline.errors import PetitionError
from pipeline.records import FIELD_NAMES, ReviewAction
from pipeline.report import write_report

from .accounts import Account, Accounts, LoginLimiter
from .certify import certification_context, write_certification
from .review import REASONS, CaseFrozenError, CaseReview, NotYoursError, decision
from .workspace import MAX_UPLOAD_BYTES, CaseSlot, Checker, UploadError, Workspace

__all__ = ["create_app", "session_secret"]

log = logging.getLogger(__name__)

STATIC = Path(__file__).with_name("static")
Handler = Callable[..., Awaitable[Response]]


def session_secret(users_file: Path) -> str:
    """The cookie signing key, made once and kept beside the accounts (mode 0600), so a
    restarted server keeps its sessions."""
    path = Path(users_file).with_suffix(".secret")
    if not path.is_file():
        path.write_text(secrets.token_urlsafe(32), encoding="utf-8")
        path.chmod(0o600)
    return path.read_text(encoding="utf-8").strip()


def _templates() -> Environment:
    env = Environment(
        loader=PackageLoader("dashboard", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals["FIELD_NAMES"] = FIELD_NAMES
    env.globals["REASONS"] = REASONS
    return env


def create_app(
    root: Path,
    accounts: Accounts,
    *,
    secret: str,
    limiter: LoginLimiter | None = None,
    checker: Checker | None = None,
    https_only: bool = False,
    store_url: str | None = None,
    out_dir: Path | None = None,
) -> Starlette:
    """The dashboard over the cases in `root` (workspace.py says what it may be; `out_dir`:
    a case folder's report folder, when not its out/); their audit stores in SQLite in each
    report folder, or in the PostgreSQL database at `store_url`. Uploads are checked by
    `checker`, or (None) as checking.checker_for chooses."""
    workspace = Workspace(root, checker, store_url, out_dir)
    limiter = limiter or LoginLimiter(path=accounts.path)  # kept across a restart
    env = _templates()

    def page(request: Request, name: str, status: int = 200, **ctx: Any) -> HTMLResponse:
        ctx.setdefault("user", request.state.user if hasattr(request.state, "user") else None)
        ctx["csrf"] = request.session.get("csrf", "")
        ctx["request"] = request
        return HTMLResponse(env.get_template(name).render(**ctx), status_code=status)

    def csrf_token(request: Request) -> str:
        token = request.session.get("csrf")
        if not token:
            token = request.session["csrf"] = secrets.token_urlsafe(24)
        return token

    async def form_checked(request: Request) -> Any:
        form = await request.form(max_files=50, max_fields=200)
        sent = form.get("csrf") or request.headers.get("x-csrf-token", "")
        token = request.session.get("csrf", "")
        if not token or not secrets.compare_digest(str(sent), token):
            raise HTTPException(403, "missing or wrong CSRF token: reload the page")
        return form

    def guard(supervisor: bool = False) -> Callable[[Handler], Handler]:
        def wrap(handler: Handler) -> Handler:
            @functools.wraps(handler)
            async def inner(request: Request) -> Response:
                name = request.session.get("user")
                user = accounts.get(name) if name else None
                if user is None:
                    if request.method == "GET" and "text/html" in request.headers.get("accept", ""):
                        return RedirectResponse("/login", 303)
                    return PlainTextResponse("log in first", 401)
                if supervisor and not user.supervises:
                    return PlainTextResponse("a supervisor's action", 403)
                request.state.user = user
                form = await form_checked(request) if request.method == "POST" else None
                request.state.form = form
                return await handler(request)

            inner.guarded = True  # type: ignore[attr-defined]
            return inner

        return wrap

    def slot_of(request: Request) -> CaseSlot:
        slot = workspace.get(request.path_params["case"])
        if slot is None:
            raise HTTPException(404, "no such case")
        return slot

    def review_of(request: Request) -> CaseReview:
        slot = workspace.fresh(slot_of(request))
        if slot.review is None:
            raise HTTPException(409, slot.problem or "the case has not been checked yet")
        return slot.review

    def base_ctx(review: CaseReview) -> dict[str, Any]:
        return {
            "review": review,
            "report": review.report,
            "totals": review.report.totals,
            "settle": review.settle(),
            "certified": review.certified,
            "cid": review.case_id,
        }

    # login ----------------------------------------------------------------------------------

    async def login_page(request: Request) -> Response:
        csrf_token(request)
        return page(request, "login.html", user=None, error="")

    async def login(request: Request) -> Response:
        form = await form_checked(request)
        name = str(form.get("name", ""))[:64]
        client = request.client.host if request.client else "?"
        keys = (f"name:{name}", f"addr:{client}")
        if limiter.blocked(*keys):
            return page(
                request, "login.html", 429, user=None, error="Too many attempts: wait a minute."
            )
        # argon2 takes tens of milliseconds by design: off the event loop.
        user = await run_in_threadpool(accounts.verify, name, str(form.get("password", "")))
        if user is None:
            limiter.failed(*keys)
            return page(request, "login.html", 401, user=None, error="Wrong name or password.")
        request.session.clear()
        request.session["user"] = user.name
        request.session["csrf"] = secrets.token_urlsafe(24)
        return RedirectResponse("/", 303)

    @guard()
    async def logout(request: Request) -> Response:
        request.session.clear()
        return RedirectResponse("/login", 303)

    # cases ----------------------------------------------------------------------------------

    @guard()
    async def home(request: Request) -> Response:
        if not workspace.many and len(workspace.slots) == 1:
            (slot,) = workspace.slots.values()
            unchecked = workspace.fresh(slot).review is None and slot.sheets_dir is not None
            where = "upload" if unchecked else "queue"  # nothing to review: sheets to upload
            return RedirectResponse(f"/c/{slot.case_id}/{where}", 303)
        return page(request, "cases.html", workspace=workspace)

    @guard()
    async def new_case(request: Request) -> Response:
        form = request.state.form
        try:
            case_file = form.get("case_file")
            register = form.get("register")
            if not getattr(case_file, "filename", None) or not getattr(register, "filename", None):
                raise UploadError("a case file and its register (or roll) are needed")
            slot = workspace.create(
                str(form.get("name") or case_file.filename),
                await case_file.read(MAX_UPLOAD_BYTES + 1),
                await register.read(MAX_UPLOAD_BYTES + 1),
                "roll" if form.get("register_kind") == "roll" else "register",
            )
        except UploadError as err:
            return page(request, "cases.html", 400, workspace=workspace, error=err.message)
        return RedirectResponse(f"/c/{slot.case_id}/upload", 303)

    @guard()
    async def upload_page(request: Request) -> Response:
        slot = slot_of(request)
        return page(request, "upload.html", slot=slot, stored=[], errors=[])

    @guard()
    async def upload(request: Request) -> Response:
        slot = slot_of(request)
        stored: list[Path] = []
        errors: list[str] = []
        for item in request.state.form.getlist("sheets"):
            if not hasattr(item, "read"):
                continue
            data = await item.read(MAX_UPLOAD_BYTES + 1)
            try:
                stored.append(workspace.store_upload(slot, item.filename or "", data))
            except UploadError as err:
                errors.append(err.message)
        if stored:
            actor = request.state.user.name
            if slot.review is not None:
                slot.review.audit.event(actor, "upload", {"files": [p.name for p in stored]})
            workspace.check(slot, stored)
        return page(
            request,
            "upload.html",
            400 if errors and not stored else 200,
            slot=slot,
            stored=[p.name for p in stored],
            errors=errors,
        )

    @guard()
    async def status(request: Request) -> Response:
        slot = slot_of(request)
        return PlainTextResponse(
            "checking" if slot.checking else (slot.problem or ("ready" if slot.review else "new"))
        )

    # the queue ------------------------------------------------------------------------------

    @guard()
    async def queue(request: Request) -> Response:
        review = review_of(request)
        q = request.query_params
        items = review.queue(
            q.get("sheet") or None, q.get("reason") or None, q.get("reviewer") or None
        )
        return page(
            request,
            "queue.html",
            items=items,
            sheets_waiting=review.sheets_in_review(),
            reasons=review.reasons_in_queue(),
            reviewers=[a.name for a in accounts.names()],
            filters={k: q.get(k, "") for k in ("sheet", "reason", "reviewer")},
            **base_ctx(review),
        )

    @guard(supervisor=True)
    async def assign(request: Request) -> Response:
        review = review_of(request)
        form = request.state.form
        reviewer = str(form.get("reviewer", ""))
        if accounts.get(reviewer) is None:
            raise HTTPException(400, "no such reviewer")
        count = max(1, min(int(form.get("count") or 25), 10_000))
        free = [q.line_id for q in review.queue() if q.assigned_to is None][:count]
        review.assign(request.state.user.name, reviewer, free)
        return RedirectResponse(f"/c/{review.case_id}/queue?reviewer={reviewer}", 303)

    # one line -------------------------------------------------------------------------------

    def line_or_404(review: CaseReview, line_id: str):
        judged = review.by_id.get(line_id)
        if judged is None:
            raise HTTPException(404, "no such line")
        return judged

    @guard()
    async def line(request: Request) -> Response:
        review = review_of(request)
        judged = line_or_404(review, request.path_params["line"])
        prev_id, next_id = review.neighbours(judged.line.line_id)
        sheet = review.sheets[judged.line.page_id]
        chosen = review.entry(judged.voter_id)
        return page(
            request,
            "line.html",
            j=judged,
            sheet=sheet,
            prev_id=prev_id,
            next_id=next_id,
            chosen=chosen,
            history=review.history(judged.line.line_id),
            in_force=review.in_force.get(judged.line.line_id),
            sheet_findings=[
                f
                for f in review.report.findings
                if f.page_id == sheet.page.page_id and f.line_no is None
            ],
            **base_ctx(review),
        )

    def next_url(review: CaseReview, line_id: str) -> str:
        _, next_id = review.neighbours(line_id)
        if next_id and next_id != line_id:
            return f"/c/{review.case_id}/line/{next_id}"
        return f"/c/{review.case_id}/line/{line_id}"

    @guard()
    async def decide(request: Request) -> Response:
        review = review_of(request)
        judged = line_or_404(review, request.path_params["line"])
        form = request.state.form
        user: Account = request.state.user
        line_id = judged.line.line_id
        try:
            action = ReviewAction(str(form.get("action", "")))
        except ValueError:
            raise HTTPException(400, "unknown action") from None
        corrections = {
            name: str(form.get(f"field_{name}", "")).strip()
            for name in FIELD_NAMES
            if f"field_{name}" in form
            and str(form.get(f"field_{name}", "")).strip() != judged.line.text(name)
        }
        voter_id = str(form.get("voter_id") or "") or None
        reason = str(form.get("reason", "")).strip()[:500]
        if action is ReviewAction.REJECT and not reason:
            raise HTTPException(400, "a rejection needs a reason")
        if action is ReviewAction.CORRECT and not corrections and not voter_id:
            raise HTTPException(400, "nothing to correct: change a field or choose a voter")
        made = decision(
            line_id, action, user.name, corrections=corrections, voter_id=voter_id, reason=reason
        )
        _decide(review, made, request.state.user)
        target = (
            next_url(review, line_id)
            if action is not ReviewAction.CORRECT
            else (f"/c/{review.case_id}/line/{line_id}")
        )
        return RedirectResponse(target, 303)

    @guard()
    async def undo(request: Request) -> Response:
        review = review_of(request)
        judged = line_or_404(review, request.path_params["line"])
        _undo(review, judged.line.line_id, request.state.user)
        return RedirectResponse(f"/c/{review.case_id}/line/{judged.line.line_id}", 303)

    @guard()
    async def search(request: Request) -> Response:
        review = review_of(request)
        line_id = request.query_params.get("line", "")
        found = review.search(request.query_params.get("q", "")[:100])
        return page(request, "_search.html", found=found, line_id=line_id, cid=review.case_id)

    # sheets ---------------------------------------------------------------------------------

    def sheet_or_404(review: CaseReview, page_id: str):
        sheet = review.sheets.get(page_id)
        if sheet is None:
            raise HTTPException(404, "no such sheet")
        return sheet

    @guard()
    async def sheet_view(request: Request) -> Response:
        review = review_of(request)
        sheet = sheet_or_404(review, request.path_params["page"])
        pid = sheet.page.page_id
        return page(
            request,
            "sheet.html",
            sheet=sheet,
            findings=[f for f in review.report.findings if f.page_id == pid],
            lines=[review.by_id[ln.line_id] for ln in sheet.lines],
            in_force=review.in_force.get(pid),
            **base_ctx(review),
        )

    @guard()
    async def sheet_decide(request: Request) -> Response:
        review = review_of(request)
        sheet = sheet_or_404(review, request.path_params["page"])
        form = request.state.form
        try:
            action = ReviewAction(str(form.get("action", "")))
        except ValueError:
            raise HTTPException(400, "unknown action") from None
        from pipeline.judge import SHEET_FIELDS

        current = sheet_values(sheet)
        corrections = {
            k: str(form.get(f"sheet_{k}", "")).strip()
            for k in SHEET_FIELDS
            if f"sheet_{k}" in form and str(form.get(f"sheet_{k}", "")).strip() != current[k]
        }
        reason = str(form.get("reason", "")).strip()[:500]
        if action is ReviewAction.REJECT and not reason:
            raise HTTPException(400, "a rejection needs a reason")
        made = decision(
            sheet.page.page_id,
            action,
            request.state.user.name,
            corrections=corrections,
            reason=reason,
        )
        _decide(review, made, request.state.user)
        return RedirectResponse(f"/c/{review.case_id}/sheet/{sheet.page.page_id}", 303)

    @guard()
    async def sheet_undo(request: Request) -> Response:
        review = review_of(request)
        sheet = sheet_or_404(review, request.path_params["page"])
        _undo(review, sheet.page.page_id, request.state.user)
        return RedirectResponse(f"/c/{review.case_id}/sheet/{sheet.page.page_id}", 303)

    # images ---------------------------------------------------------------------------------

    @guard()
    async def page_image(request: Request) -> Response:
        from .images import page_png

        review = review_of(request)
        sheet = sheet_or_404(review, request.path_params["page"])
        return FileResponse(page_png(review.out_dir, sheet.page), media_type="image/png")

    @guard()
    async def crop_image(request: Request) -> Response:
        from .images import crop_png

        review = review_of(request)
        judged = line_or_404(review, request.path_params["line"])
        return FileResponse(
            crop_png(review.out_dir, review.sheets[judged.line.page_id], judged.line),
            media_type="image/png",
        )

    # certification and the record -----------------------------------------------------------

    def where_map(review: CaseReview) -> dict[str, str]:
        out = {}
        for j in review.report.lines:
            out[j.line.line_id] = f"sheet {j.sheet_number or '?'} line {j.line.line_no}"
        for s in review.report.sheets:
            out[s.page.page_id] = f"sheet {s.sheet_number_value or '?'} (the sheet)"
        return out

    @guard(supervisor=True)
    async def certify(request: Request) -> Response:
        review = review_of(request)
        if review.certified is not None:
            raise HTTPException(409, "already certified")
        note = str(request.state.form.get("note", ""))[:500]
        event = review.audit.event(request.state.user.name, "certify", {"note": note})
        number = len(review.audit.events(("certify",)))

        def write() -> None:  # seconds at thousands of lines: off the event loop
            write_report(review.report, review.out_dir)
            ctx = certification_context(
                review.report, review.audit.decisions(), event, where_map(review)
            )
            html = env.get_template("certification.html").render(**ctx)
            write_certification(ctx, html, review.out_dir, number)

        await run_in_threadpool(write)
        return RedirectResponse(f"/c/{review.case_id}/certification", 303)

    @guard(supervisor=True)
    async def reopen(request: Request) -> Response:
        review = review_of(request)
        if review.certified is None:
            raise HTTPException(409, "not certified")
        reason = str(request.state.form.get("reason", "")).strip()[:500]
        if not reason:
            raise HTTPException(400, "reopening needs a reason")
        review.audit.event(request.state.user.name, "reopen", {"reason": reason})
        return RedirectResponse(f"/c/{review.case_id}/queue", 303)

    def certification_file(review: CaseReview, ext: str) -> Path:
        number = len(review.audit.events(("certify",)))
        path = review.out_dir / "certification" / f"certification-{number}.{ext}"
        if not number or not path.is_file():
            raise HTTPException(404, "not certified yet")
        return path

    @guard()
    async def certification(request: Request) -> Response:
        review = review_of(request)
        certification_file(review, "html")
        return page(request, "certified.html", events=review.audit.events(), **base_ctx(review))

    @guard()
    async def certification_html(request: Request) -> Response:
        return FileResponse(certification_file(review_of(request), "html"), media_type="text/html")

    @guard()
    async def certification_pdf(request: Request) -> Response:
        return FileResponse(
            certification_file(review_of(request), "pdf"), media_type="application/pdf"
        )

    @guard()
    async def audit_log(request: Request) -> Response:
        review = review_of(request)
        return page(
            request,
            "audit.html",
            decisions=review.audit.decisions(),
            events=review.audit.events(),
            where=where_map(review),
            **base_ctx(review),
        )

    @guard()
    async def export(request: Request) -> Response:
        review = review_of(request)
        return Response(
            review.audit.export_jsonl(),
            media_type="application/x-ndjson",
            headers={"content-disposition": "attachment; filename=decisions.jsonl"},
        )

    @guard(supervisor=True)
    async def import_decisions(request: Request) -> Response:
        review = review_of(request)
        upload_file = request.state.form.get("decisions")
        if not hasattr(upload_file, "read"):
            raise HTTPException(400, "choose a decisions file")
        import tempfile

        data = await upload_file.read(MAX_UPLOAD_BYTES + 1)
        with tempfile.NamedTemporaryFile(suffix=".jsonl") as tmp:
            tmp.write(data)
            tmp.flush()
            try:
                if review.certified is not None:
                    raise CaseFrozenError("the case is certified: reopen it first")
                review.audit.import_jsonl(Path(tmp.name), request.state.user.name)
            except PetitionError as err:
                raise HTTPException(400, err.message) from None
        review.reload()
        return RedirectResponse(f"/c/{review.case_id}/audit", 303)

    @guard()
    async def static(request: Request) -> Response:
        return await static_files.get_response(request.path_params["path"], request.scope)

    static_files = StaticFiles(directory=STATIC)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if "text/html" in request.headers.get("accept", ""):
            return page(request, "error.html", exc.status_code, message=exc.detail)
        return PlainTextResponse(str(exc.detail), exc.status_code)

    routes = [
        Route("/login", login_page, methods=["GET"]),
        Route("/login", login, methods=["POST"]),
        Route("/logout", logout, methods=["POST"]),
        Route("/", home),
        Route("/new", new_case, methods=["POST"]),
        Route("/static/{path:path}", static),
        Route("/c/{case}/upload", upload_page, methods=["GET"]),
        Route("/c/{case}/upload", upload, methods=["POST"]),
        Route("/c/{case}/status", status),
        Route("/c/{case}/queue", queue),
        Route("/c/{case}/assign", assign, methods=["POST"]),
        Route("/c/{case}/line/{line}", line),
        Route("/c/{case}/line/{line}/decide", decide, methods=["POST"]),
        Route("/c/{case}/line/{line}/undo", undo, methods=["POST"]),
        Route("/c/{case}/line/{line}/crop.png", crop_image),
        Route("/c/{case}/search", search),
        Route("/c/{case}/sheet/{page}", sheet_view),
        Route("/c/{case}/sheet/{page}/decide", sheet_decide, methods=["POST"]),
        Route("/c/{case}/sheet/{page}/undo", sheet_undo, methods=["POST"]),
        Route("/c/{case}/sheet/{page}/page.png", page_image),
        Route("/c/{case}/certify", certify, methods=["POST"]),
        Route("/c/{case}/reopen", reopen, methods=["POST"]),
        Route("/c/{case}/certification", certification),
        Route("/c/{case}/certification.html", certification_html),
        Route("/c/{case}/certification.pdf", certification_pdf),
        Route("/c/{case}/audit", audit_log),
        Route("/c/{case}/decisions.jsonl", export),
        Route("/c/{case}/decisions/import", import_decisions, methods=["POST"]),
    ]
    app = Starlette(
        routes=routes,
        middleware=[
            Middleware(
                SessionMiddleware,
                secret_key=secret,
                session_cookie="petitions_session",
                max_age=12 * 3600,
                same_site="strict",
                https_only=https_only,
            )
        ],
        exception_handlers={HTTPException: http_error},
    )
    app.state.workspace = workspace
    return app


def _decide(review: CaseReview, made, user: Account) -> None:
    _refusals(lambda: review.decide(made, supervisor=user.supervises))


def _undo(review: CaseReview, target: str, user: Account) -> None:
    _refusals(lambda: review.undo(target, user.name, supervisor=user.supervises))


def _refusals(call: Callable[[], object]) -> None:
    """A frozen case is a conflict (409); another reviewer's decision is forbidden (403)."""
    try:
        call()
    except CaseFrozenError as err:
        raise HTTPException(409, err.message) from None
    except NotYoursError as err:
        raise HTTPException(403, err.message) from None


def sheet_values(sheet) -> dict[str, str]:
    """The sheet's correctable values as read: its number and its statement's blanks."""
    from pipeline.judge import SHEET_FIELDS

    w = sheet.witness
    out = {"sheet_number": sheet.sheet_number.text if sheet.sheet_number else ""}
    for k in SHEET_FIELDS:
        if k != "sheet_number":
            f = getattr(w, k, None) if w is not None else None
            out[k] = f.text if f is not None else ""
    return out
