"""`capture` retries what `verify` retries and refuses to freeze a broken render (#38).

The host's `ERR_NETWORK_CHANGED` is injected at the browser boundary: the image request
is really aborted (so the render really lacks it), and the failure is labelled the way
Chromium labels a host network change. Playwright's `route.abort` has no such error code
(nor has CDP's `Network.ErrorReason`), so a context-level `requestfailed` listener, which
Playwright runs before the page's (the recorder's), relabels the aborted request.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar, cast

import pytest
from playwright.async_api import Request, Route

from orchestrator.contract import Viewport
from orchestrator.verifier import BrowserPool, BrowserSession, RenderEnv, capture

from .conftest import make_task

pytestmark = [pytest.mark.anyio, pytest.mark.browser]
T = TypeVar("T")


class HostChurn:
    """A pool whose first `faults` renders lose /logo.png to ERR_NETWORK_CHANGED."""

    def __init__(self, pool: BrowserPool, faults: int) -> None:
        self.pool, self.faults, self.runs = pool, faults, 0

    async def environment(self) -> RenderEnv:
        return await self.pool.environment()

    async def run(
        self, base_url: str, viewport: Viewport, job: Callable[[BrowserSession], Awaitable[T]]
    ) -> T:
        self.runs += 1
        faulty = self.runs <= self.faults

        async def hooked(session: BrowserSession) -> T:
            if faulty:
                await session.context.route("**/logo.png", _abort)
                session.context.on("requestfailed", _relabel)
            return await job(session)

        return await self.pool.run(base_url, viewport, hooked)


async def _abort(route: Route) -> None:
    await route.abort("failed")


def _relabel(request: Request) -> None:
    if request.url.endswith("/logo.png"):
        request._impl_obj._failure_text = "net::ERR_NETWORK_CHANGED"


def _task(tmp_path: Path, route: str) -> Any:
    states = [{"id": "home", "route": route}]
    checks = [{"id": "h1", "gate": "dom", "state": "home", "describe": "h1",
               "assert": {"kind": "exists", "selector": "h1"}}]  # fmt: skip
    return make_task(tmp_path, states, checks)


async def test_a_network_change_is_retried_and_the_evidence_is_clean(
    pool: BrowserPool, site_url: str, tmp_path: Path
) -> None:
    churn = HostChurn(pool, faults=1)
    out = tmp_path / "evidence" / "reference"
    (s,) = await capture(cast(BrowserPool, churn), _task(tmp_path, "/index.html"), site_url, out,
                         clean_assets=True)  # fmt: skip
    assert churn.runs == 2 and s.attempts == 2, (churn.runs, s)
    assert not s.refused and not s.failed_assets and not s.error, s
    assert json.loads((out / "home.anchors.json").read_text())["state"] == "home"
    assert (out / "home.png").stat().st_size > 0


async def test_a_network_that_keeps_changing_writes_nothing(
    pool: BrowserPool, site_url: str, tmp_path: Path
) -> None:
    churn = HostChurn(pool, faults=99)
    out = tmp_path / "evidence" / "r0"
    (s,) = await capture(cast(BrowserPool, churn), _task(tmp_path, "/index.html"), site_url, out)
    assert churn.runs == 3 and "ERR_NETWORK_CHANGED" in s.refused, s
    assert not out.exists()


async def test_a_failed_asset_refuses_the_reference_but_not_r0(
    pool: BrowserPool, site_url: str, tmp_path: Path
) -> None:
    # A real 404 on an image: the site's, not the host's: not retried. R0 may ship it (a
    # repair task's bug); the reference must not.
    task = _task(tmp_path, "/broken-img.html")
    ref = tmp_path / "evidence" / "reference"
    (s,) = await capture(pool, task, site_url, ref, clean_assets=True)
    assert s.attempts == 1 and s.refused.startswith("a failed asset request"), s
    assert "missing-logo.png" in s.refused and not ref.exists()
    r0 = tmp_path / "evidence" / "r0"
    (s,) = await capture(pool, task, site_url, r0)
    assert not s.refused and s.failed_assets and (r0 / "home.txt").is_file(), s
