"""`lint`: findings about a task package that `tasks` accepts but that measures badly.

Each finding is a `warning` (the package measures badly: `lint` exits 1) or a `note`
(worth knowing, never an exit 1 on its own):

- a *health-only* state (no authored check reads it, no state starts `from` it, no check
  compares with it through `changed_from`) is a legitimate design: it grades only the
  state's health (routes, console, network, assets, overflow), which can be the only
  thing that catches a negative (a deleted page, a route answering 500). It is a note;
  removal is advised only when no negative expects a health gate that the state could be
  the only one to see (another state loads the same route at the same viewport with no
  actions: its health is the same);
- a check that cannot discriminate, judged on the captured evidence where the evidence
  can say (`box` and `token` on an anchor: `tag`, `tag#id`, `tag >> nth=N`, failing
  where the page has no such element; `text_contains` on `body` and `text_order` on the
  page text; `links` on the navigation entries, failing where the page has no navigation
  region at all): a preservation check failing on both R0 and the
  reference can never be cleared; a unit check passing on R0 already cannot fail; a
  check with nothing to compare (a `box` with no coordinate, an empty `links`, a
  `text_order` of fewer than two values or a `value` with no `equals`, `contains`,
  `regex` or `checked`) passes trivially;
- a unit whose request is still a placeholder (starts with `TODO`, as `new` and `twin`
  leave it);
- a unit no negative exercises: no negative's `expect_fail` holds a gate of its checks;
- a state where the captured reference's layout shift (`evidence/a11y.json`) is past
  `perf-layout-shift`'s bar over R0's at the same state: `admit` would refuse the
  reference;
- `evidence/a11y.json` captured for other checks than task.toml's: it records, state by
  state, the element each check's selector read (the live-region rule compares against
  it), so a check removed, moved to another state or given another selector since the
  capture makes it stale until `capture` runs again.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Literal

import msgspec

from .contract import (
    CANARY_LINE,
    STATE_HEALTH_GATES,
    Box,
    CheckSpec,
    Contract,
    Links,
    State,
    TaskPackage,
    TextContains,
    TextOrder,
    Token,
    Value,
    resolve_viewport,
)
from .verifier import SHIFT_ALLOWANCE, SHIFT_POOR

Level = Literal["warning", "note"]


class Finding(msgspec.Struct, frozen=True, kw_only=True):
    level: Level
    text: str  # one line naming the state, check or unit

    def __str__(self) -> str:
        return f"{self.level}: {self.text}"


def _text(task: TaskPackage, side: str, state: str) -> str | None:
    path = task.evidence / side / f"{state}.txt"
    if not path.is_file():
        return None
    return " ".join(path.read_text(encoding="utf-8").removeprefix(CANARY_LINE).split())


def _anchors(task: TaskPackage, side: str, state: str) -> dict[str, Any] | None:
    path = task.evidence / side / f"{state}.anchors.json"
    if not path.is_file():
        return None
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _in_order(text: str, values: tuple[str, ...]) -> bool:
    at = 0
    for v in values:
        found = text.find(" ".join(v.split()), at)
        if found < 0:
            return False
        at = found + len(v)
    return True


def holds_on_evidence(task: TaskPackage, check: CheckSpec, side: str) -> bool | None:
    """Whether the check holds on `side`'s evidence (`r0`, `reference`); None when the
    evidence cannot say. `twin --settle` moves into unit 1 what fails on a twin's R0."""
    a = check.assert_
    if isinstance(a, TextContains):
        text = _text(task, side, check.state)
        if text is None or a.selector != "body":
            return None
        return " ".join(a.value.split()) in text
    if isinstance(a, TextOrder):
        text = _text(task, side, check.state)
        return None if text is None else _in_order(text, a.values)
    ev = _anchors(task, side, check.state)
    if ev is None:
        return None
    if isinstance(a, Box):
        hits = [
            x
            for x in ev["anchors"]
            if x["tag"] == a.selector or f"{x['tag']}#{x['id']}" == a.selector
        ]
        if len(hits) == 1 or a.selector in {x["tag"] for x in ev["anchors"]}:
            box = hits[0]["box"]
        elif (first := _anchor(ev, a.selector)) is None:
            return None
        elif first is _NO_MATCH:
            return False  # nothing matches: a box check fails
        else:
            box = first["box"]
        want = {"x": a.x, "y": a.y, "width": a.width, "height": a.height}
        return all(v is None or abs(box[k] - v) <= a.tolerance for k, v in want.items())
    if isinstance(a, Token):
        return _token_on(ev, a)
    if isinstance(a, Links) and a.entries and ev.get("navs") == [] and _names_a_nav(a.selector):
        return False  # no navigation region on the page at all
    if isinstance(a, Links) and a.selector == "nav" and ev.get("navs"):
        got = iter((" ".join(t.split()), h) for t, h in ev["navs"][0]["links"])
        return all(any(t == e.text and e.href in (h,) for t, h in got) for e in a.entries)
    return None


