"""Solvers: the offline ones, the LLM agent and the scaffold (external CLI)."""

from ._factory import make_solver as make_solver
from ._factory import offline_solver as offline_solver
from ._lifecycle import CellBinding as CellBinding
from ._lifecycle import GatewayBinding as GatewayBinding
from ._lifecycle import Verdict as Verdict
from ._lifecycle import WorkspaceSolver as WorkspaceSolver
from ._llm import REPEAT_LIMIT as REPEAT_LIMIT
from ._llm import LLMSolver as LLMSolver
from ._llm_tools import run_tool as run_tool
from ._llm_tools import tool_specs as tool_specs
from ._offline import MixedSolver as MixedSolver
from ._offline import NegativeSolver as NegativeSolver
from ._offline import NoopSolver as NoopSolver
from ._offline import ReferenceSolver as ReferenceSolver
from ._offline import ThrashSolver as ThrashSolver
from ._protocol import MessageKind as MessageKind
from ._protocol import ModelSlip as ModelSlip
from ._protocol import Solver as Solver
from ._protocol import SolverError as SolverError
from ._protocol import SolverTurn as SolverTurn
from ._protocol import TurnEnd as TurnEnd
from ._protocol import Usage as Usage
from ._protocol import UserMessage as UserMessage
from ._scaffold import ScaffoldSolver as ScaffoldSolver

__all__ = [
    "REPEAT_LIMIT",
    "CellBinding",
    "GatewayBinding",
    "LLMSolver",
    "MessageKind",
    "MixedSolver",
    "ModelSlip",
    "NegativeSolver",
    "NoopSolver",
    "ReferenceSolver",
    "ScaffoldSolver",
    "Solver",
    "SolverError",
    "SolverTurn",
    "ThrashSolver",
    "TurnEnd",
    "Usage",
    "UserMessage",
    "Verdict",
    "WorkspaceSolver",
    "make_solver",
    "offline_solver",
    "run_tool",
    "tool_specs",
]
