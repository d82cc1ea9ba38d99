"""The two regression channels (DESIGN.md §5), their union and overlap, and their gates.

Populations (Change tasks only, as in the paper; per solver, and pooled over the models
under test as "all"):
- completing runs: every completion-family gate passes on the final workspace;
- protected-flip rate: completing runs with at least one flip;
- baseline rate: covered completing runs (untouched R0 served and was verified) with at
  least one baseline regression;
- union / overlap / caught-and-still-failing: the covered completing runs (the runs where
  both channels can be read), flagged by either channel / both channels / either channel
  with the final conservative continuity still failing;
- flipped-but-clean: completing runs that flipped yet end with conservative continuity
  passing (only cumulative verification sees them).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from ..contract import GATES
from ..records import ManifestRow
from ._measures import completing, rate, row_covered, row_flips, row_regressions
from ._model import GateCount, RegressionRow


def _row(solver: str, rows: Sequence[ManifestRow]) -> RegressionRow:
    done = [r for r in rows if completing(r)]
    covered = [r for r in done if row_covered(r)]

    def still_failing(r: ManifestRow) -> bool:
        return r.scores is not None and not r.scores.continuity_pass

    return RegressionRow(
        solver=solver,
        flip=rate(bool(row_flips(r)) for r in done),
        baseline=rate(bool(row_regressions(r)) for r in covered),
        union=rate(bool(row_flips(r)) or bool(row_regressions(r)) for r in covered),
        overlap=rate(bool(row_flips(r)) and bool(row_regressions(r)) for r in covered),
        caught_failing=rate(
            (bool(row_flips(r)) or bool(row_regressions(r))) and still_failing(r) for r in covered
        ),
        flipped_clean=rate(bool(row_flips(r)) and not still_failing(r) for r in done),
    )


def regression_rows(
    rows: Sequence[ManifestRow], pooled: Callable[[str], bool]
) -> tuple[RegressionRow, ...]:
    """Per solver, then "all" over the solvers `pooled` admits (the models under test)."""
    solvers = sorted({r.solver for r in rows})
    out = [_row(s, [r for r in rows if r.solver == s]) for s in solvers]
    models = [r for r in rows if pooled(r.solver)]
    if models:
        out.append(_row("all", models))
    return tuple(out)


def gate_counts(rows: Sequence[ManifestRow]) -> tuple[GateCount, ...]:
    """Which gates each channel rests on: only gates that fired in some channel."""
    flips: Counter[str] = Counter()
    flip_runs: Counter[str] = Counter()
    base_runs: Counter[str] = Counter()
    for r in rows:
        flips.update(f.gate for f in row_flips(r))
        flip_runs.update({f.gate for f in row_flips(r)})
        base_runs.update({b.gate for b in row_regressions(r)})
    return tuple(
        GateCount(gate=g, flips=flips[g], flip_runs=flip_runs[g], baseline_runs=base_runs[g])
        for g in GATES
        if flips[g] or base_runs[g]
    )
