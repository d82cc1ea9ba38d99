"""The fake provider's answer to agents whose only tools run shell commands.

CLI agents such as mini-swe-agent (`bash`), OpenCode (`bash`) and Codex CLI
(`shell` / `shell_command` / `exec_command`) offer tools of their own, not the harness's
`write_file`. The fake plays the reference through the newest unit the conversation
quotes (in the full-spec arm: the whole task) as one shell command that writes each
changed file exactly (`base64 -d`, so any text survives) and removes each deleted one.
Once that command's output is back, it finishes the way the prompt asks: mini-swe-agent's
prompt asks for `echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT` as a command of its own;
any other agent is told "done" in a text reply with no tool call, which ends its turn.

The command goes into the tool's own argument shape, read from its JSON schema: a
string property (`command`, `cmd`) gets the script, an array property (Codex's
`shell`: `["bash", "-lc", ...]`) gets `sh -c` and the script; other required string
properties (OpenCode's `description`) get a short note.
"""

from __future__ import annotations

import base64
import shlex
from collections.abc import Mapping, Sequence
from posixpath import dirname
from typing import Any

from ._reference import ReferenceBook
from ._text import latest_unit
from ._wire import Call, ScriptedTurn

SHELL_TOOLS = ("bash", "shell", "shell_command", "exec_command", "local_shell")
SUBMIT = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
_COMMAND_KEYS = ("command", "cmd", "script")


def shell_tool(tools: Mapping[str, Any]) -> str | None:
    """The shell tool among those offered (name -> JSON schema), when the harness's own
    `write_file` is not offered."""
    if "write_file" in tools:
        return None
    return next((t for t in SHELL_TOOLS if t in tools), None)


def write_script(files: Mapping[str, str | None]) -> str:
    q = shlex.quote
    steps = []
    for path, content in sorted(files.items()):
        if content is None:
            steps.append(f"rm -f -- {q(path)}")
            continue
        data = base64.b64encode(content.encode()).decode()
        parent = dirname(path)
        mkdir = f"mkdir -p -- {q(parent)} && " if parent else ""
        steps.append(f"{mkdir}printf %s {data} | base64 -d > {q(path)}")
    return " && ".join(steps) or "true"


def _arguments(schema: Any, script: str) -> dict[str, Any]:
    params = schema if isinstance(schema, dict) else {}
    props: dict[str, Any] = params.get("properties") or {}
    required: Sequence[str] = params.get("required") or ()
    key = next((k for k in _COMMAND_KEYS if k in props), "command")
    kind = props.get(key, {}).get("type", "string")
    args: dict[str, Any] = {key: ["sh", "-c", script] if kind == "array" else script}
    for name in required:
        if name not in args and props.get(name, {}).get("type") == "string":
            args[name] = "Write the changed files"
    return args


def shell_reply(
    book: ReferenceBook,
    user_texts: Sequence[str],
    tool: str,
    schema: Any,
    calls_made: int,
) -> ScriptedTurn:
    said = "\n".join(user_texts)
    if calls_made == 0:
        found = latest_unit(book, user_texts)
        if found is None:
            return ScriptedTurn(text="I do not recognise this task; no changes.", calls=())
        task = book.tasks[found[0]]
        unit = task.contract.units[found[1]]
        script = write_script(book.changed_files(task, unit.id))
        text = f"Implementing everything through {unit.id}."
        return ScriptedTurn(text=text, calls=(Call(tool, _arguments(schema, script)),))
    if SUBMIT in said and calls_made == 1:
        return ScriptedTurn(
            text="Submitting.", calls=(Call(tool, _arguments(schema, f"echo {SUBMIT}")),)
        )
    return ScriptedTurn(text="Done: the changes are in place.", calls=())
