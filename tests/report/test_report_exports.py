"""`orchestrator.report` re-exports its public names and nothing private."""

from __future__ import annotations

import orchestrator.report as report


def test_exported_members() -> None:
    for name in report.__all__:
        member = getattr(report, name)
        assert not name.startswith("_")
        assert member.__module__.startswith("orchestrator.report."), name
    assert {n for n in dir(report) if not n.startswith("_")} == set(report.__all__)
