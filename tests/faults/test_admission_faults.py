"""A fault during admission costs only that task's verdict, never the other tasks'.

Before, one lost container (a restarting dockerd, during a whole-suite admission under
load) raised out of `admit_all` with a traceback, and the nine finished tasks' results
were lost with it. Now an infrastructure fault admits the task again (bounded), and what
still fails is that task's `infra_error` (or `harness_error` for a bug of ours), while
the other tasks are admitted as usual.

The faults are injected at the daemon's side of the backend boundary: the local
backend's `open` fails as the Docker backend does when its container or daemon is lost.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Literal

import msgspec
import pytest

from orchestrator.admission import TaskAdmission, admit_all
from orchestrator.admission import _admit as admission
from orchestrator.contract import load_task
from orchestrator.verifier import BrowserPool
from sandbox import ContainerError, Labels, Limits, LocalBackend, Sandbox, ServeSpec
from tests.fakes import NoLifecycle
from tests.fixtures.tinytask import make_tiny_task

pytestmark = [pytest.mark.anyio, pytest.mark.browser]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class FaultyBackend(NoLifecycle):
    """The local backend, except that `fault(cell, n)` may fail the n-th open of a cell."""

    name: Literal["docker", "local"] = "local"

    def __init__(self, fault: Callable[[str, int], Exception | None]) -> None:
        self.inner = LocalBackend()
        self.fault = fault
        self.opens: dict[str, int] = {}

    def open(
        self, workspace: Path, spec: ServeSpec, labels: Labels, limits: Limits | None = None
    ) -> AbstractAsyncContextManager[Sandbox]:
        task = labels.cell.split("-r0")[0].split("-reference")[0].split("-negative")[0]
        self.opens[task] = self.opens.get(task, 0) + 1
        exc = self.fault(task, self.opens[task])
        if exc is not None:
            raise exc
        return self.inner.open(workspace, spec, labels, limits)


async def _admit(tmp_path: Path, backend: FaultyBackend, ids: list[str]) -> list[TaskAdmission]:
    tasks = [load_task(make_tiny_task(tmp_path / "tasks", task_id=i, turns=1)) for i in ids]
    async with BrowserPool(max_contexts=2) as pool:
        return await admit_all(tasks, backend, pool, tmp_path / "adm", repeat=1, limit=2)


@pytest.fixture(autouse=True)
def no_pause(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(admission, "_INFRA_PAUSE_S", 0.0)


async def test_a_lost_sandbox_is_admitted_again_and_a_permanent_loss_is_that_tasks_infra_error(
    require_chromium: None, tmp_path: Path
) -> None:
    def fault(task: str, n: int) -> Exception | None:
        if task == "tiny-lost" or (task == "tiny-once" and n == 2):
            return ContainerError("container 0123abcd is gone")
        return None

    backend = FaultyBackend(fault)
    once, lost, calm = await _admit(tmp_path, backend, ["tiny-once", "tiny-lost", "tiny-calm"])

    assert once.admitted and once.attempts == 2 and once.error == "", once
    assert calm.admitted and calm.attempts == 1, calm
    assert once.controls == calm.controls  # the retried admission judged like the calm one
    assert not lost.admitted and lost.attempts == admission.INFRA_ATTEMPTS
    assert lost.error.startswith("infra_error: ContainerError: container 0123abcd is gone")
    assert lost.controls == ()
    assert "ContainerError" in (tmp_path / "adm" / "tiny-lost" / "error.log").read_text()
    # Each result is on disk as soon as it is known, whatever happens to the rest.
    for r in (once, lost, calm):
        saved = (tmp_path / "adm" / r.task / "admission.json").read_bytes()
        assert msgspec.json.decode(saved, type=TaskAdmission) == r


async def test_a_bug_of_ours_is_a_harness_error_not_retried(
    require_chromium: None, tmp_path: Path
) -> None:
    def fault(task: str, n: int) -> Exception | None:
        return KeyError("oops") if task == "tiny-bug" else None

    backend = FaultyBackend(fault)
    bug, calm = await _admit(tmp_path, backend, ["tiny-bug", "tiny-calm"])
    assert not bug.admitted and bug.attempts == 1
    assert bug.error.startswith("harness_error: KeyError"), bug.error
    assert backend.opens["tiny-bug"] == 1  # never retried
    assert calm.admitted
