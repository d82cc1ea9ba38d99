"""Replaying one state on a page and observing it: driving it deterministically
(`_drive.py`, `_settle.py`), the checks evaluated there (`_checks.py`, `_visual.py`,
`_menu.py`), health probes (`_probe.py`), keyboard twins (`_keyboard.py`), main-thread
and page-weight figures (`_perf.py`), the accessibility snapshot (`_a11y.py`,
`_a11y_world.py`, `_axe.py`, `_focus.py`, `_formstate.py`, `_live.py`, `_announce.py`),
one state's whole replay (`_state.py`), the host's transient faults (`_transient.py`),
and evidence capture (`_capture.py`). Below it: `_browser` and `_core`."""

from ._axe import AXE_VERSION as AXE_VERSION
from ._capture import CaptureSummary as CaptureSummary
from ._capture import capture as capture
from ._drive import ReplayOptions as ReplayOptions
from ._keyboard import KEYS as KEYS
from ._keyboard import eligible as eligible
from ._keyboard import keyboard_results as keyboard_results
from ._perf import BLOCKING_ALLOWANCE_MS as BLOCKING_ALLOWANCE_MS
from ._perf import REMEASURES as REMEASURES
from ._perf import total_blocking as total_blocking
from ._state import StateJob as StateJob
from ._state import replay_shared as replay_shared
from ._transient import HOST_NETWORK_FAULTS as HOST_NETWORK_FAULTS
from ._transient import HOST_NETWORK_RETRIES as HOST_NETWORK_RETRIES
from ._transient import host_network_fault as host_network_fault
from ._transient import patient as patient
from ._transient import timed_out as timed_out

__all__ = [
    "AXE_VERSION",
    "BLOCKING_ALLOWANCE_MS",
    "HOST_NETWORK_FAULTS",
    "HOST_NETWORK_RETRIES",
    "KEYS",
    "REMEASURES",
    "CaptureSummary",
    "ReplayOptions",
    "StateJob",
    "capture",
    "eligible",
    "host_network_fault",
    "keyboard_results",
    "patient",
    "replay_shared",
    "timed_out",
    "total_blocking",
]
