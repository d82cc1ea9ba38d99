"""`verify`: replay each needed state once, evaluate its checks there, grade the gates.

Rules beyond single assertions (also in the package docstring):
- `require_interaction`: the state's full action prefix (inherited through `from`, then
  its own) holds at least one click/fill/press/hover/check/select, AND the check's
  assertion does not already pass on a *bare* load of the state's route (same viewport,
  no actions). A result that is there without the action was not reached by one.
- `changed_from`: the state's content fingerprint (visible text + skeleton of rendered
  elements, see `_replay/_probe.py`) differs from the named state's. Cosmetic changes
  (outline, colour, classes) do not count.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

import anyio
import msgspec

from ...contract import CheckSpec, Contract, State, TaskPackage, Visual, resolve_viewport
from ...results import CheckResult, StateRun, VerifyReport
from .._browser import VISUAL_GATES, BrowserPool, BrowserSession, WarmContexts, environment_drift
from .._core import (
    BrowserCrashed,
    EnvironmentDrift,
    Outcome,
    ReplayError,
    RunHealth,
    StateObservation,
    VerifierError,
    action_chain,
    gate_results,
    grounded,
    is_interactive,
    run_health,
    state_health,
    summarize_state,
    viewport_label,
)
from .._replay import (
    HOST_NETWORK_RETRIES,
    KEYS,
    ReplayOptions,
    StateJob,
    eligible,
    host_network_fault,
    keyboard_results,
    patient,
    replay_shared,
    timed_out,
)
from .._reuse import CheckpointView, Reads, share

BARE = "~bare"


def _select_checks(contract: Contract, check_ids: Collection[str] | None) -> list[CheckSpec]:
    if check_ids is None:
        return list(contract.checks)
    unknown = sorted(set(check_ids) - {c.id for c in contract.checks})
    if unknown:
        raise VerifierError(f"{contract.id}: unknown check id(s) {unknown}")
    return [c for c in contract.checks if c.id in check_ids]


def _health_states(
    contract: Contract, checks: list[CheckSpec], check_ids: object, states: Collection[str] | None
) -> list[str]:
    if states is None and check_ids is None:
        return [s.id for s in contract.states]
    wanted = {c.state for c in checks} | set(states or ())
    return [s.id for s in contract.states if s.id in wanted]


def _plan(
    task: TaskPackage,
    base_url: str,
    checks: list[CheckSpec],
    health_states: list[str],
    artifacts: Path | None,
    opts: ReplayOptions,
    ahead: bool = False,
    a11y: bool = False,
) -> list[StateJob]:
    """The replays needed; `ahead` (replay reuse): a replayed state also evaluates the
    state's other read-only checks and its fingerprint, so a later checkpoint asking
    for them can reuse it (`_reuse/_cache.py`)."""
    contract = task.contract
    compared = {c.changed_from for c in checks if c.changed_from}
    compared |= {c.state for c in checks if c.changed_from}
    needed = set(health_states) | compared
    jobs = []
    for state in contract.states:
        own = tuple(c for c in checks if c.state == state.id)
        if state.id not in needed and not own:
            continue
        keyed = tuple(c for c in eligible(contract, own) if not c.keyboard_exempt)
        if ahead:
            own = _with_read_only(contract, state.id, own)
        job = StateJob(
            key=state.id,
            state=state,
            actions=action_chain(contract, state),
            checks=own,
            base_url=base_url,
            reference_dir=task.evidence / "reference",
            artifacts=artifacts,
            fingerprint=ahead or state.id in compared,
            opts=opts,
            a11y=a11y,
        )
        jobs += [job, *_variants(job, keyed)]
    return jobs


def _variants(job: StateJob, keyed: tuple[CheckSpec, ...]) -> list[StateJob]:
    """The state's other replays: by keyboard for `keyed`, and bare for the checks
    that `require_interaction`."""
    jobs = []
    if keyed:
        # The same state with clicks done by Tab and keys (`_replay/_keyboard.py`).
        jobs.append(
            replace(
                job,
                key=job.key + KEYS,
                checks=keyed,
                artifacts=None,
                fingerprint=False,
                operate="keyboard",
                a11y=False,  # the state's snapshot is the pointer replay's
            )
        )
    bare = tuple(c for c in job.checks if c.require_interaction)
    if bare:
        # The same route and viewport with no action at all, no settle selector and
        # no screenshot: only `require_interaction` checks are evaluated there.
        jobs.append(
            replace(
                job,
                key=job.key + BARE,
                actions=(),
                checks=bare,
                artifacts=None,
                use_settle_selector=False,
                fingerprint=False,
                a11y=False,
            )
        )
    return jobs


def _with_read_only(
    contract: Contract, state_id: str, own: tuple[CheckSpec, ...]
) -> tuple[CheckSpec, ...]:
    """All of the state's checks in contract order, when the added ones only read the page.

    A visual check screenshots the page (full page resizes the viewport, masks add
    overlays): never added, since a check evaluated after it must see what a replay of
    the requested checks alone would see. A `links` check may click the page's menu
    controls, but only after every other check and the screenshot, closing each menu
    again (`_replay/_menu.py`): it counts as reading the page.
    """
    wanted = {c.id for c in own}
    every = tuple(c for c in contract.checks if c.state == state_id)
    added = [c for c in every if c.id not in wanted]
    if any(isinstance(c.assert_, Visual) for c in added):
        return own
    return every


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


def _authored(
    contract: Contract, check: CheckSpec, obs: dict[str, StateObservation]
) -> CheckResult:
    state = contract.state(check.state)
    mine = obs[state.id]
    outcome = mine.outcomes.get(check.id) or Outcome(passed=False, observed=mine.error)
    passed, notes = outcome.passed, [outcome.observed]
    if check.require_interaction:
        ok, note = _interaction_rule(contract, state, check, obs.get(state.id + BARE))
        passed, notes = passed and ok, [*notes, note] if note else notes
    if check.changed_from:
        ok, note = _changed_rule(mine, obs[check.changed_from])
        passed, notes = passed and ok, [*notes, note]
    observed = "; ".join(n for n in notes if n)
    return CheckResult(
        id=check.id,
        gate=check.gate,
        state=state.id,
        passed=passed,
        observed=observed,
        message=grounded(check.describe, summarize_state(contract, state), observed),
        region=None if passed else outcome.region,
    )


def _interaction_rule(
    contract: Contract, state: State, check: CheckSpec, bare: StateObservation | None
) -> tuple[bool, str]:
    if not is_interactive(action_chain(contract, state)):
        return False, "the state has no click/fill/press/hover/check/select in its actions"
    bare_outcome = bare.outcomes.get(check.id) if bare else None
    if bare_outcome is not None and bare_outcome.passed:
        return False, f"already true when {state.route} is loaded without any action"
    return True, ""


def _changed_rule(mine: StateObservation, other: StateObservation) -> tuple[bool, str]:
    if not other.fingerprint:
        why = other.error or other.nav_error or other.action_error
        return False, f"cannot compare with state {other.state!r}: it was not reached ({why})"
    if not mine.fingerprint:
        return False, "cannot compare: this state was not reached"
    if mine.fingerprint == other.fingerprint:
        return False, f"content identical to state {other.state!r}"
    return True, f"content differs from state {other.state!r}"


def _state_runs(contract: Contract, obs: dict[str, StateObservation]) -> tuple[StateRun, ...]:
    runs = []
    for key, o in sorted(obs.items()):
        state = contract.state(key.removesuffix(BARE).removesuffix(KEYS))
        error = o.error or o.nav_error or o.action_error
        runs.append(
            StateRun(
                state=key,
                route=state.route,
                viewport=viewport_label(state.viewport),
                duration_s=round(o.duration_s, 3),
                screenshot=o.screenshot,
                error=error,
                reused=o.reused,
                replayed=o.replayed,
                context=o.context,
                shared_with=o.shared_with,
            )
        )
    return tuple(runs)


def _ungraded(checks: list[CheckSpec], observed: str, applicable: bool = True) -> list[CheckResult]:
    """`checks` failed (or not applicable) for one reason, before any replay."""
    return [
        CheckResult(
            id=c.id,
            gate=c.gate,
            state=c.state,
            passed=False,
            applicable=applicable,
            observed=observed,
            message=grounded(c.describe, f"state {c.state!r}", observed),
        )
        for c in checks
    ]


def _serve_failed(checks: list[CheckSpec], health: RunHealth) -> list[CheckResult]:
    return _ungraded(checks, f"server not ready: {health.serve_detail or 'no detail'}")


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


def _graded(
    contract: Contract,
    checks: list[CheckSpec],
    health_states: list[str],
    obs: dict[str, StateObservation],
) -> list[CheckResult]:
    """The authored checks, their keyboard twins, and each health state's health."""
    results = [_authored(contract, c, obs) for c in checks]
    results += keyboard_results(contract, checks, obs)
    for sid in health_states:
        state = contract.state(sid)
        results += state_health(obs[sid], summarize_state(contract, state), state.status)
    return results


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
