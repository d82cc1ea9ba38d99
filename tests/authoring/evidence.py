"""Captured evidence written by hand for the authoring kit's tests."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from orchestrator.contract import CANARY


def _anchor(tag: str, index: int) -> dict[str, Any]:
    box = {"x": 0, "y": 40 * index, "width": 300, "height": 30}
    return {"tag": tag, "id": "", "index": index, "text": f"{tag} {index}", "box": box}


def token_evidence(
    root: Path,
    side: str,
    sid: str,
    tokens: list[tuple[int, str, str, str]],
    extra: Sequence[tuple[str, int]] = (),
) -> None:
    """A state's `*.anchors.json` on `side`: a header and three h2s, with `tokens`
    (index, tag, property, token) read on them, and the `extra` (tag, index) anchors."""
    anchors = [_anchor("header", 0), _anchor("h2", 1), _anchor("h2", 2), _anchor("h2", 3)]
    anchors += [_anchor(tag, index) for tag, index in extra]
    data = {
        "canary": CANARY,
        "state": sid,
        "anchors": anchors,
        "navs": [],
        "lives": [],
        "tokens": [
            {"index": i, "tag": tag, "id": "", "property": prop, "token": token}
            for i, tag, prop, token in tokens
        ],
    }
    path = root / "evidence" / side / f"{sid}.anchors.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
