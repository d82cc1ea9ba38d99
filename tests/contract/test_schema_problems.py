"""`tasks` reports every schema problem of a task.toml at once, with the allowed values."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.contract import ContractError, decode_contract

SHIPPED = Path(__file__).resolve().parents[2] / "tasks" / "fernhill-save-tools" / "task.toml"


def test_every_problem_at_once_with_allowed_values() -> None:
    src = SHIPPED.read_text()
    bad = src.replace('regime = "change"', 'regime = "chnage"')
    bad = bad.replace('viewport = "mobile"', "viewport = 5", 1)
    bad = bad.replace('kind = "links"', 'kind = "linkz"', 1)
    bad = bad.replace('route = "/about.html"', 'route = "/about.html"\nwat = 2', 1)
    bad = "colour = 1\n" + bad
    with pytest.raises(ContractError) as got:
        decode_contract(bad, "t.toml")
    lines = got.value.problems
    assert len(lines) == 5, lines
    assert (
        "t.toml:colour: object contains unknown field `colour` (allowed: 'id', 'title'" in lines[0]
    )
    assert any(
        line.startswith("t.toml:regime: invalid enum value 'chnage'")
        and "(allowed: 'build', 'change')" in line
        for line in lines
    )
    assert any(line.startswith("t.toml:states[1].viewport: expected") for line in lines)
    assert any("states[2]: object contains unknown field `wat`" in line for line in lines)
    kind = next(line for line in lines if ".assert.kind" in line)
    assert "invalid value 'linkz'" in kind and "'links'" in kind and "'box'" in kind


def test_a_required_key_is_reported_once() -> None:
    src = SHIPPED.read_text().replace('route = "/about.html"', "route = 3", 1)
    with pytest.raises(ContractError) as got:
        decode_contract(src, "t.toml")
    assert got.value.problems == ["t.toml:states[2].route: expected `str`, got `int`"]
