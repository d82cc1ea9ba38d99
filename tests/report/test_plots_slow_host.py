"""A report written on a slow host is the same report (no warning, no failure): matplotlib
warns when it took more than a second to place a legend left at its default place, so a
loaded host made `report` warn (and a test fail: the fast tier saw it at load 20). Here
every plot of the recorded `mixed` run is drawn while matplotlib's clock moves 5 s at
every read; with the legends' `loc` planted away, the warning comes back."""

from __future__ import annotations

import gzip
import itertools
import shutil
import types
from pathlib import Path
from typing import Any

import matplotlib.legend
import pytest
from matplotlib.axes import Axes

from orchestrator.records import ManifestRow
from orchestrator.report import Report, aggregate, load_run, write_plots
from tests.report.mixed_run import RECORDED, ROOT, restamped


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Report, list[ManifestRow]]:
    run_dir = tmp_path_factory.mktemp("mixed")
    with gzip.open(RECORDED / "manifest.jsonl.gz") as src:
        (run_dir / "manifest.jsonl").write_bytes(restamped(src.read()))
    shutil.copyfile(RECORDED / "solvers.json", run_dir / "solvers.json")
    run = load_run(run_dir, ROOT / "tasks")
    return aggregate(run, "mixed"), list(run.rows)


def _default_place(monkeypatch: pytest.MonkeyPatch) -> None:
    real = Axes.legend

    def legend(self: Axes, *args: Any, **kwargs: Any) -> Any:
        kwargs.pop("loc", None)  # the planted bug: every legend left at the default
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Axes, "legend", legend)


@pytest.mark.parametrize("planted", [False, True], ids=["named-places", "planted-default"])
def test_every_plot_on_a_slow_host_is_drawn_without_a_warning(
    mixed: tuple[Report, list[ManifestRow]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    planted: bool,
) -> None:
    rep, rows = mixed
    ticks = itertools.count(step=5.0)
    clock = types.SimpleNamespace(perf_counter=lambda: next(ticks))
    monkeypatch.setattr(matplotlib.legend, "time", clock)
    if planted:
        _default_place(monkeypatch)
        with pytest.raises(UserWarning, match="can be slow"):
            write_plots(rep, rows, tmp_path)
        return
    plots = write_plots(rep, rows, tmp_path)
    # Every plot with a legend is among them: the continuity, regression and group plots.
    names = {path.name for _, path in plots}
    assert {"continuity.png", "regressions.png", "regimes.png", "facets.png"} <= names
