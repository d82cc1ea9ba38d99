"""The verifier's version: a digest of its own source, so a verdict can name the code
that graded it (`regrade` says "verifier version changed" when it differs)."""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path


@functools.cache
def verifier_version() -> str:
    """sha256 (16 hex) over the verifier package's Python files (its rooms' included), by
    path inside the package and content."""
    digest = hashlib.sha256()
    root = Path(__file__).parent
    for path in sorted(root.rglob("*.py")):
        name = path.relative_to(root).as_posix()
        digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]
