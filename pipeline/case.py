"""The case file: one TOML file per petition, validated at the edge.

Every key is documented in README.md ("The case file"). `load_case` reports every problem at
once (pydantic's errors plus the checks that need the file system) as one `CaseFileError`.
Relative paths are resolved against the case file's folder.
"""

from __future__ import annotations

import datetime as dt
import tomllib
from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from .errors import CaseFileError
from .holidays import HolidayCalendar

if TYPE_CHECKING:
    from .rules.base import KindSpec

__all__ = [
    "CaseConfig",
    "DatesConfig",
    "DenominatorConfig",
    "DistrictConfig",
    "IncorporationConfig",
    "LimitsConfig",
    "RollConfig",
    "StreetRange",
    "MatchingConfig",
    "builtin_kinds",
    "parse_case",
    "MunicipalityConfig",
    "NominationConfig",
    "PetitionKind",
    "RegisterConfig",
    "RegisterFormat",
    "load_case",
]


class PetitionKind(StrEnum):
    """The names of the kinds this package defines (`pipeline.kinds.BUILTIN_KINDS`, one spec
    each). A case's `kind` is any registered kind's name: these, or one a caller adds."""

    PERMISSIVE_REFERENDUM = "permissive_referendum"  # Village Law § 9-902
    INDEPENDENT_NOMINATION = "independent_nomination"  # village independent nominating petition
    INCORPORATION = "incorporation"  # Village Law § 2-202 (the seed text's version)
    IMPROVEMENT_DISTRICT = "improvement_district"  # Town Law § 191


class RegisterFormat(StrEnum):
    NYSBOE = "nysboe"  # NYS Board of Elections export, 45 or 47 fields (detected per file)
    CSV = "csv"  # any CSV with a header row, mapped with [register.columns]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class StreetRange(_Strict):
    """Part of a street inside the village: house numbers low..high on one side or both."""

    street: str = Field(min_length=1)  # "Main St", "N Maple Avenue" (normalized when compared)
    low: int = Field(default=0, ge=0)
    high: int = Field(default=999_999, ge=0)
    side: Literal["both", "odd", "even"] = "both"


class MunicipalityConfig(_Strict):
    village: str = ""  # required for the village petitions; a town district has none
    town: str = Field(min_length=1)
    county: str = Field(min_length=1)
    # Who on the register lives in the village. The state export has a town but no village
    # column, so the village is given by its wards and/or election districts, and/or by a
    # street-range table. All empty: the register file is already the village's own list.
    wards: tuple[str, ...] = ()
    election_districts: tuple[str, ...] = ()
    streets: tuple[StreetRange, ...] = ()


class DatesConfig(_Strict):
    filed: dt.date  # the petition was filed with the village clerk
    # 9-902 (required for a permissive referendum: its spec's `requires`):
    adopted: dt.date | None = None  # the act or resolution was adopted (9-902(1))
    previous_general_election: dt.date | None = None  # its register: the 20% denominator
    # The next general village election after the filing (9-902(5)-(6)). Default: the third
    # Tuesday of March, or the 18th when that is the 17th (Village Law § 15-104(1)).
    next_general_election: dt.date | None = None
    # The first day signatures may be gathered, where the case sets one (a kind whose statute
    # sets it, as 9-902's adoption, takes the statute's): a line dated before it is reported.
    signing_from: dt.date | None = None
    # Public holidays beyond General Construction Law § 24's list, which the case cannot compute:
    # "each day appointed by the president of the United States or by the governor of this state
    # as a day of general thanksgiving, general fasting and prayer, or other general religious
    # observances". A deadline on one of them moves to the next business day (§ 25-a).
    extra_holidays: tuple[dt.date, ...] = ()

    @property
    def holidays(self) -> HolidayCalendar:
        """§ 24's public holidays and these extra days: what § 25-a's extensions are counted on."""
        return HolidayCalendar(frozenset(self.extra_holidays))


