"""Records written to disk: the manifest row (one per cell) and its parts.

A row is the cell's identity (task, solver, arm, repeat, labels, contract and config
hashes, backend, image) plus one `Outcome`, a msgspec tagged union on `status`:

    Ok            the solver's run ended on its own terms; `result` is scored
    InfraError    a sandbox/browser/daemon fault (retried first); never the solver's
    LlmError      the solver's provider failed it
    ConfigRefusal the provider refused the setup, not the model's work: no credit or
                  quota, no key where the cell runs, a bad key, a parameter or model
                  the provider rejects. The operator's to fix: no result, never scored,
                  `--resume` re-runs it; the sweep stops at the first one
    BudgetStop    a budget the user set was reached (`kind`)
    Cancelled     a user stop (SIGINT/SIGTERM) or a sweep stopped before this cell ran
    Outage        the solver's provider was down (429/5xx/timeouts) longer than its
                  breaker's pause bound: no verdict, `--resume` re-runs the cell
    TaskError     the task's own problem (its untouched R0 cannot serve, a control's
                  patch does not apply, an unknown stack): never scored against the
                  solver, counted in the report's header
    HarnessError  a bug of ours: the traceback is in `log` (the cell's events.jsonl)
    Refused       `regrade`: the cell's recorded trajectory (a submission) was refused
                  (a path outside the allowed paths, a link, a huge file, a malformed
                  record...): no result, never scored

`InfraError`, `LlmError` and `BudgetStop` carry the `result` of what the solver
delivered when a final checkpoint ran, else None. `spend` (tokens and money actually
charged, summed over attempts) is on every row whatever its status. The same
`CellResult` struct the cell builds is stored as is: nothing is copied field by field.

Versioned by `schema`; every field is typed (gate names are `Gate`), so reports never
guess and a misspelled field cannot be written.
"""

from __future__ import annotations

from typing import Literal, get_args

import msgspec

from ..budget import BudgetKind
from ..contract import Capability, Facet, Gate, Regime, UnitKind
from ._results import GateStatus

Status = Literal[
    "ok",
    "infra_error",
    "llm_error",
    "config_error",
    "budget",
    "cancelled",
    "outage",
    "task_error",
    "harness_error",
    "refused",
]
STATUSES: tuple[Status, ...] = get_args(Status)  # in the Literal's order
# Rows that are no result at all: left out of every score table (counted in the header).
UNSCORED: frozenset[Status] = frozenset(
    {"cancelled", "outage", "task_error", "config_error", "refused"}
)
Arm = Literal["staged", "full-spec"]
BackendName = Literal["docker", "local", ""]
SCHEMA_VERSION = 2


