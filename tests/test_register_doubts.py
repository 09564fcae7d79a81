"""The register's own problems never give a confident wrong verdict: identical rows are one
voter, disagreeing rows and unread rows keep a verdict they could change undetermined, a
threshold of 0 or far from the register's count is a case-file error or blocks the verdict,
and a reviewer's decision for a line that is not in the case is said, not ignored. Built on the
bundled synthetic demo register (no real person) and hand-built records."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

import pytest

from pipeline.case import load_case
from pipeline.errors import CaseFileError
from pipeline.judge import judge
from pipeline.records import RegisterDoubt, ReviewAction, ReviewDecision, Verdict
from pipeline.run import load_register, rules_for
from tests import builders as b

DEMO = Path(__file__).resolve().parents[1] / "fixtures" / "demo"
AT = dt.datetime(2026, 10, 12, 14, 0, tzinfo=dt.UTC)


def _demo_copy(tmp_path: Path, register_text: str | None = None, **dates: str) -> Path:
    shutil.copytree(DEMO, tmp_path / "demo")
    case = tmp_path / "demo" / "case.toml"
    if register_text is not None:
        (tmp_path / "demo" / "register.csv").write_text(register_text, encoding="utf-8")
    text = case.read_text(encoding="utf-8")
    for key, value in dates.items():
        text = text.replace(next(ln for ln in text.splitlines() if ln.startswith(key)), value)
    case.write_text(text, encoding="utf-8")
    return case


def test_the_same_export_twice_is_the_same_register(tmp_path):
    original = load_register(load_case(DEMO / "case.toml"))
    text = (DEMO / "register.csv").read_text(encoding="utf-8")
    doubled = load_register(load_case(_demo_copy(tmp_path, text + text)))
    assert doubled.electors == original.electors == 137
    assert not doubled.doubt
    assert "REGISTER_DUPLICATE_ROWS" in {f.code for f in doubled.findings}


def test_one_id_with_different_rows_is_a_doubt(tmp_path):
    rows = (DEMO / "register.csv").read_text(encoding="utf-8").splitlines(keepends=True)
    changed = rows[5].replace(rows[5].split(",")[1], "SOMEONEELSE", 1)
    register = load_register(load_case(_demo_copy(tmp_path, "".join(rows) + changed)))
    assert len(register.doubt.conflicting_ids) == 1
    assert "REGISTER_CONFLICTING_IDS" in {f.code for f in register.findings}


@pytest.mark.parametrize(
    "key,line,problem",
    [
        ("previous_general_election", "previous_general_election = 2016-03-17", "two years"),
        ("previous_general_election", "previous_general_election = 2062-03-17", "after"),
        ("filed", "filed = 9999-12-31", "plausible"),
        ("election_districts", 'election_districts = ["9"]', "0 electors"),
    ],
)
def test_a_typo_in_the_case_facts_is_a_case_file_error(tmp_path, key, line, problem):
    case = _demo_copy(tmp_path, **{key: line})
    with pytest.raises(CaseFileError, match=problem):
        load_register(load_case(case))


def _one_sheet(valid: int, electors: int, **kw):
    lines = tuple(b.line(i + 1) for i in range(valid))
    sheet = b.sheet(lines)
    matches = {ln.line_id: b.match(ln.line_id, f"NY{i}") for i, ln in enumerate(lines)}
    register = {f"NY{i}": b.entry(f"NY{i}") for i in range(valid)}
    case = b.case()
    return judge(case, rules_for(case), [sheet], matches, register, electors, **kw)


def test_unread_register_rows_that_could_raise_the_threshold_keep_it_open():
    assert _one_sheet(4, 20).verdict is Verdict.SUFFICIENT  # 4 of 4 required
    report = _one_sheet(4, 20, doubt=RegisterDoubt(unread_rows=3, denominator_rows=3))
    assert report.verdict is Verdict.UNDETERMINED  # 23 electors would need 5
    assert "could not be read" in report.verdict_reason
    # far enough above the threshold, the unread rows cannot change it
    assert _one_sheet(4, 10, doubt=RegisterDoubt(3, 3)).verdict is Verdict.SUFFICIENT


def test_a_voter_whose_rows_disagree_is_not_counted_as_surely_valid():
    report = _one_sheet(4, 20, doubt=RegisterDoubt(conflicting_ids=frozenset({"NY0"})))
    assert report.verdict is Verdict.UNDETERMINED


def test_a_threshold_of_zero_is_no_pass():
    report = _one_sheet(1, 0)
    assert report.verdict is Verdict.UNDETERMINED
    assert "DENOMINATOR_IMPLAUSIBLE" in {f.code for f in report.findings}


def test_a_decision_for_a_line_not_in_the_case_is_reported_and_blocks_the_verdict():
    stray = ReviewDecision("0123456789ab-07", ReviewAction.REJECT, "clerk@test", AT)
    report = _one_sheet(4, 10, decisions={stray.line_id: stray})
    assert report.verdict is Verdict.UNDETERMINED
    (unmatched,) = [f for f in report.findings if f.code == "DECISIONS_UNMATCHED"]
    assert unmatched.evidence["count"] == 1