class RegisterConfig(_Strict):
    path: Path
    format: RegisterFormat = RegisterFormat.NYSBOE
    # For format = "csv": canonical RegisterEntry field -> the CSV's column header.
    # voter_id, last_name and first_name are required; see README for the rest.
    columns: dict[str, str] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _csv_needs_columns(self) -> RegisterConfig:
        if self.format is RegisterFormat.CSV:
            missing = [k for k in ("voter_id", "last_name", "first_name") if k not in self.columns]
            if missing:
                raise ValueError(
                    "format = 'csv' needs [register.columns] entries for " + ", ".join(missing)
                )
        return self


class DenominatorConfig(_Strict):
    """The 20% of 9-902(1) is of 'such electors in the village, as shown on the register of
    electors for the previous general village election'. Either the clerk's count of that
    register, or a register file counted as it stood on the election day."""

    electors: int | None = Field(default=None, ge=1)
    # ("register" in the case file; renamed here because BaseModel has a `register` attribute)
    register_file: RegisterConfig | None = Field(default=None, alias="register")
    as_of: dt.date | None = None  # default: dates.previous_general_election


class MatchingConfig(_Strict):
    """Which matcher, and the baseline's thresholds (0..100). The default matcher ("fs",
    matchers/matcher.py) takes its weights and thresholds from matchers/weights/default.json;
    "baseline" is the plain rapidfuzz matcher. Change either only with a benchmark run that
    shows why."""

    method: Literal["fs", "baseline"] = "fs"
    # Where the register lives while matching: "memory" reads it into Python records (a
    # village's few thousand voters); "duckdb" imports it once into the cache below and matches
    # against the database (a county's or the state's millions); "auto" picks "duckdb" for a
    # register file of LARGE_REGISTER_BYTES or more.
    store: Literal["auto", "memory", "duckdb"] = "auto"
    # The DuckDB cache of imported registers (relative to the case file); see matchers/store.py.
    cache: Path = Path(".petitions-cache")
    accept: float = Field(default=90.0, ge=0, le=100)
    reject: float = Field(default=60.0, ge=0, le=100)
    margin: float = Field(default=6.0, ge=0, le=100)
    candidates: int = Field(default=5, ge=1, le=50)

    @model_validator(mode="after")
    def _ordered(self) -> MatchingConfig:
        if self.reject > self.accept:
            raise ValueError("reject must not be above accept")
        return self


class PersonConfig(_Strict):
    name: str = Field(min_length=1)
    address: str = ""


class NominatedCandidate(_Strict):
    name: str = Field(min_length=1)
    office: str = Field(min_length=1)
    term: str = ""
    residence: str = ""


class PartyConfig(_Strict):
    name: str = Field(min_length=1)
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


class NominationConfig(_Strict):
    """A village independent nominating petition (the nominating-petition statute in
    ../shared/statutes/, both versions)."""

    election: dt.date  # the election the nomination is for ("to be held on the ... day of")
    population: int = Field(ge=0)  # last federal decennial census (subdivision 4)
    voters_at_last_election: int | None = Field(default=None, ge=0)  # needed under 1,000
    body_name: str = ""  # the independent body's name (subdivision 3)
    emblem: str = ""
    candidates: tuple[NominatedCandidate, ...] = ()
    committee: tuple[PersonConfig, ...] = ()  # committee to fill vacancies
    existing_parties: tuple[PartyConfig, ...] = DEFAULT_PARTIES

    @model_validator(mode="after")
    def _small_village_needs_turnout(self) -> NominationConfig:
        if self.population < 1000 and self.voters_at_last_election is None:
            raise ValueError(
                "a village under 1,000 people needs voters_at_last_election: the threshold is "
                "5% of the voters at the last regular village election"
            )
        return self


class RollConfig(_Strict):
    """The latest completed assessment roll (a CSV; README documents its columns)."""

    path: Path
    columns: dict[str, str] = Field(default_factory=dict)  # our column name -> the CSV's


class TownPartConfig(_Strict):
    name: str = Field(min_length=1)
    # The state equalization rate as a fraction (0.85 for 85%): full value = assessed / rate.
    equalization_rate: float = Field(default=1.0, gt=0, le=10)


