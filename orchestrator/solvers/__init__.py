"""Solvers: the offline ones, the LLM agent and the scaffold (external CLI)."""

from ._protocol import MessageKind as MessageKind
from ._protocol import Solver as Solver
from ._protocol import SolverError as SolverError
from ._protocol import SolverTurn as SolverTurn
from ._protocol import TurnEnd as TurnEnd
from ._protocol import Usage as Usage
from ._protocol import UserMessage as UserMessage

__all__ = ["MessageKind", "Solver", "SolverError", "SolverTurn", "TurnEnd", "Usage", "UserMessage"]
