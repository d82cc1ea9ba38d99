"""The two regression channels (DESIGN.md §5), their union and overlap, and their gates.

Populations, per solver and pooled ("all"):
- protected-flip rate: completing runs (status ok, scored) with at least one flip;
- baseline rate: completing runs whose R0 baseline was run (`baseline_covered`) with at
  least one baseline regression;
- union / overlap / caught-and-still-failing: the covered completing runs (the runs where
  both channels can be read), flagged by either channel / both channels / either channel
  with the final conservative continuity still failing;
- flipped-but-clean: completing runs that flipped yet end with conservative continuity
  passing (only cumulative verification sees them).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ..contract import GATES
from ..records import ManifestRow
from ._measures import completing, rate
from ._model import GateCount, RegressionRow


def _row(solver: str, rows: Sequence[ManifestRow]) -> RegressionRow:
    done = [r for r in rows if completing(r)]
    covered = [r for r in done if r.baseline_covered]

    def still_failing(r: ManifestRow) -> bool:
        return r.scores is not None and not r.scores.continuity_pass

    return RegressionRow(
        solver=solver,
        flip=rate(bool(r.flips) for r in done),
        baseline=rate(bool(r.baseline_regressions) for r in covered),
        union=rate(bool(r.flips) or bool(r.baseline_regressions) for r in covered),
        overlap=rate(bool(r.flips) and bool(r.baseline_regressions) for r in covered),
        caught_failing=rate(
            (bool(r.flips) or bool(r.baseline_regressions)) and still_failing(r) for r in covered
        ),
        flipped_clean=rate(bool(r.flips) and not still_failing(r) for r in done),
    )


def regression_rows(rows: Sequence[ManifestRow]) -> tuple[RegressionRow, ...]:
    solvers = sorted({r.solver for r in rows})
    out = [_row(s, [r for r in rows if r.solver == s]) for s in solvers]
    if rows:
        out.append(_row("all", rows))
    return tuple(out)


def gate_counts(rows: Sequence[ManifestRow]) -> tuple[GateCount, ...]:
    """Which gates each channel rests on: only gates that fired in some channel."""
    flips: Counter[str] = Counter()
    flip_runs: Counter[str] = Counter()
    base_runs: Counter[str] = Counter()
    for r in rows:
        flips.update(f.gate for f in r.flips)
        flip_runs.update({f.gate for f in r.flips})
        base_runs.update({b.gate for b in r.baseline_regressions})
    return tuple(
        GateCount(gate=g, flips=flips[g], flip_runs=flip_runs[g], baseline_runs=base_runs[g])
        for g in GATES
        if flips[g] or base_runs[g]
    )
