"""Mutation testing of the grading core (issue #18): `scripts/mutants [GROUP ...]`.

Each group mutates a few modules with mutmut 3 and runs only the fast tests that cover
them (no Docker, no Chromium). A group is run in a scratch copy of the checkout (the
work tree is never touched): `/tmp/pwb-mutants/<group>`, kept between runs so mutmut can
resume. Prints, per group, the score and every surviving mutant with its diff; the
curated record is tests/mutants/RESULTS.md.

Not part of .ci/run: a full run takes tens of minutes on two cores.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import libcst as cst

ROOT = Path(__file__).resolve().parents[2]
SCRATCH = Path(os.environ.get("PWB_MUTANTS_DIR", "/tmp/pwb-mutants"))


@dataclass(frozen=True)
class Group:
    modules: tuple[str, ...]
    tests: tuple[str, ...]
    # Functions and classes (qualified names, e.g. `StagedRun.run_full_spec`) that are not
    # mutated: the parts of a module that are adapters (Docker, browser, the writer) rather
    # than grading rules. mutmut's `do_not_mutate_patterns` cannot do this (a matching
    # `def` line only protects the expressions on that line), so the scratch copy gets a
    # `# pragma: no mutate block` on each one's header (mutmut 3.8: the whole body).
    exclude: tuple[str, ...] = ()
    # Lines (regex, mutmut's `do_not_mutate_patterns`): an expression starting on a
    # matching line is not mutated, with everything inside it (e.g. an event's fields).
    skip: tuple[str, ...] = ()
    # If set: the only functions mutated (qualified names); every other one is excluded.
    only: tuple[str, ...] = ()
    copy: tuple[str, ...] = field(default=("bench.toml",))


GROUPS: dict[str, Group] = {
    "scoring": Group(
        modules=("orchestrator/scoring.py",),
        tests=("tests/scoring/test_scores.py", "tests/mutants/test_scoring_rules.py"),
    ),
    "flips": Group(
        modules=("orchestrator/cell/_flips.py",),
        tests=("tests/mutants/test_flip_tracker.py", "tests/mutants/test_staged_rules.py"),
    ),
    "staged": Group(
        modules=(
            "orchestrator/cell/_staged.py",
            "orchestrator/cell/_deliver.py",
            "orchestrator/cell/_grade.py",
            "orchestrator/cell/_run.py",
        ),
        tests=("tests/mutants/test_staged_rules.py",),
        # The rules: clearing, checkpoints and flips, units not reached, the final
        # verdict, the baseline channel, budget stops. Not: opening sandboxes and the R0
        # run itself (`_suite.py`), the full-spec arm's conversation, failure logging,
        # event texts.
        # `summarize` (the checkpoint summary, with `_how`) is mutated since issue #35.
        exclude=(
            "run_cell",
            "_log_failure",
            "StagedRun.run_full_spec",
        ),
        skip=(r"log\.emit\(",),
    ),
    "gates": Group(
        modules=(
            "orchestrator/verifier/_core/_gates.py",
            "orchestrator/verifier/_replay/_visual.py",
        ),
        tests=("tests/mutants/test_gate_evaluators.py",),
    ),
    "workspace": Group(
        modules=("orchestrator/workspace/_paths.py",),
        tests=(
            "tests/mutants/test_path_guards.py",
            "tests/workspace/test_workspace.py",
            "tests/security/test_workspace_attacks.py",
        ),
    ),
    "resume": Group(
        modules=("orchestrator/records/_manifest.py", "orchestrator/sweep/_sweep.py"),
        tests=("tests/records/test_manifest.py", "tests/mutants/test_resume.py"),
        # The resume filter only: `latest_by_cell` and `pending_jobs`.
        only=("latest_by_cell", "pending_jobs"),
    ),
    "report": Group(
        modules=("orchestrator/report/_aggregate.py", "orchestrator/report/_measures.py"),
        tests=(
            "tests/report/test_report_aggregate.py",
            "tests/report/test_report_populations.py",
            "tests/mutants/test_report_numbers.py",
        ),
    ),
    # Issue #35: where the independently planted bugs survived.
    "checkpoint": Group(
        modules=("orchestrator/checkpoint.py",),
        tests=("tests/mutants/test_checkpoint_rules.py", "tests/mutants/test_staged_rules.py"),
    ),
    "verify": Group(
        modules=(
            "orchestrator/verifier/_verify/_run.py",
            "orchestrator/verifier/_verify/_jobs.py",
            "orchestrator/verifier/_verify/_grade.py",
        ),
        tests=("tests/mutants/test_verify_rules.py",),
    ),
    "replay_checks": Group(
        modules=("orchestrator/verifier/_replay/_checks.py",),
        tests=("tests/mutants/test_replay_checks_rules.py",),
    ),
    "stats": Group(
        modules=("orchestrator/report/_stats.py",),
        tests=("tests/report/test_report_stats.py",),
    ),
    "report_channels": Group(
        modules=(
            "orchestrator/report/_regressions.py",
            "orchestrator/report/_analyses.py",
            "orchestrator/report/_load.py",
        ),
        tests=(
            "tests/report/test_report_aggregate.py",
            "tests/report/test_report_populations.py",
            "tests/report/test_report_twins.py",
            "tests/mutants/test_report_numbers.py",
            "tests/mutants/test_report_channels.py",
        ),
    ),
    "workspace_tools": Group(
        modules=("orchestrator/workspace/_workspace.py",),
        tests=(
            "tests/workspace/test_workspace.py",
            "tests/security/test_workspace_attacks.py",
            "tests/mutants/test_workspace_tools.py",
        ),
    ),
}

PRAGMA = "# pragma: no mutate block"


class _Exclude(cst.CSTTransformer):
    """Puts PRAGMA on the header of every excluded function or class."""

    def __init__(self, group: Group) -> None:
        self.group = group
        self.scope: list[str] = []
        self.marked: list[str] = []

    def _excluded(self, name: str) -> bool:
        if name in self.group.exclude:
            return True
        only = self.group.only
        return bool(only) and name not in only and not any(o.startswith(name + ".") for o in only)

    def _enter(self, name: str) -> bool:
        self.scope.append(name)
        return not self._excluded(".".join(self.scope))

    def _leave(self, node: cst.FunctionDef | cst.ClassDef) -> cst.FunctionDef | cst.ClassDef:
        name = ".".join(self.scope)
        self.scope.pop()
        if not self._excluded(name) or not isinstance(node.body, cst.IndentedBlock):
            return node
        self.marked.append(name)
        header = node.body.header.with_changes(
            whitespace=cst.SimpleWhitespace("  "), comment=cst.Comment(PRAGMA)
        )
        return node.with_changes(body=node.body.with_changes(header=header))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return self._enter(node.name.value)

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return self._enter(node.name.value)

    def leave_FunctionDef(
        self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef
    ) -> cst.FunctionDef | cst.ClassDef:
        return self._leave(updated_node)

    def leave_ClassDef(
        self, original_node: cst.ClassDef, updated_node: cst.ClassDef
    ) -> cst.FunctionDef | cst.ClassDef:
        return self._leave(updated_node)


def _mark_excluded(work: Path, group: Group) -> list[str]:
    """Write PRAGMA into the scratch copy's modules; returns what it marked."""
    marked: list[str] = []
    for module in group.modules:
        path = work / module
        visitor = _Exclude(group)
        path.write_text(cst.parse_module(path.read_text()).visit(visitor).code)
        marked += [f"{module}:{name}" for name in visitor.marked]
    names = {m.split(":", 1)[1] for m in marked}
    missing = [n for n in group.exclude if n not in names]
    missing += [n for n in group.only if not _defined(work, group, n)]
    if missing:
        sys.exit(f"mutants: no function or class {', '.join(missing)} in {list(group.modules)}")
    return marked


