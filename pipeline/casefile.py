"""The case file's common tables, the parts any kind of petition and any stage may use: the
municipality, the dates, the register, the denominator, matching, a person, an assessment roll,
the limits, and `Strict`, the model every table (a kind's own section too) is made from.

`pipeline.case` puts them together into `CaseConfig` with the kind's section; this module
knows no kind, so the kinds' rule modules and the matchers can use it without loading them.
"""

from __future__ import annotations

import datetime as dt
from enum import StrEnum
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .holidays import HolidayCalendar

__all__ = [
    "DatesConfig",
    "DenominatorConfig",
    "LimitsConfig",
    "MatchingConfig",
    "MunicipalityConfig",
    "PersonConfig",
    "RegisterConfig",
    "RegisterFormat",
    "RollConfig",
    "Strict",
    "StreetRange",
]


class RegisterFormat(StrEnum):
    NYSBOE = "nysboe"  # NYS Board of Elections export, 45 or 47 fields (detected per file)
    CSV = "csv"  # any CSV with a header row, mapped with [register.columns]


class Strict(BaseModel):
    """A table of the case file: unknown keys are errors, and it does not change once read."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class StreetRange(Strict):
    """Part of a street inside the village: house numbers low..high on one side or both."""

    street: str = Field(min_length=1)  # "Main St", "N Maple Avenue" (normalized when compared)
    low: int = Field(default=0, ge=0)
    high: int = Field(default=999_999, ge=0)
    side: Literal["both", "odd", "even"] = "both"


class MunicipalityConfig(Strict):
    village: str = ""  # required for the village petitions; a town district has none
    town: str = Field(min_length=1)
    county: str = Field(min_length=1)
    # Who on the register lives in the village. The state export has a town but no village
    # column, so the village is given by its wards and/or election districts, and/or by a
    # street-range table. All empty: the register file is already the village's own list.
    wards: tuple[str, ...] = ()
    election_districts: tuple[str, ...] = ()
    streets: tuple[StreetRange, ...] = ()


class DatesConfig(Strict):
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


class RegisterConfig(Strict):
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


class DenominatorConfig(Strict):
    """The 20% of 9-902(1) is of 'such electors in the village, as shown on the register of
    electors for the previous general village election'. Either the clerk's count of that
    register, or a register file counted as it stood on the election day."""

    electors: int | None = Field(default=None, ge=1)
    # ("register" in the case file; renamed here because BaseModel has a `register` attribute)
    register_file: RegisterConfig | None = Field(default=None, alias="register")
    as_of: dt.date | None = None  # default: dates.previous_general_election


class MatchingConfig(Strict):
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
    # Unsure handwritten dates (and wards and districts) read in the closed world with the
    # project's own recognizer's evidence beside tesseract's (pipeline/recognizer/; README "A
    # second reader for dates"). On by default since 2026-12-07: it lowers review of signed
    # hand-filled lines on the held-out fonts by a quarter to a third (bench/handwriting.py,
    # six seeds), and since a date read surely enough is weighed by the rules too
    # (`rules.reading.date_contested`), no line on them was decided wrongly with it. False:
    # tesseract's lattices alone.
    recognizer: bool = True

    @model_validator(mode="after")
    def _ordered(self) -> MatchingConfig:
        if self.reject > self.accept:
            raise ValueError("reject must not be above accept")
        return self


class PersonConfig(Strict):
    name: str = Field(min_length=1)
    address: str = ""


class RollConfig(Strict):
    """The latest completed assessment roll (a CSV; README documents its columns)."""

    path: Path
    columns: dict[str, str] = Field(default_factory=dict)  # our column name -> the CSV's


class LimitsConfig(Strict):
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
