"""`petitions`: the command line.

    petitions check CASE.toml --out DIR [--decisions decisions.jsonl]
                    [--engine auto|prefect|local] [--jobs N] [--dask N|ADDRESS] [--no-cache]
    petitions demo [--out DIR]
    petitions serve CASE.toml --out DIR [--every MINUTES] [--inbox DIR] [--no-dashboard]
    petitions generate --out DIR [--seed N]
    petitions dashboard CASE_OR_OUT_DIR [--host H --port P --users FILE --store URL]
    petitions users add NAME --role reviewer|supervisor [--users FILE]  (password: prompt/stdin)

Exit codes (README.md, "Exit codes"): 0 report written; 2 bad case file; 3 an input file is
missing; 4 an input file cannot be read; 5 report written but some sheet files could not be read;
6 a dependency is missing; 7 demo disagrees with the ground truth; 64 bad command line;
70 internal error (one line on the terminal, the traceback in a log file); 73 the report folder
cannot be written; 75 another check is writing the same report folder; 130 interrupted (Ctrl-C).
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import gc
import json
import logging
import multiprocessing
import os
import signal
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from pathlib import Path
from typing import Any

from .errors import ExitCode, PetitionError, stage, stage_of

__all__ = ["main"]

log = logging.getLogger(__name__)

REPO_ROOT = Path(__file__).resolve().parents[1]
DEMO_CASE = REPO_ROOT / "fixtures" / "demo" / "case.toml"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(ExitCode.USAGE, f"{self.prog}: error: {message}\n")


def _quiet_offline_prefect(verbose: bool) -> None:
    """Prefect runs offline here: no telemetry, no analytics heartbeat (it can lock the
    temporary server's database), and only warnings on the console unless -v."""
    os.environ.setdefault("DO_NOT_TRACK", "1")
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "INFO" if verbose else "WARNING")
    os.environ.setdefault("PREFECT_SERVER_LOGGING_LEVEL", "WARNING")
    # A temporary server (a flow with no server configured) on a busy machine takes longer to
    # start than Prefect's 20 s default allows.
    os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "90")


def _engine(engine: str, dask: str | None) -> str:
    """`auto`: the Prefect flow when a Prefect server is configured (or Dask is asked for),
    otherwise the same stages in this process: a temporary server would take longer to start
    than the check takes."""
    if engine != "auto":
        return engine
    if dask:
        return "prefect"
    from flows.server import configured_api_url

    return "prefect" if configured_api_url() else "local"


