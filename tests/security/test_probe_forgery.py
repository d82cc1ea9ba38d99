"""Attack: the site redefines what the verifier reads, in its own JavaScript world.

`sites/forged/forge.js` overrides `Element.prototype.getBoundingClientRect`,
`getComputedStyle`, `Storage.prototype.getItem`, `innerText`, `href`, `scrollWidth`,
`naturalWidth`, `document.fonts` and `requestAnimationFrame`, lying that broken things
are fine and fine things broken. Through the real verifier and real Chromium, every
verdict must be the truth: checks that should fail still fail, checks that should pass
still pass. The control test shows the lies are live in the main world (where the
verifier used to read them), so these tests fail if a probe goes back there.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import AsyncIterator, Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from orchestrator.contract import Viewport
from orchestrator.verifier import (
    BrowserPool,
    BrowserSession,
    probe_each,
    probe_page,
    verify,
    write_env,
)
from tests.verifier.conftest import check, make_task

pytestmark = [pytest.mark.anyio, pytest.mark.browser, pytest.mark.timeout(300)]

SITE = Path(__file__).parent / "sites" / "forged"
STATES = [
    {"id": "home", "route": "/index.html"},
    {"id": "home2", "route": "/index.html"},
    {"id": "fine", "route": "/fine.html"},
    {"id": "blank", "route": "/blank.html"},
]
# (check, the truth). The forged value would flip every one of them.
CASES: list[tuple[dict[str, Any], bool]] = [
    (
        check(
            "box-lie",
            "visual_anchors",
            "home",
            kind="box",
            selector="#brand",
            x=24,
            y=16,
            height=40,
        ),
        False,
    ),
    (
        check(
            "box-true",
            "visual_anchors",
            "home",
            kind="box",
            selector="#real",
            x=8,
            y=200,
            width=120,
        ),
        True,
    ),
    (check("contained-lie", "containment", "home", kind="contained", selector="#wide"), False),
    (check("contained-true", "containment", "home", kind="contained", selector="#real"), True),
    (
        check(
            "style-lie",
            "visual_anchors",
            "home",
            kind="style",
            selector="h1",
            property="font-size",
            equals="40px",
        ),
        False,
    ),
    (
        check(
            "style-true",
            "visual_anchors",
            "home",
            kind="style",
            selector="h2",
            property="font-size",
            equals="32px",
        ),
        True,
    ),
    (
        check(
            "token-lie",
            "design_tokens",
            "home",
            kind="token",
            selector="h1",
            property="color",
            token="--brand",
        ),
        False,
    ),
    (
        check(
            "token-true",
            "design_tokens",
            "home",
            kind="token",
            selector="h2",
            property="color",
            token="--brand",
        ),
        True,
    ),
    (
        check("storage-lie", "state_artifacts", "home", kind="storage", key="seen", equals="yes"),
        False,
    ),
    (
        check(
            "storage-true", "state_artifacts", "home", kind="storage", key="real", equals="value"
        ),
        True,
    ),
    (
        check(
            "order-lie",
            "regression_text",
            "home",
            kind="text_order",
            selector="#items li",
            values=["Apples", "Pears"],
        ),
        False,
    ),
    (
        check(
            "order-true",
            "regression_text",
            "home",
            kind="text_order",
            selector="#items li",
            values=["Pears", "Apples"],
        ),
        True,
    ),
    (
        check(
            "links-lie",
            "navigation",
            "home",
            kind="links",
            selector="#nav",
            entries=[{"text": "Home", "href": "/"}],
        ),
        False,
    ),
    (
        check(
            "links-true",
            "navigation",
            "home",
            kind="links",
            selector="#nav",
            entries=[{"text": "Home", "href": "/x"}],
        ),
        True,
    ),
    (
        check("changed-lie", "dom", "home2", kind="exists", selector="body", changed_from="home"),
        False,
    ),
]
HEALTH = {
    "layout_overflow@home": False,  # #wide is 3000 px wide
    "assets@home": False,  # bad.png is not an image
    "routes@home": True,
    "layout_overflow@fine": True,
    "assets@fine": True,
    "routes@fine": True,
    "routes@blank": False,  # nothing rendered, whatever innerText says
}


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def site_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(SITE)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
async def pool(require_chromium: None) -> AsyncIterator[BrowserPool]:
    async with BrowserPool(max_contexts=2) as p:
        yield p


async def test_forged_values_do_not_change_any_verdict(
    pool: BrowserPool, site_url: str, tmp_path: Path
) -> None:
    task = make_task(tmp_path, STATES, [c for c, _ in CASES])
    # The box numbers were authored in this (pinned) environment.
    write_env(await pool.environment(), task.evidence)
    report = await verify(pool, task, site_url)
    got = {c.id: c.passed for c in report.checks}
    observed = {c.id: c.observed for c in report.checks}
    wrong = {
        cid: observed[cid]
        for cid, truth in [*((c["id"], t) for c, t in CASES), *HEALTH.items()]
        if got[cid] is not truth
    }
    assert not wrong, wrong


async def test_control_the_lies_are_live_in_the_main_world(
    pool: BrowserPool, site_url: str
) -> None:
    """What the verifier's old main-world probes read, against what the probes read now."""

    async def job(session: BrowserSession) -> tuple[dict[str, Any], dict[str, Any]]:
        page = session.page
        await page.goto(site_url + "/index.html")
        main = await page.evaluate(
            """() => ({
              x: document.querySelector('#brand').getBoundingClientRect().x,
              fontSize: getComputedStyle(document.querySelector('h1')).getPropertyValue('font-size'),
              seen: localStorage.getItem('seen'),
              overflow: document.documentElement.scrollWidth > document.documentElement.clientWidth,
            })"""
        )
        main["items"] = await page.locator("#items li").all_inner_texts()
        (box,) = await probe_each(page.locator("#brand"), "box")
        (style,) = await probe_each(page.locator("h1"), "style", ["font-size", "40px"])
        health = await probe_page(page, "health", False)
        probed = {
            "x": box["x"],
            "fontSize": style["actual"],
            "seen": await probe_page(page, "storage", ["local", "seen"]),
            "overflow": health["overflow"],
            "items": await probe_each(page.locator("#items li"), "text"),
        }
        return main, probed

    main, probed = await pool.run(site_url, Viewport(width=1280, height=800), job)
    assert main == {
        "x": 24,
        "fontSize": "40px",
        "seen": "yes",
        "overflow": False,
        "items": ["Apples", "Pears"],
    }
    assert probed == {
        "x": 300,
        "fontSize": "20px",
        "seen": None,
        "overflow": True,
        "items": ["Pears", "Apples"],
    }


def test_no_verifier_module_reads_the_page_in_its_main_world() -> None:
    """A static guard: these Playwright calls run in the site's world (see above)."""
    main_world: tuple[str, ...] = (
        "evaluate(",
        "evaluate_all(",
        "evaluate_handle(",
        "all_inner_texts(",
    )
    main_world += ("all_text_contents(", "wait_for_function(", "eval_on_selector")
    root = Path(__file__).resolve().parents[2] / "orchestrator" / "verifier"
    found = [
        f"{path.name}:{n}: {line.strip()}"
        for path in sorted(root.glob("*.py"))
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if any(f".{call}" in line for call in main_world)
    ]
    assert not found, found
