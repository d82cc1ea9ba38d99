"""The LLM agent's tools: their JSON schemas, and running one call against a `Workspace`.

A malformed call (invalid JSON, unknown tool, missing or non-string argument) and a
refused file operation become a tool *error* the model can read and act on; they are
part of the conversation, not exceptions. A malformed call also names its slip (the
model's mistake, logged as an event); a refused file operation is no slip: the call
was well formed.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ..llm import ImagePart, ToolCall, ToolSpec
from ..workspace import Workspace, WorkspaceError

MAX_LISTED = 2000


@dataclass(frozen=True, slots=True)
class _Tool:
    name: str
    description: str
    required: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()

    def spec(self) -> ToolSpec:
        props = {a: {"type": "string"} for a in (*self.required, *self.optional)}
        schema = {"type": "object", "properties": props, "required": list(self.required)}
        return ToolSpec(name=self.name, description=self.description, parameters=schema)


_TOOLS = (
    _Tool("list_files", "List the repository's files, optionally under a folder.", (), ("under",)),
    _Tool("read_file", "Read one file (path relative to the repository root).", ("path",)),
    _Tool(
        "search", "Regex search over file lines; returns path:line: text.", ("pattern",), ("under",)
    ),
    _Tool(
        "edit",
        "Replace the one exact occurrence of `search` in a file by `replace`. "
        "`search` must occur exactly once: include enough surrounding lines.",
        ("path", "search", "replace"),
    ),
    _Tool("write_file", "Create or overwrite a file with the full content.", ("path", "content")),
    _Tool("delete_file", "Delete one file (path relative to the repository root).", ("path",)),
    _Tool("ask_user", "Ask the user a clarifying question; ends your turn.", ("question",)),
    _Tool("view_page", "Look at screenshots of the site as it was at the last check."),
    _Tool("done", "Say the current request is finished; ends your turn.", (), ("summary",)),
)
_VISION_ONLY = frozenset({"view_page"})
_SEARCH_REPLACE_ONLY = frozenset({"edit"})
EditFormat = Literal["search_replace", "whole_file"]


def _offered(*, vision: bool, edit_format: EditFormat) -> dict[str, _Tool]:
    """The tools a model is offered (and may call) under the vision and edit-format options."""
    return {
        t.name: t
        for t in _TOOLS
        if (vision or t.name not in _VISION_ONLY)
        and (edit_format == "search_replace" or t.name not in _SEARCH_REPLACE_ONLY)
    }


def tool_specs(*, vision: bool, edit_format: EditFormat = "search_replace") -> tuple[ToolSpec, ...]:
    return tuple(t.spec() for t in _offered(vision=vision, edit_format=edit_format).values())


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    content: str
    is_error: bool = False
    images: tuple[ImagePart, ...] = ()
    ends: Literal["question", "done"] | None = None
    slip: Literal["", "bad_arguments", "unknown_tool"] = ""  # a malformed call


def _error(text: str) -> ToolOutcome:
    return ToolOutcome(content=f"error: {text}", is_error=True)


def _malformed(slip: Literal["bad_arguments", "unknown_tool"], text: str) -> ToolOutcome:
    return ToolOutcome(content=f"error: {text}", is_error=True, slip=slip)


def _arguments(call: ToolCall, tools: dict[str, _Tool]) -> dict[str, str] | ToolOutcome:
    tool = tools.get(call.name)
    if tool is None:
        offered = ", ".join(sorted(tools))
        return _malformed("unknown_tool", f"unknown tool {call.name!r}; available: {offered}")
    try:
        args: Any = json.loads(call.arguments_json or "{}")
    except ValueError as exc:
        return _malformed(
            "bad_arguments", f"arguments of {call.name} are not valid JSON ({exc}); send an object"
        )
    if not isinstance(args, dict):
        return _malformed("bad_arguments", f"arguments of {call.name} must be a JSON object")
    for name in (*tool.required, *tool.optional):
        if name in args and not isinstance(args[name], str):
            return _malformed("bad_arguments", f"argument {name!r} of {call.name} must be a string")
    missing = [a for a in tool.required if a not in args]
    if missing:
        return _malformed(
            "bad_arguments", f"{call.name} is missing required argument(s): {', '.join(missing)}"
        )
    return {k: v for k, v in args.items() if isinstance(v, str)}


async def run_tool(
    call: ToolCall,
    ws: Workspace,
    *,
    vision: bool,
    screenshots: Sequence[Path],
    edit_format: EditFormat = "search_replace",
) -> ToolOutcome:
    tools = _offered(vision=vision, edit_format=edit_format)
    args = _arguments(call, tools)
    if isinstance(args, ToolOutcome):
        return args
    try:
        return await _dispatch(call.name, args, ws, screenshots)
    except WorkspaceError as exc:  # PathRefused says why; the model is told verbatim
        return _error(str(exc))


async def _dispatch(
    name: str, a: dict[str, str], ws: Workspace, shots: Sequence[Path]
) -> ToolOutcome:
    if name == "list_files":
        files = await ws.list_files(a.get("under", ""))
        more = f"\n... {len(files) - MAX_LISTED} more" if len(files) > MAX_LISTED else ""
        return ToolOutcome(content="\n".join(files[:MAX_LISTED]) + more or "(no files)")
    if name == "read_file":
        return ToolOutcome(content=await ws.read_file(a["path"]))
    if name == "search":
        hits = await ws.search(a["pattern"], a.get("under", ""))
        return ToolOutcome(
            content="\n".join(f"{h.path}:{h.line}: {h.text}" for h in hits) or "(no hits)"
        )
    if name == "edit":
        await ws.edit(a["path"], a["search"], a["replace"])
        return ToolOutcome(content=f"edited {a['path']}")
    if name == "write_file":
        await ws.write_file(a["path"], a["content"])
        return ToolOutcome(content=f"wrote {a['path']} ({len(a['content'])} characters)")
    if name == "delete_file":
        await ws.delete_file(a["path"])
        return ToolOutcome(content=f"deleted {a['path']}")
    if name == "ask_user":
        return ToolOutcome(
            content="Question sent; the answer comes as the next message.", ends="question"
        )
    if name == "view_page":
        return _view_page(shots)
    return ToolOutcome(content="ok", ends="done")


def _view_page(shots: Sequence[Path]) -> ToolOutcome:
    if not shots:
        return ToolOutcome(
            content="No screenshots yet: they are taken after each check of your work."
        )
    names = ", ".join(p.stem for p in shots)
    images = tuple(ImagePart.from_file(p) for p in shots)
    return ToolOutcome(content=f"{len(shots)} screenshot(s): {names}", images=images)