def _run(
    case_path: Path,
    out_dir: Path,
    decisions: Path | None,
    engine: str,
    jobs: int = 1,
    dask: str | None = None,
    use_cache: bool = True,
):
    """Validate first (fast, clear errors), then run the flow or the plain pipeline."""
    from .case import load_case
    from .decisions import load_decisions
    from .errors import InputMissingError, UnreadableInputError
    from .ingest import not_a_regular_file

    with stage("reading the case file"):
        case = load_case(case_path)
    for config, what, key in (
        (case.register_file, "register file", "[register]"),
        (case.roll, "assessment roll", "the roll's"),
    ):
        if config is not None and Path(config.path).exists():
            if problem := not_a_regular_file(Path(config.path)):
                raise UnreadableInputError(f"the {what}: {problem}")
        elif config is not None:
            raise InputMissingError(
                f"{config.path}: the {what} does not exist. Check {key} path in {case_path} "
                "(relative paths are from the case file's folder)."
            )
    if decisions is not None and not decisions.exists():
        raise InputMissingError(f"{decisions}: the decisions file does not exist")
    if decisions is not None and (problem := not_a_regular_file(decisions)):
        raise UnreadableInputError(f"the decisions file: {problem}")
    if _engine(engine, dask) == "prefect":
        from flows.server import flow_server

        # No server configured: one started for this run that dies with it, not Prefect's
        # temporary one (which outlives a killed check); before Prefect is imported.
        with contextlib.ExitStack() as server:
            with stage("starting a Prefect server"):
                server.enter_context(flow_server(log_path=out_dir / "prefect-server.log"))
            return _run_flow(case_path, out_dir, decisions, dask, use_cache)
    from .progress import terminal_progress
    from .run import check_case, page_cache
    from .scan.context import ReadContext

    with stage("reading the decisions"):
        logged = load_decisions(decisions) if decisions else []
    cache = page_cache(case) if use_cache else None
    context = ReadContext(crops_dir=out_dir / "crops")  # scans read with tesseract in-process
    progress = terminal_progress()
    _freeze_imports()
    run = partial(
        check_case, case, logged, context=context, keep_in=out_dir, cache=cache, write=True
    )
    try:
        if jobs <= 1:
            return run(progress=progress)
        # pages across processes: OCR is CPU-bound (and tesseract runs one thread each)
        os.environ.setdefault("OMP_THREAD_LIMIT", "1")
        interrupted = multiprocessing.RawValue("b", 0)  # set by a worker Ctrl-C ends
        # a worker forked before its initializer ran has this process's handler: it too
        # ends quietly and says so
        parent = os.getpid()
        main_thread = threading.current_thread() is threading.main_thread()
        if main_thread:  # (Python sets handlers in the main thread only)
            previous = signal.signal(signal.SIGINT, _interrupt_handler(interrupted, parent))
        try:
            with ProcessPoolExecutor(
                jobs, initializer=_worker_init, initargs=(interrupted, parent)
            ) as pool:
                return run(mapper=pool.map, progress=progress)
        except BrokenProcessPool:
            # Ctrl-C reaches the workers and this process together, and the pool may break
            # before this process raises KeyboardInterrupt (or without it: the signal may
            # reach only the workers): a worker ended by it says so, and the run is
            # interrupted (exit 130), not broken
            if interrupted.value:
                raise KeyboardInterrupt from None
            raise
        finally:
            if main_thread:
                # (None: a handler not set from Python; SIG_DFL is falsy, so no `or`)
                signal.signal(
                    signal.SIGINT, signal.default_int_handler if previous is None else previous
                )
    finally:
        if progress is not None:
            progress.close()


def _freeze_imports() -> None:
    """In the program itself (`main` paused the garbage collector while the modules loaded),
    what is loaded so far lives until the command ends: the collector, resumed, stops walking
    it, so its collections during the run and at exit look only at what the run makes
    (Prefect's modules alone cost a flow run half a CPU-second of them). A caller of `main` in
    its own process (a test) keeps its collector as it was."""
    if not gc.isenabled():
        gc.freeze()
        gc.enable()


def _run_flow(
    case_path: Path, out_dir: Path, decisions: Path | None, dask: str | None, use_cache: bool
):
    from flows.check import check

    runner = None
    if dask:
        from flows.runners import dask_runner

        # The cluster's own chatter (workers joining and leaving) only with -v: set in
        # dask's configuration, which distributed applies to its loggers when imported.
        if not logging.getLogger().isEnabledFor(logging.INFO):
            os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "warning")

        runner = dask_runner(address=dask) if not dask.isdigit() else dask_runner(int(dask))
    _freeze_imports()
    return check(case_path, out_dir, decisions, use_cache, runner)


PR_SET_PDEATHSIG = 1  # linux/prctl.h


def _interrupt_handler(interrupted: Any, parent: int) -> Callable[[int, object], None]:
    """SIGINT's handler while a pool runs: in the `parent` process, KeyboardInterrupt (as
    Python's own); in a worker, the end of it without a traceback, first setting
    `interrupted` (a shared byte) so that the parent knows why its pool broke. A worker forked
    has it from the moment it exists: Ctrl-C between the fork and the worker's initializer
    printed the worker's traceback and read as an internal error (exit 70, under load)."""

    def on_interrupt(signum: int, frame: object) -> None:
        if os.getpid() == parent:
            raise KeyboardInterrupt
        interrupted.value = 1
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)

    return on_interrupt


