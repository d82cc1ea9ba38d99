"""Performance continuity, weight part (#53): `perf-bytes@S` in a real browser.

A one-page site built per module: `r0` (a page with a 40 KB script), `extra` (a 300 KB
script added: a feature's worth, passes), `heavy` (a 1.5 MB script added: fails),
`many` (300 more requests once loaded: past the 250 entries a page's resource-timing
buffer holds, and counted all the same by an isolated world's observers). Every variant is verified the full-suite way and compared with `r0`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import anyio
import pytest

from orchestrator.contract import TaskPackage
from orchestrator.records import CheckResult, VerifyReport
from orchestrator.verifier import BrowserPool, verify, weight_continuity

from .conftest import check, make_task, serve

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Weights</title>
{head}</head><body><main><h1>Weights</h1><p>A page and its scripts.</p></main>
<script src="base.js"></script>{extra}</body></html>"""
MANY = """<script>addEventListener("load", () => {
  for (let i = 0; i < 300; i++) fetch("base.js?" + i, {method: "HEAD"});
});</script>"""
VARIANTS: dict[str, tuple[str, int]] = {
    "r0": ("", 0),
    "extra": ("", 300_000),
    "heavy": ("", 1_500_000),
    "many": (MANY, 0),
}
STATES: list[dict[str, Any]] = [{"id": "home", "route": "/index.html"}]
CHECKS = [check("h1", "text", "home", kind="text_equals", selector="h1", value="Weights")]


def _script(size: int) -> str:
    return "/*" + "x" * (size - 4) + "*/"


@pytest.fixture(scope="module")
def weight_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("weights")
    for name, (head, size) in VARIANTS.items():
        d = root / name
        d.mkdir()
        (d / "base.js").write_text(_script(40_000))
        extra = ""
        if size:
            (d / "extra.js").write_text(_script(size))
            extra = '<script src="extra.js"></script>'
        (d / "index.html").write_text(PAGE.format(head=head, extra=extra))
    with serve(root) as url:
        yield url


@pytest.fixture(scope="module")
def task(tmp_path_factory: pytest.TempPathFactory) -> TaskPackage:
    return make_task(tmp_path_factory.mktemp("weight-task"), STATES, CHECKS)


@pytest.fixture(scope="module")
async def reports(
    pool: BrowserPool, task: TaskPackage, weight_url: str
) -> AsyncIterator[dict[str, VerifyReport]]:
    out: dict[str, VerifyReport] = {}

    async def one(variant: str) -> None:
        out[variant] = await verify(pool, task, f"{weight_url}/{variant}", a11y=True)

    async with anyio.create_task_group() as tg:
        for v in VARIANTS:
            tg.start_soon(one, v)
    yield out


def _bytes(report: VerifyReport) -> int:
    weight = report.a11y["home"].weight
    assert weight is not None
    return weight.bytes


def _against_r0(task: TaskPackage, reports: dict[str, VerifyReport], v: str) -> CheckResult:
    (got,) = weight_continuity(task.contract, reports[v].a11y, [("R0", reports["r0"].a11y)])
    return got


async def test_the_weight_is_what_went_over_the_wire(reports: dict[str, VerifyReport]) -> None:
    r0 = reports["r0"].a11y["home"].weight
    # The document, base.js, and what else the page asked its origin for (a favicon).
    assert r0 is not None and r0.requests >= 2, r0
    assert 40_000 < r0.bytes < 46_000, r0
    for variant, (_, size) in VARIANTS.items():
        if variant != "many":
            assert size <= _bytes(reports[variant]) - r0.bytes < size + 2_000, variant


async def test_a_feature_s_worth_passes_and_megabytes_fail(
    task: TaskPackage, reports: dict[str, VerifyReport]
) -> None:
    extra = _against_r0(task, reports, "extra")
    assert extra.passed and extra.gate == "assets", extra
    heavy = _against_r0(task, reports, "heavy")
    assert not heavy.passed and heavy.gate == "assets", heavy
    for said in ("transferred 1.5 MB in ", "R0 at this state: 40 KB in ", "1.4 MB more"):
        assert said in heavy.observed, heavy.observed


async def test_every_request_counts_past_the_timing_buffer(
    reports: dict[str, VerifyReport],
) -> None:
    r0, many = reports["r0"].a11y["home"].weight, reports["many"].a11y["home"].weight
    assert r0 is not None and many is not None
    assert many.requests - r0.requests == 300, (r0, many)