class DesigneeConfig(_Strict):
    name: str = Field(min_length=1)
    address: str = ""
    resides_in_territory: bool | None = None  # None: not known; the clerk checks


class IncorporationConfig(_Strict):
    """Village Law § 2-202 as the seed text gives it (before its later amendment)."""

    basis: Literal["residents", "owners"]  # (a): which group petitions; "both" not yet
    village_name: str = ""  # (b)(2)
    population_alleged: int | None = Field(default=None, ge=0)  # (b)(3): at least 500
    designees: tuple[DesigneeConfig, ...] = ()  # (b)(5): one to three, a majority resident
    towns: tuple[TownPartConfig, ...] = ()  # the towns the territory lies in
    territory_described: bool = False  # (c)(1): the description is attached
    inhabitants_listed: bool = False  # (c)(2): the list of regular inhabitants is attached
    roll: RollConfig | None = None  # basis "owners"


class DistrictConfig(_Strict):
    """Town Law § 191: a petition for an improvement district or its extension."""

    name: str = Field(min_length=1)
    roll: RollConfig
    boundaries_described: bool = False  # "describe the boundaries ... as in a deed"
    requests_improvement: bool = True  # construction or acquisition of an improvement
    maximum_amount: float | None = Field(default=None, ge=0)  # to be expended (required then)


class LimitsConfig(_Strict):
    """What one case may hold, checked before the expensive step (README "Limits"). The
    defaults fit any village's or town's petition; raise one for a case that needs it."""

    pages_per_file: int = Field(default=500, ge=1)
    pages_per_case: int = Field(default=5000, ge=1)
    # A page's longest side: Letter is 11 in, Legal 14, a ledger sheet 17.
    page_inches: float = Field(default=24.0, gt=0)
    # A scanned page's pixels: Letter at 600 dpi is 5,100 x 6,600 (33.7 million).
    image_pixels: int = Field(default=100_000_000, ge=1)
    image_side_pixels: int = Field(default=10_000, ge=1)  # Letter's 11 in at 900 dpi
    image_min_side_pixels: int = Field(default=64, ge=1)  # a page, not an icon (1 x 1)
    register_bytes: int = Field(default=8 * 1024**3, ge=1)  # the state's file is ~4 GB
    roll_bytes: int = Field(default=1024**3, ge=1)
    line_chars: int = Field(default=65_536, ge=256)  # one line of a register or roll file


# Dates a petition's facts can have: anything else is a typo (a year of 2206 or 0206).
EARLIEST = dt.date(1900, 1, 1)
LATEST = dt.date(2199, 12, 31)
# "the previous general village election": villages elect at least every other year.
PREVIOUS_ELECTION_DAYS = 2 * 366


