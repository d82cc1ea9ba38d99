"""Pure planning: a state's inherited action prefix and its one-line summary."""

from __future__ import annotations

from ...contract import (
    INTERACTIVE_ACTIONS,
    Action,
    Contract,
    Goto,
    Press,
    Reload,
    State,
    Viewport,
    resolve_viewport,
)


def action_chain(contract: Contract, state: State) -> tuple[Action, ...]:
    """Predecessors' actions first (following `from`), then the state's own."""
    chain: list[tuple[Action, ...]] = []
    cur: State | None = state
    seen: set[str] = set()
    while cur is not None and cur.id not in seen:  # the loader rejects cycles; be safe
        seen.add(cur.id)
        chain.append(cur.actions)
        cur = contract.state(cur.from_) if cur.from_ else None
    return tuple(a for actions in reversed(chain) for a in actions)


def is_interactive(actions: tuple[Action, ...]) -> bool:
    return any(isinstance(a, INTERACTIVE_ACTIONS) for a in actions)


def describe_action(action: Action) -> str:
    if isinstance(action, Goto):
        return f"goto {action.route}"
    if isinstance(action, Reload):
        return "reload"
    if isinstance(action, Press):
        return f"press {action.key} on {action.selector!r}"
    value = getattr(action, "value", None)
    tail = f" = {value!r}" if value is not None else ""
    return f"{type(action).__name__.lower()} {action.selector!r}{tail}"


def viewport_label(viewport: str | Viewport) -> str:
    v = resolve_viewport(viewport)
    return viewport if isinstance(viewport, str) else f"{v.width}x{v.height}"


def summarize_state(contract: Contract, state: State) -> str:
    """`route at viewport after a, b` — the 'where' part of a grounded message."""
    actions = action_chain(contract, state)
    v = resolve_viewport(state.viewport)
    done = "; ".join(describe_action(a) for a in actions) or "no actions"
    return f"state {state.id!r}: {state.route} at {v.width}x{v.height} after {done}"
