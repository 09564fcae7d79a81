"""The statutes' rules: one module per petition kind, shared pieces in `base` and `electors`."""

from .base import LineContext, RuleSet, Threshold, finding
from .electors import count_electors_on, in_village, on_register_on

__all__ = [
    "LineContext",
    "RuleSet",
    "Threshold",
    "count_electors_on",
    "finding",
    "in_village",
    "on_register_on",
]
