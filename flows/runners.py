"""Where the flow's tasks run: threads in this process (the flow's default), or a Dask cluster
(`prefect-dask`): a `LocalCluster` of worker processes on this machine, or an existing cluster
by its scheduler's address. Pages are mapped across the workers; the register is loaded and
matched once, in one task.
"""

from __future__ import annotations

import os

__all__ = ["dask_runner"]


def dask_runner(workers: int | None = None, address: str | None = None):
    """A DaskTaskRunner: on the cluster at `address` ("tcp://host:8786"), or on a new
    LocalCluster of `workers` processes, one thread each (tesseract and OpenCV on one thread:
    pages are the parallel unit)."""
    from prefect_dask import DaskTaskRunner

    if address:
        return DaskTaskRunner(address=address)
    if workers is None or workers < 1:
        raise ValueError("a local Dask cluster needs at least one worker")
    # Inherited by the worker processes, before tesseract or OpenCV start their own threads.
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")
    os.environ.setdefault("OPENCV_FOR_THREADS_NUM", "1")
    return DaskTaskRunner(
        cluster_class="distributed.LocalCluster",
        cluster_kwargs={
            "n_workers": workers,
            "threads_per_worker": 1,
            "processes": True,
            "dashboard_address": None,
        },
    )
