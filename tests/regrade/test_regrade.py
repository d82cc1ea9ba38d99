"""Trajectories and `regrade` in milliseconds: whole cells through `run_cell` with the
scripted site of `tests/fixtures/staged.py` (checks read the work tree), each
recorded, then graded again from its trajectory alone; and every hostile submission
refused for its own cell, nothing else affected.
"""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import msgspec
import pytest

from orchestrator.budget import Ledger
from orchestrator.cell import BaselineCache, CellContext, CellReport, run_cell
from orchestrator.config import BenchConfig, SweepConfig
from orchestrator.contract import CANARY, TaskPackage
from orchestrator.events import Checkpoint, read_events
from orchestrator.llm import ProviderPool
from orchestrator.records import Manifest, ManifestRow, Ok, VerifyReport, read_rows
from orchestrator.records import TaskLabels as RowLabels
from orchestrator.records import trajectory as tj
from orchestrator.regrade import (
    PatchRefused,
    RegradeOptions,
    ReplaySolver,
    VerdictDiff,
    agreement,
    agreement_table,
    cell_diff,
    check_patch,
    export_run,
    regrade,
)
from orchestrator.sweep import SweepIds, SweepResources
from orchestrator.verifier import BrowserPool, VerifyRequest
from sandbox import ImageBuilder, Labels, Limits, Sandbox, ServeSpec
from tests.fakes import FakeSandbox, Faults
from tests.fixtures.staged import A, G, P, Scripted, Site, fix, tiny_task

pytestmark = pytest.mark.anyio
ALLOWED = ("*.html", "css/**")
ITEMS = "items-order"  # a preservation check: it decides no unit's clearing


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> TaskPackage:
    return tiny_task(tmp_path_factory.mktemp("tasks"))


class KeyedSite(Site):
    """The site for cells keyed `task/solver/arm/repeat`: the scripted site finds a
    cell's tree by the last segment of its URL (here the repeat, unique per cell)."""

    @asynccontextmanager
    async def open(
        self, workspace: Path, spec: ServeSpec, labels: Labels, limits: Limits | None = None
    ) -> AsyncIterator[Sandbox]:
        short = labels.cell.rsplit("/", 1)[-1]
        self.roots[short] = workspace
        yield FakeSandbox(root=workspace, cell=short, faults=Faults())


class Planted(Site):
    """The site with a planted verifier change: check `self.check` never passes."""

    check = ITEMS

    def amend(self, request: VerifyRequest, report: VerifyReport) -> VerifyReport:
        checks = tuple(
            msgspec.structs.replace(c, passed=False) if c.id == self.check else c
            for c in report.checks
        )
        from orchestrator.verifier import gate_results

        return msgspec.structs.replace(report, checks=checks, gates=gate_results(list(checks)))


def _ctx(task: TaskPackage, site: Site, cell_dir: Path, version: str = "") -> CellContext:
    return CellContext(
        task=task,
        backend=site,
        cell_dir=cell_dir,
        labels=Labels(sweep="s", cell=cell_dir.name),
        verifier=site,
        verifier_version=version,
    )


async def _record(
    tmp: Path, solver: object, task: TaskPackage, name: str = "rec", arm: str = "staged"
) -> tuple[CellReport, tj.Trajectory]:
    report = await run_cell(_ctx(task, Site(), tmp / name), solver, arm)  # type: ignore[arg-type]
    return report, tj.read(tmp / name / tj.FILE)


async def _replay(
    tmp: Path,
    traj: tj.Trajectory,
    task: TaskPackage,
    *,
    site: Site | None = None,
    name: str = "re",
    version: str = "",
    arm: str = "staged",
) -> tuple[CellReport, ReplaySolver]:
    solver = ReplaySolver(traj, ALLOWED, strict=False)
    ctx = _ctx(task, site or Site(), tmp / name, version)
    return await run_cell(ctx, solver, arm), solver  # type: ignore[arg-type]


def _same(a: CellReport, b: CellReport) -> None:
    ra, rb = a.result, b.result
    assert (ra.units, ra.final_gates, ra.flips, ra.scores, ra.checkpoints, ra.turns) == (
        rb.units,
        rb.final_gates,
        rb.flips,
        rb.scores,
        rb.checkpoints,
        rb.turns,
    )


