"""Classify why a cell attempt ended, by cause, and split exception groups.

Library errors are translated into the project's types where they enter (sandbox:
`SandboxError`; browser: `VerifierInfraError`; providers: `LLMError`), so here each
class maps to one row status:

    cancelled   anyio cancellation (a user stop, or the sweep stopping)
    budget      `BudgetExceeded`: a cap the user set was reached
    stop        `ProviderRefused`: the provider refuses the setup (no credit or quota, no
                key where the cell runs, a bad key, a rejected parameter): the cell ends
                `config_error` (no result, re-run by `--resume`) and the sweep stops
    outage      `ProviderOutage`: the provider was down past its breaker's pause bound;
                no verdict, the cell is re-run on resume
    llm         `LLMError`: the solver's provider failed it
    infra       `SandboxError`, `VerifierInfraError`, a library `TimeoutError`/`OSError`
                that leaked untranslated: never the solver's fault, retried
    task        `TaskProblem` (the task's untouched R0 does not build or serve),
                `WorkspaceError` outside the solver's turn (a control's patch does not
                apply to its own task package) or `UnknownStack`: the task's problem,
                never retried nor scored against a solver (`task_error`)
    harness     anything else: a bug of ours (`harness_error`, never retried)

An exception group (task groups in the sandbox and the browser wrap errors) is split:
every member is classified and logged, and the group's class is its most severe
member's, so one bug among infrastructure errors is never retried as infrastructure.
"""

from __future__ import annotations

import traceback

import anyio

from sandbox import SandboxError, UnknownStack

from .budget import BudgetExceeded
from .events import FaultClass
from .llm import LLMError, ProviderOutage, ProviderRefused
from .verifier import VerifierInfraError
from .workspace import WorkspaceError

# Most severe first: a group is classified as its most severe member.
_SEVERITY: tuple[FaultClass, ...] = (
    "harness",
    "stop",
    "budget",
    "outage",
    "llm",
    "task",
    "infra",
    "cancelled",
)


class TaskProblem(Exception):
    """The task package cannot be run as it is (its untouched R0 does not build or
    serve): whatever the solver did, the cell says nothing about the solver."""


def classify(exc: BaseException) -> FaultClass:
    """The cause of one (non-group) exception; see the module docstring."""
    if isinstance(exc, anyio.get_cancelled_exc_class()):
        return "cancelled"
    if isinstance(exc, BudgetExceeded):
        return "budget"
    if isinstance(exc, ProviderRefused):
        return "stop"
    if isinstance(exc, ProviderOutage):
        return "outage"
    if isinstance(exc, LLMError):
        return "llm"
    if isinstance(exc, UnknownStack | TaskProblem):  # retrying cannot fix the package
        return "task"
    if isinstance(exc, SandboxError | VerifierInfraError | TimeoutError | ConnectionError):
        return "infra"
    if isinstance(exc, WorkspaceError):
        return "task"
    return "harness"


def leaves(exc: BaseException) -> list[BaseException]:
    """Every non-group member of a (nested) exception group; `[exc]` for a plain one."""
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for e in exc.exceptions for leaf in leaves(e)]
    return [exc]


def decisive(exc: BaseException) -> BaseException:
    """The member that decides a group's class: the most severe, the first among equals."""
    members = leaves(exc)
    return min(members, key=lambda e: _SEVERITY.index(classify(e)))


def describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def format_traceback(exc: BaseException) -> str:
    return "".join(traceback.format_exception(exc))
