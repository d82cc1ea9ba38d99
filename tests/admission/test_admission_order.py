"""`admit_all` starts the longest admissions first (a run must not end on one long task
with the other slots idle) and returns the results in the order it was given."""

from __future__ import annotations

from collections.abc import AsyncIterator, Collection
from contextlib import asynccontextmanager
from pathlib import Path

import msgspec
import pytest

from orchestrator.admission import TaskAdmission, admission_work
from orchestrator.admission import _admit as admission
from orchestrator.contract import TaskPackage, discover_tasks, load_task
from orchestrator.verifier import BrowserPool
from sandbox import AdhocSweep
from tests.fakes import FakeBackend

pytestmark = pytest.mark.anyio
TASKS = Path(__file__).resolve().parents[2] / "tasks"


def test_work_counts_every_state_of_every_control() -> None:
    task = load_task(TASKS / "hollin-ridge-sessions")
    c = task.contract
    # R0, a checkpoint per unit, the final, every negative: each replays every state.
    assert admission_work(task) == len(c.states) * (len(c.units) + len(c.negatives) + 2)


async def test_the_longest_admission_starts_first_and_results_keep_the_given_order(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    tasks = [load_task(root) for root in discover_tasks(TASKS)][:6]
    started: list[str] = []
    given: dict[str, Collection[str] | None] = {}

    async def fake_admit_one(
        _: object, task: TaskPackage, repeat: int, negatives: Collection[str] | None
    ) -> TaskAdmission:
        started.append(task.contract.id)
        given[task.contract.id] = negatives
        return TaskAdmission(
            task=task.contract.id, contract_hash=task.contract_hash, admitted=True, controls=()
        )

    @asynccontextmanager
    async def no_docker(prefix: str) -> AsyncIterator[AdhocSweep]:
        yield AdhocSweep(sweep=f"{prefix}-test", lock="")

    monkeypatch.setattr(admission, "admit_one", fake_admit_one)
    monkeypatch.setattr(admission, "adhoc_sweep", no_docker)
    only = {tasks[0].contract.id: ("a-negative",)}
    # A backend and a pool never used: `admit_one` is the fake above.
    results = await admission.admit_all(
        tasks,
        FakeBackend(),
        BrowserPool(),
        tmp_path,
        repeat=1,
        limit=1,
        negatives=only,
        grader="g-now",
    )
    assert [r.task for r in results] == [t.contract.id for t in tasks]
    # Each result carries the grader that made it, on disk too (`--resume` records it).
    assert {r.grader for r in results} == {"g-now"}
    saved = (tmp_path / started[0] / "admission.json").read_bytes()
    assert msgspec.json.decode(saved, type=TaskAdmission).grader == "g-now"
    work = {t.contract.id: admission_work(t) for t in tasks}
    assert len(set(work.values())) > 1  # the ordering is tested on tasks that differ
    assert [work[i] for i in started] == sorted(work.values(), reverse=True), started
    assert all((tmp_path / t / "admission.json").is_file() for t in started)
    # The negatives to run reach the task they name, and no other.
    assert given == {t.contract.id: only.get(t.contract.id) for t in tasks}


async def test_an_admission_records_its_wall_time_and_the_report_prints_it(tmp_path: Path) -> None:
    import anyio

    from orchestrator.commands.admit import render

    task = load_task(TASKS / "hollin-ridge-sessions")

    class Slow:
        out = tmp_path

        async def admit(self, t: TaskPackage, repeat: int, negatives: object) -> TaskAdmission:
            await anyio.sleep(0.3)
            return TaskAdmission(
                task=t.contract.id,
                contract_hash=t.contract_hash,
                admitted=True,
                controls=(),
                trusted_negatives=("a", "b"),
            )

    got = await admission.admit_one(Slow(), task, 1)  # type: ignore[arg-type]
    assert got.attempts == 1 and 0.3 <= got.wall_s < 5, got.wall_s
    assert f"| {task.contract.id} | {got.wall_s:.0f} s | 0 | 2 |" in render([got])
