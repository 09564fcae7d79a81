"""The Prefect flow, offline, under one session harness: same report as the plain pipeline."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.flow


def test_flow_matches_plain_pipeline(prefect_harness, demo_case, tmp_path):
    from flows.check import check_petition
    from pipeline.case import load_case
    from pipeline.run import check_case

    report = check_petition(str(demo_case), str(tmp_path / "out"))
    plain = check_case(load_case(demo_case))
    assert report.totals == plain.totals
    assert report.verdict is plain.verdict
    doc = json.loads((tmp_path / "out" / "report.json").read_text())
    assert doc["totals"]["lines_read"] == plain.totals.lines_read
