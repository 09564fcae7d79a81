"""Synthetic fixtures: an invented village register, petition sheets and their ground truth.

Nothing here holds real person's data. `generate_case` writes a complete case (register.csv,
sheets/*.pdf, case.toml, truth.json, README.md) deterministically from a seed; with a
`Variation` it writes a corpus-style case (varied rows, columns, handwriting and defects).
`scan_case` turns a case into scanned images; `generate_corpus` writes many cases in every
input style, with an index (`python -m synth.corpus`).
"""

from .case import (
    FATAL_DEFECTS,
    TRUTH_SCHEMA,
    CaseDates,
    generate_case,
    main,
)
from .handwriting import (
    DEV_FONTS,
    HAND_FONTS,
    HELD_OUT_FONTS,
    Hand,
    HandFont,
    available_fonts,
    font_part,
    font_split,
    pick_hand,
)
from .people import NICKNAMES, Village, Voter, build_register, vary_register
from .register import NYSBOE_FIELDS, register_row, write_register
from .scan import SCAN_STYLES, Degradation, degrade, pick_degradation, scan_case
from .sheets import (
    COLUMNS,
    LinePlan,
    SheetLayout,
    SheetPlan,
    WitnessPlan,
    draw_sheet,
    write_pdf,
)
from .truth import DATE_STYLES, format_date
from .varied import VARIED_TARGETS, Variation, pick_columns, plan_varied

__all__ = [
    "CORPUS_SCHEMA",
    "COLUMNS",
    "DATE_STYLES",
    "DEV_FONTS",
    "HAND_FONTS",
    "HELD_OUT_FONTS",
    "NICKNAMES",
    "SCAN_STYLES",
    "STYLES",
    "VARIED_TARGETS",
    "CorpusEntry",
    "Degradation",
    "Hand",
    "HandFont",
    "SheetLayout",
    "Variation",
    "available_fonts",
    "font_part",
    "font_split",
    "degrade",
    "generate_corpus",
    "pick_columns",
    "pick_degradation",
    "pick_hand",
    "plan_varied",
    "scan_case",
    "vary_register",
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


_CORPUS = frozenset({"CORPUS_SCHEMA", "STYLES", "CorpusEntry", "generate_corpus"})


def __getattr__(name: str) -> object:
    """The corpus API, imported on first use so `python -m synth.corpus` runs the
    module once."""
    if name in _CORPUS:
        from . import corpus

        return getattr(corpus, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
