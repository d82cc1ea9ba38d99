"""The thirteen bugs of issue #18 and those of issue #35 (a build result wired as always
ok, the bootstrap interval at 90 %, a full-spec unit cleared by any one check, `_how`),
each planted in the real code by a fixture, and the test that guards against it run on
the planted code: it must fail.

A bug is planted the way the issue planted them: a one-line edit of one function's
source (`old` -> `new`, which must occur exactly once), compiled in that module's
namespace and swapped in for the function everywhere it is bound (its module, its
class, every module that imported it by name). A constant is swapped the same way.
Each case also runs its guard on the clean code first: the guard passes there.
"""

from __future__ import annotations
import __future__

import functools
import importlib
import inspect
import os
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.fixtures.pngs import png
from tests.fixtures.staged import tiny_task
from tests.mutants import (
    test_checkpoint_rules,
    test_flip_tracker,
    test_gate_evaluators,
    test_path_guards,
    test_resume,
    test_scoring_rules,
    test_staged_rules,
)
from tests.report import test_report_stats


@dataclass(frozen=True)
class Edit:
    """Replace `old` by `new` in the source of `target` ("module:qualname")."""

    target: str
    old: str
    new: str


@dataclass(frozen=True)
class Value:
    """Set the module-level name `target` ("module:name") to `value`."""

    target: str
    value: object


def _resolve(target: str) -> tuple[Any, str, Any]:
    """(owner, attribute name, current object) of "module:qualname"."""
    module_name, qualname = target.split(":")
    owner: Any = importlib.import_module(module_name)
    *path, name = qualname.split(".")
    for part in path:
        owner = getattr(owner, part)
    return owner, name, owner.__dict__[name]


def _rebind(mp: pytest.MonkeyPatch, owner: Any, name: str, old: Any, new: Any) -> None:
    mp.setattr(owner, name, new)
    if inspect.isclass(owner):
        return
    for module in list(sys.modules.values()):
        namespace = getattr(module, "__dict__", None)
        if module is owner or not isinstance(namespace, dict):
            continue
        for key, value in list(namespace.items()):
            if value is old:
                mp.setattr(module, key, new)


def plant(mp: pytest.MonkeyPatch, bug: Edit | Value) -> None:
    owner, name, current = _resolve(bug.target)
    if isinstance(bug, Value):
        _rebind(mp, owner, name, current, bug.value)
        return
    func = current
    source = textwrap.dedent(inspect.getsource(func))
    assert source.count(bug.old) == 1, f"{bug.target}: {bug.old!r} must occur once"
    code = compile(
        source.replace(bug.old, bug.new),
        inspect.getsourcefile(func) or "<planted>",
        "exec",
        flags=__future__.annotations.compiler_flag,
        dont_inherit=True,
    )
    namespace: dict[str, Any] = {}
    exec(code, func.__globals__, namespace)
    _rebind(mp, owner, name, func, namespace[func.__name__])


def _run(guard: Callable[..., Any], *args: Any) -> None:
    if inspect.iscoroutinefunction(guard):
        anyio.run(functools.partial(guard, *args))
    else:
        guard(*args)


@dataclass(frozen=True)
class Case:
    bug: Edit | Value
    # The guard, called with the arguments the fixture below builds from `args`.
    guard: Callable[..., Any]
    args: Callable[[Path], tuple[Any, ...]] = lambda tmp: ()


def _reference(tmp: Path) -> tuple[Path]:
    tmp.mkdir(parents=True)
    ref = tmp / "home.png"
    ref.write_bytes(png(100, 100, []))
    return (ref,)


def _ws_root(tmp: Path) -> tuple[Path]:
    root = tmp / "ws"
    (root / "css").mkdir(parents=True)
    (root / "index.html").write_text("<h1>Hi</h1>\n")
    return (root,)


def _ws_root_and_tmp(tmp: Path) -> tuple[Path, Path]:
    return (_ws_root(tmp)[0], tmp)


def _cell_args(tmp: Path) -> tuple[Path, Any]:
    return (tmp, tiny_task(tmp.parent / "tasks"))


_NOFOLLOW_OFF = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC

