"""The browser verifier: replay task states in headless Chromium and grade the 19 gates.

Public surface:

- `BrowserPool` — one Chromium per process, a fresh context per state (or, within one
  checkpoint with `replay="reuse"`, the reset tab of a warm context,
  `_browser/_warm.py`: `WarmContexts`, from `pool.warm_contexts()`, each a
  `WarmContext`), a limiter, recycling, crash relaunch with one retry of the affected
  state;
- `verify(pool, task, base_url, ...) -> VerifyReport` and `RunHealth` (build, serve and
  scope, decided outside the browser); the `Verifier` Protocol (seam for fakes,
  `verify(VerifyRequest) -> VerifyReport`) and `BrowserVerifier`, the real one;
- `ReuseCache` — a cell's replays across checkpoints: a state whose served bytes did
  not change keeps its observation (`_reuse/_cache.py`; on dynamic stacks the files the
  server read for it, traced with inotify, `_reuse/_opens.py`; `pool.replay == "full"`
  turns it off);
- `capture(pool, task, base_url, out_dir)` — evidence for a task package;
- `environment_drift(pool, task)` — how the running rendering environment differs from
  the one the task's evidence was captured in (`evidence/env.json`), '' when it does not;
  `PINNED_FONTS`, `missing_fonts` and `fonts_digest` (the pinned fonts, part of the
  grader's fingerprint, `orchestrator/admission/_grader.py`);
- `verifier_version()` — a digest of this package's source, recorded with every
  trajectory (`regrade` names a change);
- `with_a11y_continuity(report, contract, bases)` — accessibility continuity (axe-core,
  focus visibility, form state after a failed submit, live regions) of a full-suite
  report against R0's snapshots (and the reference's), `_a11y/_gate.py`; it adds the
  main-thread rule too, `main_thread_continuity` (`PERF_ID`, `_a11y/_perf_gate.py`);
- `A11yEvidence`, `load_a11y_evidence(task)` / `read_a11y_evidence(task)` (None: the task
  has none), `capture_a11y` and `write_a11y_side` — R0's and the reference's snapshots
  frozen in `evidence/a11y.json`, the bases of those rules wherever a task has them
  (`_a11y/_evidence.py`; `a11y_evidence_path(task)`);
- the main-thread, page-weight and layout-shift rules' allowances (`BLOCKING_ALLOWANCE_MS`,
  `BYTES_ALLOWANCE`, `SHIFT_ALLOWANCE`, `SHIFT_POOR`), a document's main-thread figures
  from its beats (`total_blocking`, `_replay/_perf.py`), and each figure as the evidence
  keeps it (`coarse`, `coarse_weight`, `coarse_shift`) and as a recapture writes it
  (`recaptured`, `recaptured_weight`, `recaptured_shift`; `_a11y/_perf_gate.py`);
- the exception hierarchy (`VerifierError` and subclasses, see `_core/_errors.py`).

Semantics (details in the module docstrings): `require_interaction` and `changed_from`
in `_verify/_grade.py`; blank page, horizontal overflow and the content fingerprint in
`_replay/_probe.py`; determinism and the settle rule in `_replay/_drive.py`; gate verdicts
(pass / fail / n/a) in `_core/_gates.py`.

Inside, the package has rooms, each an inner package whose `__init__` is all the rooms
above it see; a room imports only rooms below it (`INNER` in `tests/layers.py`), top
first: `_seam.py` and `_a11y/`, `_verify/`, `_reuse/`, `_replay/`, `_browser/`, and
`_core/` with `_version.py`. Each room's docstring says what it holds.
"""

