"""A workspace for the dashboard's tests: the bundled synthetic demo case (no real person),
copied, with a denominator that leaves it undetermined (38 valid, 4 in review, 39 required),
checked once with its judging inputs kept."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from argon2 import PasswordHasher

from dashboard.accounts import Accounts, Role
from dashboard.checking import check

DEMO = Path(__file__).resolve().parents[1] / "fixtures" / "demo"
PASSWORD = "correct horse battery"
SHEET = "7289d14d258f"  # the demo's sheet whose stated count is wrong: its 4 lines wait
REVIEW_LINES = [f"{SHEET}-0{n}" for n in (1, 3, 4, 5)]
FAST_HASH = PasswordHasher(time_cost=1, memory_cost=8192, parallelism=1)


def csrf_of(html: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', html).group(1)


def make_workspace(root: Path) -> Path:
    """root/demo: the case folder, checked into root/demo/out; root/users.sqlite."""
    case_dir = root / "demo"
    shutil.copytree(DEMO, case_dir, ignore=shutil.ignore_patterns("truth.json"))
    text = (case_dir / "case.toml").read_text(encoding="utf-8")
    # 20% of 195 electors: 39 required, so the 4 lines in review decide the verdict.
    text += "\n[denominator]\nelectors = 195\n"
    (case_dir / "case.toml").write_text(text, encoding="utf-8")
    check(case_dir / "case.toml", case_dir / "out", [])
    accounts = Accounts(root / "users.sqlite", FAST_HASH)
    accounts.add("rita", Role.REVIEWER, PASSWORD)
    accounts.add("sam", Role.SUPERVISOR, PASSWORD)
    return root
