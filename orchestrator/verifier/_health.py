"""Run-level health decided outside the browser: build, serve and scope (DESIGN.md §4)."""

from __future__ import annotations

import msgspec


class RunHealth(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What the sandbox and the workspace diff found before any browser replay."""

    build_ok: bool = True
    build_detail: str = ""
    serve_ok: bool = True
    serve_detail: str = ""
    # Paths the diff touched outside `allowed_paths`.
    scope_violations: tuple[str, ...] = ()
