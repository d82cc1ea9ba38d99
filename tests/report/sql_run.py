"""A realistic manifest for the second computation of the report's statistics
(`test_report_sql.py`): several models, controls, a scripted solver, a CLI agent, both
arms, repeats, rows that are no result, twins, flips, baseline regressions and coverage.

Seeded: the same seed always gives the same rows. The rows are data; the scores of each
row come from the harness's own `score_cell`, as a sweep writes them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from orchestrator.contract import Gate
from orchestrator.records import (
    BaselineRegression,
    CellResult,
    Flip,
    GateStatus,
    ManifestRow,
    TaskLabels,
    UnitOutcome,
)
from orchestrator.scoring import score_cell
from orchestrator.solver_cards import SolverCard
from tests.rows import manifest_row, result

# The 19 gates in the paper's order, written out here rather than imported.
GATE_NAMES: tuple[Gate, ...] = (
    "dom",
    "text",
    "interaction",
    "a11y",
    "regression_text",
    "visual_anchors",
    "design_tokens",
    "layout_overflow",
    "containment",
    "state_artifacts",
    "navigation",
    "routes",
    "console",
    "network",
    "assets",
    "build",
    "serve",
    "scope",
    "visual_regression",
)
COMPLETION: tuple[Gate, ...] = GATE_NAMES[:4]
CONSERVATIVE: tuple[Gate, ...] = GATE_NAMES[4:18]

STACKS = ("static", "hugo", "vite", "node", "php")
FACETS = ("state", "design", "experience", "content", "regression")
CAPABILITIES = ("edit", "repair", "consistency")
NO_BUILD = ("static", "node", "php")


def _card(name: str, kind: str, role: str, backbone: str = "", scaffold: str = "") -> SolverCard:
    return SolverCard(name=name, kind=kind, role=role, backbone=backbone, scaffold=scaffold)  # type: ignore[arg-type]


CARDS: dict[str, SolverCard] = {
    "m1": _card("m1", "llm", "model", "gpt", "pwb-agent"),
    "m2": _card("m2", "llm", "model", "claude", "pwb-agent"),
    "m3": _card("m3", "llm", "model", "qwen", "pwb-agent"),
    "cli": _card("cli", "scaffold", "model", "gpt", "cli"),
    # full-spec only: the scaffold x backbone grid
    "cli-claude": _card("cli-claude", "scaffold", "model", "claude", "cli"),
    "aider-gpt": _card("aider-gpt", "scaffold", "model", "gpt", "aider"),
    "aider-claude": _card("aider-claude", "scaffold", "model", "claude", "aider"),
    "fake": _card("fake", "llm", "scripted", "scripted"),
    "reference": _card("reference", "reference", "control"),
    "noop": _card("noop", "noop", "control"),
    "thrash": _card("thrash", "thrash", "control"),
    "negative:drop-route": _card("negative:drop-route", "negative", "control"),
}
# How often a gate passes for each solver.
SKILL = {
    "cli-claude": 0.77,
    "aider-gpt": 0.68,
    "aider-claude": 0.72,
    "m1": 0.82,
    "m2": 0.76,
    "m3": 0.7,
    "cli": 0.74,
    "fake": 0.9,
    "reference": 0.99,
    "noop": 0.45,
    "thrash": 0.4,
    "negative:drop-route": 0.6,
}
FULL_SPEC = ("m1", "m2", "cli", "fake", "cli-claude", "aider-gpt", "aider-claude")
STAGED_NOT = ("cli-claude", "aider-gpt", "aider-claude")
# (status, attempts, with a result): the mix of row endings a long sweep leaves.
ENDINGS: tuple[tuple[float, str, int, bool], ...] = (
    (0.70, "ok", 1, True),
    (0.06, "budget", 1, True),
    (0.04, "budget", 0, False),  # a sweep cap stopped it before it started
    (0.01, "budget", 1, False),  # the final checkpoint overran its grace
    (0.04, "llm_error", 1, False),  # an in-harness provider failure
    (0.03, "llm_error", 1, True),
    (0.03, "cancelled", 1, False),
    (0.03, "infra_error", 3, False),
    (0.02, "harness_error", 1, False),
    (0.02, "outage", 1, False),
    (0.02, "task_error", 1, False),
)


@dataclass(frozen=True)
class SqlRun:
    rows: list[ManifestRow]
    cards: dict[str, SolverCard]
    twins: dict[str, str]  # twin task -> its Change source


def _labels(regime: str, capability: str, facet: str, stack: str) -> TaskLabels:
    return TaskLabels(
        regime=regime,  # type: ignore[arg-type]
        capability=capability,  # type: ignore[arg-type]
        facet=facet,  # type: ignore[arg-type]
        stack=stack,
        framework=stack,
    )


def _tasks() -> dict[str, TaskLabels]:
    out = {}
    for i in range(26):
        out[f"c{i:02d}"] = _labels(
            "change", CAPABILITIES[i % 3], FACETS[i % len(FACETS)], STACKS[i % len(STACKS)]
        )
    for i, stack in enumerate(("vite", "static", "react", "hugo")):
        out[f"b{i:02d}"] = _labels("build", "build", "construction", stack)
    for source in ("c00", "c05", "c03"):
        out[f"{source}-twin"] = _labels("build", "build", "construction", "static")
    return out


def _gates(rng: random.Random, solver: str, stack: str) -> dict[Gate, GateStatus]:
    p = SKILL[solver]
    gates: dict[Gate, GateStatus] = {}
    for g in GATE_NAMES:
        if g == "build" and stack in NO_BUILD:
            gates[g] = "n/a"  # moot: the stack has no build command
        elif g == "serve" and stack == "static":
            gates[g] = "n/a"
        elif g == "scope" and CARDS[solver].kind != "scaffold":
            gates[g] = "pass"  # the workspace refused every write outside allowed_paths
        elif g == "interaction" and rng.random() < 0.35:
            gates[g] = "n/a"  # no interaction check on this task
        elif rng.random() < 0.04:
            gates[g] = "n/a"  # e.g. the health checks of a state that never loaded
        else:
            q = p**0.2 if g in COMPLETION else p**0.12
            gates[g] = "pass" if rng.random() < q else "fail"
    return gates


def _ending(rng: random.Random) -> tuple[str, int, bool]:
    x = rng.random()
    for share, status, attempts, delivered in ENDINGS:
        if x < share:
            return status, attempts, delivered
        x -= share
    return "ok", 1, True


def realistic_run(seed: int = 37) -> SqlRun:
    rng = random.Random(seed)
    tasks = _tasks()
    twins = {t: t.removesuffix("-twin") for t in tasks if t.endswith("-twin")}
    covered_tasks = {t for i, t in enumerate(sorted(tasks)) if i % 4 != 3}
    # Units per task (a contract's plan): Build plans are the longer ones.
    plans = {
        t: rng.randint(5, 12) if labels.regime == "build" else rng.randint(3, 6)
        for t, labels in tasks.items()
    }
    rows = []
    for task, labels in tasks.items():
        for solver in CARDS:
            if solver.startswith("negative") and labels.regime == "build":
                continue  # negatives are authored for Change tasks
            arms = ("staged", "full-spec") if solver in FULL_SPEC else ("staged",)
            for arm in [a for a in arms if a == "full-spec" or solver not in STAGED_NOT]:
                repeats = 2 if solver == "m1" and task in ("c00", "c01", "b00") else 1
                for repeat in range(repeats):
                    status, attempts, delivered = _ending(rng)
                    res = None
                    if delivered:
                        res = _result(rng, solver, labels, task in covered_tasks, plans[task])
                    rows.append(
                        manifest_row(
                            task,
                            solver,
                            labels,
                            arm=arm,
                            repeat=repeat,
                            status=status,
                            res=res,
                            attempts=attempts,
                            error="" if status == "ok" else status,
                        )
                    )
    rng.shuffle(rows)  # manifest order is completion order, never sorted
    return SqlRun(rows=rows, cards=dict(CARDS), twins=twins)


def _result(
    rng: random.Random, solver: str, labels: TaskLabels, covered: bool, n_units: int
) -> CellResult:
    gates = _gates(rng, solver, labels.stack)
    cleared = [rng.random() < SKILL[solver] for _ in range(n_units)]
    units = tuple(
        UnitOutcome(
            id=f"u{i}",
            kind="stage" if i < n_units - 1 else "rework",
            cleared=ok,
            capped=not ok,
            # a cleared unit stops early, a failed one burns its 12-turn budget
            turns=rng.randint(1, 5) if ok else 12,
        )
        for i, ok in enumerate(cleared)
    )
    flips: tuple[Flip, ...] = ()
    if rng.random() < (0.6 if solver == "thrash" else 0.3):
        flips = tuple(
            Flip(
                check=f"k{j}",
                gate=rng.choice(COMPLETION + CONSERVATIVE[:6]),
                passed_at=1,
                failed_at=2 + j,
                repaired_at=rng.choice((None, 4 + j)),
            )
            for j in range(rng.randint(1, 3))
        )
    covered = covered and labels.regime == "change" and rng.random() < 0.9
    regressions: tuple[BaselineRegression, ...] = ()
    if covered:
        regressions = tuple(
            BaselineRegression(gate=g, failed_checks=(f"{g}@home",))
            for g, s in gates.items()
            if s == "fail" and rng.random() < 0.4
        )
    return result(
        score_cell(units, gates, flips),
        units=units,
        final_gates=gates,
        flips=flips,
        baseline_regressions=regressions,
        baseline_covered=covered,
        edits_applied=0 if rng.random() < 0.12 else rng.randint(1, 9),
        edits_refused=rng.choice((0, 0, 0, 1, 2)),
        turns=sum(u.turns for u in units),
    )
