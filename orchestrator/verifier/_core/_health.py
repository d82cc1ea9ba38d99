"""Run-level health decided outside the browser: build, serve and scope (DESIGN.md §4)."""

from __future__ import annotations

from typing import TypedDict

import msgspec

from ...contract import Contract

# The stack whose server is a plain file server (`python3 -m http.server`): its `serve`
# gate cannot fail on anything the solver does, so it is not applicable.
STATIC_STACK = "static"


class RunHealth(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What the sandbox and the workspace diff found before any browser replay."""

    build_ok: bool = True
    build_detail: str = ""
    serve_ok: bool = True
    serve_detail: str = ""
    # False when the gate cannot fail for this stack: no install/build command; a static
    # file server (it serves whatever the workspace holds).
    build_applicable: bool = True
    serve_applicable: bool = True
    # Paths the diff touched outside `allowed_paths`.
    scope_violations: tuple[str, ...] = ()


class Applicability(TypedDict):
    build_applicable: bool
    serve_applicable: bool


def applicability(contract: Contract) -> Applicability:
    """`RunHealth` keyword arguments saying which run gates can fail for this stack."""
    serve = contract.serve
    return Applicability(
        build_applicable=bool(serve.install or serve.build),
        serve_applicable=contract.stack != STATIC_STACK,
    )
