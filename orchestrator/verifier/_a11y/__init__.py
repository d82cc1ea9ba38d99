"""The continuity rules graded against R0's (and the reference's) snapshots:
accessibility (`_gate.py`, `_rules.py`, `_base.py`), the main thread, page weight and
layout shift (`_perf_gate.py`), and the snapshots frozen as a task's evidence
(`_evidence.py`, which runs `verify`). Below it: `_verify` and the rooms under it."""

from ._evidence import A11Y_EVIDENCE as A11Y_EVIDENCE
from ._evidence import A11yBases as A11yBases
from ._evidence import A11yEvidence as A11yEvidence
from ._evidence import Side as Side
from ._evidence import a11y_evidence_path as a11y_evidence_path
from ._evidence import capture_a11y as capture_a11y
from ._evidence import encode_a11y_evidence as encode_a11y_evidence
from ._evidence import load_a11y_evidence as load_a11y_evidence
from ._evidence import read_a11y_evidence as read_a11y_evidence
from ._evidence import write_a11y_side as write_a11y_side
from ._gate import A11Y_ID as A11Y_ID
from ._gate import a11y_continuity as a11y_continuity
from ._gate import with_a11y_continuity as with_a11y_continuity
from ._perf_gate import BYTES_ALLOWANCE as BYTES_ALLOWANCE
from ._perf_gate import PERF_ID as PERF_ID
from ._perf_gate import SHIFT_ALLOWANCE as SHIFT_ALLOWANCE
from ._perf_gate import SHIFT_POOR as SHIFT_POOR
from ._perf_gate import coarse as coarse
from ._perf_gate import coarse_shift as coarse_shift
from ._perf_gate import coarse_weight as coarse_weight
from ._perf_gate import layout_shift_continuity as layout_shift_continuity
from ._perf_gate import main_thread_continuity as main_thread_continuity
from ._perf_gate import recaptured as recaptured
from ._perf_gate import recaptured_shift as recaptured_shift
from ._perf_gate import recaptured_weight as recaptured_weight
from ._perf_gate import weight_continuity as weight_continuity

__all__ = [
    "A11Y_EVIDENCE",
    "A11Y_ID",
    "BYTES_ALLOWANCE",
    "PERF_ID",
    "SHIFT_ALLOWANCE",
    "SHIFT_POOR",
    "A11yBases",
    "A11yEvidence",
    "Side",
    "a11y_continuity",
    "a11y_evidence_path",
    "capture_a11y",
    "coarse",
    "coarse_shift",
    "coarse_weight",
    "encode_a11y_evidence",
    "layout_shift_continuity",
    "load_a11y_evidence",
    "main_thread_continuity",
    "read_a11y_evidence",
    "recaptured",
    "recaptured_shift",
    "recaptured_weight",
    "weight_continuity",
    "with_a11y_continuity",
    "write_a11y_side",
]
