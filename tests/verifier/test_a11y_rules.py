"""Keyboard traps, page titles and announcements in a real browser (#53), each against the
same R0.

`sites/a11y-rules/<variant>/` is a two-page studio site (`index.html`: a coupon field, a
booking form whose confirmation goes to a `role=status` line no check reads;
`about.html`): `r0` (untouched), `ok` (harmless edits: other titles, still distinct, the
status line is another element with the same role), `trap` (the coupon field swallows
Tab), `trap-blur` (it takes the focus back on blur), `trap-shift` (it swallows Shift+Tab,
read from `keyCode`; Tab still leaves it), `shift-moves` (it cancels Shift+Tab and moves
the focus itself: no trap), `titles` (both pages titled
"Studio", `lang` removed), `announce` (the status line's `role=status` removed),
`debt-r0`/`debt-final` (an R0 that already has all three, and a final that keeps them),
`forged` (all three, with the site's own world forging `MutationObserver`,
`document.title`, `activeElement`, `getAttribute`, `matches`, `textContent` and `focus`).
Every variant is verified once per module; the verdicts are the pure rules of
`_a11y/_rules.py` on the snapshots the browser took.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from orchestrator.contract import TaskPackage, Viewport
from orchestrator.records import CheckResult, VerifyReport
from orchestrator.verifier import BrowserPool, BrowserSession, a11y_continuity, verify
from orchestrator.verifier._replay._announce import Announced, Listener, announced

from .conftest import make_task, serve

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

SITE = Path(__file__).parent / "sites" / "a11y-rules"
VARIANTS = (
    "r0", "ok", "trap", "trap-blur", "trap-shift", "shift-moves", "titles", "announce",
    "debt-r0", "debt-final", "forged"
)  # fmt: skip
STATES: list[dict[str, Any]] = [
    {"id": "home", "route": "/index.html"},
    {"id": "about", "route": "/about.html"},
    {
        "id": "sent",
        "route": "/index.html",
        "actions": [
            {"do": "fill", "selector": "#name", "value": "Ada"},
            {"do": "click", "selector": "#send"},
        ],
    },
]
CHECKS = [
    {
        "id": "heading",
        "gate": "text",
        "state": "home",
        "assert": {"kind": "text_contains", "selector": "h1", "value": "Book"},
        "describe": "The booking page has its heading.",
    }
]


@pytest.fixture(scope="module")
def rules_url() -> Iterator[str]:
    with serve(SITE) as url:
        yield url


@pytest.fixture(scope="module")
def task(tmp_path_factory: pytest.TempPathFactory) -> TaskPackage:
    return make_task(tmp_path_factory.mktemp("a11y-rules"), STATES, CHECKS)


@pytest.fixture(scope="module")
async def reports(
    pool: BrowserPool, task: TaskPackage, rules_url: str
) -> AsyncIterator[dict[str, VerifyReport]]:
    out: dict[str, VerifyReport] = {}

    async def one(variant: str) -> None:
        out[variant] = await verify(pool, task, f"{rules_url}/{variant}", a11y=True)

    async with anyio.create_task_group() as tg:
        for v in VARIANTS:
            tg.start_soon(one, v)
    yield out


def _against(
    task: TaskPackage, reports: dict[str, VerifyReport], final: str, r0: str = "r0"
) -> dict[str, CheckResult]:
    checks = a11y_continuity(task.contract, reports[final].a11y, [("R0", reports[r0].a11y)])
    return {c.id: c for c in checks}


# What each breakage must fail, and what its messages must show.
BROKEN: dict[str, dict[str, list[str]]] = {
    "trap": {
        "a11y-trap@home": [
            "Tab cannot leave input#coupon",
            "the key did not move the focus",
            "Shift+Tab can",
            "R0 at this state Tab moved on from it",
        ],
        "a11y-trap@sent": ["Tab cannot leave input#coupon"],
    },
    "trap-blur": {
        "a11y-trap@home": [
            "Tab cannot leave input#coupon",
            "the page took it back",
            "Shift+Tab cannot either",
        ],
    },
    "trap-shift": {
        "a11y-trap@home": [
            "Shift+Tab cannot leave input#coupon",
            "the key did not move the focus",
            "Tab can",
            "R0 at this state Shift+Tab was not held there",
        ],
        "a11y-trap@sent": ["Shift+Tab cannot leave input#coupon"],
    },
    "titles": {
        "a11y-title@home": [
            "the title 'Studio' is also state 'about''s",
            "R0 titled them 'Book a class – Studio' and 'About – Studio'",
            "<html lang> is gone",
            "lang='en'",
        ],
        "a11y-title@about": ["the title 'Studio' is also state 'home''s"],
    },
    "announce": {
        "a11y-announce@sent": [
            "R0 announced 'Booked for Ada, order 1042.'",
            "role=status on p#status, after action 2: click '#send'",
            "the final shows it in no live region and announced nothing there after that",
            "the live region p#status (role=status, 'Booked for Ada, order 1042.')",
            "is no longer live",
        ],
        "a11y-announce@home": ["the live region p#status (role=status, empty)"],
    },
}


async def test_r0_snapshots_saw_what_the_rules_need(reports: dict[str, VerifyReport]) -> None:
    snaps = reports["r0"].a11y
    home, about, sent = snaps["home"], snaps["about"], snaps["sent"]
    assert not home.announce_error and not home.traps and home.focus_end == "cycle"
    assert "input#coupon" in [f.element for f in home.focus]
    assert (home.title, about.title, home.lang) == ("Book a class – Studio", "About – Studio", "en")
    assert (home.url, about.url) == ("/index.html", "/about.html")
    assert [(r.region, r.live, r.text) for r in home.regions] == [("p#status", "role=status", "")]
    assert [(a.after, a.action, a.region, a.text) for a in sent.announced] == [
        (2, "click '#send'", "p#status", "Booked for Ada, order 1042.")
    ]
    assert sent.shown == () and "p#status" in sent.ids and "input#coupon" in sent.ids
    # The same line without its role: shown, not announced.
    assert reports["announce"].a11y["sent"].shown == ("Booked for Ada, order 1042.",)


@pytest.mark.parametrize("variant", sorted(BROKEN))
async def test_each_breakage_fails_its_rule_with_a_grounded_message(
    task: TaskPackage, reports: dict[str, VerifyReport], variant: str
) -> None:
    got = _against(task, reports, variant)
    rule = next(iter(BROKEN[variant])).split("@")[0]
    for cid, words in BROKEN[variant].items():
        check = got[cid]
        assert not check.passed and check.gate == "regression_text", check
        for w in words:
            assert w in check.message, (w, check.message)
        assert "state " in check.message  # the grounded 'where'
    # Only its own rule (axe's html-has-lang also sees the lang removed).
    others = sorted(c.id for c in got.values() if not c.passed and not c.id.startswith(rule))
    axe = ["a11y-axe@about", "a11y-axe@home", "a11y-axe@sent"] if variant == "titles" else []
    assert others == axe, others


async def test_a_trap_ends_the_walk_at_once(reports: dict[str, VerifyReport]) -> None:
    """A trap costs the walk two key presses, not its bound: the walk stops at it."""
    home = reports["trap"].a11y["home"]
    assert home.focus_end == "trap" and [t.element for t in home.traps] == ["input#coupon"]
    assert home.focus[-1].element == "input#coupon" and len(home.focus) == 3
    assert reports["trap-blur"].a11y["home"].focus_end == "trap"


async def test_a_shift_tab_trap_is_recorded_and_the_walk_goes_on(
    task: TaskPackage, reports: dict[str, VerifyReport]
) -> None:
    """Tab leaves a control that only Shift+Tab cannot: the walk records it and goes round
    the whole page as R0's did. A control that cancels Shift+Tab but moves the focus
    itself is left: no trap, no key pressed for nothing, the same walk as R0's."""
    r0 = [f.element for f in reports["r0"].a11y["home"].focus]
    shift = reports["trap-shift"].a11y["home"]
    assert [(t.element, t.keys) for t in shift.traps] == [("input#coupon", "Shift+Tab")]
    assert [f.element for f in shift.focus] == r0 and shift.focus_end == "cycle"
    moves = reports["shift-moves"].a11y["home"]
    assert moves.traps == () and [f.element for f in moves.focus] == r0
    got = _against(task, reports, "shift-moves")
    assert all(c.passed for c in got.values()), [c.message for c in got.values() if not c.passed]


