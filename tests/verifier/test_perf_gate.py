"""The main-thread continuity rule on snapshots (no browser, #53): blocking added beyond
the allowance is charged in `routes` with the metric, the base's value and the final's;
a base's debt is not; no figure, no check. The browser side is `test_main_thread.py`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

from orchestrator.contract import CANARY, TaskPackage
from orchestrator.records import A11ySnapshot, MainThread, PageWeight, VerifyReport
from orchestrator.verifier import (
    AXE_VERSION,
    BLOCKING_ALLOWANCE_MS,
    BYTES_ALLOWANCE,
    SHIFT_ALLOWANCE,
    SHIFT_POOR,
    A11yEvidence,
    a11y_evidence_path,
    coarse,
    coarse_shift,
    coarse_weight,
    encode_a11y_evidence,
    gate_results,
    layout_shift_continuity,
    main_thread_continuity,
    recaptured,
    recaptured_shift,
    recaptured_weight,
    total_blocking,
    weight_continuity,
    with_a11y_continuity,
    write_a11y_side,
)

from .conftest import make_task

STATES: list[dict[str, Any]] = [
    {"id": "home", "route": "/"},
    {"id": "new", "route": "/", "from": "home", "actions": [{"do": "click", "selector": "#go"}]},
]


@pytest.fixture
def task(tmp_path: Path) -> TaskPackage:
    check = {
        "id": "c",
        "gate": "text",
        "state": "home",
        "assert": {"kind": "exists", "selector": "main"},
        "describe": "d",
    }
    return make_task(tmp_path, STATES, [check])


def at(blocking: float, longest: float = 0.0, tasks: int = 0) -> A11ySnapshot:
    return A11ySnapshot(
        main_thread=MainThread(blocking_ms=blocking, longest_ms=longest, long_tasks=tasks)
    )


def test_total_blocking_is_each_beats_lateness_over_50_ms() -> None:
    """A beat 1450 ms late: the thread was held about that long; 60 ms late, a short long
    task; late by the timer's jitter (or by 50 ms exactly), nothing."""
    figure = total_blocking([1450.0, 60.0, 50.0, 3.0, -1.0])
    assert figure == MainThread(blocking_ms=1410.0, longest_ms=1450.0, long_tasks=2)
    assert total_blocking([]) == MainThread(blocking_ms=0.0, longest_ms=0.0, long_tasks=0)


def test_the_beats_are_bounded_by_the_renderers_busy_time() -> None:
    """Beats late because the host did not run the renderer (its thread idle, so no task
    time) are not the page's: each figure is at most the main thread's time in tasks.
    A page that held its thread (busy as long as the beats say) keeps its figure."""
    starved = total_blocking([1450.0, 60.0], busy_ms=30.0)
    assert starved == MainThread(blocking_ms=30.0, longest_ms=30.0, long_tasks=0)
    held = total_blocking([1450.0, 60.0], busy_ms=1520.0)
    assert held == total_blocking([1450.0, 60.0])
    assert total_blocking([1450.0, 60.0], busy_ms=None) == total_blocking([1450.0, 60.0])


def test_blocking_added_beyond_the_allowance_fails_routes_naming_both_values(
    task: TaskPackage,
) -> None:
    (check,) = main_thread_continuity(
        task.contract, {"home": at(1451, 1501, 1)}, [("R0", {"home": at(12, 62, 1)})]
    )
    assert check.id == "perf-main-thread@home" and check.gate == "routes"
    assert not check.passed and not check.authored
    assert "total blocking time 1451 ms (1 long task(s), the longest 1501 ms)" in check.observed
    assert "R0 at this state: total blocking time 12 ms" in check.observed
    assert "1439 ms more (allowed 1000 ms)" in check.observed
    assert "main thread" in check.message


def test_within_the_allowance_passes_and_says_what_was_measured(task: TaskPackage) -> None:
    final = {"home": at(12 + BLOCKING_ALLOWANCE_MS, 1062, 1)}
    (check,) = main_thread_continuity(task.contract, final, [("R0", {"home": at(12, 62, 1)})])
    assert check.passed and "total blocking time 1012 ms" in check.observed


def test_a_base_that_already_blocked_is_debt_the_highest_base_counts(task: TaskPackage) -> None:
    final = {"home": at(1460, 1510, 1)}
    bases = [("R0", {"home": at(0)}), ("the reference", {"home": at(1450, 1500, 1)})]
    (check,) = main_thread_continuity(task.contract, final, bases)
    assert check.passed and "the reference at this state" in check.observed


