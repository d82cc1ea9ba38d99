"""`suggest`: propose preservation checks from R0's captured evidence (and the
reference's, when captured), as TOML for the author to review."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..contract import CANARY, TaskPackage

# How `suggest` says a proposal was dropped because task.toml has its check already.
EXISTS = "a check with this id exists"


def _q(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)


def _anchor_selector(a: dict[str, Any], anchors: list[dict[str, Any]]) -> str:
    if a["id"]:
        return f"{a['tag']}#{a['id']}"
    same = [b for b in anchors if b["tag"] == a["tag"]]
    nth = same.index(a)
    return a["tag"] if len(same) == 1 else f"{a['tag']} >> nth={nth}"


def _evidence(task: TaskPackage, sid: str, side: str = "r0") -> dict[str, Any] | None:
    path = task.evidence / side / f"{sid}.anchors.json"
    if not path.is_file():
        return None
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    if data.get("canary") != CANARY:
        return None
    return data


def _check(cid: str, gate: str, state: str, describe: str, assertion: str) -> str:
    return (
        f'[[checks]]\nid = "{cid}"\ngate = "{gate}"\nstate = "{state}"\n'
        f"describe = {_q(describe)}\nassert = {assertion}\n"
    )


@dataclass
class _Proposals:
    """The checks proposed so far (TOML), and what was skipped and why."""

    taken: set[str]  # check ids the task has, or that were proposed
    out: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    # (route, tag#id, property, token) a token check was proposed for: one rule of the
    # stylesheet, read once a page, not on every repeated heading nor at each viewport.
    tokens: dict[tuple[str, str, str, str], str] = field(default_factory=dict)

    def add(self, cid: str, gate: str, state: str, describe: str, assertion: str) -> None:
        if cid in self.taken:
            self.skipped.append(f"{cid}: {EXISTS}")
            return
        self.taken.add(cid)
        self.out.append(_check(cid, gate, state, describe, assertion))


def suggest(task: TaskPackage, *, nav_boxes: bool = False) -> tuple[str, list[str]]:
    """Preservation checks proposed from R0's evidence, as TOML; and what was skipped.

    A preservation check must hold on R0 and on the finished reference, so when
    `evidence/reference` exists only what it keeps is proposed: headings still present
    in the same order, anchor boxes within the tolerance, identical navigation entries,
    colours that still follow the same token, live regions announced the same way (at
    every state, those reached by actions too: evidence captured before live regions
    were recorded proposes none, and says so). A navigation's box only with `nav_boxes`:
    its entries are checked already, and a negative that drops one would fail
    `visual_anchors` through the box too (every author so far deleted them by hand).
    """
    c = task.contract
    props = _Proposals(taken={k.id for k in c.checks})
    for state in c.states:
        sid = state.id
        ev = _evidence(task, sid)
        if ev is None:
            props.skipped.append(f"{sid}: no evidence/r0/{sid}.anchors.json (run capture)")
            continue
        ref = _evidence(task, sid, "reference")
        # Announcements matter most after actions (a confirmation, an error summary).
        _lives(props, sid, ev, ref)
        if state.actions or state.from_:
            continue  # the rest is read on loaded pages; actions are the units' business
        _headings(props, sid, ev, ref)
        _boxes(props, sid, ev, ref, nav_boxes)
        _navs(props, sid, ev, ref)
        _tokens(props, sid, state.route, ev, ref)
    return "\n".join(props.out), props.skipped


Evidence = dict[str, Any]  # a state's `*.anchors.json` (R0's, or the reference's)


def _headings(props: _Proposals, sid: str, ev: Evidence, ref: Evidence | None) -> None:
    """R0's headings the reference keeps, in order."""
    anchors: list[dict[str, Any]] = ev["anchors"]
    ref_anchors: list[dict[str, Any]] = ref["anchors"] if ref else anchors
    ref_heads = [a["text"] for a in ref_anchors if a["tag"] in ("h1", "h2", "h3")]
    heads: list[str] = []
    at = 0
    for a in anchors:
        if a["tag"] in ("h1", "h2", "h3") and a["text"] and a["text"] in ref_heads[at:]:
            at = ref_heads.index(a["text"], at) + 1
            heads.append(a["text"])
    if heads:
        values = ", ".join(_q(h) for h in heads)
        props.add(
            f"keep-copy-{sid}",
            "regression_text",
            sid,
            "The page keeps its headings, in order.",
            f'{{ kind = "text_order", selector = "h1, h2, h3", values = [{values}] }}',
        )