async def test_the_unbroken_site_passes_every_rule(
    task: TaskPackage, reports: dict[str, VerifyReport]
) -> None:
    got = _against(task, reports, "ok")
    assert all(c.passed for c in got.values()), [c.message for c in got.values() if not c.passed]
    kinds = {c.id.split("@")[0] for c in got.values()}
    assert {"a11y-trap", "a11y-title", "a11y-announce"} <= kinds
    # The status line is another element now, found by its text and by its kind.
    assert [r.region for r in reports["ok"].a11y["sent"].regions] == ["div.note"]


async def test_debt_r0_already_had_is_not_charged(
    task: TaskPackage, reports: dict[str, VerifyReport]
) -> None:
    debt = _against(task, reports, "debt-final", r0="debt-r0")
    assert debt and all(c.passed for c in debt.values()), [c.message for c in debt.values()]
    # The same final against a clean R0: all three are real regressions there.
    fresh = _against(task, reports, "debt-final")
    failed = {c.id for c in fresh.values() if not c.passed}
    assert {"a11y-trap@home", "a11y-title@home", "a11y-announce@home"} <= failed


async def test_the_site_s_own_world_cannot_forge_the_probes(
    task: TaskPackage, reports: dict[str, VerifyReport]
) -> None:
    got = _against(task, reports, "forged")
    failed = {c.id for c in got.values() if not c.passed}
    assert {"a11y-trap@home", "a11y-title@home", "a11y-announce@sent"} <= failed, failed
    snap = reports["forged"].a11y["home"]
    assert (snap.title, snap.lang, snap.regions) == ("Studio", "", ())