CASES: dict[str, Case] = {
    "wcs break penalty sign flipped": Case(
        Edit("orchestrator.scoring:Weights.wcs", "final_pass - penalty", "final_pass + penalty"),
        test_scoring_rules.test_wcs_break_penalty_lowers_the_score,
    ),
    "wcs lower clamp removed": Case(
        Edit("orchestrator.scoring:Weights.wcs", "min(1.0, max(0.0, raw))", "min(1.0, raw)"),
        test_scoring_rules.test_wcs_lower_clamp_holds_a_negative_score_at_zero,
    ),
    "flip passed_at set to the previous checkpoint": Case(
        Edit(
            "orchestrator.cell._flips:FlipTracker.observe",
            "passed_at=self._last_pass[cid]",
            "passed_at=index - 1",
        ),
        test_flip_tracker.test_flip_passed_at_is_the_last_checkpoint_that_passed_not_the_previous_one,
    ),
    ".git write guard only at the top level": Case(
        Edit(
            "orchestrator.workspace._paths:split",
            "if any(is_git_name(p) for p in parts):",
            "if parts and is_git_name(parts[0]):",
        ),
        lambda root: test_path_guards.test_git_segment_is_refused_at_any_depth(
            root, "css/.git/config"
        ),
        _ws_root,
    ),
    "resume ignores config_hash": Case(
        Edit(
            "orchestrator.sweep._sweep:pending_jobs",
            "and row.config_hash == job.template.config_hash",
            "and True",
        ),
        test_resume.test_resume_reruns_rows_of_another_config_hash,
    ),
    "resume ignores attempts > 0": Case(
        Edit("orchestrator.sweep._sweep:pending_jobs", "and row.attempts > 0", "and True"),
        test_resume.test_resume_reruns_rows_that_never_started_an_attempt,
    ),
    "routes accepts 3xx": Case(
        Edit(
            "orchestrator.verifier._core._gates:_routes",
            "not 200 <= obs.status < 300",
            "not 200 <= obs.status < 400",
        ),
        lambda: test_gate_evaluators.test_routes_gate_fails_on_3xx(302),
    ),
    "layout_overflow never fails": Case(
        Edit(
            "orchestrator.verifier._core._gates:_state_verdicts",
            "not h.overflow and not h.clipped,",
            "True,",
        ),
        test_gate_evaluators.test_layout_overflow_fails_when_the_page_scrolls_horizontally,
    ),
    "baseline regression channel turned off (scoring)": Case(
        Edit(
            "orchestrator.scoring:baseline_regressions",
            'if s == "pass" and final_gates.get(g) == "fail"',
            "if False",
        ),
        test_scoring_rules.test_baseline_regression_is_a_gate_r0_passes_and_the_final_fails,
    ),
    "baseline regression channel turned off (cell)": Case(
        Edit(
            "orchestrator.cell._grade:grade",
            "if baseline and baseline.covered and final is not None",
            "if False",
        ),
        test_staged_rules.test_baseline_channel_reports_a_gate_r0_passes_and_the_final_breaks,
        _cell_args,
    ),
    "build gate hard-wired to pass": Case(
        Edit(
            "orchestrator.verifier._core._gates:run_health",
            '"build": (health.build_ok,',
            '"build": (True,',
        ),
        test_gate_evaluators.test_build_gate_fails_when_the_build_fails,
    ),
    "visual threshold raised to 50%": Case(
        Edit("orchestrator.verifier._replay._visual:compare", "frac <= threshold", "frac <= 0.5"),
        test_gate_evaluators.test_visual_check_fails_above_the_default_threshold,
        _reference,
    ),
    "symlink-escape check removed": Case(
        Value("orchestrator.workspace._paths:DIR_FLAGS", _NOFOLLOW_OFF),
        test_path_guards.test_symlink_escape_is_refused,
        _ws_root_and_tmp,
    ),
    "gates never report fail": Case(
        Edit(
            "orchestrator.verifier._core._gates:gate_results",
            '"fail" if failed else "pass"',
            '"pass"',
        ),
        test_gate_evaluators.test_gates_report_fail_when_one_check_fails,
    ),
    # Issue #35: three bugs planted independently of this file that passed every fast
    # test, and a mutant of `_how` that no test killed.
    "build result wired into RunHealth as always ok": Case(
        Edit(
            "orchestrator.checkpoint:Checkpointer.run",
            "build_ok=build is None or build.ok,",
            "build_ok=True,",
        ),
        test_checkpoint_rules.test_a_failing_build_fails_the_build_gate_and_is_never_served,
        _cell_args,
    ),
    "bootstrap interval at 90% (default level)": Case(
        Edit(
            "orchestrator.report._stats:cluster_bootstrap",
            "level: float = 0.95,",
            "level: float = 0.90,",
        ),
        lambda: test_report_stats.test_bootstrap_interval_is_95_percent_of_a_known_distribution(
            "cluster_bootstrap"
        ),
    ),
    "bootstrap interval at 90% (the report's mean)": Case(
        Edit(
            "orchestrator.report._measures:mean",
            "n_boot=N_BOOT, seed=SEED)",
            "n_boot=N_BOOT, seed=SEED, level=0.90)",
        ),
        lambda: test_report_stats.test_bootstrap_interval_is_95_percent_of_a_known_distribution(
            "report mean"
        ),
    ),
    "bootstrap alpha not halved": Case(
        Edit(
            "orchestrator.report._stats:cluster_bootstrap",
            "alpha = (1.0 - level) / 2.0",
            "alpha = 1.0 - level",
        ),
        test_report_stats.test_bootstrap_level_sets_the_width_like_the_normal_quantiles,
    ),
    "full-spec unit cleared when any one check passes": Case(
        Edit(
            "orchestrator.cell._grade:_unit_outcomes",
            "all(_passed(final, c) for c in u.checks)",
            "any(_passed(final, c) for c in u.checks)",
        ),
        test_staged_rules.test_full_spec_clears_a_unit_only_when_every_one_of_its_checks_passes,
        _cell_args,
    ),
    "a state with no context counted as warm": Case(
        Edit(
            "orchestrator.cell._staged:_how",
            'return s.context or "failed"',
            'return s.context or "warm"',
        ),
        test_staged_rules.test_a_checkpoint_summary_counts_how_its_states_were_obtained,
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_planted_bug_is_caught(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    case = CASES[name]
    _run(case.guard, *case.args(tmp_path / "clean"))  # the guard passes on clean code
    plant(monkeypatch, case.bug)
    # An assert, or a `pytest.raises` that saw nothing raised, is the guard failing.
    with pytest.raises((AssertionError, pytest.fail.Exception)):
        _run(case.guard, *case.args(tmp_path / "planted"))


def test_planting_swaps_every_binding_and_undoes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from orchestrator import scoring
    from orchestrator.scoring import Weights

    with monkeypatch.context() as mp:
        plant(mp, CASES["wcs lower clamp removed"].bug)
        assert Weights().wcs(0.0, 0.0, False, 1) == pytest.approx(-0.05)
        assert scoring.Weights is Weights
    assert Weights().wcs(0.0, 0.0, False, 1) == 0.0
