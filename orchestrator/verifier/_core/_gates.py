"""Health checks per replayed state, run-level health checks, and per-gate verdicts."""

from __future__ import annotations

from collections.abc import Iterable

from ...contract import GATES, Gate
from ...records import CheckResult, GateResult, GateStatus
from ._health import RunHealth
from ._observe import StateObservation

# What each health gate asks of every state: the `describe` of the automatic checks.
HEALTH_DESCRIBE: dict[Gate, str] = {
    "layout_overflow": (
        "The page must not scroll horizontally, and no control or text may be cut off"
        " by an ancestor's overflow or positioned off-screen."
    ),
    "routes": "The route must load with a 2xx status and render something.",
    "console": "No console error or uncaught exception may occur.",
    "network": (
        "No same-origin request may fail, be aborted or get a 5xx, and no subresource a 4xx"
        " (a 4xx answered to the page's own fetch/XHR is its application's answer)."
    ),
    "assets": "Every image, font and stylesheet must load.",
    "build": "Install and build must succeed.",
    "serve": "The server must become ready in time.",
    "scope": "Only files inside allowed_paths may change.",
}


def _listed(items: Iterable[str], limit: int = 5) -> str:
    items = list(items)
    more = f" (+{len(items) - limit} more)" if len(items) > limit else ""
    return "; ".join(items[:limit]) + more


def _routes(obs: StateObservation, expected: int | None) -> tuple[bool, str]:
    if obs.nav_error:
        return False, obs.nav_error
    if expected is not None and obs.status != expected:
        return False, f"document status {obs.status}, expected {expected}"
    if expected is None and (obs.status is None or not 200 <= obs.status < 300):
        return False, f"document status {obs.status}"
    if obs.health.blank:
        return False, f"status {obs.status} but the page rendered blank (no text, no media)"
    return True, f"status {obs.status}"


def _state_verdicts(obs: StateObservation, expected: int | None) -> dict[Gate, tuple[bool, str]]:
    h = obs.health
    # A 404 image shows up twice (failed request, then naturalWidth 0): report it once.
    broken = [
        f"img {src}: loaded but decoded to nothing"
        for src in h.broken_images
        if not any(src.lstrip("./") in line for line in obs.failed_assets)
    ]
    assets = [*obs.failed_assets, *broken]
    return {
        "layout_overflow": (
            not h.overflow and not h.clipped,
            f"scrollWidth {h.scroll_width} vs clientWidth {h.client_width}"
            + (f"; cut off: {_listed(h.clipped)}" if h.clipped else ""),
        ),
        "routes": _routes(obs, expected),
        "console": (not obs.console_errors, _listed(obs.console_errors) or "no errors"),
        "network": (not obs.failed_requests, _listed(obs.failed_requests) or "no failures"),
        "assets": (not assets, _listed(assets) or "all loaded"),
    }


def state_health(
    obs: StateObservation, where: str, expected_status: int | None = None
) -> list[CheckResult]:
    """The five state health checks of one replayed state, id `<gate>@<state>`."""
    verdicts = _state_verdicts(obs, expected_status)
    describe = HEALTH_DESCRIBE
    if expected_status is not None:
        routes = f"The route must answer with status {expected_status}."
        describe = {**HEALTH_DESCRIBE, "routes": routes}
    unloaded = obs.error or obs.nav_error
    if unloaded:
        # The page never loaded: `routes` fails with the reason; overflow, console, network
        # and assets were never observed, so they are not applicable rather than a pass.
        why = f"not applicable: the state did not load ({unloaded})"
        verdicts = {g: (False, unloaded if g == "routes" else why) for g in verdicts}
    return [
        CheckResult(
            id=f"{gate}@{obs.state}",
            gate=gate,
            state=obs.state,
            passed=ok,
            observed=observed,
            message=grounded(describe[gate], where, observed),
            authored=False,
            applicable=not unloaded or gate == "routes",
        )
        for gate, (ok, observed) in verdicts.items()
    ]


def run_health(health: RunHealth) -> list[CheckResult]:
    """build/serve/scope as checks on the pseudo-state `run` (id `<gate>@run`)."""
    scope = _listed(health.scope_violations) or "no path outside allowed_paths"
    verdicts: dict[Gate, tuple[bool, str]] = {
        "build": (health.build_ok, health.build_detail or ("ok" if health.build_ok else "failed")),
        "serve": (health.serve_ok, health.serve_detail or ("ready" if health.serve_ok else "down")),
        "scope": (not health.scope_violations, scope),
    }
    # A gate that cannot fail is not applicable (it would inflate Gate%): no install or
    # build command to fail, or a static file server that became ready. A failure of
    # either is still reported as one.
    moot: dict[Gate, str] = {}
    if not health.build_applicable and health.build_ok:
        moot["build"] = "not applicable: the stack has no install or build command"
    if not health.serve_applicable and health.serve_ok:
        moot["serve"] = "not applicable: a static file server cannot fail on the workspace"
    return [
        CheckResult(
            id=f"{gate}@run",
            gate=gate,
            state="run",
            passed=ok and gate not in moot,
            observed=moot.get(gate, observed),
            message=grounded(HEALTH_DESCRIBE[gate], "the whole run", moot.get(gate, observed)),
            authored=False,
            applicable=gate not in moot,
        )
        for gate, (ok, observed) in verdicts.items()
    ]


def grounded(describe: str, where: str, observed: str) -> str:
    """The sentence a user can act on: what should hold, where, and what was seen."""
    return f"{describe} — {where}; observed: {observed}"


def gate_results(checks: Iterable[CheckResult]) -> tuple[GateResult, ...]:
    """pass when every applicable check passes, fail when one fails, n/a when none ran
    (with the reason of the checks that were not applicable, if any)."""
    by_gate: dict[Gate, list[CheckResult]] = {}
    for c in checks:
        by_gate.setdefault(c.gate, []).append(c)
    out = []
    for gate in GATES:
        every = by_gate.get(gate, [])
        got = [c for c in every if c.applicable]
        failed = tuple(c.id for c in got if not c.passed)
        status: GateStatus = "n/a" if not got else "fail" if failed else "pass"
        reason = "" if got else next((c.observed for c in every), "")
        out.append(GateResult(gate=gate, status=status, failed_checks=failed, reason=reason))
    return tuple(out)
