from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from orchestrator.verifier import BrowserPool


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # Playwright and aiodocker are asyncio-bound


@pytest.fixture
async def pool(require_chromium: None) -> AsyncIterator[BrowserPool]:
    async with BrowserPool(max_contexts=2) as p:
        yield p
