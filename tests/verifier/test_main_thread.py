"""Time that moves and a blocked main thread, in a real browser (#53).

`sites/perf/<variant>/index.html` is one notes page: it prints today's date, and its
Save button shows "Saved" once 300 ms of `Date` time have passed (a debounce on
`Date.now()`). `r0` is that page; `busy-perf` and `busy-date` add a 1.5 s busy loop
while the page loads, timed on `performance.now()` and on `Date.now()`; `never` holds
its main thread for good while the document is parsed (`while (true) {}`), and
`never-later` 50 ms after its load. Each variant is verified once per module, the
full-suite way (snapshots taken), concurrently; the main-thread rule is the pure
`_perf_gate.py` on what the browser measured.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import AsyncIterator, Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path

import anyio
import pytest

from orchestrator.contract import TaskPackage
from orchestrator.results import VerifyReport
from orchestrator.verifier import BrowserPool, ReplayOptions, verify, with_a11y_continuity
from orchestrator.verifier._replay_perf import BLOCKED_AFTER_S, STOP_TIMEOUT_S
from orchestrator.verifier._transient import TIMEOUT_PATIENCE

from .conftest import _QuietHandler, check, make_task

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

SITE = Path(__file__).parent / "sites" / "perf"
VARIANTS = ("r0", "busy-perf", "busy-date", "never", "never-later")
STATES = [
    {"id": "home", "route": "/index.html"},
    {
        "id": "saved",
        "route": "/index.html",
        "actions": [{"do": "click", "selector": "#go"}],
        "settle": "#result.done",
    },
]
CHECKS = [
    check("today", "text", "home", kind="text_equals", selector="#today", value="2024-01-01"),
    check("saved", "interaction", "saved", kind="text_equals", selector="#result", value="Saved"),
]
# Shorter than the default (15 s): how long a never-yielding page takes is this plus
# the probe; the bound below is what a patient replay would add on top, not the load.
OPTS = ReplayOptions(navigation_timeout=8.0)


@pytest.fixture(scope="module")
def perf_url() -> Iterator[str]:
    handler = functools.partial(_QuietHandler, directory=str(SITE))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def task(tmp_path_factory: pytest.TempPathFactory) -> TaskPackage:
    return make_task(tmp_path_factory.mktemp("perf"), STATES, CHECKS)


Timed = tuple[VerifyReport, float]


@pytest.fixture(scope="module")
async def reports(
    pool: BrowserPool, task: TaskPackage, perf_url: str
) -> AsyncIterator[dict[str, Timed]]:
    out: dict[str, Timed] = {}

    async def one(variant: str) -> None:
        started = time.monotonic()
        report = await verify(pool, task, f"{perf_url}/{variant}", a11y=True, options=OPTS)
        out[variant] = (report, time.monotonic() - started)

    async with anyio.create_task_group() as tg:
        for v in VARIANTS:
            tg.start_soon(one, v)
    yield out


def _graded(task: TaskPackage, reports: dict[str, Timed], final: str, base: str) -> VerifyReport:
    return with_a11y_continuity(reports[final][0], task.contract, [("R0", reports[base][0].a11y)])


async def test_a_debounce_on_date_now_passes_and_the_day_stays_the_pinned_one(
    task: TaskPackage, reports: dict[str, Timed]
) -> None:
    """With `Date` frozen (`set_fixed_time`) the Save never completed: `saved` failed."""
    report = _graded(task, reports, "r0", "r0")
    assert [c.id for c in report.failed] == [], [c.message for c in report.failed]
    saved, today = report.check("saved"), report.check("today")
    assert saved is not None and saved.passed and today is not None and today.passed
    # R0 graded against itself: the rule ran, and R0's own loads block for nothing much.
    for sid in ("home", "saved"):
        rule = report.check(f"perf-main-thread@{sid}")
        assert rule is not None and rule.passed, rule


@pytest.mark.parametrize("variant", ["busy-perf", "busy-date"])
async def test_a_busy_loop_on_load_fails_the_main_thread_rule_alone(
    task: TaskPackage, reports: dict[str, Timed], variant: str
) -> None:
    report = _graded(task, reports, variant, "r0")
    failed = {c.id: c for c in report.failed}
    assert set(failed) == {"perf-main-thread@home", "perf-main-thread@saved"}, [
        c.message for c in report.failed
    ]
    assert [g.gate for g in report.gates if g.status == "fail"] == ["routes"]
    home = failed["perf-main-thread@home"]
    assert "total blocking time" in home.observed and "R0 at this state" in home.observed
    snaps = reports[variant][0].a11y
    figure, base = snaps["home"].main_thread, reports["r0"][0].a11y["home"].main_thread
    assert figure is not None and base is not None
    # The loop is timed by a clock: 1.5 s of wall time, whatever the host's load.
    assert figure.longest_ms >= 1500 and figure.blocking_ms >= 1450
    assert f"{base.blocking_ms:.0f} ms" in home.observed
    assert f"{figure.blocking_ms:.0f} ms" in home.observed


async def test_a_base_that_already_blocked_is_debt(
    task: TaskPackage, reports: dict[str, Timed]
) -> None:
    report = _graded(task, reports, "busy-date", "busy-perf")
    assert [c.id for c in report.failed] == [], [c.message for c in report.failed]
    rule = report.check("perf-main-thread@home")
    assert rule is not None and rule.passed


@pytest.mark.parametrize("variant", ["never", "never-later"])
async def test_a_page_that_never_yields_ends_as_a_blocked_main_thread(
    task: TaskPackage, reports: dict[str, Timed], variant: str
) -> None:
    report, took = reports[variant]
    for sid in ("home", "saved"):
        routes = report.check(f"routes@{sid}")
        assert routes is not None and not routes.passed
        assert "main thread is blocked" in routes.observed, routes.observed
        # Graded as the page's, not retried as a loaded host's timeout.
        assert "Timeout" not in routes.observed
        console = report.check(f"console@{sid}")
        assert console is not None and not console.applicable
    saved = report.check("saved")
    assert saved is not None and "main thread is blocked" in saved.observed
    # Each state ended by the probe: no patient replay (its navigation alone would take
    # TIMEOUT_PATIENCE times the timeout) and no harness retry after it.
    patient_nav = OPTS.navigation_timeout * TIMEOUT_PATIENCE
    probe = BLOCKED_AFTER_S + STOP_TIMEOUT_S
    assert took < OPTS.navigation_timeout + 2 * OPTS.settle_timeout + probe + patient_nav
    assert all("main thread is blocked" in s.error for s in report.states), report.states
