"""Every one of the 19 gates: a case that passes and a mutation that fails.

One contract holds every case (distinct state ids), verified once per module so the
whole file costs one replay per state.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from orchestrator.contract import GATES
from orchestrator.records import VerifyReport
from orchestrator.verifier import BrowserPool, RunHealth, capture, verify

from .conftest import check, make_task

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

CLICK_CHIP = [{"do": "click", "selector": "#chip-red"}]
REMEMBER = [{"do": "click", "selector": "#remember"}]


def st(sid: str, route: str, **extra: Any) -> dict[str, Any]:
    return {"id": sid, "route": route, **extra}


STATES = [
    st("home", "/index.html"),
    st("home_m", "/index.html", viewport="mobile"),
    st("dom_bad", "/dom-bad.html"),
    st("text_bad", "/moved.html"),
    st("shop", "/shop.html"),
    st("shop_red", "/shop.html", **{"from": "shop"}, actions=CLICK_CHIP),
    st("inert", "/shop-inert.html"),
    st("inert_red", "/shop-inert.html", **{"from": "inert"}, actions=CLICK_CHIP),
    st("url_only", "/shop-url.html"),
    st("url_only_red", "/shop-url.html", **{"from": "url_only"}, actions=CLICK_CHIP),
    st("goto_only", "/shop-url.html", actions=[{"do": "goto", "route": "/shop-url.html"}]),
    st("a11y_bad", "/a11y-bad.html"),
    st("reordered", "/reordered.html"),
    st("moved", "/moved.html"),
    st("token_literal", "/token-literal.html"),
    st("token_same", "/token-same-literal.html"),
    st("wide_d", "/wide.html"),
    st("wide_m", "/wide.html", viewport="mobile"),
    st("uncontained_m", "/uncontained.html", viewport="mobile"),
    st("remember", "/index.html", actions=REMEMBER),
    st("remember_bad", "/storage-bad.html", actions=REMEMBER),
    st("nav_bad", "/nav-bad.html"),
    st("blank", "/blank.html"),
    st("missing", "/nope.html"),
    st("missing_kept", "/nope.html", status=404),  # a not-found page must keep its 404
    st("found_not_404", "/index.html", status=404),
    st("err_noclick", "/click-error.html"),
    st("err_click", "/click-error.html", actions=REMEMBER),
    st("fetch404", "/fetch404.html"),
    st("script404", "/script404.html"),
    st("broken_img", "/broken-img.html"),
    st("third_party", "/third-party.html"),
    st("vis_good", "/index.html"),
    st("vis_bad", "/visual-bad.html"),
    st("vis_mask", "/dynamic.html"),
    st("vis_missing", "/index.html"),
]

FILTERED = {"kind": "text_equals", "selector": "#result", "value": "2 items"}
TOKEN = {"kind": "token", "selector": ".buy", "property": "color", "token": "--brand"}
LINKS = {
    "kind": "links",
    "selector": "#main-nav",
    "entries": [{"text": "Home", "href": "/index.html"}, {"text": "Shop", "href": "/shop.html"}],
}
ORDER = {"kind": "text_order", "selector": "#features li", "values": ["Alpha", "Beta", "Gamma"]}
VISUAL = {"kind": "visual", "threshold": 0.002}


def authored(h1_box: dict[str, float]) -> list[dict[str, Any]]:
    box = {"kind": "box", "selector": "h1", "x": h1_box["x"], "y": h1_box["y"]}
    interaction = {"changed_from": "", "require_interaction": True}
    pairs: list[tuple[str, str, list[str], dict[str, Any], dict[str, Any]]] = [
        ("dom", "dom", ["home", "dom_bad"], {"kind": "visible", "selector": "#tagline"}, {}),
        (
            "text",
            "text",
            ["home", "text_bad"],
            {"kind": "text_equals", "selector": "h1", "value": "Acme Tools"},
            {},
        ),
        (
            "interaction",
            "interaction",
            ["shop_red", "inert_red", "url_only_red", "goto_only"],
            FILTERED,
            interaction,
        ),
        (
            "a11y",
            "a11y",
            ["home", "a11y_bad"],
            {"kind": "role", "role": "button", "name": "Add to cart"},
            {},
        ),
        ("order", "regression_text", ["home", "reordered"], ORDER, {}),
        ("anchor", "visual_anchors", ["home", "moved"], box, {}),
        ("token", "design_tokens", ["home", "token_literal", "token_same"], TOKEN, {}),
        (
            "contained",
            "containment",
            ["home_m", "uncontained_m"],
            {"kind": "contained", "selector": "main, #pop"},
            {},
        ),
        (
            "storage",
            "state_artifacts",
            ["remember", "remember_bad"],
            {"kind": "storage", "key": "seen", "equals": "yes"},
            {},
        ),
        ("nav", "navigation", ["home", "nav_bad"], LINKS, {}),
        ("visual", "visual_regression", ["vis_good", "vis_bad", "vis_missing"], VISUAL, {}),
    ]
    out = []
    for name, gate, states, assertion, extra in pairs:
        for sid in states:
            opts = dict(extra)
            if "changed_from" in opts:
                opts["changed_from"] = sid.removesuffix("_red") if sid.endswith("_red") else "shop"
            out.append(check(f"{name}:{sid}", gate, sid, **assertion, **opts))
    out.append(
        check(
            "outline_only:inert_red",
            "interaction",
            "inert_red",
            kind="exists",
            selector=".chip.active",
            changed_from="inert",
        )
    )
    out.append(
        check(
            "cookie:remember",
            "state_artifacts",
            "remember",
            kind="cookie",
            name="pref",
            equals="dark",
        )
    )
    out.append(
        check(
            "visual:vis_mask",
            "visual_regression",
            "vis_mask",
            kind="visual",
            threshold=0.0,
            masks=["#clock"],
        )
    )
    return out


@pytest.fixture(scope="module")
async def report(
    pool: BrowserPool, site_url: str, tmp_path_factory: pytest.TempPathFactory
) -> VerifyReport:
    root = tmp_path_factory.mktemp("task")
    # Freeze the reference renders and anchors from the unmodified page first.
    ref_states = [
        st("vis_good", "/index.html"),
        st("vis_bad", "/index.html"),
        st("vis_mask", "/dynamic.html"),
        st("home", "/index.html"),
    ]
    ref_task = make_task(
        root, ref_states, [check("x", "dom", "home", kind="exists", selector="h1")]
    )
    await capture(pool, ref_task, site_url, root / "evidence" / "reference")
    anchors = json.loads((root / "evidence/reference/home.anchors.json").read_text())
    h1 = next(a for a in anchors["anchors"] if a["tag"] == "h1")["box"]
    task = make_task(root, STATES, authored(h1))
    return await verify(pool, task, site_url, artifacts=root / "artifacts")


PASS, FAIL = True, False
AUTHORED_CASES = [
    ("dom:home", PASS),
    ("dom:dom_bad", FAIL),
    ("text:home", PASS),
    ("text:text_bad", FAIL),
    ("interaction:shop_red", PASS),
    ("interaction:inert_red", FAIL),  # chip gets an outline, list unchanged
    ("outline_only:inert_red", FAIL),  # cosmetic change is not a changed state
    ("interaction:url_only_red", FAIL),  # already filtered on load: reached by URL
    ("interaction:goto_only", FAIL),  # no interactive action in the prefix
    ("a11y:home", PASS),
    ("a11y:a11y_bad", FAIL),
    ("order:home", PASS),
    ("order:reordered", FAIL),
    ("anchor:home", PASS),
    ("anchor:moved", FAIL),
    ("token:home", PASS),
    ("token:token_literal", FAIL),
    ("token:token_same", FAIL),  # same value, but does not follow the token
    ("contained:home_m", PASS),
    ("contained:uncontained_m", FAIL),
    ("storage:remember", PASS),
    ("storage:remember_bad", FAIL),
    ("cookie:remember", PASS),
    ("nav:home", PASS),
    ("nav:nav_bad", FAIL),
    ("visual:vis_good", PASS),
    ("visual:vis_mask", PASS),
    ("visual:vis_bad", FAIL),
    ("visual:vis_missing", FAIL),
]
HEALTH_CASES = [
    ("layout_overflow@wide_d", PASS),
    ("layout_overflow@wide_m", FAIL),
    ("layout_overflow@home_m", PASS),
    ("routes@home", PASS),
    ("routes@blank", FAIL),
    ("routes@missing", FAIL),
    ("routes@missing_kept", PASS),
    ("routes@found_not_404", FAIL),
    ("console@err_noclick", PASS),
    ("console@err_click", FAIL),
    ("network@home", PASS),
    ("network@fetch404", PASS),  # a 404 to the page's own fetch is its application's answer
    ("network@script404", FAIL),  # a 4xx subresource
    ("network@third_party", PASS),
    ("assets@home", PASS),
    ("assets@broken_img", FAIL),
    ("assets@third_party", PASS),
    ("console@third_party", PASS),
]


@pytest.mark.parametrize(("check_id", "expected"), AUTHORED_CASES + HEALTH_CASES)
async def test_case(report: VerifyReport, check_id: str, expected: bool) -> None:
    result = report.check(check_id)
    assert result is not None, check_id
    assert result.passed is expected, result.message


async def test_messages_are_grounded(report: VerifyReport) -> None:
    r = report.check("interaction:inert_red")
    assert r is not None
    assert "/shop-inert.html at 1280x800 after click '#chip-red'" in r.message
    assert "identical to state 'inert'" in r.observed
    console = report.check("console@err_click")
    assert console is not None and "[action 1: click '#remember'] " in console.observed
    missing = report.check("visual:vis_missing")
    assert missing is not None and "capture" in missing.observed


async def test_every_gate_is_graded(report: VerifyReport) -> None:
    statuses = {g.gate: g.status for g in report.gates}
    assert statuses["build"] == statuses["serve"] == statuses["scope"] == "pass"
    # Every browser gate has a failing mutation in this contract.
    assert {g for g, s in statuses.items() if s == "fail"} == set(GATES) - {
        "build",
        "serve",
        "scope",
    }


async def test_screenshots_are_artifacts(report: VerifyReport) -> None:
    runs = {r.state: r for r in report.states}
    assert runs["home"].screenshot == "states/home.png"
    assert "home_m" in runs and runs["home_m"].viewport == "mobile"
    assert "shop_red~bare" in runs  # the bare replay behind require_interaction


@pytest.mark.parametrize(
    ("health", "gate"),
    [
        (RunHealth(build_ok=False, build_detail="npm ERR! missing script"), "build"),
        (RunHealth(scope_violations=("../etc/passwd",)), "scope"),
    ],
)
async def test_run_health_gates(
    pool: BrowserPool, site_url: str, tmp_path: Path, health: RunHealth, gate: str
) -> None:
    task = make_task(
        tmp_path,
        [st("home", "/index.html")],
        [check("h1", "text", "home", kind="exists", selector="h1")],
    )
    good = await verify(pool, task, site_url, check_ids=[], states=[])
    bad = await verify(pool, task, site_url, check_ids=[], states=[], health=health)
    assert good.gate(gate).status == "pass"  # type: ignore[arg-type]
    assert bad.gate(gate).status == "fail"  # type: ignore[arg-type]


async def test_serve_failure_fails_every_check_without_a_browser(
    pool: BrowserPool, site_url: str, tmp_path: Path
) -> None:
    task = make_task(
        tmp_path,
        [st("home", "/index.html")],
        [check("h1", "text", "home", kind="exists", selector="h1")],
    )
    health = RunHealth(serve_ok=False, serve_detail="not ready after 60 s")
    rep = await verify(pool, task, site_url, health=health)
    assert rep.gate("serve").status == "fail"
    h1 = rep.check("h1")
    assert h1 is not None and not h1.passed and "not ready after 60 s" in h1.observed
    assert rep.states == () and rep.gate("routes").status == "n/a"
