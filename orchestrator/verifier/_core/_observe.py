"""What one replay of a state observed: plain typed records, no browser objects."""

from __future__ import annotations

import msgspec

from ...records import A11ySnapshot


class _Rec(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    pass


class Outcome(_Rec, frozen=True, kw_only=True):
    """One assertion evaluated on a page."""

    passed: bool
    observed: str
    # Visual checks: the box (x, y, width, height, image pixels) holding every differing pixel.
    region: tuple[int, int, int, int] | None = None


class PageHealth(_Rec, frozen=True, kw_only=True):
    """Health read from the settled page (see `_replay/_probe.py` for the rules)."""

    scroll_width: int = 0
    client_width: int = 0
    overflow: bool = False
    # Interactive elements and text cut off by an ancestor's overflow or off-screen.
    clipped: tuple[str, ...] = ()
    blank: bool = False
    broken_images: tuple[str, ...] = ()


class StateObservation(_Rec, frozen=True, kw_only=True):
    """Everything the verifier needs from one state's replay."""

    state: str
    # Main-document status of the last navigation; None when it never answered.
    status: int | None = None
    nav_error: str = ""
    action_error: str = ""
    # The replay itself failed (browser crash after the retry, or an unusable page).
    error: str = ""
    console_errors: tuple[str, ...] = ()
    failed_requests: tuple[str, ...] = ()
    failed_assets: tuple[str, ...] = ()
    health: PageHealth = PageHealth()
    fingerprint: str = ""
    screenshot: str = ""
    duration_s: float = 0.0
    # Authored check id -> outcome of its assertion on this page.
    outcomes: dict[str, Outcome] = {}
    # What the page asked the site for ("METHOD url", same origin, in order), and why its
    # dependencies cannot be bounded by those requests ("" when they can): replay reuse.
    requests: tuple[str, ...] = ()
    unbounded: str = ""
    # Why this observation was reused from an earlier checkpoint ("" = replayed now),
    # or why it was replayed.
    reused: str = ""
    replayed: str = ""
    # Replayed on a page of a reused warm context ("warm") or in a new context ("fresh");
    # "" when reused. `shared_with`: the job whose replay evaluated these checks too.
    context: str = ""
    shared_with: str = ""
    # Accessibility snapshot (`_replay/_a11y.py`), taken when the job asked for it.
    a11y: A11ySnapshot | None = None
