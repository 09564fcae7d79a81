"""The village independent nominating petition (../shared/statutes/
village-independent-nominating-petition.txt): two versions of subdivision 1's form, the one
"effective until November 22, 2017" and the one "effective November 22, 2017", and the notary's
statement of subdivision 2 accepted in lieu of the witness's.

Subdivisions as the seed text numbers them: 1 (the signers, the sheets and the form), 2 (the
notary alternative), 3 (the independent body's name), 4 (how many signatures).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

import pydantic

from ..casefile import PersonConfig, Strict
from ..forms import NOTARY, WITNESS
from ..records import (
    Field,
    Finding,
    Match,
    MatchDecision,
    RegisterEntry,
    Severity,
    Sheet,
    SignatureLine,
    Source,
)
from .base import (
    Dated,
    KindSpec,
    LineContext,
    NamedPeople,
    RuleSet,
    SignatureCount,
    finding,
    in_force,
    section_of,
)
from .common import (
    check_dated,
    check_has_residence,
    check_sheet_numbers,
    check_signed,
    check_signer_registered,
    check_table_read,
    check_witness_lives_in_village,
    check_witness_statement,
    filing_window_from_the_case,
    signing_from_the_case,
    witness_date,
)
from .electors import PURGED, in_village

if TYPE_CHECKING:
    from ..case import CaseConfig

__all__ = [
    "DEFAULT_PARTIES",
    "FORM_CHANGED",
    "NominatedCandidate",
    "NominationConfig",
    "PartyConfig",
    "RULES",
    "SPEC",
    "STATUTE",
    "WITNESS_FORMS",
    "WitnessForm",
    "committee_lines",
    "committee_registered",
    "required_signatures",
    "witness_form",
    "witness_form_in_force",
]

STATUTE = "Village independent nominating petition"
SUBD_1 = f"{STATUTE}, subd. 1"
SUBD_2 = f"{STATUTE}, subd. 2"
SUBD_3 = f"{STATUTE}, subd. 3"
SUBD_4 = f"{STATUTE}, subd. 4"

# The statement of witness changed on this day: before it the witness stated residence "in the
# Village of ... in the County of ..."; from it, "a duly qualified voter of the State of New
# York. I now reside at ... (residence address)".
FORM_CHANGED = dt.date(2017, 11, 22)

FATAL, REVIEW, NOTE = Severity.FATAL, Severity.REVIEW, Severity.NOTE


# -- the case file's [nomination] ------------------------------------------------------------


class NominatedCandidate(Strict):
    name: str = pydantic.Field(min_length=1)
    office: str = pydantic.Field(min_length=1)
    term: str = ""
    residence: str = ""


class PartyConfig(Strict):
    name: str = pydantic.Field(min_length=1)
    abbreviations: tuple[str, ...] = ()


# Parties with a line on the New York ballot, as the NYS BOE voter-file layout lists them
# (ENROLLMENT codes), for the independent body name rule. A case lists the parties "then
# existing" when it files; this default is only a starting point.
DEFAULT_PARTIES = (
    PartyConfig(name="Democratic", abbreviations=("DEM",)),
    PartyConfig(name="Republican", abbreviations=("REP", "GOP")),
    PartyConfig(name="Conservative", abbreviations=("CON",)),
    PartyConfig(name="Working Families", abbreviations=("WOR", "WFP")),
    PartyConfig(name="Green", abbreviations=("GRE",)),
    PartyConfig(name="Libertarian", abbreviations=("LBT",)),
)


class NominationConfig(Strict):
    """A village independent nominating petition (the nominating-petition statute in
    ../shared/statutes/, both versions)."""

    election: dt.date  # the election the nomination is for ("to be held on the ... day of")
    population: int = pydantic.Field(ge=0)  # last federal decennial census (subdivision 4)
    voters_at_last_election: int | None = pydantic.Field(default=None, ge=0)  # needed under 1,000
    body_name: str = ""  # the independent body's name (subdivision 3)
    emblem: str = ""
    candidates: tuple[NominatedCandidate, ...] = ()
    committee: tuple[PersonConfig, ...] = ()  # committee to fill vacancies
    existing_parties: tuple[PartyConfig, ...] = DEFAULT_PARTIES

    @pydantic.model_validator(mode="after")
    def _small_village_needs_turnout(self) -> NominationConfig:
        if self.population < 1000 and self.voters_at_last_election is None:
            raise ValueError(
                "a village under 1,000 people needs voters_at_last_election: the threshold is "
                "5% of the voters at the last regular village election"
            )
        return self


def _nomination(case: CaseConfig) -> NominationConfig:
    return section_of(case, NominationConfig)


def problems(case: CaseConfig) -> list[str]:
    """A nominating petition is filed before its election."""
    election, filed = _nomination(case).election, case.dates.filed
    if election < filed:
        return [
            f"nomination.election ({election}) is before dates.filed ({filed}): a nominating "
            "petition is filed before its election"
        ]
    return []


# -- subdivision 4: how many -------------------------------------------------------------------


def required_signatures(population: int, voters_at_last_election: int | None) -> int:
    """Subd. 4: "at least one hundred voters in villages containing a population of five
    thousand or more; ... seventy-five ... three thousand and less than five thousand; ...
    fifty ... one thousand and less than three thousand; and in villages containing a
    population of less than one thousand by voters numbering at least five per centum of the
    number of voters at the last regular village election"."""
    if population >= 5000:
        return 100
    if population >= 3000:
        return 75
    if population >= 1000:
        return 50
    if voters_at_last_election is None:
        raise ValueError("under 1,000 people the threshold needs the voters at the last election")
    return (voters_at_last_election * 5 + 99) // 100  # at least 5%, in integers


