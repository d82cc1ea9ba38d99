"""Exceptions raised by the verifier.

Playwright errors are translated into these where they enter (``raise ... from exc``)::

    VerifierError              base class; a bug or a misuse of the verifier
    ├── VerifierInfraError     infrastructure fault, never the solver's: retryable by the sweep
    │   └── BrowserCrashed     the browser disconnected while a state was being replayed
    └── ReplayError            the page could not be driven for a reason other than a crash

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


class ReplayError(VerifierError):
    """Driving the page failed in a way that is neither a crash nor the solver's page."""
