"""Re-admit the suite under the current grader, a task at a time, committing each one.

    python scripts/readmit.py [--workers 3] [--dry-run] [--tasks-dir DIR] [TASK ...]
    python scripts/readmit.py --promote TASK ...     # drafts/TASK -> tasks/TASK

For a new grader (`orchestrator/admission/_grader.py`) every task is captured again and
admitted `--repeat 3`. That is hours of work, and a sitting may end on a new machine
whose cache (`admit --cache`'s store) is empty. So each admitted task is committed on
the current branch at once (its recaptured `evidence/` and its `tasks/ADMISSION.json`
row): what a sitting admitted is never paid for again, and the same command, run again
anywhere, takes up the tasks whose record is not current under this grader.

Each worker takes the next task (the longest first): `capture`, then `admit --repeat 3
--parallel 1 --out runs/readmit/<task>`; an admitted task is recorded (`admit --resume
DIR --record`, under a lock: the record is one file) and committed; one that is not
keeps its evidence out of the commit (`git checkout`), its results stay in its
directory, and it is named at the end. Run it alone on the machine: captures and
admissions measure the page's main thread, and load moves that figure.

Each admitted task's results are also kept in the user's store for this grader
(`admit --cache`'s, which the full tier's whole-suite admission reads), so that tier does
not admit it again on this machine; `--to-store` keeps every current admission already
under `runs/readmit` there.

New tasks wait in `drafts/` (`drafts/README.md`): `--tasks-dir drafts` admits them in
place, recorded in `drafts/ADMISSION.json` (a contract hash does not depend on where the
package sits). `--promote` moves admitted drafts into `tasks/` with their record rows, in
one commit; a draft whose row is not current under this grader is refused, and nothing
moves. Promote a new stack's tasks together: the suite needs two tasks a stack.
"""

from __future__ import annotations

import argparse
import fcntl
import queue
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path.cwd()  # the checkout whose tasks are re-admitted (and whose code grades)
sys.path.insert(0, str(ROOT))

from orchestrator.admission import (  # noqa: E402
    AdmissionBusy,
    AdmissionRecord,
    admission_lock,
    admission_store,
    admission_work,
    common_fingerprint,
    current,
    kept_admission,
    load_record,
    record_path,
    task_grader,
    write_record,
)
from orchestrator.contract import TaskPackage, discover_tasks, load_task  # noqa: E402

OUT = ROOT / "runs" / "readmit"
LOCK = OUT / ".record.lock"


def pending(tasks_dir: Path, names: list[str]) -> list[str]:
    """Task ids not yet recorded under this grader, longest admission first."""
    tasks = [load_task(r) for r in discover_tasks(tasks_dir)]
    if names:
        tasks = [t for t in tasks if t.contract.id in names]
    record = load_record(record_path(tasks_dir))
    done = current(record, tasks, task_grader)
    todo = [t for t in tasks if t.contract.id not in done]
    return [t.contract.id for t in sorted(todo, key=admission_work, reverse=True)]


def promote(ids: list[str], drafts: Path, tasks: Path) -> list[str]:
    """Move admitted drafts into `tasks` with their record rows; the paths moved. Raises
    ValueError, moving nothing, when a draft is missing, already shipped or not admitted
    under this grader."""
    draft_record, shipped = load_record(record_path(drafts)), load_record(record_path(tasks))
    packages = [load_task(drafts / i) for i in ids]
    ok = current(draft_record, packages, task_grader)
    for task in packages:
        tid = task.contract.id
        if tid not in ok:
            raise ValueError(f"{drafts / tid}: no current --repeat 3 admission in {drafts}")
        if (tasks / tid).exists() or tid in shipped.tasks:
            raise ValueError(f"{tasks / tid}: a shipped task of that id exists")
    rows = {t.contract.id: draft_record.tasks[t.contract.id] for t in packages}
    for tid in rows:
        shutil.move(drafts / tid, tasks / tid)
    rest = {k: v for k, v in draft_record.tasks.items() if k not in rows}
    write_record(record_path(tasks), AdmissionRecord(tasks={**shipped.tasks, **rows}))
    write_record(record_path(drafts), AdmissionRecord(tasks=rest))
    return sorted(rows)


def _out(task: TaskPackage) -> Path:
    return OUT / task.contract.id / "admission"


def to_store(out: Path, task: TaskPackage, store: Path) -> bool:
    """An admitted task's `--repeat 3` results (in `out`, an `admit --out` directory)
    kept in the user's store for this grader, where `admit --cache` and the full tier's
    whole-suite admission look first: a verdict paid for once. False, and nothing
    copied, for a verdict that is not a current admission of the task."""
    kept = kept_admission(out, task, 3, task_grader)
    if kept is None or not kept.admitted:
        return False
    with admission_lock(store):
        dst = store / task.contract.id
        if dst.exists():
            shutil.rmtree(dst)
        shutil.copytree(out / task.contract.id, dst, symlinks=True)  # a workspace link stays one
    return True


