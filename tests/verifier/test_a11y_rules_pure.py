"""Keyboard traps, titles and announcements on snapshots (no browser, #53): what is
charged, what is debt, and how a second base (the reference in admission) narrows it.
The browser side is `test_a11y_rules.py`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

from orchestrator.contract import TaskPackage
from orchestrator.records import (
    SHIFT_ONLY,
    A11ySnapshot,
    Announcement,
    CheckResult,
    FocusFinding,
    RegionFinding,
    TrapFinding,
)
from orchestrator.verifier import a11y_continuity

from .conftest import make_task

STATES: list[dict[str, Any]] = [
    {"id": "home", "route": "/"},
    {"id": "sent", "route": "/", "actions": [{"do": "click", "selector": "#send"}]},
    {"id": "about", "route": "/about"},
    {"id": "new", "route": "/new", "from": "home"},
]
CHECK = {
    "id": "c",
    "gate": "text",
    "state": "home",
    "assert": {"kind": "exists", "selector": "main"},
    "describe": "d",
}


@pytest.fixture
def task(tmp_path: Path) -> TaskPackage:
    return make_task(tmp_path, STATES, [CHECK])


def walk(*names: str, end: str = "cycle", trap: str = "") -> dict[str, Any]:
    focus = tuple(FocusFinding(element=n, visible=True) for n in names)
    traps = (TrapFinding(element=trap, keys="Tab", detail="held"),) if trap else ()
    return {"focus": focus, "traps": traps, "focus_end": "trap" if trap else end}


def grade(
    task: TaskPackage, final: dict[str, A11ySnapshot], *bases: dict[str, A11ySnapshot]
) -> dict[str, CheckResult]:
    labelled = [("R0", bases[0]), *(("the reference", b) for b in bases[1:])]
    return {c.id: c for c in a11y_continuity(task.contract, final, labelled)}


def test_a_trap_where_a_base_tabbed_past_is_charged_and_debt_is_not(task: TaskPackage) -> None:
    r0 = {"home": A11ySnapshot(**walk("a#x", "input#c", "button#b"))}
    final = {"home": A11ySnapshot(**walk("a#x", "input#c", trap="input#c"))}
    got = grade(task, final, r0)["a11y-trap@home"]
    assert not got.passed and "Tab cannot leave input#c: held; Shift+Tab can" in got.observed
    assert "R0 at this state Tab moved on from it" in got.observed
    trapped = {"home": A11ySnapshot(**walk("a#x", "input#c", trap="input#c"))}
    assert grade(task, final, trapped)["a11y-trap@home"].passed
    # R0 tabbed past it, the reference is trapped there too: debt in either is debt.
    assert grade(task, final, r0, trapped)["a11y-trap@home"].passed


def test_a_new_control_that_traps_is_charged_where_a_base_went_round_the_page(
    task: TaskPackage,
) -> None:
    final = {"home": A11ySnapshot(**walk("a#x", "div#new", trap="div#new"))}
    whole = {"home": A11ySnapshot(**walk("a#x", "button#b", end="body"))}
    got = grade(task, final, whole)["a11y-trap@home"]
    assert not got.passed and "Tab went round the page, 2 controls, none held it" in got.observed
    # A modal dialog's only control holds the focus by design (Escape leaves it).
    modal = TrapFinding(element="button#close", keys="Tab", detail="held", modal=True)
    dialog = {"home": msgspec.structs.replace(final["home"], traps=(modal,))}
    assert grade(task, dialog, whole)["a11y-trap@home"].passed
    # A base walk cut by its bound proves nothing about a control it never reached, nor
    # about its own last element (Tab was never pressed there).
    cut = {"home": A11ySnapshot(**walk("a#x", "div#new", end="limit"))}
    assert grade(task, final, cut)["a11y-trap@home"].passed


def test_a_shift_tab_trap_is_charged_where_a_base_reached_the_control(task: TaskPackage) -> None:
    """A control only Shift+Tab cannot leave: charged where a base's walk reached it (every
    control reached has Shift+Tab tried on it) and held nothing there; debt where a base
    held it too, by either key; Tab leaving it still counts as Tab moving on."""
    held = TrapFinding(element="input#c", keys=SHIFT_ONLY, detail="the key did not move")
    final = {"home": A11ySnapshot(**{**walk("a#x", "input#c", "button#b"), "traps": (held,)})}
    r0 = {"home": A11ySnapshot(**walk("a#x", "input#c", "button#b"))}
    got = grade(task, final, r0)["a11y-trap@home"]
    assert not got.passed, got
    assert "Shift+Tab cannot leave input#c: the key did not move; Tab can" in got.observed
    assert "R0 at this state Shift+Tab was not held there" in got.observed
    # Debt: R0 held it by Shift+Tab too (alone, or with Tab).
    assert grade(task, final, {"home": final["home"]})["a11y-trap@home"].passed
    both = TrapFinding(element="input#c", keys="Tab and Shift+Tab", detail="held")
    tab_r0 = A11ySnapshot(**walk("a#x", "input#c", trap="input#c"))
    both_r0 = {"home": msgspec.structs.replace(tab_r0, traps=(both,))}
    assert grade(task, final, both_r0)["a11y-trap@home"].passed
    # R0 was held there by Tab alone (Shift+Tab left it): Shift+Tab holding it is new.
    assert not grade(task, final, {"home": tab_r0})["a11y-trap@home"].passed
    # R0's walk never reached it (cut by its bound before): nothing to compare.
    early = {"home": A11ySnapshot(**walk("a#x", end="limit"))}
    assert grade(task, final, early)["a11y-trap@home"].passed
    # A base held only by Shift+Tab there still moved on by Tab: a Tab trap is charged.
    trapped = {"home": A11ySnapshot(**walk("a#x", "input#c", trap="input#c"))}
    assert not grade(task, trapped, {"home": final["home"]})["a11y-trap@home"].passed


def test_titles_a_base_told_apart_must_stay_apart(task: TaskPackage) -> None:
    def page(title: str, lang: str = "en") -> A11ySnapshot:
        return A11ySnapshot(title=title, lang=lang)

    r0 = {"home": page("Book – Studio"), "about": page("About – Studio")}
    final = {"home": page("Studio", lang=""), "about": page("Studio")}
    got = grade(task, final, r0)
    assert not got["a11y-title@home"].passed and not got["a11y-title@about"].passed
    assert "R0 titled them 'Book – Studio' and 'About – Studio'" in got["a11y-title@home"].observed
    assert "<html lang> is gone (R0 at this state: lang='en')" in got["a11y-title@home"].observed
    # A reference that titles both pages alike makes the collapse debt, not the lang.
    ref = {"home": page("Studio"), "about": page("Studio")}
    both = grade(task, final, r0, ref)
    assert "also state" not in both["a11y-title@home"].observed
    assert not both["a11y-title@home"].passed and both["a11y-title@about"].passed
    # Renamed but distinct passes; a framework's default title does not.
    assert grade(task, {"home": page("Booking"), "about": page("Us")}, r0)["a11y-title@home"].passed
    generic = grade(task, {"home": page("React App"), "about": page("Us")}, r0)
    assert "the title is 'React App' (R0 at this state: 'Book – Studio')" in (
        generic["a11y-title@home"].observed
    )


def test_an_old_snapshot_without_titles_or_regions_adds_no_check(task: TaskPackage) -> None:
    old = {"home": A11ySnapshot(**walk("a#x"))}
    final = {"home": A11ySnapshot(title="", regions=(), **walk("a#x"))}
    got = grade(task, final, old)
    assert "a11y-title@home" not in got and "a11y-announce@home" not in got


def said(text: str, after: int = 1, region: str = "p#status") -> Announcement:
    return Announcement(
        after=after, action="click '#send'", region=region, live="role=status", text=text
    )


def status(text: str = "", region: str = "p#status", live: str = "role=status") -> RegionFinding:
    return RegionFinding(region=region, live=live, text=text)


def test_a_message_is_matched_by_its_words_with_digits_masked(task: TaskPackage) -> None:
    r0 = {
        "sent": A11ySnapshot(
            regions=(status("Booked, order 1042."),),
            announced=(said("Saving…"), said("Booked, order 1042.")),
        )
    }
    # Another order number, and no "Saving…" (only each region's last message counts).
    ok = {"sent": A11ySnapshot(regions=(status("Booked, order 77."),))}
    assert grade(task, ok, r0)["a11y-announce@sent"].passed
    # Still shown, in no live region: the message and its region are charged.
    shown = ("Saving…", "Booked, order 1043.")
    gone = {"sent": A11ySnapshot(regions=(), ids=("p#status",), shown=shown)}
    got = grade(task, gone, r0)["a11y-announce@sent"]
    assert not got.passed and "R0 announced 'Booked, order 1042.'" in got.observed
    assert "the final shows it in no live region" in got.observed
    assert "Saving" not in got.observed
    # Not shown at all (the task shows a validation error instead): content, not charged.
    replaced = {"sent": A11ySnapshot(regions=(), shown=("Enter an email address",))}
    assert grade(task, replaced, r0)["a11y-announce@sent"].passed
    # Reworded by the task: the same region says something after the same action.
    reworded = {"sent": A11ySnapshot(regions=(status(),), announced=(said("All set."),))}
    assert grade(task, reworded, r0)["a11y-announce@sent"].passed
    elsewhere = {
        "sent": A11ySnapshot(
            regions=(status(),), announced=(said("All set.", after=2),), shown=shown
        )
    }
    assert not grade(task, elsewhere, r0)["a11y-announce@sent"].passed
    # A reference that announces something else instead: not charged for the message.
    ref = {"sent": A11ySnapshot(regions=(status("Done."),), announced=(said("Done."),))}
    both = grade(task, gone, r0, ref)["a11y-announce@sent"]
    assert "announced" not in both.observed and "the live region p#status" in both.observed


def test_regions_match_by_element_then_text_then_one_for_one_by_kind(task: TaskPackage) -> None:
    r0 = {"home": A11ySnapshot(regions=(status(), status(region="p#cart", text="2 items")))}
    moved = {
        "home": A11ySnapshot(
            regions=(status(region="div.note"), status(region="span", text="2 items"))
        )
    }
    assert grade(task, moved, r0)["a11y-announce@home"].passed
    # One status region left for two: the empty one, matched by nothing else and still
    # on the page, is no longer live.
    one = {
        "home": A11ySnapshot(regions=(status(region="span", text="2 items"),), ids=("p#status",))
    }
    got = grade(task, one, r0)["a11y-announce@home"]
    assert not got.passed and "the live region p#status (role=status, empty)" in got.observed
    # Gone from the page altogether: content, not an announcement.
    assert grade(task, {**one, "home": msgspec.structs.replace(one["home"], ids=())}, r0)[
        "a11y-announce@home"
    ].passed
    # Two empty status regions, one left: a region of one kind stands for one only.
    two = {"home": A11ySnapshot(regions=(status(), status(region="p#cart")))}
    left = {"home": A11ySnapshot(regions=(status(region="div.note"),), ids=("p#cart",))}
    got = grade(task, left, two)["a11y-announce@home"]
    assert not got.passed and "the live region p#cart (role=status, empty)" in got.observed
    # Announcements are compared at the same state only: not at `new` (nearest: home).
    assert "a11y-announce@new" not in grade(task, {"new": A11ySnapshot(regions=())}, r0)


def test_another_page_shown_at_a_state_is_the_navigation_s_failure(task: TaskPackage) -> None:
    """A link that stopped navigating leaves the final on the home page at `about`: its
    title and live regions are another page's, and neither rule compares them."""
    r0 = {
        "home": A11ySnapshot(title="Book", url="/index.html", regions=(status(),)),
        "about": A11ySnapshot(title="About", url="/about.html", regions=(status(),)),
    }
    final = {
        "home": A11ySnapshot(title="Book", url="/index.html", regions=(status(),)),
        "about": A11ySnapshot(title="Book", url="/index.html"),
    }
    got = grade(task, final, r0)
    assert got["a11y-title@home"].passed and got["a11y-title@about"].passed
    assert "a11y-announce@about" not in got
    # At the right address the same titles are a collapse.
    moved = {**final, "about": A11ySnapshot(title="Book", url="/about.html")}
    assert not grade(task, moved, r0)["a11y-title@about"].passed
