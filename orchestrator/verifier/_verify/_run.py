"""`verify`: replay each needed state once, evaluate its checks there, grade the gates.

The replays are planned in `_jobs.py` and graded in `_grade.py` (with the rules beyond
single assertions, `require_interaction` and `changed_from`); here they run: kept from
an earlier checkpoint where reuse allows, shared, retried on a host fault, measured
again where the host's load may have stretched its main thread (`_replay/_perf.py`),
keyboard twins only where they decide a verdict.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

import anyio
import msgspec

from ...contract import CheckSpec, TaskPackage, resolve_viewport
from ...records import CheckResult, VerifyReport
from .._browser import VISUAL_GATES, BrowserPool, BrowserSession, WarmContexts, environment_drift
from .._core import (
    BrowserCrashed,
    EnvironmentDrift,
    ReplayError,
    RunHealth,
    StateObservation,
    gate_results,
    run_health,
)
from .._replay import (
    BLOCKING_ALLOWANCE_MS,
    HOST_NETWORK_RETRIES,
    KEYS,
    REMEASURES,
    ReplayOptions,
    StateJob,
    host_network_fault,
    patient,
    replay_shared,
    timed_out,
)
from .._reuse import CheckpointView, Reads, share
from ._grade import _graded, _serve_failed, _state_runs, _ungraded
from ._jobs import BARE, _health_states, _plan, _select_checks


# The host's faults (`_replay/_transient.py`, shared with `capture`): replayed, never graded.
def _host_network_changed(seen: StateObservation) -> bool:
    texts = (*seen.failed_requests, *seen.failed_assets, seen.nav_error, seen.action_error)
    return host_network_fault(texts)


def _timed_out(seen: StateObservation) -> bool:
    """An action or navigation timed out, or a check failed on a timeout (a menu control
    that could not be clicked in time, `_replay/_menu.py`)."""
    failed = (o.observed for o in seen.outcomes.values() if not o.passed)
    return timed_out((seen.nav_error, seen.action_error, *failed))


def _patient(job: StateJob) -> StateJob:
    return replace(job, opts=patient(job.opts))


def _blocking(seen: StateObservation) -> float | None:
    figure = seen.a11y.main_thread if seen.a11y is not None else None
    return None if figure is None else figure.blocking_ms


def _stretched(seen: StateObservation) -> bool:
    """The state's blocking could fail the main-thread rule: maybe the host's load
    (`_replay/_perf.py`, "Stretched, not held"), so it is measured again."""
    held = _blocking(seen)
    return held is not None and held > BLOCKING_ALLOWANCE_MS


def _least_blocking(
    seen: tuple[StateObservation, ...], again: StateObservation
) -> tuple[StateObservation, ...]:
    """`seen`, with `again`'s main-thread figure where it read less; nothing else of the
    replay measured again is kept."""
    held, now = _blocking(seen[0]), _blocking(again)
    if held is None or now is None or now >= held or again.a11y is None:
        return seen
    figure = again.a11y.main_thread
    return tuple(
        s
        if s.a11y is None
        else msgspec.structs.replace(s, a11y=msgspec.structs.replace(s.a11y, main_thread=figure))
        for s in seen
    )


@dataclass(slots=True)
class _Replays:
    """One checkpoint's observations, and why its warm contexts were closed, not reused."""

    found: dict[str, StateObservation] = field(default_factory=dict)
    warm_discarded: tuple[str, ...] = ()


def _kept(
    jobs: list[StateJob], reuse: CheckpointView | None, out: _Replays, why: dict[str, str]
) -> list[StateJob]:
    """The jobs to replay: the others keep their last observation (into `out.found`)."""
    todo = []
    for job in jobs:
        why[job.key] = "full replay"
        if reuse is not None:
            kept, why[job.key] = reuse.lookup(job)
            if kept is not None:
                out.found[job.key] = kept
                continue
        todo.append(job)
    return todo