class CaseConfig(_Strict):
    name: str = Field(min_length=1)
    kind: str = Field(min_length=1)  # a registered kind's name (`pipeline.kinds`)
    municipality: MunicipalityConfig
    dates: DatesConfig
    # The register of voters; not needed by a petition only owners sign (Town Law § 191).
    register_file: RegisterConfig | None = Field(default=None, alias="register")
    denominator: DenominatorConfig = DenominatorConfig()
    proposition: str = ""  # 9-902: title, abstract or number of the act or resolution
    sheets: tuple[Path, ...] = Field(min_length=1)  # files or folders, in filing order
    matching: MatchingConfig = MatchingConfig()
    nomination: NominationConfig | None = None  # kind = "independent_nomination"
    incorporation: IncorporationConfig | None = None  # kind = "incorporation"
    district: DistrictConfig | None = None  # kind = "improvement_district"
    limits: LimitsConfig = LimitsConfig()
    case_dir: Path = Path(".")  # set by load_case: the case file's folder
    _spec: KindSpec = PrivateAttr()
    _other_section: BaseModel | None = PrivateAttr(default=None)

    @model_validator(mode="wrap")
    @classmethod
    def _of_its_kind(cls, data: Any, handler: Any, info: ValidationInfo) -> CaseConfig:
        """The case's kind looked up among the registered kinds (the validation context's
        `kinds`, else the built-in ones), its section validated by the kind's model (a kind
        without a field of its own here keeps it apart: `section`), and what else the kind
        needs beyond the common keys, every gap named at once."""
        if isinstance(data, CaseConfig):
            return data
        kind = data.get("kind") if isinstance(data, Mapping) else None
        spec = _kinds(info).get(kind) if isinstance(kind, str) else None
        if spec is None:
            return handler(data)  # pydantic says what is wrong with it (`_known_kind`)
        other = None
        if spec.section is not None and spec.section not in cls.model_fields:
            data = dict(data)
            raw = data.pop(spec.section, None)
            if raw is not None and spec.section_model is not None:
                other = spec.section_model.model_validate(raw)
        case = handler(data)
        case._spec, case._other_section = spec, other
        case._needs_of_its_kind()
        return case

    @field_validator("kind")
    @classmethod
    def _known_kind(cls, kind: str, info: ValidationInfo) -> str:
        kinds = _kinds(info)
        if kind not in kinds:
            raise ValueError(f"unknown petition kind {kind!r} (known: {', '.join(kinds)})")
        return kind

    def _needs_of_its_kind(self) -> None:
        spec = self.spec
        missing = [*spec.requires(self)]
        if spec.section is not None and self.section is None:
            missing.append(f"[{spec.section}]")
        if spec.in_village and not self.municipality.village:
            missing.append("municipality.village")
        if spec.signed_by(self) == "voters" and self.register_file is None:
            missing.append("[register]")
        if missing:
            raise ValueError(f"kind = '{self.kind}' needs " + ", ".join(missing))
        if self.dates.adopted is not None and self.dates.filed < self.dates.adopted:
            raise ValueError(
                f"dates.filed ({self.dates.filed}) is before dates.adopted ({self.dates.adopted})"
            )

    @property
    def spec(self) -> KindSpec:
        """The petition kind's spec: its statute, rules, windows and forms."""
        return self._spec

    @property
    def section(self) -> BaseModel | None:
        """The kind's own table of the case file ([nomination], [district], ...), validated."""
        name = self.spec.section
        if name is None:
            return None
        return getattr(self, name) if name in type(self).model_fields else self._other_section

    @model_validator(mode="after")
    def _dates_plausible(self) -> CaseConfig:
        """The case's own dates, checked as facts: a typo in a year must not become a
        threshold (a register counted in the wrong year) or a crash at the calendar's end."""
        d, filed = self.dates, self.dates.filed
        named = {
            "dates.filed": filed,
            "dates.adopted": d.adopted,
            "dates.previous_general_election": d.previous_general_election,
            "dates.next_general_election": d.next_general_election,
            "denominator.as_of": self.denominator.as_of,
            "nomination.election": self.nomination.election if self.nomination else None,
        }
        problems = [
            f"{key} ({day}) is not a plausible date (expected {EARLIEST.year}-{LATEST.year})"
            for key, day in named.items()
            if day is not None and not EARLIEST <= day <= LATEST
        ]
        previous = d.previous_general_election
        if previous is not None and not problems:
            if previous > filed:
                problems.append(
                    f"dates.previous_general_election ({previous}) is after dates.filed "
                    f"({filed}): it is the election before the filing"
                )
            elif (filed - previous).days > PREVIOUS_ELECTION_DAYS:
                problems.append(
                    f"dates.previous_general_election ({previous}) is more than two years "
                    f"before dates.filed ({filed}): is the year right?"
                )
        if self.nomination is not None and not problems and self.nomination.election < filed:
            problems.append(
                f"nomination.election ({self.nomination.election}) is before dates.filed "
                f"({filed}): a nominating petition is filed before its election"
            )
        if self.denominator.as_of is not None and not problems and self.denominator.as_of > filed:
            problems.append(
                f"denominator.as_of ({self.denominator.as_of}) is after dates.filed ({filed})"
            )
        if problems:
            raise ValueError("; ".join(problems))
        return self

    @property
    def denominator_register(self) -> RegisterConfig | None:
        return self.denominator.register_file or self.register_file

    @property
    def roll(self) -> RollConfig | None:
        """The assessment roll, for the kinds owners sign."""
        return self.spec.roll(self)

    @property
    def denominator_as_of(self) -> dt.date:
        """The day the denominator's register is counted as of (9-902: the previous general
        village election; otherwise the filing)."""
        return self.denominator.as_of or self.dates.previous_general_election or self.dates.filed


