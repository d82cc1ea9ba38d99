"""Keyboard operability (WCAG 2.1.1), graded without authoring.

Every control a unit's checks operate by click must work from the keyboard too. For each
state that one of the requested unit checks reads, and whose actions (inherited through
`from`) click or check something, the verifier replays the state once more (job
`<state>~keys`) with every click and check done the way a keyboard user does it:

- **reach**: press Tab from wherever the focus is until the control has it (the clicked
  element, an element inside it or holding it, or the control of a clicked `label` or
  of the label holding the clicked text), at most
  twice around the document's focusable elements; a control that is neither focusable
  nor inside a focusable element (a click-only `span`, a `tabindex="-1"` button) fails
  at once, saying why;
- **groups** (ARIA radio group and tabs patterns): a radio or tab is reached when the
  focus enters its group (a native radio's `name`, or its `radiogroup`/`tablist`), then
  the arrow keys (Right, then Down) move the focus to it;
- **operate**: Enter on links, buttons and anything else; Space on checkboxes, switches
  and radios (a `check` of a box already checked only needs reaching), pressed on the
  focused element so that a navigation it starts has committed before the page settles.

Each eligible unit check then gets a result `keyboard:<check id>` under `a11y`: pass when
the keyboard replay reached the state and the check's assertion holds there, fail with
what stopped the keyboard (the control, the action, the reason) or with what the
assertion saw instead. It is not applicable when the pointer path fails the check too
(the check's own failure says why), or when the author opted the check out with
`keyboard_exempt = "<reason>"` (its reason is the observation).

Every probe is a Playwright locator (utility world; `:focus` is the browser's own
matching), never `page.evaluate` in the site's world.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import NamedTuple

from playwright.async_api import Locator, Page

from ...contract import Action, Check, CheckSpec, Click, Contract
from ...records import CheckResult
from .._core import Outcome, StateObservation, action_chain, grounded, summarize_state
from ._drive import ActionFailed, perform

KEYS = "~keys"
KEYBOARD_ID = "keyboard:"
DESCRIBE = (
    "Every control the request's checks operate by click also works from the keyboard: "
    "reached with Tab and operated with Enter/Space (arrows within a radio group or tabs) "
    "(WCAG 2.1.1)"
)

FOCUSABLE = (
    "a[href], area[href], button:not([disabled]), input:not([type=hidden]):not([disabled]),"
    " select:not([disabled]), textarea:not([disabled]), summary, iframe, [contenteditable],"
    " [tabindex]"
)
OUT_OF_ORDER = '[tabindex^="-"]'
LINKS = "a[href], area[href], [role=link]"
SPACE_KEYED = (
    "input[type=checkbox], input[type=radio], [role=checkbox], [role=switch], [role=radio]"
)
# An element inside one of these may be reached through it (a span in a button) ...
HOLDER = (
    ':is(a[href], area[href], button:not([disabled]), summary, [tabindex]:not([tabindex^="-"])) *'
)
# ... and is, when the focused holder is a control itself: not a focusable region or
# list around it (Enter on those does nothing a click on the element does).
FOCUSED_CONTROL_HOLDER = (
    ":is(a[href], area[href], button, summary, [role=button], [role=link], [role=tab],"
    " [role=menuitem], [role=option], [role=checkbox], [role=radio], [role=switch]):focus *"
)
NATIVE_RADIO = "input[type=radio]"
ARIA_GROUPS = (("[role=radio]", "radiogroup"), ("[role=tab]", "tablist"))
MAX_TABS = 400


def clicks(actions: tuple[Action, ...]) -> bool:
    return any(isinstance(a, Click | Check) for a in actions)


def eligible(contract: Contract, checks: Collection[CheckSpec]) -> list[CheckSpec]:
    """The requested unit checks whose state's actions click something."""
    owned = contract.unit_check_ids()
    return [
        c
        for c in checks
        if c.id in owned and clicks(action_chain(contract, contract.state(c.state)))
    ]


async def _is(loc: Locator, css: str) -> bool:
    return await loc.and_(loc.page.locator(css)).count() > 0


async def _focus_on(page: Page, control: Locator) -> bool:
    """The focused element is the control, inside it, or a control holding it (a span in
    a button)."""
    return (
        await _is(control, ":focus")
        or await control.locator(":focus").count() > 0
        or await _is(control, FOCUSED_CONTROL_HOLDER)
    )


async def _control(page: Page, selector: str) -> Locator:
    """What a click on `selector` operates: the control of a clicked `label` (or of the
    label the clicked text is in), else the element."""
    target = page.locator(selector).first
    await target.wait_for(state="visible")
    if await _is(target, FOCUSABLE):
        return target
    label = target.locator("xpath=ancestor-or-self::label[1]")
    if await label.count():
        for_id = await label.get_attribute("for")
        inner = (
            page.locator(f"[id={json.dumps(for_id)}]")
            if for_id
            else label.locator("input, select, textarea, button")
        ).first
        if await inner.count():
            return inner
    return target


