"""The report's numbers as typed records: what aggregation produces and renderers read."""

from __future__ import annotations

import math

import msgspec

from ._load import LoadStats

ARM_ORDER = ("staged", "full-spec")  # the order arms are shown in


class _Rec(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    pass


class Rate(_Rec, frozen=True, kw_only=True):
    """k of n with a Wilson 95% interval; `value` is NaN when n == 0."""

    k: int
    n: int
    lo: float
    hi: float

    @property
    def value(self) -> float:
        return self.k / self.n if self.n else math.nan


class Mean(_Rec, frozen=True, kw_only=True):
    """Mean of n values over `tasks` tasks with a task-clustered bootstrap 95% interval
    (NaN when n == 0). One task has no interval: its runs are not independent."""

    n: int
    tasks: int
    value: float
    lo: float
    hi: float


class SolverScores(_Rec, frozen=True, kw_only=True):
    solver: str
    arm: str
    role: str  # "model", "control" or "scripted" (solver_cards.Role)
    cells: int  # rows in this table's population
    infra: int  # infra_error rows of the solver (excluded or counted as zero)
    task: Rate  # whole_task, Wilson interval
    # Task% with a task-clustered bootstrap interval: set when a task has several repeats,
    # whose verdicts are not independent draws.
    task_clustered: Mean | None = None
    gate: Mean
    stage: Mean
    wcs: Mean
    capability_gate: dict[str, Mean]
    # Gate% on the paper's scale: passing final gates over all 19 (`_paper.gate19`).
    gate19: Mean | None = None


class ScoreTable(_Rec, frozen=True, kw_only=True):
    title: str
    rows: tuple[SolverScores, ...]
    capabilities: tuple[str, ...]


class ContinuityRow(_Rec, frozen=True, kw_only=True):
    solver: str  # "all" for the pooled row
    arm: str
    conservative: Rate  # complete_not_cleared among completion_pass rows
    broad: Rate


class RegressionRow(_Rec, frozen=True, kw_only=True):
    solver: str  # "all" for the pooled row
    flip: Rate  # protected flip among completing runs
    baseline: Rate  # baseline regression among covered completing runs
    union: Rate  # either channel, among covered completing runs
    overlap: Rate  # both channels, among covered completing runs
    caught_failing: Rate  # either channel and final conservative continuity fails
    flipped_clean: Rate  # flipped yet final conservative continuity passes (completing runs)


class GateCount(_Rec, frozen=True, kw_only=True):
    gate: str
    flips: int  # flip events on this gate
    flip_runs: int  # runs with at least one flip on this gate
    baseline_runs: int  # runs with a baseline regression on this gate


class PairedRow(_Rec, frozen=True, kw_only=True):
    """Staged vs full-spec on measures both arms share only (final gate pass, Gate%)."""

    solver: str
    pairs: int  # (task, solver) packages run in both arms
    gate_staged: Mean
    gate_full: Mean
    gate_delta: Mean  # staged minus full-spec, clustered by task
    final_staged: Rate
    final_full: Rate


class TwinRow(_Rec, frozen=True, kw_only=True):
    """Greenfield twins vs their Change sources for one solver and arm (`_twins`)."""

    solver: str  # "all" for the pooled row
    arm: str
    pairs: int  # (twin, source) task pairs this solver ran in this arm
    wcs_source: Mean
    wcs_twin: Mean
    wcs_delta: Mean  # twin minus source, clustered by pair
    t: float = math.nan  # paired t statistic of the deltas (NaN under two pairs)


class CostRow(_Rec, frozen=True, kw_only=True):
    """What a solver was charged, over every row whatever its status, superseded attempts
    of resumed cells included (spend is spend)."""

    solver: str
    role: str
    cells: int
    tokens: int
    cost_usd: float
    superseded_usd: float = 0.0  # of `cost_usd`: rows a resumed sweep wrote again
    estimated: int = 0  # charged responses without usage (estimated)
    overshoot_usd: float = 0.0  # spend past the cells' own caps
    overshoot_cells: int = 0
    run_s: float = 0.0  # the cells' own wall time (`ManifestRow.run_s`), summed
    baseline_wait_s: float = 0.0  # their waits for the shared R0 baseline, summed


class BreakdownRow(_Rec, frozen=True, kw_only=True):
    """One solver's scores within one group (regime, facet or stack)."""

    solver: str  # "all" for the row pooling the models under test
    arm: str
    group: str
    cells: int
    gate: Mean
    stage: Mean  # n == 0 for full-spec
    wcs: Mean


class VariabilityRow(_Rec, frozen=True, kw_only=True):
    """Rerun variability (paper Figure 15): cells run more than once."""

    solver: str
    arm: str
    cells: int  # (task, solver, arm) with >= 2 scored repeats
    sd_mean: float  # mean over cells of the per-cell SD of WCS
    sd_max: float
    agree: Rate  # cells whose whole-task verdict is the same in every repeat
    sds: tuple[float, ...] = ()


class AblationRow(_Rec, frozen=True, kw_only=True):
    """Two solvers that differ in exactly one option, paired on the same packages."""

    option: str
    arm: str
    a: str  # solver with option = a_value
    b: str
    a_value: str
    b_value: str
    pairs: int  # tasks both ran
    gate_delta: Mean  # a minus b, task-clustered bootstrap
    wcs_delta: Mean
    task_a: Rate
    task_b: Rate


class GridCell(_Rec, frozen=True, kw_only=True):
    """Full-spec scaffold x backbone: one scaffold driving one model."""

    scaffold: str
    backbone: str
    cells: int
    gate: Mean
    final: Rate


class Statistic(_Rec, frozen=True, kw_only=True):
    """One of the paper's further statistics (`_paper`): a rate over a named population."""

    id: str
    solver: str = "all"  # "all": pooled over the models under test
    label: str
    population: str
    rate: Rate


class GateMeasure(_Rec, frozen=True, kw_only=True):
    """What a gate that rarely or never fails measured on one population (`_paper`)."""

    gate: str
    population: str
    rows: int
    passed: int
    failed: int
    not_applicable: int
    note: str


class PlanRow(_Rec, frozen=True, kw_only=True):
    """Plan length (units per task) of one regime group (`_trajectory`)."""

    group: str
    tasks: int
    mean: float
    median: float
    shortest: int
    longest: int


class TurnsRow(_Rec, frozen=True, kw_only=True):
    """Turns vs units cleared in one plan-length bucket of Build runs (`_trajectory`)."""

    units: int
    runs: int
    rho: float  # NaN under 3 runs or without spread
    p: float


class RankRow(_Rec, frozen=True, kw_only=True):
    """A rank correlation between two orderings of solvers (`_rankings`)."""

    x: str
    y: str
    n: int  # solvers (or scaffolds) ranked in both
    rho: float
    p: float


class SpreadRow(_Rec, frozen=True, kw_only=True):
    """Scaffold study (`_rankings`): how far one factor moves the component mean with the
    other held fixed."""

    held: str  # "backbone" or "scaffold": the factor held fixed
    value: str  # its value
    varied: int  # how many values of the other factor
    spread: float  # max minus min of the component mean, in points
    low: str  # the value of the varied factor at the minimum
    high: str


class Effect(_Rec, frozen=True, kw_only=True):
    """One term of the size-controlled regression of WCS (`_sizes`): a category's
    difference from the baseline category, or the slope per unit of task size."""

    term: str
    rows: int
    coef: float
    lo: float  # task-clustered bootstrap 95% interval
    hi: float
    mean_all: float = math.nan  # a category's mean WCS over every task (NaN for "size")
    mean_small: float = math.nan  # ... over the smallest quartile of tasks by size


class Header(_Rec, frozen=True, kw_only=True):
    statuses: dict[str, int]  # current rows by status
    # Rows that are no result (cancelled, outage, config_error, task_error, and llm_error /
    # budget rows without a final checkpoint: `_measures.no_result`): never scored.
    cancelled: int
    undelivered: dict[str, int] = {}  # of those, llm_error / budget rows by status
    controls: tuple[str, ...]  # reference / negative / noop / thrash
    scripted: tuple[str, ...]  # solvers on a scripted provider (fake)
    repeats: int  # most repeats of any (task, solver, arm)
    # Rows whose visual gates were graded n/a because the rendering environment differed
    # from the evidence (`--allow-env-drift`).
    env_drift: int = 0
    # Tasks run although their contract had no recorded admission (`--allow-unadmitted`).
    unadmitted: tuple[str, ...] = ()


class Correlation(_Rec, frozen=True, kw_only=True):
    x: str
    y: str
    n: int
    rho: float
    p: float


class CellEntry(_Rec, frozen=True, kw_only=True):
    cell: str
    dir: str  # cell directory name: `cell` with "/" replaced by "__"
    task: str
    solver: str
    arm: str
    status: str
    gate: float | None
    wcs: float | None
    whole_task: bool | None
    breaks: int


class Report(_Rec, frozen=True, kw_only=True):
    run_dir: str
    load: LoadStats
    header: Header
    solvers: tuple[str, ...]
    scores: ScoreTable  # infra_error rows excluded
    scores_infra_zero: ScoreTable  # infra_error rows counted as zero
    continuity: tuple[ContinuityRow, ...]  # Change tasks
    continuity_build: tuple[ContinuityRow, ...]  # Build tasks, reported apart
    regressions: tuple[RegressionRow, ...]  # Change tasks
    regression_arm: str
    gate_counts: tuple[GateCount, ...]
    paired: tuple[PairedRow, ...]
    twins: tuple[TwinRow, ...] = ()
    correlations: tuple[Correlation, ...]
    cost: tuple[CostRow, ...] = ()
    regimes: tuple[BreakdownRow, ...] = ()
    facets: tuple[BreakdownRow, ...] = ()
    stacks: tuple[BreakdownRow, ...] = ()
    variability: tuple[VariabilityRow, ...] = ()
    ablations: tuple[AblationRow, ...] = ()
    grid: tuple[GridCell, ...] = ()
    statistics: tuple[Statistic, ...] = ()  # pooled further statistics (`_paper`)
    common: tuple[Statistic, ...] = ()  # per model, on commonly completed tasks
    gate_measures: tuple[GateMeasure, ...] = ()  # what scope and serve measured
    plans: tuple[PlanRow, ...] = ()  # plan lengths per regime group
    turns: tuple[TurnsRow, ...] = ()  # turns vs units cleared on Build plans
    coherence: tuple[RankRow, ...] = ()  # Gate% rankings across capability slices
    spreads: tuple[SpreadRow, ...] = ()  # scaffold study
    scaffold_rank: tuple[RankRow, ...] = ()  # scaffold orderings under two backbones
    effects: tuple[Effect, ...] = ()  # categories controlled for task size
    cells: tuple[CellEntry, ...]