def _worker_init(interrupted: Any, parent: int) -> None:
    """A pool worker dies with its parent (kill -9 of the check leaves no orphan reading
    pages) and leaves Ctrl-C to the parent (`_interrupt_handler`)."""
    signal.signal(signal.SIGINT, _interrupt_handler(interrupted, parent))
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        except (OSError, AttributeError):
            log.debug("prctl(PR_SET_PDEATHSIG) is not available")
    if os.getppid() == 1:  # the parent died before the signal was asked for
        os._exit(1)


def _summary(report, out_dir: Path, seconds: float) -> None:
    t = report.totals
    print(f"{report.case_name}")
    print(f"  verdict: {report.verdict.value.upper()}  ({report.verdict_reason})")
    print(
        f"  lines read {t.lines_read}: valid {t.valid}, invalid {t.invalid}, "
        f"in review {t.needs_review}, blank {t.blank}; required "
        + (f"{t.required}" if t.required is not None else "a share of valuation")
    )
    if t.needs_review:
        from .report import report_to_dict, review_by_reason

        groups = review_by_reason(report_to_dict(report))
        why = "; ".join(f"{' + '.join(g['codes']) or 'other'} {g['count']}" for g in groups[:4])
        more = f"; {len(groups) - 4} more reasons" if len(groups) > 4 else ""
        print(f"  for a person: {t.needs_review} lines ({why}{more})")
    for err in report.file_errors:
        problem = err.problem if err.problem.startswith(err.path) else f"{err.path}: {err.problem}"
        print(f"  could not read: {problem}", file=sys.stderr)
    unread: dict[str, int] = {}  # pages read, but no signature table found on them: by file
    for f in report.findings:
        if f.code in WARN_ON_TERMINAL:
            print(f"  warning: {f.message} ({f.code})", file=sys.stderr)
        elif f.code == "SHEET_NOT_READ":
            where = str(f.evidence.get("file") or f.page_id)
            unread[where] = unread.get(where, 0) + 1
    conflicts = [
        f for j in report.lines for f in j.findings if f.code == "DECISIONS_CONFLICTING"
    ] + [f for f in report.findings if f.code == "DECISIONS_CONFLICTING"]
    if conflicts:
        print(
            f"  warning: {len(conflicts)} line(s) have reviewers' decisions that disagree, made "
            f"at the same moment; none is applied (first: {conflicts[0].message}) "
            "(DECISIONS_CONFLICTING)",
            file=sys.stderr,
        )
    for where, pages in unread.items():
        print(
            f"  warning: {where}: no signature table could be read on {pages} page(s); a person "
            "checks them by hand (SHEET_NOT_READ)",
            file=sys.stderr,
        )
    print(f"  report: {out_dir / 'report.html'}  ({seconds:.1f} s)")


# Findings about the inputs themselves that the clerk must see without opening the report.
WARN_ON_TERMINAL = frozenset(
    {
        "DECISIONS_UNMATCHED",
        "DENOMINATOR_IMPLAUSIBLE",
        "REGISTER_BAD_ROWS",
        "REGISTER_CONFLICTING_IDS",
    }
)


def _check(args: argparse.Namespace) -> int:
    from .report import locked_out_dir

    _quiet_offline_prefect(args.verbose)
    if args.dask and args.engine == "local":
        print("petitions: --dask runs the Prefect flow; drop --engine local", file=sys.stderr)
        return ExitCode.USAGE
    started = time.perf_counter()
    with locked_out_dir(args.out):
        report = _run(
            args.case,
            args.out,
            args.decisions,
            args.engine,
            args.jobs,
            args.dask,
            not args.no_cache,
        )
    _summary(report, args.out, time.perf_counter() - started)
    return ExitCode.PARTIAL if report.file_errors else ExitCode.OK


