"""`LLMSolver`: a tool-calling agent over a `ChatClient`. One `respond` call is one turn.

Within a turn the agent loops: one request, then every tool call it made, until it asks
the user, says done, answers without a tool call, repeats the same calls `REPEAT_LIMIT`
replies in a row, or reaches `max_steps_per_turn` requests. Spend is charged to the
sweep `Ledger` after every request and the caps are checked before the next one, so
`BudgetExceeded` is raised cleanly between requests.

What the model gets wrong is its own mess, never an exception: a malformed call (bad
arguments JSON, an unknown tool) is a tool error it can read, and every mistake (those,
text or nothing where a call was expected, a loop, a reply cut at `max_output_tokens`
or at the context window) is a `ModelSlip` on the turn, which the cell logs as a `slip`
event. The row stays `ok`, scored on what the model delivered.
"""

from __future__ import annotations

from ..budget import BudgetExceeded, Ledger
from ..llm import (
    AgentOptions,
    AssistantMsg,
    ChatClient,
    ChatRequest,
    Completion,
    ContextTooLong,
    LLMError,
    Message,
    ProviderOutage,
    ProviderRefused,
    ToolResultMsg,
    UserMsg,
    json_object,
)
from ..records.trajectory import Entry, ToolCallEntry
from ..workspace import Workspace
from ._lifecycle import WorkspaceSolver
from ._llm_history import History
from ._llm_tools import run_tool, tool_specs
from ._protocol import ModelSlip, SolverTurn, TurnEnd, Usage, UserMessage

REPEAT_LIMIT = 3  # the same call(s) in this many consecutive replies end the turn
_SHOWN = 160  # characters of the model's text quoted in a slip

_SYSTEM = (
    "You are a frontend engineer working in the repository of a website. The user reveals "
    "the work one request at a time; do the current request by changing files with your "
    "tools. Look before you edit (list_files, read_file, search). Use edit for small exact "
    "changes, write_file for new files or full rewrites, delete_file to remove one. "
    "Paths are relative to the repository root; you may write only inside: {allowed}. "
    "If the request is ambiguous, ask_user. When the request is finished, call done."
)
_PRESERVE = (
    " Keep everything that already works working: do not remove or alter pages, "
    "navigation, copy, styles or behaviour that the request does not ask you to change."
)
_VISION = " view_page shows screenshots of the site as of the last check of your work."


