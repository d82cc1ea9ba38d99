"""The fake's OpenAI Responses API (Codex CLI's wire) and its shell-agent script.

The official `openai` SDK parses `/v1/responses` answers and stream events into typed
objects and rebuilds the final response from the events, so it judges the fake's
fidelity; the shell script the fake hands to agents such as mini-swe-agent, OpenCode and
Codex is run by a real `sh` on a copy of the task's repo and must leave the reference.
"""

from __future__ import annotations

import filecmp
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import openai
import pytest

from orchestrator.contract import load_task
from orchestrator.llm import FakeProvider, Fault

pytestmark = pytest.mark.anyio
KEY = "sk-pwb-responses-test"
FIXTURES = Path(__file__).parent / "fixtures"
SHELL_TOOL = {  # Codex CLI's classic `shell` tool: an argv array
    "type": "function",
    "name": "shell",
    "description": "Runs a shell command and returns its output.",
    "parameters": {
        "type": "object",
        "properties": {
            "command": {"type": "array", "items": {"type": "string"}},
            "workdir": {"type": "string"},
        },
        "required": ["command"],
    },
}
BASH_TOOL = {  # mini-swe-agent's / OpenCode's: one command string (+ a description)
    "type": "function",
    "function": {
        "name": "bash",
        "parameters": {
            "type": "object",
            "properties": {"command": {"type": "string"}, "description": {"type": "string"}},
            "required": ["command", "description"],
        },
    },
}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # the SDK's async client


def full_spec(task_dir: Path) -> str:
    task = load_task(task_dir)
    return "Do all of this:\n" + "\n".join(u.request for u in task.contract.units)


def oai(fake: FakeProvider) -> Any:
    return openai.AsyncOpenAI(base_url=fake.base_url, api_key=KEY, max_retries=0)


async def test_responses_create_and_stream_agree_and_parse(tmp_path: Path) -> None:
    task_dir = FIXTURES / "tiny-site"
    ask = [{"type": "message", "role": "user", "content": full_spec(task_dir)}]
    async with FakeProvider(task_dir=task_dir, api_key=KEY) as fake:
        client = oai(fake)
        whole = await client.responses.create(
            model="m", instructions="be brief", input=ask, tools=[SHELL_TOOL]
        )
        raw = await client.responses.create(model="m", input=ask, tools=[SHELL_TOOL], stream=True)
        events = [e async for e in raw]
        async with client.responses.stream(model="m", input=ask, tools=[SHELL_TOOL]) as stream:
            final = await stream.get_final_response()
        await client.close()
    assert whole.status == "completed" and whole.object == "response"
    call = next(o for o in whole.output if o.type == "function_call")
    args = json.loads(call.arguments)
    assert call.name == "shell" and args["command"][:2] == ["sh", "-c"]
    assert whole.output_text.startswith("Implementing everything through")
    assert whole.usage is not None and whole.usage.input_tokens > 0
    kinds = [e.type for e in events]
    assert kinds[:2] == ["response.created", "response.in_progress"]
    assert kinds[-1] == "response.completed" and kinds.count("response.completed") == 1
    assert [e.sequence_number for e in events] == list(range(len(events)))
    assert "response.function_call_arguments.delta" in kinds
    assert "response.output_text.delta" in kinds
    deltas = "".join(e.delta for e in events if e.type == "response.function_call_arguments.delta")
    assert json.loads(deltas) == args
    # The SDK rebuilt the same response from the events alone.
    rebuilt = next(o for o in final.output if o.type == "function_call")
    assert rebuilt.arguments == call.arguments and final.output_text == whole.output_text
    assert final.usage is not None and final.usage.output_tokens == whole.usage.output_tokens