def _defined(work: Path, group: Group, name: str) -> bool:
    leaf = name.rsplit(".", 1)[-1]
    return any(
        re.search(rf"^\s*(async def|def|class) {re.escape(leaf)}\b", (work / m).read_text(), re.M)
        for m in group.modules
    )


_LINE = re.compile(r"^\s+(\S+): (.+)$")


def _toml_list(items: tuple[str, ...]) -> str:
    return "[" + ", ".join(json.dumps(i) for i in items) + "]"


def _tests_at(work: Path, rev: str, group: Group) -> Group:
    """Replace the scratch copy's tests by those of commit `rev` (today's code, that
    commit's tests: the kill rate before a change to the tests); the group keeps the test
    files that existed then."""
    shutil.rmtree(work / "tests")
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev, "tests"], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(work)], input=archive, check=True)
    kept = tuple(t for t in group.tests if (work / t).is_file())
    for t in group.tests:
        if t not in kept:
            print(f"not at {rev}: {t}")
    if not kept:
        sys.exit(f"mutants: no test of this group exists at {rev}")
    return replace(group, tests=kept)


def _prepare(name: str, group: Group, tests_at: str = "") -> tuple[Path, Group]:
    work = SCRATCH / name
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    for sub in ("orchestrator", "sandbox", "tests"):
        shutil.copytree(ROOT / sub, work / sub, ignore=shutil.ignore_patterns("__pycache__"))
    if tests_at:
        group = _tests_at(work, tests_at, group)
    for extra in group.copy:
        shutil.copy2(ROOT / extra, work / extra)
    config = (ROOT / "pyproject.toml").read_text()
    config += (
        "\n[tool.mutmut]\n"
        'source_paths = ["orchestrator"]\n'
        f"only_mutate = {_toml_list(group.modules)}\n"
        f"do_not_mutate_patterns = {_toml_list(group.skip)}\n"
        f"also_copy = {_toml_list(('sandbox/', *group.copy))}\n"
        f"pytest_add_cli_args_test_selection = {_toml_list(group.tests)}\n"
        'pytest_add_cli_args = ["-p", "no:cacheprovider", "-m", "not docker and not browser"]\n'
        "use_git_change_detection = false\n"
    )
    (work / "pyproject.toml").write_text(config)
    for line in _mark_excluded(work, group):
        print(f"not mutated: {line}")
    return work, group


