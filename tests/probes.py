"""The bad-input corpus: every class of hostile or careless input `petitions check` has met,
built from the bundled synthetic cases (no real person's data), each with what must happen.

A probe copies a bundled case into a folder, breaks one thing and says what the run must end
with: the documented exit code, a line on stderr naming the input, no traceback, the report's
lines (lines in == lines judged) when a report is written, the verdict where it matters.
`run_probe` runs it as a subprocess (`pipeline.cli.main` in a fresh interpreter) with a time
limit and an address-space limit, and measures its peak memory.

    python -m tests.probes --out /tmp/probes          # build and run every probe, print a table
    python -m tests.probes --out /tmp/probes --slow   # with the heavy ones (1M-line register...)
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "fixtures" / "demo"
DISTRICT = REPO / "fixtures" / "kinds" / "improvement_district-sufficient"
DEMO_LINES = 60  # fixtures/demo/truth.json lines_read
DISTRICT_LINES = 30
MEMORY_LIMIT = 2 * 1024**3  # peak resident memory a probe may use
ADDRESS_LIMIT = 8 * 1024**3  # a runaway is stopped, not left to take the machine

__all__ = ["PROBES", "Probe", "Result", "run_probe"]


@dataclass(frozen=True)
class Probe:
    name: str
    build: Callable[[Path], list[str]]  # makes the inputs in a folder; returns the argv
    exit_code: int
    names: str  # what the line on stderr must contain: the input's name
    lines: int | None = None  # lines the report must hold; None: no report is written
    verdict: str | None = None
    check: Callable[[Path], None] | None = None  # more checks on the output folder
    hold_lock: bool = False  # run while another process holds the report folder's lock
    slow: bool = False
    timeout: float = 120.0


@dataclass
class Result:
    exit_code: int
    stdout: str
    stderr: str
    peak_mb: float
    seconds: float
    out: Path
    report: dict | None = field(default=None)


# -- building blocks ----------------------------------------------------------------------


def _copy(src: Path, folder: Path) -> Path:
    dest = folder / "case"
    shutil.copytree(src, dest)
    return dest


def _argv(case_dir: Path, *more: str) -> list[str]:
    out = case_dir.parent / "out"
    return ["check", str(case_dir / "case.toml"), "--out", str(out), "--engine", "local", *more]


def _edit_case(case_dir: Path, old: str, new: str) -> None:
    path = case_dir / "case.toml"
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def _demo_with(make: Callable[[Path], None]) -> Callable[[Path], list[str]]:
    def build(folder: Path) -> list[str]:
        case = _copy(DEMO, folder)
        make(case)
        return _argv(case)

    return build


def _district_with(make: Callable[[Path], None]) -> Callable[[Path], list[str]]:
    def build(folder: Path) -> list[str]:
        case = _copy(DISTRICT, folder)
        make(case)
        return _argv(case)

    return build


def _png(width: int, height: int) -> bytes:
    """A real grayscale PNG of any declared size; the pixel data is one compressed row
    repeated (a decompression bomb is small on disk)."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    raw = zlib.compress((b"\x00" + b"\xff" * width) * min(height, 64), 9)
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", raw) + chunk(b"IEND", b"")


def _pdf(path: Path, pages: int = 1, size: tuple[float, float] = (612, 792), **kw) -> None:
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=size, **kw)
    for i in range(pages):
        c.drawString(72, 72, f"synthetic probe page {i + 1}")
        c.showPage()
    c.save()


CYCLIC_PDF = (
    b"%PDF-1.4\n1 0 obj <</Type/Catalog/Pages 2 0 R>> endobj\n"
    b"2 0 obj <</Type/Pages/Kids[2 0 R 3 0 R]/Count 2>> endobj\n"
    b"3 0 obj <</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Resources 3 0 R>> endobj\n"
    b"trailer <</Root 1 0 R>>\n%%EOF\n"
)


def _register_lines(case: Path) -> list[str]:
    return (case / "register.csv").read_text(encoding="utf-8").splitlines(keepends=True)


