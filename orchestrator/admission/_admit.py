"""Admission (DESIGN.md §6): a task enters the suite only when its controls behave.

- the reference, replayed unit by unit through real checkpoints, clears every unit at
  its first checkpoint, flips nothing and passes the full final suite;
- every negative fails at least one gate, including every gate in its `expect_fail`; the
  gates it fails beyond those are reported (`extra_gates`), and its per-check verdicts
  are kept (`checks`);
- untouched R0 builds and serves, and fails at least one completion gate; it runs first,
  so the reference's final is graded for accessibility continuity against R0's snapshots
  and every negative against R0's and the reference's (`verifier/_a11y/_gate.py`). A task
  with accessibility evidence (`evidence/a11y.json`) is graded against it instead, R0's
  and the reference's captured snapshots alike, and R0 replays without taking any;
- with `repeat` > 1 the reference is replayed again and any changed verdict is flaky, and
  every negative is replayed `repeat` times too: a check whose verdict changes between
  runs (`unstable_checks`) fails the negative's control, as does any run that misses.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

import anyio
import msgspec

from sandbox import AdhocSweep, ImageBuilder, ManagedBackend, adhoc_sweep

from .. import faults
from ..cell import CellContext, CellReport, CellSetup, run_cell, run_suite
from ..contract import COMPLETION_GATES, Negative, TaskPackage
from ..events import CheckpointSummary
from ..records import A11ySnapshot, CheckResult, VerifyReport
from ..solvers import ReferenceSolver
from ..verifier import BrowserPool, read_a11y_evidence, with_a11y_continuity
from ..workspace import discard_under
from ._grader import Grader, grader_of


class ControlResult(msgspec.Struct, frozen=True, kw_only=True):
    control: str  # "reference", "r0", "negative:<name>"
    ok: bool
    failing_gates: tuple[str, ...] = ()
    expected_gates: tuple[str, ...] = ()
    # Negatives: gates failed beyond `expected_gates`, reported, not a rejection.
    extra_gates: tuple[str, ...] = ()
    # Negatives: check id -> passed, from the first run; null for a check that was not
    # applicable (a moot `build` or `serve`, a state that never loaded): never a failure.
    checks: dict[str, bool | None] = {}
    # Negatives: how many times the suite ran on it, and the checks that changed verdict.
    runs: int = 1
    unstable_checks: tuple[str, ...] = ()
    detail: str = ""


class TaskAdmission(msgspec.Struct, frozen=True, kw_only=True):
    task: str
    contract_hash: str
    admitted: bool
    controls: tuple[ControlResult, ...]
    flaky_checks: tuple[str, ...] = ()
    # The first reference run's "checkpoint:check" -> passed: the verdicts two machines
    # (or an idle and a loaded run) must agree on; null where the check was not applicable.
    reference_checks: dict[str, bool | None] = {}
    # How many times the task was admitted: an infrastructure fault (a lost container
    # or daemon) starts the task's admission again, up to `INFRA_ATTEMPTS` times.
    attempts: int = 1
    # How many times each control ran (`admit --repeat`): `--resume` keeps only results of
    # the repeat it is asked for.
    repeat: int = 1
    # Why the admission could not be completed ("infra_error: ..." after every attempt,
    # "harness_error: ..." for a bug of ours): no verdict on the task, never admitted.
    error: str = ""
    # Negatives this admission did not run (CI's unchanged sentinels, `_select.py`): their
    # verdicts are the record's. Such an admission is never recorded.
    trusted_negatives: tuple[str, ...] = ()
    # Wall time of the admission, every attempt included (s): where an admission's time goes.
    wall_s: float = 0.0
    # The fingerprint of the grader that ran it (`_grader.py`, given to `admit_all`; "" when
    # none was): what `admit --record` records, so a resumed admission records each
    # task's verdict with the grader that reached it.
    grader: str = ""


A11yBases = Sequence[tuple[str, Mapping[str, A11ySnapshot]]]


def _failing(report: VerifyReport) -> tuple[str, ...]:
    return tuple(sorted(g.gate for g in report.gates if g.status == "fail"))


class Admitter:
    def __init__(
        self, backend: ManagedBackend, pool: BrowserPool, out: Path, sweep: AdhocSweep
    ) -> None:
        self.backend = backend
        self.pool = pool
        self.out = out
        self.sweep = sweep
        self.images = ImageBuilder()  # one per admission: concurrent tasks share builds
        self.cells = CellSetup(backend=backend, pool=pool, image_builder=self.images)

    def _ctx(self, task: TaskPackage, name: str) -> CellContext:
        cell_dir = self.out / task.contract.id / name
        discard_under(cell_dir)
        shutil.rmtree(cell_dir, ignore_errors=True)
        return self.cells.context(task, cell_dir, self.sweep.labels(f"{task.contract.id}-{name}"))

    async def suite_on(
        self, task: TaskPackage, name: str, negative: Negative | None
    ) -> VerifyReport:
        """The full suite on R0, or on R0 (+ reference through `after_unit`) + a negative.
        R0's takes no accessibility snapshot where the task's evidence has one."""
        ctx = self._ctx(task, name)
        await ctx.resolve_image()
        patches = []
        if negative is not None:
            for unit in task.contract.units:
                if not negative.after_unit:
                    break
                patches.append(task.reference_patch(unit.id))
                if unit.id == negative.after_unit:
                    break
            patches.append(task.negative_patch(negative.name))
        a11y = negative is not None or await ctx.a11y_evidence() is None
        return await run_suite(ctx, ctx.cell_dir, "-final", patches, a11y=a11y)

    async def reference(
        self, task: TaskPackage, run: int, r0_a11y: dict[str, A11ySnapshot] | None = None
    ) -> tuple[ControlResult, CellReport, Path]:
        ctx = self._ctx(task, f"reference-{run}")
        ctx.a11y_r0 = r0_a11y  # the reference's final must keep what R0 did
        report = await run_cell(ctx, ReferenceSolver(task), "staged")
        result = report.result
        problems = []
        for i, u in enumerate(result.units):
            if not u.cleared or u.turns != 1:
                problems.append(f"unit {u.id} not cleared at its first checkpoint")
            elif u.cleared_at != i + 1:
                problems.append(f"unit {u.id} cleared at checkpoint {u.cleared_at}, not {i + 1}")
        problems += [f"flip of {f.check} at checkpoint {f.failed_at}" for f in result.flips]
        failing = tuple(g for g, s in result.final_gates.items() if s == "fail")
        if failing:
            problems.append(f"final suite fails gates {', '.join(failing)}")
        control = ControlResult(
            control="reference", ok=not problems, failing_gates=failing, detail="; ".join(problems)
        )
        return control, report, ctx.cell_dir

    async def negative(
        self, task: TaskPackage, neg: Negative, repeat: int, bases: A11yBases = ()
    ) -> ControlResult:
        """The suite on a negative, `repeat` times: it must fail as expected every time.
        Its accessibility is compared with `bases` (R0's and the reference's snapshots)."""
        names = [f"negative-{neg.name}"] + [f"negative-{neg.name}-{r}" for r in range(1, repeat)]
        reports = []
        for name in names:
            report = await self.suite_on(task, name, neg)
            reports.append(with_a11y_continuity(report, task.contract, bases))
        return judge_negative(neg, reports)

    async def admit(
        self, task: TaskPackage, repeat: int = 1, negatives: Collection[str] | None = None
    ) -> TaskAdmission:
        """The task's admission; `negatives` names the ones to run (None: every one)."""
        controls: list[ControlResult] = []
        # The task's accessibility evidence, where it has some, is the base the
        # reference's final and the negatives are compared with; else R0's live run,
        # first, and the reference's (`verifier/_a11y/_gate.py`, `_a11y/_evidence.py`).
        evidence = await read_a11y_evidence(task)
        r0 = await self.suite_on(task, "r0", None)
        ref, first_run, _ = await self.reference(task, 0, r0.a11y)
        controls.append(ref)
        flaky = set()
        first = _verdicts(first_run.history)
        if repeat > 1:
            for r in range(1, repeat):
                _, again_run, _ = await self.reference(task, r, r0.a11y)
                again = _verdicts(again_run.history)
                flaky |= {k for k in first.keys() & again.keys() if first[k] != again[k]}
        r0_failing = _failing(r0)
        completion_fail = sorted(set(r0_failing) & COMPLETION_GATES)
        # R0 must be runnable: one that does not build or serve is the task's problem
        # (a sweep's cells of it end `task_error`, never graded).
        cannot = [g for g in ("build", "serve") if g in r0_failing]
        detail = "" if completion_fail else "R0 passes every completion gate"
        if cannot:
            detail = f"R0 cannot {' or '.join(cannot)}: the task is not runnable as shipped"
        controls.append(
            ControlResult(
                control="r0",
                ok=bool(completion_fail) and not cannot,
                failing_gates=r0_failing,
                detail=detail,
            )
        )
        bases: A11yBases = (("R0", r0.a11y), ("the reference", first_run.final_a11y))
        if evidence is not None:
            bases = evidence.bases()
        trusted = tuple(
            n.name
            for n in task.contract.negatives
            if negatives is not None and n.name not in negatives
        )
        for neg in task.contract.negatives:
            if neg.name in trusted:
                continue
            controls.append(await self.negative(task, neg, repeat, bases))
        admitted = all(c.ok for c in controls) and not flaky
        return TaskAdmission(
            task=task.contract.id,
            contract_hash=task.contract_hash,
            admitted=admitted,
            controls=tuple(controls),
            flaky_checks=tuple(sorted(flaky)),
            reference_checks=first,
            repeat=repeat,
            trusted_negatives=trusted,
        )


