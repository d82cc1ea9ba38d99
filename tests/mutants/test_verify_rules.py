"""`verifier._verify.verify` without a browser (issue #35): the rules between the replays
and the report — which states are replayed and how, `require_interaction` and
`changed_from`, a server that never came up, host-side retries, crashed replays,
environment drift and the state runs — against observations we choose.

The pool runs each replay on no page at all: `replay_shared` is replaced by a script
that answers each job with the observation the test wrote for its key (`pool`, of
`tests/mutants/conftest.py` and `tests/fixtures/verifypool.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from orchestrator.contract import TaskPackage
from orchestrator.verifier import RunHealth
from orchestrator.verifier._core._errors import (
    BrowserCrashed,
    EnvironmentDrift,
    ReplayError,
    VerifierError,
)
from orchestrator.verifier._core._observe import Outcome, StateObservation
from orchestrator.verifier._replay._drive import ReplayOptions
from orchestrator.verifier._replay._state import StateJob
from orchestrator.verifier._reuse._opens import Reads
from orchestrator.verifier._verify import _jobs
from orchestrator.verifier._verify import _run as _verify
from tests.fixtures.verifypool import Pool, verify_task
from tests.verifier.conftest import check, make_task

pytestmark = pytest.mark.anyio


def _obs(state: str, fingerprint: str = "", **outcomes: bool) -> StateObservation:
    return StateObservation(
        state=state,
        status=200,
        fingerprint=fingerprint,
        outcomes={
            k.replace("_", "-"): Outcome(passed=v, observed=f"saw {k}") for k, v in outcomes.items()
        },
    )


def _task(tmp: Path) -> TaskPackage:
    states: list[dict[str, Any]] = [
        {"id": "home", "route": "/"},
        {"id": "menu", "route": "/", "actions": [{"do": "click", "selector": "#open"}]},
        {"id": "about", "route": "/about", "viewport": "mobile"},
        {"id": "plain", "route": "/plain"},
    ]
    checks = [
        check("title", "text", "home", kind="text_equals", selector="h1", value="Hi"),
        check("items", "dom", "home", kind="exists", selector="li"),
        check(
            "menu-open",
            "interaction",
            "menu",
            kind="visible",
            selector="#menu",
            require_interaction=True,
        ),
        check("about-text", "text", "about", kind="exists", selector="p", changed_from="home"),
        check(
            "plain-click",
            "interaction",
            "plain",
            kind="visible",
            selector="#x",
            require_interaction=True,
        ),
    ]
    return make_task(tmp, states, checks)


# ---------------------------------------------------------------- what is replayed


async def test_every_state_is_replayed_once_and_every_check_evaluated(
    tmp_path: Path, pool: Pool
) -> None:
    task = _task(tmp_path)
    report, checks = await verify_task(pool, task, artifacts=tmp_path / "art")
    keys = sorted(j.key for j in pool.replays)
    assert keys == ["about", "home", "menu", "menu~bare", "plain", "plain~bare"]
    assert (tmp_path / "art" / "states").is_dir()
    assert checks["title"].passed and checks["items"].passed
    assert (
        checks["title"].message
        == "title — state 'home': / at 1280x800 after no actions; observed: ok"
    )
    assert checks["title"].observed == "ok" and checks["title"].region is None
    # Health of every state: five per state.
    assert {c.id for c in report.checks if c.state == "home"} >= {
        "routes@home",
        "console@home",
    }
    assert all(c.passed for c in report.checks if c.state == "run")
    assert [g.gate for g in report.gates if g.status == "fail"] == ["interaction"]
    assert all(base == "http://site.test" for base, _, _ in pool.runs)
    assert all(warm is None for _, _, warm in pool.runs)


async def test_only_the_states_of_the_requested_checks_and_named_states(
    tmp_path: Path, pool: Pool
) -> None:
    task = _task(tmp_path)
    report, checks = await verify_task(pool, task, check_ids=["items"], states=["plain"])
    assert sorted(j.key for j in pool.replays) == ["home", "plain"]
    assert set(checks) == {
        "build@run",
        "serve@run",
        "scope@run",
        "items",
        *(f"{g}@{s}" for s in ("home", "plain") for g in _HEALTH),
    }
    # A state needed only for health runs no check.
    (plain,) = [j for j in pool.replays if j.key == "plain"]
    assert plain.checks == ()
    assert [s.state for s in report.states] == ["home", "plain"]


_HEALTH = ("routes", "layout_overflow", "console", "network", "assets")


async def test_only_named_states_when_no_check_is_requested(tmp_path: Path, pool: Pool) -> None:
    task = _task(tmp_path)
    _, checks = await verify_task(pool, task, check_ids=[], states=["about"])
    assert [j.key for j in pool.replays] == ["about"]
    assert {c for c in checks if "@" not in c} == set()


async def test_an_unknown_check_id_is_refused(tmp_path: Path, pool: Pool) -> None:
    with pytest.raises(VerifierError, match=r"t: unknown check id\(s\) \['nope', 'zzz'\]"):
        await verify_task(pool, _task(tmp_path), check_ids=["zzz", "items", "nope"])


async def test_checks_come_in_contract_order(tmp_path: Path, pool: Pool) -> None:
    task = _task(tmp_path)
    report, _ = await verify_task(pool, task, check_ids=["about-text", "title"])
    authored = [c.id for c in report.checks if c.authored]
    assert authored == ["title", "about-text"]


async def test_a_viewport_is_passed_to_the_pool_and_labelled(tmp_path: Path, pool: Pool) -> None:
    task = _task(tmp_path)
    report, _ = await verify_task(pool, task, check_ids=["about-text"])
    sizes = sorted((v.width, v.height) for _, v, _ in pool.runs)
    assert sizes == [(390, 844), (1280, 800)]
    by_state = {s.state: s for s in report.states}
    assert by_state["about"].viewport == "mobile" and by_state["about"].route == "/about"
    assert by_state["home"].viewport == "desktop"


# ---------------------------------------------------------------- require_interaction


async def test_the_bare_replay_has_no_actions_settle_or_screenshot(
    tmp_path: Path, pool: Pool
) -> None:
    task = _task(tmp_path)
    await verify_task(pool, task, check_ids=["menu-open"], artifacts=tmp_path / "a")
    jobs = {j.key: j for j in pool.replays}
    menu, bare = jobs["menu"], jobs["menu~bare"]
    assert len(menu.actions) == 1 and menu.artifacts == tmp_path / "a"
    assert menu.use_settle_selector is True
    assert bare.actions == () and bare.artifacts is None
    assert bare.use_settle_selector is False and bare.fingerprint is False
    assert [c.id for c in bare.checks] == ["menu-open"]
    assert bare.state is menu.state and bare.base_url == menu.base_url


async def test_an_interaction_check_fails_when_the_bare_load_already_passes(
    tmp_path: Path, pool: Pool
) -> None:
    pool.script["menu~bare"] = [_obs("menu~bare", menu_open=True)]
    _, checks = await verify_task(pool, _task(tmp_path), check_ids=["menu-open"])
    c = checks["menu-open"]
    assert not c.passed
    assert c.observed == "ok; already true when / is loaded without any action"


async def test_an_interaction_check_passes_when_the_bare_load_does_not(
    tmp_path: Path, pool: Pool
) -> None:
    pool.script["menu~bare"] = [_obs("menu~bare", menu_open=False)]
    _, checks = await verify_task(pool, _task(tmp_path), check_ids=["menu-open"])
    assert checks["menu-open"].passed and checks["menu-open"].observed == "ok"


async def test_an_interaction_check_without_an_interactive_action_fails(
    tmp_path: Path, pool: Pool
) -> None:
    pool.script["plain~bare"] = [_obs("plain~bare", plain_click=False)]
    _, checks = await verify_task(pool, _task(tmp_path), check_ids=["plain-click"])
    c = checks["plain-click"]
    assert not c.passed
    assert c.observed == "ok; the state has no click/fill/press/hover/check/select in its actions"


async def test_a_failed_interaction_check_keeps_its_own_observation(
    tmp_path: Path, pool: Pool
) -> None:
    pool.script["menu"] = [_obs("menu", menu_open=False)]
    pool.script["menu~bare"] = [_obs("menu~bare", menu_open=False)]
    _, checks = await verify_task(pool, _task(tmp_path), check_ids=["menu-open"])
    assert not checks["menu-open"].passed and checks["menu-open"].observed == "saw menu_open"


# ---------------------------------------------------------------- changed_from


async def test_changed_from_compares_fingerprints(tmp_path: Path, pool: Pool) -> None:
    task = _task(tmp_path)
    _, checks = await verify_task(pool, task, check_ids=["about-text"])
    jobs = {j.key: j for j in pool.replays}
    assert jobs["home"].fingerprint and jobs["about"].fingerprint
    assert jobs["home"].checks == ()  # replayed only to be compared with
    c = checks["about-text"]
    assert c.passed and c.observed == "ok; content differs from state 'home'"


async def test_changed_from_fails_on_identical_content(tmp_path: Path, pool: Pool) -> None:
    pool.script["home"] = [_obs("home", "same")]
    pool.script["about"] = [_obs("about", "same", about_text=True)]
    _, checks = await verify_task(pool, _task(tmp_path), check_ids=["about-text"])
    c = checks["about-text"]
    assert not c.passed and c.observed == "saw about_text; content identical to state 'home'"


async def test_changed_from_fails_when_the_other_state_was_not_reached(
    tmp_path: Path, pool: Pool
) -> None:
    home = StateObservation(state="home", nav_error="net::ERR_CONNECTION_REFUSED")
    pool.script["home"] = [home]
    _, checks = await verify_task(pool, _task(tmp_path), check_ids=["about-text"])
    c = checks["about-text"]
    assert not c.passed
    assert c.observed == (
        "ok; cannot compare with state 'home': it was not reached (net::ERR_CONNECTION_REFUSED)"
    )


@pytest.mark.parametrize(
    ("home", "why"),
    [
        (StateObservation(state="home", error="crashed"), "crashed"),
        (StateObservation(state="home", action_error="click timed out"), "click timed out"),
    ],
)
async def test_the_reason_the_other_state_was_not_reached(
    tmp_path: Path, pool: Pool, home: StateObservation, why: str
) -> None:
    pool.script["home"] = [home]
    _, checks = await verify_task(pool, _task(tmp_path), check_ids=["about-text"])
    assert checks["about-text"].observed.endswith(f"it was not reached ({why})")


async def test_changed_from_fails_when_this_state_was_not_reached(
    tmp_path: Path, pool: Pool
) -> None:
    pool.script["about"] = [_obs("about", "", about_text=True)]
    _, checks = await verify_task(pool, _task(tmp_path), check_ids=["about-text"])
    c = checks["about-text"]
    assert not c.passed
    assert c.observed == "saw about_text; cannot compare: this state was not reached"


# ---------------------------------------------------------------- failures


async def test_a_check_without_an_outcome_fails_with_the_replay_error(
    tmp_path: Path, pool: Pool
) -> None:
    pool.script["home"] = [StateObservation(state="home", error="page crashed twice")]
    report, checks = await verify_task(pool, _task(tmp_path), check_ids=["title"])
    c = checks["title"]
    assert (c.passed, c.observed) == (False, "page crashed twice")
    (run,) = report.states
    assert run.error == "page crashed twice"


async def test_a_failed_outcome_keeps_its_region(tmp_path: Path, pool: Pool) -> None:
    shown = Outcome(passed=False, observed="2% differ", region=(1, 2, 3, 4))
    pool.script["home"] = [StateObservation(state="home", status=200, outcomes={"title": shown})]
    _, checks = await verify_task(pool, _task(tmp_path), check_ids=["title"])
    assert checks["title"].region == (1, 2, 3, 4)
    passed = Outcome(passed=True, observed="same", region=(1, 2, 3, 4))
    pool.script["home"] = [StateObservation(state="home", status=200, outcomes={"title": passed})]
    pool.replays.clear()
    _, checks = await verify_task(pool, _task(tmp_path), check_ids=["title"])
    assert checks["title"].region is None


@pytest.mark.parametrize("exc", [BrowserCrashed("chromium died"), ReplayError("no page")])
async def test_a_replay_that_cannot_run_fails_its_state_and_its_followers(
    tmp_path: Path, pool: Pool, exc: Exception
) -> None:
    states = [{"id": "a", "route": "/"}, {"id": "b", "route": "/"}, {"id": "c", "route": "/c"}]
    checks = [
        check("ca", "dom", "a", kind="exists", selector="h1"),
        check("cb", "dom", "b", kind="exists", selector="p"),
        check("cc", "dom", "c", kind="exists", selector="p"),
    ]
    pool.replay = "reuse"
    pool.script["a"] = [exc]
    report, found = await verify_task(pool, make_task(tmp_path, states, checks))
    assert pool.followers == [("a", ("b",)), ("c", ())]
    for cid, state in (("ca", "a"), ("cb", "b")):
        assert (found[cid].passed, found[cid].observed) == (False, str(exc))
        assert found[f"routes@{state}"].observed == str(exc)
    assert found["cc"].passed
    assert {s.state: s.error for s in report.states} == {"a": str(exc), "b": str(exc), "c": ""}


async def test_a_server_that_is_not_ready_fails_every_requested_check(
    tmp_path: Path, pool: Pool
) -> None:
    health = RunHealth(serve_ok=False, serve_detail="exited 1")
    report, checks = await verify_task(
        pool, _task(tmp_path), check_ids=["title", "items"], health=health
    )
    assert pool.replays == [] and report.states == ()
    assert [c.id for c in report.checks] == [
        "build@run",
        "serve@run",
        "scope@run",
        "title",
        "items",
    ]
    t = checks["title"]
    assert (t.passed, t.observed, t.state, t.gate) == (
        False,
        "server not ready: exited 1",
        "home",
        "text",
    )
    assert t.message == "title — state 'home'; observed: server not ready: exited 1"
    assert {g.gate: g.status for g in report.gates}["text"] == "fail"
    _, checks = await verify_task(
        pool, _task(tmp_path), check_ids=["title"], health=RunHealth(serve_ok=False)
    )
    assert checks["title"].observed == "server not ready: no detail"


# ---------------------------------------------------------------- host-side retries


async def test_a_network_change_on_the_host_replays_the_state_again(
    tmp_path: Path, pool: Pool
) -> None:
    changed = StateObservation(state="home", failed_requests=("GET / net::ERR_NETWORK_CHANGED",))
    pool.script["home"] = [changed, _obs("home", title=True)]
    _, checks = await verify_task(pool, _task(tmp_path), check_ids=["title"])
    assert [j.key for j in pool.replays] == ["home", "home"]
    assert checks["title"].passed and checks["network@home"].passed


@pytest.mark.parametrize(
    "field_", ["failed_requests", "failed_assets", "nav_error", "action_error"]
)
async def test_every_kind_of_network_change_is_the_hosts(
    tmp_path: Path, pool: Pool, field_: str
) -> None:
    text = "net::ERR_NETWORK_CHANGED at /app.js"
    value: Any = (text,) if field_.startswith("failed") else text
    changed = StateObservation(state="home", **{field_: value})
    pool.script["home"] = [changed, _obs("home", title=True)]
    _, checks = await verify_task(pool, _task(tmp_path), check_ids=["title"])
    assert len(pool.replays) == 2 and checks["title"].passed


async def test_network_changes_are_retried_twice_then_graded(tmp_path: Path, pool: Pool) -> None:
    changed = StateObservation(state="home", nav_error="net::ERR_NETWORK_CHANGED")
    pool.script["home"] = [changed]
    _, checks = await verify_task(pool, _task(tmp_path), check_ids=["title"])
    assert len(pool.replays) == 3
    assert not checks["routes@home"].passed


async def test_a_timeout_is_replayed_once_with_three_times_the_patience(
    tmp_path: Path, pool: Pool
) -> None:
    slow = StateObservation(state="home", action_error="Timeout 5000ms exceeded.")
    pool.script["home"] = [slow, _obs("home", title=True)]
    _, checks = await verify_task(pool, _task(tmp_path), check_ids=["title"])
    first, second = pool.replays
    assert first.opts == ReplayOptions()
    assert second.opts == ReplayOptions(action_timeout=15.0, navigation_timeout=45.0)
    assert second.key == "home" and second.checks == first.checks
    assert checks["title"].passed


@pytest.mark.parametrize(
    ("nav", "action", "again"),
    [
        ("Timeout 15000ms exceeded.", "", True),
        ("", "locator.click: Timeout 5000ms exceeded", True),
        ("Timeout", "", False),
        ("", "exceeded the budget", False),
        ("net::ERR_CONNECTION_REFUSED", "", False),
    ],
)
async def test_only_a_timeout_gets_more_patience(
    tmp_path: Path, pool: Pool, nav: str, action: str, again: bool
) -> None:
    pool.script["home"] = [StateObservation(state="home", nav_error=nav, action_error=action)]
    await verify_task(pool, _task(tmp_path), check_ids=["title"])
    assert len(pool.replays) == (2 if again else 1)


# ---------------------------------------------------------------- state runs


async def test_state_runs_say_what_each_replay_was(tmp_path: Path, pool: Pool) -> None:
    pool.script["home"] = [
        StateObservation(
            state="home",
            status=200,
            duration_s=1.23456,
            screenshot="states/home.png",
            action_error="click failed",
            context="warm",
        )
    ]
    pool.script["menu"] = [StateObservation(state="menu", nav_error="refused", error="")]
    report, _ = await verify_task(pool, _task(tmp_path), check_ids=["title", "menu-open"])
    runs = {s.state: s for s in report.states}
    assert list(runs) == ["home", "menu", "menu~bare"]
    home = runs["home"]
    assert (home.route, home.viewport, home.duration_s) == ("/", "desktop", 1.235)
    assert (home.screenshot, home.error, home.context) == (
        "states/home.png",
        "click failed",
        "warm",
    )
    assert home.replayed == "full replay" and home.reused == ""
    assert runs["menu"].error == "refused"
    assert runs["menu~bare"].route == "/"


async def test_identical_replays_share_one_page(tmp_path: Path, pool: Pool) -> None:
    states = [{"id": "a", "route": "/"}, {"id": "b", "route": "/"}]
    checks = [
        check("ca", "dom", "a", kind="exists", selector="h1"),
        check("cb", "dom", "b", kind="exists", selector="p"),
    ]
    task = make_task(tmp_path, states, checks)
    pool.replay = "reuse"
    report, found = await verify_task(pool, task)
    assert pool.followers == [("a", ("b",))]
    assert found["ca"].passed and found["cb"].passed
    # Warm contexts: used for every replay, closed after, their discards reported.
    assert all(warm is pool.warm for _, _, warm in pool.runs) and pool.warm.closed
    assert report.warm_discarded == ("crashed",)
    pool.replay = "full"
    pool.followers.clear()
    report, _ = await verify_task(pool, task)
    assert sorted(pool.followers) == [("a", ()), ("b", ())]
    assert report.warm_discarded == ()


# ---------------------------------------------------------------- replay reuse


@dataclass
class Reuse:
    """A `_reuse._cache.CheckpointView` stand-in: keeps `kept`, records fresh replays."""

    kept: dict[str, StateObservation] = field(default_factory=dict)
    recorded: list[tuple[str, StateObservation, object]] = field(default_factory=list)
    trace: Any = None

    def lookup(self, job: StateJob) -> tuple[StateObservation | None, str]:
        if job.key in self.kept:
            return self.kept[job.key], "unchanged"
        return None, f"no earlier replay of {job.key}"

    def record(self, job: StateJob, obs: StateObservation, reads: object) -> None:
        self.recorded.append((job.key, obs, reads))


async def test_a_reused_state_is_not_replayed_and_fresh_ones_are_recorded(
    tmp_path: Path, pool: Pool
) -> None:
    kept = _obs("home", "fp", title=True, items=False)
    kept = StateObservation(**{**_fields(kept), "reused": "unchanged since checkpoint 1"})
    reuse = Reuse(kept={"home": kept})
    task = _task(tmp_path)
    report, checks = await verify_task(pool, task, check_ids=["title", "about-text"], reuse=reuse)
    assert [j.key for j in pool.replays] == ["about"]
    # `ahead`: the fresh replay evaluates the state's other read-only checks too.
    (about,) = pool.replays
    assert about.fingerprint is True
    assert [(k, o.replayed, r) for k, o, r in reuse.recorded] == [
        ("about", "no earlier replay of about", None)
    ]
    assert checks["title"].passed
    runs = {s.state: s for s in report.states}
    assert runs["home"].reused == "unchanged since checkpoint 1"
    assert runs["about"].replayed == "no earlier replay of about"


def _fields(obs: StateObservation) -> dict[str, Any]:
    return {f: getattr(obs, f) for f in obs.__struct_fields__}


def test_ahead_adds_the_states_other_checks_unless_one_is_visual(tmp_path: Path) -> None:
    states = [{"id": "home", "route": "/"}, {"id": "shots", "route": "/s"}]
    checks = [
        check("a", "dom", "home", kind="exists", selector="h1"),
        check("b", "text", "home", kind="exists", selector="p"),
        check("c", "dom", "shots", kind="exists", selector="h1"),
        {**check("d", "visual_regression", "shots", kind="visual"), "describe": "d"},
    ]
    task = make_task(tmp_path, states, checks)
    contract = task.contract
    a = [c for c in contract.checks if c.id == "a"]
    plain = _jobs._plan(task, "http://x", a, ["home"], None, ReplayOptions(), ahead=False)
    assert [[c.id for c in j.checks] for j in plain] == [["a"]]
    assert plain[0].fingerprint is False
    ahead = _jobs._plan(task, "http://x", a, ["home"], None, ReplayOptions(), ahead=True)
    assert [[c.id for c in j.checks] for j in ahead] == [["a", "b"]]
    assert ahead[0].fingerprint is True
    c = [x for x in contract.checks if x.id == "c"]
    shots = _jobs._plan(task, "http://x", c, ["shots"], None, ReplayOptions(), ahead=True)
    assert [[x.id for x in j.checks] for j in shots] == [["c"]]
    d = [x for x in contract.checks if x.id == "d"]
    both = _jobs._plan(task, "http://x", d, ["shots"], None, ReplayOptions(), ahead=True)
    assert [[x.id for x in j.checks] for j in both] == [["c", "d"]]
    assert both[0].reference_dir == tmp_path / "evidence" / "reference"


# ---------------------------------------------------------------- environment drift


def _visual_task(tmp: Path) -> TaskPackage:
    states = [{"id": "home", "route": "/"}]
    checks = [
        check("title", "text", "home", kind="exists", selector="h1"),
        check("look", "visual_regression", "home", kind="visual"),
    ]
    return make_task(tmp, states, checks)


async def test_drifted_visual_checks_are_not_applicable_when_allowed(
    tmp_path: Path, pool: Pool, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def drift(p: object, task: TaskPackage) -> str:
        return "fonts differ"

    monkeypatch.setattr(_verify, "environment_drift", drift)
    pool.allow_env_drift = True
    report, checks = await verify_task(pool, _visual_task(tmp_path))
    look = checks["look"]
    assert (look.passed, look.applicable, look.observed) == (
        False,
        False,
        "environment drift: fonts differ",
    )
    assert look.message == "look — state 'home'; observed: environment drift: fonts differ"
    assert (look.gate, look.state) == ("visual_regression", "home")
    # The visual check is not replayed; the others are.
    (job,) = pool.replays
    assert [c.id for c in job.checks] == ["title"]
    assert {g.gate: g.status for g in report.gates}["visual_regression"] == "n/a"
    pool.allow_env_drift = False
    with pytest.raises(EnvironmentDrift, match="fonts differ"):
        await verify_task(pool, _visual_task(tmp_path))


async def test_drift_is_only_measured_for_visual_checks(
    tmp_path: Path, pool: Pool, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[str] = []

    async def drift(p: object, task: TaskPackage) -> str:
        asked.append(task.contract.id)
        return ""

    monkeypatch.setattr(_verify, "environment_drift", drift)
    _, checks = await verify_task(pool, _visual_task(tmp_path), check_ids=["title"])
    assert asked == [] and "look" not in checks
    _, checks = await verify_task(pool, _visual_task(tmp_path))
    assert asked == ["t"] and checks["look"].applicable and checks["look"].passed


# ---------------------------------------------------------------- more of the plan


def _chained_task(tmp: Path) -> TaskPackage:
    """`open` inherits the click of `base` through `from`; `bare` has no check."""
    states: list[dict[str, Any]] = [
        {"id": "base", "route": "/", "actions": [{"do": "click", "selector": "#tab"}]},
        {"id": "open", "route": "/", "from": "base", "status": 404},
        {"id": "idle", "route": "/idle"},
    ]
    checks = [
        check(
            "opened", "interaction", "open", kind="visible", selector="#p", require_interaction=True
        ),
        check("titled", "text", "open", kind="exists", selector="h1"),
        check("based", "dom", "base", kind="exists", selector="h1"),
    ]
    return make_task(tmp, states, checks)


async def test_inherited_actions_make_a_state_interactive_and_name_it(
    tmp_path: Path, pool: Pool
) -> None:
    pool.script["open"] = [
        StateObservation(
            state="open",
            status=404,
            outcomes={
                "opened": Outcome(passed=True, observed="shown"),
                "titled": Outcome(passed=False, observed="none"),
            },
        )
    ]
    pool.script["open~bare"] = [_obs("open~bare", opened=False)]
    _, found = await verify_task(pool, _chained_task(tmp_path), check_ids=["opened", "titled"])
    jobs = {j.key: j for j in pool.replays}
    assert [a.selector for a in jobs["open"].actions] == ["#tab"]  # type: ignore[union-attr]
    # The bare replay evaluates the interaction check only.
    assert [c.id for c in jobs["open~bare"].checks] == ["opened"]
    assert found["opened"].passed and found["opened"].state == "open"
    where = "state 'open': / at 1280x800 after click '#tab'"
    assert found["titled"].message == f"titled — {where}; observed: none"
    # Health on the state: its expected status and where it is.
    routes = found["routes@open"]
    assert routes.passed and routes.message.startswith("The route must answer with status 404")
    assert where in routes.message


async def test_named_states_add_to_the_checks_states_only(tmp_path: Path, pool: Pool) -> None:
    await verify_task(pool, _chained_task(tmp_path), states=["base"])
    assert sorted(j.key for j in pool.replays) == ["base", "open", "open~bare", "open~keys"]


async def test_replay_options_reach_every_job(tmp_path: Path, pool: Pool) -> None:
    opts = ReplayOptions(action_timeout=1.0, navigation_timeout=2.0)
    await verify_task(pool, _chained_task(tmp_path), options=opts)
    assert {j.opts for j in pool.replays} == {opts}


def test_plan_is_not_ahead_by_default(tmp_path: Path) -> None:
    task = _chained_task(tmp_path)
    checks = [c for c in task.contract.checks if c.id == "based"]
    (job,) = _jobs._plan(task, "http://x", checks, ["base"], None, ReplayOptions())
    assert [c.id for c in job.checks] == ["based"] and job.fingerprint is False


async def test_a_bare_replay_never_takes_a_fingerprint(tmp_path: Path, pool: Pool) -> None:
    reuse = Reuse()
    await verify_task(pool, _chained_task(tmp_path), check_ids=["opened"], reuse=reuse)
    jobs = {j.key: j for j in pool.replays}
    # Ahead (reuse): the state's other read-only checks too, and a fingerprint.
    assert [c.id for c in jobs["open"].checks] == ["opened", "titled"]
    assert jobs["open"].fingerprint is True
    assert jobs["open~bare"].fingerprint is False
    assert [c.id for c in jobs["open~bare"].checks] == ["opened"]


async def test_verifying_again_into_the_same_artifacts_is_fine(tmp_path: Path, pool: Pool) -> None:
    task = _task(tmp_path)
    await verify_task(pool, task, check_ids=["title"], artifacts=tmp_path / "a")
    await verify_task(pool, task, check_ids=["title"], artifacts=tmp_path / "a")
    assert (tmp_path / "a" / "states").is_dir()


async def test_a_shared_replay_is_named_in_the_state_run(tmp_path: Path, pool: Pool) -> None:
    pool.script["home"] = [StateObservation(state="home", status=200, shared_with="menu")]
    report, _ = await verify_task(pool, _task(tmp_path), check_ids=["title"])
    (run,) = report.states
    assert run.shared_with == "menu"


async def test_a_replay_that_answers_for_too_few_jobs_is_a_harness_bug(
    tmp_path: Path, pool: Pool
) -> None:
    states = [{"id": "a", "route": "/"}, {"id": "b", "route": "/"}]
    checks = [
        check("ca", "dom", "a", kind="exists", selector="h1"),
        check("cb", "dom", "b", kind="exists", selector="p"),
    ]
    pool.replay, pool.short = "reuse", True
    with pytest.raises(ExceptionGroup) as info:  # raised in the replays' task group
        await verify_task(pool, make_task(tmp_path, states, checks))
    (exc,) = info.value.exceptions
    assert isinstance(exc, ValueError) and "zip() argument 2 is shorter" in str(exc)


async def test_the_patient_replay_runs_on_the_same_pool_arguments(
    tmp_path: Path, pool: Pool
) -> None:
    pool.replay = "reuse"
    slow = StateObservation(state="about", nav_error="Timeout 15000ms exceeded.")
    pool.script["about"] = [slow, _obs("about", "fp2", about_text=True)]
    await verify_task(pool, _task(tmp_path), check_ids=["about-text"])
    about = [(base, v, warm) for base, v, warm in pool.runs if (v.width, v.height) == (390, 844)]
    assert len(about) == 2 and about[0] == about[1]
    assert about[0][0] == "http://site.test" and about[0][2] is pool.warm


# ---------------------------------------------------------------- traced replay reuse


@dataclass
class Trace:
    """An `OpenTrace` stand-in: each window reads one file per replay."""

    windows: list[str] = field(default_factory=list)

    def mark(self) -> int:
        return len(self.windows)

    def since(self, mark: int) -> Reads:
        assert isinstance(mark, int)
        self.windows.append(f"file{len(self.windows)}")
        return Reads(paths=frozenset(self.windows[mark:]))


async def test_traced_reuse_records_what_every_window_of_a_replay_read(
    tmp_path: Path, pool: Pool
) -> None:
    changed = StateObservation(state="home", failed_requests=("net::ERR_NETWORK_CHANGED",))
    pool.script["home"] = [changed, _obs("home", title=True)]
    reuse = Reuse(trace=Trace())
    await verify_task(pool, _task(tmp_path), check_ids=["title"], reuse=reuse)
    assert [(key, reads) for key, _, reads in reuse.recorded] == [
        ("home", Reads(paths=frozenset({"file0", "file1"})))
    ]


async def test_drift_is_measured_on_the_pool_and_names_the_task(
    tmp_path: Path, pool: Pool, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[object] = []

    async def drift(p: object, task: TaskPackage) -> str:
        asked.append(p)
        return "fonts differ"

    monkeypatch.setattr(_verify, "environment_drift", drift)
    with pytest.raises(EnvironmentDrift) as info:
        await verify_task(pool, _visual_task(tmp_path))
    assert asked == [pool] and info.value.task_id == "t"


# ------------------------------------------------ the keyboard replay, only where it counts


@pytest.mark.parametrize("idle", [False, True])
@pytest.mark.parametrize("by_pointer", [False, True])
async def test_a_keyboard_replay_counts_only_where_the_pointer_passes(
    tmp_path: Path, pool: Pool, idle: bool, by_pointer: bool
) -> None:
    """`keyboard:<id>` is not applicable where the check fails by pointer, so its replay
    decides nothing there: a busy pool never runs it, an idle one may start it beside the
    pointer replay but drops what it saw. The report is the same either way (#51)."""
    pool.idle = idle
    pool.script["open"] = [_obs("open", opened=by_pointer)]
    pool.script["open~bare"] = [_obs("open~bare", opened=False)]
    report, found = await verify_task(pool, _chained_task(tmp_path), check_ids=["opened"])
    keyed = found["keyboard:opened"]
    states = {s.state for s in report.states}
    replayed = [j.key for j in pool.replays]
    if by_pointer:
        assert keyed.applicable and keyed.passed and "open~keys" in states
        assert replayed.count("open~keys") == 1
    else:
        assert not keyed.applicable and "open~keys" not in states
        assert replayed.count("open~keys") == (1 if idle else 0)
