from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

os.environ.setdefault("DO_NOT_TRACK", "1")
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("OMP_THREAD_LIMIT", "1")

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "fixtures" / "demo"


@pytest.fixture
def demo_case(tmp_path: Path) -> Path:
    """A private copy of the bundled synthetic case, safe to modify."""
    dest = tmp_path / "demo"
    shutil.copytree(DEMO, dest)
    return dest / "case.toml"


@pytest.fixture(scope="session")
def prefect_harness():
    """One temporary Prefect API for the whole session (it costs seconds to start; on a shared
    machine at load 25-30 more than Prefect's 30 s default allows)."""
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=120):
        yield