def _demo(args: argparse.Namespace) -> int:
    _quiet_offline_prefect(args.verbose)
    case_path = DEMO_CASE
    if not case_path.is_file():  # installed without the repository's fixtures: make them
        from synth import generate_case

        case_path = generate_case(args.out / "fixtures", seed=902)
    started = time.perf_counter()
    # No page cache: it would be written into the bundled fixture's folder (and the demo's six
    # text-layer pages read in a fraction of a second).
    report = _run(case_path, args.out, None, args.engine, use_cache=False)
    _summary(report, args.out, time.perf_counter() - started)
    truth = json.loads((case_path.parent / "truth.json").read_text(encoding="utf-8"))["expected"]
    got = {"verdict": report.verdict.value, "valid": report.totals.valid}
    want = {"verdict": truth["verdict"], "valid": truth["valid"]}
    if got != want:
        print(f"  ground truth DISAGREES: expected {want}, got {got}", file=sys.stderr)
        return ExitCode.TRUTH_MISMATCH
    print(f"  ground truth agrees: verdict {want['verdict']}, {want['valid']} valid signatures")
    return ExitCode.OK


def _serve(args: argparse.Namespace) -> int:
    """Serve the case's check on a Prefect server (the configured one, or one started here):
    on each upload and through its filing window (blocks until Ctrl-C)."""
    _quiet_offline_prefect(args.verbose)
    from flows.serve import DashboardOptions, serve_case

    return serve_case(
        args.case,
        args.out,
        args.every,
        inbox=args.inbox,
        port=args.port,
        dashboard=None
        if args.no_dashboard
        else DashboardOptions(args.users, args.dashboard_port, args.store),
    )


USERS_FILE = "petitions-users.sqlite"  # in the folder the command runs in, unless --users


def _dashboard(args: argparse.Namespace) -> int:
    """Serve the review dashboard until stopped."""
    import uvicorn

    from dashboard.server import open_app

    from .errors import InputMissingError

    if not args.root.is_dir():
        raise InputMissingError(f"{args.root}: no such folder")
    app = open_app(args.root, args.users, args.store, say=lambda m: print(m, file=sys.stderr))
    print(f"review dashboard on http://{args.host}:{args.port}/ (Ctrl-C to stop)")
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return ExitCode.OK


def _users_add(args: argparse.Namespace) -> int:
    """The password from a prompt, or the first line of stdin when it is not a terminal."""
    import getpass

    from dashboard.accounts import AccountError, Accounts, Role

    if sys.stdin.isatty():
        password = getpass.getpass(f"password for {args.name}: ")
        if getpass.getpass("again: ") != password:
            raise AccountError("the passwords differ")
    else:
        password = sys.stdin.readline().rstrip("\n")
    account = Accounts(args.users).add(args.name, Role(args.role), password)
    print(f"{account.name}: {account.role} in {args.users}")
    return ExitCode.OK


def _generate(args: argparse.Namespace) -> int:
    from synth import generate_case

    path = generate_case(args.out, seed=args.seed)
    print(f"wrote {path}")
    return ExitCode.OK