def _write_register(case: Path, lines: list[str]) -> None:
    (case / "register.csv").write_text("".join(lines), encoding="utf-8")


def _cut_fields(case: Path) -> None:
    lines = _register_lines(case)
    for i in range(10, 25):
        lines[i] = ",".join(lines[i].split(",")[:30]) + "\n"
    _write_register(case, lines)


def _unterminated_quote(case: Path) -> None:
    lines = _register_lines(case)
    lines[20] = lines[20].rstrip("\n")[:-1] + "\n"  # the last value's closing quote is lost
    _write_register(case, lines)


def _unterminated_quote_unquoted(case: Path) -> None:
    lines = [ln.replace('"', "") for ln in _register_lines(case)]
    lines[20] = '"' + lines[20]  # the quote opened here is never closed: the rest is one value
    _write_register(case, lines)


def _conflicting_id(case: Path) -> None:
    lines = _register_lines(case)
    lines.append(lines[5].replace(lines[5].split(",")[1], '"Someoneelse"', 1))
    _write_register(case, lines)


def _formula_ids(case: Path) -> None:
    lines = _register_lines(case)
    _write_register(case, [ln.replace('"NY0', '"=1+1<b>NY0') for ln in lines])


def _no_formula_or_markup(out: Path) -> None:
    import csv

    with (out / "lines.csv").open(encoding="utf-8", newline="") as f:
        cells = [c for row in csv.reader(f) for c in row]
    assert any(c.startswith("'=1+1") for c in cells), "the voter ids did not reach lines.csv"
    assert not any(c.startswith(("=", "+", "@")) for c in cells)
    assert "<b>NY0" not in (out / "report.html").read_text(encoding="utf-8")


def _roll_value(value: str) -> Callable[[Path], None]:
    def make(case: Path) -> None:
        path = case / "roll.csv"
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        cells = lines[3].split(",")
        cells[-3] = value  # assessed_value (the mailing address is quoted: count from the end)
        lines[3] = ",".join(cells)
        path.write_text("".join(lines), encoding="utf-8")

    return make


def _roll_bom(case: Path) -> None:
    path = case / "roll.csv"
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())


def _decisions(text: bytes) -> Callable[[Path], list[str]]:
    def build(folder: Path) -> list[str]:
        case = _copy(DEMO, folder)
        (case / "decisions.jsonl").write_bytes(text)
        return _argv(case, "--decisions", str(case / "decisions.jsonl"))

    return build


def _out_is_file(folder: Path) -> list[str]:
    case = _copy(DEMO, folder)
    (folder / "out").write_text("a file where the report folder should be\n")
    return _argv(case)


def _out_under_a_file(folder: Path) -> list[str]:
    case = _copy(DEMO, folder)
    (folder / "plain").write_text("a file\n")
    argv = _argv(case)
    argv[argv.index("--out") + 1] = str(folder / "plain" / "out")
    return argv


# -- a careless clerk's inputs ---------------------------------------------------------------


def _header_row() -> str:
    from matchers.register import NYSBOE_45_FIELDS

    return ",".join(f'"{n}"' for n in NYSBOE_45_FIELDS) + "\n"


def _register_bytes(encode: Callable[[str], bytes]) -> Callable[[Path], None]:
    def make(case: Path) -> None:
        text = (case / "register.csv").read_text(encoding="utf-8")
        (case / "register.csv").write_bytes(encode(text))

    return make


def _latin_1(text: str) -> bytes:
    """Latin-1 with accented names (as an older state export may be)."""
    return text.replace('"Juniper"', '"Juníper"', 3).replace('"Enid"', '"Énid"').encode("latin-1")


def _sheet_pages(case: Path) -> list:
    from pipeline.run import ingest_one

    return [r for f in sorted((case / "sheets").iterdir()) for r in ingest_one(f)]


def _line_id(case: Path, page: int = 0, line: int = 1) -> str:
    return f"{_sheet_pages(case)[page].page_id}-{line:02d}"


