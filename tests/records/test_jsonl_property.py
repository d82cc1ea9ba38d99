"""Resume and report read a manifest through one reader: whatever rows, garbage and
torn lines a file holds, both see the same rows (and the rows the writer meant)."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orchestrator.records import STATUSES, Manifest, ManifestRow, latest_by_cell, read_rows
from orchestrator.report import load_run
from tests.report.report_run import make_task, row, scores

_ENC = msgspec.json.Encoder()

_row = st.tuples(st.just("row"), st.integers(0, 4), st.sampled_from(STATUSES), st.floats(0.0, 1.0))
_garbage = st.tuples(
    st.just("garbage"),
    st.sampled_from([b"{not json", b'{"schema": 2}', b"[]", b'{"cell": 3}', b"\xff\xfe", b"null"]),
)
_torn = st.tuples(st.just("torn"), st.integers(0, 4), st.floats(0.05, 0.95))


@pytest.fixture(scope="module")
def tasks(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    tasks_dir = tmp_path_factory.mktemp("tasks")
    return tasks_dir, {"t1": make_task(tasks_dir, "t1", "edit")}


def _make(spec: tuple[object, ...], h: dict[str, str]) -> ManifestRow:
    _, cell, status, wcs = spec
    assert isinstance(cell, int) and isinstance(status, str) and isinstance(wcs, float)
    s = scores(wcs, wcs, wcs) if status in ("ok", "budget", "llm_error") else None
    return row("t1", "a", "staged", cell, h, status=status, scores=s)


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    items=st.lists(st.one_of(_row, _garbage, _torn), max_size=25),
    tail=st.one_of(st.none(), _torn),
)
def test_resume_and_report_read_the_same_rows(
    tmp_path_factory: pytest.TempPathFactory,
    tasks: tuple[Path, dict[str, str]],
    items: list[tuple[object, ...]],
    tail: tuple[object, ...] | None,
) -> None:
    tasks_dir, h = tasks
    run_dir = tmp_path_factory.mktemp("run")
    data = b""
    meant: dict[str, ManifestRow] = {}  # the last complete row the writer wrote per cell
    for item in items:
        if item[0] == "row":
            r = _make(item, h)
            data += _ENC.encode(r) + b"\n"
            meant[r.cell] = r
        elif item[0] == "garbage":
            data += item[1] + b"\n"  # type: ignore[operator]
        else:  # a line torn by a crash, which a later append followed
            enc = _ENC.encode(_make(("row", item[1], "ok", 0.5), h))
            data += enc[: max(1, int(len(enc) * item[2]))] + b"\n"  # type: ignore[operator]
    if tail is not None:  # torn last line: no newline
        enc = _ENC.encode(_make(("row", tail[1], "ok", 0.5), h))
        data += enc[: max(1, int(len(enc) * tail[2]))]  # type: ignore[operator]
    path = run_dir / "manifest.jsonl"
    path.write_bytes(data)

    resumed = latest_by_cell(read_rows(path))
    reported = {r.cell: r for r in load_run(run_dir, tasks_dir).rows}
    assert resumed == reported == meant
    with Manifest(run_dir):  # opening for a resume cuts a torn tail; rows are unchanged
        pass
    assert latest_by_cell(read_rows(path)) == meant
    assert {r.cell: r for r in load_run(run_dir, tasks_dir).rows} == meant