# The tags whose every element `capture` records as an anchor (verifier's `ANCHORS`), and
# the selectors naming one of them that the evidence can resolve: `tag`, `tag#id`,
# `tag >> nth=N` (what `suggest` writes).
_ANCHOR_TAGS = frozenset({"h1", "h2", "h3", "nav", "header", "footer", "main", "button"})
_ANCHOR_SELECTOR = re.compile(r"^([a-z0-9]+)(?:#([A-Za-z0-9_-]+))?(?: >> nth=(\d+))?$")
_NO_MATCH: dict[str, Any] = {}  # the selector matches no element of the page


def _anchor(ev: dict[str, Any], selector: str) -> dict[str, Any] | None:
    """The anchor `selector` reads first (`_NO_MATCH`: none), None when it cannot say."""
    m = _ANCHOR_SELECTOR.match(selector)
    if m is None or m[1] not in _ANCHOR_TAGS:
        return None
    hits = [x for x in ev["anchors"] if x["tag"] == m[1] and m[2] in (None, x["id"])]
    nth = int(m[3] or 0)
    return hits[nth] if nth < len(hits) else _NO_MATCH


def _token_on(ev: dict[str, Any], a: Token) -> bool | None:
    """A token check on an anchor: no such element fails; the colour recorded as
    following the token holds; recorded as following none although capture saw the
    token on this page fails (capture tests `color` and `background-color` alone)."""
    first = _anchor(ev, a.selector)
    if first is _NO_MATCH:
        return False
    if first is None or a.property not in ("color", "background-color"):
        return None
    tokens = ev.get("tokens", [])
    if any(
        t["index"] == first["index"] and t["property"] == a.property and t["token"] == a.token
        for t in tokens
    ):
        return True
    return False if any(t["token"] == a.token for t in tokens) else None


def _names_a_nav(selector: str) -> bool:
    """Whether `selector` can match only a navigation region (`nav`, `header nav`,
    `role=navigation[...]`): on a page with none, it matches nothing."""
    last = selector.split(">>")[-1].split()[-1] if selector.strip() else ""
    return last == "nav" or selector.startswith("role=navigation")


def _trivial(check: CheckSpec) -> str:
    a = check.assert_
    if isinstance(a, Box) and all(v is None for v in (a.x, a.y, a.width, a.height)):
        return "a box with no coordinate"
    if isinstance(a, Links) and not a.entries:
        return "links with no entry"
    if isinstance(a, TextOrder) and len(a.values) < 2:
        return "a text order of fewer than two values"
    if isinstance(a, Value) and all(v is None for v in (a.equals, a.contains, a.regex, a.checked)):
        return "a value with nothing to compare"
    return ""


def _same_load(a: State, b: State) -> bool:
    """Whether `b`'s health is `a`'s: the same route at the same viewport, neither acted on."""
    return (
        a.route == b.route
        and resolve_viewport(a.viewport) == resolve_viewport(b.viewport)
        and not (a.from_ or a.actions or b.from_ or b.actions)
        and a.status == b.status
    )


def _health_only(c: Contract, state: State) -> str:
    """The note on a state no check reads: removal advised only when no negative needs it."""
    needs = [
        f"{n.name} (expects {', '.join(g for g in n.expect_fail if g in STATE_HEALTH_GATES)})"
        for n in c.negatives
        if STATE_HEALTH_GATES & set(n.expect_fail)
    ]
    twin = next((t.id for t in c.states if t.id != state.id and _same_load(state, t)), None)
    base = f"state {state.id}: no check uses it: it grades only its health"
    if needs and twin is None:
        return f"{base}, and may be the only state that catches {'; '.join(needs)}: keep it"
    if twin is not None:
        return f"{base}, the same as state {twin}'s (same route and viewport): it can go"
    return f"{base} (no negative expects a health gate): keep it only if that health matters"


def lint(task: TaskPackage) -> list[Finding]:
    """The findings, each naming the state, check or unit."""
    c = task.contract
    used = {k.state for k in c.checks} | {k.changed_from for k in c.checks if k.changed_from}
    used |= {s.from_ for s in c.states if s.from_}
    notes = [Finding(level="note", text=_health_only(c, s)) for s in c.states if s.id not in used]
    return notes + [Finding(level="warning", text=t) for t in _warnings(task)]


