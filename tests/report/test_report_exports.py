"""`orchestrator.report` re-exports its public names and nothing private."""

from __future__ import annotations

import orchestrator.report as report


def test_exported_members() -> None:
    for name in report.__all__:
        member = getattr(report, name)
        assert not name.startswith("_")
        assert member.__module__.startswith("orchestrator.report."), name
    assert sorted(report.__all__) == sorted(report.__all__)
    public = {n for n in dir(report) if not n.startswith("_")}
    submodules = {n for n in public if n.startswith("_")}
    assert public - set(report.__all__) - submodules == set()
