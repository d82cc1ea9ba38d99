"""The HTML report in a real Chromium at 1280x800 (issue #55): the top (the leaderboard,
the three sentences, the continuity-gap plot) fits the first screen, and every link
resolves: a fragment to an id on its page, a relative file to a file next to the page.

Two populations. The recorded `mixed` run (`fixtures/mixed-run`, 270 cells over the
shipped tasks) goes through `python -m orchestrator report`, so its plots, cell pages and
reference screenshots are on disk. The paper-scale synthetic run (`paper_run.py`) has 9
models on its leaderboard, the tallest top; only its index and its continuity plot are
written (its 8,700 cell pages would not fit a test), so only its top is measured.

Each check also runs on a copy of the index with a bug planted in it (a dangling anchor,
a missing file, an oversized top), and must name it.
"""

from __future__ import annotations

import gzip
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from playwright.async_api import Browser, Page, ViewportSize, async_playwright

from orchestrator.cli import main
from orchestrator.report import LoadedRun, LoadStats, _measures, aggregate, render_index
from orchestrator.report._plots import continuity_gap
from tests.report.mixed_run import restamped
from tests.report.paper_run import paper_run
from tests.report.sql_check import N_BOOT

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

ROOT = Path(__file__).resolve().parents[2]
MIXED = Path(__file__).resolve().parent / "fixtures" / "mixed-run"
CHROMIUM = "/usr/bin/chromium"
SCREEN: ViewportSize = {"width": 1280, "height": 800}
# The top, in page order; the figcaption is the plot's last line.
TOP = ("table#leaderboard", "#summary", "#top img.plot", "#top figcaption")
CONTINUITY = ("Completion vs continuity (Change): complete but not cleared", "plots/continuity.png")


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"  # Playwright's async API is asyncio-only


