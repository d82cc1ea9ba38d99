"""The verdict diff: per cell, what a regrade changed and why (`verdict-diff.json`, `.md`).

Compared per cell: the row's status; each unit's clearing; each final gate; the flips;
each score; and, checkpoint by checkpoint, each check's verdict (passed, failed, not
applicable) and each gate's status. Why, as far as the records can tell: the task's
contract hash changed, the verifier's version changed, the rendering environment differs,
a checkpoint's work tree differs from the recording, or the replay diverged from it (the
protocol asked for a turn the solver never played).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

import msgspec

from ..events import CheckpointSummary
from ..records import CellResult, ManifestRow
from ..records.trajectory import Header, Trajectory


class CellDiff(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    cell: str
    status: str  # the regrade row's status
    changes: tuple[str, ...] = ()  # one line each: what changed
    why: tuple[str, ...] = ()  # one line each: what differs in how it was graded
    # How many verdicts of each kind (`KINDS`) were compared, for the agreement table.
    compared: dict[str, int] = {}

    @property
    def same(self) -> bool:
        return not self.changes


# The agreement table's rows: a kind of verdict and how its change lines begin.
KINDS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(start))
    for kind, start in (
        ("status", r"status:"),
        ("units cleared", r"unit "),
        ("final gates", r"final gate "),
        ("scores", r"score "),
        ("flips", r"flip "),
        ("checkpoint gates", r"checkpoint \d+ gate "),
        ("check verdicts", r"checkpoint \d+ check "),
    )
)


def _kind_of(change: str) -> str:
    return next((kind for kind, start in KINDS if start.match(change)), "other")


def agreement(diff: VerdictDiff) -> list[tuple[str, int, int]]:
    """Per kind of verdict: (kind, compared, differing) over the cells both runs graded
    (a second machine's or a hostile fontconfig's regrade agrees when every row is 0)."""
    compared = {kind: 0 for kind, _ in KINDS}
    differing = dict.fromkeys(compared, 0)
    for cell in diff.cells:
        for kind, n in cell.compared.items():
            compared[kind] = compared.get(kind, 0) + n
        for change in cell.changes:
            kind = _kind_of(change)
            differing[kind] = differing.get(kind, 0) + 1
    return [(k, compared.get(k, 0), differing.get(k, 0)) for k in {**compared, **differing}]


def compared_counts(
    old_row: ManifestRow | None,
    new_row: ManifestRow,
    old_checkpoints: Iterable[CheckpointSummary],
    new_checkpoints: Iterable[CheckpointSummary],
) -> dict[str, int]:
    """How many verdicts of each kind a cell's comparison covered (the union of both)."""
    if old_row is None:
        return {}
    out = {"status": 1}
    old, new = old_row.result, new_row.result
    if old is not None and new is not None:
        out["units cleared"] = len({u.id for u in old.units} | {u.id for u in new.units})
        out["final gates"] = len(set(old.final_gates) | set(new.final_gates))
        out["scores"] = len(msgspec.structs.asdict(old.scores))
        out["flips"] = len({f.check for f in old.flips} | {f.check for f in new.flips})
    olds = {c.index: c for c in old_checkpoints}
    news = {c.index: c for c in new_checkpoints}
    gates = checks = 0
    for k in set(olds) & set(news):
        gates += len(set(olds[k].gates) | set(news[k].gates))
        checks += len({c.id for c in olds[k].checks} | {c.id for c in news[k].checks})
    out["checkpoint gates"], out["check verdicts"] = gates, checks
    return out


