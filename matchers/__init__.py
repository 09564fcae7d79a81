"""Registers, normalization and matching: who on the register signed each petition line.

- `read_register` reads the register file (NYS BOE export, 45 or 47 fields, or a mapped CSV).
- `normalize_name` / `normalize_address` put both sides of a comparison into one form.
- `BaselineMatcher` scores every line against every register entry with RapidFuzz and decides
  MATCH, REVIEW or NO_MATCH, keeping the top candidates and their evidence for review.
"""

from .baseline import METHOD, BaselineMatcher, comparison_level
from .normalize import ADDRESS_WORDS, NAME_DROP_WORDS, normalize_address, normalize_name
from .register import NYSBOE_45_FIELDS, NYSBOE_47_FIELDS, BadRow, RegisterRead, read_register

__all__ = [
    "ADDRESS_WORDS",
    "METHOD",
    "NAME_DROP_WORDS",
    "NYSBOE_45_FIELDS",
    "NYSBOE_47_FIELDS",
    "BadRow",
    "BaselineMatcher",
    "RegisterRead",
    "comparison_level",
    "normalize_address",
    "normalize_name",
    "read_register",
]
