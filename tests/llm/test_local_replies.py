"""A real local model's mistakes, replayed over loopback into `LLMSolver` (#42).

`tests/llm/fixtures/local/*.json` holds answers recorded from Gemma 3 270M behind
`scripts/local-model` (`record.py` beside them): `first_reveal` from llama-cpp-python's
server, the script's runtime before #56, `llamacpp_*` from llama.cpp's (xllamacpp). Each case
below serves one recorded answer, or one derived from a recorded envelope (same id,
model and usage shape; the message changed to the malformed case, and said so), and
checks that the model's mess stays the model's: no exception, the turn ends as it
should, the tokens are charged, and every mistake is a `ModelSlip` of the right kind
naming the call.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import trio

from orchestrator.contract import load_task
from orchestrator.llm import AgentOptions, FakeProvider, Fault
from orchestrator.solvers import REPEAT_LIMIT, LLMSolver, SolverTurn, UserMessage
from orchestrator.workspace import Workspace

from .conftest import open_client

pytestmark = pytest.mark.anyio
LOCAL = Path(__file__).parent / "fixtures" / "local"


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    if request.param == "trio" and tuple(map(int, trio.__version__.split(".")[:2])) < (0, 32):
        pytest.skip(f"trio {trio.__version__} is too old for anyio.to_thread")
    return str(request.param)


def recorded(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((LOCAL / f"{name}.json").read_text())
    return data


def served(body: dict[str, Any], times: int = 1) -> Fault:
    return Fault(kind="replay", times=times, status=200, body=json.dumps(body))


def derived(message: dict[str, Any], finish: str, completion_tokens: int = 14) -> dict[str, Any]:
    """The recorded envelope with another message (a malformed case the model did not
    happen to produce in the recordings)."""
    body: dict[str, Any] = copy.deepcopy(recorded("first_reveal")["body"])
    choice = body["choices"][0]
    choice["message"] = {"role": "assistant", **message}
    choice["finish_reason"] = finish
    body["usage"]["completion_tokens"] = completion_tokens
    return body


def call(name: str, arguments: str, n: int = 0) -> dict[str, Any]:
    # llama-cpp-python's chatml-function-calling shape: id "call__<n>_<name>_<completion id>".
    return {
        "id": f"call__{n}_{name}_cmpl-local",
        "type": "function",
        "function": {"name": name, "arguments": arguments},
    }


def calls(*c: dict[str, Any]) -> dict[str, Any]:
    return derived({"content": None, "tool_calls": list(c)}, "tool_calls", 20)


async def turn(
    tiny_task: Path, tmp_path: Path, faults: list[Fault], cap: int = 512, **options: Any
) -> tuple[SolverTurn, FakeProvider]:
    task = load_task(tiny_task)
    ws = await Workspace.create(task.repo, tmp_path / "ws", task.contract.allowed_paths)
    unit = task.contract.units[0]
    message = UserMessage(kind="reveal", text=unit.request, unit_id=unit.id, unit_index=0)
    async with FakeProvider(task_dir=tiny_task, faults=faults) as fake:
        async with open_client(fake, max_output_tokens=cap) as client:
            result = await LLMSolver(client, AgentOptions(**options)).respond(message, ws)
    return result, fake


def kinds(t: SolverTurn) -> list[str]:
    return [s.what for s in t.slips]


async def test_recorded_text_instead_of_a_call_ends_the_turn_as_a_slip(
    api_key: str, tiny_task: Path, tmp_path: Path
) -> None:
    body = recorded("first_reveal")["body"]  # real: "<|im_start|>user\n", no tool call
    t, fake = await turn(tiny_task, tmp_path, [served(body)])
    assert t.end == "idle" and len(fake.requests) == 1
    assert kinds(t) == ["no_call"] and "<|im_start|>user" in t.slips[0].text
    assert (t.usage.input_tokens, t.usage.output_tokens) == (294, 14)  # real, metered


async def test_recorded_llamacpp_echo_is_cut_text_and_no_call(
    api_key: str, tiny_task: Path, tmp_path: Path
) -> None:
    # llama.cpp's server, the agent's first step, max_tokens 128: the base model echoes
    # its system prompt until the cap.
    body = recorded("llamacpp_first_reveal")["body"]
    t, fake = await turn(tiny_task, tmp_path, [served(body)], cap=128)
    assert t.end == "idle" and len(fake.requests) == 1
    assert kinds(t) == ["truncated", "no_call"] and "You are a frontend engineer" in t.slips[1].text
    assert (t.usage.input_tokens, t.usage.output_tokens) == (570, 128)


async def test_recorded_llamacpp_tool_calls_run_and_the_cut_one_is_a_slip(
    api_key: str, tiny_task: Path, tmp_path: Path
) -> None:
    # llama.cpp's server, the agent's second step (after list_files), max_tokens 128:
    # four OpenAI tool_calls parsed from the model's <tool_call> lines, the last one cut
    # inside its arguments ('{') at the cap.
    rec = recorded("llamacpp_calls")
    names = [c["function"]["name"] for c in rec["body"]["choices"][0]["message"]["tool_calls"]]
    assert names == ["list_files", "edit", "write_file", "delete_file"]
    end = served(derived({"content": "x"}, "stop"))
    t, fake = await turn(tiny_task, tmp_path, [served(rec["body"]), end], cap=128)
    assert len(fake.requests) == 2
    assert kinds(t)[:2] == ["truncated", "bad_arguments"] and "delete_file" in t.slips[1].text
    tool = [m for m in fake.requests[1].body["messages"] if m["role"] == "tool"]
    assert len(tool) == 4  # every call answered, the broken one with its error
    assert "not valid JSON" in tool[3]["content"]


async def test_partial_arguments_json_is_a_tool_error_and_a_slip(
    api_key: str, tiny_task: Path, tmp_path: Path
) -> None:
    cut = calls(call("write_file", '{"path": "index.html", "content": "<h1>Sav'))
    t, fake = await turn(
        tiny_task, tmp_path, [served(cut), served(derived({"content": "ok"}, "stop"))]
    )
    assert kinds(t) == ["bad_arguments", "no_call"]
    assert "write_file" in t.slips[0].text and "not valid JSON" in t.slips[0].text
    tool = [m for m in fake.requests[1].body["messages"] if m["role"] == "tool"]
    assert "not valid JSON" in tool[0]["content"]  # the model was told, too
    # The broken arguments are echoed as {} so the server does not reject the history.
    echoed = [m for m in fake.requests[1].body["messages"] if m.get("tool_calls")]
    assert echoed[0]["tool_calls"][0]["function"]["arguments"] == "{}"


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        ('["index.html"]', "must be a JSON object"),
        ('{"path": 7}', "must be a string"),
        ("{}", "missing required argument(s): path"),
    ],
)
async def test_arguments_of_the_wrong_shape_are_slips(
    api_key: str, tiny_task: Path, tmp_path: Path, arguments: str, says: str
) -> None:
    bad = calls(call("read_file", arguments))
    t, _ = await turn(tiny_task, tmp_path, [served(bad), served(derived({"content": "x"}, "stop"))])
    assert kinds(t)[0] == "bad_arguments" and says in t.slips[0].text


async def test_unknown_tool_is_a_slip_naming_it(
    api_key: str, tiny_task: Path, tmp_path: Path
) -> None:
    bad = calls(call("open_browser", '{"url": "index.html"}'))
    t, _ = await turn(tiny_task, tmp_path, [served(bad), served(derived({"content": "x"}, "stop"))])
    assert kinds(t) == ["unknown_tool", "no_call"] and "'open_browser'" in t.slips[0].text


async def test_empty_reply_is_a_slip_not_an_error(
    api_key: str, tiny_task: Path, tmp_path: Path
) -> None:
    empty = derived({"content": ""}, "stop", 0)
    t, fake = await turn(tiny_task, tmp_path, [served(empty)])
    assert t.end == "idle" and kinds(t) == ["empty"] and len(fake.requests) == 1


async def test_identical_calls_end_the_turn_after_the_repeat_limit(
    api_key: str, tiny_task: Path, tmp_path: Path
) -> None:
    same = calls(call("read_file", '{"path": "index.html"}'))
    t, fake = await turn(tiny_task, tmp_path, [served(same, times=0)], max_steps_per_turn=10)
    assert len(fake.requests) == REPEAT_LIMIT  # not max_steps_per_turn
    assert kinds(t) == ["repeat"] and "read_file" in t.slips[0].text
    assert t.end == "idle"


async def test_different_calls_are_no_loop(api_key: str, tiny_task: Path, tmp_path: Path) -> None:
    a = calls(call("read_file", '{"path": "index.html"}'))
    b = calls(call("list_files", "{}"))
    faults = [served(a), served(b), served(a), served(b), served(derived({"content": "x"}, "stop"))]
    t, fake = await turn(tiny_task, tmp_path, faults, max_steps_per_turn=10)
    assert len(fake.requests) == 5 and "repeat" not in kinds(t)


async def test_reply_cut_at_max_output_tokens_is_named(
    api_key: str, tiny_task: Path, tmp_path: Path
) -> None:
    cut = derived({"content": "<URL>http://www.google.com/search?q=index"}, "length", 512)
    t, _ = await turn(tiny_task, tmp_path, [served(cut)])
    assert kinds(t) == ["truncated", "no_call"] and "max_output_tokens (512" in t.slips[0].text


async def test_reply_cut_at_the_context_window_is_named(
    api_key: str, tiny_task: Path, tmp_path: Path
) -> None:
    # llama-cpp-python stops at n_ctx with finish_reason "length" and fewer tokens than
    # max_tokens: the window, not the output cap, cut it.
    cut = derived({"content": "<h1>"}, "length", 37)
    t, _ = await turn(tiny_task, tmp_path, [served(cut)])
    assert kinds(t)[0] == "context_window" and "after 37 output tokens" in t.slips[0].text


async def test_reply_past_max_output_tokens_was_cut_by_the_window(
    api_key: str, tiny_task: Path, tmp_path: Path
) -> None:
    # chatml-function-calling ignores max_tokens: a reply longer than the cap that still
    # stopped on "length" ran into n_ctx.
    cut = derived({"content": "j8j8j8"}, "length", 3900)
    t, _ = await turn(tiny_task, tmp_path, [served(cut)])
    assert kinds(t)[0] == "context_window" and "after 3900 output tokens" in t.slips[0].text


async def test_a_well_formed_call_is_no_slip(api_key: str, tiny_task: Path, tmp_path: Path) -> None:
    ok = calls(call("read_file", '{"path": "index.html"}'))
    done = calls(call("done", "{}"))
    t, _ = await turn(tiny_task, tmp_path, [served(ok), served(done)])
    assert t.slips == () and t.end == "done"


def test_bench_local_points_at_loopback_with_no_key_and_price_zero() -> None:
    from orchestrator.config import load_config

    root = Path(__file__).resolve().parents[2]
    cfg = load_config(root / "bench-local.toml")
    (local,) = cfg.providers
    assert local.kind == "openai" and local.base_url.startswith("http://127.0.0.1:")
    assert local.api_key_env == "" and local.cost_usd(10**6, 10**6) == 0.0
    assert all(s.provider == "local" for s in cfg.solvers)
    agents = [s.name for s in cfg.solvers if s.kind == "scaffold"]
    assert agents == ["aider", "mini-swe-agent"] and set(cfg.sweep.arms) == {"staged", "full-spec"}
    # #56's run: 4 cells on one cheap task, one at a time, every exchange recorded.
    assert cfg.sweep.tasks == ("hollin-ridge-sessions",) and cfg.sweep.repeats == 1
    assert cfg.sweep.concurrency == 1 and cfg.sweep.cassettes == "record"
    # Cells that end by themselves (a cell cut by the clock asks for more on replay).
    (agent,) = [s for s in cfg.solvers if s.kind == "llm"]
    assert local.max_output_tokens <= 128 and agent.options.max_steps_per_turn == 1
    assert all(s.scaffold.wall_time_s <= 360 for s in cfg.solvers if s.scaffold)
    script = (root / "scripts" / "local-model").read_text()
    assert f"PWB_LOCAL_MODEL_PORT:-{local.base_url.rsplit(':', 1)[1].split('/')[0]}" in script


def test_local_model_script_installs_a_prebuilt_runtime_and_a_tool_template() -> None:
    """`scripts/local-model` installs llama.cpp's server prebuilt (no source build, pinned
    by hash), and its chat template writes a call as the <tool_call> line llama.cpp parses
    back into OpenAI `tool_calls` (rendered here by jinja2, close to llama.cpp's own)."""
    import re

    script = (Path(__file__).resolve().parents[2] / "scripts" / "local-model").read_text()
    assert re.search(r'^RUNTIME="xllamacpp==\$RUNTIME_VERSION"$', script, re.M)
    assert "--only-binary=:all: --require-hashes" in script and "CMAKE" not in script
    assert "OMP_WAIT_POLICY=PASSIVE" in script
    jinja2 = pytest.importorskip("jinja2")
    m = re.search(r"gemma-3-tools\.jinja\" <<'EOF'\n(.*?)\nEOF\n", script, re.S)
    assert m, "the template's heredoc"
    tools = [
        {"type": "function", "function": {"name": n, "description": f"{n}.", "parameters": p}}
        for n, p in [
            ("list_files", {"type": "object", "properties": {}}),
            ("read_file", {"type": "object", "properties": {"path": {"type": "string"}}}),
        ]
    ]
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "read_file", "arguments": '{"path": "a.html"}'},
    }
    messages = [
        {"role": "system", "content": "SYSTEM"},
        {"role": "user", "content": "Do it."},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "<p>hi</p>"},
    ]
    env = jinja2.Environment(extensions=["jinja2.ext.loopcontrols"])
    # As llama.cpp's (and transformers') tojson: plain text, not jinja2's HTML-safe Markup.
    env.filters["tojson"] = lambda value: json.dumps(value, ensure_ascii=False)
    out = env.from_string(m.group(1)).render(
        messages=messages, tools=tools, add_generation_prompt=True, bos_token="<bos>"
    )
    assert out.startswith("<bos><start_of_turn>user\nSYSTEM\n\nTools you can call:\n- list_files:")
    assert '- read_file: read_file. Arguments: {"path": {"type": "string"}}' in out
    assert "Do it.<end_of_turn>\n" in out
    want = '<start_of_turn>model\n<tool_call>{"name": "read_file", "arguments": {"path": "a.html"}}'
    assert want + "</tool_call><end_of_turn>\n" in out
    assert "<start_of_turn>user\n<tool_response><p>hi</p></tool_response><end_of_turn>\n" in out
    assert out.endswith("<start_of_turn>model\n")
    plain = env.from_string(m.group(1)).render(
        messages=messages[1:2], tools=None, add_generation_prompt=True, bos_token="<bos>"
    )
    assert plain == "<bos><start_of_turn>user\nDo it.<end_of_turn>\n<start_of_turn>model\n"
