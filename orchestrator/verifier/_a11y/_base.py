"""The bases an accessibility continuity rule compares a final state with (`_gate.py`,
`_rules.py`): each base's snapshot of the same state, or of the nearest state
standing in for one it never reached (the closest ancestor through `from`, then a state
of the same route and viewport)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ...contract import Contract, State, resolve_viewport
from ...records import A11ySnapshot

# A rule's verdict at a state: passed, and what was charged; None when not applicable.
Verdict = tuple[bool, list[str]]


@dataclass(frozen=True, slots=True)
class Base:
    """One base's snapshot standing for a state, and how to name it in a message."""

    label: str  # "R0", "the reference"
    snap: A11ySnapshot
    same_state: bool
    where: str  # "R0 at this state" / "R0 at state 'home' (nearest)"


def _nearest(contract: Contract, state: State, snaps: Mapping[str, A11ySnapshot]) -> str | None:
    seen: set[str] = set()
    s: State | None = state
    while s is not None and s.id not in seen:
        seen.add(s.id)
        got = snaps.get(s.id)
        if got is not None and got.reached:
            return s.id
        s = contract.state(s.from_) if s.from_ else None
    view = resolve_viewport(state.viewport)
    for other in contract.states:
        got = snaps.get(other.id)
        if (
            got is not None
            and got.reached
            and other.route == state.route
            and resolve_viewport(other.viewport) == view
        ):
            return other.id
    return None


def bases_for(
    contract: Contract, state: State, bases: Sequence[tuple[str, Mapping[str, A11ySnapshot]]]
) -> list[Base]:
    out = []
    for label, snaps in bases:
        sid = _nearest(contract, state, snaps)
        if sid is None:
            continue
        same = sid == state.id
        where = f"{label} at this state" if same else f"{label} at state {sid!r} (nearest)"
        out.append(Base(label=label, snap=snaps[sid], same_state=same, where=where))
    return out
