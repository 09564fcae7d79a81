"""Scheduled runs through a filing window (the deployment is built offline; it fires only
against a running Prefect server)."""

from __future__ import annotations

import datetime as dt

import pytest

pytestmark = pytest.mark.flow


def test_referendum_window_is_the_thirty_days_after_adoption(demo_case, tmp_path):
    from flows.schedule import filing_window, filing_window_deployment
    from pipeline.case import load_case

    case = load_case(demo_case)
    start, end = filing_window(case)
    assert start == case.dates.adopted + dt.timedelta(days=1)
    assert (end - case.dates.adopted).days == 30
    deployment = filing_window_deployment(demo_case, tmp_path / "out", every_minutes=30)
    rrule = deployment.schedules[0].schedule.rrule
    assert f"DTSTART:{start:%Y%m%d}" in rrule and f"UNTIL={end:%Y%m%d}" in rrule
    assert "INTERVAL=30" in rrule
    assert deployment.parameters["case_path"] == str(demo_case.resolve())
    with pytest.raises(ValueError):
        filing_window_deployment(demo_case, tmp_path, every_minutes=0)
