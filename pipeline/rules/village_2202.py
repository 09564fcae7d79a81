"""Village Law § 2-202: the petition for incorporation, as the seed text gives it
(../shared/statutes/village-law-2-202-incorporation-petition.txt).

The section has been amended since that text (the current one is reported to keep only the
residents group and to require a population of 1,500). This module is that seed version; a later
version is one more `Dated` entry of `SPEC.rule_sets`, with its effective date: the filing date
chooses (`KindSpec.rules_on`).

Two groups may petition (1)(a): (1) at least 20% of the residents of the territory qualified to
vote for town officers (counted in signatures: `rules_residents`), or (2) the owners of more than
half the assessed valuation (counted in valuation: `rules_owners`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Iterable, Sequence
from fractions import Fraction
from functools import partial
from typing import TYPE_CHECKING, Literal

from pydantic import Field

from ..casefile import RollConfig, Strict
from ..forms import AFFIDAVIT
from ..records import Finding, Holding, Severity, Sheet, ValuationResult
from .base import (
    Dated,
    KindSpec,
    LineContext,
    RuleSet,
    ShareOfValuation,
    SignatureCount,
    Signers,
    finding,
    section_of,
)
from .common import (
    check_has_residence,
    check_signed,
    check_signer_is_owner,
    check_signer_registered,
    check_signing_window,
    check_table_read,
    check_witness_statement,
    filing_window_from_the_case,
    signing_from_the_case,
)
from .valuation import incorporation_owners_2202

if TYPE_CHECKING:
    from ..case import CaseConfig

__all__ = [
    "SPEC",
    "STATUTE",
    "DesigneeConfig",
    "IncorporationConfig",
    "TownPartConfig",
    "rules_for_case",
    "rules_owners",
    "rules_residents",
]

STATUTE = "Village Law § 2-202"
A1, A2 = f"{STATUTE}(1)(a)(1)", f"{STATUTE}(1)(a)(2)"
B, C, E = f"{STATUTE}(1)(b)", f"{STATUTE}(1)(c)", f"{STATUTE}(1)(e)"
MIN_POPULATION = 500  # (1)(b)(3)
FATAL, REVIEW, NOTE = Severity.FATAL, Severity.REVIEW, Severity.NOTE
STATEMENTS = (AFFIDAVIT,)  # (1)(e)(4): "an authenticating affidavit of a witness"


# -- the case file's [incorporation] ---------------------------------------------------------


class TownPartConfig(Strict):
    name: str = Field(min_length=1)
    # The state equalization rate as a fraction (0.85 for 85%): full value = assessed / rate.
    equalization_rate: float = Field(default=1.0, gt=0, le=10)


class DesigneeConfig(Strict):
    name: str = Field(min_length=1)
    address: str = ""
    resides_in_territory: bool | None = None  # None: not known; the clerk checks


class IncorporationConfig(Strict):
    """Village Law § 2-202 as the seed text gives it (before its later amendment)."""

    basis: Literal["residents", "owners"]  # (a): which group petitions; "both" not yet
    village_name: str = ""  # (b)(2)
    population_alleged: int | None = Field(default=None, ge=0)  # (b)(3): at least 500
    designees: tuple[DesigneeConfig, ...] = ()  # (b)(5): one to three, a majority resident
    towns: tuple[TownPartConfig, ...] = ()  # the towns the territory lies in
    territory_described: bool = False  # (c)(1): the description is attached
    inhabitants_listed: bool = False  # (c)(2): the list of regular inhabitants is attached
    roll: RollConfig | None = None  # basis "owners"


def _incorporation(case: CaseConfig) -> IncorporationConfig:
    return section_of(case, IncorporationConfig)


def _basis(case: CaseConfig) -> str | None:
    section = case.section
    return section.basis if isinstance(section, IncorporationConfig) else None


# -- (1)(a): who petitions, and how many ------------------------------------------------------


def residents_threshold(case: CaseConfig, residents: int | None) -> SignatureCount:
    """(1)(a)(1): "At least twenty per cent of the residents of such territory qualified to vote
    for town officers in a town in which all or part of such territory is located"."""
    if residents is None:
        raise ValueError("2-202 by residents needs the count of qualified residents")
    required = (residents + 4) // 5
    return SignatureCount(
        required=required,
        denominator=residents,
        rule=(
            f"at least 20% of the {residents} residents of the territory qualified to vote for "
            f"town officers: ceil({residents} x 0.20) = {required} ({A1})"
        ),
    )


