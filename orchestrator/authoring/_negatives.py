"""`suggest --negatives`: negatives proposed from R0's evidence. One kind so far: a live
region silenced (#53). For each live region R0 has and the reference keeps announced
the same way, with an id to find it by, the negative is the finished reference with the
region's `role` or `aria-live` attribute removed: everything the units ask for is there,
but what the region says after an action is no longer announced, which only the
accessibility continuity rule `a11y-announce` (gate `regression_text`) can see.

The attribute is removed wherever the element is written (a static site repeats its
layout on every page; each file may hold it once). The patch is written against R0's
files, so a region in a file the reference edits is skipped (its text after the
reference is not R0's): such a negative is the author's to write. An element found in no
source file, or twice in one, is skipped too, with why.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..contract import CANARY, CANARY_LINE, TaskPackage

# The files searched for the element: source a site's markup is written in.
SOURCES = (".html", ".htm", ".jsx", ".tsx", ".vue", ".svelte", ".astro", ".js", ".ts")
SKIP_DIRS = {".git", "node_modules", "dist", "build", ".next", ".svelte-kit"}
MAX_BYTES = 1_000_000


@dataclass(frozen=True, slots=True)
class ProposedNegative:
    name: str
    patch: str  # the file's text, canary line first
    toml: str  # the `[[negatives]]` entry to paste


def _evidence(task: TaskPackage, sid: str, side: str) -> dict[str, Any] | None:
    path = task.evidence / side / f"{sid}.anchors.json"
    if not path.is_file():
        return None
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data if data.get("canary") == CANARY else None


def _touched(task: TaskPackage) -> set[str]:
    """The files any reference patch edits."""
    out: set[str] = set()
    for unit in task.contract.units:
        for line in task.reference_patch(unit.id).read_text(encoding="utf-8").splitlines():
            if line.startswith(("--- a/", "+++ b/")):
                out.add(line[6:].strip())
    return out


def _sources(repo: Path) -> list[Path]:
    return [
        p
        for p in sorted(repo.rglob("*"))
        if p.suffix in SOURCES
        and p.is_file()
        and not SKIP_DIRS & set(p.relative_to(repo).parts)
        and p.stat().st_size <= MAX_BYTES
    ]


def _silenced(text: str, region: dict[str, Any], attr: str) -> list[tuple[int, int]]:
    """Where `attr` (with its leading space) sits in each opening tag of the region."""
    spans = []
    for tag in re.finditer(rf"<{re.escape(region['tag'])}\b[^>]*>", text):
        body = tag.group(0)
        if not re.search(rf"""\bid=["'{{]*{re.escape(region["id"])}["'}}]""", body):
            continue
        at = re.search(rf"""\s{re.escape(attr)}=["'][^"']*["']""", body)
        if at:
            spans.append((tag.start() + at.start(), tag.start() + at.end()))
    return spans


def _diff(rel: str, path: Path, span: tuple[int, int]) -> str:
    """The file `rel` with `span` (the attribute) cut out, as a unified diff."""
    before = path.read_text(encoding="utf-8")
    after = before[: span[0]] + before[span[1] :]
    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            f"a/{rel}",
            f"b/{rel}",
        )
    )


def _regions(task: TaskPackage) -> list[dict[str, Any]]:
    """R0's live regions the reference keeps announced the same way, once each."""
    seen: dict[tuple[str, str, str, str], dict[str, Any]] = {}
    for state in task.contract.states:
        ev = _evidence(task, state.id, "r0")
        ref = _evidence(task, state.id, "reference")
        if ev is None or "lives" not in ev:
            continue
        how = {(r["tag"], r["id"], r["role"], r["aria_live"]) for r in (ref or ev).get("lives", [])}
        for r in ev["lives"]:
            key = (r["tag"], r["id"], r["role"], r["aria_live"])
            if key in how:
                seen.setdefault(key, r)
    return list(seen.values())


def suggest_negatives(task: TaskPackage) -> tuple[list[ProposedNegative], list[str]]:
    """The negatives proposed, and what was skipped and why."""
    out: list[ProposedNegative] = []
    skipped: list[str] = []
    regions = _regions(task)
    if not regions:
        return out, ["live regions: none in evidence/r0 (capture)"]
    touched = _touched(task)
    files = {p.relative_to(task.repo).as_posix(): p for p in _sources(task.repo)}
    taken = {n.name for n in task.contract.negatives}
    last = task.contract.units[-1].id
    for r in regions:
        attr, value = ("role", r["role"]) if r["role"] else ("aria-live", r["aria_live"])
        where = f"#{r['id']}" if r["id"] else f"<{r['tag']}>"
        if r["role"] in ("timer", "marquee") or r["aria_live"] == "off":
            continue  # announces nothing: there is nothing to silence
        if not r["id"] or not value:
            skipped.append(f"live region {where}: no id and live attribute to find it by")
            continue
        hits = {
            rel: spans
            for rel, path in files.items()
            if (spans := _silenced(path.read_text(encoding="utf-8", errors="replace"), r, attr))
        }
        if not hits or any(len(spans) > 1 for spans in hits.values()):
            n = sum(len(spans) for spans in hits.values())
            skipped.append(f"live region {where}: {attr}={value!r} found {n} times in a file")
            continue
        edited = sorted(set(hits) & touched)
        if edited:
            skipped.append(
                f"live region {where}: the reference edits {', '.join(edited)} (write it by hand)"
            )
            continue
        name = f"silenced-{r['id']}"
        if name in taken:
            skipped.append(f"{name}: a negative with this name exists")
            continue
        diff = "".join(_diff(rel, files[rel], spans[0]) for rel, spans in sorted(hits.items()))
        why = (
            f"Every request is right, but {where} lost its {attr}={value!r}: what it shows"
            " after an action is no longer announced to screen-reader users, and no"
            " authored check reads it."
        )
        toml = (
            f'[[negatives]]\nname = "{name}"\nexpect_fail = ["regression_text"]\n'
            f'after_unit = "{last}"\nwhy = {json.dumps(why, ensure_ascii=False)}\n'
        )
        out.append(ProposedNegative(name=name, patch=CANARY_LINE + diff, toml=toml))
    return out, skipped