def _boxes(
    props: _Proposals, sid: str, ev: Evidence, ref: Evidence | None, nav_boxes: bool
) -> None:
    """The boxes of the page's landmarks (h1, header, footer; nav with `nav_boxes`) the
    reference keeps."""
    anchors: list[dict[str, Any]] = ev["anchors"]
    ref_anchors: list[dict[str, Any]] = ref["anchors"] if ref else anchors
    tags = ("h1", "header", "nav", "footer") if nav_boxes else ("h1", "header", "footer")
    for a in anchors:
        if a["tag"] not in tags or a["box"]["width"] < 1:
            continue
        b = a["box"]
        sel = _anchor_selector(a, anchors)
        same = [r for r in ref_anchors if r["tag"] == a["tag"] and r["id"] == a["id"]]
        nth = [x for x in anchors if x["tag"] == a["tag"] and x["id"] == a["id"]].index(a)
        kept = same[nth]["box"] if nth < len(same) else None
        if kept is None or any(abs(kept[k] - b[k]) > 4 for k in b):
            props.skipped.append(f"{sid}: {sel} box: the reference moves it")
            continue
        props.add(
            f"keep-{a['tag']}-box-{sid}" + (f"-{a['index']}" if a["tag"] == "nav" else ""),
            "visual_anchors",
            sid,
            f"The {a['tag']} keeps its place and size.",
            f'{{ kind = "box", selector = {_q(sel)}, x = {b["x"]:.0f}, y = {b["y"]:.0f},'
            f" width = {b['width']:.0f}, height = {b['height']:.0f}, tolerance = 4 }}",
        )


def _navs(props: _Proposals, sid: str, ev: Evidence, ref: Evidence | None) -> None:
    """The navigations whose entries the reference keeps, unchanged."""
    ref_navs = {n["index"]: n for n in (ref or ev).get("navs", [])}
    for n in ev.get("navs", []):
        if not n["links"]:
            continue
        if ref_navs.get(n["index"], {}).get("links") != n["links"]:
            props.skipped.append(f"{sid}: navigation {n['index']}: the reference changes it")
            continue
        sel = f'role=navigation[name="{n["label"]}"]' if n["label"] else "nav"
        entries = ", ".join(f"{{ text = {_q(t)}, href = {_q(h)} }}" for t, h in n["links"])
        props.add(
            f"keep-nav-{sid}-{n['index']}",
            "navigation",
            sid,
            "The navigation keeps its entries and targets, in order.",
            f'{{ kind = "links", selector = {_q(sel)}, entries = [{entries}] }}',
        )
        if not n["label"]:
            break  # `nav` matches the first one only


def _tokens(props: _Proposals, sid: str, route: str, ev: Evidence, ref: Evidence | None) -> None:
    """The anchors' colours that follow a design token the reference keeps: one check a
    route, tag, property and token (the first state and anchor that shows it); the
    repeats are skipped and named."""
    anchors: list[dict[str, Any]] = ev["anchors"]
    ref_tokens = [
        (r["tag"], r["id"], r["property"], r["token"]) for r in (ref or ev).get("tokens", [])
    ]
    for t in ev.get("tokens", []):
        if t["index"] >= len(anchors):
            continue
        if (t["tag"], t["id"], t["property"], t["token"]) not in ref_tokens:
            props.skipped.append(f"{sid}: {t['token']} on {t['tag']}: not kept by the reference")
            continue
        a = anchors[t["index"]]
        sel = _anchor_selector(a, anchors)
        prop = t["property"]
        rule = (route, f"{t['tag']}#{t['id']}", prop, t["token"])  # an id: its own rule
        if rule in props.tokens:
            props.skipped.append(
                f"{sid}: {sel} {prop} follows {t['token']}: proposed once for {route}"
                f" ({props.tokens[rule]})"
            )
            continue
        props.tokens[rule] = f"{sid} {sel}"
        props.add(
            f"keep-token-{sid}-{a['tag']}{t['index']}-{prop}",
            "design_tokens",
            sid,
            f"The {a['tag']}'s {prop} still follows {t['token']}.",
            f'{{ kind = "token", selector = {_q(sel)}, property = "{prop}",'
            f' token = "{t["token"]}" }}',
        )


def _live_selector(region: dict[str, Any], regions: list[dict[str, Any]]) -> str:
    if region["id"]:
        return f"#{region['id']}"
    same = [r for r in regions if r["tag"] == region["tag"] and not r["id"]]
    nth = same.index(region)
    return region["tag"] if len(same) == 1 else f"{region['tag']}:not([id]) >> nth={nth}"


def _lives(props: _Proposals, sid: str, ev: Evidence, ref: Evidence | None) -> None:
    """R0's live regions (`aria-live`, `role=status|alert|log|timer|marquee`, `<output>`)
    the reference keeps announced the same way: a check that each still is."""
    if "lives" not in ev:
        props.skipped.append(f"{sid}: live regions: evidence captured before they were (capture)")
        return
    regions: list[dict[str, Any]] = ev["lives"]
    how = [(r["tag"], r["id"], r["role"], r["aria_live"]) for r in (ref or ev).get("lives", [])]
    for i, region in enumerate(regions):
        sel = _live_selector(region, regions)
        if (region["tag"], region["id"], region["role"], region["aria_live"]) not in how:
            props.skipped.append(f"{sid}: live region {sel}: the reference changes it")
            continue
        if region["role"]:
            name, value = "role", region["role"]
        elif region["aria_live"]:
            name, value = "aria-live", region["aria_live"]
        else:  # <output>: announced by its tag
            name, value = "", ""
        assertion = (
            f'{{ kind = "attribute", selector = {_q(sel)}, name = "{name}", equals = {_q(value)} }}'
            if name
            else f'{{ kind = "exists", selector = {_q(sel)} }}'
        )
        what = f"{name}={value}" if name else f"an <{region['tag']}>"
        props.add(
            f"keep-live-{sid}-{i}",
            "a11y",
            sid,
            f"The live region {sel} is still announced ({what}).",
            assertion,
        )
