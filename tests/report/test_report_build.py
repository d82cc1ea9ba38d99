"""`python -m orchestrator report`: the files it writes, their links, escaping and determinism."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import msgspec
from PIL import Image

from orchestrator.cli import main
from tests.report.report_run import HERO_MESSAGE, SHOT_CELL, KnownRun, row, scores


def _report(k: KnownRun) -> int:
    return main(["report", str(k.run_dir), "--tasks-dir", str(k.tasks_dir)])


def test_writes_markdown_html_plots_and_cell_pages(known_run: KnownRun) -> None:
    assert _report(known_run) == 0
    run, out = known_run.run_dir, known_run.run_dir / "report"
    md = (run / "report.md").read_text()
    assert "10 current rows of 13 read; left out: 1 stale" in md
    assert (
        "| a | staged | model | 3 | 0 | 33.3 [0.0, 50.0] (1/3, clustered) | 75.0 [75.0, 75.0] |"
        in md
    )
    assert "## Staged vs full-spec on the same packages" in md
    assert "| Gate% | protected-flip rate | 3 | +0.866 |" in md
    for png in ("plots/scores.png", "plots/gates.png"):
        assert f"](report/{png})" in md
        with Image.open(out / png) as im:
            assert im.size[0] > 100
    pages = sorted(p.parent.name for p in (out / "cells").glob("*/index.html"))
    assert len(pages) == 10 and "t1__a__staged__1" in pages
    assert all((out / "cells" / p / "timeline.png").is_file() for p in pages)


def test_every_relative_link_resolves(known_run: KnownRun) -> None:
    assert _report(known_run) == 0
    out = known_run.run_dir / "report"
    pages = [out / "index.html", *(out / "cells").glob("*/index.html")]
    for page in pages:
        for link in re.findall(r"(?:src|href)='([^']+)'", page.read_text()):
            assert not link.startswith(("/", "http:", "https:", "file:")), link
            path, _, fragment = unquote(link).partition("#")
            target = page.parent / path if path else page  # "#x": a place in this page
            assert target.is_file(), (page, link)
            if fragment:  # names an element of the target page
                assert f"id='{fragment}'" in target.read_text(), (page, link)


def test_cell_page_escapes_text_and_ignores_escaping_paths(known_run: KnownRun) -> None:
    assert _report(known_run) == 0
    page = known_run.run_dir / "report/cells" / SHOT_CELL.replace("/", "__") / "index.html"
    html = page.read_text()
    assert "<b>Hero</b>" not in html
    assert "&lt;b&gt;Hero&lt;/b&gt; heading missing" in html and "&amp; none visible" in html
    assert HERO_MESSAGE not in html
    assert "I added &lt;h1&gt;." in html
    assert "passwd" not in html and "<h3>evil</h3>" not in html
    assert "src='../../tasks/t1/reference/home.png'" in html
    assert (
        "src='../../../cells/t1__a__staged__1/artifacts/checkpoint-001-final/states/home.png'"
        in html
    )


def test_report_is_deterministic_and_regenerated(known_run: KnownRun) -> None:
    assert _report(known_run) == 0
    first = (known_run.run_dir / "report.md").read_text()
    leftover = known_run.run_dir / "report/cells/old__cell"
    leftover.mkdir()
    assert _report(known_run) == 0
    assert (known_run.run_dir / "report.md").read_text() == first
    assert not leftover.exists()


def test_missing_manifest_exits_1(tmp_path: Path) -> None:
    assert main(["report", str(tmp_path), "--tasks-dir", str(tmp_path)]) == 1


def test_cell_page_shows_one_reference_and_the_final_shot_per_state(known_run: KnownRun) -> None:
    assert _report(known_run) == 0
    page = known_run.run_dir / "report/cells" / SHOT_CELL.replace("/", "__") / "index.html"
    html = page.read_text()
    assert "home.full.png" not in html
    assert html.count("<h3>home: <span class='verdict'>FAIL</span></h3>") == 1
    assert "no final screenshot" not in html


def test_failing_visual_check_shows_the_region_that_differs(known_run: KnownRun) -> None:
    assert _report(known_run) == 0
    page_dir = known_run.run_dir / "report/cells" / SHOT_CELL.replace("/", "__")
    html = (page_dir / "index.html").read_text()
    assert "<b>v1</b> (visual_regression)" in html and "differs in 10x8 at (5, 5)" in html
    for which in ("reference", "final"):
        assert f"src='diff-0-{which}.png'" in html
        with Image.open(page_dir / f"diff-0-{which}.png") as im:
            # 10x8 plus the margin, clipped to the 40x30 image.
            assert im.size == (min(40, 5 + 10 + 24), min(30, 5 + 8 + 24))
            assert im.getpixel((5, 5)) == (220, 0, 0)  # the box is outlined


def test_a_moot_gate_is_never_listed_as_failing_on_a_cell_page() -> None:
    """Moot gates are stored passed=False, applicable=False: not a failure (issue #37)."""
    from orchestrator.events import CheckpointSummary
    from orchestrator.records import CheckResult
    from orchestrator.report._cells import _failing

    moot = [
        CheckResult(id=f"{g}@run", gate=g, state="run", passed=False, applicable=False)
        for g in ("build", "serve")
    ]
    bad = CheckResult(id="c1", gate="dom", state="home", passed=False, message="no h1")
    final = CheckpointSummary(
        index=1,
        unit="",
        build_ok=True,
        serve_ok=True,
        passed=0,
        failed=1,
        gates={"dom": "fail", "build": "n/a", "serve": "n/a"},
        checks=(*moot, bad),
    )
    r = row("t1", "a", "staged", 0, {}, scores=scores(0.5, 1.0, 0.5), final_gates=final.gates)
    assert [(f.gate, f.messages) for f in _failing(r, final)] == [("dom", ("no h1",))]
    clean = msgspec.structs.replace(final, checks=tuple(moot), gates={"build": "n/a"})
    passing = row("t1", "a", "staged", 0, {}, scores=scores(1.0, 1.0, 1.0), final_gates=clean.gates)
    assert _failing(passing, clean) == ()
