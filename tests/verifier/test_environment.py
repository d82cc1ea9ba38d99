"""The pinned rendering environment (DESIGN §4, issue #14): a verdict depends on the task
package and the workspace alone, not on the host's fonts; drift is detected, not graded."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import msgspec
import pytest

from orchestrator.verifier import (
    ENV_FILE,
    PINNED_FONTS,
    BrowserPool,
    EnvironmentDrift,
    RenderEnv,
    capture,
    read_env,
    verify,
)

from .conftest import check, make_task

pytestmark = [pytest.mark.anyio, pytest.mark.browser]


def test_the_hostile_host_config_really_changes_what_the_host_renders(
    hostile_host_fonts: Path,
) -> None:
    """Control for the test below: under the hostile config the host's fontconfig maps
    Arial to DejaVu Serif, where the pinned environment maps it to Liberation Sans."""
    if shutil.which("fc-match") is None:
        pytest.skip("fc-match not installed")
    seen = subprocess.run(
        ["fc-match", "-f", "%{family[0]}", "Arial"], capture_output=True, text=True, env=os.environ
    )
    assert seen.stdout == "DejaVu Serif"


async def test_host_fontconfig_does_not_reach_the_browser(
    pool: BrowserPool, hostile_host_fonts: Path
) -> None:
    clean = await pool.environment()  # launched before the hostile config was set
    async with BrowserPool(max_contexts=1) as hostile:
        seen = await hostile.environment()
    assert seen == clean
    assert not clean.differences(seen)


async def test_calibration_render_uses_the_pinned_faces(pool: BrowserPool) -> None:
    env = await pool.environment()
    assert env.browser == "chromium" and env.browser_major >= 100
    assert env.browser_version.startswith(f"{env.browser_major}.")
    # A different pinned font file set is a different fingerprint.
    from orchestrator.verifier import fonts_digest

    assert fonts_digest(PINNED_FONTS) == env.fonts
    assert fonts_digest(PINNED_FONTS[:-1]) != env.fonts


def test_differences_name_what_drifted() -> None:
    base = RenderEnv(
        browser="chromium",
        browser_major=156,
        browser_version="156.0.1",
        fonts="f" * 64,
        calibration="c" * 64,
    )
    assert base.differences(base) == []
    minor = msgspec.structs.replace(base, browser_version="156.0.2")
    assert base.differences(minor) == []  # informational only
    other = msgspec.structs.replace(base, browser_major=150, fonts="0" * 64)
    diffs = base.differences(other)
    assert len(diffs) == 2
    assert "browser chromium 150 here, chromium 156 in the evidence" in diffs[0]
    assert diffs[1].startswith("fonts 000000000000 here, ffffffffffff")
    assert "calibration" in base.differences(msgspec.structs.replace(base, calibration="d"))[0]


# Captured from index.html twice; `moved` is then verified on a page that differs.
CAPTURED = [
    {"id": "home", "route": "/index.html", "viewport": "desktop"},
    {"id": "moved", "route": "/index.html", "viewport": "desktop"},
]
STATES = [CAPTURED[0], {"id": "moved", "route": "/visual-bad.html", "viewport": "desktop"}]


def _checks() -> list[dict[str, object]]:
    return [
        check("h1", "dom", "home", kind="exists", selector="h1"),
        check("vis_home", "visual_regression", "home", kind="visual", threshold=0.002),
        check("vis_moved", "visual_regression", "moved", kind="visual", threshold=0.002),
    ]


async def _captured(pool: BrowserPool, root: Path, site_url: str) -> None:
    task = make_task(root, CAPTURED, _checks())
    await capture(pool, task, site_url, root / "evidence" / "reference")


async def test_a_tampered_fingerprint_stops_verify_and_drift_grades_visual_na(
    pool: BrowserPool, site_url: str, tmp_path: Path
) -> None:
    await _captured(pool, tmp_path, site_url)
    task = make_task(tmp_path, STATES, _checks())
    assert read_env(task.evidence) == await pool.environment()
    clean = await verify(pool, task, site_url)
    assert clean.gate("visual_regression").status == "fail"  # visual-bad differs
    assert clean.check("vis_home") is not None and clean.check("vis_home").passed  # type: ignore[union-attr]

    env_file = task.evidence / ENV_FILE
    tampered = msgspec.structs.replace(read_env(task.evidence), calibration="0" * 64)  # type: ignore[type-var]
    env_file.write_bytes(msgspec.json.encode(tampered))
    with pytest.raises(EnvironmentDrift) as err:
        await verify(pool, task, site_url)
    message = str(err.value)
    assert "\n" not in message and "calibration render" in message
    assert "--allow-env-drift" in message and "capture" in message

    pool.allow_env_drift = True
    try:
        drifted = await verify(pool, task, site_url)
    finally:
        pool.allow_env_drift = False
    vis = drifted.gate("visual_regression")
    assert vis.status == "n/a" and vis.reason.startswith("environment drift:")
    for check_id in ("vis_home", "vis_moved"):
        result = drifted.check(check_id)
        assert result is not None and not result.applicable and not result.failed
    assert all(c.id not in ("vis_home", "vis_moved") for c in drifted.failed)
    # Every other gate reads exactly as without drift.
    others = [g for g in clean.gates if g.gate != "visual_regression"]
    assert [g for g in drifted.gates if g.gate != "visual_regression"] == others


async def test_evidence_without_a_fingerprint_is_drift(
    pool: BrowserPool, site_url: str, tmp_path: Path
) -> None:
    await _captured(pool, tmp_path, site_url)
    task = make_task(tmp_path, STATES, _checks())
    (task.evidence / ENV_FILE).unlink()
    with pytest.raises(EnvironmentDrift, match=r"no env\.json"):
        await verify(pool, task, site_url, check_ids=["vis_home"])
    # A task with no visual check needs no fingerprint.
    plain = await verify(pool, task, site_url, check_ids=["h1"])
    assert plain.gate("dom").status == "pass"
