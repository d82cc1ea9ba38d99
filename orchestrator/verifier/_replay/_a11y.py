"""A state's accessibility snapshot: axe-core (`_axe.py`), form state
(`_formstate.py`), the live regions checks read (`_live.py`), what was
announced as the state settled (title, lang, live regions and their messages, read by
the caller: `_announce.py`) and, last because it moves the focus, focus
visibility and keyboard traps (`_focus.py`). Taken only on full-suite runs (a final
checkpoint, R0, admission), where `_a11y/_gate.py` compares it with R0's. Every read is
from an isolated world or Playwright's utility world. A probe that fails or times out
records why in the snapshot, and its rules are not applicable there rather than passed
or failed.
"""

from __future__ import annotations

import anyio
import msgspec
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from ...contract import Action, CheckSpec
from ...records import A11ySnapshot
from ._a11y_world import WorldError
from ._announce import Announced
from ._axe import AxeMissing, run_axe
from ._focus import focus_walk
from ._formstate import read_fields
from ._live import read_live

AXE_TIMEOUT_S = 30.0
FOCUS_TIMEOUT_S = 15.0


def _why(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}"


async def observe_a11y(
    page: Page,
    actions: tuple[Action, ...],
    checks: tuple[CheckSpec, ...],
    reached: bool,
    heard: Announced | None = None,
) -> A11ySnapshot:
    if not reached:
        return A11ySnapshot(reached=False)
    snap = A11ySnapshot()
    try:
        with anyio.fail_after(AXE_TIMEOUT_S):
            violations, passes = await run_axe(page)
        snap = A11ySnapshot(violations=violations, passes=passes)
    except AxeMissing:
        raise
    except (PlaywrightError, WorldError, TimeoutError, ValueError, KeyError) as exc:
        snap = A11ySnapshot(axe_error=_why(exc))
    try:
        fields, error_path = await read_fields(page, actions)
        live = await read_live(page, checks)
        snap = _with(snap, fields=fields, error_path=error_path, live=live)
    except (PlaywrightError, WorldError, ValueError, KeyError, TypeError):
        pass  # the page went away: no fields or live regions to compare
    try:
        with anyio.fail_after(FOCUS_TIMEOUT_S):
            walk = await focus_walk(page)
        snap = _with(snap, focus=walk.focus, traps=walk.traps, focus_end=walk.end)
    except (PlaywrightError, WorldError, TimeoutError, ValueError, KeyError) as exc:
        snap = _with(snap, focus_error=_why(exc))
    return _heard(snap, heard)


def _heard(snap: A11ySnapshot, heard: Announced | None) -> A11ySnapshot:
    if heard is None:
        return _with(snap, announce_error="not read (no listener)")
    return _with(
        snap,
        title=heard.title,
        lang=heard.lang,
        url=heard.url,
        regions=heard.regions,
        announced=heard.heard,
        shown=heard.shown,
        ids=heard.ids,
        announce_error=heard.error,
    )


def _with(snap: A11ySnapshot, **changes: object) -> A11ySnapshot:
    return msgspec.structs.replace(snap, **changes)
