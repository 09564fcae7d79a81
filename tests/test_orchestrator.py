"""One orchestrator: `run.check_case` is the list of stages, and an executor only decides where
each runs. On the bundled synthetic case (no real person); no Prefect server."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from pipeline.case import load_case
from pipeline.report import report_to_dict
from pipeline.run import Stage, check_case


@dataclass
class Recording:
    """An executor that runs every stage in this process and notes its name, once per stage
    (and once per item mapped)."""

    calls: list[str] = field(default_factory=list)

    def stage(self, name, fn, /, *args):
        self.calls.append(name)
        return fn(*args)

    def map(self, name, fn, items):
        items = list(items)
        self.calls.extend([name] * len(items))
        return [fn(item) for item in items]


def _written(out):
    return json.loads((out / "report.json").read_text())


def test_every_stage_runs_in_order_through_the_executor_and_the_report_is_the_same(
    demo_case, tmp_path
):
    case = load_case(demo_case)
    rec = Recording()
    report = check_case(case, executor=rec, keep_in=tmp_path / "out", write=True)
    assert list(dict.fromkeys(rec.calls)) == list(Stage)
    assert rec.calls.count(Stage.OPEN) == 5 and rec.calls.count(Stage.READ) == 6  # files, pages
    assert report_to_dict(report)["totals"] == _written(tmp_path / "out")["totals"]


def test_the_flow_runs_each_stage_as_a_task_of_its_name():
    """The flow's executor has a task for every stage but the directory listing (run in the
    flow itself), named as the stage is."""
    from flows.check import _OPEN_TASK, _READ_ALL_TASK, _READ_TASK, _STAGE_TASKS

    tasks = {**_STAGE_TASKS, Stage.OPEN: _OPEN_TASK, Stage.READ: _READ_TASK}
    assert set(tasks) == set(Stage) - {Stage.FIND}
    assert all(t.name == name for name, t in tasks.items())
    assert _READ_ALL_TASK.name == Stage.READ and _READ_ALL_TASK.retries == _READ_TASK.retries
    io = {name for name, t in tasks.items() if t.retries}
    assert io == {Stage.REGISTER, Stage.OPEN, Stage.READ, Stage.WRITE}  # retries only on I/O


def test_the_flow_stores_its_parameters_as_they_are():
    """Paths, a flag and None go to the server as they are (not through FastAPI's encoder, whose
    import costs the run); a flow with other options keeps that."""
    from flows.check import check_petition

    params = {"case_path": "/a/case.toml", "out_dir": "/a/out", "decisions_path": None}
    for flow in (check_petition, check_petition.with_options(retries=1)):
        assert flow.serialize_parameters({**params, "use_cache": False}) == {
            **params,
            "use_cache": False,
        }
    assert check_petition.persist_result is False


def test_a_deployment_finds_the_flow_itself_by_its_function_name():
    """A deployment's entrypoint is `flows/check.py:<the function's name>`: that name must be
    the flow, with its run name and task runner, not a bare function Prefect would wrap."""
    import flows.check
    from flows.check import check_petition

    assert getattr(flows.check, check_petition.fn.__name__) is check_petition
    assert check_petition.flow_run_name is not None
