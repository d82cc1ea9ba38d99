"""Which tasks a CI run admits (`ci_selection`, `ci_selection_from_env`), the sentinels
and their covering negatives (the package's docstring says why)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path

import msgspec

from ..contract import Contract, load_task
from ._grader import Grader, task_grader
from ._record import current, load_record, record_path, unverified

# Admitted on every CI run: the cheapest set (states x controls) with a task on each of
# the 10 stacks whose negatives fail every gate the suite's negatives fail.
SENTINELS: frozenset[str] = frozenset(
    {
        "ashdown-repair-cafe",  # php: navigation, regression_text, layout_overflow
        "tidemill-repair-sessions",  # astro: text, dom, visual_anchors, layout_overflow
        "brackenfold-kiln-classes",  # eleventy: text, layout_overflow, visual_anchors
        "brindle-hill-badges",  # svelte: console, design_tokens
        "gullhaven-choir-rehearsals",  # flask: regression_text, containment, navigation
        "hollin-ridge-sessions",  # static: dom, text, console
        "orchard-harvest-content",  # hugo: assets, routes
        "plantcare-mobile-nav",  # vite: a11y, containment, interaction, state_artifacts
        "quillmere-bindery-tokens",  # react: design_tokens, navigation
        "recipes-shared-components",  # node: visual_anchors, visual_regression
    }
)
# One other task a run besides the sentinels and the changed tasks.
SAMPLE_SIZE = 1


class Selection(msgspec.Struct, frozen=True, kw_only=True):
    """Which tasks a CI run admits, and why."""

    sentinels: tuple[str, ...]  # every SENTINELS task, each run
    changed: tuple[str, ...] = ()  # changed since CI verified them (not sentinels)
    sampled: tuple[str, ...]  # this rotation's window of the others
    left_out: tuple[str, ...]  # admitted by other rotations (and the full tier)
    rotation: int
    windows: int  # rotations it takes to admit every task
    named: bool = False  # PWB_ADMIT_TASKS chose the tasks, not the rotation
    # Sentinels admitted with their covering negatives only (docstring).
    partial: tuple[str, ...] = ()
    # Changed tasks with a current record: R0 and the reference alone, no negative.
    reproduced: tuple[str, ...] = ()

    @property
    def admitted(self) -> tuple[str, ...]:
        return tuple(sorted(self.sentinels + self.changed + self.sampled))

    def negatives(self, covering: Mapping[str, Sequence[str]]) -> dict[str, tuple[str, ...]]:
        """The negatives each partially admitted task runs (`admit_all(negatives=...)`):
        a partial sentinel its covering ones (`sentinel_negatives`), a reproduced task
        none. A task not named here is admitted whole."""
        plan = {t: tuple(covering.get(t, ())) for t in self.partial}
        return plan | {t: () for t in self.reproduced}

    def describe(self) -> str:
        if self.named:
            return f"admitting the tasks PWB_ADMIT_TASKS names: {', '.join(self.admitted)}"
        if not self.left_out:
            return f"admitting all {len(self.admitted)} tasks"
        changed = ", ".join(self.changed) or "none"
        part = f" ({len(self.partial)} with their covering negatives only)" if self.partial else ""
        if self.reproduced:
            changed += f"; {len(self.reproduced)} by R0 and reference alone"
        window = f"window {self.rotation % self.windows} of {self.windows}"
        return (
            f"admitting {len(self.sentinels)} sentinels{part}, the tasks changed since CI "
            f"verified them ({changed}) and {window} "
            f"({', '.join(self.sampled) or 'none'}); {len(self.left_out)} others on other "
            "rotations (PWB_ADMIT_ALL=1: the whole suite)"
        )


def ci_selection(
    task_ids: Iterable[str],
    rotation: int,
    size: int = SAMPLE_SIZE,
    changed: Iterable[str] = (),
    whole: bool = False,
    current: Iterable[str] = (),
) -> Selection:
    """The sentinels, the changed tasks and window `rotation` of the rest (docstring);
    `current`: the tasks whose record is current (a changed one is checked in part)."""
    ids = sorted(set(task_ids))
    missing = sorted(SENTINELS - set(ids))
    if missing:
        raise ValueError(f"sentinel task(s) missing from the suite: {', '.join(missing)}")
    if size < 0:
        raise ValueError(f"sample size {size}: expected 0 or more")
    moved = sorted((set(changed) & set(ids)) - SENTINELS)
    rest = [i for i in ids if i not in SENTINELS and i not in moved]
    take = min(size, len(rest))
    windows = -(-len(rest) // take) if take else 1
    start = (rotation % windows) * take
    # The changed tasks take the window's places: a run admitting them already admits
    # tasks beyond the sentinels, and the window only rotates the others through CI.
    keep = take if whole else max(0, take - len(moved))
    sampled = sorted({rest[(start + j) % len(rest)] for j in range(keep)})
    sentinels = tuple(i for i in ids if i in SENTINELS)
    touched, now = set(changed), set(current)
    return Selection(
        sentinels=sentinels,
        changed=tuple(moved),
        sampled=tuple(sampled),
        left_out=tuple(i for i in rest if i not in sampled),
        rotation=rotation,
        windows=windows,
        partial=() if whole else tuple(i for i in sentinels if i not in touched or i in now),
        reproduced=() if whole else tuple(i for i in moved if i in now),
    )


def sentinel_negatives(contracts: Iterable[Contract]) -> dict[str, tuple[str, ...]]:
    """Each sentinel's covering negatives: together they are expected to fail every gate
    any negative of the suite is expected to fail, at the fewest state replays (greedy:
    the negative adding the most uncovered gates per state of its task, ties by task and
    name). A gate no sentinel negative fails is left out (`sentinel_gaps` names it)."""
    cs = list(contracts)
    wanted = {g for c in cs for n in c.negatives for g in n.expect_fail}
    pool = [
        (c.id, n.name, frozenset(n.expect_fail), len(c.states))
        for c in sorted(cs, key=lambda c: c.id)
        if c.id in SENTINELS
        for n in c.negatives
    ]
    chosen: dict[str, list[str]] = {c.id: [] for c in cs if c.id in SENTINELS}
    left = set(wanted)
    while left and pool:
        # The most uncovered gates per state replayed; the first in the pool on a tie.
        gain, first = max(
            (len(gates & left) / states, -i) for i, (_, _, gates, states) in enumerate(pool)
        )
        if gain == 0:
            break
        task, name, gates, _ = pool[-first]
        chosen[task].append(name)
        left -= gates
    return {t: tuple(names) for t, names in sorted(chosen.items())}


def sentinel_gaps(contracts: Iterable[Contract]) -> list[str]:
    """What the suite has that the sentinels do not cover: a stack with no sentinel task, a
    gate some negative fails that no sentinel's negative is expected to fail."""
    cs = list(contracts)
    mine = [c for c in cs if c.id in SENTINELS]
    gaps = [f"stack {s}" for s in sorted({c.stack for c in cs} - {c.stack for c in mine})]
    gates = {g for c in cs for n in c.negatives for g in n.expect_fail}
    covered = {g for c in mine for n in c.negatives for g in n.expect_fail}
    return gaps + [f"gate {g}" for g in sorted(gates - covered)]


