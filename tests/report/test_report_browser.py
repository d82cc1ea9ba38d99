"""A real headless Chromium opens the report from disk (file://) with no server."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from orchestrator.cli import main
from tests.report.report_run import SHOT_CELL, KnownRun

CHROMIUM = Path("/usr/bin/chromium")

pytestmark = pytest.mark.browser


@pytest.fixture
def chromium() -> None:
    if not CHROMIUM.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{CHROMIUM} is required under CI=true")
        pytest.skip(f"{CHROMIUM} not found")


LOADED_IMAGES = "imgs => imgs.map(i => i.complete && i.naturalWidth > 0)"


def test_html_report_opens_from_disk(known_run: KnownRun, chromium: None) -> None:
    from playwright.sync_api import sync_playwright

    assert main(["report", str(known_run.run_dir), "--tasks-dir", str(known_run.tasks_dir)]) == 0
    index = (known_run.run_dir / "report" / "index.html").resolve()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            page = browser.new_page()
            page.goto(index.as_uri())
            page.wait_for_load_state("load")
            for table in ("scores", "scores-zero", "continuity", "regressions", "paired"):
                assert page.locator(f"table#{table} tbody tr").count() > 0, table
            first = page.locator("table#scores tbody tr").first.inner_text()
            assert "33.3 [0.0, 50.0] (1/3, clustered)" in first  # t1 was repeated
            plots = page.locator("img.plot")
            # scores, gates, continuity, regression channels, Build vs Change, facets,
            # rerun variability (t1/a was repeated)
            assert plots.count() == 7
            assert plots.evaluate_all(LOADED_IMAGES) == [True] * 7

            page.get_by_role("link", name=SHOT_CELL, exact=True).click()
            page.wait_for_load_state("load")
            assert page.locator("h1").inner_text() == SHOT_CELL
            # The page opens on the first failing state: its reference and final
            # screenshots with their verdicts, its failing checks beside them.
            assert page.evaluate("location.hash") == "#first-failing"
            top = page.locator("#first-failing").evaluate("a => a.getBoundingClientRect().top")
            assert -2 <= top < page.evaluate("innerHeight")  # scrolled to it (subpixel)
            home = page.locator("section.state", has=page.locator("#first-failing"))
            assert home.locator("h3").inner_text() == "home: FAIL"
            assert home.locator(".ref-verdict").inner_text().startswith("reference: pass, 3 check")
            assert (
                home.locator(".final-verdict").inner_text() == "final: FAIL, 2 of 3 check(s) fail"
            )
            shots = home.locator(".evidence > figure img")  # reference + final
            assert shots.count() == 2
            assert shots.evaluate_all(LOADED_IMAGES) == [True] * 2
            beside = home.locator(".failing-checks > li").all_inner_texts()
            assert len(beside) == 2
            assert beside[0].startswith("c1 (dom): <b>Hero</b> heading missing")
            assert beside[1].startswith("v1 (visual_regression): 12.00% of pixels differ")
            crops = home.locator(".failing-checks .crops img")  # the visual check's diff
            assert crops.count() == 2
            assert crops.evaluate_all(LOADED_IMAGES) == [True] * 2
            verdicts = home.locator("table tbody tr").all_inner_texts()
            assert [v.split("\t")[:4] for v in verdicts] == [
                ["c1", "dom", "pass", "fail"],
                ["v1", "visual_regression", "pass", "fail"],
                ["c2", "text", "pass", "pass"],
            ]
            assert page.locator("img.plot").evaluate_all(LOADED_IMAGES) == [True]
            failing = page.locator("#failing").inner_text()
            assert "<b>Hero</b> heading missing" in failing  # shown as text, not markup
            assert page.locator("#failing b", has_text="Hero").count() == 0
            assert page.locator("table#flips tbody tr").count() == 1
            assert page.locator("table#units tbody tr").count() == 2
        finally:
            browser.close()