def judge_negative(neg: Negative, reports: list[VerifyReport]) -> ControlResult:
    """A negative's control from its runs (first run reported, every run must miss)."""
    runs = [{c.id: verdict(c) for c in rep.checks} for rep in reports]
    first = runs[0]
    unstable = sorted(k for k in first if any(run.get(k, first[k]) != first[k] for run in runs))
    failing = _failing(reports[0])
    problems = []
    for i, rep in enumerate(reports, 1):
        got = _failing(rep)
        missing = sorted(set(neg.expect_fail) - set(got))
        if not got:
            problems.append(f"run {i}: fails no gate")
        elif missing:
            problems.append(f"run {i}: did not fail {', '.join(missing)}")
    if unstable:
        problems.append(f"flaky over {len(runs)} runs: {', '.join(unstable)}")
    if len(reports) == 1:  # one run: the historical wording
        problems = [p.removeprefix("run 1: ") for p in problems]
    return ControlResult(
        control=f"negative:{neg.name}",
        ok=not problems,
        failing_gates=failing,
        expected_gates=tuple(neg.expect_fail),
        extra_gates=tuple(g for g in failing if g not in neg.expect_fail),
        checks=first,
        runs=len(runs),
        unstable_checks=tuple(unstable),
        detail="; ".join(problems),
    )