def owners_threshold(case: CaseConfig, electors: int | None) -> ShareOfValuation:
    return ShareOfValuation(
        rule=(
            "owners of more than half the assessed valuation of the territory (in several "
            f"towns: of the full valuation in each town's part) ({A2}); see the valuation section"
        ),
    )


def signer_is_qualified_resident(ctx: LineContext) -> Iterable[Finding]:
    """(1)(a)(1): a resident of the territory "qualified to vote for town officers": on the
    register, living in the territory (the case's districts)."""
    yield from check_signer_registered(
        ctx, A1, registered_after_signing=REVIEW, who="qualified voter"
    )


def signer_is_owner(ctx: LineContext) -> Iterable[Finding]:
    """(1)(a)(2): the signer is an owner on "the last completed assessment roll"."""
    yield from check_signer_is_owner(ctx, A2, "the territory")


def line_in_signing_window(ctx: LineContext) -> Iterable[Finding]:
    """The section sets no first day of signing; where the case does (dates.signing_from), a
    line dated before it goes to a person."""
    yield from check_signing_window(ctx)


# -- (1)(e): the signature pages --------------------------------------------------------------


def line_is_signed(ctx: LineContext) -> Iterable[Finding]:
    """(1)(e)(1): "The signatures to a petition shall be subscribed on a separate page"."""
    yield from check_signed(ctx, f"{E}(1)")


def line_has_address(ctx: LineContext) -> Iterable[Finding]:
    """(1)(e)(3): "Following each signature there shall be set forth, not necessarily by the
    signer, the signer's address consisting of street name and number, if any, and town"."""
    yield from check_has_residence(ctx, f"{E}(3)")


def line_states_valuation(ctx: LineContext) -> Iterable[Finding]:
    """(1)(e)(3): "if the petition is based on the ownership of more than fifty per cent in
    assessed or full valuation ..., the amount of assessed valuation of real property owned by
    the signer as credited to him". The amount the valuation credits comes from the roll; a
    line that does not state it goes to a person (the section does not say it falls)."""
    if not ctx.line.text("valuation"):
        yield ctx.finding(
            "VALUATION_NOT_STATED",
            REVIEW,
            f"{E}(3)",
            "the line does not state the assessed valuation credited to the signer",
        )


def authenticating_affidavit(sheet: Sheet, case: CaseConfig) -> Iterable[Finding]:
    """(1)(e)(4): "There shall be set forth at the bottom of each page of signatures an
    authenticating affidavit of a witness": the witness's name and residence, "the above sheet
    having ... signatures", the witness's signature, and the jurat's date."""
    yield from check_witness_statement(
        sheet,
        f"{E}(4)",
        needs=(
            ("witness_name", "WITNESS_NAME_MISSING", "the witness's name"),
            ("residence", "WITNESS_RESIDENCE_MISSING", "the witness's residence"),
            ("date", "WITNESS_DATE_MISSING", "the date it was sworn"),
        ),
        forms=STATEMENTS,
    )


def table_was_read(sheet: Sheet, case: CaseConfig) -> Iterable[Finding]:
    yield from check_table_read(sheet, f"{E}(1)")


# -- (1)(b) and (1)(c): what the petition contains ----------------------------------------------


