"""A case's inbox folder: a sheet file dropped there, once fully written (its size and time
unchanged between two looks, a second apart), is moved into the case's sheets folder and the
upload event is emitted (`flows.events`), which runs the case's check. The same sheet uploaded
twice is read once: the check reports the copy (`pipeline.run.collect_pages`) and the page cache
holds its reading.
"""

from __future__ import annotations

import logging
import shutil
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from pipeline.case import load_case
from pipeline.errors import CaseFileError
from pipeline.ingest import IMAGE_SUFFIXES, PDF_SUFFIXES

__all__ = ["InboxWatcher", "accept_sheet", "sheets_folder"]

log = logging.getLogger(__name__)


def sheets_folder(case_path: str | Path) -> Path:
    """Where uploaded sheets go: the last folder among the case's `sheets` (created when the
    case names a folder that does not exist yet)."""
    case = load_case(case_path)
    folders = [p for p in case.sheets if p.is_dir() or not p.suffix]
    if not folders:
        raise CaseFileError(
            str(case_path),
            ["`sheets` names no folder: a sheet uploaded to the inbox would not be checked"],
        )
    folders[-1].mkdir(parents=True, exist_ok=True)
    return folders[-1]


def accept_sheet(source: Path, folder: Path) -> Path:
    """Move an uploaded sheet into the sheets folder under its own name ("name~2.pdf" when the
    name is taken: a file of the case is never overwritten, and the later upload sorts after
    the earlier one, sheets being filed in name order)."""
    target = folder / source.name
    n = 2
    while target.exists():
        target = folder / f"{source.stem}~{n}{source.suffix}"
        n += 1
    shutil.move(str(source), target)
    return target


class InboxWatcher:
    """Watches `inbox` (polling: no platform file-system API needed) and, for each sheet file
    fully written there, moves it into `folder` and calls `uploaded([path])`. Files that are
    not sheets are left where they are, with one warning."""

    def __init__(
        self,
        inbox: Path,
        folder: Path,
        uploaded: Callable[[Sequence[Path]], object],
        interval: float = 1.0,
    ) -> None:
        self.inbox, self.folder, self._uploaded, self._interval = inbox, folder, uploaded, interval
        self._seen: dict[Path, tuple[int, int]] = {}
        self._warned: set[Path] = set()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def poll(self) -> list[Path]:
        """One look: move the files that have not changed since the last look."""
        self.inbox.mkdir(parents=True, exist_ok=True)
        ready: list[Path] = []
        now: dict[Path, tuple[int, int]] = {}
        for path in sorted(self.inbox.iterdir()):
            if not path.is_file() or path.name.startswith("."):
                continue
            if path.suffix.lower() not in PDF_SUFFIXES | IMAGE_SUFFIXES:
                if path not in self._warned:
                    log.warning("%s: not a sheet file (PDF, PNG, JPEG or TIFF); left there", path)
                    self._warned.add(path)
                continue
            try:
                st = path.stat()
            except OSError:
                continue
            now[path] = (st.st_size, st.st_mtime_ns)
            if self._seen.get(path) == now[path] and st.st_size > 0:
                ready.append(path)
        self._seen = {p: v for p, v in now.items() if p not in ready}
        moved = [accept_sheet(p, self.folder) for p in ready]
        if moved:
            log.info("inbox: %d sheet file(s) accepted into %s", len(moved), self.folder)
            self._uploaded(moved)
        return moved

    def _loop(self) -> None:
        while not self._stop.wait(self._interval):
            try:
                self.poll()
            except Exception:  # one bad look must not stop the watcher
                log.exception("inbox %s: could not be read", self.inbox)

    def start(self) -> InboxWatcher:
        self._thread = threading.Thread(target=self._loop, name="inbox", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
