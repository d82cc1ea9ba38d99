"""What a workspace operation can raise.

    WorkspaceError          a file operation or patch failed; the message is for the solver
    ├── PathRefused         the path breaks the rules (absolute, `..`, `.git`, a link, scope)
    ├── PatchError          a harness-side patch does not apply (the task package's fault)
    └── DiskLimitExceeded   the workspace grew past its disk limit (the solver's doing)

Messages name workspace-relative paths only, never a host path.
"""

from __future__ import annotations


class WorkspaceError(Exception):
    """A file operation or patch could not be applied; the message is for the solver."""


class PathRefused(WorkspaceError):
    pass


class PatchError(WorkspaceError):
    pass


class DiskLimitExceeded(WorkspaceError):
    """The work tree uses more disk than allowed; the cell ends with this as its outcome."""

    def __init__(self, used: int, limit: int) -> None:
        self.used = used
        self.limit = limit
        super().__init__(
            f"workspace disk limit exceeded: {used / 2**20:.0f} MiB used, "
            f"limit {limit / 2**20:.0f} MiB"
        )
