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


@pytest.mark.tesseract
@pytest.mark.slow
@pytest.mark.ops  # CI runs it in the operations step (keeps the fast path under 90 s)
def test_flow_reads_scans_on_its_threads_as_the_plain_pipeline_does(prefect_harness, tmp_path):
    """Scanned pages are read on the flow's thread pool, each thread with its own tesseract
    handle (one shared handle crashed the process). Two scans of the corpus sample's sheet
    (clean and degraded: different pages, both read), synthetic."""
    import shutil
    from pathlib import Path

    from flows.check import check_petition
    from pipeline.case import load_case
    from pipeline.run import check_case

    sample = Path(__file__).resolve().parents[1] / "fixtures" / "corpus-sample" / "case-000"
    case_dir = tmp_path / "case"
    shutil.copytree(sample / "clean-scan", case_dir)
    shutil.copy(
        sample / "degraded-scan" / "sheets" / "sheet-01.jpg", case_dir / "sheets" / "sheet-02.jpg"
    )
    case = case_dir / "case.toml"

    report = check_petition(str(case), str(tmp_path / "out"))
    plain = check_case(load_case(case))
    assert not report.file_errors
    assert len(report.sheets) == 2 and report.totals == plain.totals
    assert [line.fields for s in report.sheets for line in s.lines] == [
        line.fields for s in plain.sheets for line in s.lines
    ]


def test_flow_run_is_named_after_its_case_remembers_its_pages_and_publishes(
    prefect_harness, demo_case, tmp_path
):
    """The run's name is the case's; the verdict, totals and lines in review are a table
    artifact, the report a link; the pages it read are in the case's page cache."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey

    from flows.check import artifact_key, check_petition
    from pipeline.cache import PageCache

    cache = demo_case.parent / "flow-cache"
    demo_case.write_text(demo_case.read_text() + f'\n[matching]\ncache = "{cache}"\n')
    state = check_petition(str(demo_case), str(tmp_path / "out"), return_state=True)
    report = state.result()
    assert PageCache.in_folder(cache).count() == len(report.sheets) == 6
    key = artifact_key(demo_case)
    with get_client(sync_client=True) as client:
        run = client.read_flow_run(state.state_details.flow_run_id)
        assert run.name == report.case_name
        found = client.read_artifacts(
            artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=[key, f"{key}-report"]))
        )
    by_type = {a.type: a for a in found}
    assert set(by_type) == {"table", "markdown"}
    table = by_type["table"].data
    rows = {r["item"]: r["value"] for r in (json.loads(table) if isinstance(table, str) else table)}
    assert rows["verdict"] == report.verdict.value and rows["in review"] == 4
    assert "report.html" in by_type["markdown"].data


def test_text_layers_on_threads_are_read_in_one_task_scans_a_task_each(prefect_harness, demo_case):
    """On the flow's threads, text-layer pages (Python holding the interpreter lock) are read
    in one task; a scan among them gets a task each, so OCR runs in parallel."""
    from dataclasses import replace

    from prefect import flow

    from flows.check import _in_one_task
    from pipeline.records import PageKind
    from pipeline.run import ingest_one

    text = ingest_one(demo_case.parent / "sheets" / "sheet-01.pdf")
    assert text and all(page.kind is PageKind.PDF_TEXT for page in text)
    scan = replace(text[0], kind=PageKind.IMAGE)

    @flow
    def probe() -> tuple[bool, bool]:
        return _in_one_task(text), _in_one_task([*text, scan])

    assert probe() == (True, False)
