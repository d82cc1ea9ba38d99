"""A verifier that grades a task's checks from the work tree's files, without a browser:
the fast stand-in that gives a `mixed` fake sweep (tests/report/mixed_run.py) a
realistic population over the shipped suite.

The oracle knows a task through its own patches. Replaying the reference unit by unit
gives every state a touched file goes through (`R0`, after u1, after u2, ...). A check of
unit k passes when every file unit k's reference touched is in its state after unit k or
a later one (the unit's work is there); a file that is in none of those states holds
something else: a negative, when it is in the state that negative leaves from one of
them. A negative found in the tree fails every check of its `expect_fail` gates; the
checks of no unit (preservation, regression) pass otherwise. build, serve and scope are
the harness's own `run_health` checks (moot ones not applicable, as in a real run).
"""

from __future__ import annotations

import functools
import shutil
import subprocess
import tempfile
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from orchestrator.contract import Gate
from orchestrator.records import CheckResult, VerifyReport
from orchestrator.verifier import VerifyRequest, gate_results, run_health
from orchestrator.workspace import Workspace
from tests.fakes import FakeVerifierBase

Snapshot = dict[str, bytes | None]  # path -> content (None: absent)


def _touched(patch: Path) -> list[str]:
    out = []
    for line in patch.read_text(errors="replace").splitlines():
        if line.startswith("+++ ") or line.startswith("--- "):
            name = line[4:].strip()
            if name != "/dev/null":
                path = name.split("/", 1)[1] if name[:2] in ("a/", "b/") else name
                if path not in out:
                    out.append(path)
    return out


def _read(root: Path, paths: Collection[str]) -> Snapshot:
    return {p: (root / p).read_bytes() if (root / p).is_file() else None for p in paths}


def _apply(tree: Path, patch: Path) -> bool:
    done = subprocess.run(
        ["git", "apply", "--whitespace=nowarn", str(patch)], cwd=tree, capture_output=True
    )
    return done.returncode == 0


@dataclass(frozen=True)
class TaskOracle:
    unit_files: dict[str, tuple[str, ...]]  # unit id -> files its reference touches
    # unit id -> per file, the states that count as "the unit's work is there"
    done: dict[str, dict[str, frozenset[bytes | None]]]
    negatives: dict[str, Snapshot]  # negative name -> the files it leaves
    check_unit: dict[str, str]  # check id -> the unit that owns it
    expect: dict[str, frozenset[Gate]]  # negative name -> the gates it must fail


@functools.cache
def task_oracle(root: Path, contract_hash: str) -> TaskOracle:
    """The oracle of the package at `root` (cached per contract hash)."""
    from orchestrator.contract import load_task

    task = load_task(root)
    c = task.contract
    units = [u.id for u in c.units]
    files = {u: tuple(_touched(task.reference_patch(u))) for u in units}
    every = sorted({f for fs in files.values() for f in fs})
    with tempfile.TemporaryDirectory(prefix="pwb-oracle-") as tmp:
        tree = Path(tmp) / "tree"
        shutil.copytree(task.repo, tree, ignore=shutil.ignore_patterns(".git", "node_modules"))
        states: list[Snapshot] = [_read(tree, every)]  # R0, then after each unit
        after: dict[str, Snapshot] = {"": states[0]}
        for u in units:
            if not _apply(tree, task.reference_patch(u)):
                raise RuntimeError(f"{c.id}: reference {u} does not apply")
            states.append(_read(tree, every))
            after[u] = states[-1]
        negatives: dict[str, Snapshot] = {}
        for n in c.negatives:
            base = Path(tmp) / f"neg-{n.name}"
            shutil.copytree(task.repo, base, ignore=shutil.ignore_patterns(".git", "node_modules"))
            for u in units[: units.index(n.after_unit) + 1] if n.after_unit else []:
                _apply(base, task.reference_patch(u))
            if _apply(base, task.negative_patch(n.name)):
                negatives[n.name] = _read(base, _touched(task.negative_patch(n.name)))
    done = {
        u: {f: frozenset(states[j][f] for j in range(i + 1, len(states))) for f in files[u]}
        for i, u in enumerate(units)
    }
    owner = {check: u.id for u in c.units for check in u.checks}
    expect = {n.name: frozenset(n.expect_fail) for n in c.negatives}
    return TaskOracle(
        unit_files=files, done=done, negatives=negatives, check_unit=owner, expect=expect
    )


@dataclass
class OracleVerifier(FakeVerifierBase):
    """`Verifier` of the fake sweeps that grades from the work tree (module docstring)."""

    async def grade(self, request: VerifyRequest) -> VerifyReport:
        task, base_url, check_ids = request.task, request.base_url, request.check_ids
        health, workspace = request.health, request.workspace
        oracle = task_oracle(task.root, task.contract_hash)
        assert isinstance(workspace, Workspace)
        tree = workspace.root
        wanted = [c for c in task.contract.checks if check_ids is None or c.id in check_ids]
        checks: list[CheckResult] = []
        for c in wanted:
            ok, why = _grade(oracle, tree, c.id, c.gate) if base_url else (False, "down")
            checks.append(
                CheckResult(
                    id=c.id,
                    gate=c.gate,
                    state=c.state,
                    passed=ok,
                    observed=why,
                    message="" if ok else f"{c.id} on {c.state}: {why}",
                )
            )
        checks += run_health(health)
        return VerifyReport(checks=tuple(checks), gates=gate_results(checks))


def _grade(oracle: TaskOracle, tree: Path, check: str, gate: str) -> tuple[bool, str]:
    for name, snap in oracle.negatives.items():
        if gate in oracle.expect[name] and _read(tree, snap) == snap:
            return False, f"negative {name} is in the tree"
    unit = oracle.check_unit.get(check)
    if unit is None:
        return True, "no unit owns it"
    for path, states in oracle.done[unit].items():
        if _read(tree, [path])[path] not in states:
            return False, f"{path}: {unit}'s work is not there"
    return True, f"{unit}'s work is there"