def threshold(case: CaseConfig, electors: int | None) -> SignatureCount:
    n = _nomination(case)
    required = required_signatures(n.population, n.voters_at_last_election)
    if n.population >= 1000:
        rule = (
            f"a village of {n.population:,} people (last federal census) needs at least "
            f"{required} signatures ({SUBD_4})"
        )
        denominator = None
    else:
        rule = (
            f"a village of {n.population:,} people needs at least 5% of the "
            f"{n.voters_at_last_election} voters at the last regular village election: "
            f"{required} ({SUBD_4})"
        )
        denominator = n.voters_at_last_election
    return SignatureCount(required=required, denominator=denominator, rule=rule)


# -- subdivision 1: the signers and the lines ---------------------------------------------------


def signer_registered_when_signing(ctx: LineContext) -> Iterable[Finding]:
    """Subd. 1: "signatures in ink of residents of the village who are registered with the
    appropriate county board of elections at the time of signing"."""
    yield from check_signer_registered(
        ctx, SUBD_1, registered_after_signing=FATAL, who="registered voter"
    )


def line_is_signed(ctx: LineContext) -> Iterable[Finding]:
    """Subd. 1: "containing the signatures in ink"."""
    yield from check_signed(ctx, SUBD_1)


def line_is_dated(ctx: LineContext) -> Iterable[Finding]:
    """Subd. 1's form: "I have signed this petition on the day and year stated before my
    signature" ("A signer need not himself or herself fill in the date", but it must be
    there)."""
    yield from check_dated(ctx, SUBD_1)


def line_has_residence(ctx: LineContext) -> Iterable[Finding]:
    """Subd. 1's form: "my present place of residence is truly stated opposite my signature"."""
    yield from check_has_residence(ctx, SUBD_1)


def sheets_numbered(sheets: Sequence[Sheet], case: CaseConfig) -> Iterable[Finding]:
    """Subd. 1: "The sheets of such a petition shall be numbered." (Not "consecutively from
    one", as 9-902 says: a gap is not reported.)"""
    yield from check_sheet_numbers(sheets, SUBD_1, consecutive_from_one=False)


@dataclass(frozen=True, slots=True)
class WitnessForm:
    """One version of subdivision 1's statement of witness: what it must state."""

    name: str  # "before-2017-11-22", "from-2017-11-22"
    needs: tuple[tuple[str, str, str], ...]  # WitnessStatement attribute, code, words
    resides_in_the_village: bool  # "now reside at ... in the Village of ..."


