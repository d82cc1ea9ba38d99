"""Build a solver for one cell from its bench.toml entry."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..budget import Ledger
from ..contract import TaskPackage
from ._offline import MixedSolver, NegativeSolver, NoopSolver, ReferenceSolver, ThrashSolver
from ._protocol import Solver

if TYPE_CHECKING:
    from ..config import BenchConfig, SolverConfig
    from ..llm import ProviderPool


def make_solver(
    cfg: SolverConfig,
    task: TaskPackage,
    bench: BenchConfig,
    providers: ProviderPool,
    ledger: Ledger,
) -> Solver:
    match cfg.kind:
        case "reference":
            return ReferenceSolver(task)
        case "noop":
            return NoopSolver()
        case "thrash":
            return ThrashSolver(task)
        case "mixed":
            return MixedSolver(task, cfg.name)
        case "negative":
            name = cfg.negative or task.contract.negatives[0].name
            return NegativeSolver(task, name)
        case "llm":
            from ._llm import LLMSolver

            return LLMSolver(
                providers.client(cfg.provider), cfg.options, ledger=ledger, name=cfg.name
            )
        case "scaffold":
            from ._scaffold import ScaffoldSolver

            assert cfg.scaffold is not None
            return ScaffoldSolver(cfg.name, cfg.scaffold, ledger, cfg.provider)
    raise ValueError(f"unknown solver kind {cfg.kind!r}")


def offline_solver(name: str, task: TaskPackage) -> Solver:
    """`reference`, `noop`, `thrash` or `negative:<name>` without a bench.toml."""
    if name == "reference":
        return ReferenceSolver(task)
    if name == "noop":
        return NoopSolver()
    if name == "thrash":
        return ThrashSolver(task)
    if name == "mixed" or name.startswith("mixed-"):
        return MixedSolver(task, name)
    if name.startswith("negative:"):
        neg = name.split(":", 1)[1]
        if neg not in {n.name for n in task.contract.negatives}:
            known = ", ".join(n.name for n in task.contract.negatives) or "none"
            raise ValueError(f"{task.contract.id}: no negative named {neg!r} (known: {known})")
        return NegativeSolver(task, neg)
    raise ValueError(
        f"unknown offline solver {name!r}: use reference, noop, thrash, mixed[-<seed>], "
        "negative:<name>"
    )