def petition_contents(sheets: Sequence[Sheet], case: CaseConfig) -> Iterable[Finding]:
    """(1)(b)(2) the name of the proposed village; (1)(b)(3) "an allegation that such territory
    contains a population of at least five hundred regular inhabitants"; (1)(b)(5) "at least one
    but no more than three persons ... A majority of such designees must reside in such
    territory"; (1)(c) the description of the territory and the list of its regular
    inhabitants attached "prior to the signature pages"."""
    inc = _incorporation(case)
    if not inc.village_name.strip():
        yield finding("VILLAGE_NAME_MISSING", FATAL, f"{B}(2)", "the proposed village is not named")
    if inc.population_alleged is None or inc.population_alleged < MIN_POPULATION:
        yield finding(
            "POPULATION_BELOW_MINIMUM",
            FATAL,
            f"{B}(3)",
            "the petition does not allege a population of at least five hundred regular "
            f"inhabitants (alleged: {inc.population_alleged})",
        )
    n = len(inc.designees)
    if not 1 <= n <= 3:
        yield finding(
            "DESIGNEES_COUNT", FATAL, f"{B}(5)", f"{n} designees; the section asks for one to three"
        )
    elif any(not d.address.strip() for d in inc.designees):
        yield finding(
            "DESIGNEE_ADDRESS_MISSING", FATAL, f"{B}(5)", "a designee is named without an address"
        )
    resident = sum(1 for d in inc.designees if d.resides_in_territory is True)
    unknown = sum(1 for d in inc.designees if d.resides_in_territory is None)
    if n and resident * 2 <= n:
        severity = REVIEW if (resident + unknown) * 2 > n else FATAL
        yield finding(
            "DESIGNEES_NOT_MAJORITY_RESIDENT",
            severity,
            f"{B}(5)",
            f"{resident} of {n} designees are known to reside in the territory; a majority must",
            unknown=unknown,
        )
    for attached, code, what in (
        (inc.territory_described, "TERRITORY_NOT_DESCRIBED", "a description of the territory"),
        (inc.inhabitants_listed, "INHABITANTS_NOT_LISTED", "the list of its regular inhabitants"),
    ):
        if not attached:
            yield finding(code, FATAL, C, f"the petition does not have {what} attached")


def rules_residents(case: CaseConfig) -> RuleSet:
    """(1)(a)(1): counted in signatures of qualified residents."""
    return RuleSet(
        kind="incorporation",
        statute=STATUTE,
        petition_rules=(petition_contents,),
        sheet_rules=(table_was_read, authenticating_affidavit),
        line_rules=(
            line_is_signed,
            line_has_address,
            line_in_signing_window,
            signer_is_qualified_resident,
        ),
        threshold=residents_threshold,
    )


def rules_owners(case: CaseConfig) -> RuleSet:
    """(1)(a)(2): counted in valuation, with the case's towns' equalization rates."""
    rates = {t.name: Fraction(str(t.equalization_rate)) for t in _incorporation(case).towns}

    def valuation(holdings: Sequence[Holding], signers: Collection[str]) -> ValuationResult:
        return incorporation_owners_2202(holdings, signers, rates or None)

    return RuleSet(
        kind="incorporation",
        statute=STATUTE,
        petition_rules=(petition_contents,),
        sheet_rules=(table_was_read, authenticating_affidavit),
        line_rules=(
            line_is_signed,
            line_has_address,
            line_in_signing_window,
            signer_is_owner,
            line_states_valuation,
        ),
        threshold=owners_threshold,
        valuation=valuation,
    )


def rules_for_case(case: CaseConfig) -> RuleSet:
    basis = _incorporation(case).basis
    return rules_owners(case) if basis == "owners" else rules_residents(case)


def signed_by(case: CaseConfig) -> Signers:
    """(1)(a): residents on the register, or owners on the assessment roll."""
    return "owners" if _basis(case) == "owners" else "voters"


def roll(case: CaseConfig) -> RollConfig | None:
    """The owners' roll (basis "owners")."""
    return _incorporation(case).roll if _basis(case) == "owners" else None


def requires(case: CaseConfig) -> tuple[str, ...]:
    """Owners are found on the roll: basis "owners" needs incorporation.roll."""
    owners_without_roll = _basis(case) == "owners" and _incorporation(case).roll is None
    return ("incorporation.roll",) if owners_without_roll else ()


SPEC = KindSpec(
    name="incorporation",
    statute=STATUTE,
    label="incorporation",
    rule_sets=(Dated(dt.date.min, rules_for_case),),
    filing_window=filing_window_from_the_case,
    signing_start=partial(signing_from_the_case, citation=f"{E}(1)"),
    statements=STATEMENTS,
    section="incorporation",
    section_model=IncorporationConfig,
    requires=requires,
    signed_by=signed_by,
    roll=roll,
)
