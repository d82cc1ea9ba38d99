"""A cell's workspace: R0 in a repository kept outside the work tree, and the solver's
file tools, all through one resolver that follows no link."""

from ._errors import DiskLimitExceeded as DiskLimitExceeded
from ._errors import PatchError as PatchError
from ._errors import PathRefused as PathRefused
from ._errors import WorkspaceError as WorkspaceError
from ._paths import path_allowed as path_allowed
from ._paths import split as split_path
from ._snapshot import HASH_MAX_BYTES as HASH_MAX_BYTES
from ._snapshot import PROMPT_FILE as PROMPT_FILE
from ._snapshot import FileIndex as FileIndex
from ._store import default_store as default_store
from ._store import discard as discard
from ._store import discard_orphans as discard_orphans
from ._store import discard_under as discard_under
from ._store import orphans as orphans
from ._walk import SearchHit as SearchHit
from ._workspace import MAX_READ_BYTES as MAX_READ_BYTES
from ._workspace import EditEvent as EditEvent
from ._workspace import Workspace as Workspace

__all__ = [
    "HASH_MAX_BYTES",
    "MAX_READ_BYTES",
    "PROMPT_FILE",
    "DiskLimitExceeded",
    "EditEvent",
    "FileIndex",
    "PatchError",
    "PathRefused",
    "SearchHit",
    "Workspace",
    "WorkspaceError",
    "default_store",
    "discard",
    "discard_orphans",
    "discard_under",
    "orphans",
    "path_allowed",
    "split_path",
]
