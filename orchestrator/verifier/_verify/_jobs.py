"""The replays a checkpoint needs: the requested checks, the states whose health is
graded, and one job per state (with its keyboard and bare variants)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace
from pathlib import Path

from ...contract import CheckSpec, Contract, TaskPackage, Visual
from .._core import VerifierError, action_chain
from .._replay import KEYS, ReplayOptions, StateJob, eligible

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
