"""The one place the dashboard runs the pipeline: a case checked after its sheets are
uploaded. Plain functions in this process today; the operations work's event function (a
Prefect deployment run) takes this call's place when it lands."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pipeline import run
from pipeline.case import load_case
from pipeline.records import ReviewDecision, SufficiencyReport
from pipeline.report import write_report
from pipeline.scan.context import ReadContext

__all__ = ["check"]


def check(case_path: Path, out_dir: Path, decisions: Sequence[ReviewDecision]) -> SufficiencyReport:
    """Check a case with the review's decisions and write its report and judging inputs:
    the dashboard's one call into the pipeline (plain functions, in this process)."""
    case = load_case(case_path)
    context = ReadContext(crops_dir=out_dir / "crops")
    report = run.check_case(case, decisions, context=context, keep_in=out_dir)
    write_report(report, out_dir)
    return report