class LLMSolver(WorkspaceSolver):
    def __init__(
        self,
        client: ChatClient,
        options: AgentOptions,
        *,
        ledger: Ledger | None = None,
        name: str = "",
    ) -> None:
        self.name = name or f"llm:{client.config.name}"
        self.options = options
        self.usage = Usage()  # whole cell, including turns cut short by a budget
        self._client = client
        self._ledger = ledger
        self._history = History()
        self._keep_cap: int | None = None  # lowered once a request was too long

    async def aclose(self) -> None:
        pass  # the pool owns the HTTP client

    def system_prompt(self, workspace: Workspace) -> str:
        text = _SYSTEM.format(allowed=", ".join(workspace.allowed_paths))
        text += _PRESERVE if self.options.preservation_clause else ""
        return text + (_VISION if self.options.vision else "")

    def _user_text(self, message: UserMessage) -> str:
        if self.options.vision and message.screenshots:
            n = len(message.screenshots)
            return f"{message.text}\n\n({n} screenshot(s) of the site are available: view_page.)"
        return message.text

    async def respond(self, message: UserMessage, workspace: Workspace) -> SolverTurn:
        try:
            return await self._respond(message, workspace)
        except (LLMError, ProviderRefused, ProviderOutage) as exc:
            exc.cell_usage = self.usage  # what the cell was charged, for its row
            raise

    async def _respond(self, message: UserMessage, workspace: Workspace) -> SolverTurn:
        before = await workspace.tree_id()
        self._history.start_turn(UserMsg(text=self._user_text(message)))
        usage, ends, note = Usage(), None, ""
        question = ""
        slips: list[ModelSlip] = []
        last: tuple[tuple[str, str], ...] = ()
        repeats = 0
        for _ in range(self.options.max_steps_per_turn):
            completion, refused = await self._complete(workspace)
            usage += refused + self._charge(completion)
            reply = completion.message
            self._history.append(reply)
            slips += self._reply_slips(completion)
            note = reply.text or note
            if not reply.tool_calls:
                break
            ends, question = await self._run_calls(reply, message, workspace, slips)
            if ends is not None:
                break
            calls = tuple((c.name, c.arguments_json) for c in reply.tool_calls)
            repeats = repeats + 1 if calls == last else 1
            last = calls
            if repeats >= REPEAT_LIMIT:
                shown = "; ".join(f"{n} {a}"[:_SHOWN] for n, a in calls)
                text = f"the same call(s) in {repeats} replies in a row, turn ended: {shown}"
                slips.append(ModelSlip(what="repeat", text=text))
                break
        changed = await workspace.tree_id() != before
        return SolverTurn(
            end=_end(ends, changed),
            question=question,
            note=note,
            usage=usage,
            messages=tuple(_entry(m) for m in self._history.current()),
            slips=tuple(slips),
        )

    def _reply_slips(self, completion: Completion) -> list[ModelSlip]:
        """What is wrong with one reply itself (its calls are judged when they run)."""
        reply = completion.message
        out: list[ModelSlip] = []
        if completion.stop_reason == "length":
            cap = self._client.config.max_output_tokens
            got = completion.output_tokens
            # Not at the cap: the window cut it (llama-cpp-python lowers max_tokens to
            # what is left of n_ctx, and its chatml-function-calling ignores max_tokens).
            if got != cap and not completion.usage_estimated:
                text = (
                    f"reply cut at the model's context window after {got} output tokens "
                    f"(finish_reason length, max_output_tokens {cap}, prompt "
                    f"{completion.input_tokens} tokens)"
                )
                out.append(ModelSlip(what="context_window", text=text))
            else:
                text = f"reply cut at max_output_tokens ({cap}; finish_reason length)"
                out.append(ModelSlip(what="truncated", text=text))
        if not reply.tool_calls:
            if reply.text.strip():
                quoted = reply.text.strip()[:_SHOWN]
                text = f"text where a tool call was expected (the turn ends): {quoted!r}"
                out.append(ModelSlip(what="no_call", text=text))
            else:
                out.append(ModelSlip(what="empty", text="an empty reply: no text, no tool call"))
        return out

    async def _run_calls(
        self, reply: AssistantMsg, message: UserMessage, ws: Workspace, slips: list[ModelSlip]
    ) -> tuple[str | None, str]:
        """Run every call (each needs a result in the history); report how the turn ends.
        A malformed call's slip is added to `slips`."""
        ends: str | None = None
        question = ""
        for call in reply.tool_calls:
            out = await run_tool(
                call,
                ws,
                vision=self.options.vision,
                screenshots=message.screenshots,
                edit_format=self.options.edit_format,
            )
            result = ToolResultMsg(
                call_id=call.id,
                name=call.name,
                content=out.content,
                is_error=out.is_error,
                images=out.images,
            )
            self._history.append(result)
            if out.slip:
                slips.append(ModelSlip(what=out.slip, text=f"{call.name}: {out.content}"[:400]))
            if out.ends == "question":
                question = _argument(call.arguments_json, "question")
            ends = "question" if question else ends or out.ends
        return ends, question

    # ------------------------------------------------------------ requests
    def _keep(self) -> int | None:
        caps = [c for c in (self.options.history_turns, self._keep_cap) if c is not None]
        return min(caps) if caps else None

    def _request(self, workspace: Workspace) -> ChatRequest:
        return ChatRequest(
            system=self.system_prompt(workspace),
            messages=self._history.messages(self._keep()),
            tools=tool_specs(vision=self.options.vision, edit_format=self.options.edit_format),
        )

    async def _complete(self, workspace: Workspace) -> tuple[Completion, Usage]:
        """One request; a context-length refusal applies the history policy and retries once:
        keep half the turns, or when only the current turn is left, blank its older tool
        output."""
        await self._check_budget()
        refused = Usage()
        try:
            return await self._client.complete(self._request(workspace)), refused
        except ContextTooLong as exc:
            if exc.spent is not None:  # a 200 that stopped at the window still bills
                refused = self._charge(exc.spent)
            kept = min(self._keep() or self._history.turns, self._history.turns)
            if kept > 1:
                self._keep_cap = max(1, kept // 2)
            elif not self._history.compact_current():
                raise  # nothing left to drop
        await self._check_budget()
        return await self._client.complete(self._request(workspace)), refused

    async def _check_budget(self) -> None:
        if self._ledger is not None:
            await self._ledger.acheck()
        cap = self.options.max_cell_tokens
        spent = self.usage.input_tokens + self.usage.output_tokens
        if cap is not None and spent >= cap:
            raise BudgetExceeded("tokens", f"cell spent {spent} of {cap} tokens")

    def _charge(self, c: Completion) -> Usage:
        cost = self._client.config.cost_usd(
            c.input_tokens,
            c.output_tokens,
            cache_read_tokens=c.cache_read_tokens,
            cache_write_tokens=c.cache_write_tokens,
        )
        step = Usage(
            input_tokens=c.input_tokens,
            output_tokens=c.output_tokens,
            cost_usd=cost,
            requests=c.attempts,
            wait_s=c.retry_wait_s + c.queue_wait_s,
            cache_read_tokens=c.cache_read_tokens,
            estimated_requests=int(c.usage_estimated),
        )
        self.usage += step
        if self._ledger is not None:
            self._ledger.charge(c.input_tokens + c.output_tokens, cost, estimated=c.usage_estimated)
        return step


def _entry(m: Message) -> Entry:
    """A conversation message as the trajectory records it (images counted, not kept)."""
    if isinstance(m, UserMsg):
        return Entry(role="user", text=m.text, images=len(m.images))
    if isinstance(m, ToolResultMsg):
        return Entry(
            role="tool",
            text=m.content,
            call_id=m.call_id,
            name=m.name,
            is_error=m.is_error,
            images=len(m.images),
        )
    calls = tuple(
        ToolCallEntry(id=c.id, name=c.name, arguments_json=c.arguments_json) for c in m.tool_calls
    )
    return Entry(role="assistant", text=m.text, tool_calls=calls)


def _end(ends: str | None, changed: bool) -> TurnEnd:
    # A question must reach the user even if files changed; otherwise edits decide.
    if ends == "question":
        return "question"
    if changed:
        return "edited"
    return "done" if ends == "done" else "idle"


def _argument(arguments_json: str, name: str) -> str:
    value = json_object(arguments_json).get(name, "")
    return value if isinstance(value, str) else ""
