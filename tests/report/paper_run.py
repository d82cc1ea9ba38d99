"""A synthetic manifest shaped like the paper's population (issue #55): 400 tasks (Change
about 80 %, Build about 20 % with greenfield twins among them), 9 models under test in
both arms, the controls on the staged arm, a few repeated cells, and the paper's mix of
row endings: mostly `ok`, then infra, provider and harness faults, budget stops with and
without a final checkpoint, cancelled and outage rows.

Why synthetic: a real run of this size is about 8,700 cells of Docker and Chromium;
the report's populations have to hold at that size in the fast tier. Every row is a
`ManifestRow` as the sweep writes it (`tests.rows.manifest_row`) and its scores come from
the harness's own `score_cell`, so the rows are data a report cannot tell from a sweep's.

Seeded and deterministic: `paper_run(seed)` always gives the same rows, in a shuffled
(completion) order. It takes well under a second.
"""

from __future__ import annotations

import random

import msgspec

from orchestrator.contract import Capability, Facet, Gate
from orchestrator.records import (
    BaselineRegression,
    CellResult,
    Flip,
    GateStatus,
    ManifestRow,
    Spend,
    TaskLabels,
    UnitOutcome,
)
from orchestrator.scoring import score_cell
from orchestrator.solver_cards import SolverCard
from tests.report.sql_run import COMPLETION, CONSERVATIVE, GATE_NAMES, SqlRun
from tests.rows import manifest_row, result

TASKS = 400
BUILD_SHARE = 0.2
TWINS = 16  # greenfield twins among the Build tasks, each of one Change task
STACKS = ("static", "hugo", "vite", "node", "php", "react", "astro")
NO_BUILD = ("static", "node", "php")
FACETS: tuple[Facet, ...] = ("state", "design", "experience", "content", "regression")
CHANGE_CAPABILITIES: tuple[Capability, ...] = ("edit", "repair", "consistency")

# The models under test: (name, backbone, skill). Skill is the chance a run is on track;
# the spread puts pooled Gate% in the paper's band and the leader a few points ahead.
MODELS: tuple[tuple[str, str, float], ...] = (
    ("m1", "gpt-large", 0.62),
    ("m2", "claude-large", 0.58),
    ("m3", "gemini-pro", 0.55),
    ("m4", "gpt-mini", 0.47),
    ("m5", "claude-small", 0.45),
    ("m6", "qwen-coder", 0.40),
    ("m7", "deepseek", 0.38),
    ("m8", "llama", 0.30),
    ("m9", "mistral", 0.25),
)
CONTROLS: tuple[tuple[str, float], ...] = (("reference", 0.99), ("noop", 0.0), ("thrash", 0.5))
REPEATED_MODELS = ("m1", "m4", "m8")  # rerun variability: 3 runs of 20 tasks, staged
REPEATED_TASKS = 20
PRICE = {"m1": 0.9, "m2": 1.1, "m3": 0.7, "m4": 0.2, "m5": 0.3, "m6": 0.1}  # USD per cell

# (share, status, attempts, with a result): the row endings of a long sweep.
ENDINGS: tuple[tuple[float, str, int, bool], ...] = (
    (0.80, "ok", 1, True),
    (0.04, "budget", 1, True),  # a turn/token cap: scored on what it delivered
    (0.02, "budget", 0, False),  # a sweep cap stopped it before it started
    (0.005, "budget", 1, False),  # the final checkpoint overran its grace
    (0.025, "llm_error", 1, True),
    (0.02, "llm_error", 1, False),  # an in-harness provider failure
    (0.03, "infra_error", 3, False),
    (0.005, "infra_error", 3, True),
    (0.02, "cancelled", 1, False),
    (0.01, "harness_error", 1, False),
    (0.01, "outage", 1, False),
    (0.005, "task_error", 1, False),
)


def _card(name: str, kind: str, role: str, backbone: str = "", scaffold: str = "") -> SolverCard:
    return SolverCard(name=name, kind=kind, role=role, backbone=backbone, scaffold=scaffold)  # type: ignore[arg-type]


