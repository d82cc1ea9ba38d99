"""The health gates' pure evaluators and the visual diff, without a browser (issue #18).

The browser tests (tests/verifier) check that Chromium observes what these functions
judge; these check the judging: every status class, every empty/non-empty list, every
applicability rule, and the visual threshold, in milliseconds."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.contract import GATES, STATE_HEALTH_GATES, Visual
from orchestrator.records import CheckResult
from orchestrator.verifier._core import _gates as _gates
from orchestrator.verifier._core._health import RunHealth
from orchestrator.verifier._core._observe import PageHealth, StateObservation
from orchestrator.verifier._replay import _visual as _visual
from tests.fixtures.pngs import png


def _obs(**kw: object) -> StateObservation:
    base: dict[str, object] = {"state": "home", "status": 200}
    return StateObservation(**(base | kw))  # type: ignore[arg-type]


def _by_gate(checks: list[CheckResult]) -> dict[str, CheckResult]:
    return {c.gate: c for c in checks}


# ------------------------------------------------------------------ routes


@pytest.mark.parametrize("status", [200, 201, 204, 299])
def test_routes_gate_passes_on_2xx(status: int) -> None:
    c = _by_gate(_gates.state_health(_obs(status=status), "home"))["routes"]
    assert c.passed and c.applicable and c.observed == f"status {status}"


@pytest.mark.parametrize("status", [300, 301, 302, 304, 307, 399])
def test_routes_gate_fails_on_3xx(status: int) -> None:
    c = _by_gate(_gates.state_health(_obs(status=status), "home"))["routes"]
    assert not c.passed and c.applicable
    assert c.observed == f"document status {status}"


@pytest.mark.parametrize("status", [None, 100, 199, 400, 404, 500])
def test_routes_gate_fails_outside_2xx(status: int | None) -> None:
    c = _by_gate(_gates.state_health(_obs(status=status), "home"))["routes"]
    assert not c.passed and c.observed == f"document status {status}"


def test_routes_gate_fails_on_a_blank_page_with_a_2xx() -> None:
    c = _by_gate(_gates.state_health(_obs(health=PageHealth(blank=True)), "home"))["routes"]
    assert not c.passed and "rendered blank" in c.observed and "status 200" in c.observed


def test_routes_gate_with_an_expected_status_wants_exactly_that_status() -> None:
    ok = _by_gate(_gates.state_health(_obs(status=404), "home", expected_status=404))["routes"]
    assert ok.passed and "status 404" in ok.message
    bad = _by_gate(_gates.state_health(_obs(status=200), "home", expected_status=404))["routes"]
    assert not bad.passed and bad.observed == "document status 200, expected 404"
    assert "The route must answer with status 404." in bad.message
    blank = _gates.state_health(
        _obs(status=404, health=PageHealth(blank=True)), "home", expected_status=404
    )
    assert not _by_gate(blank)["routes"].passed


def test_unloaded_state_fails_routes_and_leaves_the_rest_not_applicable() -> None:
    for obs in (_obs(nav_error="net::ERR_CONNECTION_REFUSED"), _obs(error="browser crashed")):
        checks = _by_gate(_gates.state_health(obs, "home"))
        why = obs.nav_error or obs.error
        assert not checks["routes"].passed and checks["routes"].applicable
        assert checks["routes"].observed == why
        for gate in STATE_HEALTH_GATES - {"routes"}:
            c = checks[gate]
            assert not c.applicable and not c.passed
            assert c.observed == f"not applicable: the state did not load ({why})"


# ------------------------------------------------------------------ state health


def test_layout_overflow_fails_when_the_page_scrolls_horizontally() -> None:
    wide = PageHealth(scroll_width=1400, client_width=1280, overflow=True)
    c = _by_gate(_gates.state_health(_obs(health=wide), "home"))["layout_overflow"]
    assert not c.passed and c.applicable
    assert c.observed == "scrollWidth 1400 vs clientWidth 1280"
    fits = PageHealth(scroll_width=1280, client_width=1280)
    assert _by_gate(_gates.state_health(_obs(health=fits), "home"))["layout_overflow"].passed
    cut = PageHealth(scroll_width=1280, client_width=1280, clipped=("h1",))
    c = _by_gate(_gates.state_health(_obs(health=cut), "home"))["layout_overflow"]
    assert not c.passed and c.observed == "scrollWidth 1280 vs clientWidth 1280; cut off: h1"


def test_console_network_assets_fail_on_any_entry() -> None:
    clean = _by_gate(_gates.state_health(_obs(), "home"))
    assert all(c.passed and c.applicable for c in clean.values())
    assert clean["console"].observed == "no errors"
    assert clean["network"].observed == "no failures"
    assert clean["assets"].observed == "all loaded"
    dirty = _by_gate(
        _gates.state_health(
            _obs(
                console_errors=("TypeError: x",),
                failed_requests=("GET /api 500",),
                failed_assets=("img a.png 404",),
            ),
            "home",
        )
    )
    assert not dirty["console"].passed and dirty["console"].observed == "TypeError: x"
    assert not dirty["network"].passed and dirty["network"].observed == "GET /api 500"
    assert not dirty["assets"].passed and dirty["assets"].observed == "img a.png 404"
    assert dirty["routes"].passed and dirty["layout_overflow"].passed


def test_broken_image_counts_once_when_its_request_already_failed() -> None:
    health = PageHealth(broken_images=("./img/a.png", "img/b.png"))
    obs = _obs(failed_assets=("img img/a.png: 404",), health=health)
    c = _by_gate(_gates.state_health(obs, "home"))["assets"]
    assert not c.passed
    assert c.observed == "img img/a.png: 404; img img/b.png: loaded but decoded to nothing"
    only_broken = _by_gate(_gates.state_health(_obs(health=health), "home"))["assets"]
    assert only_broken.observed.count("decoded to nothing") == 2
    # Only a leading "./" is dropped before matching, not other leading characters.
    other = _obs(failed_assets=("img a.png: 404",), health=PageHealth(broken_images=("Xa.png",)))
    got = _by_gate(_gates.state_health(other, "home"))["assets"].observed
    assert got == "img a.png: 404; img Xa.png: loaded but decoded to nothing"


def test_state_health_ids_states_and_grounded_messages() -> None:
    checks = _gates.state_health(_obs(state="cart"), "route /cart at desktop")
    assert [c.gate for c in checks] == [
        "layout_overflow",
        "routes",
        "console",
        "network",
        "assets",
    ]
    for c in checks:
        assert c.id == f"{c.gate}@cart" and c.state == "cart" and c.authored is False
        assert c.message == (
            f"{_gates.HEALTH_DESCRIBE[c.gate]} — route /cart at desktop; observed: {c.observed}"
        )


def test_listed_shows_five_and_counts_the_rest() -> None:
    assert _gates._listed([]) == ""
    assert _gates._listed(["a", "b"]) == "a; b"
    assert _gates._listed([str(i) for i in range(5)]) == "0; 1; 2; 3; 4"
    assert _gates._listed([str(i) for i in range(7)]) == "0; 1; 2; 3; 4 (+2 more)"
    assert _gates._listed(["a", "b", "c"], limit=2) == "a; b (+1 more)"


# ------------------------------------------------------------------ run health


def test_build_gate_fails_when_the_build_fails() -> None:
    c = _by_gate(_gates.run_health(RunHealth(build_ok=False, build_detail="exit 2")))["build"]
    assert not c.passed and c.applicable and c.observed == "exit 2" and c.id == "build@run"
    bare = _by_gate(_gates.run_health(RunHealth(build_ok=False)))["build"]
    assert not bare.passed and bare.observed == "failed"
    # A stack without a build step still reports a failed install as a failure.
    moot = RunHealth(build_ok=False, build_applicable=False)
    c = _by_gate(_gates.run_health(moot))["build"]
    assert not c.passed and c.applicable
    ok = _by_gate(_gates.run_health(RunHealth()))["build"]
    assert ok.passed and ok.applicable and ok.observed == "ok"


def test_serve_gate_fails_when_the_server_is_down() -> None:
    c = _by_gate(_gates.run_health(RunHealth(serve_ok=False, serve_detail="timeout")))["serve"]
    assert not c.passed and c.applicable and c.observed == "timeout"
    assert _by_gate(_gates.run_health(RunHealth(serve_ok=False)))["serve"].observed == "down"
    moot = RunHealth(serve_ok=False, serve_applicable=False)
    assert not _by_gate(_gates.run_health(moot))["serve"].passed
    assert _by_gate(_gates.run_health(moot))["serve"].applicable
    assert _by_gate(_gates.run_health(RunHealth()))["serve"].observed == "ready"


def test_build_and_serve_that_cannot_fail_are_not_applicable() -> None:
    checks = _by_gate(_gates.run_health(RunHealth(build_applicable=False, serve_applicable=False)))
    for gate, why in (("build", "no install or build"), ("serve", "static file server")):
        c = checks[gate]
        assert not c.applicable and not c.passed
        assert c.observed.startswith("not applicable:") and why in c.observed
        assert c.observed in c.message
    assert checks["scope"].applicable and checks["scope"].passed


def test_run_health_checks_are_grounded_health_checks_on_the_run() -> None:
    for h in (RunHealth(), RunHealth(build_applicable=False, serve_applicable=False)):
        for c in _gates.run_health(h):
            assert c.id == f"{c.gate}@run" and c.state == "run" and c.authored is False
            assert c.message == (
                f"{_gates.HEALTH_DESCRIBE[c.gate]} — the whole run; observed: {c.observed}"
            )


def test_scope_gate_fails_on_a_path_outside_allowed_paths() -> None:
    c = _by_gate(_gates.run_health(RunHealth(scope_violations=("server.js", "x.py"))))["scope"]
    assert not c.passed and c.observed == "server.js; x.py" and c.state == "run"
    ok = _by_gate(_gates.run_health(RunHealth()))["scope"]
    assert ok.passed and ok.observed == "no path outside allowed_paths"
    assert "the whole run" in ok.message


# ------------------------------------------------------------------ gate verdicts


def _check(cid: str, gate: str, passed: bool, applicable: bool = True) -> CheckResult:
    return CheckResult(id=cid, gate=gate, state="s", passed=passed, applicable=applicable)  # type: ignore[arg-type]


def test_gates_report_fail_when_one_check_fails() -> None:
    got = {
        g.gate: g
        for g in _gates.gate_results(
            [
                _check("d1", "dom", True),
                _check("d2", "dom", False),
                _check("d3", "dom", False),
                _check("t1", "text", True),
                _check("r1", "routes", False, applicable=False),
                _check("a1", "a11y", True, applicable=False),
            ]
        )
    }
    assert [g for g in got] == list(GATES)
    assert got["dom"].status == "fail" and got["dom"].failed_checks == ("d2", "d3")
    assert got["text"].status == "pass" and got["text"].failed_checks == ()
    assert got["routes"].status == "n/a"  # its only check was not applicable
    assert got["a11y"].status == "n/a"
    assert got["console"].status == "n/a" and got["console"].failed_checks == ()


# ------------------------------------------------------------------ visual diff


@pytest.fixture
def reference(tmp_path: Path) -> Path:
    ref = tmp_path / "home.png"
    ref.write_bytes(png(100, 100, []))
    return ref


def test_visual_check_fails_above_the_default_threshold(reference: Path) -> None:
    v = Visual()
    assert v.threshold == 0.01 and v.pixel_tolerance == 24
    # 20x10 black pixels = 2% of the page: twice the 1% threshold, far below 50%.
    got = _visual.compare(
        png(100, 100, [(10, 30, 20, 10, (0, 0, 0))]), reference, [], v.threshold, 24
    )
    assert got.passed is False and got.region == (10, 30, 20, 10)
    assert got.observed == "2.00% of pixels differ (threshold 1.00%), inside 20x10 at (10, 30)"


def test_visual_check_passes_at_or_below_the_threshold(reference: Path) -> None:
    one = png(100, 100, [(0, 0, 10, 10, (0, 0, 0))])  # exactly 1%
    got = _visual.compare(one, reference, [], 0.01, 24)
    assert got.passed and got.region is None
    assert got.observed == "1.00% of pixels differ (threshold 1.00%)"
    same = _visual.compare(reference.read_bytes(), reference, [], 0.0, 0)
    assert same.passed and same.observed.startswith("0.00% of pixels differ")
    assert _visual.diff_region(reference.read_bytes(), reference, [], 0) == (0.0, None)


def test_visual_pixel_tolerance_is_per_channel_and_strict(reference: Path) -> None:
    near = png(100, 100, [(0, 0, 50, 50, (231, 255, 255))])  # 24 off on one channel
    assert _visual.diff_region(near, reference, [], 24) == (0.0, None)
    got = _visual.diff_region(near, reference, [], 23)
    assert not isinstance(got, str), got  # a string: why the images cannot be compared
    frac, box = got
    assert frac == pytest.approx(0.25) and box == (0, 0, 50, 50)
    dark = png(100, 100, [(0, 0, 50, 50, (255, 255, 200))])  # last channel differs
    assert _visual.diff_region(dark, reference, [], 24) == (0.25, (0, 0, 50, 50))


def test_visual_masks_are_painted_on_both_images(reference: Path) -> None:
    cur = png(100, 100, [(10, 10, 20, 20, (0, 0, 0)), (90, 90, 5, 5, (0, 0, 0))])
    got = _visual.diff_region(cur, reference, [(9.5, 9.5, 21.0, 21.0)], 24)
    assert got == (0.0025, (90, 90, 5, 5))
    # A mask partly off the image is clipped, not an error; an empty one paints nothing.
    assert _visual.diff_region(cur, reference, [(-50, -50, 1000, 1000)], 24) == (0.0, None)
    assert _visual.diff_region(cur, reference, [(10, 10, 0, 0)], 24) != (0.0, None)


def test_visual_masks_reach_the_first_row_and_column(reference: Path) -> None:
    cur = png(100, 100, [(0, 0, 10, 10, (0, 0, 0))])
    assert _visual.diff_region(cur, reference, [(0, 0, 10, 10)], 24) == (0.0, None)
    assert _visual.diff_region(cur, reference, [(0, 0, 10, 9)], 24) == (0.001, (0, 9, 10, 1))
    assert _visual.diff_region(cur, reference, [(0, 0, 9, 10)], 24) == (0.001, (9, 0, 1, 10))


def test_visual_compares_colours_whatever_the_image_mode(tmp_path: Path) -> None:
    from PIL import Image

    rgba = tmp_path / "rgba.png"
    Image.new("RGBA", (20, 20), (255, 255, 255, 255)).save(rgba)
    assert _visual.diff_region(png(20, 20, []), rgba, [], 0) == (0.0, None)


def test_visual_size_mismatch_and_missing_reference_fail(reference: Path) -> None:
    got = _visual.compare(png(120, 90, []), reference, [], 0.5, 24)
    assert got.passed is False and got.observed == "size 120x90 vs reference 100x100"
    wide = reference.with_name("wide.png")
    wide.write_bytes(png(100, 60, []))
    assert _visual.compare(png(100, 100, []), wide, [], 0.5, 24).observed == (
        "size 100x100 vs reference 100x60"
    )
    missing = _visual.compare(png(100, 100, []), reference.with_name("x.png"), [], 0.5, 24)
    assert missing.passed is False and "no reference render at" in missing.observed
    assert "capture" in missing.observed


def test_a_gate_without_an_applicable_check_is_na_with_the_first_reason() -> None:
    why = "not applicable: the stack has no install or build command"
    checks = [
        CheckResult(
            id="build", gate="build", state="", passed=False, applicable=False, observed=why
        ),
        CheckResult(
            id="b2", gate="build", state="", passed=False, applicable=False, observed="2nd"
        ),
        CheckResult(id="t", gate="text", state="home", passed=True, observed="seen"),
    ]
    gates = {g.gate: g for g in _gates.gate_results(checks)}
    assert (gates["build"].status, gates["build"].reason) == ("n/a", why)
    # A gate that ran has no reason; a gate with no check at all is n/a without one.
    assert (gates["text"].status, gates["text"].reason) == ("pass", "")
    assert (gates["dom"].status, gates["dom"].reason) == ("n/a", "")
