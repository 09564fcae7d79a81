"""The flow on a two-worker Dask LocalCluster: pages read across the workers' processes, the
register matched once; the same report as the plain pipeline. On the bundled synthetic case.
Slow (a cluster of processes starts); CI runs it in its own step (`-m ops`)."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.ops, pytest.mark.flow]


def test_flow_on_two_dask_workers_matches_the_local_engine(prefect_harness, demo_case, tmp_path):
    from flows.check import check_petition
    from flows.runners import dask_runner
    from pipeline.case import load_case
    from pipeline.report import report_to_dict
    from pipeline.run import check_case
    from pipeline.scan.context import ReadContext

    flow = check_petition.with_options(task_runner=dask_runner(workers=2))
    report = flow(str(demo_case), str(tmp_path / "out"), None, False)
    plain = check_case(
        load_case(demo_case), context=ReadContext(crops_dir=tmp_path / "out" / "crops")
    )
    got, want = report_to_dict(report), report_to_dict(plain)
    got.pop("generated_at")
    want.pop("generated_at")
    assert got == want
    assert not report.file_errors and report.totals.lines_read == 60


def test_a_dask_runner_needs_workers_or_an_address():
    from flows.runners import dask_runner

    with pytest.raises(ValueError):
        dask_runner(workers=0)
    assert dask_runner(address="tcp://127.0.0.1:8786") is not None
