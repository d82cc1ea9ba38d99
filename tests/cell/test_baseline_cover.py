"""A run is "covered" by the baseline channel only when untouched R0 served and was verified."""

from __future__ import annotations

from orchestrator.cell import BaselineResult


def test_covered_only_when_r0_built_and_served() -> None:
    served = BaselineResult(key="k", gates={"build": "n/a", "serve": "pass", "routes": "fail"})
    assert served.covered
    assert not BaselineResult(key="k", gates={"build": "fail", "serve": "fail"}).covered
    assert not BaselineResult(key="k", gates={"build": "pass", "serve": "fail"}).covered
