"""The case file: one TOML file per petition, validated at the edge.

Every key is documented in README.md ("The case file"). `load_case` reports every problem at
once (pydantic's errors plus the checks that need the file system) as one `CaseFileError`.
Relative paths are resolved against the case file's folder.
"""

from __future__ import annotations

import datetime as dt
import tomllib
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from .errors import CaseFileError

__all__ = [
    "CaseConfig",
    "DatesConfig",
    "DenominatorConfig",
    "MatchingConfig",
    "MunicipalityConfig",
    "PetitionKind",
    "RegisterConfig",
    "RegisterFormat",
    "load_case",
]


class PetitionKind(StrEnum):
    PERMISSIVE_REFERENDUM = "permissive_referendum"  # Village Law § 9-902


class RegisterFormat(StrEnum):
    NYSBOE = "nysboe"  # NYS Board of Elections export, 45 or 47 fields (detected per file)
    CSV = "csv"  # any CSV with a header row, mapped with [register.columns]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class MunicipalityConfig(_Strict):
    village: str = Field(min_length=1)
    town: str = Field(min_length=1)
    county: str = Field(min_length=1)
    # Who on the register lives in the village. The state export has a town but no village
    # column, so the village is given by its wards and/or election districts. Empty lists:
    # the register file is already the village's own list, and every entry is in the village.
    wards: tuple[str, ...] = ()
    election_districts: tuple[str, ...] = ()


class DatesConfig(_Strict):
    adopted: dt.date  # the act or resolution was adopted (9-902(1))
    filed: dt.date  # the petition was filed with the village clerk
    previous_general_election: dt.date  # whose register is the 20% denominator (9-902(1))
    # The next general village election after the filing (9-902(5)-(6)). Default: the third
    # Tuesday of March, or the 18th when that is the 17th (Village Law § 15-104(1)).
    next_general_election: dt.date | None = None


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
    """Thresholds of the baseline matcher (0..100). Defaults are set from the fixtures'
    benchmark; change them only with a benchmark run that shows why."""

    accept: float = Field(default=90.0, ge=0, le=100)
    reject: float = Field(default=60.0, ge=0, le=100)
    margin: float = Field(default=6.0, ge=0, le=100)
    candidates: int = Field(default=5, ge=1, le=50)

    @model_validator(mode="after")
    def _ordered(self) -> MatchingConfig:
        if self.reject > self.accept:
            raise ValueError("reject must not be above accept")
        return self


class CaseConfig(_Strict):
    name: str = Field(min_length=1)
    kind: PetitionKind
    municipality: MunicipalityConfig
    dates: DatesConfig
    register_file: RegisterConfig = Field(alias="register")
    denominator: DenominatorConfig = DenominatorConfig()
    proposition: str = ""  # 9-902: title, abstract or number of the act or resolution
    sheets: tuple[Path, ...] = Field(min_length=1)  # files or folders, in filing order
    matching: MatchingConfig = MatchingConfig()
    case_dir: Path = Path(".")  # set by load_case: the case file's folder

    @model_validator(mode="after")
    def _dates_in_order(self) -> CaseConfig:
        if self.dates.filed < self.dates.adopted:
            raise ValueError(
                f"dates.filed ({self.dates.filed}) is before dates.adopted ({self.dates.adopted})"
            )
        return self

    @property
    def denominator_register(self) -> RegisterConfig:
        return self.denominator.register_file or self.register_file

    @property
    def denominator_as_of(self) -> dt.date:
        return self.denominator.as_of or self.dates.previous_general_election


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


def parse_case(data: dict[str, Any], case_dir: Path, label: str = "<case>") -> CaseConfig:
    """Validate a case given as a dict (the parsed TOML). Paths are resolved against case_dir,
    and every listed register and sheet path is checked to exist; all problems are reported."""
    problems: list[str] = []
    try:
        case = CaseConfig.model_validate({**data, "case_dir": case_dir})
    except ValidationError as err:
        raise CaseFileError(label, _format_pydantic(err)) from None

    register = case.register_file.model_copy(
        update={"path": _resolve(case_dir, case.register_file.path)}
    )
    denominator = case.denominator
    if denominator.register_file is not None:
        other = denominator.register_file
        denominator = denominator.model_copy(
            update={
                "register_file": other.model_copy(update={"path": _resolve(case_dir, other.path)})
            }
        )
    sheets = tuple(_resolve(case_dir, p) for p in case.sheets)
    for i, p in enumerate(sheets):
        if not p.exists():
            problems.append(f"sheets[{i}]: {p} does not exist")
    if problems:
        raise CaseFileError(label, problems)
    return case.model_copy(
        update={"register_file": register, "denominator": denominator, "sheets": sheets}
    )


def load_case(path: str | Path) -> CaseConfig:
    """Read and validate a case file. Raises CaseFileError listing every problem.

    The register's existence is checked when it is read (InputMissingError, its own exit code),
    so that a missing register is told apart from a malformed case file."""
    path = Path(path)
    if not path.is_file():
        raise CaseFileError(str(path), ["the case file does not exist or is not a file"])
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise CaseFileError(str(path), [f"not valid TOML: {err}"]) from None
    return parse_case(data, path.parent.resolve(), label=str(path))