async def test_control_the_forgeries_are_live_in_the_main_world(
    pool: BrowserPool, rules_url: str
) -> None:
    """What the site's own world would tell a main-world probe, against what the isolated
    world reads: the test above fails if a probe goes back to the main world."""

    async def job(session: BrowserSession) -> tuple[dict[str, Any], Announced]:
        page = session.page
        await page.goto(f"{rules_url}/forged/index.html")
        main = await page.evaluate(
            """() => ({
              title: document.title,
              lang: document.documentElement.getAttribute('lang'),
              role: document.querySelector('#status').getAttribute('role'),
              observer: String(MutationObserver).startsWith('class'),
            })"""
        )
        return main, await announced(page, Listener(page), rules_url)

    main, read = await pool.run(rules_url, Viewport(width=1280, height=800), job)
    assert main == {
        "title": "Forged /forged/index.html",
        "lang": "en",
        "role": "status",
        "observer": True,
    }
    assert (read.title, read.lang, read.regions, read.error) == ("Studio", "", (), "")


async def test_frames_components_and_modal_dialogs_are_not_taken_for_traps(
    pool: BrowserPool, rules_url: str, tmp_path: Path
) -> None:
    """Tab inside an iframe or a shadow root moves while the document's active element
    stays the frame or the host: no trap, and the walk goes on to the last button."""
    h1 = {**CHECKS[0], "state": "w", "assert": {"kind": "exists", "selector": "h1"}}
    states = [
        {"id": "w", "route": "/widgets/index.html"},
        {"id": "m", "route": "/widgets/modal.html"},
    ]
    report = await verify(pool, make_task(tmp_path, states, [h1]), rules_url, a11y=True)
    snap = report.a11y["w"]
    assert not snap.focus_error and snap.traps == (), snap.traps
    names = [f.element for f in snap.focus]
    assert names[0] == "a#first" and names[-1] == "button#last", names
    assert snap.focus_end in ("body", "cycle"), snap.focus_end
    # A modal dialog's only control that keeps the focus is recorded as modal.
    assert [(t.element, t.modal) for t in report.a11y["m"].traps] == [("button#close", True)]