def _conflicting_decisions(folder: Path) -> list[str]:
    """Two reviewers' decisions for one line at the same moment: one accepts, one rejects."""
    case = _copy(DEMO, folder)
    line = _line_id(case)
    rows = [
        {"line_id": line, "action": action, "reviewer": who, "reason": "synthetic probe",
         "decided_at": "2026-10-12T14:06:00+00:00"}
        for action, who in (("accept", "clerk-a@test"), ("reject", "clerk-b@test"))
    ]  # fmt: skip
    text = "".join(json.dumps(r) + "\n" for r in rows)
    (case / "decisions.jsonl").write_text(text + text, encoding="utf-8")  # and each twice
    return _argv(case, "--decisions", str(case / "decisions.jsonl"))


def _conflicted_line_in_review(out: Path) -> None:
    doc = json.loads((out / "report.json").read_text(encoding="utf-8"))
    line = _line_id(out.parent / "case")
    (status,) = [ln["status"] for ln in doc["lines"] if ln["line_id"] == line]
    assert status == "needs_review", f"the line with conflicting decisions is {status}"


def _rotated_sheet(case: Path) -> None:
    """A sheet's page turned a quarter (its /Rotate, as a scanner's software sets it)."""
    path = case / "sheets" / "sheet-01.pdf"
    data = path.read_bytes()
    assert b"/Rotate 0 /Trans" in data
    path.write_bytes(data.replace(b"/Rotate 0 /Trans", b"/Rotate 90/Trans"))  # same length


def _mixed_sizes(path: Path) -> None:
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path))
    for size in ((612, 792), (612, 1008), (595, 842), (792, 612)):
        c.setPageSize(size)
        c.drawString(72, 72, f"synthetic probe page {size}")
        c.showPage()
    c.save()


XFA_PDF = (
    b"%PDF-1.7\n1 0 obj <</Type/Catalog/Pages 2 0 R/AcroForm 4 0 R/NeedsRendering true>> endobj\n"
    b"2 0 obj <</Type/Pages/Kids[3 0 R]/Count 1>> endobj\n"
    b"3 0 obj <</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]>> endobj\n"
    b"4 0 obj <</Fields[]/XFA 5 0 R>> endobj\n"
    b"5 0 obj <</Length 44>> stream\n"
    b'<xdp:xdp xmlns:xdp="http://ns.adobe.com/xdp/"/>\nendstream endobj\n'
    b"trailer <</Root 1 0 R>>\n%%EOF\n"
)


def _tiff(path: Path, pages: int) -> None:
    from PIL import Image, ImageDraw

    frames = [Image.new("L", (850, 1100), 255) for _ in range(pages)]
    for i, frame in enumerate(frames):  # each page its own (identical pages are read once)
        ImageDraw.Draw(frame).text((100, 100 + 15 * i), f"synthetic probe page {i + 1}", fill=0)
    frames[0].save(path, save_all=True, append_images=frames[1:], compression="tiff_deflate")


def _exif_turned_jpeg(case: Path) -> None:
    """A sheet photographed sideways: the pixels on their side, the EXIF orientation saying how
    to turn them upright (as a phone saves it). It replaces the sheet's PDF."""
    import pypdfium2
    from PIL import Image

    pdf = pypdfium2.PdfDocument(case / "sheets" / "sheet-02.pdf")
    image = pdf[0].render(scale=200 / 72).to_pil().convert("L")
    pdf.close()
    exif = Image.Exif()
    exif[0x0112] = 6  # the viewer turns it 90 degrees clockwise
    image.transpose(Image.Transpose.ROTATE_90).save(
        case / "sheets" / "sheet-02.jpg", quality=90, exif=exif, dpi=(200, 200)
    )
    (case / "sheets" / "sheet-02.pdf").unlink()


def _spaced_unicode(folder: Path) -> list[str]:
    """The case in a folder whose path has spaces and letters outside ASCII."""
    case = folder / "Village Clerk's files" / "pétition — 2026"
    shutil.copytree(DEMO, case)
    out = folder / "out"
    return ["check", str(case / "case.toml"), "--out", str(out), "--engine", "local"]


