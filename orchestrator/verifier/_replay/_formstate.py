"""Form state after a failed submit: do the fields the actions typed into keep their values?

A state qualifies when its action chain fills (or selects) a field and then clicks or
presses something (a submit attempt). After the state is reached, each such field's
value is read through Playwright's utility world (`input_value`), and whether the page
ended on a validation error (`aria-invalid="true"`, `:user-invalid`, or a non-empty
visible `role=alert`) is read from an isolated world. The comparison with R0 is in
`_a11y/_gate.py`.
"""

from __future__ import annotations

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from ...contract import Action, Click, Fill, Press, Select
from ...records import FieldFinding
from ._a11y_world import new_world

READ_TIMEOUT_MS = 2_000.0

ERROR_PATH = r"""(() => {
  if (document.querySelector('[aria-invalid="true"]')) return true;
  try { if (document.querySelector(':user-invalid')) return true; } catch (e) {}
  for (const el of document.querySelectorAll('[role=alert]')) {
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.height > 0 && (el.innerText || '').trim()) return true;
  }
  return false;
})()"""


def typed_fields(actions: tuple[Action, ...]) -> dict[str, str]:
    """selector -> the last value typed, for fields filled before a later click/press."""
    typed: dict[str, str] = {}
    submitted: dict[str, str] = {}
    for a in actions:
        if isinstance(a, Fill | Select):
            typed[a.selector] = a.value
        elif isinstance(a, Click | Press) and typed:
            submitted |= typed
    return {s: v for s, v in submitted.items() if s in typed}


async def read_fields(
    page: Page, actions: tuple[Action, ...]
) -> tuple[tuple[FieldFinding, ...], bool]:
    """(the typed fields' values now, whether the page is on a validation error)."""
    wanted = typed_fields(actions)
    if not wanted:
        return (), False
    out = []
    for selector, value in wanted.items():
        loc = page.locator(selector)
        try:
            now = (
                await loc.first.input_value(timeout=READ_TIMEOUT_MS) if await loc.count() else None
            )
        except PlaywrightError:
            now = None
        out.append(
            FieldFinding(selector=selector, typed=value, value="<gone>" if now is None else now)
        )
    world = await new_world(page, "pwb-form")
    return tuple(out), bool(await world.eval(ERROR_PATH))
