"""Town Law § 191: the petition for an improvement district or its extension
(../shared/statutes/town-law-191-improvement-district-petition.txt).

Signed by owners of taxable real property in the proposed district; sufficient when they own at
least half its taxable assessed valuation and, where there are resident owners, resident owners
own at least half of the resident-owned valuation (pipeline/rules/valuation.py). Signers are
matched against the owners on the assessment roll, not the register of voters.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from functools import partial
from typing import TYPE_CHECKING

from pydantic import Field

from ..casefile import RollConfig, Strict
from ..forms import AFFIDAVIT, NOTARY, WITNESS
from ..records import Finding, Severity, Sheet
from .base import (
    Dated,
    KindSpec,
    LineContext,
    RuleSet,
    ShareOfValuation,
    Signers,
    finding,
    section_of,
)
from .common import (
    check_signed,
    check_signer_is_owner,
    check_signing_window,
    check_table_read,
    check_witness_statement,
    filing_window_from_the_case,
    signing_from_the_case,
)
from .valuation import district_owners_191

if TYPE_CHECKING:
    from ..case import CaseConfig

__all__ = ["RULES", "SPEC", "STATUTE", "DistrictConfig"]

STATUTE = "Town Law § 191"
FATAL, REVIEW, NOTE = Severity.FATAL, Severity.REVIEW, Severity.NOTE
# "acknowledged or proved in the same manner as a deed ..., or authenticated in the manner
# provided by the election law for ... nominating petitions"
STATEMENTS = (WITNESS, NOTARY, AFFIDAVIT)


# -- the case file's [district] --------------------------------------------------------------


class DistrictConfig(Strict):
    """Town Law § 191: a petition for an improvement district or its extension."""

    name: str = Field(min_length=1)
    roll: RollConfig
    boundaries_described: bool = False  # "describe the boundaries ... as in a deed"
    requests_improvement: bool = True  # construction or acquisition of an improvement
    maximum_amount: float | None = Field(default=None, ge=0)  # to be expended (required then)


def _district(case: CaseConfig) -> DistrictConfig:
    return section_of(case, DistrictConfig)


def threshold(case: CaseConfig, electors: int | None) -> ShareOfValuation:
    return ShareOfValuation(
        rule=(
            "owners of at least half the assessed valuation of the district's taxable real "
            "property on the latest completed roll, and, where there are resident owners, "
            f"resident owners of at least half of theirs ({STATUTE}); see the valuation section"
        ),
    )


def signer_owns_property_in_district(ctx: LineContext) -> Iterable[Finding]:
    """ "signed by the owners of taxable real property situate in the proposed district". The
    signer is looked up among the owners on the roll; what they own is credited in the
    valuation (an owner of exempt property only is credited nothing)."""
    yield from check_signer_is_owner(ctx, STATUTE, "the district")


def line_is_signed(ctx: LineContext) -> Iterable[Finding]:
    """ "shall be signed by the petitioners"."""
    yield from check_signed(ctx, STATUTE)


def line_in_signing_window(ctx: LineContext) -> Iterable[Finding]:
    """The section sets no first day of signing; where the case does (dates.signing_from), a
    line dated before it goes to a person."""
    yield from check_signing_window(ctx)


def authenticated(sheet: Sheet, case: CaseConfig) -> Iterable[Finding]:
    """ "acknowledged or proved in the same manner as a deed to be recorded, or authenticated in
    the manner provided by the election law for the authentication of nominating petitions": a
    witness's statement, a notary's, or an acknowledgment."""
    yield from check_witness_statement(
        sheet,
        STATUTE,
        needs=(("date", "WITNESS_DATE_MISSING", "the date"),),
        forms=STATEMENTS,
    )


def table_was_read(sheet: Sheet, case: CaseConfig) -> Iterable[Finding]:
    yield from check_table_read(sheet, STATUTE)


def petition_contents(sheets: Sequence[Sheet], case: CaseConfig) -> Iterable[Finding]:
    """ "Such petition shall describe the boundaries of the proposed district ... in a manner
    sufficient to identify the lands included therein as in a deed of conveyance"; "If such
    petition shall request the construction or acquisition of an improvement, it shall state
    the maximum amount proposed to be expended therefor"."""
    district = _district(case)
    if not district.boundaries_described:
        yield finding(
            "BOUNDARIES_NOT_DESCRIBED",
            FATAL,
            STATUTE,
            "the petition does not describe the district's boundaries as in a deed",
        )
    if district.requests_improvement and district.maximum_amount is None:
        yield finding(
            "MAXIMUM_AMOUNT_MISSING",
            FATAL,
            STATUTE,
            "the petition requests an improvement but states no maximum amount to be expended",
        )


RULES = RuleSet(
    kind="improvement_district",
    statute=STATUTE,
    petition_rules=(petition_contents,),
    sheet_rules=(table_was_read, authenticated),
    line_rules=(line_is_signed, line_in_signing_window, signer_owns_property_in_district),
    threshold=threshold,
    valuation=district_owners_191,
)


def signed_by(case: CaseConfig) -> Signers:
    """ "signed by the owners of taxable real property situate in the proposed district"."""
    return "owners"


def roll(case: CaseConfig) -> RollConfig | None:
    return _district(case).roll


SPEC = KindSpec(
    name="improvement_district",
    statute=STATUTE,
    label="improvement district",
    rule_sets=(Dated(dt.date.min, RULES),),
    filing_window=filing_window_from_the_case,
    signing_start=partial(signing_from_the_case, citation=STATUTE),
    statements=STATEMENTS,
    section="district",
    section_model=DistrictConfig,
    signed_by=signed_by,
    roll=roll,
    in_village=False,
)