def test_a_new_state_is_compared_with_its_nearest_base_state(task: TaskPackage) -> None:
    (check,) = main_thread_continuity(task.contract, {"new": at(2000)}, [("R0", {"home": at(0)})])
    assert not check.passed and "R0 at state 'home' (nearest)" in check.observed


def test_no_figure_in_the_final_or_the_bases_adds_no_check(task: TaskPackage) -> None:
    bare = A11ySnapshot()
    assert main_thread_continuity(task.contract, {"home": bare}, [("R0", {"home": at(0)})]) == []
    assert main_thread_continuity(task.contract, {"home": at(5000)}, [("R0", {"home": bare})]) == []
    unreached = A11ySnapshot(reached=False, main_thread=MainThread(blocking_ms=5000))
    assert (
        main_thread_continuity(task.contract, {"home": unreached}, [("R0", {"home": at(0)})]) == []
    )


def test_the_continuity_report_carries_the_rule_and_regrades_routes(task: TaskPackage) -> None:
    report = VerifyReport(checks=(), gates=gate_results(()), a11y={"home": at(3000, 3050, 1)})
    graded = with_a11y_continuity(report, task.contract, [("R0", {"home": at(0)})])
    assert [c.id for c in graded.failed] == ["perf-main-thread@home"]
    assert graded.gate("routes").status == "fail"


def test_the_evidence_keeps_the_figure_to_the_nearest_half_second() -> None:
    """Two captures of the same render time differently; their files are the same bytes."""
    noisy = [(3.0, 53.0, 1), (0.0, 0.0, 0)], [(1452.0, 1502.0, 2), (1430.6, 1480.6, 1)]
    for quiet, busy in zip(*noisy, strict=True):
        assert coarse(
            MainThread(blocking_ms=quiet[0], longest_ms=quiet[1], long_tasks=quiet[2])
        ) == (MainThread(blocking_ms=0.0, longest_ms=0.0))
        assert coarse(MainThread(blocking_ms=busy[0], longest_ms=busy[1], long_tasks=busy[2])) == (
            MainThread(blocking_ms=1500.0, longest_ms=1500.0)
        )

    def file(blocking: float) -> bytes:
        snaps = {"home": at(blocking, blocking + 50, 1)}
        ev = A11yEvidence(canary=CANARY, axe=AXE_VERSION, r0=snaps, reference=snaps)
        return encode_a11y_evidence(ev)

    assert file(1452.0) == file(1430.6) and file(3.0) == file(0.0)
    kept = msgspec.json.decode(file(1452.0))["r0"]["home"]["main_thread"]
    assert kept == {"blocking_ms": 1500.0, "longest_ms": 1500.0, "long_tasks": 0}


def test_a_recapture_keeps_a_figure_its_measurement_agrees_with() -> None:
    """The CI run of session 20's submission: a static page read 0 ms at one capture and
    about 300 ms (its tasks stretched by steal) at the next, which rounds to 500 ms. The
    figure kept is rewritten only by a measurement more than a step away from it."""
    zero, half = MainThread(blocking_ms=0.0), MainThread(blocking_ms=500.0, longest_ms=500.0)
    stretched = MainThread(blocking_ms=290.0, longest_ms=340.0, long_tasks=3)
    assert coarse(stretched) == half  # rounding alone flips
    assert recaptured(zero, stretched) == zero
    assert recaptured(half, MainThread(blocking_ms=0.0)) == half
    assert recaptured(None, stretched) == half
    blocks = MainThread(blocking_ms=1452.0, longest_ms=1502.0, long_tasks=2)
    assert recaptured(zero, blocks) == MainThread(blocking_ms=1500.0, longest_ms=1500.0)
    # Both times must agree: the same total in one long task instead of many is new.
    one_long = MainThread(blocking_ms=400.0, longest_ms=1450.0, long_tasks=1)
    assert recaptured(half, one_long) == MainThread(blocking_ms=500.0, longest_ms=1500.0)


@pytest.mark.anyio
async def test_a_recaptured_file_is_the_same_bytes_unless_the_page_changed(
    task: TaskPackage,
) -> None:
    async def capture(blocking: float) -> bytes:
        snaps = {"home": at(blocking, blocking + 50, 3), "new": A11ySnapshot()}
        await write_a11y_side(task, "r0", snaps)
        return a11y_evidence_path(task).read_bytes()

    first = await capture(0.0)
    assert await capture(290.0) == first  # the same render, under steal
    assert await capture(3.0) == first
    changed = await capture(1452.0)  # the page now blocks
    kept = msgspec.json.decode(changed)["r0"]["home"]["main_thread"]
    assert kept == {"blocking_ms": 1500.0, "longest_ms": 1500.0, "long_tasks": 0}
    assert msgspec.json.decode(changed)["r0"]["new"]["main_thread"] is None


