"""One state's replay as a pool job: load, act, settle, read health, evaluate its checks
(and those of identical replays sharing the page, `_reuse/_share.py`)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import msgspec
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from ...contract import Action, CheckSpec, Links, State
from ...records import A11ySnapshot
from .._browser import BrowserSession, origin_of
from .._core import BrowserCrashed, Outcome, PageHealth, StateObservation
from ._a11y import observe_a11y
from ._announce import Announced, Listener, announced, announcing
from ._checks import evaluate
from ._drive import Act, Recorder, ReplayOptions, navigate, perform, prepare, run_actions, settle
from ._keyboard import operate
from ._menu import open_menus
from ._perf import Figures, main_thread_blocked, read_figures
from ._probe import read_health
from ._transient import timed_out


@dataclass(frozen=True, slots=True)
class StateJob:
    """What to replay: `key` names the observation (a state id, or `<id>~bare`)."""

    key: str
    state: State
    actions: tuple[Action, ...]
    checks: tuple[CheckSpec, ...]
    base_url: str
    reference_dir: Path | None = None
    artifacts: Path | None = None
    use_settle_selector: bool = True
    # Only states compared through `changed_from` need a content fingerprint.
    fingerprint: bool = False
    opts: ReplayOptions = field(default_factory=ReplayOptions)
    # How clicks and checks are done: by the pointer, or by Tab and keys (`_keyboard.py`).
    operate: Literal["pointer", "keyboard"] = "pointer"
    # Full-suite runs: take the accessibility snapshot (`_a11y.py`), last on the page.
    a11y: bool = False


@dataclass(frozen=True, slots=True)
class _Reached:
    """How far the replay got: the navigation's error, or an action's or the settle's.
    `blocked`: the page's main thread never yielded (`_perf.py`); the state ends
    there, as one that never loaded, and nothing more is asked of the page."""

    nav_error: str = ""
    action_error: str = ""
    blocked: bool = False


async def _blocked_or(page: Page, error: str, during: str, nav: bool) -> _Reached:
    """`error` (a navigation's when `nav`), unless it timed out on a blocked main thread."""
    if not error or not timed_out([error]):
        return _Reached(nav_error=error) if nav else _Reached(action_error=error)
    why = await main_thread_blocked(page, during)
    if why:
        return _Reached(nav_error=why, blocked=True)
    return _Reached(nav_error=error) if nav else _Reached(action_error=error)


async def _reach(
    page: Page, job: StateJob, rec: Recorder, listener: Listener | None = None
) -> _Reached:
    """Navigate, act and settle; then a main thread that no longer answers ends it.
    With a `listener`, what the live regions announce is logged from the first action."""
    nav_error = await navigate(page, job.base_url, job.state.route, rec)
    if nav_error:
        return await _blocked_or(page, nav_error, "while the page loaded", nav=True)
    if job.actions:  # without one, the settle below is the load's window
        await rec.quiet(page, job.opts)
    act: Act = operate if job.operate == "keyboard" else perform
    if listener is not None and job.actions:
        act = announcing(act, listener)
    action_error = await run_actions(page, job.base_url, job.actions, rec, job.opts, act)
    if action_error:
        return await _blocked_or(page, action_error, f"in {rec.phase}", nav=False)
    selector = job.state.settle if job.use_settle_selector else None
    try:
        await settle(page, rec, job.opts, selector)
    except PlaywrightError:
        error = f"settle selector {selector!r} never became visible"
        return await _blocked_or(page, error, "while the page settled", nav=False)
    # A page that blocks after its load (a timer's endless loop) let the bounded quiet
    # windows run out: one probe here, before any check or screenshot waits on it.
    why = await main_thread_blocked(page, "after the page loaded")
    return _Reached(nav_error=why, blocked=True) if why else _Reached()


async def _outcomes(page: Page, job: StateJob, failure: str) -> dict[str, Outcome]:
    results: dict[str, Outcome] = {}
    for check in job.checks:
        if failure:
            # The state was never reached: nothing on this page speaks for the check.
            results[check.id] = Outcome(passed=False, observed=failure)
            continue
        try:
            results[check.id] = await evaluate(page, check.assert_, job.state.id, job.reference_dir)
        except PlaywrightError as exc:
            results[check.id] = Outcome(passed=False, observed=f"could not evaluate: {exc}")
    return results


async def _menus(
    page: Page, job: StateJob, outcomes: dict[str, Outcome], rec: Recorder
) -> dict[str, Outcome]:
    """`links` checks failing on what is shown, retried through the page's menu controls
    (`_menu.py`): last, so no other check or the screenshot sees a menu opened."""
    failing = [
        (c.id, c.assert_)
        for c in job.checks
        if isinstance(c.assert_, Links) and not outcomes[c.id].passed
    ]
    if not failing:
        return {}
    rec.phase = "menu controls"
    try:
        return await open_menus(page, failing, rec, job.opts)
    except PlaywrightError:
        return {}  # the page went away under the trials: the verdicts on what was shown stand


async def _screenshot(page: Page, job: StateJob) -> str:
    if job.artifacts is None:
        return ""
    rel = f"states/{job.key}.png"
    await page.screenshot(path=job.artifacts / rel, animations="disabled", caret="hide")
    return rel


async def replay_shared(
    session: BrowserSession, job: StateJob, followers: tuple[StateJob, ...]
) -> tuple[StateObservation, ...]:
    """`job`'s replay, and on the same page the checks of `followers` (jobs with the same
    route, actions, viewport and settle rule, `_reuse/_share.py`): each follower's observation
    is taken before any check of `job` runs. `job`'s first, then the followers' in order."""
    rec = Recorder(origin=session.origin)
    rec.attach_context(session.context)
    rec.attach(session.page)
    try:
        return await _replay(session, job, followers, rec)
    finally:
        rec.detach(session.page)
        rec.detach_context(session.context)


_Seen = tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]


