"""The cases a dashboard serves, found in one folder, and new cases made in it.

The folder given to `petitions dashboard` is one of:

- a checked case's report folder (it holds `judging.pickle`): that one case;
- a case folder (it holds `case.toml`), or a case file of any name: that case, its report in
  `out/` (or the folder given as `out_dir`: `petitions serve` gives its own);
- a folder of case folders: every one of them; a clerk can create more in it.

A case folder made in the browser holds `case.toml`, the register or roll it names, its sheets
in `sheets/` and its report in `out/`. Uploaded files get names made here (a sequence number
and the client's name reduced to letters, digits, dots and dashes), never a client's path.
"""

from __future__ import annotations

import re
import shutil
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from flows.server import configured_api_url
from pipeline.errors import PetitionError
from pipeline.judging import JUDGING_FILE

from .audit import StoreError, check_store_url
from .checking import checker_for, report_stamp
from .review import CaseReview

__all__ = ["MAX_UPLOAD_BYTES", "UploadError", "Workspace", "safe_name", "sniff"]

MAX_UPLOAD_BYTES = 50 * 1024 * 1024
CASE_FILE = "case.toml"
OUT = "out"

# Content types by their first bytes: what an upload must be, whatever its name says.
_MAGIC = (
    (b"%PDF-", "pdf"),
    (b"\x89PNG\r\n\x1a\n", "png"),
    (b"\xff\xd8\xff", "jpg"),
    (b"II*\x00", "tif"),
    (b"MM\x00*", "tif"),
)


class UploadError(PetitionError):
    """An upload refused: too large, not a sheet's type, or no case to put it in."""


def sniff(head: bytes) -> str | None:
    """The sheet file type from its first bytes: pdf, png, jpg, tif; None for anything else."""
    return next((ext for magic, ext in _MAGIC if head.startswith(magic)), None)


def safe_name(client_name: str, number: int, ext: str) -> str:
    """A file name made here: `0007-sheet-3.pdf`. Only the client name's last part is kept,
    reduced to [A-Za-z0-9._-] without leading dots; the extension is the sniffed type's."""
    stem = re.split(r"[\\/]", client_name or "")[-1]
    stem = stem.rsplit(".", 1)[0] if "." in stem else stem
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", stem).strip(".-")[:60] or "sheet"
    return f"{number:04d}-{stem}.{ext}"


def _paths_inside(folder: Path, register_ext: str) -> None:
    """The case file, validated, names its sheets folder and its register or roll as stored,
    and nothing outside the folder (a client's case file is not trusted either)."""
    from pipeline.case import load_case

    case = load_case(folder / CASE_FILE)
    inside = folder.resolve()
    named = list(case.sheets) + [
        Path(c.path) for c in (case.register_file, case.denominator_register, case.roll) if c
    ]
    wanted = {inside / "sheets", inside / f"{register_ext}.csv"}
    outside = [str(p) for p in named if Path(p).resolve() not in wanted]
    if outside:
        raise UploadError(
            f'the case file must name sheets = ["sheets"] and path = "{register_ext}.csv" '
            f"and nothing else: it names {', '.join(outside)}"
        )


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:40] or "case"


@dataclass
class CaseSlot:
    """One case of the workspace: where it is, and its review once checked."""

    case_id: str
    out_dir: Path
    case_dir: Path | None  # None: a report folder given alone (no uploads)
    review: CaseReview | None = None
    checking: bool = False
    problem: str = ""  # the last check's failure, in one line
    case_name: str = CASE_FILE  # the case file in case_dir
    loaded: tuple[int, int] | None = None  # the report the review was loaded from

    @property
    def sheets_dir(self) -> Path | None:
        return self.case_dir / "sheets" if self.case_dir is not None else None


# (case file, report folder, decisions, sheet files just uploaded) -> when the report is written
Checker = Callable[[Path, Path, list, list], object]


