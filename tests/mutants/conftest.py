"""Fixtures of the mutants' tests: one async backend, and the fake browser pool of
`tests/fixtures/verifypool.py` in place of the verifier's replays."""

from __future__ import annotations

import pytest

from orchestrator.verifier._core._observe import StateObservation
from orchestrator.verifier._replay._state import StateJob
from orchestrator.verifier._verify import _run as _verify
from tests.fixtures.verifypool import Pool


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def pool(monkeypatch: pytest.MonkeyPatch) -> Pool:
    p = Pool()

    async def replay_shared(
        session: object, job: StateJob, followers: tuple[StateJob, ...]
    ) -> tuple[StateObservation, ...]:
        assert session is p.session
        p.replays.append(job)
        p.followers.append((job.key, tuple(f.key for f in followers)))
        if p.short:
            return (p.answer(job),)
        return tuple(p.answer(j) for j in (job, *followers))

    monkeypatch.setattr(_verify, "replay_shared", replay_shared)
    return p