class _Group(NamedTuple):
    members: Locator  # the radios or tabs of the control's group
    focused: Locator  # the member that has the focus (none: the focus is elsewhere)


async def _group(page: Page, control: Locator) -> _Group | None:
    """The control's radio group or tab list (None: it is in none)."""
    if await _is(control, NATIVE_RADIO):
        name = await control.get_attribute("name")
        if not name:
            return None
        radios = f"input[type=radio][name={json.dumps(name)}]"
        return _Group(members=page.locator(radios), focused=page.locator(radios + ":focus"))
    for member, role in ARIA_GROUPS:
        if await _is(control, member):
            box = control.locator(f"xpath=ancestor::*[@role='{role}'][1]")
            return _Group(members=box.locator(member), focused=box.locator(":focus"))
    return None


async def _why_unreachable(page: Page, control: Locator) -> str:
    """Why the control can never take the focus ('' when it might)."""
    if await control.locator(FOCUSABLE).count() or await _is(control, HOLDER):
        return ""
    if await _is(control, OUT_OF_ORDER):
        return 'it has tabindex="-1": out of the tab order'
    if not await _is(control, FOCUSABLE):
        return "it is not focusable: neither a native control nor given tabindex=0"
    return ""


async def _tab_to(page: Page, control: Locator, group: _Group | None) -> str:
    """Press Tab until the control (or its group) has the focus; '' or why not."""
    if group is None and (why := await _why_unreachable(page, control)):
        return why
    limit = min(MAX_TABS, 2 * await page.locator(FOCUSABLE).count() + 4)
    for _ in range(limit):
        await page.keyboard.press("Tab")
        if await _focus_on(page, control):
            return ""
        if group is not None and await group.focused.count():
            return await _arrow_to(page, control, await group.members.count())
    return f"not in the tab order: {limit} presses of Tab never reached it"


async def _arrow_to(page: Page, control: Locator, members: int) -> str:
    for key in ("ArrowRight", "ArrowDown"):
        for _ in range(members):
            await page.keyboard.press(key)
            if await _focus_on(page, control):
                return ""
    return (
        "Tab reaches its group, but the arrow keys never move the focus to it "
        "(the ARIA radio group / tabs pattern)"
    )


async def operate(page: Page, base_url: str, action: Action) -> None:
    """`action` as a keyboard user does it (module docstring); others as `perform`."""
    if not isinstance(action, Click | Check):
        await perform(page, base_url, action)
        return
    control = await _control(page, action.selector)
    why = await _tab_to(page, control, await _group(page, control))
    if why:
        raise ActionFailed(f"{action.selector!r} by keyboard: {why}")
    if isinstance(action, Check) and await control.is_checked():
        return
    spaced = await _is(control, SPACE_KEYED)
    key = "Enter" if await _is(control, LINKS) or not spaced else "Space"
    # Pressed on the focused element, not on the page's keyboard: like the pointer's
    # click, an element's press waits for a navigation it starts (a form's submission,
    # a link) to commit, so the settle that follows reads the new document. On a loaded
    # host the navigation's request reached the verifier after the old page had settled.
    await page.locator(":focus").last.press(key)


def _result(contract: Contract, check: CheckSpec, obs: dict[str, StateObservation]) -> CheckResult:
    state = contract.state(check.state)
    where = summarize_state(contract, state)
    applicable, passed = True, False
    mouse = obs[state.id].outcomes.get(check.id)
    keys = obs.get(state.id + KEYS)
    if check.keyboard_exempt:
        applicable, passed = False, True
        observed = f"not applicable: opted out by the task: {check.keyboard_exempt}"
    elif mouse is None or not mouse.passed:
        applicable = False
        observed = f"not applicable: check {check.id!r} fails with the pointer too"
    elif keys is None:
        observed = "the state was not replayed by keyboard"
    elif failure := keys.error or keys.nav_error or keys.action_error:
        observed = f"by keyboard: {failure}"
    else:
        got = keys.outcomes.get(check.id) or Outcome(passed=False, observed="not evaluated")
        passed = got.passed
        observed = (
            f"by keyboard, check {check.id!r} holds: {got.observed}"
            if passed
            else f"by keyboard, check {check.id!r} does not hold (it does by click): {got.observed}"
        )
    return CheckResult(
        id=KEYBOARD_ID + check.id,
        gate="a11y",
        state=state.id,
        passed=passed,
        observed=observed,
        message=grounded(f"{DESCRIBE}; here for: {check.describe}", where, observed),
        authored=False,
        applicable=applicable,
    )


def keyboard_results(
    contract: Contract, checks: Collection[CheckSpec], obs: dict[str, StateObservation]
) -> list[CheckResult]:
    """One `keyboard:<id>` result per eligible requested unit check (module docstring)."""
    return [_result(contract, c, obs) for c in eligible(contract, checks) if c.state in obs]