@pytest.fixture(scope="module")
def mixed_index(require_chromium: None, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The recorded `mixed` run's report, written by the `report` command."""
    run_dir = tmp_path_factory.mktemp("mixed")
    with gzip.open(MIXED / "manifest.jsonl.gz") as src:
        (run_dir / "manifest.jsonl").write_bytes(restamped(src.read()))
    shutil.copyfile(MIXED / "solvers.json", run_dir / "solvers.json")
    assert main(["report", str(run_dir), "--tasks-dir", str(ROOT / "tasks")]) == 0
    return run_dir / "report" / "index.html"


@pytest.fixture(scope="module")
def paper_index(require_chromium: None, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The paper-scale run's index and continuity plot (module docstring)."""
    run = paper_run()
    n = len(run.rows)
    stats = LoadStats(lines=n, torn=0, superseded=0, stale_hash=0, missing_task=0, kept=n)
    loaded = LoadedRun(
        rows=tuple(run.rows), stats=stats, task_roots={}, twins=run.twins, cards=run.cards
    )
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_measures, "N_BOOT", N_BOOT)  # the intervals' width is not measured here
        rep = aggregate(loaded, "paper")
    out = tmp_path_factory.mktemp("paper")
    continuity_gap(rep.continuity, out / CONTINUITY[1])
    (out / "index.html").write_text(render_index(rep, [CONTINUITY]), encoding="utf-8")
    return out / "index.html"


@pytest.fixture(scope="module")
async def browser(require_chromium: None) -> AsyncIterator[Browser]:
    async with async_playwright() as pw:
        b = await pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield b
        finally:
            await b.close()


@asynccontextmanager
async def _open(browser: Browser, html: Path) -> AsyncIterator[Page]:
    page = await browser.new_page(viewport=SCREEN)
    try:
        await page.goto(html.resolve().as_uri(), wait_until="load")
        # The report runs no script, so the DOM read below is the one it wrote.
        assert await page.locator("script").count() == 0
        yield page
    finally:
        await page.close()


async def top_overflow(page: Page) -> list[str]:
    """What of the top is missing, undrawn, or ends below the first screen."""
    problems = []
    for sel in TOP:
        loc = page.locator(sel)
        if await loc.count() != 1:
            problems.append(f"{sel}: {await loc.count()} elements, not 1")
            continue
        box = await loc.bounding_box()
        if box is None or box["height"] == 0:
            problems.append(f"{sel}: not rendered")
        elif box["y"] + box["height"] > SCREEN["height"]:
            problems.append(f"{sel} ends at {box['y'] + box['height']:.0f} px, below the screen")
    plot = page.locator("#top img.plot")
    if await plot.count() == 1 and not await plot.evaluate("i => i.complete && i.naturalWidth > 0"):
        problems.append("the continuity plot did not load")
    return problems


async def dangling_links(page: Page, html: Path) -> list[str]:
    """Every link and image of the page that does not resolve (module docstring)."""
    refs = await page.locator("a[href], img[src]").evaluate_all(
        "els => els.map(e => e.getAttribute(e.tagName === 'A' ? 'href' : 'src'))"
    )
    ids = set(await page.locator("[id]").evaluate_all("els => els.map(e => e.id)"))
    problems = []
    for ref in refs:
        url = urlsplit(ref)
        if url.scheme or url.netloc:
            problems.append(f"{ref}: not relative (the report opens from disk)")
        elif not url.path and url.fragment not in ids:
            problems.append(f"{ref}: no element with this id")
        elif url.path and not (html.parent / unquote(url.path)).is_file():
            problems.append(f"{ref}: no such file next to {html.name}")
    return problems


@pytest.mark.parametrize("population", ["mixed_index", "paper_index"])
async def test_the_top_fits_the_first_screen(
    population: str, browser: Browser, request: pytest.FixtureRequest
) -> None:
    async with _open(browser, request.getfixturevalue(population)) as page:
        assert await top_overflow(page) == []
        # The contents follow the top, and the three sentences are the summary's.
        assert len((await page.locator("#summary").inner_text()).split(". ")) == 3
        assert await page.locator("#top + nav#contents").count() == 1


async def test_every_link_of_the_report_and_a_cell_page_resolves(
    mixed_index: Path, browser: Browser
) -> None:
    async with _open(browser, mixed_index) as page:
        assert await dangling_links(page, mixed_index) == []
        assert await page.locator("a[href^='#']").count() > 30  # contents, glossary terms
        assert await page.locator("a[href^='cells/']").count() == 270  # every recorded cell
        first = page.locator("a[href^='cells/']").first
        target = mixed_index.parent / unquote(
            urlsplit(await first.get_attribute("href") or "").path
        )
        await first.click()
        await page.wait_for_load_state("load")
        assert page.url.endswith("#first-failing")
        assert await page.locator("#first-failing").count() == 1
        assert await page.locator("img[src*='/reference/']").count() > 0  # the shipped evidence
        assert await dangling_links(page, target) == []


PLANTED = {
    "dangling anchor": (
        "href='#glossary'",
        "href='#glossary-gone'",
        "#glossary-gone: no element with this id",
    ),
    "missing file": ("href='cells/", "href='cells/gone-", "no such file next to planted.html"),
    "oversized top": (
        ".top img{max-height:300px;width:auto}",
        ".top img{height:600px;width:auto}",
        "#top figcaption ends at",
    ),
}


@pytest.mark.parametrize("bug", list(PLANTED))
async def test_a_planted_bug_is_caught(bug: str, mixed_index: Path, browser: Browser) -> None:
    good, bad, caught = PLANTED[bug]
    text = mixed_index.read_text(encoding="utf-8")
    assert good in text
    planted = mixed_index.with_name("planted.html")
    planted.write_text(text.replace(good, bad, 1), encoding="utf-8")
    async with _open(browser, planted) as page:
        problems = await top_overflow(page) + await dangling_links(page, planted)
    assert [p for p in problems if caught in p] != [], problems