def changed_since(root: Path, base: str) -> set[str] | None:
    """Task ids under `root/tasks` whose files differ between `base` and the work tree
    (committed or not); None when git cannot tell (no repository, an unknown base)."""
    diff = subprocess.run(
        ["git", "-C", str(root), "diff", "--name-only", base, "--", "tasks"],
        capture_output=True,
        text=True,
    )
    new = subprocess.run(
        ["git", "-C", str(root), "ls-files", "--others", "--exclude-standard", "--", "tasks"],
        capture_output=True,
        text=True,
    )
    if diff.returncode != 0 or new.returncode != 0:
        return None
    paths = diff.stdout.splitlines() + new.stdout.splitlines()
    return {p.split("/")[1] for p in paths if p.count("/") >= 2}


def _int_env(env: Mapping[str, str], name: str, default: int) -> int:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        return int(raw)
    except ValueError:
        raise ValueError(f"{name}={raw!r}: expected an integer") from None


def _named(ids: Sequence[str], named: Sequence[str], everything: bool) -> Selection:
    if everything:
        raise ValueError("PWB_ADMIT_TASKS and PWB_ADMIT_ALL=1: expected one of them")
    unknown = sorted(set(named) - set(ids))
    if unknown:
        raise ValueError(f"PWB_ADMIT_TASKS: no such task(s) in the suite: {', '.join(unknown)}")
    chosen = set(named)
    return Selection(
        sentinels=tuple(sorted(chosen & SENTINELS)),
        sampled=tuple(sorted(chosen - SENTINELS)),
        left_out=tuple(i for i in sorted(ids) if i not in chosen),
        rotation=0,
        windows=1,
        named=True,
    )


def ci_selection_from_env(
    task_ids: Iterable[str],
    env: Mapping[str, str] = os.environ,
    now: datetime | None = None,
    root: Path | None = None,
    grader: Grader | None = None,
) -> Selection:
    """`ci_selection` as CI runs it: rotation = UTC day number, overridable. Given the
    repository `root`, the changed tasks are those `root/tasks/ADMISSION.json` says CI
    has not verified (or, with `PWB_ADMIT_BASE`, those git says differ from that commit),
    and the current ones those its `grader` recorded (default: this checkout's)."""
    ids = list(task_ids)
    everything = env.get("PWB_ADMIT_ALL", "").strip()
    if everything not in ("", "0", "1"):
        raise ValueError(f"PWB_ADMIT_ALL={everything!r}: expected 0 or 1")
    named = [t.strip() for t in env.get("PWB_ADMIT_TASKS", "").split(",") if t.strip()]
    if named:
        return _named(ids, named, everything == "1")
    day = (now or datetime.now(UTC)).date().toordinal()
    rotation = _int_env(env, "PWB_ADMIT_ROTATION", day)
    size = len(ids) if everything == "1" else _int_env(env, "PWB_ADMIT_SAMPLE", SAMPLE_SIZE)
    changed: Iterable[str] = ()
    fresh: Iterable[str] = ()
    if root is not None:
        tasks = [load_task(root / "tasks" / i) for i in ids]
        record = load_record(record_path(root / "tasks"))
        base = env.get("PWB_ADMIT_BASE", "").strip()
        if base:
            found = changed_since(root, base)
            changed = ids if found is None else found
        else:
            changed = unverified(record, tasks)
        fresh = current(record, tasks, task_grader if grader is None else grader)
    return ci_selection(ids, rotation, size, changed, whole=everything == "1", current=fresh)
