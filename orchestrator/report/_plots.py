"""PNG plots with matplotlib's object API (`Figure` on the Agg canvas; no pyplot state).

Every legend names its place. A legend left to matplotlib's default ("best") warns when
placing it took more than a second of wall time, so a report written on a loaded host
warned, and under the tests' warnings-as-errors failed; `loc="best"` given explicitly
places it the same way, from the geometry alone, and never warns."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from ..contract import GATES
from ..events import CheckpointSummary
from ..records import Flip, ManifestRow
from ._model import (
    AblationRow,
    BreakdownRow,
    ContinuityRow,
    Mean,
    Rate,
    RegressionRow,
    VariabilityRow,
)

DPI = 100


def _save(fig: Figure, out: Path) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    FigureCanvasAgg(fig)
    fig.savefig(out, dpi=DPI, format="png")
    return out


def _label(solver: str, arm: str) -> str:
    return solver if arm == "staged" else f"{solver} ({arm})"


def error_spans(ms: Sequence[Mean], scale: float = 1.0) -> list[list[float]]:
    """matplotlib's asymmetric error spans, [[below...], [above...]]. A one-task mean has
    no interval (its bootstrap collapses to the mean): NaN, so no bar is drawn for it,
    rather than a zero-width one that reads as certainty."""
    below = [scale * (m.value - m.lo) if m.tasks >= 2 else math.nan for m in ms]
    above = [scale * (m.hi - m.value) if m.tasks >= 2 else math.nan for m in ms]
    return [below, above]


def score_distributions(rows: Sequence[ManifestRow], out: Path) -> Path:
    """Box plots of Gate, Stage and WCS per solver and arm (infra_error rows left out)."""
    groups: dict[str, list[ManifestRow]] = {}
    for r in sorted(rows, key=lambda r: (r.arm != "staged", r.solver)):
        if r.status not in ("infra_error", "harness_error"):
            groups.setdefault(_label(r.solver, r.arm), []).append(r)
    fig = Figure(figsize=(4 + 3 * max(1, len(groups)) ** 0.5, 4), layout="constrained")
    axes = fig.subplots(1, 3, sharey=True)
    for ax, field in zip(axes, ("gate", "stage", "wcs"), strict=True):
        data = [[getattr(r.scores, field) if r.scores else 0.0 for r in g] for g in groups.values()]
        if data:
            ax.boxplot(data, showmeans=True)
            ax.set_xticks(range(1, len(groups) + 1), labels=list(groups))
            ax.tick_params(axis="x", labelrotation=30)
        ax.set_title(field.upper() if field == "wcs" else field.capitalize())
        ax.set_ylim(-0.05, 1.05)
    return _save(fig, out)


def gate_pass_rates(rows: Sequence[ManifestRow], out: Path) -> Path:
    """Final pass rate of each gate where applicable, one bar per solver and arm."""
    groups: dict[str, list[ManifestRow]] = {}
    for r in sorted(rows, key=lambda r: (r.arm != "staged", r.solver)):
        if r.status not in ("infra_error", "harness_error"):
            groups.setdefault(_label(r.solver, r.arm), []).append(r)
    fig = Figure(figsize=(8, 0.35 * len(GATES) + 1.5), layout="constrained")
    ax = fig.subplots()
    height = 0.8 / max(1, len(groups))
    for i, (label, members) in enumerate(groups.items()):
        rates = []
        for g in GATES:
            seen = [r.final_gates[g] for r in members if r.final_gates.get(g, "n/a") != "n/a"]
            rates.append(sum(s == "pass" for s in seen) / len(seen) if seen else math.nan)
        ax.barh([j + i * height for j in range(len(GATES))], rates, height=height, label=label)
    ax.set_yticks([j + 0.4 - height / 2 for j in range(len(GATES))], labels=list(GATES))
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("final pass rate where applicable (no bar: never applicable)")
    if groups:
        ax.legend(loc="lower right", fontsize="small")
    return _save(fig, out)


def cell_timeline(
    checkpoints: Sequence[CheckpointSummary], flips: Sequence[Flip], out: Path
) -> Path:
    """Share of replayed checks passing at each checkpoint, with flips and build failures."""
    fig = Figure(figsize=(7, 3))  # fixed margins: constrained layout is slow per cell
    fig.subplots_adjust(left=0.1, right=0.98, bottom=0.17, top=0.9)
    ax = fig.subplots()
    xs = [c.index for c in checkpoints]
    ys = [c.passed / (c.passed + c.failed) if c.passed + c.failed else 0.0 for c in checkpoints]
    ax.plot(xs, ys, marker="o", label="checks passing")
    broken = [(c.index, 0.0) for c in checkpoints if not (c.build_ok and c.serve_ok)]
    if broken:
        ax.scatter(
            *zip(*broken, strict=True), marker="s", color="black", label="build/serve failed"
        )
    for i, f in enumerate(flips):
        ax.axvline(f.failed_at, color="red", alpha=0.5, label="flip" if i == 0 else None)
        if f.repaired_at is not None:
            ax.axvline(f.repaired_at, color="green", alpha=0.4, linestyle="--")
    for c in checkpoints:
        if c.unit:
            ax.annotate(c.unit, (c.index, 1.02), fontsize=7, ha="center")
    ax.set_ylim(-0.05, 1.1)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("checkpoint")
    ax.set_ylabel("share passing")
    if xs or flips:
        ax.legend(loc="lower left", fontsize="small")
    return _save(fig, out)


def rerun_variability(rows: Sequence[VariabilityRow], out: Path) -> Path:
    """Per-cell SD of WCS across repeats, one strip per solver and arm (paper Figure 15)."""
    fig = Figure(figsize=(4 + 0.6 * max(1, len(rows)), 3.5), layout="constrained")
    ax = fig.subplots()
    for i, v in enumerate(rows):
        ax.scatter([i] * len(v.sds), v.sds, alpha=0.6)
        ax.hlines(v.sd_mean, i - 0.3, i + 0.3, color="black")
    ax.set_xticks(range(len(rows)), labels=[_label(v.solver, v.arm) for v in rows])
    ax.tick_params(axis="x", labelrotation=30)
    ax.set_ylabel("SD of WCS across repeats")
    ax.set_ylim(bottom=0)
    return _save(fig, out)


def group_wcs(rows: Sequence[BreakdownRow], out: Path) -> Path:
    """Mean WCS per solver within each group (Build/Change: paper Figure 6; facets:
    Figure 13), with 95% CIs."""
    labels = sorted({_label(r.solver, r.arm) for r in rows})
    regimes = sorted({r.group for r in rows})
    fig = Figure(figsize=(4 + 0.8 * max(1, len(labels)), 3.5), layout="constrained")
    ax = fig.subplots()
    width = 0.8 / max(1, len(regimes))
    for j, regime in enumerate(regimes):
        got = {_label(r.solver, r.arm): r.wcs for r in rows if r.group == regime}
        xs = [i + j * width for i, lab in enumerate(labels) if lab in got]
        ms = [got[lab] for lab in labels if lab in got]
        bars = ax.bar(
            xs, [m.value for m in ms], width=width, yerr=error_spans(ms), capsize=3, label=regime
        )
        for bar, m in zip(bars, ms, strict=True):
            if m.tasks < 2:  # no interval: say why there is no error bar
                bar.set_hatch("//")
                ax.annotate(
                    "1 task",
                    (bar.get_x() + bar.get_width() / 2, m.value),
                    ha="center",
                    va="bottom",
                    fontsize="x-small",
                )
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(labels))], labels=labels)
    ax.tick_params(axis="x", labelrotation=30)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("mean WCS")
    if regimes:
        ax.legend(loc="best", fontsize="small")
    return _save(fig, out)


def ablation_deltas(rows: Sequence[AblationRow], out: Path) -> Path:
    """Paired ΔGate (points) per ablation pair with 95% CIs (paper Figure 7)."""
    fig = Figure(figsize=(7, 1 + 0.5 * max(1, len(rows))), layout="constrained")
    ax = fig.subplots()
    for i, a in enumerate(rows):
        d = a.gate_delta
        ax.errorbar(100 * d.value, i, xerr=error_spans([d], 100.0), fmt="o", capsize=3)
    ax.set_yticks(
        range(len(rows)),
        labels=[
            f"{a.option}: {a.a} − {a.b}" + (" (1 task)" if a.gate_delta.tasks < 2 else "")
            for a in rows
        ],
    )
    ax.axvline(0, color="grey", linewidth=0.8)
    ax.set_xlabel("ΔGate% (points), a minus b")
    return _save(fig, out)


def _rate_bars(
    ax: Any, labels: Sequence[str], series: Sequence[tuple[str, Sequence[Rate]]]
) -> None:
    """Grouped bars of rates (percent) with Wilson 95% intervals; an empty population
    draws no bar."""
    width = 0.8 / max(1, len(series))
    for j, (name, rates) in enumerate(series):
        xs = [i + j * width for i, r in enumerate(rates) if r.n]
        shown = [r for r in rates if r.n]
        ax.bar(
            xs,
            [100 * r.value for r in shown],
            width=width,
            # Wilson bounds can sit a rounding error past the rate (k = 0 or k = n)
            yerr=[
                [max(0.0, 100 * (r.value - r.lo)) for r in shown],
                [max(0.0, 100 * (r.hi - r.value)) for r in shown],
            ],
            capsize=3,
            label=name,
        )
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(labels))], labels=list(labels))
    ax.tick_params(axis="x", labelrotation=30)
    ax.set_ylim(0, 105)
    ax.legend(loc="best", fontsize="small")


def continuity_gap(rows: Sequence[ContinuityRow], out: Path) -> Path:
    """Complete-but-not-cleared per solver and arm, conservative and broad, with Wilson
    95% CIs (paper Figure 4)."""
    fig = Figure(figsize=(4 + 0.7 * max(1, len(rows)), 3.5), layout="constrained")
    ax = fig.subplots()
    _rate_bars(
        ax,
        [_label(r.solver, r.arm) for r in rows],
        [
            ("conservative (gates 5-18)", [r.conservative for r in rows]),
            ("broad (+ visual_regression)", [r.broad for r in rows]),
        ],
    )
    ax.set_ylabel("% of completing runs")
    return _save(fig, out)


def regression_channels(rows: Sequence[RegressionRow], out: Path) -> Path:
    """Protected flip, baseline regression and their union per solver, with Wilson 95%
    CIs (paper Figure 5)."""
    fig = Figure(figsize=(4 + 0.7 * max(1, len(rows)), 3.5), layout="constrained")
    ax = fig.subplots()
    _rate_bars(
        ax,
        [r.solver for r in rows],
        [
            ("protected flip (completing)", [r.flip for r in rows]),
            ("baseline (covered completing)", [r.baseline for r in rows]),
            ("union (covered completing)", [r.union for r in rows]),
        ],
    )
    ax.set_ylabel("% of runs")
    return _save(fig, out)
