"""`capture`: write a state's evidence (render, text, accessible names, anchors) to disk.

Replays exactly like `verify` (same determinism and settle rule), so a reference render
captured here can be diffed pixel for pixel by the `visual` assertion.
"""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import anyio
import msgspec
from playwright.async_api import Error as PlaywrightError

from ..contract import CANARY, CANARY_LINE, TaskPackage, resolve_viewport
from ._browser import BrowserPool, BrowserSession
from ._environment import write_env
from ._errors import ReplayError
from ._plan import action_chain
from ._replay import Recorder, ReplayOptions, navigate, prepare, run_actions, settle
from ._replay_world import probe_page

# Anchors whose boxes and key styles are frozen as evidence (`visual_anchors` authoring).
ANCHORS = "h1, h2, h3, nav, header, footer, main, button, [role=button], [role=navigation]"


class CaptureSummary(msgspec.Struct, frozen=True, kw_only=True):
    state: str
    status: int | None
    error: str = ""
    # What the health gates would grade: console errors, failed requests and assets.
    console_errors: tuple[str, ...] = ()
    failed_requests: tuple[str, ...] = ()


async def _capture_one(
    session: BrowserSession,
    base_url: str,
    task: TaskPackage,
    sid: str,
    out: Path,
    opts: ReplayOptions,
) -> CaptureSummary:
    contract = task.contract
    state = contract.state(sid)
    page = session.page
    rec = Recorder(origin=session.origin)
    rec.attach(page)
    await prepare(page, opts)
    error = await navigate(page, base_url, state.route, rec)
    if not error:  # the same sequence as `_replay_state._reach`
        await rec.quiet(page, opts)
        error = await run_actions(page, base_url, action_chain(contract, state), rec, opts)
    if not error:
        await settle(page, rec, opts, state.settle)
    await page.screenshot(path=out / f"{sid}.png", animations="disabled", caret="hide")
    await page.screenshot(
        path=out / f"{sid}.full.png", full_page=True, animations="disabled", caret="hide"
    )
    text = await page.locator("body").inner_text()
    aria = await page.locator("body").aria_snapshot()
    anchors = await probe_page(page, "anchors", ANCHORS)
    navs = await probe_page(page, "navs")
    tokens = await probe_page(page, "tokens", ANCHORS)
    # Evidence is grader-only: each text file carries the canary (`contract._canary`).
    await anyio.Path(out / f"{sid}.txt").write_text(CANARY_LINE + text, encoding="utf-8")
    await anyio.Path(out / f"{sid}.aria.yaml").write_text(CANARY_LINE + aria, encoding="utf-8")
    evidence = {"canary": CANARY, "state": sid, "anchors": anchors, "navs": navs, "tokens": tokens}
    payload = json.dumps(evidence, indent=1)
    await anyio.Path(out / f"{sid}.anchors.json").write_text(payload, encoding="utf-8")
    return CaptureSummary(
        state=sid,
        status=rec.status,
        error=error,
        console_errors=tuple(rec.console_errors),
        failed_requests=(*rec.failed_requests, *rec.failed_assets),
    )


async def capture(
    pool: BrowserPool,
    task: TaskPackage,
    base_url: str,
    out_dir: Path,
    options: ReplayOptions = ReplayOptions(),
) -> tuple[CaptureSummary, ...]:
    """Write every state's evidence under `out_dir`; one summary per state, in order.

    The environment it was rendered in is written to the task's `evidence/env.json`.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    found: dict[str, CaptureSummary] = {}

    async def one(sid: str) -> None:
        viewport = resolve_viewport(task.contract.state(sid).viewport)
        job = partial(
            _capture_one, base_url=base_url, task=task, sid=sid, out=out_dir, opts=options
        )
        try:
            found[sid] = await pool.run(base_url, viewport, job)
        except (ReplayError, PlaywrightError) as exc:
            found[sid] = CaptureSummary(state=sid, status=None, error=str(exc))

    async with anyio.create_task_group() as tg:
        for s in task.contract.states:
            tg.start_soon(one, s.id)
    write_env(await pool.environment(), task.evidence)
    return tuple(found[s.id] for s in task.contract.states)
