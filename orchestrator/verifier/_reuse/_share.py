"""Identical replays within one checkpoint share one page.

Two jobs of a checkpoint drive the browser identically when they load the same route at
the same base URL and viewport, perform the same actions and settle by the same rule with
the same options: `replay_key`. The typical pair is a route-only state and the bare load
(`~bare`, `require_interaction`) of a state reached from that route by actions: both are
the route loaded and settled, nothing more.

Such a job *follows* another (its checks are evaluated on the other's page, in one
replay) only when nothing it reads can be changed by the other's work on that page:

- a follower's checks only read the page: no `visual` check (a screenshot may resize the
  page or add mask overlays) and no `links` check (a failing one opens the page's menus);
- it takes no screenshot and needs no content fingerprint (bare jobs never do);
- its checks run before any check, screenshot or menu trial of the job it follows, and
  its health (console errors, failed requests, status) is read right after them
  (`_replay._state.replay_shared`).

So a follower sees the page its own replay would have settled on, read by its own checks
first. Everything else replays on its own. `--replay full` (the audit) shares nothing.
"""

from __future__ import annotations

from ...contract import Links, Visual, resolve_viewport
from .._replay import StateJob


def replay_key(job: StateJob) -> tuple[object, ...]:
    """What decides what the browser does before the first check is evaluated."""
    return (
        job.base_url,
        job.state.route,
        job.actions,
        resolve_viewport(job.state.viewport),
        job.state.settle if job.use_settle_selector else None,
        job.opts,
        job.operate,
    )


def cannot_follow(job: StateJob) -> str:
    """Why `job` needs a replay of its own ('' when it can follow an identical one)."""
    if job.artifacts is not None:
        return "it takes a screenshot"
    if job.fingerprint:
        return "it needs a content fingerprint"
    for check in job.checks:
        if isinstance(check.assert_, Visual | Links):
            return f"check {check.id!r} may change the page"
    return ""


def share(jobs: list[StateJob]) -> list[tuple[StateJob, tuple[StateJob, ...]]]:
    """The replays to run: (job, followers evaluated on its page), in `jobs`' order."""
    groups: dict[tuple[object, ...], list[StateJob]] = {}
    for job in jobs:
        groups.setdefault(replay_key(job), []).append(job)
    out: list[tuple[StateJob, list[StateJob]]] = []
    for group in groups.values():
        own = [j for j in group if cannot_follow(j)]
        followers = [j for j in group if not cannot_follow(j)]
        if not own:
            own, followers = followers[:1], followers[1:]
        out += [(job, followers if i == 0 else []) for i, job in enumerate(own)]
    order = {job.key: n for n, job in enumerate(jobs)}
    out.sort(key=lambda e: order[e[0].key])
    return [(job, tuple(f)) for job, f in out]