async def test_responses_after_the_call_output_it_finishes_in_text() -> None:
    task_dir = FIXTURES / "tiny-site"
    ask: list[Any] = [{"type": "message", "role": "user", "content": full_spec(task_dir)}]
    async with FakeProvider(task_dir=task_dir) as fake:
        client = oai(fake)
        first = await client.responses.create(model="m", input=ask, tools=[SHELL_TOOL])
        call = next(o for o in first.output if o.type == "function_call")
        ask += [
            {"type": "function_call", "call_id": call.call_id, "name": "shell",
             "arguments": call.arguments},
            {"type": "function_call_output", "call_id": call.call_id, "output": "ok"},
        ]  # fmt: skip
        second = await client.responses.create(model="m", input=ask, tools=[SHELL_TOOL])
        await client.close()
    assert [o.type for o in second.output] == ["message"]
    assert second.output_text.startswith("Done")


async def test_responses_errors_parse_as_the_sdk_expects() -> None:
    faults = [
        Fault(kind="no_credit"),
        Fault(kind="stream_error", message="upstream died"),
    ]
    async with FakeProvider(api_key=KEY, faults=faults) as fake:
        client = oai(fake)
        with pytest.raises(openai.RateLimitError) as quota:
            await client.responses.create(model="m", input="hi")
        stream = await client.responses.create(model="m", input="hi", stream=True)
        kinds = [e.type async for e in stream]
        bad = openai.AsyncOpenAI(base_url=fake.base_url, api_key="sk-wrong", max_retries=0)
        with pytest.raises(openai.AuthenticationError):
            await bad.responses.create(model="m", input="hi")
        with pytest.raises(openai.BadRequestError, match="input"):
            await client.post("/responses", body={"model": "m"}, cast_to=object)
        await client.close()
        await bad.close()
    assert quota.value.code == "insufficient_quota"
    assert kinds[-1] == "response.failed" and "response.completed" not in kinds


@pytest.mark.parametrize("dialect", ["chat", "responses"])
async def test_the_shell_script_leaves_the_reference(tmp_path: Path, dialect: str) -> None:
    """Run by a real sh in a copy of the repo, the fake's one command writes exactly the
    reference's files; a second request (after the tool output) finishes."""
    task_dir = FIXTURES / "tiny-site"
    work = tmp_path / "work"
    shutil.copytree(task_dir / "repo", work)
    prompt = full_spec(task_dir)
    async with FakeProvider(task_dir=task_dir) as fake:
        client = oai(fake)
        if dialect == "chat":
            done = await client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": prompt}], tools=[BASH_TOOL]
            )
            args = json.loads(done.choices[0].message.tool_calls[0].function.arguments)
            argv = ["sh", "-c", args["command"]]
            assert args["description"]  # OpenCode's required string is filled in
        else:
            resp = await client.responses.create(model="m", input=prompt, tools=[SHELL_TOOL])
            call = next(o for o in resp.output if o.type == "function_call")
            argv = json.loads(call.arguments)["command"]
        await client.close()
    subprocess.run(argv, cwd=work, check=True)
    expected = tmp_path / "expected"  # the reference's patches applied by git
    shutil.copytree(task_dir / "repo", expected)
    patches = sorted((task_dir / "reference").glob("u*.patch"))
    subprocess.run(["git", "apply", *map(str, patches)], cwd=expected, check=True)
    cmp = filecmp.dircmp(work, expected)
    assert not (cmp.diff_files or cmp.left_only or cmp.right_only), (
        cmp.diff_files,
        cmp.left_only,
        cmp.right_only,
    )


async def test_mini_swe_agent_is_told_to_submit_then_finishes() -> None:
    """mini-swe-agent's prompt asks for the sentinel as a command of its own."""
    task_dir = FIXTURES / "tiny-site"
    prompt = full_spec(task_dir) + "\nFinish with `echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`."
    messages: list[Any] = [{"role": "user", "content": prompt}]
    commands = []
    async with FakeProvider(task_dir=task_dir) as fake:
        client = oai(fake)
        for _ in range(2):
            done = await client.chat.completions.create(
                model="m", messages=messages, tools=[BASH_TOOL]
            )
            message = done.choices[0].message
            call = message.tool_calls[0]
            commands.append(json.loads(call.function.arguments)["command"])
            messages += [
                message.model_dump(exclude_none=True),
                {"role": "tool", "tool_call_id": call.id, "content": "ok"},
            ]
        await client.close()
    assert "base64 -d" in commands[0]
    assert commands[1] == "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