async def _replay_one(
    pool: BrowserPool,
    job: StateJob,
    followers: tuple[StateJob, ...],
    warm: WarmContexts | None,
    reuse: CheckpointView | None,
    why: dict[str, str],
    found: dict[str, StateObservation],
) -> None:
    viewport = resolve_viewport(job.state.viewport)
    trace = reuse.trace if reuse is not None else None
    reads = Reads()

    async def traced(session: BrowserSession, job: StateJob) -> tuple[StateObservation, ...]:
        # The window is the replay itself, inside the pool's limiter: the server's
        # opens for this state (and for any replayed at the same time) fall in it.
        nonlocal reads
        if trace is None:
            return await replay_shared(session, job=job, followers=followers)
        mark = trace.mark()
        try:
            return await replay_shared(session, job=job, followers=followers)
        finally:
            reads = reads | trace.since(mark)

    try:
        for _ in range(1 + HOST_NETWORK_RETRIES):
            seen = await pool.run(job.base_url, viewport, partial(traced, job=job), warm)
            if _timed_out(seen[0]):
                run = partial(traced, job=_patient(job))
                seen = await pool.run(job.base_url, viewport, run, warm)
            if not _host_network_changed(seen[0]):
                break
        for _ in range(REMEASURES):
            if not _stretched(seen[0]):
                break
            again = await pool.run(job.base_url, viewport, partial(traced, job=job), warm)
            seen = _least_blocking(seen, again[0])
        for each, obs in zip((job, *followers), seen, strict=True):
            found[each.key] = obs = msgspec.structs.replace(obs, replayed=why[each.key])
            if reuse is not None:
                reuse.record(each, obs, reads if trace is not None else None)
    except (BrowserCrashed, ReplayError) as exc:
        # Crashed again after the pool's retry, or the page could not be driven:
        # this state fails. A browser that cannot launch at all propagates.
        for each in (job, *followers):
            found[each.key] = StateObservation(state=each.key, error=str(exc))


def _pointer_key(job: StateJob) -> str:
    return job.key.removesuffix(KEYS)


def _keys_needed(group: tuple[StateJob, ...], found: dict[str, StateObservation]) -> bool:
    """A keyboard replay decides a verdict only where the pointer passes one of its
    checks: a check failing by pointer has no keyboard result (`_replay._keyboard._result`)."""
    for job in group:
        outcomes = found[_pointer_key(job)].outcomes
        if any(c.id in outcomes and outcomes[c.id].passed for c in job.checks):
            return True
    return False


async def _replay_one_after(
    done: dict[str, anyio.Event],
    pool: BrowserPool,
    group: tuple[StateJob, ...],
    found: dict[str, StateObservation],
    run: Callable[[], Awaitable[None]],
) -> None:
    """A keyboard group (`run` replays it): its replay decides a verdict only where one of
    its checks passes by pointer (`_keys_needed`). With a browser slot idle it starts at
    once, beside its states' pointer replays, and is cancelled (or its observations
    dropped) when they show it was not needed: idle cores buy latency. On a busy pool it
    waits for them and runs only when needed: busy cores go to what decides a verdict.
    Either way the report is the same: a group not needed leaves no observation."""
    waits = [done[_pointer_key(each)] for each in group if _pointer_key(each) in done]

    async def decided() -> bool:
        for event in waits:
            await event.wait()
        return _keys_needed(group, found)

    if not pool.idle_slot():
        if await decided():
            await run()
        return

    async def watch(scope: anyio.CancelScope) -> None:
        if not await decided():
            scope.cancel()

    async with anyio.create_task_group() as tg:
        tg.start_soon(watch, tg.cancel_scope)
        await run()
    if not await decided():
        for each in group:
            found.pop(each.key, None)