def _subfolder(case: Path) -> None:
    """Sheets put in a folder inside the sheets folder, and a link back to it (a loop)."""
    (case / "sheets" / "batch 2").mkdir()
    shutil.move(case / "sheets" / "sheet-04.pdf", case / "sheets" / "batch 2" / "sheet-04.pdf")
    os.symlink("..", case / "sheets" / "batch 2" / "loop")
    os.symlink(".", case / "sheets" / "again")


STRAY = (
    b'{"line_id": "0123456789ab-07", "action": "reject", "reviewer": "clerk@test", '
    b'"decided_at": "2026-10-12T14:06:00+00:00", "reason": "a sheet re-scanned since"}\n'
)

# -- the corpus -----------------------------------------------------------------------------

PROBES: tuple[Probe, ...] = (
    # sheet files: refused with one line each, the rest of the batch judged
    Probe("fifo", _demo_with(lambda c: os.mkfifo(c / "sheets" / "sheet-99.pdf")), 5,
          "sheet-99.pdf", DEMO_LINES),
    Probe("dev-zero", _demo_with(lambda c: _edit_case(c, 'sheets = ["sheets"]',
                                                      'sheets = ["sheets", "/dev/zero"]')),
          5, "/dev/zero", DEMO_LINES),
    Probe("decompression-bomb", _demo_with(
        lambda c: (c / "sheets" / "sheet-99.png").write_bytes(_png(60_000, 60_000))),
        5, "sheet-99.png", DEMO_LINES),
    Probe("one-pixel-image", _demo_with(
        lambda c: (c / "sheets" / "sheet-99.png").write_bytes(_png(1, 1))),
        5, "sheet-99.png", DEMO_LINES),
    Probe("12000-pixels-wide", _demo_with(
        lambda c: (c / "sheets" / "sheet-99.png").write_bytes(_png(12_000, 300))),
        5, "sheet-99.png", DEMO_LINES),
    Probe("69-inch-page", _demo_with(
        lambda c: _pdf(c / "sheets" / "sheet-99.pdf", size=(612, 69 * 72))),
        5, "sheet-99.pdf", DEMO_LINES),
    Probe("pages-per-file", _demo_with(lambda c: (
        _pdf(c / "sheets" / "sheet-99.pdf", pages=4),
        _edit_case(c, "[register]", "[limits]\npages_per_file = 3\n\n[register]"))),
        5, "sheet-99.pdf", DEMO_LINES),
    Probe("5000-page-pdf", _demo_with(
        lambda c: _pdf(c / "sheets" / "sheet-99.pdf", pages=5000)),
        5, "sheet-99.pdf", DEMO_LINES, slow=True),
    Probe("password-pdf", _demo_with(
        lambda c: _pdf(c / "sheets" / "sheet-99.pdf", encrypt="secret")),
        5, "password-protected", DEMO_LINES),
    Probe("not-a-pdf", _demo_with(
        lambda c: (c / "sheets" / "sheet-99.pdf").write_bytes(os.urandom(4096))),
        5, "sheet-99.pdf", DEMO_LINES),
    Probe("cyclic-page-tree", _demo_with(
        lambda c: (c / "sheets" / "sheet-99.pdf").write_bytes(CYCLIC_PDF)),
        5, "sheet-99.pdf", DEMO_LINES),
    Probe("truncated-pdf", _demo_with(lambda c: (c / "sheets" / "sheet-99.pdf").write_bytes(
        (c / "sheets" / "sheet-02.pdf").read_bytes()[:1500])),
        5, "sheet-99.pdf", DEMO_LINES),
    Probe("name-not-utf8", _demo_with(lambda c: (c / "sheets" / os.fsdecode(b"sheet-\xff.pdf"))
          .write_bytes(b"junk")), 5, "sheet-\\udcff.pdf", DEMO_LINES),
    # the register: never a confident wrong verdict
    Probe("register-twice", _demo_with(
        lambda c: _write_register(c, _register_lines(c) * 2)), 0, "", DEMO_LINES, "sufficient"),
    Probe("register-wrong-field-counts", _demo_with(_cut_fields), 0, "register.csv",
          DEMO_LINES, "sufficient"),
    Probe("register-unterminated-quote", _demo_with(_unterminated_quote), 0, "register.csv",
          DEMO_LINES, "sufficient"),  # 2 rows lost: 28 required at most, 38 valid
    Probe("register-quote-takes-the-rest", _demo_with(_unterminated_quote_unquoted), 0,
          "register.csv", DEMO_LINES, "undetermined"),
    Probe("register-conflicting-id", _demo_with(_conflicting_id), 0,
          "REGISTER_CONFLICTING_IDS", DEMO_LINES),
    Probe("register-mostly-junk", _demo_with(lambda c: _write_register(
        c, _register_lines(c) + ["junk,junk\n"] * 5000)), 4, "register.csv"),
    Probe("register-1M-junk-lines", _demo_with(lambda c: _write_register(
        c, _register_lines(c) + ["junk,junk,junk\n"] * 1_000_000)), 4, "register.csv",
        slow=True),
    Probe("register-one-long-line", _demo_with(lambda c: _write_register(
        c, _register_lines(c) + ["x" * 200_000 + "\n"])), 4, "register.csv"),
    Probe("register-fifo", _demo_with(lambda c: (
        (c / "register.csv").unlink(), os.mkfifo(c / "register.csv"))), 4, "register.csv"),
    Probe("voter-id-formula", _demo_with(_formula_ids), 0, "", DEMO_LINES,
          check=_no_formula_or_markup),
    # the assessment roll
    Probe("roll-infinity", _district_with(_roll_value("Infinity")), 0, "roll.csv",
          DISTRICT_LINES, "undetermined"),
    Probe("roll-huge-value", _district_with(_roll_value("1e999999999")), 0, "roll.csv",
          DISTRICT_LINES, "undetermined"),
    Probe("roll-byte-order-mark", _district_with(_roll_bom), 0, "", DISTRICT_LINES,
          "sufficient"),
    # the case file's facts
    Probe("election-year-typo", _demo_with(lambda c: _edit_case(
        c, "previous_general_election = 2026", "previous_general_election = 2016")),
        2, "case.toml"),
    Probe("election-after-filing", _demo_with(lambda c: _edit_case(
        c, "previous_general_election = 2026", "previous_general_election = 2062")),
        2, "case.toml"),
    Probe("end-of-calendar", _demo_with(lambda c: _edit_case(
        c, "filed = 2026-10-09", "filed = 9999-12-31")), 2, "case.toml"),
    Probe("no-electors", _demo_with(lambda c: _edit_case(
        c, 'election_districts = ["1", "2", "3", "4"]', 'election_districts = ["9"]')),
        2, "0 electors"),
    Probe("case-not-utf8", _demo_with(lambda c: (c / "case.toml").write_bytes(
        (c / "case.toml").read_bytes().replace(b"Elmwood", b"Elmw\xf6od"))), 2, "case.toml"),
    Probe("limits-typo", _demo_with(lambda c: _edit_case(
        c, "[register]", "[limits]\npages_per_fiel = 3\n\n[register]")), 2, "pages_per_fiel"),
    # reviewers' decisions
    Probe("decisions-not-utf8", _decisions(b'{"line_id": "\xff\xfe"}\n'), 4, "decisions.jsonl"),
    Probe("decision-for-no-line", _decisions(STRAY), 0, "DECISIONS_UNMATCHED", DEMO_LINES,
          "undetermined"),
    # the report folder
    Probe("out-is-a-file", _out_is_file, 73, "out"),
    Probe("out-under-a-file", _out_under_a_file, 73, "plain"),
    Probe("out-locked", _demo_with(lambda c: None), 75, "another `petitions check`",
          hold_lock=True),
    # a careless clerk: encodings, line ends, exports put together, empty files, odd pages
    Probe("register-latin-1", _demo_with(_register_bytes(_latin_1)), 0, "", DEMO_LINES,
          "sufficient"),
    Probe("register-utf-16", _demo_with(_register_bytes(lambda t: t.encode("utf-16"))), 4,
          "register.csv"),
    Probe("register-crlf", _demo_with(_register_bytes(
        lambda t: t.replace("\n", "\r\n").encode())), 0, "", DEMO_LINES, "sufficient"),
    Probe("register-header-repeated", _demo_with(lambda c: _write_register(
        c, [_header_row(), *_register_lines(c), _header_row(), *_register_lines(c)])),
        0, "", DEMO_LINES, "sufficient"),
    Probe("register-ids-padded", _demo_with(lambda c: _write_register(c, _register_lines(c) + [
        ln.replace('"NY0', '"  NY0') for ln in _register_lines(c)])),
        0, "", DEMO_LINES, "sufficient"),
    Probe("register-empty", _demo_with(lambda c: (c / "register.csv").write_bytes(b"")), 4,
          "register.csv"),
    Probe("sheet-empty", _demo_with(lambda c: (c / "sheets" / "sheet-99.pdf").write_bytes(b"")),
          5, "sheet-99.pdf", DEMO_LINES),
    Probe("sheet-rotated-page", _demo_with(_rotated_sheet), 0, "", DEMO_LINES, "sufficient"),
    # pages read but holding no signature table: a person checks them, and the terminal says so
    Probe("sheet-mixed-page-sizes", _demo_with(lambda c: _mixed_sizes(
        c / "sheets" / "sheet-99.pdf")), 0, "sheet-99.pdf: no signature table", DEMO_LINES),
    Probe("sheet-xfa-form", _demo_with(lambda c: (c / "sheets" / "sheet-99.pdf").write_bytes(
        XFA_PDF)), 0, "sheet-99.pdf: no signature table", DEMO_LINES),
    Probe("tiff-50-pages", _demo_with(lambda c: _tiff(c / "sheets" / "sheet-99.tif", 50)),
          0, "sheet-99.tif: no signature table", DEMO_LINES, slow=True, timeout=300),
    Probe("sheets-in-a-subfolder", _demo_with(_subfolder), 5, "batch 2", DEMO_LINES - 10),
    Probe("case-path-spaces-unicode", _spaced_unicode, 0, "", DEMO_LINES, "sufficient"),
    Probe("jpeg-exif-turned", _demo_with(_exif_turned_jpeg), 0, "", DEMO_LINES, slow=True,
          timeout=300),
    Probe("case-another-kinds-section", _demo_with(lambda c: _edit_case(
        c, "[register]", '[district]\nname = "Maple Ridge Sewer District"\n'
        'roll = { path = "register.csv" }\nboundaries_described = true\n\n[register]')),
        2, "district"),
    Probe("case-wrong-kind", _demo_with(lambda c: _edit_case(
        c, 'kind = "permissive_referendum"', 'kind = "improvement_district"')), 2, "case.toml"),
    Probe("decisions-empty", _decisions(b""), 0, "", DEMO_LINES, "sufficient"),
    Probe("decisions-conflicting", _conflicting_decisions, 0, "DECISIONS_CONFLICTING",
          DEMO_LINES, check=_conflicted_line_in_review),
)  # fmt: skip