def _store_options(parser: argparse.ArgumentParser) -> None:
    """The dashboard's accounts file and audit store (`dashboard` and `serve`)."""
    parser.add_argument(
        "--users", type=Path, default=Path(USERS_FILE), help="the dashboard's accounts file"
    )
    parser.add_argument(
        "--store",
        metavar="URL",
        default=os.environ.get("PETITIONS_STORE_URL"),
        help="the audit store: postgresql://USER@HOST/DB (default: review.sqlite in each "
        "case's report folder; or $PETITIONS_STORE_URL)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="petitions", description=__doc__.split("\n\n")[0])
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    check = sub.add_parser("check", help="check one petition and write its report")
    check.add_argument("case", type=Path, help="the case file (TOML)")
    check.add_argument("--out", type=Path, required=True, help="folder for the report")
    check.add_argument("--decisions", type=Path, help="reviewers' decisions (JSON Lines)")
    check.add_argument(
        "--engine",
        choices=("auto", "prefect", "local"),
        default="auto",
        help=(
            "run as a Prefect flow or as plain functions in this process; auto (default): the "
            "flow when a Prefect server is configured (PREFECT_API_URL), else in this process"
        ),
    )
    check.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="with --engine local: read pages in this many processes (scans: the cores)",
    )
    check.add_argument(
        "--dask",
        metavar="N|ADDRESS",
        help="run the flow's tasks on Dask: a local cluster of N workers, or a scheduler address",
    )
    check.add_argument(
        "--no-cache",
        action="store_true",
        help="read every page again (by default, pages already read come from the case cache)",
    )
    check.set_defaults(func=_check)

    demo = sub.add_parser("demo", help="check the bundled synthetic petition")
    demo.add_argument("--out", type=Path, default=Path("out/demo"))
    demo.add_argument("--engine", choices=("auto", "prefect", "local"), default="auto")
    demo.set_defaults(func=_demo)

    srv = sub.add_parser(
        "serve",
        help="check a case on each upload and through its filing window (Prefect server)",
    )
    srv.add_argument("case", type=Path)
    srv.add_argument("--out", type=Path, required=True)
    srv.add_argument("--every", type=int, default=60, help="minutes between checks")
    srv.add_argument(
        "--inbox", type=Path, help="folder watched for uploaded sheets (default: CASE_DIR/inbox)"
    )
    srv.add_argument(
        "--port", type=int, help="port of the Prefect server started when none is configured"
    )
    srv.add_argument(
        "--no-dashboard", action="store_true", help="do not start the review dashboard"
    )
    srv.add_argument(
        "--dashboard-port", type=int, default=8000, help="the review dashboard's port (0: any)"
    )
    _store_options(srv)
    srv.set_defaults(func=_serve)

    dash = sub.add_parser(
        "dashboard", help="serve the review dashboard for a checked case or a folder of cases"
    )
    dash.add_argument("root", type=Path, help="a report folder, a case folder or a folder of cases")
    dash.add_argument("--host", default="127.0.0.1")
    dash.add_argument("--port", type=int, default=8000)
    _store_options(dash)
    dash.set_defaults(func=_dashboard)

    users = sub.add_parser("users", help="dashboard accounts")
    users_sub = users.add_subparsers(dest="users_command", required=True, parser_class=_Parser)
    add = users_sub.add_parser("add", help="add an account (or set its role and password)")
    add.add_argument("name")
    add.add_argument("--role", choices=("reviewer", "supervisor"), required=True)
    add.add_argument("--users", type=Path, default=Path(USERS_FILE), help="the accounts file")
    add.set_defaults(func=_users_add)

    gen = sub.add_parser("generate", help="write a synthetic petition case (fixtures)")
    gen.add_argument("--out", type=Path, required=True)
    gen.add_argument("--seed", type=int, default=902)
    gen.set_defaults(func=_generate)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if argv is None and args.func in (_check, _demo):
        gc.disable()  # a short run: `_freeze_imports` resumes it once the modules are loaded
    for stream in (sys.stdout, sys.stderr):  # a file name that is not UTF-8 still prints
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    if args.verbose:
        logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    elif not logging.getLogger().handlers:
        # Problems reach the terminal once, from the summary; not again from the log.
        logging.getLogger().addHandler(logging.NullHandler())
    try:
        return int(args.func(args))
    except PetitionError as err:
        print(f"petitions: {err.message}", file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        print("petitions: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except Exception as err:
        return _internal_error(args, err)


def _internal_error(args: argparse.Namespace, err: Exception) -> int:
    """A bug: one line naming the case and the stage; the traceback goes to a log file (the
    report folder, or the temporary folder), never to the terminal."""
    where = stage_of(err) or f"running `petitions {args.command}`"
    case = getattr(args, "case", None)
    about = f" for {case}" if case else ""
    text = str(err).strip().splitlines()
    summary = f"{type(err).__name__}: {text[0][:200]}" if text else type(err).__name__
    logged = _crash_log(getattr(args, "out", None), traceback.format_exc())
    print(
        f"petitions: internal error while {where}{about}: {summary}. The traceback is in "
        f"{logged}; please report it with the case.",
        file=sys.stderr,
    )
    return ExitCode.INTERNAL


def _crash_log(out: Path | None, text: str) -> str:
    name = f"petitions-error-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}.log"
    for folder in [out, Path(tempfile.gettempdir())]:
        if folder is None:
            continue
        try:
            folder.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text(text, encoding="utf-8", errors="backslashreplace")
            return str(folder / name)
        except OSError:
            continue
    return "(no folder could be written: none)"


if __name__ == "__main__":
    sys.exit(main())