async def _replay_all(
    pool: BrowserPool, jobs: list[StateJob], reuse: CheckpointView | None
) -> _Replays:
    out = _Replays()
    # States share reset warm contexts (`_browser/_warm.py`; idle ones are kept for the
    # next checkpoint) and identical replays share a page (`_reuse/_share.py`), unless auditing.
    warm = pool.warm_contexts() if pool.replay == "reuse" else None
    why: dict[str, str] = {}
    todo = _kept(jobs, reuse, out, why)
    groups = share(todo) if pool.replay != "full" else [(job, ()) for job in todo]
    # Keyboard replays wait for their states' pointer replays (`_keys_needed`).
    done = {j.key: anyio.Event() for g in groups for j in g[1] + (g[0],) if j.operate != "keyboard"}

    async def pointer(job: StateJob, followers: tuple[StateJob, ...]) -> None:
        try:
            await _replay_one(pool, job, followers, warm, reuse, why, out.found)
        finally:
            for each in (job, *followers):
                done[each.key].set()

    try:
        async with anyio.create_task_group() as tg:
            for job, followers in groups:
                if job.operate == "keyboard":
                    run = partial(_replay_one, pool, job, followers, warm, reuse, why, out.found)
                    tg.start_soon(_replay_one_after, done, pool, (job, *followers), out.found, run)
                else:
                    tg.start_soon(pointer, job, followers)
    finally:
        if warm is not None:
            await warm.close()
            out.warm_discarded = tuple(warm.discarded)
    return out


async def _drifted(
    pool: BrowserPool, task: TaskPackage, checks: list[CheckSpec]
) -> list[CheckResult]:
    """The visual checks, not applicable, when the environment drifted (if allowed)."""
    visual = [c for c in checks if c.gate in VISUAL_GATES]
    why = await environment_drift(pool, task) if visual else ""
    if not why:
        return []
    if not pool.allow_env_drift:
        raise EnvironmentDrift(task.contract.id, why)
    return _ungraded(visual, f"environment drift: {why}", applicable=False)


async def _gradable(
    pool: BrowserPool, task: TaskPackage, check_ids: Collection[str] | None
) -> tuple[list[CheckSpec], list[CheckResult]]:
    """The requested checks to replay, and the visual ones set aside by a drift."""
    checks = _select_checks(task.contract, check_ids)
    drifted = await _drifted(pool, task, checks)
    if drifted:
        checks = [c for c in checks if c.gate not in VISUAL_GATES]
    return checks, drifted


async def verify(
    pool: BrowserPool,
    task: TaskPackage,
    base_url: str,
    *,
    check_ids: Collection[str] | None = None,
    states: Collection[str] | None = None,
    health: RunHealth = RunHealth(),
    artifacts: Path | None = None,
    options: ReplayOptions = ReplayOptions(),
    reuse: CheckpointView | None = None,
    a11y: bool = False,
) -> VerifyReport:
    """Verify `check_ids` (None: every authored check) plus health on the needed states.

    Health states are the states of the evaluated checks plus `states` (all states when
    both are None). Each distinct state is replayed once; states named by `changed_from`
    are replayed too. A server that never became ready fails every requested check.
    Visual checks need the environment of the task's evidence: on a drift they are not
    applicable when `pool.allow_env_drift`, else `EnvironmentDrift` is raised.
    With `reuse`, a state whose dependencies did not change since its last replay keeps
    that observation (`_reuse/_cache.py`); fresh replays are recorded into it.
    `a11y`: take each state's accessibility snapshot (`_replay/_a11y.py`, into
    `VerifyReport.a11y`), for the continuity rules of `_a11y/_gate.py`; the browser
    verifier asks for it on full-suite checkpoints (a final, R0, admission).
    """
    contract = task.contract
    checks, drifted = await _gradable(pool, task, check_ids)
    results = run_health(health) + drifted
    if not health.serve_ok:
        results += _serve_failed(checks, health)
        return VerifyReport(checks=tuple(results), gates=gate_results(results))
    if artifacts is not None:
        (artifacts / "states").mkdir(parents=True, exist_ok=True)
    health_states = _health_states(contract, checks, check_ids, states)
    # The full suite (a final checkpoint, R0, admission) also takes each state's
    # accessibility snapshot, for the continuity rules of `_a11y/_gate.py`.
    full = (check_ids is None and states is None) if a11y is None else a11y
    jobs = _plan(task, base_url, checks, health_states, artifacts, options, reuse is not None, full)
    replays = await _replay_all(pool, jobs, reuse)
    obs = replays.found
    results += _graded(contract, checks, health_states, obs)
    return VerifyReport(
        checks=tuple(results),
        gates=gate_results(results),
        states=_state_runs(contract, obs),
        warm_discarded=replays.warm_discarded,
        a11y={k: o.a11y for k, o in sorted(obs.items()) if o.a11y is not None and BARE not in k},
    )
