"""`audit sample`: a blind rating packet from a recorded run.

The population is every applicable check of every scored cell's final checkpoint that is
about a page (run-level checks, `build@run` and the like, have no render to rate). `n`
of them are drawn with a seeded generator. The packet directory holds:

- `packet.jsonl`: one `Item` a line: the task's request (the units' requests in order),
  the state and the check in words (its description and where it is read, never what
  was observed), and the two renders copied under `renders/`;
- `ratings.csv`: `item,rating` with the rating empty: raters write `pass` or `fail`;
- `key.jsonl`: the harness's verdict per item (`KeyEntry`): NOT for the raters.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import msgspec

from ..contract import ContractError, load_task
from ..events import read_events
from ..records import CheckResult, cell_dir_name
from ..report import ReportError, final_checkpoint, final_shots, load_run, reference_shots

KEY = "key.jsonl"
PACKET = "packet.jsonl"
RATINGS = "ratings.csv"


class AuditError(Exception):
    """Bad input to `audit`: one line naming what and where."""


class Item(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    task: str
    request: str
    state: str
    check: str  # the check in words: what should hold, and where it is read
    reference: str  # render paths relative to the packet ("" when there is none)
    final: str


class KeyEntry(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    cell: str
    check_id: str
    gate: str
    verdict: str  # "pass" | "fail"


def _words(c: CheckResult) -> str:
    """The message without what was observed (which could give the verdict away)."""
    return c.message.rsplit("; observed:", 1)[0] or c.id


def _population(run_dir: Path, tasks_dir: Path) -> list[tuple[str, str, Path, CheckResult]]:
    try:
        run = load_run(run_dir, tasks_dir)
    except ReportError as exc:
        raise AuditError(str(exc)) from exc
    out = []
    for row in run.rows:
        if row.result is None:
            continue
        cell_dir = run_dir / "cells" / cell_dir_name(row.cell)
        final = final_checkpoint(read_events(cell_dir / "events.jsonl"))
        if final is None:
            continue
        out += [
            (row.cell, row.task, cell_dir, c)
            for c in final.checks
            if c.applicable and c.state != "run"
        ]
    return out


def _item(
    item_id: str, tasks_dir: Path, task_id: str, cell_dir: Path, check: CheckResult, out: Path
) -> Item:
    """One packet item, its two renders copied under `out/renders/`."""
    try:
        task = load_task(tasks_dir / task_id)
    except ContractError as exc:
        raise AuditError(f"{tasks_dir / task_id}: {exc}") from exc
    final = final_checkpoint(read_events(cell_dir / "events.jsonl"))
    renders = {
        "reference": reference_shots(task.root).get(check.state),
        "final": final_shots(cell_dir, final).get(check.state),
    }
    rel = {}
    for side, src in renders.items():
        rel[side] = ""
        if src is not None:
            rel[side] = f"renders/{item_id}-{side}.png"
            shutil.copyfile(src, out / rel[side])
    request = "\n\n".join(u.request for u in task.contract.units)
    return Item(
        id=item_id,
        task=task_id,
        request=request,
        state=check.state,
        check=_words(check),
        reference=rel["reference"],
        final=rel["final"],
    )


def sample(run_dir: Path, tasks_dir: Path, n: int, out: Path, seed: int = 0) -> list[Item]:
    """Write the packet for `n` sampled checks into `out` (new or empty); its items."""
    if n < 1:
        raise AuditError(f"--n: expected a positive number, got {n}")
    if out.exists() and any(out.iterdir()):
        raise AuditError(f"{out}: expected a new or empty directory")
    population = _population(run_dir, tasks_dir)
    if not population:
        raise AuditError(f"{run_dir}: no scored cell with a final checkpoint to sample")
    picked = random.Random(seed).sample(population, min(n, len(population)))
    (out / "renders").mkdir(parents=True, exist_ok=True)
    items: list[Item] = []
    keys: list[KeyEntry] = []
    for i, (cell, task_id, cell_dir, check) in enumerate(picked, 1):
        item_id = f"i{i:03d}"
        items.append(_item(item_id, tasks_dir, task_id, cell_dir, check, out))
        verdict = "pass" if check.passed else "fail"
        keys.append(
            KeyEntry(id=item_id, cell=cell, check_id=check.id, gate=check.gate, verdict=verdict)
        )
    enc = msgspec.json.Encoder()
    (out / PACKET).write_bytes(b"".join(enc.encode(x) + b"\n" for x in items))
    (out / KEY).write_bytes(b"".join(enc.encode(x) + b"\n" for x in keys))
    (out / RATINGS).write_text("item,rating\n" + "".join(f"{x.id},\n" for x in items))
    return items
