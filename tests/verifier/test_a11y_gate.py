"""The accessibility continuity rules on snapshots (no browser): what is charged, what
is debt, which base stands in for a new state, and how a cell and the baseline cache
carry R0's snapshots (#44). The browser side is `test_a11y_continuity.py`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

from orchestrator.cell import BaselineCache, BaselineResult, BaselineRun
from orchestrator.contract import TaskPackage
from orchestrator.records import (
    A11ySnapshot,
    AxeFinding,
    CheckResult,
    FieldFinding,
    FocusFinding,
    LiveFinding,
    VerifyReport,
)
from orchestrator.verifier import VerifyRequest, a11y_continuity, gate_results, with_a11y_continuity

from .conftest import make_task

LEDE = AxeFinding(rule="color-contrast", target=".lede", measured="contrast 2.1:1", markup="aa")
STATES: list[dict[str, Any]] = [
    {"id": "home", "route": "/"},
    {"id": "form", "route": "/", "from": "home", "actions": [{"do": "click", "selector": "#go"}]},
    {"id": "new", "route": "/new", "from": "home"},
    {"id": "other", "route": "/other"},
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


def snap(**kw: Any) -> A11ySnapshot:
    return A11ySnapshot(**kw)


def by_id(checks: list[CheckResult]) -> dict[str, CheckResult]:
    return {c.id: c for c in checks}


def test_a_violation_where_r0_passed_is_charged_with_the_measured_values(
    task: TaskPackage,
) -> None:
    r0 = {"home": snap(passes=("color-contrast|.lede",))}
    got = by_id(a11y_continuity(task.contract, {"home": snap(violations=(LEDE,))}, [("R0", r0)]))
    c = got["a11y-contrast@home"]
    assert not c.passed and c.gate == "visual_anchors"
    assert "color-contrast on .lede: contrast 2.1:1 (passed in R0 at this state)" in c.message
    assert got["a11y-axe@home"].passed  # a contrast rule is not charged twice


def test_r0_debt_and_new_elements_are_not_charged(task: TaskPackage) -> None:
    final = {"home": snap(violations=(LEDE, AxeFinding(rule="image-alt", target="img.new")))}
    debt = {"home": snap(violations=(LEDE,), passes=("color-contrast|.lede",))}
    got = a11y_continuity(task.contract, final, [("R0", debt)])
    assert got and all(c.passed for c in got)
    # Debt in either base is debt, even where the other base passed the element.
    clean = {"home": snap(passes=("color-contrast|.lede",))}
    got = a11y_continuity(task.contract, final, [("R0", clean), ("the reference", debt)])
    assert all(c.passed for c in got)


def test_an_element_whose_selector_moved_is_found_by_its_markup(task: TaskPackage) -> None:
    moved = AxeFinding(rule="color-contrast", target="p:nth-child(3)", markup="aa")
    r0 = {"home": snap(passes=("color-contrast|.lede", "color-contrast#aa"))}
    got = by_id(a11y_continuity(task.contract, {"home": snap(violations=(moved,))}, [("R0", r0)]))
    assert not got["a11y-contrast@home"].passed


def test_a_new_state_is_compared_with_its_nearest_r0_state(task: TaskPackage) -> None:
    # `new` was not reached in R0 (its route is new): `home`, its `from`, stands in.
    r0 = {
        "home": snap(passes=("color-contrast|.lede",)),
        "new": snap(reached=False),
        "other": snap(passes=("color-contrast|.lede",)),
    }
    got = by_id(a11y_continuity(task.contract, {"new": snap(violations=(LEDE,))}, [("R0", r0)]))
    assert "R0 at state 'home' (nearest)" in got["a11y-contrast@new"].message


def test_focus_lost_where_r0_showed_it(task: TaskPackage) -> None:
    shown = FocusFinding(element="a#home", visible=True, detail="outline none -> auto 1px")
    gone = FocusFinding(element="a#home", visible=False, detail="outline none, same")
    brand_new = FocusFinding(element="button#new", visible=False, detail="outline none, same")
    final = {"home": snap(focus=(gone, brand_new))}
    got = by_id(a11y_continuity(task.contract, final, [("R0", {"home": snap(focus=(shown,))})]))
    c = got["a11y-focus@home"]
    assert not c.passed and "a#home: outline none, same" in c.observed
    assert "button#new" not in c.observed
    debt = {"home": snap(focus=(gone,))}
    assert by_id(a11y_continuity(task.contract, final, [("R0", debt)]))["a11y-focus@home"].passed


def test_form_values_lost_on_the_error_path_only_against_the_same_state(
    task: TaskPackage,
) -> None:
    kept = snap(fields=(FieldFinding(selector="#name", typed="Ada", value="Ada"),), error_path=True)
    lost = snap(fields=(FieldFinding(selector="#name", typed="Ada", value=""),), error_path=True)
    got = by_id(a11y_continuity(task.contract, {"form": lost}, [("R0", {"form": kept})]))
    assert "#name typed 'Ada', now ''" in got["a11y-form@form"].message
    # A success path (no validation error) may clear the form.
    ok = msgspec.structs.replace(lost, error_path=False)
    assert "a11y-form@form" not in by_id(
        a11y_continuity(task.contract, {"form": ok}, [("R0", {"form": kept})])
    )
    # R0 not at this state: no form to compare with (never the nearest state's).
    r0 = {"home": kept, "form": snap(reached=False)}
    assert "a11y-form@form" not in by_id(
        a11y_continuity(task.contract, {"form": lost}, [("R0", r0)])
    )


def test_a_live_region_removed_from_what_a_check_reads(task: TaskPackage) -> None:
    was = LiveFinding(check="c", selector="#status", live="role=status", text="Saved")
    now = LiveFinding(check="c", selector="#status", live="", text="Saved")
    got = by_id(
        a11y_continuity(
            task.contract, {"home": snap(live=(now,))}, [("R0", {"home": snap(live=(was,))})]
        )
    )
    c = got["a11y-live@home"]
    assert not c.passed and c.gate == "regression_text" and "role=status" in c.observed


def test_an_unobserved_probe_adds_no_check(task: TaskPackage) -> None:
    final = {"home": snap(axe_error="TimeoutError", violations=(LEDE,), focus_error="gone")}
    r0 = {"home": snap(passes=("color-contrast|.lede",))}
    assert a11y_continuity(task.contract, final, [("R0", r0)]) == []


def test_the_report_is_regraded_and_unchanged_without_a_base(task: TaskPackage) -> None:
    plain = (CheckResult(id="c", gate="text", state="home", passed=True),)
    report = VerifyReport(
        checks=plain, gates=gate_results(plain), a11y={"home": snap(violations=(LEDE,))}
    )
    assert with_a11y_continuity(report, task.contract, []) is report
    assert with_a11y_continuity(report, task.contract, [("R0", {})]) is report
    r0 = {"home": snap(passes=("color-contrast|.lede",))}
    graded = with_a11y_continuity(report, task.contract, [("R0", r0)])
    assert graded.gate("visual_anchors").status == "fail"
    assert graded.gate("visual_anchors").failed_checks == ("a11y-contrast@home",)
    assert graded.gate("text").status == "pass"


async def test_the_baseline_cache_keeps_r0_snapshots_and_reads_an_older_file(
    tmp_path: Path,
) -> None:
    r0 = {"home": snap(passes=("color-contrast|.lede",))}

    async def compute() -> BaselineRun:
        return BaselineRun(gates={"build": "pass", "serve": "pass"}, a11y=r0)

    got = await BaselineCache(tmp_path).get("k", compute)
    assert got.a11y == r0
    again = await BaselineCache(tmp_path).get("k", compute)  # from the file
    assert again.a11y == r0
    old = msgspec.json.decode(b'{"key": "k", "gates": {"serve": "pass"}}', type=BaselineResult)
    assert old.a11y == {}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


pytestmark = pytest.mark.anyio


# ---------------------------------------------------------------- the cell's hook


async def test_a_cell_grades_its_final_against_the_baseline_s_r0_snapshots(
    tmp_path: Path,
) -> None:
    from orchestrator.cell import CellContext, run_cell
    from orchestrator.events import Final, read_events
    from sandbox import Labels
    from tests.fixtures.staged import Scripted, Site, fix, tiny_task

    class A11ySite(Site):
        """R0 (the baseline's sandbox) passed the lede's contrast; a final whose tree
        says `break:contrast` fails it."""

        def amend(self, request: VerifyRequest, report: VerifyReport) -> VerifyReport:
            if request.check_ids is not None:
                return report
            cell = request.base_url.rsplit("/", 1)[-1]
            tree = "".join(p.read_text() for p in self.roots[cell].rglob("*.css"))
            if cell.endswith("-baseline"):
                home = snap(passes=("color-contrast|.lede",))
            else:
                home = snap(violations=(LEDE,)) if "break:contrast" in tree else snap()
            return msgspec.structs.replace(report, a11y={"home": home})

    task = tiny_task(tmp_path / "tasks")
    G, A, P = "greeting-text", "about-tagline", "plums-listed"

    async def cell(name: str, last: str, site: A11ySite) -> Any:
        solver = Scripted((fix(G), "done"), (fix(G, A), "done"), (last, "done"))
        ctx = CellContext(
            task=task,
            backend=site,
            cell_dir=tmp_path / name / "cell",
            labels=Labels(sweep="s", cell="c"),
            baseline=BaselineCache(tmp_path / name / "baseline"),
            verifier=site,
        )
        return (await run_cell(ctx, solver)).result

    broke = await cell("broke", fix(G, A, P) + " break:contrast", A11ySite())
    assert broke.final_gates["visual_anchors"] == "fail"
    regressions = {r.gate: r.failed_checks for r in broke.baseline_regressions}
    assert regressions == {"visual_anchors": ("a11y-contrast@home",)}
    # The grounded message is in the cell's events.
    (final,) = [
        e for e in read_events(tmp_path / "broke" / "cell" / "events.jsonl") if isinstance(e, Final)
    ]
    assert [c.id for c in final.a11y_failed] == ["a11y-contrast@home"]
    assert "color-contrast on .lede: contrast 2.1:1" in final.a11y_failed[0].message
    clean = await cell("clean", fix(G, A, P), A11ySite())
    assert clean.final_gates["visual_anchors"] == "pass" and clean.baseline_regressions == ()


def test_axe_debt_anywhere_in_r0_is_debt(task: TaskPackage) -> None:
    """A final showing another page at this state (its link stopped navigating) is not
    charged for that page's old violations, even where R0's page here passed the rule."""
    old_debt = AxeFinding(rule="heading-order", target="h3", markup="bb")
    r0 = {
        "home": snap(passes=("heading-order|h3",)),
        "other": snap(violations=(old_debt,)),
    }
    got = by_id(
        a11y_continuity(task.contract, {"home": snap(violations=(old_debt,))}, [("R0", r0)])
    )
    assert got["a11y-axe@home"].passed
