"""Registers, normalization and matching: who on the register signed each petition line.

- `read_register` reads the register file (NYS BOE export, 45 or 47 fields, or a mapped CSV).
- `open_store` imports a register file into DuckDB once (keyed by its sha256) and reuses it;
  `RegisterStore` answers `as_of` queries.
- `normalize_name` / `normalize_address` (and `split_person_name`, `split_street_address`) put
  both sides of a comparison into one form; `same_given_name` knows nicknames.
- `FSMatcher` blocks (several passes, united), compares field by field with ordered levels
  (`COMPARISONS`), weighs with Fellegi-Sunter weights (`load_weights`) and decides MATCH,
  REVIEW or NO_MATCH with the candidates and their evidence. `BaselineMatcher` is the older
  all-pairs RapidFuzz matcher, kept as the yardstick.
- `read_roll`: the assessment roll; its owners are matched like voters, its holdings credited.
- `Matcher`: the protocol both matchers satisfy (`match_all(lines) -> tuple[Match, ...]`), what
  the pipeline types against.
"""

from .assessment_roll import RollRead, owner_id, read_roll, split_co_owners
from .baseline import METHOD, BaselineMatcher, comparison_level
from .compare import COMPARISONS, Comparison, Similarity, compare_arrays
from .matcher import FSMatcher
from .nicknames import NICKNAMES, canonical_given_name, same_given_name
from .normalize import (
    ADDRESS_WORDS,
    NAME_DROP_WORDS,
    PersonName,
    StreetAddress,
    normalize_address,
    normalize_name,
    soundex,
    split_person_name,
    split_street_address,
)
from .protocol import Matcher
from .register import NYSBOE_45_FIELDS, NYSBOE_47_FIELDS, BadRow, RegisterRead, read_register
from .store import BLOCKING_KEYS, ImportInfo, RegisterStore, open_store, status_on
from .weights import Thresholds, Weights, load_weights

__all__ = [
    "ADDRESS_WORDS",
    "BLOCKING_KEYS",
    "COMPARISONS",
    "METHOD",
    "NAME_DROP_WORDS",
    "NICKNAMES",
    "NYSBOE_45_FIELDS",
    "NYSBOE_47_FIELDS",
    "BadRow",
    "BaselineMatcher",
    "Comparison",
    "FSMatcher",
    "ImportInfo",
    "Matcher",
    "PersonName",
    "RegisterRead",
    "RegisterStore",
    "Similarity",
    "StreetAddress",
    "Thresholds",
    "Weights",
    "canonical_given_name",
    "compare_arrays",
    "comparison_level",
    "load_weights",
    "normalize_address",
    "normalize_name",
    "open_store",
    "read_register",
    "read_roll",
    "owner_id",
    "split_co_owners",
    "RollRead",
    "same_given_name",
    "soundex",
    "split_person_name",
    "split_street_address",
    "status_on",
]