def verdict(check: CheckResult) -> bool | None:
    """What admission.json stores for a check: passed, or null when not applicable (a moot
    gate is stored `passed = False, applicable = False` and is no failure)."""
    return check.passed if check.applicable else None


def _verdicts(history: tuple[CheckpointSummary, ...]) -> dict[str, bool | None]:
    """(checkpoint, check) -> passed (null: not applicable), from a cell's in-memory
    checkpoint history."""
    return {f"{cp.index}:{c.id}": verdict(c) for cp in history for c in cp.checks}


INFRA_ATTEMPTS = 3
_INFRA_PAUSE_S = 5.0  # before admitting a task again: a restarting daemon comes back


async def admit_one(
    admitter: Admitter, task: TaskPackage, repeat: int, negatives: Collection[str] | None = None
) -> TaskAdmission:
    """One task's admission; a fault never escapes it (cancellation aside), so one task's
    lost container or a bug of ours does not lose the other tasks' results.

    Infrastructure faults (`faults.classify` says "infra") admit the task again from the
    start, up to `INFRA_ATTEMPTS` times; what still fails, or any other fault, is a
    `TaskAdmission` with `error` set and its traceback in `<out>/<task>/error.log`.
    """
    started = time.monotonic()
    for attempt in range(1, INFRA_ATTEMPTS + 1):
        try:
            result = await admitter.admit(task, repeat, negatives)
        except Exception as exc:
            cause = faults.decisive(exc)
            kind = faults.classify(cause)
            log = admitter.out / task.contract.id / "error.log"
            log.parent.mkdir(parents=True, exist_ok=True)
            with log.open("a") as f:
                f.write(f"attempt {attempt}: {kind}\n{faults.format_traceback(exc)}\n")
            if kind == "infra" and attempt < INFRA_ATTEMPTS:
                await anyio.sleep(_INFRA_PAUSE_S)
                continue
            status = "infra_error" if kind == "infra" else f"{kind}_error"
            return TaskAdmission(
                task=task.contract.id,
                contract_hash=task.contract_hash,
                admitted=False,
                controls=(),
                attempts=attempt,
                repeat=repeat,
                error=f"{status}: {faults.describe(cause)} (traceback: {log})",
                wall_s=round(time.monotonic() - started, 1),
            )
        wall = round(time.monotonic() - started, 1)
        return msgspec.structs.replace(result, attempts=attempt, wall_s=wall)
    raise AssertionError("unreachable")  # the loop returns on its last attempt