def sh(argv: list[str], log: Path) -> int:
    with log.open("a") as f:
        f.write(f"$ {' '.join(argv)}\n")
        f.flush()
        return subprocess.run(argv, stdout=f, stderr=subprocess.STDOUT, cwd=ROOT).returncode


def one(task: str, tasks_dir: str = "tasks") -> str:
    out = OUT / task
    out.mkdir(parents=True, exist_ok=True)
    log = out / "readmit.log"
    py = sys.executable
    t0 = time.monotonic()
    rc = sh([py, "-m", "orchestrator", "capture", f"{tasks_dir}/{task}"], log)
    if rc not in (0, 1):  # 1: an R0 state not reached yet, which is normal
        return f"{task}: capture exit {rc} (see {log})"
    adm = out / "admission"
    if adm.exists() and not (adm / "admit.json").exists():
        shutil.rmtree(adm)
    if (adm / "admit.json").exists():
        argv = ["--resume", str(adm)]
    else:
        argv = ["--repeat", "3", "--parallel", "1", "--out", str(adm), f"{tasks_dir}/{task}"]
    rc = sh([py, "-m", "orchestrator", "admit", *argv], log)
    wall = time.monotonic() - t0
    if rc != 0:
        subprocess.run(["git", "checkout", "--", f"{tasks_dir}/{task}"], cwd=ROOT)
        subprocess.run(["git", "clean", "-fdq", f"{tasks_dir}/{task}"], cwd=ROOT)
        return f"{task}: NOT admitted, exit {rc}, {wall:.0f} s (see {adm}/admission.md)"
    with LOCK.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        rc = sh([py, "-m", "orchestrator", "admit", "--resume", str(adm), "--record"], log)
        if rc != 0:
            return f"{task}: admitted but not recorded, exit {rc} (see {log})"
        files = [f"{tasks_dir}/{task}", f"{tasks_dir}/ADMISSION.json"]
        subprocess.run(["git", "add", "-A", *files], cwd=ROOT)
        msg = (
            f"{task}: evidence recaptured and admitted --repeat 3 under this grader "
            f"({wall:.0f} s; scripts/readmit.py)"
        )
        subprocess.run(["git", "commit", "-qm", msg, "--", *files], cwd=ROOT)
    try:
        to_store(adm, load_task(ROOT / tasks_dir / task), admission_store(common_fingerprint()))
    except AdmissionBusy as exc:  # the full tier admits into it now: `--to-store` later
        return f"{task}: admitted and committed, {wall:.0f} s; not in the store: {exc}"
    return f"{task}: admitted and committed, {wall:.0f} s"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("tasks", nargs="*")
    p.add_argument("--workers", type=int, default=3)
    p.add_argument("--dry-run", action="store_true", help="print the tasks it would admit")
    p.add_argument("--tasks-dir", default="tasks", help="tasks/ (default) or drafts/")
    p.add_argument("--promote", action="store_true", help="move admitted drafts to tasks/")
    p.add_argument(
        "--to-store",
        action="store_true",
        help="keep every current admission under runs/readmit in the user's store",
    )
    args = p.parse_args()
    if args.to_store:
        store = admission_store(common_fingerprint())
        tasks = [load_task(r) for r in discover_tasks(ROOT / args.tasks_dir)]
        kept = [t.contract.id for t in tasks if to_store(_out(t), t, store)]
        print(f"{store}: {len(kept)} of {len(tasks)} task(s) kept: {' '.join(kept)}")
        return 0
    if args.promote:
        try:
            moved = promote(args.tasks, ROOT / "drafts", ROOT / "tasks")
        except (ValueError, OSError) as exc:
            print(f"readmit --promote: {exc}", file=sys.stderr)
            return 2
        paths = [p for t in moved for p in (f"drafts/{t}", f"tasks/{t}")]
        paths += ["drafts/ADMISSION.json", "tasks/ADMISSION.json"]
        subprocess.run(["git", "add", "-A", *paths], cwd=ROOT, check=True)
        msg = f"promoted from drafts/, admitted --repeat 3: {', '.join(moved)}"
        subprocess.run(["git", "commit", "-qm", msg], cwd=ROOT, check=True)
        print(f"{msg} (a new stack's first task: add its sentinel to SENTINELS)")
        return 0
    todo = pending(ROOT / args.tasks_dir, args.tasks)
    print(f"{len(todo)} task(s) to re-admit: {' '.join(todo)}", flush=True)
    if args.dry_run or not todo:
        return 0
    OUT.mkdir(parents=True, exist_ok=True)
    work: queue.Queue[str] = queue.Queue()
    for t in todo:
        work.put(t)
    failed: list[str] = []

    def worker() -> None:
        while True:
            try:
                task = work.get_nowait()
            except queue.Empty:
                return
            line = one(task, args.tasks_dir)
            print(time.strftime("%H:%M:%S"), line, flush=True)
            if "admitted and committed" not in line:
                failed.append(line)

    threads = [threading.Thread(target=worker) for _ in range(max(1, args.workers))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(f"done: {len(todo) - len(failed)} of {len(todo)} committed", flush=True)
    for line in failed:
        print(line, flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
