"""The verifier-validity pipeline end to end on shipped tasks whose truth is known (#38).

    python tests/perf/audit_example.py [--tasks fernhill-save-tools,gullhaven-choir-rehearsals]

For each task it runs a real sweep (Docker, Chromium; staged arm) of the reference and
of every negative control, draws the blind packet over every applicable check of their
final checkpoints (`audit sample --n` the whole population), fills `ratings.csv` from
what the task package says is true, and scores it (`audit score`): the paper's
Appendix D with the author's declared verdicts in the raters' place.

What is known without looking at the harness's verdict:
- the reference passes every check (admission requires it);
- a negative fails exactly its `expect_fail` gates (admission requires it), so its
  checks of every other gate pass;
- of a negative's checks in an `expect_fail` gate, only one that is its gate's only
  applicable check is known to fail; the others are left unrated (the gate fails, which
  of its checks a human would fail is not declared), and counted.

Then one rating is planted wrong (a known fail rated pass) and scored again, to show
the agreement move. Writes `tests/perf/results/audit-example.md` (and keeps the packets
under `--keep DIR` if given).
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from orchestrator.contract import load_task  # noqa: E402
from orchestrator.records import read_rows  # noqa: E402

BENCH = """
[sweep]
name = "audit-example"
runs_dir = "{runs}"
tasks_dir = "{tasks}"
arms = ["staged"]
repeats = 1
concurrency = 3
backend = "docker"
baseline = false

[[solvers]]
name = "reference"
kind = "reference"
"""

NEGATIVE = """
[[solvers]]
name = "neg-{name}"
kind = "negative"
negative = "{name}"
"""

PY = [sys.executable, "-m", "orchestrator"]


def _run(argv: list[str]) -> str:
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}:\n{done.stderr[-2000:]}")
    return done.stdout


def _truth(solver: str, expect: dict[str, set[str]], gate: str, alone: bool) -> str:
    """What the package declares this check's verdict is ("" = not declared)."""
    if solver == "reference":
        return "pass"
    failing = expect[solver.removeprefix("neg-")]
    if gate not in failing:
        return "pass"
    return "fail" if alone else ""


def _task_packet(task_id: str, tmp: Path) -> tuple[Path, dict[str, int]]:
    task = load_task(ROOT / "tasks" / task_id)
    expect: dict[str, set[str]] = {n.name: set(n.expect_fail) for n in task.contract.negatives}
    config = tmp / f"{task_id}.toml"
    config.write_text(
        BENCH.format(runs=tmp / "runs", tasks=ROOT / "tasks")
        + "".join(NEGATIVE.format(name=n) for n in expect)
    )
    run_dir = tmp / f"run-{task_id}"
    _run([*PY, "--config", str(config), "--quiet", "--run-dir", str(run_dir), "--tasks", task_id])
    packet = tmp / f"packet-{task_id}"
    _run([*PY, "audit", "sample", str(run_dir), "--n", "100000", "--out", str(packet)])
    solver_of = {r.cell: r.solver for r in read_rows(run_dir / "manifest.jsonl")}
    keys = [json.loads(x) for x in (packet / "key.jsonl").read_text().splitlines() if x]
    # A check is its gate's only applicable one in that cell's final checkpoint.
    per_gate: dict[tuple[str, str], int] = {}
    for k in keys:
        per_gate[k["cell"], k["gate"]] = per_gate.get((k["cell"], k["gate"]), 0) + 1
    counts = {"items": len(keys), "rated": 0, "undeclared": 0}
    with (packet / "ratings.csv").open("w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["item", "rating"])
        for k in keys:
            truth = _truth(
                solver_of[k["cell"]], expect, k["gate"], per_gate[k["cell"], k["gate"]] == 1
            )
            counts["rated" if truth else "undeclared"] += 1
            out.writerow([k["id"], truth])
    return packet, counts


def _merge(packets: list[Path], into: Path) -> None:
    """One packet of every task's items (ids prefixed by the task's index)."""
    into.mkdir()
    keys, ratings = [], ["item,rating"]
    for i, p in enumerate(packets):
        for line in (p / "key.jsonl").read_text().splitlines():
            k = json.loads(line)
            k["id"] = f"t{i}-{k['id']}"
            keys.append(json.dumps(k))
        for row in list(csv.reader((p / "ratings.csv").open()))[1:]:
            ratings.append(f"t{i}-{row[0]},{row[1]}")
    (into / "key.jsonl").write_text("\n".join(keys) + "\n")
    (into / "ratings.csv").write_text("\n".join(ratings) + "\n")


def _plant(packet: Path) -> str:
    """Rate the first known fail as a pass; the item planted."""
    rows = list(csv.reader((packet / "ratings.csv").open()))
    for row in rows[1:]:
        if row[1] == "fail":
            row[1] = "pass"
            with (packet / "ratings.csv").open("w", newline="") as f:
                csv.writer(f).writerows(rows)
            return row[0]
    raise SystemExit("no known fail to plant a wrong rating on")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--tasks", default="fernhill-save-tools,gullhaven-choir-rehearsals")
    ap.add_argument("--keep", type=Path, help="copy the packets here")
    ap.add_argument("--out", type=Path, default=ROOT / "tests/perf/results/audit-example.md")
    args = ap.parse_args()
    tasks = args.tasks.split(",")
    with tempfile.TemporaryDirectory(prefix="pwb-audit-example-") as tmp_s:
        tmp = Path(tmp_s)
        made = [_task_packet(t, tmp) for t in tasks]
        _merge([p for p, _ in made], tmp / "all")
        table = _run([*PY, "audit", "score", str(tmp / "all" / "ratings.csv")])
        planted = tmp / "planted"
        shutil.copytree(tmp / "all", planted)
        item = _plant(planted)
        table_planted = _run([*PY, "audit", "score", str(planted / "ratings.csv")])
        if args.keep:
            shutil.copytree(
                tmp, args.keep, dirs_exist_ok=True, ignore=shutil.ignore_patterns("runs")
            )
    lines = [
        "# Verifier validity: the worked example (`tests/perf/audit_example.py`)",
        "",
        "Raters replaced by what each task package declares (see the script's docstring).",
        "",
        "| task | items | rated | not declared |",
        "|---|---|---|---|",
        *(
            f"| {t} | {c['items']} | {c['rated']} | {c['undeclared']} |"
            for t, (_, c) in zip(tasks, made, strict=True)
        ),
        "",
        "`audit score`:",
        "",
        table.strip(),
        "",
        f"With one known fail rated pass ({item}):",
        "",
        table_planted.strip(),
        "",
    ]
    args.out.write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
