"""WCS terms read off the paper (Appendix J.1), a bounded break term, and config checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.config import ConfigError, load_config
from orchestrator.contract import GATES, Gate
from orchestrator.records import Flip, GateStatus, UnitOutcome
from orchestrator.scoring import Weights, score_cell

ROOT = Path(__file__).resolve().parents[2]


def _unit(i: int, kind: str, cleared: bool) -> UnitOutcome:
    return UnitOutcome(id=f"u{i}", kind=kind, cleared=cleared, capped=not cleared, turns=1)  # type: ignore[arg-type]


def _flip(i: int) -> Flip:
    return Flip(check=f"c{i}", gate="text", passed_at=1, failed_at=2)


ALL_PASS: dict[Gate, GateStatus] = dict.fromkeys(GATES, "pass")


def _j1_units() -> tuple[UnitOutcome, ...]:
    # s1 not cleared, s2-s4 cleared, neither rework cleared.
    stages = [_unit(1, "stage", False), *(_unit(i, "stage", True) for i in (2, 3, 4))]
    return (*stages, _unit(5, "rework", False), _unit(6, "rework", False))


def test_appendix_j1_cell_scores_0_875_with_the_shipped_weights() -> None:
    weights = load_config(ROOT / "bench.toml").scoring
    s = score_cell(_j1_units(), ALL_PASS, (), weights)
    assert len(ALL_PASS) == 19 and s.gate == 1.0 and s.final_pass and s.breaks == 0
    assert s.stage == 0.5
    assert s.wcs == pytest.approx(0.875)
    assert not s.whole_task  # the gap between final gate pass and whole-task pass
    assert weights == Weights()  # bench.toml and the code default agree


def test_noop_cell_sits_at_the_bottom_of_the_scale() -> None:
    # A noop clears nothing and never passes every gate (R0 is never already done: the
    # paper's closest R0 reaches 17/19). Even at that best case it stays below 0.25,
    # while a cell that clears one stage of six and passes everything scores far above.
    best_r0 = dict(ALL_PASS) | {"dom": "fail", "text": "fail"}
    noop = score_cell(tuple(_unit(i, "stage", False) for i in range(6)), best_r0, ())
    assert noop.gate == pytest.approx(17 / 19)
    assert noop.wcs < 0.25
    one = score_cell(
        (_unit(0, "stage", True), *(_unit(i, "stage", False) for i in range(5))), ALL_PASS, ()
    )
    assert one.wcs > 0.7 > noop.wcs


def test_break_term_is_bounded() -> None:
    units = tuple(_unit(i, "stage", True) for i in range(4))
    clean = score_cell(units, ALL_PASS, ())
    one = score_cell(units, ALL_PASS, (_flip(0),))
    many = score_cell(units, ALL_PASS, tuple(_flip(i) for i in range(500)))
    assert clean.wcs == 1.0
    assert one.wcs == pytest.approx(1.0 - Weights().per_break)
    assert many.breaks == 500 and many.wcs == pytest.approx(1.0 - Weights().max_break)
    assert many.wcs >= 0.75  # 500 flips cannot erase stage, gate and final pass
    assert not many.whole_task


@pytest.mark.parametrize(
    ("scoring", "says"),
    [
        ("stage = 0.4\ngate = 0.4\nfinal_pass = 0.4", "must sum to 1"),
        ("per_break = -0.1", "per_break must be between 0 and 1"),
        ("stage = 0.5\ngate = 0.5\nfinal_pass = 0.0\nmax_break = 1.0", "max_break"),
    ],
)
def test_bad_scoring_terms_are_one_clear_line(tmp_path: Path, scoring: str, says: str) -> None:
    cfg = tmp_path / "bench.toml"
    cfg.write_text(f'[scoring]\n{scoring}\n\n[[solvers]]\nname = "ref"\nkind = "reference"\n')
    with pytest.raises(ConfigError) as err:
        load_config(cfg)
    msg = str(err.value)
    assert says in msg and "scoring" in msg and str(cfg) in msg
