"""Closed-world reading: an unsure field read as the likeliest of the values it can hold
(dates near the signing window, the register's addresses, its voters), scored against what
the recognizer saw, with an explicit "none of these" hypothesis."""

from .resolve import (
    PARAMS,
    Evidence,
    World,
    decide,
    evidence,
    line_evidence,
    resolve_line,
    resolve_sheets,
    sheet_dates,
    world_of,
)
from .score import Params, Posterior, costs, mixed_costs, posterior, value_costs
from .sequence import chain_posteriors
from .values import Choices, address_choices, date_choices, date_forms, name_forms, names_of

__all__ = [
    "PARAMS",
    "Choices",
    "Evidence",
    "Params",
    "Posterior",
    "World",
    "address_choices",
    "chain_posteriors",
    "costs",
    "date_choices",
    "date_forms",
    "decide",
    "evidence",
    "line_evidence",
    "mixed_costs",
    "name_forms",
    "names_of",
    "posterior",
    "resolve_line",
    "resolve_sheets",
    "sheet_dates",
    "value_costs",
    "world_of",
]