CARDS: dict[str, SolverCard] = {
    **{n: _card(n, "llm", "model", backbone, "pwb-agent") for n, backbone, _ in MODELS},
    **{n: _card(n, n, "control") for n, _ in CONTROLS},
}
SKILL = {n: s for n, _, s in MODELS} | dict(CONTROLS)


def _tasks(rng: random.Random) -> tuple[dict[str, TaskLabels], dict[str, str]]:
    """Task labels, and twin -> source."""
    n_build = round(TASKS * BUILD_SHARE)
    tasks: dict[str, TaskLabels] = {}
    for i in range(TASKS - n_build):
        tasks[f"c{i:03d}"] = TaskLabels(
            regime="change",
            capability=rng.choice(CHANGE_CAPABILITIES),
            facet=rng.choice(FACETS),
            stack=rng.choice(STACKS),
            framework="",
        )
    sources = rng.sample(sorted(tasks), TWINS)
    twins = {f"{s}-twin": s for s in sources}
    for name in [*twins, *(f"b{i:03d}" for i in range(n_build - TWINS))]:
        tasks[name] = TaskLabels(
            regime="build",
            capability="build",
            facet="construction",
            stack=rng.choice(STACKS),
            framework="",
        )
    return tasks, twins


def _ending(rng: random.Random) -> tuple[str, int, bool]:
    x = rng.random()
    for share, status, attempts, delivered in ENDINGS:
        if x < share:
            return status, attempts, delivered
        x -= share
    return "ok", 1, True


def _gates(rng: random.Random, solver: str, stack: str, on_track: bool) -> dict[Gate, GateStatus]:
    if solver == "reference":
        p_done, p_rest = 1.0, 1.0
    elif solver == "noop":
        p_done, p_rest = 0.05, 0.8
    elif solver == "thrash":
        p_done, p_rest = 0.95, 0.95
    else:
        p_done, p_rest = (0.97, 0.985) if on_track else (0.45, 0.75)
    gates: dict[Gate, GateStatus] = {}
    for g in GATE_NAMES:
        if g == "build" and stack in NO_BUILD:
            gates[g] = "n/a"
        elif g == "serve" and stack == "static":
            gates[g] = "n/a"
        elif g == "scope":
            gates[g] = "pass"  # in-harness solvers: the workspace refused every stray write
        elif g == "interaction" and rng.random() < 0.3:
            gates[g] = "n/a"  # no interaction check on this task
        elif rng.random() < 0.02:
            gates[g] = "n/a"  # the health checks of a state that never loaded
        else:
            p = p_done if g in COMPLETION else p_rest
            gates[g] = "pass" if rng.random() < p else "fail"
    return gates


def _units(
    rng: random.Random, solver: str, n_units: int, on_track: bool, stopped: bool
) -> tuple[UnitOutcome, ...]:
    """Stages then reworks (the last one or two units); a budget stop leaves the tail."""
    n_rework = 1 if n_units < 5 else 2
    p = {"reference": 1.0, "noop": 0.0, "thrash": 0.7}.get(solver, 0.9 if on_track else 0.35)
    reached = rng.randint(1, n_units - 1) if stopped else n_units
    out = []
    for i in range(n_units):
        ok = i < reached and rng.random() < p
        out.append(
            UnitOutcome(
                id=f"u{i + 1}",
                kind="rework" if i >= n_units - n_rework else "stage",
                cleared=ok,
                capped=i < reached and not ok,
                turns=(rng.randint(1, 6) if ok else 12) if i < reached else 0,
                cleared_at=i + 1 if ok else None,
            )
        )
    return tuple(out)


def _flips(rng: random.Random, solver: str, on_track: bool) -> tuple[Flip, ...]:
    chance = {"reference": 0.0, "noop": 0.0, "thrash": 0.8}.get(solver, 0.1 if on_track else 0.25)
    if rng.random() >= chance:
        return ()
    return tuple(
        Flip(
            check=f"k{j}",
            gate=rng.choice(COMPLETION + CONSERVATIVE[:8]),
            passed_at=1 + j,
            failed_at=2 + j,
            repaired_at=rng.choice((None, None, 3 + j)),
        )
        for j in range(rng.randint(1, 3))
    )


