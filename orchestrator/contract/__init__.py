"""The task contract: msgspec types, loader and hash. Knows nothing of Docker or browsers."""

from ._actions import *  # noqa: F403
from ._actions import __all__ as _actions_all
from ._asserts import *  # noqa: F403
from ._asserts import __all__ as _asserts_all
from ._base import *  # noqa: F403
from ._base import __all__ as _base_all
from ._canary import CANARY as CANARY
from ._canary import CANARY_LINE as CANARY_LINE
from ._canary import grader_only_files as grader_only_files
from ._ids import SAFE_ID_RULE as SAFE_ID_RULE
from ._ids import is_safe_id as is_safe_id
from ._ids import printable as printable
from ._ids import shown as shown
from ._ids import terminal_safe as terminal_safe
from ._load import ContractError as ContractError
from ._load import TaskPackage as TaskPackage
from ._load import contract_hash as contract_hash
from ._load import decode_contract as decode_contract
from ._load import discover_tasks as discover_tasks
from ._load import load_task as load_task
from ._load import located_error as located_error
from ._load import twin_problems as twin_problems
from ._types import *  # noqa: F403
from ._types import __all__ as _types_all

__all__ = [
    "CANARY",
    "CANARY_LINE",
    "SAFE_ID_RULE",
    "ContractError",
    "TaskPackage",
    "contract_hash",
    "decode_contract",
    "discover_tasks",
    "grader_only_files",
    "is_safe_id",
    "load_task",
    "located_error",
    "printable",
    "shown",
    "terminal_safe",
    "twin_problems",
    *_actions_all,
    *_asserts_all,
    *_base_all,
    *_types_all,
]