def test_an_evidence_figure_is_named_without_a_count(task: TaskPackage) -> None:
    base = A11ySnapshot(main_thread=coarse(MainThread(blocking_ms=3, longest_ms=53, long_tasks=1)))
    (check,) = main_thread_continuity(
        task.contract, {"home": at(1451, 1501, 1)}, [("R0", {"home": base})]
    )
    assert not check.passed
    assert "R0 at this state: total blocking time 0 ms (the longest 0 ms)" in check.observed


def weighs(n: int, requests: int = 3) -> A11ySnapshot:
    return A11ySnapshot(weight=PageWeight(bytes=n, requests=requests))


def test_the_weight_rule_allows_twice_the_base_or_the_allowance_whichever_is_more(
    task: TaskPackage,
) -> None:
    """`perf-bytes@S` (gate `assets`) fails only past both bounds: a small page may grow
    by the allowance (a requested feature's script), a big one up to twice its weight."""

    def verdict(final: int, base: int) -> bool:
        (check,) = weight_continuity(
            task.contract, {"home": weighs(final)}, [("R0", {"home": weighs(base)})]
        )
        assert check.gate == "assets" and check.id == "perf-bytes@home"
        return check.passed

    small, big = 40_000, 3_000_000
    assert verdict(small + BYTES_ALLOWANCE, small)  # 13x, but within the allowance
    assert not verdict(small + BYTES_ALLOWANCE + 1, small)
    assert verdict(2 * big, big)  # 3 MB more, but twice the base
    assert not verdict(2 * big + 1, big)
    # The heaviest base counts (the reference may ship more than R0).
    (check,) = weight_continuity(
        task.contract,
        {"home": weighs(2_000_000)},
        [("R0", {"home": weighs(small)}), ("the reference", {"home": weighs(1_500_000)})],
    )
    assert check.passed and "the reference at this state: 1.4 MB in 3" in check.observed


def test_the_weight_evidence_keeps_a_figure_within_a_step() -> None:
    assert coarse_weight(PageWeight(bytes=41_100, requests=4)) == PageWeight(
        bytes=40_960, requests=4
    )
    kept = PageWeight(bytes=40_960, requests=4)
    assert recaptured_weight(kept, PageWeight(bytes=43_000, requests=4)) == kept
    moved = recaptured_weight(kept, PageWeight(bytes=1_541_132, requests=5))
    assert moved == PageWeight(bytes=1_540_096, requests=5)


def shifts(cls: float) -> A11ySnapshot:
    return A11ySnapshot(layout_shift=cls)


def test_the_shift_rule_fails_a_poor_shift_well_above_the_base(task: TaskPackage) -> None:
    """`perf-layout-shift@S` (gate `visual_anchors`) fails only past both bounds: a shift
    Core Web Vitals calls poor, and more than the allowance above the highest base."""

    def verdict(final: float, *bases: float) -> bool:
        named = [(f"base {i}", {"home": shifts(b)}) for i, b in enumerate(bases)]
        (check,) = layout_shift_continuity(task.contract, {"home": shifts(final)}, named)
        assert check.gate == "visual_anchors" and check.id == "perf-layout-shift@home"
        return check.passed

    assert verdict(SHIFT_POOR, 0.0)  # at the bound: not poor
    assert not verdict(SHIFT_POOR + 0.01, 0.0)
    assert verdict(0.5, 0.5 - SHIFT_ALLOWANCE)  # the base's debt, and the allowance
    assert not verdict(0.5, 0.5 - SHIFT_ALLOWANCE - 0.01)
    assert verdict(0.5, 0.0, 0.45)  # the highest base counts
    (check,) = layout_shift_continuity(
        task.contract, {"home": shifts(0.31)}, [("R0", {"home": shifts(0.0)})]
    )
    assert check.observed == (
        "cumulative layout shift 0.31; R0 at this state: 0.00: 0.31 more"
        " (allowed up to 0.25, or 0.1 more than the base)"
    )


def test_the_shift_evidence_keeps_a_figure_within_a_step() -> None:
    assert coarse_shift(0.3116) == 0.3
    assert coarse_shift(0.0162) == 0.0
    assert recaptured_shift(0.3, 0.34) == 0.3
    assert recaptured_shift(0.3, 0.36) == 0.35
    assert recaptured_shift(None, 0.0162) == 0.0
