"""What every statute's rule set is made of.

A rule is a plain function that reads one thing (a line, a sheet, the whole petition) and returns
findings. Each rule sits beside the words of the statute it implements, with its citation; a
`RuleSet` collects a petition kind's rules and its threshold.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..case import CaseConfig
from ..records import (
    Finding,
    Holding,
    Match,
    RegisterEntry,
    Severity,
    Sheet,
    SignatureLine,
    ValuationResult,
)

__all__ = [
    "LineContext",
    "LineRule",
    "PetitionRule",
    "RuleSet",
    "SheetRule",
    "Threshold",
    "finding",
]


def finding(
    code: str,
    severity: Severity,
    citation: str,
    message: str,
    *,
    page_id: str | None = None,
    line_no: int | None = None,
    **evidence: Any,
) -> Finding:
    return Finding(
        code=code,
        severity=severity,
        citation=citation,
        message=message,
        page_id=page_id,
        line_no=line_no,
        evidence=evidence,
    )


@dataclass(frozen=True, slots=True)
class LineContext:
    """Everything a line rule may look at: the line, its sheet, its match and the register entry
    it matched (if any), the date it was signed (parsed; None if missing or unreadable), and the
    case."""

    line: SignatureLine
    sheet: Sheet
    match: Match | None
    entry: RegisterEntry | None
    signed_on: dt.date | None
    case: CaseConfig

    def finding(self, code: str, severity: Severity, citation: str, message: str, **ev: Any):
        return finding(
            code,
            severity,
            citation,
            message,
            page_id=self.line.page_id,
            line_no=self.line.line_no,
            **ev,
        )


@dataclass(frozen=True, slots=True)
class Threshold:
    required: int
    denominator: int | None
    rule: str  # how `required` was computed, in words, with the citation


LineRule = Callable[[LineContext], Iterable[Finding]]
Valuation = Callable[[Sequence[Holding], Collection[str]], ValuationResult]
SheetRule = Callable[[Sheet, CaseConfig], Iterable[Finding]]
PetitionRule = Callable[[Sequence[Sheet], CaseConfig], Iterable[Finding]]


@dataclass(frozen=True, slots=True)
class RuleSet:
    """A petition kind's rules. `threshold` gets the case and the register's denominator input
    (the count of electors, when the statute's threshold is a share of them). A kind whose
    threshold is a share of assessed valuation sets `valuation` instead: it gets the roll's
    holdings and the owner ids of the signers, and decides the verdict."""

    kind: str
    statute: str  # "Village Law § 9-902"
    petition_rules: tuple[PetitionRule, ...]
    sheet_rules: tuple[SheetRule, ...]
    line_rules: tuple[LineRule, ...]
    threshold: Callable[[CaseConfig, int | None], Threshold]
    valuation: Valuation | None = None
