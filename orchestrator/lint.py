"""`lint`: warnings about a task package that `tasks` accepts but that measures badly.

- a state no check uses (no authored check reads it, no state starts `from` it, no
  check compares with it through `changed_from`): it costs a replay and grades only
  health;
- a check that cannot discriminate, judged on the captured evidence where the evidence
  can say (`box` on an anchor's box, `text_contains` on `body` and `text_order` on the page text,
  `links` on the navigation entries): a preservation check failing on both R0 and the
  reference can never be cleared; a unit check passing on R0 already cannot fail; a
  check with nothing to compare (a `box` with no coordinate, an empty `links` or a
  `text_order` of fewer than two values) passes trivially;
- a unit no negative exercises: no negative's `expect_fail` holds a gate of its checks.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .contract import CANARY_LINE, Box, CheckSpec, Links, TaskPackage, TextContains, TextOrder


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


def _on_evidence(task: TaskPackage, check: CheckSpec, side: str) -> bool | None:
    """Whether the check holds on `side`'s evidence; None when the evidence cannot say."""
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
        if len(hits) != 1 and a.selector not in {x["tag"] for x in ev["anchors"]}:
            return None
        box = hits[0]["box"]
        want = {"x": a.x, "y": a.y, "width": a.width, "height": a.height}
        return all(v is None or abs(box[k] - v) <= a.tolerance for k, v in want.items())
    if isinstance(a, Links) and a.selector == "nav" and ev.get("navs"):
        got = iter((" ".join(t.split()), h) for t, h in ev["navs"][0]["links"])
        return all(any(t == e.text and e.href in (h,) for t, h in got) for e in a.entries)
    return None


def _trivial(check: CheckSpec) -> str:
    a = check.assert_
    if isinstance(a, Box) and all(v is None for v in (a.x, a.y, a.width, a.height)):
        return "a box with no coordinate"
    if isinstance(a, Links) and not a.entries:
        return "links with no entry"
    if isinstance(a, TextOrder) and len(a.values) < 2:
        return "a text order of fewer than two values"
    return ""


def lint(task: TaskPackage) -> list[str]:
    """One warning per line, each naming the state, check or unit."""
    c = task.contract
    out: list[str] = []
    used = {k.state for k in c.checks} | {k.changed_from for k in c.checks if k.changed_from}
    used |= {s.from_ for s in c.states if s.from_}
    out += [f"state {s.id}: no check uses it" for s in c.states if s.id not in used]
    owned = c.unit_check_ids()
    for k in c.checks:
        if why := _trivial(k):
            out.append(f"check {k.id}: cannot fail ({why})")
            continue
        r0 = _on_evidence(task, k, "r0")
        ref = _on_evidence(task, k, "reference")
        if k.id in owned:
            if r0 is True:
                out.append(f"check {k.id}: passes on R0 already (evidence/r0): cannot fail")
        elif r0 is False and ref is False:
            out.append(f"check {k.id}: fails on R0 and on the reference: it can never pass")
        elif r0 is False:
            out.append(f"check {k.id}: preservation check failing on R0 (evidence/r0)")
    gates = {k.id: k.gate for k in c.checks}
    exercised = {g for n in c.negatives for g in n.expect_fail}
    for u in c.units:
        if not exercised & {gates[cid] for cid in u.checks if cid in gates}:
            out.append(f"unit {u.id}: no negative expects a gate of its checks to fail")
    return out


def evidence_missing(task: TaskPackage) -> bool:
    return not (Path(task.evidence) / "r0").is_dir()
