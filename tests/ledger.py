"""A long tier resumes where it stopped: the tests that passed at a commit are not run
again at that commit (`scripts/test full`, README "Tests").

`PWB_TIER_LEDGER=<file>` names the ledger: one test node id a line, appended as each test
passes (every phase: setup, call and teardown; a skipped test is not a pass). At
collection, the tests the ledger holds are deselected, with a line saying how many.
`scripts/test full` keeps one ledger per tier under
`${XDG_CACHE_HOME:-~/.cache}/pwb/tiers/<commit>/`, and only for a clean work tree: a tree
with changes is not the commit, so nothing it passes is recorded for it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ENV = "PWB_TIER_LEDGER"


class Ledger:
    def __init__(self, path: Path, writer: bool) -> None:
        self.path = path
        self.writer = writer  # xdist: only the controller appends (it sees every report)
        self.done = set(path.read_text().split("\n")) - {""} if path.is_file() else set()
        self._failed: set[str] = set()

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(
        self, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        drop = [i for i in items if i.nodeid in self.done]
        if not drop:
            return
        config.hook.pytest_deselected(items=drop)
        items[:] = [i for i in items if i.nodeid not in self.done]

    def pytest_report_header(self) -> str:
        return f"tier ledger {self.path}: {len(self.done)} test(s) passed at this commit before"

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if not self.writer:
            return
        if report.failed or (report.when == "call" and not report.passed):
            self._failed.add(report.nodeid)
        if report.when == "teardown" and report.nodeid not in self._failed:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a") as f:
                f.write(report.nodeid + "\n")


def register(config: pytest.Config) -> None:
    """Plug the ledger in when `PWB_TIER_LEDGER` names one (from `pytest_configure`)."""
    path = os.environ.get(ENV)
    if path:
        writer = not hasattr(config, "workerinput")
        config.pluginmanager.register(Ledger(Path(path), writer), "pwb-tier-ledger")
