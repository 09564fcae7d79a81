"""What the pipeline asks of a matcher: one seam, whatever matches the signers.

`FSMatcher` (voters on the register, or owners on the assessment roll: the roll's owners are
entries of the same kind) and `BaselineMatcher` satisfy it; `pipeline.run` and the flows type
against it, so a matcher is swapped (a fake in a test, another method) without touching them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from pipeline.records import Match, SignatureLine

__all__ = ["Matcher"]


@runtime_checkable
class Matcher(Protocol):
    """Who signed each line: `match_all(lines)` gives one `Match` per line, in order (blank
    lines are not passed). `method` names the matcher and its version, as each Match does."""

    method: str

    def match_all(self, lines: Sequence[SignatureLine]) -> tuple[Match, ...]: ...
