"""The records a run writes to disk and their vocabulary: a run's manifest, its rows, the
verdicts they carry and a cell's trajectory. (A cell's event log, `events.jsonl`, is
`orchestrator/events.py`: its events carry the gateway's request records, so it sits
above the gateway, and this package below the verifier that fills `VerifyReport`.)

Public surface:

- the manifest row (`ManifestRow`: one per cell; its `Outcome`, a tagged union on
  `status`, `CellResult`, `UnitOutcome`, `Flip`, `Spend`, ...; `cell_dir_name`), its
  parts and its statuses (`_rows.py`);
- `Manifest`, `read_manifest`, `read_rows`, `latest_by_cell`, `has_result` — the run's
  `manifest.jsonl`, appended by a single writer and read as `--resume` reads it
  (`_manifest.py`);
- the verification results a checkpoint records (`VerifyReport`, `CheckResult`,
  `GateResult`, `GateStatus`, `A11ySnapshot` and its findings), shared by the verifier,
  the cell, scoring and reports (`_results.py`);
- `read_jsonl` and `JsonlRead` — the one JSONL reader, with one policy for bad lines
  (`_jsonl.py`; the events are read with it too);
- `trajectory` — a cell's `trajectory.jsonl`, what the solver did turn by turn, a
  vocabulary of its own (`trajectory.Turn`, `trajectory.Header`, ...: a tagged union on
  `kind`), so a module of its own: `from orchestrator.records import trajectory as tj`.

Inside, the package has rooms, each a module; a room imports only rooms below it
(`INNER` in `tests/layers.py`), top first: the files (`_manifest.py`, `trajectory.py`),
the row (`_rows.py`), and the types under it (`_results.py`, `_jsonl.py`).
"""

from __future__ import annotations

from . import trajectory as trajectory
from ._jsonl import JsonlRead as JsonlRead
from ._jsonl import read_jsonl as read_jsonl
from ._manifest import FINAL_STATUSES as FINAL_STATUSES
from ._manifest import Manifest as Manifest
from ._manifest import RunLocked as RunLocked
from ._manifest import has_result as has_result
from ._manifest import latest_by_cell as latest_by_cell
from ._manifest import read_manifest as read_manifest
from ._manifest import read_rows as read_rows
from ._results import SHIFT_ONLY as SHIFT_ONLY
from ._results import A11ySnapshot as A11ySnapshot
from ._results import Announcement as Announcement
from ._results import AxeFinding as AxeFinding
from ._results import CheckResult as CheckResult
from ._results import FieldFinding as FieldFinding
from ._results import FocusFinding as FocusFinding
from ._results import GateResult as GateResult
from ._results import GateStatus as GateStatus
from ._results import LiveFinding as LiveFinding
from ._results import MainThread as MainThread
from ._results import PageWeight as PageWeight
from ._results import RegionFinding as RegionFinding
from ._results import StateRun as StateRun
from ._results import TrapFinding as TrapFinding
from ._results import VerifyReport as VerifyReport
from ._rows import STATUSES as STATUSES
from ._rows import UNSCORED as UNSCORED
from ._rows import Arm as Arm
from ._rows import BackendName as BackendName
from ._rows import BaselineRegression as BaselineRegression
from ._rows import BudgetStop as BudgetStop
from ._rows import Cancelled as Cancelled
from ._rows import CellResult as CellResult
from ._rows import ConfigRefusal as ConfigRefusal
from ._rows import Flip as Flip
from ._rows import HarnessError as HarnessError
from ._rows import InfraError as InfraError
from ._rows import LlmError as LlmError
from ._rows import ManifestRow as ManifestRow
from ._rows import Ok as Ok
from ._rows import Outage as Outage
from ._rows import Outcome as Outcome
from ._rows import Refused as Refused
from ._rows import Scores as Scores
from ._rows import Spend as Spend
from ._rows import Status as Status
from ._rows import TaskError as TaskError
from ._rows import TaskLabels as TaskLabels
from ._rows import UnitOutcome as UnitOutcome
from ._rows import cell_dir_name as cell_dir_name

__all__ = [
    "FINAL_STATUSES",
    "SHIFT_ONLY",
    "STATUSES",
    "UNSCORED",
    "A11ySnapshot",
    "Announcement",
    "Arm",
    "AxeFinding",
    "BackendName",
    "BaselineRegression",
    "BudgetStop",
    "Cancelled",
    "CellResult",
    "CheckResult",
    "ConfigRefusal",
    "FieldFinding",
    "Flip",
    "FocusFinding",
    "GateResult",
    "GateStatus",
    "HarnessError",
    "InfraError",
    "JsonlRead",
    "LiveFinding",
    "LlmError",
    "MainThread",
    "Manifest",
    "ManifestRow",
    "Ok",
    "Outage",
    "Outcome",
    "PageWeight",
    "Refused",
    "RegionFinding",
    "RunLocked",
    "Scores",
    "Spend",
    "StateRun",
    "Status",
    "TaskError",
    "TaskLabels",
    "TrapFinding",
    "UnitOutcome",
    "VerifyReport",
    "cell_dir_name",
    "has_result",
    "latest_by_cell",
    "read_jsonl",
    "read_manifest",
    "read_rows",
    "trajectory",
]
