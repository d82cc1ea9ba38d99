"""The suite's composition (`tasks` prints it) and its greenfield twins' problems."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from ..contract import Contract, ContractError, TaskPackage, load_task, twin_problems


def suite_twin_problems(tasks: Sequence[TaskPackage]) -> list[str]:
    """`twin_problems` of every greenfield twin among `tasks`, against the suite it ships
    in: the tasks given, else the task of that id beside it (in its tasks directory)."""
    known = {t.contract.id: t.contract for t in tasks}
    problems: list[str] = []
    for t in tasks:
        c = t.contract
        if c.twin_of is not None:
            suite = known if c.twin_of in known else _beside(t.root, c.twin_of)
            problems += twin_problems(c, str(t.root / "task.toml"), suite)
    return problems


def _beside(root: Path, task_id: str) -> dict[str, Contract]:
    try:
        return {task_id: load_task(root.parent / task_id).contract}
    except ContractError:
        return {}


# A task-clustered bootstrap needs two tasks to draw an interval (report/_stats.py).
MIN_TASKS_FOR_INTERVAL = 2


def _too_small(by: Mapping[str, Counter[str]]) -> str:
    """Which regime, facet and stack groups the report's breakdowns cannot give an interval."""
    small = [
        f"{k} {v} ({n})"
        for k in ("regime", "facet", "stack")
        for v, n in sorted(by[k].items())
        if n < MIN_TASKS_FOR_INTERVAL
    ]
    if not small:
        return f"every regime, facet and stack has >= {MIN_TASKS_FOR_INTERVAL} tasks (intervals)"
    return f"under {MIN_TASKS_FOR_INTERVAL} tasks, no interval in the report: " + ", ".join(small)


def composition(contracts: Iterable[Contract]) -> str:
    """Counts by regime × capability × facet (rows) × stack (columns), with totals."""
    cs = list(contracts)
    if not cs:
        return "composition: no tasks\n"
    stacks = sorted({c.stack for c in cs})
    cells = Counter((c.regime, c.capability, c.facet, c.stack) for c in cs)
    rows = sorted({(c.regime, c.capability, c.facet) for c in cs})
    by = {k: Counter(getattr(c, k) for c in cs) for k in ("regime", "capability", "facet", "stack")}
    width = max(6, *(len(s) for s in stacks))
    lines = [f"composition: {len(cs)} tasks"]
    for k, margin in by.items():
        lines.append(f"  {k}: " + ", ".join(f"{v} {n}" for v, n in sorted(margin.items())))
    lines.append(
        f"{'regime':7} {'capability':12} {'facet':15} "
        + " ".join(f"{s:>{width}}" for s in stacks)
        + " | total"
    )
    for regime, cap, facet in rows:
        counts = [cells[(regime, cap, facet, s)] for s in stacks]
        lines.append(
            f"{regime:7} {cap:12} {facet:15} "
            + " ".join(f"{n or '.':>{width}}" for n in counts)
            + f" | {sum(counts):5}"
        )
    per_stack = Counter(c.stack for c in cs)
    lines.append(
        f"{'total':36} " + " ".join(f"{per_stack[s]:>{width}}" for s in stacks) + f" | {len(cs):5}"
    )
    rework = sum(any(u.kind == "rework" for u in c.units) for c in cs)
    negs3 = sum(len(c.negatives) >= 3 for c in cs)
    lines.append(
        f"with a rework unit: {rework} of {len(cs)}; with >= 3 negatives: {negs3} of {len(cs)}"
    )
    ids = {c.id: c for c in cs}
    twins = sorted(
        (c.id, c.twin_of) for c in cs if c.twin_of in ids and ids[c.twin_of].regime == "change"
    )
    lines.append(
        f"greenfield twins of change tasks: {len(twins)}"
        + "".join(f"{'; ' if i else ' ('}{t} -> {s}" for i, (t, s) in enumerate(twins))
        + (")" if twins else "")
    )
    lines.append(_too_small(by))
    return "\n".join(lines) + "\n"
