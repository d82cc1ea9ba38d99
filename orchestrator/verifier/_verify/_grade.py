"""The checks graded from a checkpoint's observations, and each state's run.

Rules beyond single assertions (also in the package docstring):
- `require_interaction`: the state's full action prefix (inherited through `from`, then
  its own) holds at least one click/fill/press/hover/check/select, AND the check's
  assertion does not already pass on a *bare* load of the state's route (same viewport,
  no actions). A result that is there without the action was not reached by one.
- `changed_from`: the state's content fingerprint (visible text + skeleton of rendered
  elements, see `_replay/_probe.py`) differs from the named state's. Cosmetic changes
  (outline, colour, classes) do not count.
"""

from __future__ import annotations

from ...contract import CheckSpec, Contract, State
from ...records import CheckResult, StateRun
from .._core import (
    Outcome,
    RunHealth,
    StateObservation,
    action_chain,
    grounded,
    is_interactive,
    state_health,
    summarize_state,
    viewport_label,
)
from .._replay import KEYS, keyboard_results
from ._jobs import BARE


def _authored(
    contract: Contract, check: CheckSpec, obs: dict[str, StateObservation]
) -> CheckResult:
    state = contract.state(check.state)
    mine = obs[state.id]
    outcome = mine.outcomes.get(check.id) or Outcome(passed=False, observed=mine.error)
    passed, notes = outcome.passed, [outcome.observed]
    if check.require_interaction:
        ok, note = _interaction_rule(contract, state, check, obs.get(state.id + BARE))
        passed, notes = passed and ok, [*notes, note] if note else notes
    if check.changed_from:
        ok, note = _changed_rule(mine, obs[check.changed_from])
        passed, notes = passed and ok, [*notes, note]
    observed = "; ".join(n for n in notes if n)
    return CheckResult(
        id=check.id,
        gate=check.gate,
        state=state.id,
        passed=passed,
        observed=observed,
        message=grounded(check.describe, summarize_state(contract, state), observed),
        region=None if passed else outcome.region,
    )


def _interaction_rule(
    contract: Contract, state: State, check: CheckSpec, bare: StateObservation | None
) -> tuple[bool, str]:
    if not is_interactive(action_chain(contract, state)):
        return False, "the state has no click/fill/press/hover/check/select in its actions"
    bare_outcome = bare.outcomes.get(check.id) if bare else None
    if bare_outcome is not None and bare_outcome.passed:
        return False, f"already true when {state.route} is loaded without any action"
    return True, ""


def _changed_rule(mine: StateObservation, other: StateObservation) -> tuple[bool, str]:
    if not other.fingerprint:
        why = other.error or other.nav_error or other.action_error
        return False, f"cannot compare with state {other.state!r}: it was not reached ({why})"
    if not mine.fingerprint:
        return False, "cannot compare: this state was not reached"
    if mine.fingerprint == other.fingerprint:
        return False, f"content identical to state {other.state!r}"
    return True, f"content differs from state {other.state!r}"


def _state_runs(contract: Contract, obs: dict[str, StateObservation]) -> tuple[StateRun, ...]:
    runs = []
    for key, o in sorted(obs.items()):
        state = contract.state(key.removesuffix(BARE).removesuffix(KEYS))
        error = o.error or o.nav_error or o.action_error
        runs.append(
            StateRun(
                state=key,
                route=state.route,
                viewport=viewport_label(state.viewport),
                duration_s=round(o.duration_s, 3),
                screenshot=o.screenshot,
                error=error,
                reused=o.reused,
                replayed=o.replayed,
                context=o.context,
                shared_with=o.shared_with,
            )
        )
    return tuple(runs)


def _ungraded(checks: list[CheckSpec], observed: str, applicable: bool = True) -> list[CheckResult]:
    """`checks` failed (or not applicable) for one reason, before any replay."""
    return [
        CheckResult(
            id=c.id,
            gate=c.gate,
            state=c.state,
            passed=False,
            applicable=applicable,
            observed=observed,
            message=grounded(c.describe, f"state {c.state!r}", observed),
        )
        for c in checks
    ]


def _serve_failed(checks: list[CheckSpec], health: RunHealth) -> list[CheckResult]:
    return _ungraded(checks, f"server not ready: {health.serve_detail or 'no detail'}")


def _graded(
    contract: Contract,
    checks: list[CheckSpec],
    health_states: list[str],
    obs: dict[str, StateObservation],
) -> list[CheckResult]:
    """The authored checks, their keyboard twins, and each health state's health."""
    results = [_authored(contract, c, obs) for c in checks]
    results += keyboard_results(contract, checks, obs)
    for sid in health_states:
        state = contract.state(sid)
        results += state_health(obs[sid], summarize_state(contract, state), state.status)
    return results
