"""Three continuity rules of `_gate.py` that read more than one element: keyboard
traps, the document's title and lang, and what the live regions announce. Pure
functions of snapshots, like the rules there: a finding is charged only where a base
shows the thing working and no base shows it broken.

- `a11y-trap@S` (`regression_text`): Tab cannot leave a control (WCAG 2.1.2) where a base
  walked past it, or Shift+Tab cannot where a base's walk reached it and Shift+Tab was
  not held there; or a base walked round the whole page meeting no trap (a control in a
  modal dialog, which holds the focus by design, is not charged);
- `a11y-title@S` (`regression_text`): the page's `<title>` became empty, or the same as
  the title of a sibling state a base titled differently (WCAG 2.4.2); or the base's
  `<html lang>` was removed (WCAG 3.1.1);
- `a11y-announce@S` (`regression_text`): a live region a base had at the state is still
  on the page (its `tag#id`, or its text) but no longer live (no live region of the final
  matches it by element, then text, then one for one by kind); or a message a base
  announced after an action is still shown, but by no live region. What the task no
  longer shows at all (a confirmation replaced by a validation error) is content, and
  the checks judge it.

Titles are compared at the same state and its siblings; announcements at the same state
only (the same actions); traps and lang also against the nearest state standing in.
Title pairs and announcements are compared only where the final shows the state at the
base's address: a link that stopped navigating shows another page, and the checks of
the navigation say what broke.
Messages are compared with their digits masked (an order number, a count), and only
each region's last message after each action: what it settled on, not the "Saving…"
a slower or faster page may skip. A message the task rewords is still announced when
the same region, or one of its kind, announces something after the same action.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from ...contract import Contract, State
from ...records import SHIFT_ONLY, A11ySnapshot, Announcement, RegionFinding, TrapFinding
from ._base import Base, Verdict

Bases = Sequence[tuple[str, Mapping[str, A11ySnapshot]]]

# The titles frameworks and editors put in a new page: no title a user can tell apart.
GENERIC_TITLES = frozenset(
    {"document", "untitled", "untitled document", "react app", "vite app", "vite + react",
     "vite + react + ts", "vite + vue", "svelte app", "new page", "index", "title"}
)  # fmt: skip


def _left(snap: A11ySnapshot, element: str) -> bool:
    """Did this walk press Tab on `element` and see the focus move on?"""
    if any(t.element == element and t.keys != SHIFT_ONLY for t in snap.traps):
        return False
    names = [f.element for f in snap.focus]
    if element not in names:
        return False
    # The last element of a walk cut by its bound never had Tab pressed on it.
    return snap.focus_end in ("body", "cycle", "trap") or names[-1] != element


def _held(t: TrapFinding) -> frozenset[str]:
    """The keys that could not move the focus away from the trap's control."""
    if t.keys == SHIFT_ONLY:
        return frozenset({"Shift+Tab"})
    return frozenset({"Tab", "Shift+Tab"} if "Shift" in t.keys else {"Tab"})


def trap(final: A11ySnapshot, bases: list[Base]) -> Verdict | None:
    ran = [b for b in bases if not b.snap.focus_error and (b.snap.focus or b.snap.traps)]
    if final.focus_error or not (final.focus or final.traps) or not ran:
        return None
    charged = []
    for t in final.traps:
        if t.modal:
            continue  # a modal dialog holds the focus by design; Escape leaves it
        if any(u.element == t.element and _held(u) & _held(t) for b in ran for u in b.snap.traps):
            continue  # debt: a base is trapped there too, by one of the same keys
        shift_only = t.keys == SHIFT_ONLY
        if shift_only:  # every control a walk reached had Shift+Tab tried on it
            past = next((b for b in ran if t.element in {f.element for f in b.snap.focus}), None)
        else:
            past = next((b for b in ran if _left(b.snap, t.element)), None)
        # A base that went round the whole page trapped nowhere: a new control too.
        whole = next(
            (b for b in ran if b.same_state and b.snap.focus_end in ("body", "cycle")), None
        )
        if past is not None:
            moved = "Shift+Tab was not held there" if shift_only else "Tab moved on from it"
            was = f"in {past.where} {moved}"
        elif whole is not None:
            n = len(whole.snap.focus)
            was = f"in {whole.where} Tab went round the page, {n} controls, none held it"
        else:
            continue
        if shift_only:
            charged.append(f"Shift+Tab cannot leave {t.element}: {t.detail}; Tab can ({was})")
            continue
        shift = "Shift+Tab cannot either" if "Shift" in t.keys else "Shift+Tab can"
        charged.append(f"Tab cannot leave {t.element}: {t.detail}; {shift} ({was})")
    return not charged, charged


def _read(snap: A11ySnapshot | None) -> bool:
    return snap is not None and snap.reached and not snap.announce_error


def _same_page(final: A11ySnapshot, base: A11ySnapshot) -> bool:
    """The final shows the state at the base's address (unknown counts as the same)."""
    return not final.url or not base.url or final.url == base.url


def _is_generic(title: str) -> bool:
    return not title or title.strip().lower() in GENERIC_TITLES


