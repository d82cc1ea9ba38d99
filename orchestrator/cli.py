"""`python -m orchestrator [command]`: each command lives in `orchestrator/commands/<name>.py`.

A command module defines `HELP: str`, `add_arguments(parser)` and `run(args) -> int`.
With no command, `run` (the sweep) is assumed, so `python -m orchestrator --concurrency 64`
works as documented.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from types import ModuleType
from typing import Any, TextIO, cast

from .contract import printable

COMMANDS = (
    "run",
    "tasks",
    "images",
    "gc",
    "verify",
    "capture",
    "cell",
    "admit",
    "report",
    "regrade",
    "export",
    "new",
    "suggest",
    "negative",
    "twin",
    "lint",
    "audit",
)


def _load(name: str) -> ModuleType:
    return importlib.import_module(f"orchestrator.commands.{name}")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser; with `only`, import just that command (the others pull heavy libraries)."""
    parser = argparse.ArgumentParser(prog="python -m orchestrator")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        if only is not None and name != only:
            continue
        try:
            mod = _load(name)
        except ModuleNotFoundError as exc:
            if exc.name != f"orchestrator.commands.{name}":
                raise
            continue  # command not built yet
        p = sub.add_parser(name, help=mod.HELP, description=mod.HELP)
        mod.add_arguments(p)
        p.set_defaults(_module=mod)
    return parser


class _Printable:
    """A text stream that writes what it is given with control characters escaped, so a
    task's, a solver's or a provider's string cannot drive the terminal (#36)."""

    def __init__(self, inner: TextIO) -> None:
        self._inner = inner

    def write(self, text: str) -> int:
        self._inner.write(printable(text))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


@contextmanager
def printable_output() -> Iterator[None]:
    """stdout and stderr escape control characters for the duration of a command."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = cast(TextIO, _Printable(out)), cast(TextIO, _Printable(err))
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err


def main(argv: Sequence[str] | None = None) -> int:
    with printable_output():
        return _main(argv)


def _main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if not args_list or (args_list[0].startswith("-") and args_list[0] not in ("-h", "--help")):
        args_list.insert(0, "run")
    parser = build_parser(args_list[0] if args_list[0] in COMMANDS else None)
    args = parser.parse_args(args_list)
    if not hasattr(args, "_module"):
        parser.print_help()
        return 2
    result: int = args._module.run(args)
    return result