class VerdictDiff(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    cells: tuple[CellDiff, ...]

    @property
    def changed(self) -> tuple[CellDiff, ...]:
        return tuple(c for c in self.cells if not c.same)


def _verdict(passed: bool, applicable: bool) -> str:
    return "n/a" if not applicable else "pass" if passed else "fail"


def _pairs(what: str, old: Mapping[Any, object], new: Mapping[Any, object]) -> list[str]:
    missing = "-"
    return [
        f"{what} {k}: {old.get(k, missing)} -> {new.get(k, missing)}"
        for k in sorted(set(old) | set(new))
        if old.get(k, missing) != new.get(k, missing)
    ]


def result_changes(old: CellResult, new: CellResult) -> list[str]:
    out = []
    for prefix, a, b in (
        (
            "unit",
            {u.id: (u.cleared, u.capped, u.cleared_at) for u in old.units},
            {u.id: (u.cleared, u.capped, u.cleared_at) for u in new.units},
        ),
        ("final gate", dict(old.final_gates), dict(new.final_gates)),
        ("score", msgspec.structs.asdict(old.scores), msgspec.structs.asdict(new.scores)),
    ):
        out += _pairs(prefix, a, b)
    flips_old = {(f.check, f.passed_at, f.failed_at, f.repaired_at) for f in old.flips}
    flips_new = {(f.check, f.passed_at, f.failed_at, f.repaired_at) for f in new.flips}
    out += [
        f"flip {f[0]} (passed {f[1]}, failed {f[2]}) gone"
        for f in sorted(flips_old - flips_new, key=str)
    ]
    out += [
        f"flip {f[0]} (passed {f[1]}, failed {f[2]}) new"
        for f in sorted(flips_new - flips_old, key=str)
    ]
    if old.checkpoints != new.checkpoints:
        out.append(f"checkpoints: {old.checkpoints} -> {new.checkpoints}")
    return out


def checkpoint_changes(
    old: Iterable[CheckpointSummary], new: Iterable[CheckpointSummary]
) -> list[str]:
    out = []
    olds = {c.index: c for c in old}
    news = {c.index: c for c in new}
    for k in sorted(set(olds) | set(news)):
        a, b = olds.get(k), news.get(k)
        if a is None or b is None:
            out.append(f"checkpoint {k}: {'new' if a is None else 'gone'}")
            continue
        out += _pairs(f"checkpoint {k} gate", a.gates, b.gates)
        out += _pairs(
            f"checkpoint {k} check",
            {c.id: _verdict(c.passed, c.applicable) for c in a.checks},
            {c.id: _verdict(c.passed, c.applicable) for c in b.checks},
        )
    return out


def why(
    old: Header | None, new: Header | None, old_row: ManifestRow | None, new_row: ManifestRow
) -> list[str]:
    out = []
    if old_row is not None and old_row.contract_hash != new_row.contract_hash:
        out.append(
            f"contract hash changed: {old_row.contract_hash[:12]} -> {new_row.contract_hash[:12]}"
        )
    if old is not None and new is not None:
        if old.verifier != new.verifier:
            out.append(f"verifier version changed: {old.verifier or '?'} -> {new.verifier}")
        if old.render_env != new.render_env:
            out.append(f"rendering environment differs: {old.render_env!r} -> {new.render_env!r}")
        if old.r0_tree != new.r0_tree:
            out.append(f"R0 differs: tree {old.r0_tree[:12]} -> {new.r0_tree[:12]}")
    return out


def tree_changes(old: Trajectory | None, new: Trajectory | None) -> list[str]:
    if old is None or new is None:
        return []
    a = {c.index: c.tree for c in old.checkpoints()}
    b = {c.index: c.tree for c in new.checkpoints()}
    return [
        f"checkpoint {k}: work tree {a.get(k, '-')[:12]} -> {b.get(k, '-')[:12]}"
        for k in sorted(set(a) | set(b))
        if a.get(k) != b.get(k)
    ]


def cell_diff(
    new_row: ManifestRow,
    *,
    old_row: ManifestRow | None,
    old_checkpoints: Iterable[CheckpointSummary] = (),
    new_checkpoints: Iterable[CheckpointSummary] = (),
    old_traj: Trajectory | None = None,
    new_traj: Trajectory | None = None,
    divergence: str = "",
) -> CellDiff:
    changes: list[str] = []
    if old_row is not None:
        if old_row.status != new_row.status:
            changes.append(f"status: {old_row.status} -> {new_row.status}")
        if old_row.result is not None and new_row.result is not None:
            changes += result_changes(old_row.result, new_row.result)
        changes += checkpoint_changes(old_checkpoints, new_checkpoints)
    reasons = why(
        old_traj.header if old_traj else None,
        new_traj.header if new_traj else None,
        old_row,
        new_row,
    )
    reasons += tree_changes(old_traj, new_traj)
    if divergence:
        reasons.append(f"replay diverged: {divergence}")
    if new_row.status == "refused":
        reasons.append(f"refused: {new_row.error}")
    old_checkpoints, new_checkpoints = list(old_checkpoints), list(new_checkpoints)
    return CellDiff(
        cell=new_row.cell,
        status=new_row.status,
        changes=tuple(changes),
        why=tuple(reasons),
        compared=compared_counts(old_row, new_row, old_checkpoints, new_checkpoints),
    )


def markdown(diff: VerdictDiff, source: str) -> str:
    same = sum(c.same for c in diff.cells)
    lines = [
        f"# Verdict diff: regrade of {source}",
        "",
        f"{len(diff.cells)} cell(s): {same} identical, {len(diff.changed)} changed.",
        "",
        *agreement_table(diff),
        "",
    ]
    for c in diff.cells:
        if c.same and not c.why:
            continue
        lines.append(f"## {c.cell} ({c.status}{', identical' if c.same else ''})")
        lines += [f"- {x}" for x in c.changes]
        lines += [f"- why: {x}" for x in c.why]
        lines.append("")
    return "\n".join(lines) + "\n"


def agreement_table(diff: VerdictDiff) -> list[str]:
    """The agreement table (Markdown): per kind of verdict, compared, differing, agree %."""
    lines = ["| verdicts | compared | differing | agree |", "|---|---:|---:|---:|"]
    for kind, n, bad in agreement(diff):
        rate = f"{100 * (n - bad) / n:.1f}%" if n else "-"
        lines.append(f"| {kind} | {n} | {bad} | {rate} |")
    return lines