def _mutmut(work: Path, *args: str, capture: bool = False) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CI")}
    done = subprocess.run(
        [sys.executable, "-c", "from mutmut.__main__ import cli; cli()", *args],
        cwd=work,
        env=env,
        text=True,
        capture_output=capture,
        check=False,
    )
    if done.returncode != 0 and args[0] != "run":
        sys.exit(f"mutants: `mutmut {' '.join(args)}` failed in {work}\n{done.stderr or ''}")
    return done.stdout or ""


def run_group(name: str, group: Group, jobs: int, tests_at: str = "") -> dict[str, object]:
    work, group = _prepare(name, group, tests_at)
    t0 = time.monotonic()
    _mutmut(work, "run", "--max-children", str(jobs))
    elapsed = time.monotonic() - t0
    statuses: dict[str, str] = {}
    for line in _mutmut(work, "results", "--all", "true", capture=True).splitlines():
        m = _LINE.match(line)
        if m:
            statuses[m.group(1)] = m.group(2)
    survived = sorted(k for k, s in statuses.items() if s != "killed")
    killed = len(statuses) - len(survived)
    print(f"\n## {name}: {killed}/{len(statuses)} killed ({elapsed:.0f}s)")
    # Per module: a mutant's key is `<module>.x_<function>__mutmut_<n>` (methods: `xǁ`).
    per_module: dict[str, list[int]] = {}
    for key, status in statuses.items():
        counts = per_module.setdefault(key.split(".x", 1)[0], [0, 0])
        counts[0] += status == "killed"
        counts[1] += 1
    for module, (k, t) in sorted(per_module.items()):
        print(f"- {module}: {k}/{t} killed ({k / t:.1%})")
    diffs: dict[str, str] = {}
    for key in survived:
        # "no tests": no selected test runs the function (listed, no diff needed).
        diff = "" if statuses[key] == "no tests" else _mutmut(work, "show", key, capture=True)
        diffs[key] = diff
        print(f"### {key}: {statuses[key]}\n{diff}")
    return {
        "group": name,
        "modules": list(group.modules),
        "tests": list(group.tests),
        "tests_at": tests_at or "HEAD",
        "total": len(statuses),
        "killed": killed,
        "per_module": {m: {"killed": k, "total": t} for m, (k, t) in sorted(per_module.items())},
        "survived": {k: statuses[k] for k in survived},
        "seconds": round(elapsed),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("groups", nargs="*", choices=[*GROUPS, []], metavar="GROUP")
    ap.add_argument("-j", "--jobs", type=int, default=1, help="parallel mutants (default 1)")
    ap.add_argument(
        "--tests-at",
        default="",
        metavar="REV",
        help="mutate today's code but run the tests of commit REV (a 'before' score)",
    )
    args = ap.parse_args()
    names = args.groups or list(GROUPS)
    results = [run_group(n, GROUPS[n], args.jobs, args.tests_at) for n in names]
    total = sum(int(r["total"]) for r in results)  # type: ignore[call-overload]
    killed = sum(int(r["killed"]) for r in results)  # type: ignore[call-overload]
    print("\n| group | killed | total | score |\n|---|---|---|---|")
    for r in results:
        t, k = int(r["total"]), int(r["killed"])  # type: ignore[call-overload]
        print(
            f"| {r['group']} | {k} | {t} | {k / t:.0%} |" if t else f"| {r['group']} | 0 | 0 | - |"
        )
    if total:
        print(f"| all | {killed} | {total} | {killed / total:.1%} |")
    out = SCRATCH / "last.json"
    out.write_text(json.dumps(results, indent=2))
    print(f"(details: {out})")


if __name__ == "__main__":
    main()
