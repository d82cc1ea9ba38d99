"""Tables for the paper's further analyses (see `_analyses.py`)."""

from __future__ import annotations

from collections.abc import Sequence

from ._model import BreakdownRow, Report
from ._tables_fmt import Table, fmt_mean, fmt_rate


def _breakdown(id: str, title: str, group: str, rows: Sequence[BreakdownRow], note: str) -> Table:
    return Table(
        id=id,
        title=title,
        note=note + " 'all' pools the models under test per arm.",
        terms=(
            *(("regimes",) if id == "regimes" else ()),
            "gate",
            "stage",
            "wcs",
            "intervals",
            "roles",
        ),
        headers=("solver", "arm", group, "cells", "Gate%", "Stage%", "WCS"),
        rows=tuple(
            (
                r.solver,
                r.arm,
                r.group,
                str(r.cells),
                fmt_mean(r.gate),
                fmt_mean(r.stage),
                fmt_mean(r.wcs, percent=False),
            )
            for r in rows
        ),
    )


def analysis_tables(rep: Report) -> list[Table]:
    return [_cost(rep), *_breakdowns(rep), _variability(rep), _ablations(rep), _grid(rep)]


def _cost(rep: Report) -> Table:
    return Table(
        id="cost",
        title="Cost per solver",
        note="Every row of each solver, whatever its status, and the attempts a resumed sweep "
        "superseded.",
        terms=("cost",),
        headers=(
            "solver",
            "role",
            "cells",
            "tokens",
            "USD",
            "USD per cell",
            "superseded USD",
            "estimated",
            "overshoot USD (cells)",
            "wall s per cell",
            "R0 wait s",
        ),
        rows=tuple(
            (
                c.solver,
                c.role,
                str(c.cells),
                str(c.tokens),
                f"{c.cost_usd:.4f}",
                f"{c.cost_usd / c.cells:.4f}" if c.cells else "—",
                f"{c.superseded_usd:.4f}",
                str(c.estimated),
                f"{c.overshoot_usd:.6f} ({c.overshoot_cells})" if c.overshoot_cells else "0",
                f"{c.run_s / c.cells:.1f}" if c.cells else "—",
                f"{c.baseline_wait_s:.1f}",
            )
            for c in rep.cost
        ),
    )


def _breakdowns(rep: Report) -> list[Table]:
    return [
        _breakdown(
            "regimes",
            "Build vs Change",
            "regime",
            rep.regimes,
            "Greenfield twins are their own group ('build twin'), never pooled into Build.",
        ),
        _breakdown("facets", "Per facet", "facet", rep.facets, "Per task facet."),
        _breakdown("stacks", "Per stack", "stack", rep.stacks, "Per framework stack."),
    ]


def _variability(rep: Report) -> Table:
    return Table(
        id="variability",
        title="Rerun variability",
        note="Cells run more than once." + ("" if rep.variability else " No cell was repeated."),
        terms=("variability", "intervals"),
        headers=("solver", "arm", "cells", "mean SD(WCS)", "max SD(WCS)", "verdict agreement"),
        rows=tuple(
            (
                v.solver,
                v.arm,
                str(v.cells),
                f"{v.sd_mean:.3f}",
                f"{v.sd_max:.3f}",
                fmt_rate(v.agree),
            )
            for v in rep.variability
        ),
    )


def _ablations(rep: Report) -> Table:
    return Table(
        id="ablations",
        title="Ablations: solvers that differ in one option",
        note="Deltas a minus b, per task, with task-clustered CI; the paper's edit-format arm "
        "appears once the agent has that option.",
        terms=("ablations", "intervals"),
        headers=(
            "option",
            "arm",
            "a",
            "b",
            "tasks",
            "ΔGate (pt)",
            "ΔWCS",
            "Task% a",
            "Task% b",
        ),
        rows=tuple(
            (
                a.option,
                a.arm,
                f"{a.a} ({a.a_value})",
                f"{a.b} ({a.b_value})",
                str(a.pairs),
                fmt_mean(a.gate_delta),
                fmt_mean(a.wcs_delta, percent=False),
                fmt_rate(a.task_a),
                fmt_rate(a.task_b),
            )
            for a in rep.ablations
        ),
    )


def _grid(rep: Report) -> Table:
    scaffolds = sorted({g.scaffold for g in rep.grid})
    models = sorted({g.backbone for g in rep.grid})
    cell = {(g.scaffold, g.backbone): g for g in rep.grid}

    def show(s: str, m: str) -> str:
        g = cell.get((s, m))
        if g is None:
            return "—"
        return f"Gate% {fmt_mean(g.gate)}; final {fmt_rate(g.final)}; n={g.cells}"

    return Table(
        id="grid",
        title="Scaffold x backbone (full-spec arm)",
        note="Rows are scaffolds, columns the model each drives; models under test. Full-spec "
        "verifies once, so Gate% and final gate pass are its measures (Table 2).",
        terms=("scaffold", "gate", "intervals"),
        headers=("scaffold", *models),
        rows=tuple((s, *(show(s, m) for m in models)) for s in scaffolds),
    )