def title(
    contract: Contract,
    state: State,
    final: Mapping[str, A11ySnapshot],
    near: list[Base],
    bases: Bases,
) -> Verdict | None:
    snap = final.get(state.id)
    ran = [b for b in near if _read(b.snap) and (b.snap.title or b.snap.lang)]
    if snap is None or not _read(snap) or not ran:
        return None
    charged: list[str] = []
    mine = snap.title
    if _is_generic(mine):
        was = next((b for b in ran if not _is_generic(b.snap.title)), None)
        if was is not None and not any(b.same_state and _is_generic(b.snap.title) for b in ran):
            charged.append(f"the title is {mine!r} ({was.where}: {was.snap.title!r})")
    lang = next((b for b in ran if b.snap.lang), None)
    kept = any(b.same_state and not b.snap.lang for b in ran)  # debt: a base had none
    if not snap.lang and lang is not None and not kept:
        charged.append(f"<html lang> is gone ({lang.where}: lang={lang.snap.lang!r})")
    charged.extend(_collapsed(contract, state, final, bases))
    return not charged, charged


def _collapsed(
    contract: Contract, state: State, final: Mapping[str, A11ySnapshot], bases: Bases
) -> Iterable[str]:
    """Sibling states whose title is now this one's, where the bases told them apart."""
    mine = final[state.id].title
    for other in contract.states:
        there = final.get(other.id)
        if other.id == state.id or there is None or not _read(there) or there.title != mine:
            continue
        told: list[tuple[str, str, str]] = []
        same = False
        for label, snaps in bases:
            a, b = snaps.get(state.id), snaps.get(other.id)
            if not (_read(a) and _read(b)) or a is None or b is None or not a.title:
                continue
            if not (_same_page(final[state.id], a) and _same_page(there, b)):
                continue  # another page is shown: what broke is the navigation
            if a.title == b.title:
                same = True
            else:
                told.append((label, a.title, b.title))
        if told and not same:
            label, a_title, b_title = told[0]
            yield (
                f"the title {mine!r} is also state {other.id!r}'s; {label} titled them"
                f" {a_title!r} and {b_title!r}"
            )


_DIGITS = re.compile(r"\d+")


def _key(text: str) -> str:
    return _DIGITS.sub("#", " ".join(text.split()).lower())


def _last_each(heard: Iterable[Announcement]) -> list[Announcement]:
    """Each region's last message after each action (from the first action on)."""
    last: dict[tuple[int, str], Announcement] = {}
    for a in heard:
        if a.after >= 1:
            last[(a.after, a.region)] = a
    return list(last.values())


def _gone_regions(
    base: Sequence[RegionFinding], now: Sequence[RegionFinding]
) -> list[RegionFinding]:
    """The base's regions the final has no counterpart for: by element, by text, then
    one for one by kind."""
    left = list(now)
    unmatched = []
    for r in base:
        hit = next((g for g in left if g.region == r.region), None) or next(
            (g for g in left if r.text and _key(g.text) == _key(r.text)), None
        )
        if hit is None:
            unmatched.append(r)
        else:
            left.remove(hit)
    gone = []
    for r in unmatched:
        hit = next((g for g in left if g.live == r.live), None)
        if hit is None:
            gone.append(r)
        else:
            left.remove(hit)
    return gone


def _shown(text: str, final: A11ySnapshot) -> bool:
    """The final shows `text` outside every live region (it appeared as actions ran)."""
    k = _key(text)
    return any(k in _key(t) for t in final.shown)


def _still_said(a: Announcement, final: A11ySnapshot) -> bool:
    """The base's message is announced in the final: its words by any live region (at any
    time, or shown in one as the state settled); or, reworded by the task, some message
    by the same region or one of its kind after the same action."""
    k = _key(a.text)
    said = [*(b.text for b in final.announced), *(r.text for r in final.regions)]
    if any(k in _key(t) for t in said):
        return True
    return any(
        b.after == a.after and (b.region == a.region or b.live == a.live) for b in final.announced
    )


def announce(final: A11ySnapshot, near: list[Base]) -> Verdict | None:
    same = [
        b
        for b in near
        if b.same_state
        and _read(b.snap)
        and (b.snap.regions or b.snap.announced)
        and _same_page(final, b.snap)
    ]
    if not _read(final) or not same:
        return None
    lists: list[dict[str, str]] = []
    for b in same:
        found: dict[str, str] = {}
        for r in _gone_regions(b.snap.regions, final.regions):
            if not (r.region in final.ids or (r.text and _shown(r.text, final))):
                continue  # the element and its text are gone: content the checks judge
            text = f", {r.text!r}" if r.text else ", empty"
            found[f"region {r.region}"] = (
                f"the live region {r.region} ({r.live}{text}) of {b.where} is no longer live:"
                " the final shows it in no live region (none has its element, text or kind)"
            )
        for a in _last_each(b.snap.announced):
            if not _still_said(a, final) and _shown(a.text, final):
                found[f"message {_key(a.text)}"] = (
                    f"{b.label} announced {a.text!r} ({a.live} on {a.region}, after action"
                    f" {a.after}: {a.action}); the final shows it in no live region and"
                    " announced nothing there after that action"
                )
        lists.append(found)
    # Charged only where every base that ran the state has the same finding.
    charged = [msg for k, msg in lists[0].items() if all(k in other for other in lists[1:])]
    return not charged, charged
