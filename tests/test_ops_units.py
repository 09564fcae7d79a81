"""Operations' small parts without a server: which engine `check` picks, the inbox watcher, the
upload event's resource and trigger, the filing window's next runs. Synthetic case only."""

from __future__ import annotations

import datetime as dt
import logging
import shutil

import pytest

from flows.inbox import InboxWatcher, accept_sheet, sheets_folder
from flows.server import configured_api_url
from pipeline.errors import CaseFileError


def test_a_server_is_configured_by_the_environment_or_the_active_profile(tmp_path):
    home = tmp_path / "home"
    assert configured_api_url({"PREFECT_HOME": str(home)}) is None
    env = {"PREFECT_HOME": str(home), "PREFECT_API_URL": "http://h:1/api"}
    assert configured_api_url(env) == "http://h:1/api"
    home.mkdir()
    (home / "profiles.toml").write_text(
        'active = "local"\n[profiles.local]\nPREFECT_API_URL = "http://127.0.0.1:4200/api"\n'
        "[profiles.ephemeral]\n"
    )
    assert configured_api_url({"PREFECT_HOME": str(home)}) == "http://127.0.0.1:4200/api"
    assert configured_api_url({"PREFECT_HOME": str(home), "PREFECT_PROFILE": "ephemeral"}) is None


def test_check_runs_in_process_unless_a_server_is_configured(monkeypatch, tmp_path):
    from pipeline.cli import _engine

    monkeypatch.setenv("PREFECT_HOME", str(tmp_path))
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    monkeypatch.delenv("PREFECT_PROFILE", raising=False)
    assert _engine("auto", None) == "local"
    assert _engine("auto", "2") == "prefect"
    assert _engine("local", None) == "local"
    monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:4200/api")
    assert _engine("auto", None) == "prefect"


def test_the_inbox_moves_a_sheet_once_it_is_fully_written(demo_case, tmp_path, caplog):
    folder = sheets_folder(demo_case)
    assert folder == demo_case.parent / "sheets"
    inbox = tmp_path / "inbox"
    uploads: list[list] = []
    watcher = InboxWatcher(inbox, folder, uploads.append)
    assert watcher.poll() == []
    sheet = inbox / "sheet-01.pdf"
    shutil.copy(folder / "sheet-01.pdf", sheet)
    (inbox / "notes.txt").write_text("not a sheet")
    (inbox / ".partial.pdf").write_bytes(b"%PDF")  # hidden: still being written
    with caplog.at_level(logging.WARNING):
        assert watcher.poll() == []  # seen once: it may still be growing
    assert "notes.txt: not a sheet file" in caplog.text
    (moved,) = watcher.poll()
    assert moved == folder / "sheet-01~2.pdf" and moved.is_file() and not sheet.exists()
    assert uploads == [[moved]]
    assert (inbox / "notes.txt").exists() and watcher.poll() == []
    # a file still growing between two looks waits
    growing = inbox / "sheet-09.pdf"
    growing.write_bytes(b"%PDF-1.4 part")
    watcher.poll()
    growing.write_bytes(b"%PDF-1.4 part and more")
    assert watcher.poll() == []
    assert accept_sheet(growing, tmp_path).name == "sheet-09.pdf"


def test_the_upload_event_names_the_case_and_its_trigger_matches_it(demo_case, tmp_path):
    from flows.events import SHEETS_UPLOADED, case_resource, upload_trigger

    resource = case_resource(demo_case)
    assert resource == case_resource(demo_case.parent / "." / "case.toml")
    assert (
        resource["prefect.resource.id"]
        != case_resource(tmp_path / "case.toml")["prefect.resource.id"]
    )
    trigger = upload_trigger(demo_case)
    assert trigger.expect == {SHEETS_UPLOADED}
    assert trigger.match.model_dump() == {"prefect.resource.id": resource["prefect.resource.id"]}


def test_the_deployment_runs_on_upload_and_its_next_runs_are_in_the_window(demo_case, tmp_path):
    from flows.schedule import filing_window, filing_window_deployment, next_runs
    from pipeline.case import load_case

    start, end = filing_window(load_case(demo_case))
    deployment = filing_window_deployment(demo_case, tmp_path, every_minutes=90, upload=True)
    assert len(deployment.triggers) == 1 and "upload" in deployment.tags
    before = dt.datetime.combine(start, dt.time()) - dt.timedelta(days=1)
    runs = next_runs(deployment, before)
    assert runs == [
        dt.datetime.combine(start, dt.time()) + dt.timedelta(minutes=90 * i) for i in range(3)
    ]
    assert next_runs(deployment, dt.datetime.combine(end, dt.time(23, 59))) == []


def test_serving_a_case_whose_sheets_name_no_folder_is_a_case_file_error(demo_case):
    text = demo_case.read_text().replace('sheets = ["sheets"]', 'sheets = ["sheets/sheet-01.pdf"]')
    demo_case.write_text(text)
    with pytest.raises(CaseFileError, match="names no folder"):
        sheets_folder(demo_case)
