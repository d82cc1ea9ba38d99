"""Fixtures for the verifier tests: a static fixture site, one BrowserPool per module."""

from __future__ import annotations

import contextlib
import functools
import os
import threading
from collections.abc import AsyncIterator, Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import msgspec
import pytest

from orchestrator.contract import Contract, TaskPackage
from orchestrator.verifier import BrowserPool

SITE = Path(__file__).parent / "sites" / "site"
CHROMIUM = Path("/usr/bin/chromium")


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"  # Playwright's async API is asyncio-only


@pytest.fixture(scope="module")
def site_url() -> Iterator[str]:
    with serve(SITE) as url:
        yield url


@contextlib.contextmanager
def serve(directory: Path) -> Iterator[str]:
    """`directory` served over HTTP on loopback (a free port) while the block runs."""
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def need_chromium() -> None:
    if CHROMIUM.exists():
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"{CHROMIUM} is required under CI=true")
    pytest.skip(f"{CHROMIUM} not installed")


@pytest.fixture(scope="module")
async def pool(require_chromium: None) -> AsyncIterator[BrowserPool]:
    need_chromium()
    async with BrowserPool() as p:
        yield p


def make_task(
    tmp: Path, states: list[dict[str, Any]], checks: list[dict[str, Any]], task_id: str = "t"
) -> TaskPackage:
    """A TaskPackage built in Python: only what the verifier reads is real."""
    raw = {
        "id": task_id,
        "regime": "change",
        "capability": "edit",
        "facet": "state",
        "stack": "static",
        "framework": "html",
        "allowed_paths": ["**"],
        "serve": {"start": "python -m http.server $PORT"},
        "states": states,
        "checks": checks,
        "units": [{"id": "u1", "request": "r", "checks": [c["id"] for c in checks][:1]}],
    }
    contract = msgspec.convert(raw, Contract)
    return TaskPackage(root=tmp, contract=contract, contract_hash="test")


def check(cid: str, gate: str, state: str, **assertion: Any) -> dict[str, Any]:
    extra: dict[str, Any] = {
        k: assertion.pop(k) for k in ("changed_from", "require_interaction") if k in assertion
    }
    return {"id": cid, "gate": gate, "state": state, "assert": assertion, "describe": cid, **extra}
