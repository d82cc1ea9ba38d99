"""A state's actions (``[[states]] actions`` of ``task.toml``), a tagged union on ``do``."""

from __future__ import annotations

from typing import Literal

from ._base import _Strict


class _Action(_Strict, tag_field="do", frozen=True, kw_only=True):
    pass


class Click(_Action, tag="click", frozen=True, kw_only=True):
    selector: str


class Fill(_Action, tag="fill", frozen=True, kw_only=True):
    selector: str
    value: str


class Press(_Action, tag="press", frozen=True, kw_only=True):
    selector: str
    key: str


class Hover(_Action, tag="hover", frozen=True, kw_only=True):
    selector: str


class Check(_Action, tag="check", frozen=True, kw_only=True):
    selector: str


class Select(_Action, tag="select", frozen=True, kw_only=True):
    selector: str
    value: str


class ScrollTo(_Action, tag="scroll_to", frozen=True, kw_only=True):
    selector: str


class WaitFor(_Action, tag="wait_for", frozen=True, kw_only=True):
    selector: str
    state: Literal["attached", "detached", "visible", "hidden"] = "visible"


class Reload(_Action, tag="reload", frozen=True, kw_only=True):
    pass


class Goto(_Action, tag="goto", frozen=True, kw_only=True):
    route: str


Action = Click | Fill | Press | Hover | Check | Select | ScrollTo | WaitFor | Reload | Goto
# Actions that count as a real user interaction for `require_interaction`.
INTERACTIVE_ACTIONS: tuple[type[_Action], ...] = (Click, Fill, Press, Hover, Check, Select)


__all__ = [
    "INTERACTIVE_ACTIONS",
    "Action",
    "Check",
    "Click",
    "Fill",
    "Goto",
    "Hover",
    "Press",
    "Reload",
    "ScrollTo",
    "Select",
    "WaitFor",
]
