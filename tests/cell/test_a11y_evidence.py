"""Accessibility from the evidence (#53) in milliseconds: whole cells through `run_cell`
with the scripted site of `tests/fixtures/staged.py`, which also takes an
accessibility snapshot of every state on a full suite (the `label` rule on `#q` fails
once `break:label` is in the work tree). A task with `evidence/a11y.json` is graded
against it with or without the sweep's baseline, and its baseline R0 replays without
snapshots; a task without it grades as before; a malformed file is one line naming it.
"""

from __future__ import annotations

import random
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import msgspec
import pytest

from orchestrator.cell import BaselineCache, CellContext, CellReport, run_cell
from orchestrator.contract import CANARY, ContractError, TaskPackage, load_task
from orchestrator.events import Final, read_events
from orchestrator.faults import TaskProblem
from orchestrator.records import (
    A11ySnapshot,
    AxeFinding,
    BaselineRegression,
    FocusFinding,
    VerifyReport,
)
from orchestrator.verifier import (
    AXE_VERSION,
    A11yEvidence,
    VerifyRequest,
    encode_a11y_evidence,
    load_a11y_evidence,
    write_a11y_side,
)
from sandbox import Labels
from tests.fixtures.staged import A, G, P, Scripted, Site, fix, tiny_task

pytestmark = pytest.mark.anyio
FIXED = fix(G, A, P)  # every unit cleared: the final differs from the reference only in `break:`


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> TaskPackage:
    return tiny_task(tmp_path_factory.mktemp("tasks"))


def snap(broken: bool) -> A11ySnapshot:
    """A state where `label` holds on `#q` (or fails there), and the focus walk's one link."""
    return A11ySnapshot(
        violations=(AxeFinding(rule="label", target="#q", impact="critical"),) if broken else (),
        passes=() if broken else ("label|#q", "region|main"),
        focus=(FocusFinding(element='a[href="/"] "Home"', visible=True, detail="outline"),),
    )


@dataclass
class A11ySite(Site):
    """The scripted site, with a snapshot of every state on a full suite asked for one."""

    asked: list[tuple[str, bool]] = field(default_factory=list)  # (cell, a11y) of full suites

    def amend(self, request: VerifyRequest, report: VerifyReport) -> VerifyReport:
        if request.check_ids is not None:
            return report
        cell = request.base_url.rsplit("/", 1)[-1]
        self.asked.append((cell, request.a11y))
        if not request.a11y:
            return report
        text = "".join(p.read_text() for p in self.roots[cell].rglob("*.css"))
        snaps = {s.id: snap("break:label" in text) for s in request.task.contract.states}
        return msgspec.structs.replace(report, a11y=snaps)


def evidence(r0: dict[str, A11ySnapshot] | None = None) -> A11yEvidence:
    clean = {"home": snap(False), "about": snap(False)}
    return A11yEvidence(canary=CANARY, axe=AXE_VERSION, r0=r0 or clean, reference=clean)


def with_file(task: TaskPackage, dest: Path, data: bytes | None) -> TaskPackage:
    """A copy of `task` at `dest` with `data` as its `evidence/a11y.json` (None: none)."""
    shutil.copytree(task.root, dest / task.root.name)
    root = dest / task.root.name
    if data is not None:
        (root / "evidence").mkdir(exist_ok=True)
        (root / "evidence" / "a11y.json").write_bytes(data)
    return load_task(root)


async def cell(
    tmp: Path, task: TaskPackage, last: str, *, baseline: bool = False
) -> tuple[CellReport, A11ySite, Final]:
    site = A11ySite()
    ctx = CellContext(
        task=task,
        backend=site,
        cell_dir=tmp / "cell",
        labels=Labels(sweep="s", cell="c"),
        baseline=BaselineCache(tmp / "baseline") if baseline else None,
        verifier=site,
    )
    lines = ((fix(G), "done"), (fix(G, A), "done"), (last, "done"))
    report = await run_cell(ctx, Scripted(*lines), "staged")
    final = [e for e in read_events(tmp / "cell" / "events.jsonl") if isinstance(e, Final)]
    return report, site, final[-1]