_WITNESS_NEEDS = (
    ("witness_name", "WITNESS_NAME_MISSING", "the witness's name"),
    ("residence", "WITNESS_RESIDENCE_MISSING", "the witness's residence address"),
    ("date", "WITNESS_DATE_MISSING", "the date of the statement"),
)
# "* NB Effective until November 22, 2017": "I ... state that I am a duly qualified voter and
# now reside at ... (residence address) in the Village of ... in the State of New York in the
# County of ..."; "* NB Effective November 22, 2017": "... a duly qualified voter of the State
# of New York. I now reside at ... (residence address)".
WITNESS_FORMS = (
    Dated(
        dt.date.min,
        WitnessForm(
            "before-2017-11-22",
            _WITNESS_NEEDS
            + (
                ("village", "WITNESS_VILLAGE_MISSING", "the village the witness resides in"),
                ("county", "WITNESS_COUNTY_MISSING", "the county the witness resides in"),
            ),
            resides_in_the_village=True,
        ),
    ),
    Dated(FORM_CHANGED, WitnessForm("from-2017-11-22", _WITNESS_NEEDS, False)),
)


def witness_form(sheet: Sheet, case: CaseConfig) -> WitnessForm:
    """The statement the sheet must carry, by the day it was witnessed (the statement's date,
    else the filing)."""
    day = witness_date(sheet, case.dates.filed) or case.dates.filed
    return in_force(WITNESS_FORMS, day)


def witness_form_in_force(sheet: Sheet, case: CaseConfig) -> str:
    """ "before-2017-11-22" or "from-2017-11-22": the name of `witness_form`."""
    return witness_form(sheet, case).name


def statement_at_the_foot(sheet: Sheet, case: CaseConfig) -> Iterable[Finding]:
    """Subd. 1, STATEMENT OF WITNESS, and subd. 2, the notary's statement "in lieu of the signed
    statement of a witness". A witness's statement needs what its version in force asks
    (`WITNESS_FORMS`: the witness's name, residence and date; until 2017-11-22 also the village
    and county of residence); the notary's needs the date and the officer's signature and
    title. Both state the number of signatures on the sheet."""
    w = sheet.witness
    if w is not None and w.form == NOTARY.form:
        yield from check_witness_statement(
            sheet,
            SUBD_2,
            needs=(("date", "WITNESS_DATE_MISSING", "the date of the notary's statement"),),
            forms=(NOTARY,),
        )
        return
    form = witness_form(sheet, case)
    yield from check_witness_statement(sheet, SUBD_1, needs=form.needs, forms=(WITNESS,))
    if form.resides_in_the_village:
        yield from check_witness_lives_in_village(sheet, case.municipality.village, SUBD_1)


def table_was_read(sheet: Sheet, case: CaseConfig) -> Iterable[Finding]:
    yield from check_table_read(sheet, SUBD_1)


# -- the petition's own contents ----------------------------------------------------------------


def committee_to_fill_vacancies(sheets: Sequence[Sheet], case: CaseConfig) -> Iterable[Finding]:
    """Subd. 1's form: "I do hereby appoint (insert names and addresses of at least three
    persons, all of whom shall be registered voters within such village) as a committee to fill
    vacancies". Fewer than three, or one without an address: a person decides (the statute
    does not say the petition falls). Whether each is a registered voter of the village is
    listed for the clerk to check against the register."""
    committee = _nomination(case).committee
    if len(committee) < 3:
        yield finding(
            "COMMITTEE_TOO_SMALL",
            REVIEW,
            SUBD_1,
            f"the committee to fill vacancies names {len(committee)} person(s); the form asks "
            "for at least three",
            named=[p.name for p in committee],
        )
    for person in committee:
        if not person.address.strip():
            yield finding(
                "COMMITTEE_ADDRESS_MISSING",
                REVIEW,
                SUBD_1,
                f"no address given for committee member {person.name}",
                member=person.name,
            )


