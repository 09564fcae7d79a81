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


@pytest.mark.parametrize(
    "adopted,extra,end",
    [
        ("2026-05-01", "", dt.date(2026, 6, 1)),  # the thirtieth day, 2026-05-31, a Sunday
        ("2026-04-25", "", dt.date(2026, 5, 26)),  # the thirtieth, 2026-05-25, Memorial day
        ("2026-09-14", "", dt.date(2026, 10, 14)),  # a Wednesday: not extended
        ("2026-09-14", "extra_holidays = [2026-10-14]\n", dt.date(2026, 10, 15)),  # proclaimed
    ],
)
def test_the_window_runs_through_the_extended_last_day(demo_case, tmp_path, adopted, extra, end):
    """9-902(1) with General Construction Law § 25-a: the schedule's last day is the next
    business day when the thirtieth is a Saturday, Sunday or public holiday."""
    from flows.schedule import filing_window, filing_window_deployment
    from pipeline.case import load_case

    text = demo_case.read_text(encoding="utf-8")
    text = text.replace("adopted = 2026-09-14\nfiled = 2026-10-09\n", f"adopted = {adopted}\n")
    text = text.replace("[dates]\n", f"[dates]\nfiled = {end.isoformat()}\n{extra}")
    demo_case.write_text(text, encoding="utf-8")
    assert filing_window(load_case(demo_case))[1] == end
    rrule = filing_window_deployment(demo_case, tmp_path / "out").schedules[0].schedule.rrule
    assert f"UNTIL={end:%Y%m%d}T235900" in rrule