def _one_element_order(check: CheckSpec) -> bool:
    """A `text_order` read in some elements, not the whole page: the page's text in order
    says nothing of theirs (a unit check on a home page's box whose walks R0 lists, in
    the same order, elsewhere on the page), so its holding on R0 is no warning."""
    return isinstance(check.assert_, TextOrder) and check.assert_.selector != "body"


def _warnings(task: TaskPackage) -> list[str]:
    c = task.contract
    out: list[str] = []
    owned = c.unit_check_ids()
    for k in c.checks:
        if why := _trivial(k):
            out.append(f"check {k.id}: cannot fail ({why})")
            continue
        r0 = holds_on_evidence(task, k, "r0")
        ref = holds_on_evidence(task, k, "reference")
        if k.id in owned:
            if r0 is True and not _one_element_order(k):
                out.append(f"check {k.id}: passes on R0 already (evidence/r0): cannot fail")
        elif r0 is False and ref is False:
            out.append(f"check {k.id}: fails on R0 and on the reference: it can never pass")
        elif r0 is False:
            out.append(f"check {k.id}: preservation check failing on R0 (evidence/r0)")
    for u in c.units:
        if u.request.lstrip().startswith("TODO"):
            out.append(f"unit {u.id}: its request is still a TODO: write what the user asks for")
    gates = {k.id: k.gate for k in c.checks}
    exercised = {g for n in c.negatives for g in n.expect_fail}
    for u in c.units:
        if not exercised & {gates[cid] for cid in u.checks if cid in gates}:
            out.append(f"unit {u.id}: no negative expects a gate of its checks to fail")
    out += _stale_a11y(task)
    out += _shifting_reference(task)
    return out


def _a11y_states(task: TaskPackage, side: str) -> dict[str, Any]:
    """`evidence/a11y.json`'s snapshots of one side, by state ({} when there is none or it
    is malformed: `capture`, `verify` and `admit` say so)."""
    try:
        data = json.loads((Path(task.evidence) / "a11y.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    states = data.get(side) if isinstance(data, dict) else None
    return states if isinstance(states, dict) else {}


def _shift(snap: Any) -> float | None:
    value = snap.get("layout_shift") if isinstance(snap, dict) else None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _shifting_reference(task: TaskPackage) -> list[str]:
    """A state where the captured reference shifts its layout past `perf-layout-shift`'s
    bar over R0's: `admit` would refuse the reference (a list filtered after the first
    paint, an image without its size), after a full run."""
    r0 = _a11y_states(task, "r0")
    out = []
    for sid, snap in _a11y_states(task, "reference").items():
        ref, base = _shift(snap), _shift(r0.get(sid))
        if ref is None or base is None:
            continue
        if ref > SHIFT_POOR and ref - base > SHIFT_ALLOWANCE:
            out.append(
                f"state {sid}: the reference's captured layout shift is {ref:.2f}, R0's"
                f" {base:.2f}: admit fails perf-layout-shift@{sid} (render the content"
                " before the first paint, give images their size)"
            )
    return out


def _stale_a11y(task: TaskPackage) -> list[str]:
    """Where `evidence/a11y.json` read a check that task.toml no longer has at that state
    with that selector (one line for the file, naming the first few)."""
    now = {(k.state, k.id): getattr(k.assert_, "selector", None) for k in task.contract.checks}
    stale: list[str] = []
    for side in ("r0", "reference"):
        for sid, snap in _a11y_states(task, side).items():
            reads = snap.get("live") if isinstance(snap, dict) else None
            for read in reads if isinstance(reads, list) else ():
                if not isinstance(read, dict):
                    continue  # not a reading: `admit` and `verify` reject the file
                key, sel = (sid, read.get("check")), read.get("selector")
                if key not in now:
                    stale.append(f"{side}/{sid}: check {key[1]} is gone")
                elif now[key] != sel:
                    stale.append(f"{side}/{sid}: check {key[1]} read {sel!r}, now {now[key]!r}")
    if not stale:
        return []
    unique = list(dict.fromkeys(stale))
    more = f"; {len(unique) - 3} more" if len(unique) > 3 else ""
    shown = "; ".join(unique[:3])
    return [f"evidence/a11y.json: captured for other checks ({shown}{more}): run capture again"]


def evidence_missing(task: TaskPackage) -> bool:
    return not (Path(task.evidence) / "r0").is_dir()
