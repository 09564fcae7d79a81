"""The one exception family. Problems with a line or a sheet are findings (data), not exceptions;
an exception means a file or the whole run cannot go on. Each carries the process exit code the
CLI uses (documented in the README) and a message that says what to do next."""

from __future__ import annotations

__all__ = [
    "CaseFileError",
    "DependencyMissingError",
    "ExitCode",
    "InputMissingError",
    "PetitionError",
    "UnreadableInputError",
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
    INTERNAL = 70


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
