"""The verifier's shared vocabulary, the bottom room: its exceptions (`_errors.py`),
the run's health decided outside the browser (`_health.py`), what one replayed state
showed (`_observe.py`), a state's action chain and wording (`_plan.py`), and the gate
verdicts graded from check results (`_gates.py`). It imports no other room."""

from ._errors import BrowserCrashed as BrowserCrashed
from ._errors import EnvironmentDrift as EnvironmentDrift
from ._errors import HarnessTimeout as HarnessTimeout
from ._errors import ReplayError as ReplayError
from ._errors import VerifierError as VerifierError
from ._errors import VerifierInfraError as VerifierInfraError
from ._gates import gate_results as gate_results
from ._gates import grounded as grounded
from ._gates import run_health as run_health
from ._gates import state_health as state_health
from ._health import RunHealth as RunHealth
from ._health import applicability as applicability
from ._observe import Outcome as Outcome
from ._observe import PageHealth as PageHealth
from ._observe import StateObservation as StateObservation
from ._plan import action_chain as action_chain
from ._plan import describe_action as describe_action
from ._plan import is_interactive as is_interactive
from ._plan import summarize_state as summarize_state
from ._plan import viewport_label as viewport_label

__all__ = [
    "BrowserCrashed",
    "EnvironmentDrift",
    "HarnessTimeout",
    "Outcome",
    "PageHealth",
    "ReplayError",
    "RunHealth",
    "StateObservation",
    "VerifierError",
    "VerifierInfraError",
    "action_chain",
    "applicability",
    "describe_action",
    "gate_results",
    "grounded",
    "is_interactive",
    "run_health",
    "state_health",
    "summarize_state",
    "viewport_label",
]
