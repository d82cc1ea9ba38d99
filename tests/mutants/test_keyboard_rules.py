"""The keyboard rule's bookkeeping (#38) without a browser: which states get a keyboard
replay (`<state>~keys`) and how its observation becomes `keyboard:<check>` under `a11y`.
The fake pool of `tests/fixtures/verifypool.py` (the `pool` fixture of the mutants'
conftest) answers each job with the observation we write."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

from orchestrator.contract import Contract, TaskPackage, load_task
from orchestrator.verifier import Outcome, StateObservation
from tests.fixtures.verifypool import Pool, verify_task
from tests.verifier.conftest import check

pytestmark = pytest.mark.anyio

STATES = [
    {"id": "home", "route": "/"},
    {"id": "picked", "route": "/", "actions": [{"do": "click", "selector": ".chip"}]},
    {"id": "after", "route": "/", "from": "picked"},  # inherits the click
    {"id": "typed", "route": "/", "actions": [{"do": "fill", "selector": "#q", "value": "x"}]},
]


def _task(tmp: Path, exempt: str | None = None, **units: list[str]) -> TaskPackage:
    extra = {"keyboard_exempt": exempt} if exempt else {}
    checks = [
        {**check("chip", "interaction", "picked", kind="exists", selector="#out"), **extra},
        check("later", "text", "after", kind="exists", selector="#out"),
        check("typed", "text", "typed", kind="exists", selector="#out"),
        check("home", "dom", "home", kind="exists", selector="h1"),
        check("keep", "dom", "picked", kind="exists", selector="h1"),
    ]
    raw: dict[str, Any] = {
        "id": "t", "regime": "change", "capability": "edit", "facet": "state",
        "stack": "static", "framework": "html", "allowed_paths": ["**"],
        "serve": {"start": "x"}, "states": STATES, "checks": checks,
        "units": [{"id": "u1", "request": "r", "checks": ["chip", "later", "typed", "home"]}],
    }  # fmt: skip
    return TaskPackage(root=tmp, contract=msgspec.convert(raw, Contract), contract_hash="t")


def _keys_obs(key: str, **kw: Any) -> StateObservation:
    return StateObservation(state=key, status=200, **kw)


async def test_only_states_a_unit_check_reaches_by_click_are_replayed_by_keyboard(
    tmp_path: Path, pool: Pool
) -> None:
    _, found = await verify_task(pool, _task(tmp_path))
    keyed = sorted(j.key for j in pool.replays if j.operate == "keyboard")
    assert keyed == ["after~keys", "picked~keys"]  # not typed (a fill), not home
    (picked,) = [j for j in pool.replays if j.key == "picked~keys"]
    assert [c.id for c in picked.checks] == ["chip"]  # `keep` is no unit's check
    assert found["keyboard:chip"].passed and found["keyboard:chip"].gate == "a11y"
    assert found["keyboard:later"].passed
    assert {k for k in found if k.startswith("keyboard:")} == {"keyboard:chip", "keyboard:later"}


async def test_an_unreachable_control_fails_a11y_with_the_reason(
    tmp_path: Path, pool: Pool
) -> None:
    why = "action 1: click '.chip' failed: '.chip' by keyboard: it is not focusable"
    pool.script["picked~keys"] = [_keys_obs("picked~keys", action_error=why)]
    report, found = await verify_task(pool, _task(tmp_path))
    got = found["keyboard:chip"]
    assert got.failed and got.observed == f"by keyboard: {why}"
    assert "WCAG 2.1.1" in got.message and "after click '.chip'" in got.message
    assert found["chip"].passed  # the pointer's verdict is its own
    assert report.gate("a11y").status == "fail"


async def test_a_keyboard_path_that_does_not_do_what_the_click_does_fails(
    tmp_path: Path, pool: Pool
) -> None:
    miss = {"chip": Outcome(passed=False, observed="#out absent")}
    pool.script["picked~keys"] = [_keys_obs("picked~keys", outcomes=miss)]
    _, found = await verify_task(pool, _task(tmp_path))
    assert found["keyboard:chip"].failed
    assert "does not hold (it does by click): #out absent" in found["keyboard:chip"].observed


async def test_a_check_the_pointer_fails_too_is_not_applicable(tmp_path: Path, pool: Pool) -> None:
    pool.script["picked"] = [
        _keys_obs("picked", outcomes={"chip": Outcome(passed=False, observed="no")})
    ]
    pool.script["picked~keys"] = [_keys_obs("picked~keys", action_error="unreachable")]
    _, found = await verify_task(pool, _task(tmp_path))
    got = found["keyboard:chip"]
    assert not got.applicable and not got.failed and "pointer too" in got.observed


async def test_an_opted_out_check_is_not_replayed_and_says_why(tmp_path: Path, pool: Pool) -> None:
    _, found = await verify_task(pool, _task(tmp_path, exempt="a canvas with its own keys"))
    assert "picked~keys" not in {j.key for j in pool.replays}
    got = found["keyboard:chip"]
    assert got.passed and not got.applicable and "a canvas with its own keys" in got.observed


def test_the_opt_out_needs_a_reason_and_leaves_other_hashes_alone(tmp_path: Path) -> None:
    from orchestrator.authoring import scaffold

    root = tmp_path / "demo"
    scaffold(root, "demo", "static")
    before = load_task(root).contract_hash
    toml = (root / "task.toml").read_text()
    (root / "task.toml").write_text(
        toml.replace('describe = "The home', 'keyboard_exempt = ""\ndescribe = "The home')
    )
    with pytest.raises(Exception, match="keyboard_exempt"):
        load_task(root)
    (root / "task.toml").write_text(
        toml.replace('describe = "The home', 'keyboard_exempt = "why"\ndescribe = "The home')
    )
    assert load_task(root).contract_hash != before  # set, it is part of the contract
    (root / "task.toml").write_text(toml)
    assert load_task(root).contract_hash == before  # unset, the hash is what it was