class _Rec(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    pass


class UnitOutcome(_Rec, frozen=True, kw_only=True):
    id: str
    kind: UnitKind
    cleared: bool
    capped: bool
    turns: int
    cleared_at: int | None = None  # checkpoint index where it cleared


class Flip(_Rec, frozen=True, kw_only=True):
    """A protected check that passed at checkpoint `passed_at` and failed at `failed_at`."""

    check: str
    gate: Gate
    passed_at: int
    failed_at: int
    repaired_at: int | None = None


class BaselineRegression(_Rec, frozen=True, kw_only=True):
    """A gate the untouched R0 passes and the final workspace fails."""

    gate: Gate
    failed_checks: tuple[str, ...] = ()


class Scores(_Rec, frozen=True, kw_only=True):
    stage: float
    gate: float
    final_pass: bool
    breaks: int
    whole_task: bool
    wcs: float
    completion_pass: bool
    continuity_pass: bool  # conservative: gates 5-18
    continuity_pass_broad: bool  # adds visual_regression
    complete_not_cleared: bool
    complete_not_cleared_broad: bool


class TaskLabels(_Rec, frozen=True, kw_only=True):
    regime: Regime
    capability: Capability
    facet: Facet
    stack: str
    framework: str


class CellResult(_Rec, frozen=True, kw_only=True):
    """What the solver delivered, verified and scored: built by the cell, stored as is."""

    units: tuple[UnitOutcome, ...]
    final_gates: dict[Gate, GateStatus]
    scores: Scores
    flips: tuple[Flip, ...] = ()
    baseline_regressions: tuple[BaselineRegression, ...] = ()
    baseline_covered: bool = False
    edits_applied: int = 0
    edits_refused: int = 0
    turns: int = 0
    checkpoints: int = 0
    # The solver broke its own workspace (e.g. git metadata): what broke. The cell ended
    # there and is graded on it; never an infrastructure fault.
    broken: str = ""
    # Why each final gate that is not applicable is so (e.g. "environment drift: ...").
    not_applicable: dict[Gate, str] = {}


class Spend(_Rec, frozen=True, kw_only=True):
    """Tokens and money actually charged for a cell, over all its attempts."""

    tokens: int = 0
    cost_usd: float = 0.0
    # Responses without usage from the provider: their tokens (and money) are estimates.
    estimated_requests: int = 0
    # Money charged past the cell's own cap (a scaffold's `max_usd`): flagged, not hidden.
    overshoot_usd: float = 0.0


# ---------------------------------------------------------------- outcomes
class _Outcome(_Rec, frozen=True, kw_only=True, tag_field="status"):
    @property
    def status(self) -> Status:
        tag = self.__struct_config__.tag
        assert isinstance(tag, str)
        return tag  # type: ignore[return-value]


class Ok(_Outcome, frozen=True, kw_only=True, tag="ok"):
    result: CellResult


class InfraError(_Outcome, frozen=True, kw_only=True, tag="infra_error"):
    error: str
    result: CellResult | None = None


class LlmError(_Outcome, frozen=True, kw_only=True, tag="llm_error"):
    error: str
    result: CellResult | None = None


class ConfigRefusal(_Outcome, frozen=True, kw_only=True, tag="config_error"):
    """The provider refused the sweep's setup (see the module docstring)."""

    error: str


class BudgetStop(_Outcome, frozen=True, kw_only=True, tag="budget"):
    kind: BudgetKind
    error: str
    result: CellResult | None = None


class Cancelled(_Outcome, frozen=True, kw_only=True, tag="cancelled"):
    error: str = ""


class Outage(_Outcome, frozen=True, kw_only=True, tag="outage"):
    error: str


class TaskError(_Outcome, frozen=True, kw_only=True, tag="task_error"):
    error: str


class HarnessError(_Outcome, frozen=True, kw_only=True, tag="harness_error"):
    error: str  # "<ExceptionType>: message"
    where: str = ""  # innermost frame, "file:line in function"
    log: str = ""  # the events file (relative to the run dir) holding the traceback


class Refused(_Outcome, frozen=True, kw_only=True, tag="refused"):
    """`regrade` refused the cell's trajectory: `error` says which record and why."""

    error: str


Outcome = (
    Ok
    | InfraError
    | LlmError
    | ConfigRefusal
    | BudgetStop
    | Cancelled
    | Outage
    | TaskError
    | HarnessError
    | Refused
)


class ManifestRow(_Rec, frozen=True, kw_only=True):
    schema: int = SCHEMA_VERSION
    sweep: str
    cell: str  # stable key: task/solver/arm/repeat
    task: str
    labels: TaskLabels
    contract_hash: str
    config_hash: str
    solver: str
    arm: Arm
    repeat: int = 0
    backend: BackendName = ""
    image: str = ""
    outcome: Outcome
    spend: Spend = Spend()
    attempts: int = 1
    wall_s: float = 0.0  # first attempt's start to the row, retries and waits included
    # Of `wall_s`: the wait for the sweep's shared R0 baseline (another cell running it,
    # or this one running it first). Not the solver's time: see `run_s`.
    baseline_wait_s: float = 0.0
    started_at: float = 0.0
    finished_at: float = 0.0

    # Read-only views of the outcome (no copies): most readers want just these.
    @property
    def status(self) -> Status:
        return self.outcome.status

    @property
    def run_s(self) -> float:
        """The cell's own wall time: `wall_s` without the wait for the shared baseline."""
        return max(0.0, self.wall_s - self.baseline_wait_s)

    @property
    def result(self) -> CellResult | None:
        """The scored delivery: always for `ok`, when a final checkpoint ran otherwise."""
        o = self.outcome
        return o.result if isinstance(o, Ok | InfraError | LlmError | BudgetStop) else None

    @property
    def scores(self) -> Scores | None:
        r = self.result
        return r.scores if r is not None else None

    @property
    def final_gates(self) -> dict[Gate, GateStatus]:
        r = self.result
        return r.final_gates if r is not None else {}

    @property
    def error(self) -> str:
        o = self.outcome
        return "" if isinstance(o, Ok) else o.error


def cell_dir_name(cell: str) -> str:
    """A cell's directory under `<run>/cells/` (and the report's): its key, `/` -> `__`."""
    return cell.replace("/", "__")