def _result(
    rng: random.Random,
    solver: str,
    labels: TaskLabels,
    n_units: int,
    covered: bool,
    stopped: bool,
    ease: float,
) -> CellResult:
    on_track = rng.random() < min(0.98, SKILL[solver] + ease)
    gates = _gates(rng, solver, labels.stack, on_track)
    units = _units(rng, solver, n_units, on_track, stopped)
    flips = _flips(rng, solver, on_track)
    regressions: tuple[BaselineRegression, ...] = ()
    if covered:
        regressions = tuple(
            BaselineRegression(gate=g, failed_checks=(f"{g}@home",))
            for g, s in gates.items()
            if s == "fail" and rng.random() < 0.5
        )
    return result(
        score_cell(units, gates, flips),
        units=units,
        final_gates=gates,
        flips=flips,
        baseline_regressions=regressions,
        baseline_covered=covered,
        edits_applied=0 if solver == "noop" or rng.random() < 0.03 else rng.randint(1, 12),
        edits_refused=rng.choice((0, 0, 0, 0, 1)),
        turns=sum(u.turns for u in units),
        checkpoints=sum(u.turns > 0 for u in units) + 1,
    )


def _row(
    rng: random.Random,
    task: str,
    solver: str,
    labels: TaskLabels,
    arm: str,
    repeat: int,
    n_units: int,
    r0_serves: bool,
    ease: float,
) -> ManifestRow:
    model = CARDS[solver].role == "model"
    status, attempts, delivered = _ending(rng) if model else ("ok", 1, True)
    res = None
    if delivered:
        covered = r0_serves and labels.regime == "change"
        res = _result(rng, solver, labels, n_units, covered, stopped=status == "budget", ease=ease)
    row = manifest_row(
        task,
        solver,
        labels,
        arm=arm,
        repeat=repeat,
        status=status,
        res=res,
        attempts=attempts,
        error="" if status == "ok" else f"{status} (synthetic)",
    )
    price = PRICE.get(solver, 0.05 if model else 0.0)
    spend = Spend(
        tokens=int(rng.randint(20, 200) * 1000 * (price > 0)) * attempts,
        cost_usd=round(price * rng.uniform(0.5, 1.5) * attempts, 4),
    )
    wall = rng.uniform(30, 600) if attempts else 0.0
    return msgspec.structs.replace(row, spend=spend, wall_s=wall, baseline_wait_s=wall * 0.1)


def paper_run(seed: int = 55) -> SqlRun:
    """The population (module docstring) with its solver cards and twins."""
    rng = random.Random(seed)
    tasks, twins = _tasks(rng)
    plans = {
        t: rng.randint(5, 12) if labels.regime == "build" else rng.randint(3, 6)
        for t, labels in tasks.items()
    }
    r0_serves = {t: rng.random() < 0.9 for t in tasks}  # the untouched R0 built and served
    # How much easier than average a task is: every model is more often on track on it.
    ease = {t: rng.uniform(-0.3, 0.6) for t in tasks}
    repeated = set(sorted(t for t in tasks if t.startswith("c"))[:REPEATED_TASKS])
    rows = []
    for task, labels in tasks.items():
        for solver, card in CARDS.items():
            arms = ("staged", "full-spec") if card.role == "model" else ("staged",)
            for arm in arms:
                repeats = (
                    3 if solver in REPEATED_MODELS and arm == "staged" and task in repeated else 1
                )
                for repeat in range(repeats):
                    rows.append(
                        _row(
                            rng,
                            task,
                            solver,
                            labels,
                            arm,
                            repeat,
                            plans[task],
                            r0_serves[task],
                            ease[task],
                        )
                    )
    rng.shuffle(rows)  # manifest order is completion order
    return SqlRun(rows=rows, cards=dict(CARDS), twins=twins)
