"""Browser-free parts of the verifier: planning, gate verdicts, pixel diff, exports."""

from __future__ import annotations

import inspect
import io
from pathlib import Path

import pytest
from PIL import Image

import orchestrator.verifier as verifier
from orchestrator.records import CheckResult
from orchestrator.verifier._browser._context import off_origin_pattern
from orchestrator.verifier._core._gates import gate_results
from orchestrator.verifier._core._plan import action_chain, is_interactive, summarize_state
from orchestrator.verifier._replay._visual import compare

from .conftest import check, make_task


def test_exports() -> None:
    for name in verifier.__all__:
        obj = getattr(verifier, name)
        # Classes and functions; constants and type aliases (REPLAY_MODES, ReplayMode) are
        # not definitions with a module of their own.
        if isinstance(obj, type) or inspect.isfunction(obj):
            assert obj.__module__.startswith("orchestrator.verifier"), name
    public = {n for n in dir(verifier) if not n.startswith("_")}
    assert public == set(verifier.__all__)


def test_action_chain_inherits_predecessors_first(tmp_path: Path) -> None:
    states = [
        {"id": "a", "route": "/", "actions": [{"do": "goto", "route": "/x"}]},
        {"id": "b", "route": "/", "from": "a", "actions": [{"do": "click", "selector": "#b"}]},
        {
            "id": "c",
            "route": "/",
            "from": "b",
            "actions": [{"do": "fill", "selector": "#c", "value": "v"}],
        },
    ]
    task = make_task(tmp_path, states, [check("k", "dom", "c", kind="exists", selector="p")])
    c = task.contract
    chain = action_chain(c, c.state("c"))
    assert [type(a).__name__ for a in chain] == ["Goto", "Click", "Fill"]
    assert not is_interactive(action_chain(c, c.state("a")))
    assert "after goto /x; click '#b'; fill '#c' = 'v'" in summarize_state(c, c.state("c"))


def test_gate_status_pass_fail_na() -> None:
    ok = CheckResult(id="a", gate="dom", state="s", passed=True)
    bad = CheckResult(id="b", gate="text", state="s", passed=False)
    gates = {g.gate: g for g in gate_results([ok, bad])}
    assert gates["dom"].status == "pass"
    assert gates["text"].status == "fail" and gates["text"].failed_checks == ("b",)
    assert gates["a11y"].status == "n/a"
    assert len(gates) == 19


def test_off_origin_pattern() -> None:
    pat = off_origin_pattern("http://127.0.0.1:8000")
    assert not pat.match("http://127.0.0.1:8000/app.js")
    assert not pat.match("http://127.0.0.1:8000")
    assert pat.match("http://127.0.0.1:80001/x")
    assert pat.match("https://fonts.googleapis.com/css")


def _png(color: tuple[int, int, int], size: tuple[int, int] = (40, 20)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, format="PNG")
    return buf.getvalue()


@pytest.mark.parametrize(
    ("current", "masks", "passed"),
    [
        (_png((0, 0, 0)), [], True),
        (_png((200, 0, 0)), [], False),
        (_png((200, 0, 0)), [(0.0, 0.0, 40.0, 20.0)], True),  # masked away in both
        (_png((0, 0, 0), (41, 20)), [], False),  # size change
    ],
)
def test_visual_compare(
    tmp_path: Path, current: bytes, masks: list[tuple[float, float, float, float]], passed: bool
) -> None:
    ref = tmp_path / "ref.png"
    ref.write_bytes(_png((0, 0, 0)))
    assert compare(current, ref, masks, threshold=0.0, pixel_tolerance=10).passed is passed


def test_visual_missing_reference_says_capture(tmp_path: Path) -> None:
    out = compare(_png((0, 0, 0)), tmp_path / "none.png", [], 0.0, 10)
    assert not out.passed and "capture" in out.observed