from ._a11y import A11Y_EVIDENCE as A11Y_EVIDENCE
from ._a11y import A11Y_ID as A11Y_ID
from ._a11y import BYTES_ALLOWANCE as BYTES_ALLOWANCE
from ._a11y import PERF_ID as PERF_ID
from ._a11y import SHIFT_ALLOWANCE as SHIFT_ALLOWANCE
from ._a11y import SHIFT_POOR as SHIFT_POOR
from ._a11y import A11yBases as A11yBases
from ._a11y import A11yEvidence as A11yEvidence
from ._a11y import Side as Side
from ._a11y import a11y_continuity as a11y_continuity
from ._a11y import a11y_evidence_path as a11y_evidence_path
from ._a11y import capture_a11y as capture_a11y
from ._a11y import coarse as coarse
from ._a11y import coarse_shift as coarse_shift
from ._a11y import coarse_weight as coarse_weight
from ._a11y import encode_a11y_evidence as encode_a11y_evidence
from ._a11y import layout_shift_continuity as layout_shift_continuity
from ._a11y import load_a11y_evidence as load_a11y_evidence
from ._a11y import main_thread_continuity as main_thread_continuity
from ._a11y import read_a11y_evidence as read_a11y_evidence
from ._a11y import recaptured as recaptured
from ._a11y import recaptured_shift as recaptured_shift
from ._a11y import recaptured_weight as recaptured_weight
from ._a11y import weight_continuity as weight_continuity
from ._a11y import with_a11y_continuity as with_a11y_continuity
from ._a11y import write_a11y_side as write_a11y_side
from ._browser import ENV_FILE as ENV_FILE
from ._browser import PINNED_FONTS as PINNED_FONTS
from ._browser import BrowserPool as BrowserPool
from ._browser import BrowserSession as BrowserSession
from ._browser import RenderEnv as RenderEnv
from ._browser import ReplayMode as ReplayMode
from ._browser import WarmContext as WarmContext
from ._browser import WarmContexts as WarmContexts
from ._browser import check_environment as check_environment
from ._browser import environment_drift as environment_drift
from ._browser import fonts_digest as fonts_digest
from ._browser import missing_fonts as missing_fonts
from ._browser import probe_each as probe_each
from ._browser import probe_page as probe_page
from ._browser import read_env as read_env
from ._browser import write_env as write_env
from ._core import BrowserCrashed as BrowserCrashed
from ._core import EnvironmentDrift as EnvironmentDrift
from ._core import HarnessTimeout as HarnessTimeout
from ._core import Outcome as Outcome
from ._core import ReplayError as ReplayError
from ._core import RunHealth as RunHealth
from ._core import StateObservation as StateObservation
from ._core import VerifierError as VerifierError
from ._core import VerifierInfraError as VerifierInfraError
from ._core import applicability as applicability
from ._core import gate_results as gate_results
from ._core import run_health as run_health
from ._replay import AXE_VERSION as AXE_VERSION
from ._replay import BLOCKING_ALLOWANCE_MS as BLOCKING_ALLOWANCE_MS
from ._replay import CaptureSummary as CaptureSummary
from ._replay import ReplayOptions as ReplayOptions
from ._replay import StateJob as StateJob
from ._replay import capture as capture
from ._replay import total_blocking as total_blocking
from ._reuse import REPLAY_MODES as REPLAY_MODES
from ._reuse import CheckpointView as CheckpointView
from ._reuse import OpenTrace as OpenTrace
from ._reuse import Reads as Reads
from ._reuse import ReuseCache as ReuseCache
from ._reuse import Untraceable as Untraceable
from ._reuse import VerdictCache as VerdictCache
from ._reuse import verdict_key as verdict_key
from ._seam import BrowserVerifier as BrowserVerifier
from ._seam import Verifier as Verifier
from ._seam import VerifyRequest as VerifyRequest
from ._verify import verify as verify
from ._version import verifier_version as verifier_version

__all__ = [
    "A11Y_EVIDENCE",
    "A11Y_ID",
    "AXE_VERSION",
    "BLOCKING_ALLOWANCE_MS",
    "BYTES_ALLOWANCE",
    "ENV_FILE",
    "PERF_ID",
    "PINNED_FONTS",
    "REPLAY_MODES",
    "SHIFT_ALLOWANCE",
    "SHIFT_POOR",
    "A11yBases",
    "A11yEvidence",
    "BrowserCrashed",
    "BrowserPool",
    "BrowserSession",
    "BrowserVerifier",
    "CaptureSummary",
    "CheckpointView",
    "EnvironmentDrift",
    "HarnessTimeout",
    "OpenTrace",
    "Outcome",
    "Reads",
    "RenderEnv",
    "ReplayError",
    "ReplayMode",
    "ReplayOptions",
    "ReuseCache",
    "RunHealth",
    "Side",
    "StateJob",
    "StateObservation",
    "Untraceable",
    "VerdictCache",
    "Verifier",
    "VerifierError",
    "VerifierInfraError",
    "VerifyRequest",
    "WarmContext",
    "WarmContexts",
    "a11y_continuity",
    "a11y_evidence_path",
    "applicability",
    "capture",
    "capture_a11y",
    "check_environment",
    "coarse",
    "coarse_shift",
    "coarse_weight",
    "encode_a11y_evidence",
    "environment_drift",
    "fonts_digest",
    "gate_results",
    "layout_shift_continuity",
    "load_a11y_evidence",
    "main_thread_continuity",
    "missing_fonts",
    "probe_each",
    "probe_page",
    "read_a11y_evidence",
    "read_env",
    "recaptured",
    "recaptured_shift",
    "recaptured_weight",
    "run_health",
    "total_blocking",
    "verdict_key",
    "verifier_version",
    "verify",
    "weight_continuity",
    "with_a11y_continuity",
    "write_a11y_side",
    "write_env",
]
