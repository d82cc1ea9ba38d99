"""Exceptions raised by the verifier.

Playwright errors are translated into these where they enter (``raise ... from exc``)::

    VerifierError              base class; a bug or a misuse of the verifier
    ├── VerifierInfraError     infrastructure fault, never the solver's: retryable by the sweep
    │   └── BrowserCrashed     the browser disconnected while a state was being replayed
    ├── EnvironmentDrift       the rendering environment differs from a task's evidence
    └── ReplayError            the page could not be driven for a reason other than a crash
        └── HarnessTimeout     a harness-side Playwright call (context, screenshot, probe)
                               timed out: retried by the pool (a loaded host is transient);
                               only a timeout that persists is the page's

A failing check, a timed-out action or a 404 page are *data* (`CheckResult`), not
exceptions: they are the solver's outcome and are graded by the gates.
"""

from __future__ import annotations


class VerifierError(Exception):
    """Base class of every exception raised by `orchestrator.verifier`."""


class VerifierInfraError(VerifierError):
    """The browser could not be launched or used: an infrastructure fault."""


class BrowserCrashed(VerifierInfraError):
    """The browser process disconnected during a state's replay."""


class EnvironmentDrift(VerifierError):
    """The running environment is not the one the task's evidence was captured in."""

    def __init__(self, task_id: str, why: str) -> None:
        self.task_id, self.why = task_id, why
        super().__init__(
            f"{task_id}: the rendering environment differs from its evidence ({why}); "
            "install the pinned fonts (bash scripts/install) or re-capture "
            f"(python -m orchestrator capture {task_id}), or pass --allow-env-drift to "
            "grade the visual gates as not applicable"
        )


class ReplayError(VerifierError):
    """Driving the page failed in a way that is neither a crash nor the solver's page."""


class HarnessTimeout(ReplayError):
    """A Playwright call of the harness's own (not the page's actions) timed out."""
