"""`capture`: write a state's evidence (render, text, accessible names, anchors) to disk.

Replays exactly like `verify` (same determinism and settle rule), so a reference render
captured here can be diffed pixel for pixel by the `visual` assertion; it retries what
`verify` retries (`_transient.py`: the host's network changing, a timeout under load).

Each state is rendered in memory first; a side's evidence is written only when none of
its states is *refused* — a failure that would freeze a broken render into evidence: the
host's network still failing after the retries, or (`clean_assets`, the reference) a
failed asset request (an image, font or stylesheet that did not load). A refused capture
writes nothing, so the evidence on disk stays whatever it was.
"""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import anyio
import msgspec
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from ...contract import CANARY, CANARY_LINE, TaskPackage, resolve_viewport
from .._browser import BrowserPool, BrowserSession, probe_page, write_env
from .._core import ReplayError, action_chain
from ._drive import Recorder, ReplayOptions, navigate, prepare, run_actions, settle
from ._transient import HOST_NETWORK_RETRIES, host_network_fault, patient, timed_out

# Anchors whose boxes and key styles are frozen as evidence (`visual_anchors` authoring).
ANCHORS = "h1, h2, h3, nav, header, footer, main, button, [role=button], [role=navigation]"


class CaptureSummary(msgspec.Struct, frozen=True, kw_only=True):
    state: str
    status: int | None
    error: str = ""
    # What the health gates would grade: console errors, failed requests and assets.
    console_errors: tuple[str, ...] = ()
    failed_requests: tuple[str, ...] = ()
    failed_assets: tuple[str, ...] = ()
    # Why this state's render must not become evidence ('' when it may); see the docstring.
    refused: str = ""
    attempts: int = 1


class _Render(msgspec.Struct, frozen=True, kw_only=True):
    """One state's evidence, in memory until its whole side is known to be clean."""

    summary: CaptureSummary
    files: dict[str, bytes]


async def _evidence(page: Page, sid: str) -> dict[str, bytes]:
    """The state's evidence files, read off the settled page."""
    shot = await page.screenshot(animations="disabled", caret="hide")
    full = await page.screenshot(full_page=True, animations="disabled", caret="hide")
    text = await page.locator("body").inner_text()
    aria = await page.locator("body").aria_snapshot()
    anchors = await probe_page(page, "anchors", ANCHORS)
    navs = await probe_page(page, "navs")
    tokens = await probe_page(page, "tokens", ANCHORS)
    lives = await probe_page(page, "lives")
    # Evidence is grader-only: each text file carries the canary (`contract._canary`).
    evidence = {
        "canary": CANARY,
        "state": sid,
        "anchors": anchors,
        "navs": navs,
        "tokens": tokens,
        "lives": lives,
    }
    return {
        f"{sid}.png": shot,
        f"{sid}.full.png": full,
        f"{sid}.txt": (CANARY_LINE + text).encode(),
        f"{sid}.aria.yaml": (CANARY_LINE + aria).encode(),
        f"{sid}.anchors.json": json.dumps(evidence, indent=1).encode(),
    }


async def _render(
    session: BrowserSession,
    base_url: str,
    task: TaskPackage,
    sid: str,
    opts: ReplayOptions,
) -> _Render:
    contract = task.contract
    state = contract.state(sid)
    page = session.page
    rec = Recorder(origin=session.origin)
    rec.attach(page)
    await prepare(page, opts)
    error = await navigate(page, base_url, state.route, rec)
    actions = action_chain(contract, state)
    if not error:  # the same sequence as `_replay._state._reach`
        if actions:
            await rec.quiet(page, opts)
        error = await run_actions(page, base_url, actions, rec, opts)
    if not error:
        await settle(page, rec, opts, state.settle)
    files = await _evidence(page, sid)
    summary = CaptureSummary(
        state=sid,
        status=rec.status,
        error=error,
        console_errors=tuple(rec.console_errors),
        failed_requests=tuple(rec.failed_requests),
        failed_assets=tuple(rec.failed_assets),
    )
    return _Render(summary=summary, files=files)


def _host_faulted(s: CaptureSummary) -> bool:
    return host_network_fault((*s.failed_requests, *s.failed_assets, s.error))


def _refusal(s: CaptureSummary, clean_assets: bool) -> str:
    if _host_faulted(s):
        return f"the host's network changed under the page {s.attempts} times (ERR_NETWORK_CHANGED)"
    if clean_assets and s.failed_assets:
        return f"a failed asset request ({s.failed_assets[0]})"
    return ""


async def _render_retried(
    pool: BrowserPool, base_url: str, task: TaskPackage, sid: str, opts: ReplayOptions
) -> _Render:
    """Render `sid`, replaying what `verify` replays (`_transient.py`)."""
    viewport = resolve_viewport(task.contract.state(sid).viewport)
    job = partial(_render, base_url=base_url, task=task, sid=sid)
    for attempt in range(1, 2 + HOST_NETWORK_RETRIES):
        got = await pool.run(base_url, viewport, partial(job, opts=opts))
        if timed_out((got.summary.error,)):
            got = await pool.run(base_url, viewport, partial(job, opts=patient(opts)))
        got = msgspec.structs.replace(
            got, summary=msgspec.structs.replace(got.summary, attempts=attempt)
        )
        if not _host_faulted(got.summary):
            break
    return got


async def capture(
    pool: BrowserPool,
    task: TaskPackage,
    base_url: str,
    out_dir: Path,
    options: ReplayOptions = ReplayOptions(),
    *,
    clean_assets: bool = False,
) -> tuple[CaptureSummary, ...]:
    """Every state's evidence under `out_dir`, or nothing when a state is refused; one
    summary per state, in order (`refused` says why a state kept the side from being
    written). `clean_assets`: a failed asset request refuses the render (the reference).

    The environment it was rendered in is written to the task's `evidence/env.json`.
    """
    found: dict[str, CaptureSummary] = {}
    files: dict[str, bytes] = {}

    async def one(sid: str) -> None:
        try:
            got = await _render_retried(pool, base_url, task, sid, options)
        except (ReplayError, PlaywrightError) as exc:
            found[sid] = CaptureSummary(state=sid, status=None, error=str(exc))
            return
        why = _refusal(got.summary, clean_assets)
        found[sid] = msgspec.structs.replace(got.summary, refused=why)
        files.update(got.files)

    async with anyio.create_task_group() as tg:
        for s in task.contract.states:
            tg.start_soon(one, s.id)
    summaries = tuple(found[s.id] for s in task.contract.states)
    if any(s.refused for s in summaries):
        return summaries
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, data in sorted(files.items()):
        await anyio.Path(out_dir / name).write_bytes(data)
    write_env(await pool.environment(), task.evidence)
    return summaries
