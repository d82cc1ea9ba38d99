"""Orderings of solvers (the paper's Figure 10 and the scaffold study of §4.2/Figure 16).

- Rank coherence: the models under test ranked by Gate% within each capability slice
  (regression arm); for every pair of slices, Spearman's rho over the models present in
  both (at least 3), with a permutation p-value;
- scaffold study (full-spec arm, models under test, from the scaffold x backbone grid):
  a cell's component mean is the mean of its two measures, Gate% and final gate pass
  rate, in points; the scaffold spread per backbone and the backbone spread per scaffold
  are max minus min of it (paper: 8.06 and 10.52 vs 5.08), and the scaffold-rank rho
  compares the scaffolds' orderings under two backbones over the scaffolds both drove
  (at least 3; paper: 0.80).
"""

from __future__ import annotations

import itertools
import statistics
from collections import defaultdict
from collections.abc import Callable, Sequence

from ..records import ManifestRow
from ._analyses import Cards
from ._model import GridCell, RankRow, SpreadRow
from ._stats import permutation_p, spearman

MIN_RANKED = 3


def _rank(x: str, y: str, a: dict[str, float], b: dict[str, float]) -> RankRow | None:
    shared = sorted(set(a) & set(b))
    if len(shared) < MIN_RANKED:
        return None
    xs, ys = [a[s] for s in shared], [b[s] for s in shared]
    return RankRow(x=x, y=y, n=len(shared), rho=spearman(xs, ys), p=permutation_p(xs, ys))


def _ranks(groups: dict[str, dict[str, float]]) -> tuple[RankRow, ...]:
    """Every pair of groups (in name order) ranked against each other, where they can be."""
    pairs = itertools.combinations(sorted(groups), 2)
    return tuple(row for x, y in pairs if (row := _rank(x, y, groups[x], groups[y])) is not None)


def coherence(rows: Sequence[ManifestRow], arm: str, cards: Cards) -> tuple[RankRow, ...]:
    gates: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in rows:
        if (
            r.arm == arm
            and cards(r.solver).role == "model"
            and r.status not in ("infra_error", "harness_error")
        ):
            gates[r.labels.capability][r.solver].append(r.scores.gate if r.scores else 0.0)
    means = {
        c: {s: statistics.fmean(v) for s, v in per.items()} for c, per in sorted(gates.items())
    }
    return _ranks(means)


def component(g: GridCell) -> float:
    """The full-spec arm's component mean of a grid cell, in points."""
    return 100.0 * (g.gate.value + g.final.value) / 2.0


def spreads(grid: Sequence[GridCell]) -> tuple[SpreadRow, ...]:
    def backbone(g: GridCell) -> str:
        return g.backbone

    def scaffold(g: GridCell) -> str:
        return g.scaffold

    out = []
    factors: tuple[tuple[str, Callable[[GridCell], str], Callable[[GridCell], str]], ...] = (
        ("backbone", backbone, scaffold),
        ("scaffold", scaffold, backbone),
    )
    for held, key, other in factors:
        groups: dict[str, list[GridCell]] = defaultdict(list)
        for g in grid:
            groups[key(g)].append(g)
        for value, cells in sorted(groups.items()):
            if len(cells) < 2:
                continue
            lo = min(cells, key=lambda g: (component(g), other(g)))
            hi = max(cells, key=lambda g: (component(g), other(g)))
            out.append(
                SpreadRow(
                    held=held,
                    value=value,
                    varied=len(cells),
                    spread=component(hi) - component(lo),
                    low=other(lo),
                    high=other(hi),
                )
            )
    return tuple(out)


def scaffold_rank(grid: Sequence[GridCell]) -> tuple[RankRow, ...]:
    by_backbone: dict[str, dict[str, float]] = defaultdict(dict)
    for g in grid:
        by_backbone[g.backbone][g.scaffold] = component(g)
    return _ranks(by_backbone)