def _in_duckdb(probe: Probe) -> Probe:
    """The probe with its register imported into DuckDB (the path a register of 64 MB or more
    takes: `[matching] store = "duckdb"` forces it): the same end is expected."""

    def build(folder: Path) -> list[str]:
        argv = probe.build(folder)
        case = Path(argv[1])
        text = case.read_text(encoding="utf-8")
        case.write_text(text + '\n[matching]\nstore = "duckdb"\n', encoding="utf-8")
        return argv

    return replace(probe, name=f"{probe.name}-duckdb", build=build)


PROBES += tuple(_in_duckdb(p) for p in PROBES if p.name.startswith("register-"))


# -- running one --------------------------------------------------------------------------


# `petitions` in-process, then its peak resident memory (and its pool workers') into a file.
_WRAPPER = """
import os, resource, sys
from pipeline.cli import main
try:
    code = main(sys.argv[1:])
finally:
    who = (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
    peak = max(resource.getrusage(r).ru_maxrss for r in who)
    with open(os.environ["PETITIONS_PROBE_PEAK"], "w") as f:
        f.write(str(peak))
sys.exit(code)
"""


def _limit_address_space() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_LIMIT, ADDRESS_LIMIT))


def run_probe(probe: Probe, folder: Path) -> Result:
    """Build the probe's inputs in `folder` and run `petitions` on them in a subprocess."""
    folder.mkdir(parents=True, exist_ok=True)
    argv = probe.build(folder)
    out = Path(argv[argv.index("--out") + 1])
    lock = None
    if probe.hold_lock:
        out.mkdir(parents=True, exist_ok=True)
        lock = os.open(out / ".petitions.lock", os.O_RDWR | os.O_CREAT)
        fcntl.flock(lock, fcntl.LOCK_EX)
    peak_file = folder / "peak-kb"
    env = {
        **os.environ,
        "DO_NOT_TRACK": "1",
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PETITIONS_PROBE_PEAK": str(peak_file),
    }
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", _WRAPPER, *argv],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=_limit_address_space,
    )
    try:
        stdout, stderr = proc.communicate(timeout=probe.timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        stdout, stderr = proc.communicate()
    seconds = time.perf_counter() - started
    peak = float(peak_file.read_text()) / 1024 if peak_file.is_file() else float("inf")
    if lock is not None:
        os.close(lock)
    report = None
    if (out / "report.json").is_file():
        report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    return Result(
        proc.returncode,
        stdout.decode("utf-8", "replace"),
        stderr.decode("utf-8", "replace"),
        peak,
        seconds,
        out,
        report,
    )


def problems(probe: Probe, result: Result) -> list[str]:
    """What the run did that it must not (empty: the probe passed)."""
    found = []
    if result.exit_code != probe.exit_code:
        found.append(f"exit {result.exit_code}, expected {probe.exit_code}")
    if "Traceback" in result.stderr or "Traceback" in result.stdout:
        found.append("a traceback on the terminal")
    if result.seconds >= probe.timeout:
        found.append(f"ran past {probe.timeout:.0f} s")
    if result.peak_mb * 1024**2 >= MEMORY_LIMIT:
        found.append(f"peak memory {result.peak_mb:.0f} MB")
    if probe.names:
        naming = [ln for ln in result.stderr.splitlines() if probe.names in ln]
        if not naming:
            found.append(f"no line on stderr names {probe.names!r}")
        elif probe.lines is not None and probe.exit_code == 5 and len(naming) != 1:
            found.append(f"{probe.names!r} named on {len(naming)} lines, not once")
    if probe.lines is None:
        return found
    doc = result.report
    if doc is None:
        return [*found, "no report.json"]
    if not doc["totals"]["lines_read"] == len(doc["lines"]) == probe.lines:
        found.append(
            f"lines read {doc['totals']['lines_read']}, judged {len(doc['lines'])}, "
            f"expected {probe.lines}"
        )
    if probe.verdict is not None and doc["verdict"]["value"] != probe.verdict:
        found.append(f"verdict {doc['verdict']['value']}, expected {probe.verdict}")
    if probe.check is not None:
        try:
            probe.check(result.out)
        except AssertionError as err:
            found.append(f"check: {err}")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--slow", action="store_true", help="the heavy probes too")
    parser.add_argument("--only", nargs="*", help="probe names")
    args = parser.parse_args(argv)
    failed = 0
    for probe in PROBES:
        if (probe.slow and not args.slow) or (args.only and probe.name not in args.only):
            continue
        folder = args.out / probe.name
        shutil.rmtree(folder, ignore_errors=True)
        result = run_probe(probe, folder)
        wrong = problems(probe, result)
        failed += bool(wrong)
        line = next((ln for ln in result.stderr.splitlines() if probe.names in ln), "")
        print(
            f"{'FAIL' if wrong else 'ok  '} {probe.name:28} exit {result.exit_code:3} "
            f"{result.seconds:5.1f} s {result.peak_mb:6.0f} MB  {'; '.join(wrong) or line[:90]}"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