def committee_lines(committee: Sequence[PersonConfig]) -> list[SignatureLine]:
    """The committee members as lines to look up on the register (as the case file gives them:
    typed, so as sure as a text layer)."""
    return [
        SignatureLine(
            page_id="committee",
            line_no=i,
            fields=(
                Field("name", person.name, 1.0, Source.TEXT_LAYER),
                Field("residence", person.address, 1.0, Source.TEXT_LAYER),
            ),
        )
        for i, person in enumerate(committee, start=1)
    ]


def committee_registered(
    case: CaseConfig,
    people: Sequence[SignatureLine],
    matches: Sequence[Match],
    register: Mapping[str, RegisterEntry],
) -> Iterable[Finding]:
    """Subd. 1's form: the committee's members, "all of whom shall be registered voters within
    such village". One not found, not sure, or not a voter of the village: a person decides
    (the statute does not say the petition falls)."""
    for person, match in zip(people, matches, strict=True):
        name = person.text("name")
        entry = register.get(match.voter_id) if match.voter_id else None
        if match.decision is MatchDecision.MATCH and entry is not None:
            purged = entry.status.strip().upper() == PURGED
            if in_village(entry, case.municipality) and not purged:
                continue
            why = "is purged" if purged else "lives outside the village"
        elif match.decision is MatchDecision.NO_MATCH:
            why = "is not on the register"
        else:
            why = f"cannot be found for sure on the register ({match.reason})"
        yield finding(
            "COMMITTEE_MEMBER_NOT_VILLAGE_VOTER",
            REVIEW,
            SUBD_1,
            f"committee member {name} {why}",
            member=name,
            candidates=[c.voter_id for c in match.candidates[:3]],
        )


_WORD = re.compile(r"[A-Za-z0-9]+")


def _words(text: str) -> list[str]:
    return [w.upper() for w in _WORD.findall(text)]


def independent_body_name(sheets: Sequence[Sheet], case: CaseConfig) -> Iterable[Finding]:
    """Subd. 3: the name "shall not include the name or part of the name, or an abbreviation of
    the name or of part of the name, of a then existing party". A word of the body's name that
    is a word of a party's name, or one of its abbreviations, goes to a person: the statute
    does not say the petition falls (the board of elections may select a name)."""
    nomination = _nomination(case)
    body = _words(nomination.body_name)
    if not body:
        yield finding(
            "BODY_NAME_MISSING",
            NOTE,
            SUBD_3,
            "the petition selects no name for the independent body; the board of elections "
            "shall select one",
        )
        return
    for party in nomination.existing_parties:
        shared = sorted(
            set(body) & (set(_words(party.name)) | {a.upper() for a in party.abbreviations})
        )
        if shared:
            yield finding(
                "BODY_NAME_USES_PARTY_NAME",
                REVIEW,
                SUBD_3,
                f"the independent body's name {nomination.body_name!r} includes "
                f"{', '.join(shared)} from the {party.name} party's name or abbreviation",
                party=party.name,
                words=shared,
            )


RULES = RuleSet(
    kind="independent_nomination",
    statute=STATUTE,
    petition_rules=(sheets_numbered, committee_to_fill_vacancies, independent_body_name),
    sheet_rules=(table_was_read, statement_at_the_foot),
    line_rules=(
        line_is_signed,
        line_is_dated,
        line_has_residence,
        signer_registered_when_signing,
    ),
    threshold=threshold,
)


def committee_of(case: CaseConfig) -> list[SignatureLine]:
    """The committee to fill vacancies, as lines to look up on the register."""
    return committee_lines(_nomination(case).committee)


SPEC = KindSpec(
    name="independent_nomination",
    statute=STATUTE,
    label="independent nomination",
    rule_sets=(Dated(dt.date.min, RULES),),
    filing_window=filing_window_from_the_case,
    signing_start=partial(signing_from_the_case, citation=SUBD_1),
    statements=(WITNESS, NOTARY),  # subd. 1's statement of witness; subd. 2's notary's
    section="nomination",
    section_model=NominationConfig,
    problems=problems,
    people_named=NamedPeople(committee_of, committee_registered),
)