def _seen(rec: Recorder) -> _Seen:
    return (tuple(rec.console_errors), tuple(rec.failed_requests), tuple(rec.failed_assets))


def _crashed(session: BrowserSession) -> None:
    browser = session.context.browser
    if browser is not None and not browser.is_connected():
        raise BrowserCrashed("browser disconnected during the replay")


def _wants_a11y(job: StateJob, followers: tuple[StateJob, ...]) -> bool:
    return any(j.a11y for j in (job, *followers))


async def _a11y(
    page: Page,
    job: StateJob,
    followers: tuple[StateJob, ...],
    reached: bool,
    heard: Announced | None,
) -> A11ySnapshot | None:
    """The accessibility snapshot, when `job` or a follower wants it (`_a11y.py`)."""
    wants = [j for j in (job, *followers) if j.a11y]
    if not wants:
        return None
    # The state's own checks and those of its sharers: the live regions they read.
    checks = tuple(c for j in wants for c in j.checks)
    return await observe_a11y(page, job.actions, checks, reached, heard)


# A follower, its outcomes, and what the page had done (`_seen`, status) when it was read.
_Shared = tuple[StateJob, dict[str, Outcome], _Seen, int | None]


async def _followers(
    page: Page, followers: tuple[StateJob, ...], failure: str, rec: Recorder
) -> list[_Shared]:
    """The followers' checks only read the page (`_reuse/_share.py`): evaluated first, so what
    they see is what their own replay would have seen, whatever `job`'s checks do."""
    shared: list[_Shared] = []
    for other in followers:
        mine = await _outcomes(page, other, failure)
        shared.append((other, mine, _seen(rec), rec.status))
    return shared


def _followed(
    common: StateObservation, job: StateJob, shared: list[_Shared], a11y: A11ySnapshot | None
) -> list[StateObservation]:
    return [
        msgspec.structs.replace(
            common,
            state=other.key,
            status=at,
            console_errors=then[0],
            failed_requests=then[1],
            failed_assets=then[2],
            outcomes=mine,
            shared_with=job.key,
            a11y=a11y if other.a11y else None,
        )
        for other, mine, then, at in shared
    ]


async def _replay(
    session: BrowserSession, job: StateJob, followers: tuple[StateJob, ...], rec: Recorder
) -> tuple[StateObservation, ...]:
    started = time.monotonic()
    page = session.page
    await prepare(page, job.opts)
    listener = Listener(page) if _wants_a11y(job, followers) else None
    got = await _reach(page, job, rec, listener)
    nav_error, action_error = got.nav_error, got.action_error
    reached = not (nav_error or action_error)
    # Read before any check or probe runs a task of its own on the page.
    figures = await read_figures(page) if reached and listener is not None else Figures()
    # What was announced, read as the state settled: before any check or menu trial.
    heard = (
        await announced(page, listener, job.base_url) if listener is not None and reached else None
    )
    health, fp = PageHealth(), ""
    if not nav_error:
        health, fp = await read_health(page, job.fingerprint and reached)
    shared = await _followers(page, followers, nav_error or action_error, rec)
    outcomes = await _outcomes(page, job, nav_error or action_error)
    shot = "" if got.blocked else await _screenshot(page, job)
    # What the state itself did; the menu trials below click the page's own controls.
    seen = _seen(rec)
    status = rec.status
    if reached:
        outcomes |= await _menus(page, job, outcomes, rec)
    # A page that left the site (a back link out of a state opened straight) is not the
    # site's to judge for accessibility: `routes` and the checks say what went wrong.
    a11y = await _a11y(
        page, job, followers, reached and origin_of(page.url) == origin_of(job.base_url), heard
    )
    if a11y is not None and a11y.reached:
        a11y = msgspec.structs.replace(a11y, **figures._asdict())
    _crashed(session)
    common = StateObservation(
        state=job.key,
        nav_error=nav_error,
        action_error=action_error,
        health=health,
        duration_s=time.monotonic() - started,
        requests=tuple(rec.requests),
        unbounded=rec.unbounded,
        context=session.kind,
    )
    lead = msgspec.structs.replace(
        common,
        status=status,
        console_errors=seen[0],
        failed_requests=seen[1],
        failed_assets=seen[2],
        fingerprint=fp,
        screenshot=shot,
        outcomes=outcomes,
        a11y=a11y if job.a11y else None,
    )
    return (lead, *_followed(common, job, shared, a11y))
