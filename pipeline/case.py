"""The case file: one TOML file per petition, validated at the edge.

Every key is documented in README.md ("The case file"). `load_case` reports every problem at
once (pydantic's errors plus the checks that need the file system) as one `CaseFileError`.
Relative paths are resolved against the case file's folder.

The common tables are in `pipeline.casefile`; a kind's own table ([nomination], [district],
...) is its spec's: the kind names it and gives its model (`KindSpec.section`,
`section_model`, in the kind's rule module), and the case keeps it as `case.section`.
"""

from __future__ import annotations

import datetime as dt
import tomllib
from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import (
    BaseModel,
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from .casefile import (
    DatesConfig,
    DenominatorConfig,
    LimitsConfig,
    MatchingConfig,
    MunicipalityConfig,
    PersonConfig,
    RegisterConfig,
    RegisterFormat,
    RollConfig,
    StreetRange,
    Strict,
)
from .errors import CaseFileError
from .kinds import BUILTIN_KINDS

if TYPE_CHECKING:
    from .rules.base import KindSpec

__all__ = [
    "CaseConfig",
    "DatesConfig",
    "DenominatorConfig",
    "LimitsConfig",
    "MatchingConfig",
    "MunicipalityConfig",
    "PersonConfig",
    "PetitionKind",
    "RegisterConfig",
    "RegisterFormat",
    "RollConfig",
    "StreetRange",
    "load_case",
    "parse_case",
]


class PetitionKind(StrEnum):
    """The names of the kinds this package defines (`pipeline.kinds.BUILTIN_KINDS`, one spec
    each). A case's `kind` is any registered kind's name: these, or one a caller adds."""

    PERMISSIVE_REFERENDUM = "permissive_referendum"  # Village Law § 9-902
    INDEPENDENT_NOMINATION = "independent_nomination"  # village independent nominating petition
    INCORPORATION = "incorporation"  # Village Law § 2-202 (the seed text's version)
    IMPROVEMENT_DISTRICT = "improvement_district"  # Town Law § 191


# Dates a petition's facts can have: anything else is a typo (a year of 2206 or 0206).
EARLIEST = dt.date(1900, 1, 1)
LATEST = dt.date(2199, 12, 31)
# "the previous general village election": villages elect at least every other year.
PREVIOUS_ELECTION_DAYS = 2 * 366


class CaseConfig(Strict):
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
    limits: LimitsConfig = LimitsConfig()
    case_dir: Path = Path(".")  # set by load_case: the case file's folder
    _spec: KindSpec = PrivateAttr()
    _section: BaseModel | None = PrivateAttr(default=None)

    @model_validator(mode="wrap")
    @classmethod
    def _of_its_kind(cls, data: Any, handler: Any, info: ValidationInfo) -> CaseConfig:
        """The case's kind looked up among the registered kinds (the validation context's
        `kinds`, else the built-in ones), the common keys validated, the kind's section by the
        kind's model (its errors named under the section, with the others, all at once), and
        what else the kind needs beyond the common keys, every gap named at once."""
        if isinstance(data, CaseConfig):
            return data
        kinds = _kinds(info)
        kind = data.get("kind") if isinstance(data, Mapping) else None
        spec = kinds.get(kind) if isinstance(kind, str) else None
        if spec is None:
            return handler(data)  # pydantic says what is wrong with it (`_known_kind`)
        data = dict(data)
        raw = data.pop(spec.section, None) if spec.section is not None else None
        # Another kind's section: a wrong kind, or a case file copied from another petition.
        stray = [
            f"[{other.section}]"
            for other in kinds.values()
            if other.section not in (None, spec.section) and data.pop(other.section, None)
        ]
        errors: list[Any] = []
        try:
            case = handler(data)
        except ValidationError as err:
            errors += _details(err, ())
        section = None
        if raw is not None and spec.section_model is not None and spec.section is not None:
            try:
                section = spec.section_model.model_validate(raw)
            except ValidationError as err:
                errors += _details(err, (spec.section,))
        if errors:
            raise ValidationError.from_exception_data(cls.__name__, errors)
        case._spec, case._section = spec, section
        case._needs_of_its_kind(stray)
        return case

    @field_validator("kind")
    @classmethod
    def _known_kind(cls, kind: str, info: ValidationInfo) -> str:
        kinds = _kinds(info)
        if kind not in kinds:
            raise ValueError(f"unknown petition kind {kind!r} (known: {', '.join(kinds)})")
        return kind

    def _needs_of_its_kind(self, stray: list[str]) -> None:
        """The section's dates checked as facts, as the common ones are (`_dates_plausible`),
        then the kind's own checks of the case (`KindSpec.problems`), then its gaps."""
        spec, section = self.spec, self.section
        dates = {
            f"{spec.section}.{key}": value
            for key, value in (dict(section) if section is not None else {}).items()
            if isinstance(value, dt.date)
        }
        if problems := _implausible(dates) or [*spec.problems(self)]:
            raise ValueError("; ".join(problems))
        missing = [*spec.requires(self)]
        if spec.section is not None and section is None:
            missing.append(f"[{spec.section}]")
        if spec.in_village and not self.municipality.village:
            missing.append("municipality.village")
        if spec.signed_by(self) == "voters" and self.register_file is None:
            missing.append("[register]")
        if missing:
            raise ValueError(f"kind = '{self.kind}' needs " + ", ".join(missing))
        if stray:
            raise ValueError(
                f"{', '.join(stray)} belongs to another kind of petition, not kind = "
                f"'{self.kind}': fix kind, or remove the section"
            )
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
        """The kind's own table of the case file ([nomination], [district], ...), validated by
        its spec's model; None where the kind has none. (A rule module reads its own with
        `rules.base.section_of(case, Model)`.)"""
        return self._section

    def with_section(self, section: BaseModel | None) -> CaseConfig:
        """The same case with its kind's section replaced (`parse_case`: its paths resolved)."""
        copy = self.model_copy()
        copy._section = section
        return copy

    @model_validator(mode="after")
    def _dates_plausible(self) -> CaseConfig:
        """The case's own dates, checked as facts: a typo in a year must not become a
        threshold (a register counted in the wrong year) or a crash at the calendar's end."""
        d, filed = self.dates, self.dates.filed
        problems = _implausible(
            {
                "dates.filed": filed,
                "dates.adopted": d.adopted,
                "dates.previous_general_election": d.previous_general_election,
                "dates.next_general_election": d.next_general_election,
                "denominator.as_of": self.denominator.as_of,
            }
        )
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


def _implausible(named: Mapping[str, dt.date | None]) -> list[str]:
    return [
        f"{key} ({day}) is not a plausible date (expected {EARLIEST.year}-{LATEST.year})"
        for key, day in named.items()
        if day is not None and not EARLIEST <= day <= LATEST
    ]


def _details(err: ValidationError, under: tuple[str, ...]) -> list[Any]:
    """A validation error's errors, to raise again with others (`under`: the section's name)."""
    return [
        {
            "type": e["type"],
            "loc": (*under, *e["loc"]),
            "input": e["input"],
            "ctx": e.get("ctx", {}),
        }
        for e in err.errors()
    ]


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
    return (info.context or {}).get("kinds") or BUILTIN_KINDS


def _paths_under(base: Path, model: BaseModel) -> BaseModel:
    """A section with every relative path in it (a roll's, however deep) resolved."""
    update: dict[str, Any] = {}
    for key, value in dict(model).items():
        if isinstance(value, Path):
            update[key] = _resolve(base, value)
        elif isinstance(value, BaseModel):
            update[key] = _paths_under(base, value)
        elif isinstance(value, tuple) and any(isinstance(v, BaseModel) for v in value):
            update[key] = tuple(
                _paths_under(base, v) if isinstance(v, BaseModel) else v for v in value
            )
    return model.model_copy(update=update) if update else model


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
            {**data, "case_dir": case_dir}, context={"kinds": kinds or BUILTIN_KINDS}
        )
    except ValidationError as err:
        raise CaseFileError(label, _format_pydantic(err)) from None

    register = case.register_file
    if register is not None:
        register = register.model_copy(update={"path": _resolve(case_dir, register.path)})
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
    section = None if case.section is None else _paths_under(case_dir, case.section)
    return case.with_section(section).model_copy(
        update={
            "register_file": register,
            "denominator": denominator,
            "sheets": sheets,
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
