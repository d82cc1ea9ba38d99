"""Plan a sweep: tasks × solvers × arms × repeats, each a `Job` with a stable key."""

from __future__ import annotations

import fnmatch
from pathlib import Path

from ..config import BenchConfig, SolverConfig, config_hash
from ..contract import TaskPackage, discover_tasks, load_task
from ..records import Arm, Cancelled, ManifestRow, TaskLabels
from ..verifier import load_a11y_evidence
from ._core import Job


def cell_key(task: str, solver: str, arm: Arm, repeat: int) -> str:
    return f"{task}/{solver}/{arm}/{repeat}"


def select_tasks(cfg: BenchConfig, only: tuple[str, ...] = ()) -> list[TaskPackage]:
    """Load the selected tasks; an invalid task raises ContractError naming every problem
    (a malformed accessibility evidence file too: before any cell runs)."""
    patterns = only or cfg.sweep.tasks
    roots = discover_tasks(Path(cfg.sweep.tasks_dir))
    chosen = [r for r in roots if any(fnmatch.fnmatch(r.name, p) for p in patterns)]
    tasks = [load_task(r) for r in chosen]
    for task in tasks:
        load_a11y_evidence(task)
    return tasks


def _arms(cfg: BenchConfig, solver: SolverConfig) -> list[Arm]:
    return [a for a in cfg.sweep.arms if not solver.arms or a in solver.arms]


def plan_jobs(
    cfg: BenchConfig, tasks: list[TaskPackage], solvers: list[SolverConfig], sweep_name: str
) -> list[Job]:
    jobs = []
    for task in tasks:
        c = task.contract
        labels = TaskLabels(
            regime=c.regime,
            capability=c.capability,
            facet=c.facet,
            stack=c.stack,
            framework=c.framework,
        )
        for solver in solvers:
            if solver.kind == "thrash" and len(c.units) < 3:
                continue
            if solver.kind == "negative" and not c.negatives:
                continue
            for arm in _arms(cfg, solver):
                for rep in range(cfg.sweep.repeats):
                    key = cell_key(c.id, solver.name, arm, rep)
                    template = ManifestRow(
                        sweep=sweep_name,
                        cell=key,
                        task=c.id,
                        labels=labels,
                        contract_hash=task.contract_hash,
                        config_hash=config_hash(cfg, solver, arm),
                        solver=solver.name,
                        arm=arm,
                        repeat=rep,
                        outcome=Cancelled(error="not run"),
                    )
                    jobs.append(Job(key=key, template=template))
    return jobs
