"""Performance continuity, layout-shift part (#53): `perf-layout-shift@S` in a real browser.

A one-page site built per module, each variant verified the full-suite way:
- `r0`: a page of text and a button;
- `banner`: a 30px notice inserted above the content once it is painted (a small shift:
  passes);
- `jump`: a 400px hero inserted above the content once painted (fails);
- `debt`: R0 of a site that already jumps like that, and `debt2` its final, which jumps
  the same (passes: the base's debt);
- `clicked`: the button inserts the hero at the top when clicked; the state clicks it
  (a shift caused by input: not counted);
- `forged`: `jump`, with the page's `PerformanceObserver`, `performance` and
  `takeRecords` replaced before anything else runs (the figure is read in a world of the
  verifier's own: it still fails).

The insert waits for the page's first contentful paint (a paint timing entry: the text was
shown) on a 10 ms timer loop, which the settle waits for (timers due within its horizon),
so it happens after a paint and before the figure is read, whatever the host's load:
the shift is the page's, not a timing. (A shift a page makes before its first paint, or
racing it, is no shift: nothing was shown yet.)
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import anyio
import pytest

from orchestrator.contract import TaskPackage
from orchestrator.records import CheckResult, VerifyReport
from orchestrator.verifier import SHIFT_POOR, BrowserPool, layout_shift_continuity, verify

from .conftest import check, make_task, serve

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shifts</title>
<script>const PO = PerformanceObserver;</script>{head}</head><body><div id="top"></div><main><h1>Shifts</h1>
{paragraphs}<button id="more" type="button">More</button></main>{tail}</body></html>"""
TEXT = "<p>" + "A line of the page's text that wraps across the width of it. " * 4 + "</p>"
INSERT = """<script>
function insert(px) {{
  const d = document.createElement('div');
  d.style.height = px + 'px';
  d.textContent = 'Notice';
  document.getElementById('top').append(d);
}}
{when}
</script>"""
PAINTED = """let painted = false;
new PO((list) => {{
  if (list.getEntries().some((e) => e.name === 'first-contentful-paint')) painted = true;
}}).observe({{type: 'paint', buffered: true}});
const wait = () => (painted ? insert({px}) : setTimeout(wait, 10));
setTimeout(wait, 0);"""
CLICKED = """document.getElementById('more').addEventListener('click', () => insert(400));"""
FORGE = """<script>
const Real = PerformanceObserver;
window.PerformanceObserver = class { observe() {} disconnect() {} takeRecords() { return []; } };
Real.prototype.takeRecords = () => [];
Object.defineProperty(window, 'performance', {value: {now: () => 0}});
</script>"""
VARIANTS: dict[str, tuple[str, str]] = {
    "r0": ("", ""),
    "banner": ("", PAINTED.format(px=30)),
    "jump": ("", PAINTED.format(px=400)),
    "debt": ("", PAINTED.format(px=400)),
    "debt2": ("", PAINTED.format(px=400)),
    "clicked": ("", CLICKED),
    "forged": (FORGE, PAINTED.format(px=400)),
}
STATES: list[dict[str, Any]] = [
    {"id": "home", "route": "/index.html"},
    {
        "id": "more",
        "route": "/index.html",
        "from": "home",
        "actions": [{"do": "click", "selector": "#more"}],
    },
]
CHECKS = [check("h1", "text", "home", kind="text_equals", selector="h1", value="Shifts")]


@pytest.fixture(scope="module")
def shift_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("shifts")
    for name, (head, when) in VARIANTS.items():
        d = root / name
        d.mkdir()
        tail = INSERT.format(when=when) if when else ""
        (d / "index.html").write_text(PAGE.format(head=head, paragraphs=TEXT * 6, tail=tail))
    with serve(root) as url:
        yield url


@pytest.fixture(scope="module")
def task(tmp_path_factory: pytest.TempPathFactory) -> TaskPackage:
    return make_task(tmp_path_factory.mktemp("shift-task"), STATES, CHECKS)


@pytest.fixture(scope="module")
async def reports(
    pool: BrowserPool, task: TaskPackage, shift_url: str
) -> AsyncIterator[dict[str, VerifyReport]]:
    out: dict[str, VerifyReport] = {}

    async def one(variant: str) -> None:
        out[variant] = await verify(pool, task, f"{shift_url}/{variant}", a11y=True)

    async with anyio.create_task_group() as tg:
        for v in VARIANTS:
            tg.start_soon(one, v)
    yield out


def _shift(reports: dict[str, VerifyReport], variant: str, state: str = "home") -> float:
    got = reports[variant].a11y[state].layout_shift
    assert got is not None, (variant, state)
    return got


def _against(
    task: TaskPackage, reports: dict[str, VerifyReport], v: str, base: str = "r0"
) -> dict[str, CheckResult]:
    got = layout_shift_continuity(task.contract, reports[v].a11y, [("R0", reports[base].a11y)])
    return {c.state: c for c in got}


async def test_the_figure_is_the_shift_of_painted_content(
    reports: dict[str, VerifyReport],
) -> None:
    assert _shift(reports, "r0") == 0.0
    assert 0 < _shift(reports, "banner") < 0.1
    assert _shift(reports, "jump") > SHIFT_POOR
    # the same page, measured twice: the same figure
    assert abs(_shift(reports, "debt") - _shift(reports, "debt2")) < 0.05


async def test_a_page_that_jumps_fails_and_a_small_notice_passes(
    task: TaskPackage, reports: dict[str, VerifyReport]
) -> None:
    jump = _against(task, reports, "jump")["home"]
    assert not jump.passed and jump.gate == "visual_anchors", jump
    for said in ("cumulative layout shift 0.", "R0 at this state: 0.00", "more (allowed up to"):
        assert said in jump.observed, jump.observed
    assert _against(task, reports, "banner")["home"].passed


async def test_the_base_s_own_jump_is_debt(
    task: TaskPackage, reports: dict[str, VerifyReport]
) -> None:
    assert all(c.passed for c in _against(task, reports, "debt2", base="debt").values())


async def test_a_shift_the_user_caused_does_not_count(
    task: TaskPackage, reports: dict[str, VerifyReport]
) -> None:
    # the click inserted 400px above everything, within 500 ms of the input
    assert reports["clicked"].a11y["more"].reached
    assert _shift(reports, "clicked", "more") == 0.0
    assert all(c.passed for c in _against(task, reports, "clicked").values())


async def test_a_page_cannot_hide_its_shifts(
    task: TaskPackage, reports: dict[str, VerifyReport]
) -> None:
    assert _shift(reports, "forged") > SHIFT_POOR
    assert not _against(task, reports, "forged")["home"].passed
