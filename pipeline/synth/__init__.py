"""Synthetic fixtures: an invented village register, petition sheets and their ground truth.

Nothing here holds real person's data. `generate_case` writes a complete case (register.csv,
sheets/*.pdf, case.toml, truth.json, README.md) deterministically from a seed.
"""

from .case import FATAL_DEFECTS, TRUTH_SCHEMA, CaseDates, format_date, generate_case, main
from .people import Village, Voter, build_register
from .register import NYSBOE_FIELDS, register_row, write_register
from .sheets import COLUMNS, LinePlan, SheetPlan, WitnessPlan, draw_sheet, write_pdf

__all__ = [
    "COLUMNS",
    "FATAL_DEFECTS",
    "NYSBOE_FIELDS",
    "TRUTH_SCHEMA",
    "CaseDates",
    "LinePlan",
    "SheetPlan",
    "Village",
    "Voter",
    "WitnessPlan",
    "build_register",
    "draw_sheet",
    "format_date",
    "generate_case",
    "main",
    "register_row",
    "write_pdf",
    "write_register",
]