async def test_without_a_baseline_the_evidence_grades_accessibility(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    task = with_file(tiny, tmp_path, encode_a11y_evidence(evidence()))
    broken, _, final = await cell(tmp_path / "broken", task, f"{FIXED} break:label")
    assert broken.result.final_gates["regression_text"] == "fail"
    failed = {c.id: c for c in final.a11y_failed}
    assert set(failed) == {"a11y-axe@home", "a11y-axe@about"}
    assert "label on #q (passed in R0 at this state)" in failed["a11y-axe@home"].message
    clean, _, final = await cell(tmp_path / "clean", task, FIXED)
    assert clean.result.final_gates["regression_text"] == "pass" and final.a11y_failed == ()


async def test_a_task_without_evidence_grades_as_before(tmp_path: Path, tiny: TaskPackage) -> None:
    """No base without a baseline: no accessibility check, the regression passes."""
    report, site, final = await cell(tmp_path, tiny, f"{FIXED} break:label")
    assert report.result.final_gates["regression_text"] == "pass" and final.a11y_failed == ()
    assert site.asked == [("c", True)]  # the final still takes its snapshots
    # With the baseline: its live R0 run takes them, and is the base.
    report, site, final = await cell(tmp_path / "b", tiny, f"{FIXED} break:label", baseline=True)
    assert ("c-baseline", True) in site.asked
    assert {c.id for c in final.a11y_failed} == {"a11y-axe@home", "a11y-axe@about"}


async def test_a_baseline_with_evidence_replays_r0_without_snapshots(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    task = with_file(tiny, tmp_path, encode_a11y_evidence(evidence()))
    report, site, final = await cell(tmp_path / "cell", task, f"{FIXED} break:label", baseline=True)
    assert sorted(site.asked) == [("c", True), ("c-baseline", False)]
    assert {c.id for c in final.a11y_failed} == {"a11y-axe@home", "a11y-axe@about"}
    # R0's gates are graded on the evidence: the regression shows in the baseline channel.
    assert (
        BaselineRegression(
            gate="regression_text", failed_checks=("a11y-axe@home", "a11y-axe@about")
        )
        in report.result.baseline_regressions
    )


async def test_the_reference_is_a_base_too(tmp_path: Path, tiny: TaskPackage) -> None:
    """R0 already broke `label` at `about`, the reference did not: a regression from the
    reference is charged (debt is judged in every base, so `about` passes; `home` fails
    against R0 and the reference alike)."""
    r0 = {"home": snap(False), "about": A11ySnapshot()}  # about: axe saw nothing on #q
    task = with_file(tiny, tmp_path, encode_a11y_evidence(evidence(r0)))
    _, _, final = await cell(tmp_path / "cell", task, f"{FIXED} break:label")
    failed = {c.id: c.message for c in final.a11y_failed}
    assert set(failed) == {"a11y-axe@home", "a11y-axe@about"}
    assert "passed in the reference at this state" in failed["a11y-axe@about"]


def _bad_files() -> dict[str, tuple[bytes, str]]:
    good = msgspec.json.decode(encode_a11y_evidence(evidence()))

    def mutated(**changes: object) -> bytes:
        return msgspec.json.encode({**good, **changes})

    return {
        "not-json": (
            b'{"canary": "' + CANARY.encode() + b'", "axe": ',
            "expected JSON, got a malformed file",
        ),
        "wrong-type": (
            mutated(r0={"home": {"violations": [{"rule": 7, "target": "#q"}]}}),
            "a11y.json:r0[...].violations[0].rule: expected `str`, got `int`",
        ),
        "unknown-state": (mutated(r0={"gone": {}}), "r0: expected state ids of task.toml"),
        "other-canary": (mutated(canary=f"{CANARY}-x"), f"a11y.json:canary: expected {CANARY!r}"),
        "other-axe": (mutated(axe="3.0.0"), f"axe: expected axe-core {AXE_VERSION} (re-capture)"),
        "unknown-field": (mutated(extra=1), "object contains unknown field `extra`"),
    }


BAD = _bad_files()


@pytest.mark.parametrize("case", sorted(BAD))
async def test_a_malformed_evidence_file_is_one_line_naming_it(
    tmp_path: Path, tiny: TaskPackage, case: str
) -> None:
    data, words = BAD[case]
    task = with_file(tiny, tmp_path, data)
    with pytest.raises(ContractError) as err:
        load_a11y_evidence(task)
    line = str(err.value)
    assert len(line.splitlines()) == 1 and line.startswith(str(task.evidence / "a11y.json"))
    assert words in line, line
    # A cell stops on it before its solver takes a turn: the task's problem.
    solver = Scripted((FIXED, "done"))
    ctx = CellContext(
        task=task,
        backend=(site := A11ySite()),
        cell_dir=tmp_path / "cell",
        labels=Labels(sweep="s", cell="c"),
        verifier=site,
    )
    with pytest.raises(TaskProblem, match=r"a11y\.json"):
        await run_cell(ctx, solver, "staged")
    assert solver.turns == 0


def test_evidence_without_the_canary_is_refused_with_the_package(
    tmp_path: Path, tiny: TaskPackage
) -> None:
    """Grader-only data carries the canary (`contract._canary`): the loader's check."""
    data = encode_a11y_evidence(evidence()).replace(CANARY.encode(), b"x")
    with pytest.raises(ContractError) as err:
        with_file(tiny, tmp_path, data)
    line = str(err.value)
    assert len(line.splitlines()) == 1 and "evidence/a11y.json: expected the canary" in line


async def test_the_file_is_one_byte_string_per_evidence(tmp_path: Path, tiny: TaskPackage) -> None:
    """Sets in any order, dict keys in any order: the same bytes (a recapture of the same
    render is byte-identical), and decoding then encoding changes nothing."""
    ev = evidence()
    data = encode_a11y_evidence(ev)
    rng = random.Random(5)
    shuffled = A11ySnapshot(
        violations=tuple(
            rng.sample(
                [AxeFinding(rule=r, target=t) for r in ("label", "region") for t in ("#a", "#b")],
                4,
            )
        ),
        passes=tuple(rng.sample(["label|#q", "region|main", "label#abc"], 3)),
    )
    one = A11yEvidence(canary=CANARY, axe=AXE_VERSION, r0={"about": shuffled, "home": shuffled})
    two = A11yEvidence(
        canary=CANARY,
        axe=AXE_VERSION,
        r0={"home": msgspec.structs.replace(shuffled, passes=tuple(reversed(shuffled.passes)))}
        | {"about": shuffled},
    )
    assert encode_a11y_evidence(one) == encode_a11y_evidence(two)
    assert encode_a11y_evidence(msgspec.json.decode(data, type=A11yEvidence)) == data
    # Writing one side keeps the other's.
    task = with_file(tiny, tmp_path, data)
    await write_a11y_side(task, "r0", {"home": snap(True)})
    got = load_a11y_evidence(task)
    assert got is not None and got.reference == ev.reference and got.r0 == {"home": snap(True)}