async def admit_all(
    tasks: list[TaskPackage],
    backend: ManagedBackend,
    pool: BrowserPool,
    out: Path,
    repeat: int,
    limit: int,
    negatives: Mapping[str, Collection[str]] | None = None,
    grader: Grader = "",
) -> list[TaskAdmission]:
    """Admit every task, `limit` at a time; each task's result is also written to
    `<out>/<task>/admission.json` as soon as it is known. `negatives`: for a task it
    names, only those negatives run (CI's partial admissions, `_select.py`); `grader`: the
    fingerprint each result carries (a task's own: `task_grader`, `_grader.py`)."""
    only = negatives or {}
    results: dict[str, TaskAdmission] = {}
    # Longest first, on `limit` workers that each take the next task when free: the run
    # does not end on one long admission with the other slots idle.
    queue = iter(sorted(tasks, key=admission_work, reverse=True))
    # A unique sweep id: its sandboxes and network are removed on exit, however it ends.
    async with adhoc_sweep("admission") as sweep:
        admitter = Admitter(backend, pool, out, sweep=sweep)

        async def worker() -> None:
            for task in queue:
                result = await admit_one(admitter, task, repeat, only.get(task.contract.id))
                result = msgspec.structs.replace(result, grader=grader_of(grader, task))
                results[task.contract.id] = result
                path = out / task.contract.id / "admission.json"
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(msgspec.json.format(msgspec.json.encode(result)))

        async with anyio.create_task_group() as tg:
            for _ in range(max(1, min(limit, len(tasks)))):
                tg.start_soon(worker)
    return [results[t.contract.id] for t in tasks]


def admission_work(task: TaskPackage) -> int:
    """About how many state replays one admission takes: every state for R0, for each
    of the reference's checkpoints (a unit's, then the final) and for each negative."""
    c = task.contract
    return len(c.states) * (1 + len(c.units) + 1 + len(c.negatives))
