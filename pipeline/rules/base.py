"""What every statute's rule set is made of, and what a petition kind is.

A rule is a plain function that reads one thing (a line, a sheet, the whole petition) and returns
findings. Each rule sits beside the words of the statute it implements, with its citation; a
`RuleSet` collects a petition kind's rules and its threshold. A `KindSpec` is everything about one
kind of petition, in one place (its rule module): its statute, its case-file section, its windows,
the people it names, its printed forms and its rule sets by the day each took effect.

A text that changed on a day is a tuple of `Dated` versions; `in_force` picks the one of a day.
That is the one mechanism for every statute version: a kind's rule sets (by the filing day) and
the nominating petition's statement of witness (by the day it was witnessed).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

from pydantic import BaseModel

from ..forms import Statement
from ..records import (
    Finding,
    Holding,
    Match,
    RegisterEntry,
    Severity,
    ShareOfValuation,
    Sheet,
    SignatureCount,
    SignatureLine,
    Threshold,
    ValuationResult,
)

if TYPE_CHECKING:
    from ..case import CaseConfig
    from ..casefile import RollConfig

__all__ = [
    "Dated",
    "KindSpec",
    "LineContext",
    "LineRule",
    "NamedPeople",
    "PetitionRule",
    "RuleSet",
    "ShareOfValuation",
    "SheetRule",
    "SignatureCount",
    "Signers",
    "SigningStart",
    "Threshold",
    "finding",
    "in_force",
    "no_problems",
    "no_roll",
    "nothing_more",
    "section_of",
    "voters",
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


LineRule = Callable[[LineContext], Iterable[Finding]]
Valuation = Callable[[Sequence[Holding], Collection[str]], ValuationResult]
SheetRule = Callable[[Sheet, "CaseConfig"], Iterable[Finding]]
PetitionRule = Callable[[Sequence[Sheet], "CaseConfig"], Iterable[Finding]]


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
    valuation: Valuation | None = None  # set exactly when `threshold` is a ShareOfValuation


T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True, slots=True)
class Dated(Generic[T]):
    """One version of a text (a rule set, a form), in force from `effective_from` until the
    next version's day."""

    effective_from: dt.date
    value: T


def in_force(versions: Sequence[Dated[T]], day: dt.date) -> T:
    """The version in force on `day`: the latest that took effect on or before it. Versions are
    given oldest first; a day before the first is judged by the first (the oldest text this
    package has), and a later version is one more entry."""
    if not versions:
        raise ValueError("no versions given")
    chosen = versions[0]
    for version in versions[1:]:
        if version.effective_from < chosen.effective_from:
            raise ValueError("versions must be given oldest first")
        if version.effective_from <= day:
            chosen = version
    return chosen.value


@dataclass(frozen=True, slots=True)
class SigningStart:
    """The first day signatures may be gathered, and what a line dated before it gets."""

    day: dt.date
    code: str
    severity: Severity
    citation: str
    reason: str  # "before the act or resolution was adopted on" (the day follows)


@dataclass(frozen=True, slots=True)
class NamedPeople:
    """People the petition names who must be looked up on the register like signers (the
    nominating petition's committee to fill vacancies): `lines` gives them as lines to match,
    `check` the findings about them from their matches and the entries matched."""

    lines: Callable[[CaseConfig], Sequence[SignatureLine]]
    check: Callable[
        [CaseConfig, Sequence[SignatureLine], Sequence[Match], Mapping[str, RegisterEntry]],
        Iterable[Finding],
    ]


RuleSetOf = Callable[["CaseConfig"], RuleSet]  # a rule set built from the case (2-202's basis)
Signers = Literal["voters", "owners"]


def nothing_more(case: CaseConfig) -> Sequence[str]:
    """A kind that needs no case-file key beyond the common ones and its section."""
    return ()


def no_problems(case: CaseConfig) -> Sequence[str]:
    """A kind that checks nothing in the case's facts beyond the common checks."""
    return ()


def section_of(case: CaseConfig, model: type[M]) -> M:
    """The case's section as the kind's model gives it (a rule module reading its own)."""
    section = case.section
    if not isinstance(section, model):
        raise ValueError(f"a {case.kind} case needs its section ({model.__name__})")
    return section


def voters(case: CaseConfig) -> Signers:
    """A kind signed by voters, matched on the register."""
    return "voters"


def no_roll(case: CaseConfig) -> RollConfig | None:
    """A kind with no assessment roll."""
    return None


@dataclass(frozen=True, slots=True)
class KindSpec:
    """One kind of petition, whole. The case file's `kind = "<name>"` chooses it; everything
    the stages need to know about the kind is asked of it (`CaseConfig.spec`).

    - `section`: the case file's table for the kind ("nomination"), validated by
      `section_model`; None where the kind needs none.
    - `requires(case)`: further case-file keys the kind needs, as "dates.adopted" (missing ones).
    - `problems(case)`: what the kind finds wrong in the case's facts (a nominating
      petition's election before its filing), in words.
    - `signed_by(case)`: "voters" (matched on the register) or "owners" (on the assessment
      roll, `roll(case)`).
    - `signing_start(case)`: the first day signatures may be gathered, where the statute or the
      case sets one.
    - `filing_window(case)`: the days a scheduled check runs (first and last).
    - `rule_sets`: the kind's rule sets oldest first, chosen by the filing day (`rules_on`).
    - `statements`: the printed form's vocabulary: the statements a sheet's foot may carry
      (`forms.Statement`: each one's wording and blanks; the statutes' own are
      `forms.STANDARD_STATEMENTS`), which the kind's statement rule accepts; a kind with a
      wording of its own brings it here, and the readers look for it on the kind's sheets
      (`run.read_context_for`)."""

    name: str
    statute: str  # "Village Law § 9-902": the report names it
    label: str  # "permissive referendum"
    rule_sets: tuple[Dated[RuleSet | RuleSetOf], ...]
    filing_window: Callable[[CaseConfig], tuple[dt.date, dt.date]]
    signing_start: Callable[[CaseConfig], SigningStart | None]
    statements: tuple[Statement, ...]
    section: str | None = None
    section_model: type[BaseModel] | None = None
    requires: Callable[[CaseConfig], Sequence[str]] = nothing_more
    problems: Callable[[CaseConfig], Sequence[str]] = no_problems
    signed_by: Callable[[CaseConfig], Signers] = voters
    roll: Callable[[CaseConfig], RollConfig | None] = no_roll
    in_village: bool = True  # the case names the village (municipality.village)
    people_named: NamedPeople | None = None

    def rules_on(self, case: CaseConfig) -> RuleSet:
        """The rule set in force on the case's filing day."""
        rules = in_force(self.rule_sets, case.dates.filed)
        return rules if isinstance(rules, RuleSet) else rules(case)