class Workspace:
    def __init__(
        self,
        root: Path,
        checker: Checker | None = None,
        store_url: str | None = None,
        out_dir: Path | None = None,
    ) -> None:
        self.root = Path(root).resolve()
        # None: through the case's Prefect deployment when the configured server has it, else
        # in this process (checking.checker_for, asked at each check)
        self.checker = checker
        self.out_dir = out_dir  # one case folder's report folder, when not its out/
        check_store_url(store_url)
        self.store_url = store_url  # the audit store (audit.open_store); None: SQLite
        self.slots: dict[str, CaseSlot] = {}
        self._lock = threading.Lock()
        self.many = False
        self._discover()

    def _discover(self) -> None:
        if self.root.is_file():  # a case file
            out = Path(self.out_dir).resolve() if self.out_dir else self.root.parent / OUT
            slot = CaseSlot(_slug(self.root.parent.name), out, self.root.parent)
            self._add(replace(slot, case_name=self.root.name))
        elif (self.root / JUDGING_FILE).is_file():
            self._add(CaseSlot(_slug(self.root.name), self.root, None))
        elif (self.root / CASE_FILE).is_file():
            out = Path(self.out_dir).resolve() if self.out_dir else self.root / OUT
            self._add(CaseSlot(_slug(self.root.name), out, self.root))
        else:
            self.many = True
            for d in sorted(p for p in self.root.iterdir() if p.is_dir()):
                if (d / CASE_FILE).is_file():
                    self._add(CaseSlot(_slug(d.name), d / OUT, d))
                elif (d / JUDGING_FILE).is_file():
                    self._add(CaseSlot(_slug(d.name), d, None))

    def _add(self, slot: CaseSlot) -> None:
        self._load(slot)
        self.slots[slot.case_id] = slot

    def _load(self, slot: CaseSlot) -> None:
        """Open the slot's review, or judge it again, from the report folder as it is now."""
        if not (slot.out_dir / JUDGING_FILE).is_file():
            return
        stamp = report_stamp(slot.out_dir)
        try:
            if slot.review is None:
                slot.review = CaseReview(slot.out_dir, slot.case_id, self.store_url)
            else:
                slot.review.reload()
            slot.loaded, slot.problem = stamp, ""
        except StoreError:
            raise  # no store, no review: the server does not start
        except PetitionError as err:
            slot.problem = err.message

    def get(self, case_id: str) -> CaseSlot | None:
        return self.slots.get(case_id)

    def fresh(self, slot: CaseSlot) -> CaseSlot:
        """The slot, its review reloaded first when another check (a scheduled run, an inbox
        drop, another dashboard's upload) has written a newer report since it was loaded."""
        if not slot.checking and report_stamp(slot.out_dir) != slot.loaded:
            self._load(slot)
        return slot

    # new cases and uploads ------------------------------------------------------------------

    def create(self, name: str, case_toml: bytes, register: bytes, register_ext: str) -> CaseSlot:
        """A new case folder from a case file and its register (or roll). The case file must
        name `sheets = ["sheets"]` and the register as `register.csv` (or the roll as
        `roll.csv`): every path it names must be inside the folder, or nothing is kept."""
        if not self.many:
            raise UploadError("this dashboard serves one case; start it on a folder of cases")
        with self._lock:
            base = _slug(name)
            case_id, n = base, 1
            while case_id in self.slots or (self.root / case_id).exists():
                n += 1
                case_id = f"{base}-{n}"
            folder = self.root / case_id
            (folder / "sheets").mkdir(parents=True)
            (folder / CASE_FILE).write_bytes(case_toml)
            (folder / f"{register_ext}.csv").write_bytes(register)
            try:
                _paths_inside(folder, register_ext)
            except (PetitionError, OSError) as err:
                shutil.rmtree(folder)
                raise UploadError(getattr(err, "message", str(err))) from None
            slot = CaseSlot(case_id, folder / OUT, folder)
            self.slots[case_id] = slot
        return slot

    def store_upload(self, slot: CaseSlot, client_name: str, data: bytes) -> Path:
        if slot.sheets_dir is None:
            raise UploadError("this case was opened from its report alone: it takes no uploads")
        if len(data) > MAX_UPLOAD_BYTES:
            raise UploadError(f"{safe_name(client_name, 0, 'x')}: larger than 50 MB")
        ext = sniff(data[:16])
        if ext is None:
            raise UploadError(
                f"{safe_name(client_name, 0, 'bin')}: not a PDF, PNG, JPEG or TIFF file"
            )
        sheets = slot.sheets_dir
        sheets.mkdir(parents=True, exist_ok=True)
        with self._lock:
            number = 1 + sum(1 for _ in sheets.iterdir())
            path = sheets / safe_name(client_name, number, ext)
            if path.resolve().parent != sheets.resolve():  # cannot happen; never write outside
                raise UploadError(f"{path.name}: refused")
            path.write_bytes(data)
        return path

    # checking -------------------------------------------------------------------------------

    def check(self, slot: CaseSlot, files: Sequence[Path] = ()) -> threading.Thread:
        """Check the case in the background (the pipeline, with the review's decisions;
        `files`: the sheets just uploaded); the review opens, or reloads, when it is done."""
        case_dir = slot.case_dir
        if case_dir is None:
            raise UploadError("this case was opened from its report alone: it cannot be checked")
        slot.checking = True
        slot.problem = ""
        decisions = [s.decision for s in slot.review.audit.decisions()] if slot.review else []

        def work() -> None:
            case_file = case_dir / slot.case_name
            try:
                checker = self.checker or checker_for(case_file, configured_api_url())
                checker(case_file, slot.out_dir, decisions, list(files))
                self._load(slot)
            except PetitionError as err:
                slot.problem = err.message
            except Exception as err:  # shown to the clerk; the server goes on
                slot.problem = f"the check failed: {type(err).__name__}: {err}"
            finally:
                slot.checking = False

        thread = threading.Thread(target=work, name=f"check-{slot.case_id}", daemon=True)
        thread.start()
        return thread