def _row(report: CellReport, task: TaskPackage, cell: str = "tiny-shop/s/staged/0") -> ManifestRow:
    c = task.contract
    return ManifestRow(
        sweep="s",
        cell=cell,
        task=c.id,
        labels=RowLabels(
            regime=c.regime,
            capability=c.capability,
            facet=c.facet,
            stack=c.stack,
            framework=c.framework,
        ),
        contract_hash=task.contract_hash,
        config_hash="cfg",
        solver="scripted",
        arm="staged",
        outcome=Ok(result=report.result),
    )


# ---------------------------------------------------------------- the trajectory


async def test_the_trajectory_records_reveals_turns_patches_checkpoints_and_usage(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    solver = Scripted(
        (fix(G), "done"), (None, "question"), (fix(A), "done"), (fix(G, A, P), "done")
    )
    report, traj = await _record(tmp_path, solver, tiny)
    h = traj.header
    assert (h.task, h.arm, h.solver, h.schema) == ("tiny-shop", "staged", "scripted", tj.SCHEMA)
    assert h.contract_hash == tiny.contract_hash and h.verifier and h.r0_tree
    reveals = [r for r in traj.records if isinstance(r, tj.Message) and r.type == "reveal"]
    assert [(r.unit, r.turn) for r in reveals] == [("u1", 1), ("u2", 2), ("u3", 4)]
    assert all(r.text for r in reveals)
    turns = list(traj.turns())
    assert [t.turn for t in turns] == [1, 2, 3, 4]
    assert [bool(t.patch) for t in turns] == [True, False, True, True]
    assert b"fix:greeting-text" in turns[0].patch and turns[1].question == "What wording?"
    assert turns[2].tree_before == turns[1].tree_after  # a chain of trees
    cps = list(traj.checkpoints())
    assert len(cps) == report.result.checkpoints
    assert cps[0].tree == turns[0].tree_after and cps[-1].unit == ""
    end = traj.end()
    assert end is not None and end.turns == report.result.turns
    assert end.usage.cost_usd == pytest.approx(0.25 * 4)


async def test_a_malformed_or_reordered_trajectory_is_named_by_line() -> None:
    with pytest.raises(tj.TrajectoryError, match=r"x:2: malformed record"):
        tj.parse(
            b'{"kind":"header","task":"t","contract_hash":"h","arm":"staged",'
            b'"solver":"s","r0_tree":"r","allowed_paths":[]}\n{"kind":"nope"}\n',
            "x",
        )
    with pytest.raises(tj.TrajectoryError, match="x:1: expected a header"):
        tj.parse(b'{"kind":"end","turns":0,"usage":{}}\n', "x")


# ---------------------------------------------------------------- regrading


async def test_a_regrade_from_the_trajectory_alone_gives_identical_verdicts(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    # u1 clears; u2: a question, then its fix breaks u1's check (a flip) and clears;
    # u3's fix repairs it. Every rule that decides a score is exercised.
    script = ((fix(G), "done"), (None, "question"), (fix(A), "done"), (fix(G, A, P), "done"))
    original, traj = await _record(tmp_path, Scripted(*script), tiny)
    assert original.result.flips and original.result.flips[0].repaired_at is not None
    again, solver = await _replay(tmp_path, traj, tiny)
    _same(original, again)
    assert not solver.divergence and not solver.tree_mismatches
    assert solver.changed_messages == 0  # the same pushback and answers, word for word
    new = tj.read(tmp_path / "re" / tj.FILE)
    assert [c.tree for c in new.checkpoints()] == [c.tree for c in traj.checkpoints()]
    assert [t.patch for t in new.turns()] == [t.patch for t in traj.turns()]
    diff = cell_diff(
        _row(again, tiny),
        old_row=_row(original, tiny),
        old_checkpoints=_summaries(tmp_path / "rec"),
        new_checkpoints=_summaries(tmp_path / "re"),
        old_traj=traj,
        new_traj=new,
    )
    assert diff.same and diff.why == ()
    # The agreement table: every verdict compared agrees; counted here independently.
    table = {k: (n, bad) for k, n, bad in agreement(VerdictDiff(cells=(diff,)))}
    cps = _summaries(tmp_path / "rec")
    assert table["check verdicts"] == (sum(len(c.checks) for c in cps), 0)
    assert table["checkpoint gates"] == (sum(len(c.gates) for c in cps), 0)
    assert table["units cleared"] == (len(tiny.contract.units), 0)
    assert table["status"] == (1, 0) and table["flips"] == (1, 0)
    assert "| check verdicts | " in agreement_table(VerdictDiff(cells=(diff,)))[2 + 6]


async def test_a_budget_stop_and_the_full_spec_arm_regrade_identically(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    stopped, traj = await _record(tmp_path, Scripted((fix(G), "done"), raise_at=2), tiny)
    assert stopped.stopped and traj.stop() is not None
    again, _ = await _replay(tmp_path, traj, tiny)
    _same(stopped, again)
    assert again.stopped_by == stopped.stopped_by == "tokens"
    assert again.stopped == stopped.stopped == "tokens budget exceeded: scripted"
    full, ftraj = await _record(
        tmp_path, Scripted((fix(G, A), "edited"), (fix(G, A, P), "done")), tiny, "f", "full-spec"
    )
    fagain, _ = await _replay(tmp_path, ftraj, tiny, name="fre", arm="full-spec")
    _same(full, fagain)


def _summaries(cell_dir: Path) -> list:  # type: ignore[type-arg]
    return [
        e.checkpoint for e in read_events(cell_dir / "events.jsonl") if isinstance(e, Checkpoint)
    ]


async def test_a_planted_verifier_change_shows_in_the_diff_and_only_there(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    script = ((fix(G), "done"), (fix(G, A), "done"), (fix(G, A, P), "done"))
    original, traj = await _record(tmp_path, Scripted(*script), tiny)
    assert original.result.scores.whole_task
    again, solver = await _replay(tmp_path, traj, tiny, site=Planted(), version="planted")
    diff = cell_diff(
        _row(again, tiny),
        old_row=_row(original, tiny),
        old_checkpoints=_summaries(tmp_path / "rec"),
        new_checkpoints=_summaries(tmp_path / "re"),
        old_traj=traj,
        new_traj=tj.read(tmp_path / "re" / tj.FILE),
        divergence=solver.divergence,
    )
    checks = [c for c in diff.changes if " check " in c]
    assert checks == [f"checkpoint {k} check {ITEMS}: pass -> fail" for k in (1, 2, 3, 4)]
    gates = sorted(c for c in diff.changes if " gate " in c)
    assert gates == [f"checkpoint {k} gate regression_text: pass -> fail" for k in (1, 2, 3, 4)] + [
        "final gate regression_text: pass -> fail"
    ]
    assert "score final_pass: True -> False" in diff.changes
    assert not [c for c in diff.changes if c.startswith(("unit", "flip", "checkpoints"))]
    assert diff.why == (f"verifier version changed: {traj.header.verifier} -> planted",)
    # The agreement table names the differing kinds, and only them.
    table = {k: bad for k, _, bad in agreement(VerdictDiff(cells=(diff,)))}
    assert table == {
        "status": 0,
        "units cleared": 0,
        "final gates": 1,
        "scores": sum(c.startswith("score ") for c in diff.changes),
        "flips": 0,
        "checkpoint gates": 4,
        "check verdicts": 4,
    }
    rows = agreement_table(VerdictDiff(cells=(diff,)))
    n = sum(len(c.checks) for c in _summaries(tmp_path / "rec"))
    assert f"| check verdicts | {n} | 4 | {100 * (n - 4) / n:.1f}% |" in rows


async def test_a_verdict_that_changes_the_protocol_is_named_as_a_divergence(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    script = ((fix(G), "done"), (fix(G, A), "done"), (fix(G, A, P), "done"))
    _, traj = await _record(tmp_path, Scripted(*script), tiny)
    site = Planted()
    site.check = A  # u2's own check: u2 never clears, u3 is never revealed
    again, solver = await _replay(tmp_path, traj, tiny, site=site, version="planted")
    assert solver.divergence == ("turn 3: the protocol is at unit 'u2', the recording at 'u3'")
    assert [u.cleared for u in again.result.units] == [True, False, False]


# ---------------------------------------------------------------- hostile patches

_GOOD = b"diff --git a/css/x.css b/css/x.css\nnew file mode 100644\n--- /dev/null\n+++ b/css/x.css\n@@ -0,0 +1 @@\n+x\n"


def _new_file(path: str, mode: str = "100644") -> bytes:
    return (
        f"diff --git a/{path} b/{path}\nnew file mode {mode}\n--- /dev/null\n+++ b/{path}\n"
        "@@ -0,0 +1 @@\n+x\n"
    ).encode()


@pytest.mark.parametrize(
    ("patch", "why"),
    [
        (_new_file("task.toml"), "a grader file of the task package"),
        (_new_file("evidence/r0/home.txt"), "a grader file of the task package"),
        (_new_file("server.py"), "outside allowed paths"),
        (_new_file("../escape.html"), "'..' is not allowed"),
        (_new_file("css/../../escape.html"), "'..' is not allowed"),
        (_new_file("/etc/passwd.html"), "absolute paths are not allowed"),
        (_new_file("css/.git/config"), ".git is not part of the workspace"),
        (_new_file("css/link.css", "120000"), "a link; submissions hold files only"),
        (_new_file("css/sub", "160000"), "a submodule"),
        (
            b'diff --git "a/\\056\\056/x.html" "b/\\056\\056/x.html"\nnew file mode 100644\n',
            "'..' is not allowed",
        ),
        (
            _GOOD.replace(b"+++ b/css/x.css", b"+++ b/../x.css"),
            "'..' is not allowed",
        ),
        (
            b"diff --git a/css/big.bin b/css/big.bin\nnew file mode 100644\nGIT binary patch\n"
            b"literal 999999999\nzcmV-\n",
            "a file of 999999999 bytes",
        ),
        (b"rm -rf /\n", "not a git patch"),
        (b"diff --git a/x b/y z\n", "cannot tell the paths"),
    ],
)
def test_a_hostile_patch_is_refused_with_its_reason(patch: bytes, why: str) -> None:
    check_patch(_GOOD, ALLOWED, strict=True)  # the well-formed one passes
    with pytest.raises(PatchRefused) as info:
        check_patch(patch, ALLOWED, strict=True)
    assert why in str(info.value)


def test_a_runs_own_trajectory_keeps_scope_violations_and_links_for_grading() -> None:
    check_patch(_new_file("server.py"), ALLOWED, strict=False)
    check_patch(_new_file("css/link.css", "120000"), ALLOWED, strict=False)
    with pytest.raises(PatchRefused, match=r"'\.\.'"):
        check_patch(_new_file("../x.html"), ALLOWED, strict=False)


def test_a_patch_past_the_size_cap_is_refused() -> None:
    huge = _GOOD + b"+" * (8 << 20)
    with pytest.raises(PatchRefused, match="a patch of"):
        check_patch(huge, ALLOWED, strict=True)


# ---------------------------------------------------------------- submissions


def _fake_resources(site: Site):  # type: ignore[no-untyped-def]
    @asynccontextmanager
    async def open_(
        cfg: BenchConfig, run_dir: Path, ids: SweepIds, tasks: list[TaskPackage], ledger: Ledger
    ) -> AsyncIterator[SweepResources]:
        yield SweepResources(
            cfg=cfg,
            run_dir=run_dir,
            backend=site,
            pool=BrowserPool(),
            providers=ProviderPool([]),
            ledger=ledger,
            baseline=BaselineCache(run_dir / "baseline"),
            sandbox_limiter=anyio.CapacityLimiter(2),
            image_builder=ImageBuilder(),
            tasks={t.contract.id: t for t in tasks},
            solvers={},
            ids=ids,
            verifier=site,
        )

    return open_


def _hostile(traj_text: bytes, patch: bytes) -> str:
    """The trajectory with its first turn's patch replaced."""
    lines = traj_text.splitlines()
    for i, line in enumerate(lines):
        rec = msgspec.json.decode(line)
        if rec["kind"] == "turn":
            rec["patch"] = base64.b64encode(patch).decode()
            lines[i] = msgspec.json.encode(rec)
            break
    return b"\n".join(lines).decode() + "\n"


async def test_a_hostile_submission_is_refused_cell_by_cell(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    # A run of one cell, recorded, exported.
    run = tmp_path / "run"
    key = "tiny-shop/scripted/staged/0"
    cell = run / "cells" / key.replace("/", "__")
    script = ((fix(G), "done"), (fix(G, A), "done"), (fix(G, A, P), "done"))
    original = await run_cell(_ctx(tiny, Site(), cell), Scripted(*script), "staged")
    with Manifest(run) as m:
        m.append(_row(original, tiny, key))
    sub = tmp_path / "sub.jsonl"
    assert export_run(run, sub) == (1, [])
    good = msgspec.json.decode(sub.read_bytes().splitlines()[1])
    text = good["trajectory"].encode()
    assert CANARY.encode() not in sub.read_bytes()

    def cell_line(repeat: int, trajectory: str) -> bytes:
        return msgspec.json.encode(good | {"repeat": repeat, "trajectory": trajectory})

    hostile = {
        1: _hostile(text, _new_file("task.toml")),
        2: _hostile(text, _new_file("server.py")),
        3: _hostile(text, _new_file("../x.html")),
        4: _hostile(text, _new_file("css/l.css", "120000")),
        5: _hostile(
            text,
            b"diff --git a/css/b b/css/b\nnew file mode 100644\nGIT binary patch\nliteral 99999999\nx\n",
        ),
        6: text.decode().replace('"kind":"turn"', '"kind":"turn","extra":1', 1),
    }
    lines = sub.read_bytes().splitlines()
    lines += [cell_line(r, t) for r, t in hostile.items()]
    lines.append(b'{"task": "tiny-shop", "solver": "../../etc", "arm": "staged", "trajectory": ""}')
    lines.append(b"{not json")
    sub.write_bytes(b"\n".join(lines) + b"\n")
    site = KeyedSite()
    cfg = BenchConfig(
        sweep=SweepConfig(tasks_dir=str(tiny.root.parent), baseline=False, concurrency=4),
        solvers=(),
    )
    out = await regrade(
        cfg, RegradeOptions(out=tmp_path / "new", submission=sub, resources=_fake_resources(site))
    )
    by = {r.cell: r for r in out.rows}
    graded = by[key]
    assert graded.status == "ok" and graded.result is not None, graded.outcome
    assert graded.result.scores == original.result.scores  # graded as the run was
    expect = {
        1: "a grader file",
        2: "outside allowed paths",
        3: "'..' is not allowed",
        4: "a link",
        5: "a file of 99999999 bytes",
        6: "malformed record",
    }
    for r, why in expect.items():
        row = by[f"tiny-shop/scripted/staged/{r}"]
        assert row.status == "refused" and why in row.error, (r, row.error)
    bad = sorted(c for c in by if c.startswith("submission/"))
    assert len(bad) == 2 and all(by[c].status == "refused" for c in bad)
    assert "malformed record" in by[bad[0]].error and "malformed record" in by[bad[1]].error
    # Nothing of a refused cell was written outside the new run, and nothing into it
    # but its own cell.
    assert not (tmp_path / "x.html").exists() and not (tmp_path / "new" / "task.toml").exists()
    # Resumable: a second run grades nothing again (every row is current or refused).
    rows_before = len(read_rows(tmp_path / "new" / "manifest.jsonl"))
    again = await regrade(
        cfg, RegradeOptions(out=tmp_path / "new", submission=sub, resources=_fake_resources(site))
    )
    assert len(again.rows) >= rows_before
    assert {r.cell for r in again.rows[rows_before:]} <= {
        c for c, r in by.items() if r.status == "refused"
    }


# ---------------------------------------------------------------- the commands


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["regrade", "--out", "OUT"], "regrade needs one of RUN_DIR or --submission FILE"),
        (["regrade", "NOPE", "--out", "OUT"], "NOPE: not a run directory (no manifest.jsonl)"),
        (["regrade", "--submission", "NOPE", "--out", "OUT"], "NOPE: cannot read"),
        (["regrade", "--submission", "BAD", "--out", "OUT"], "BAD:1: not a submission header"),
        (["export", "NOPE", "-o", "OUT"], "NOPE: not a run directory (no manifest.jsonl)"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    argv: list[str],
    says: str,
    tmp_path: Path,
    tiny: TaskPackage,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from orchestrator.cli import main

    (tmp_path / "BAD").write_text('{"cells": 1}\n')
    (tmp_path / "bench.toml").write_text(
        f'[sweep]\ntasks_dir = "{tiny.root.parent}"\n\n[[solvers]]\nname = "reference"\n'
        'kind = "reference"\n'
    )
    args = [str(tmp_path / a) if a.isupper() else a for a in argv]
    if argv[0] == "regrade":
        args += ["--config", str(tmp_path / "bench.toml")]
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and says.split(":")[-1].strip() in err, err
    assert not (tmp_path / "OUT").exists() or argv[0] == "export"
