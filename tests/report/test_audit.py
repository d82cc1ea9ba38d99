"""`audit sample` / `audit score` (#38): a blind packet from a recorded run, and the
raters' agreement with the harness; a planted wrong rating moves kappa as computed by hand."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import msgspec
import pytest

from orchestrator import events as ev
from orchestrator.audit import AuditError, cohen_kappa, sample, score
from orchestrator.authoring import scaffold
from orchestrator.commands import audit as command
from orchestrator.contract import load_task
from orchestrator.records import CheckResult, TaskLabels, cell_dir_name
from tests.rows import manifest_row, result

PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 16
LABELS = TaskLabels(
    regime="change", capability="edit", facet="content", stack="static", framework="x"
)
# (id, gate, state, passed): six rateable checks, three pass and three fail by the harness.
CHECKS = [
    ("u1-headline", "text", "home_d", True),
    ("keyboard:u1-menu", "a11y", "home_d", False),
    ("keep-h1", "visual_anchors", "home_m", True),
    ("routes@home_m", "routes", "home_m", False),
    ("keep-order", "regression_text", "home_d", True),
    ("look", "visual_regression", "home_d", False),
]


def _check(cid: str, gate: str, state: str, passed: bool, **kw: object) -> CheckResult:
    return CheckResult(
        id=cid, gate=gate, state=state, passed=passed,  # type: ignore[arg-type]
        observed="SECRET-OBSERVED", message=f"{cid} should hold — state {state!r}; observed: SECRET-OBSERVED",
        **kw,  # type: ignore[arg-type]
    )  # fmt: skip


@pytest.fixture
def run(tmp_path: Path) -> tuple[Path, Path]:
    tasks = tmp_path / "tasks"
    root = tasks / "demo"
    scaffold(root, "demo", "static")
    (root / "evidence" / "reference").mkdir(parents=True)
    (root / "evidence" / "reference" / "home_d.png").write_bytes(PNG)
    row = manifest_row("demo", "reference", LABELS, res=result())
    row = msgspec.structs.replace(row, contract_hash=load_task(root).contract_hash)
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "manifest.jsonl").write_bytes(msgspec.json.encode(row) + b"\n")
    cell = run_dir / "cells" / cell_dir_name(row.cell)
    shot = cell / "artifacts" / "checkpoint-002-final" / "states" / "home_d.png"
    shot.parent.mkdir(parents=True)
    shot.write_bytes(PNG)
    checks = [_check(*c) for c in CHECKS] + [
        _check("build@run", "build", "run", True),  # no page: not rateable
        _check("console@home_m", "console", "home_m", False, applicable=False),
    ]
    summary = ev.CheckpointSummary(
        index=2, unit="", build_ok=True, serve_ok=True, passed=3, failed=3, gates={},
        checks=tuple(checks), screenshots={"home_d": "states/home_d.png"},
    )  # fmt: skip
    event = ev.Checkpoint(unit="", checkpoint=summary)
    (cell / "events.jsonl").write_bytes(msgspec.json.encode(event) + b"\n")
    return run_dir, tasks


def _rate(packet: Path, flip: set[str] = frozenset()) -> Path:  # type: ignore[assignment]
    key = [json.loads(x) for x in (packet / "key.jsonl").read_text().splitlines()]
    lines = ["item,rating"]
    for k in key:
        v = k["verdict"]
        if k["check_id"] in flip:
            v = "fail" if v == "pass" else "pass"
        lines.append(f"{k['id']},{v}")
    (packet / "ratings.csv").write_text("\n".join(lines) + "\n")
    return packet / "ratings.csv"


def test_the_packet_is_blind_and_complete(run: tuple[Path, Path], tmp_path: Path) -> None:
    run_dir, tasks = run
    items = sample(run_dir, tasks, 50, tmp_path / "packet", seed=1)
    assert len(items) == 6  # the run-level and the not-applicable checks are left out
    packet = tmp_path / "packet"
    text = (packet / "packet.jsonl").read_text()
    assert "SECRET-OBSERVED" not in text and '"pass"' not in text and "passed" not in text
    home = next(i for i in items if i.state == "home_d")
    assert home.request.startswith("TODO: what a PM") and "should hold" in home.check
    assert (packet / home.reference).read_bytes() == PNG
    assert (packet / home.final).read_bytes() == PNG
    mobile = next(i for i in items if i.state == "home_m")
    assert mobile.reference == mobile.final == ""  # no render of that state was kept
    assert (packet / "ratings.csv").read_text().splitlines()[1].endswith(",")
    with pytest.raises(AuditError, match="new or empty directory"):
        sample(run_dir, tasks, 1, packet)


def test_a_planted_wrong_rating_moves_kappa(run: tuple[Path, Path], tmp_path: Path) -> None:
    sample(run[0], run[1], 6, tmp_path / "p")
    every = {s.family: s for s in score(_rate(tmp_path / "p"))}
    assert every["all"].kappa == 1.0 and every["all"].agreement == 1.0
    assert every["all"].false_pass is not None and every["all"].false_pass.k == 0
    # The rater fails the headline the harness passed: by hand, agreement 5/6, chance
    # 1/2 * 2/6 + 1/2 * 4/6 = 1/2, kappa (5/6 - 1/2) / (1/2) = 2/3; one false pass of 4.
    planted = {s.family: s for s in score(_rate(tmp_path / "p", {"u1-headline"}))}
    assert planted["all"].kappa == pytest.approx(2 / 3)
    fp = planted["all"].false_pass
    assert fp is not None and (fp.k, fp.n) == (1, 4) and fp.low < 0.25 < fp.high
    ff = planted["all"].false_fail
    assert ff is not None and (ff.k, ff.n) == (0, 2)
    # Per family: only completion moved (text, a11y), continuity and visual did not.
    assert planted["completion"].n == 2 and planted["completion"].false_pass.k == 1  # type: ignore[union-attr]
    assert planted["continuity"].kappa == 1.0 and planted["visual"].n == 1


def test_kappa_by_hand_and_undefined() -> None:
    assert cohen_kappa([("pass", "pass"), ("fail", "fail")]) == 1.0
    assert cohen_kappa([("pass", "fail"), ("fail", "pass")]) == -1.0
    assert cohen_kappa([("pass", "pass"), ("pass", "pass")]) is None  # chance agreement 1


def test_bad_ratings_are_one_line_and_exit_2(
    run: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sample(run[0], run[1], 6, tmp_path / "p")
    ratings = tmp_path / "p" / "ratings.csv"
    ratings.write_text("item,rating\ni001,maybe\n")
    with pytest.raises(AuditError, match=r"ratings.csv:2: rating: expected pass or fail"):
        score(ratings)
    ratings.write_text("item,rating\ni999,pass\n")
    args = argparse.Namespace(audit_cmd="score", ratings=ratings)
    assert command.run(args) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "i999" in err