def _resolve(base: Path, p: Path) -> Path:
    return p if p.is_absolute() else (base / p)


def _format_pydantic(err: ValidationError) -> list[str]:
    out = []
    for e in err.errors():
        where = ".".join(str(p) for p in e["loc"]) or "(top level)"
        msg = e["msg"]
        if e["type"] == "extra_forbidden":
            msg = "unknown key (a typo?)"
        elif e["type"] == "missing":
            msg = "required key is missing"
        out.append(f"{where}: {msg}")
    return out


def _kinds(info: ValidationInfo) -> Mapping[str, KindSpec]:
    """The kinds a case may be of: the validation context's, else the built-in ones."""
    return (info.context or {}).get("kinds") or builtin_kinds()


def builtin_kinds() -> Mapping[str, KindSpec]:
    """The kinds this package defines. (Imported here, not at the top: the kinds' rule modules
    read cases, so they load after this module.)"""
    from .kinds import BUILTIN_KINDS

    return BUILTIN_KINDS


def parse_case(
    data: dict[str, Any],
    case_dir: Path,
    label: str = "<case>",
    kinds: Mapping[str, KindSpec] | None = None,
) -> CaseConfig:
    """Validate a case given as a dict (the parsed TOML). Paths are resolved against case_dir,
    and every listed register and sheet path is checked to exist; all problems are reported.
    `kinds`: the petition kinds a case may be of (default: the built-in ones)."""
    problems: list[str] = []
    try:
        case = CaseConfig.model_validate(
            {**data, "case_dir": case_dir}, context={"kinds": kinds or builtin_kinds()}
        )
    except ValidationError as err:
        raise CaseFileError(label, _format_pydantic(err)) from None

    register = case.register_file
    if register is not None:
        register = register.model_copy(update={"path": _resolve(case_dir, register.path)})
    district, incorporation = case.district, case.incorporation
    if district is not None:
        roll = district.roll.model_copy(update={"path": _resolve(case_dir, district.roll.path)})
        district = district.model_copy(update={"roll": roll})
    if incorporation is not None and incorporation.roll is not None:
        roll = incorporation.roll.model_copy(
            update={"path": _resolve(case_dir, incorporation.roll.path)}
        )
        incorporation = incorporation.model_copy(update={"roll": roll})
    denominator = case.denominator
    if denominator.register_file is not None:
        other = denominator.register_file
        denominator = denominator.model_copy(
            update={
                "register_file": other.model_copy(update={"path": _resolve(case_dir, other.path)})
            }
        )
    matching = case.matching.model_copy(update={"cache": _resolve(case_dir, case.matching.cache)})
    sheets = tuple(_resolve(case_dir, p) for p in case.sheets)
    for i, p in enumerate(sheets):
        if not p.exists():
            problems.append(f"sheets[{i}]: {p} does not exist")
    if problems:
        raise CaseFileError(label, problems)
    return case.model_copy(
        update={
            "register_file": register,
            "denominator": denominator,
            "sheets": sheets,
            "district": district,
            "incorporation": incorporation,
            "matching": matching,
        }
    )


def load_case(path: str | Path, kinds: Mapping[str, KindSpec] | None = None) -> CaseConfig:
    """Read and validate a case file (of one of `kinds`, default the built-in ones). Raises
    CaseFileError listing every problem.

    The register's existence is checked when it is read (InputMissingError, its own exit code),
    so that a missing register is told apart from a malformed case file."""
    path = Path(path)
    if not path.is_file():
        raise CaseFileError(str(path), ["the case file does not exist or is not a file"])
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise CaseFileError(str(path), [f"not valid TOML: {err}"]) from None
    return parse_case(data, path.parent.resolve(), label=str(path), kinds=kinds)
