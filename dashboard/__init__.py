"""The review dashboard: a web application where a clerk works through the lines in review,
decides them, and a supervisor certifies the case (README.md, "The review dashboard")."""

from .accounts import Account, Accounts, Role
from .audit import AuditStore
from .review import CaseReview

__all__ = ["Account", "Accounts", "AuditStore", "CaseReview", "Role"]
