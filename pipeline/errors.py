"""The one exception family. Problems with a line or a sheet are findings (data), not exceptions;
an exception means a file or the whole run cannot go on. Each carries the process exit code the
CLI uses (documented in the README) and a message that says what to do next."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

__all__ = [
    "CaseFileError",
    "DependencyMissingError",
    "ExitCode",
    "InputMissingError",
    "OutputBusyError",
    "OutputError",
    "PetitionError",
    "UnreadableInputError",
    "stage",
    "stage_of",
]


class ExitCode:
    OK = 0
    CASE_FILE = 2
    INPUT_MISSING = 3
    UNREADABLE_INPUT = 4
    PARTIAL = 5  # the report was written, but some input files could not be read
    DEPENDENCY = 6
    TRUTH_MISMATCH = 7  # `petitions demo`: the report disagrees with the fixture's ground truth
    USAGE = 64  # bad command line (sysexits EX_USAGE)
    INTERNAL = 70  # a bug (sysexits EX_SOFTWARE): the traceback is in a log file
    OUTPUT = 73  # the report folder cannot be written (sysexits EX_CANTCREAT)
    BUSY = 75  # another check is writing the same report folder (sysexits EX_TEMPFAIL)
    INTERRUPTED = 130  # Ctrl-C (128 + SIGINT)


class PetitionError(Exception):
    exit_code: int = ExitCode.INTERNAL

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class CaseFileError(PetitionError):
    """The case file is missing, not TOML, or has invalid keys. Lists every problem at once."""

    exit_code = ExitCode.CASE_FILE

    def __init__(self, path: str, problems: list[str]) -> None:
        self.path = path
        self.problems = problems
        lines = "\n".join(f"  - {p}" for p in problems)
        super().__init__(
            f"{path}: the case file has {len(problems)} problem(s):\n{lines}\n"
            "Fix them and run again; README.md ('The case file') documents every key."
        )


class InputMissingError(PetitionError):
    """A file the run needs (the register) does not exist."""

    exit_code = ExitCode.INPUT_MISSING


class UnreadableInputError(PetitionError):
    """A file exists but cannot be read as what it claims to be. Raised for one sheet file it
    is caught and recorded in the report (the batch goes on); for the register it stops the run."""

    exit_code = ExitCode.UNREADABLE_INPUT


class DependencyMissingError(PetitionError):
    exit_code = ExitCode.DEPENDENCY


class OutputError(PetitionError):
    """The report folder cannot be written: --out is a file, read-only, or the disk is full."""

    exit_code = ExitCode.OUTPUT


class OutputBusyError(PetitionError):
    """Another check holds the lock on the same report folder."""

    exit_code = ExitCode.BUSY


_STAGE_NOTE = "petitions stage: "


@contextmanager
def stage(name: str) -> Iterator[None]:
    """Marks an unexpected exception (a bug, not a PetitionError) with the stage it came from,
    for the command line's one-line internal-error message."""
    try:
        yield
    except PetitionError:
        raise
    except Exception as err:
        if stage_of(err) is None:
            err.add_note(_STAGE_NOTE + name)
        raise


def stage_of(err: BaseException) -> str | None:
    """The stage `stage` marked `err` with, if any."""
    for note in getattr(err, "__notes__", ()):
        if note.startswith(_STAGE_NOTE):
            return note[len(_STAGE_NOTE) :]
    return None
