"""`commands._loop.run_command`: what the command's coroutine returns or raises comes out
as itself. The commands turn a bad input into one line by the exception's type (`verify`
on a tampered evidence file, `ContractError`); wrapped in the signal watcher's task
group's `ExceptionGroup` it was a traceback instead (CI, session 22)."""

from __future__ import annotations

import pytest

from orchestrator.commands._loop import run_command


async def _answer(x: int) -> int:
    return x * 2


async def _bad(where: str) -> int:
    raise ValueError(f"{where}: expected a number")


def test_the_coroutine_s_value_comes_back() -> None:
    assert run_command(_answer, 21) == 42


def test_the_coroutine_s_error_comes_out_as_itself_not_in_a_group() -> None:
    with pytest.raises(ValueError, match=r"^task.toml: expected a number$") as info:
        run_command(_bad, "task.toml")
    assert type(info.value) is ValueError
